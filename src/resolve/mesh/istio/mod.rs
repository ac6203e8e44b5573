//! Istio sidecars (docs/lifecycle.md §3).
//!
//! Before injection: decides whether the webhook injects (§3.1), which layout it produces
//! (§3.2, A–D), whether the proxy is a native sidecar (§3.3), and how the effective
//! `ProxyConfig` comes out of defaults, mesh config and the pod annotation (§3.7). After
//! injection: reads the `istio-proxy` container as written, with the ProxyConfig the
//! injector rendered into `PROXY_CONFIG`. Either way the proxy's shutdown (§3.6) is
//! reduced to an exit policy and traffic cuts.

mod config;
mod inject;
mod layout;
mod native;
mod remedies;
mod shutdown;
mod stop;

use config::*;
use inject::{Decision, INJECT, injection};
pub use inject::{selected_revision, selector_matches};
use layout::*;
use native::{NATIVE, native_mode};
pub use native::{install_switch, native_switch};
pub use remedies::REMEDIES;
use shutdown::*;
use stop::*;

use crate::resolve::problems::*;
use k8s_openapi::api::core::v1::Container;

use crate::load::JsonPath;
use crate::resolve::Builder;
use crate::resolve::assumption::Assumed;
use crate::resolve::decision::*;
use crate::resolve::hooks::{self, HookKind, Owner};
use crate::resolve::mesh::{
    Description, InManifestWords, Mesh, MeshInfo, SidecarModel, Words, written,
};
use crate::resolve::mesh::{
    Displaced, Displacement, InstallSwitch, NativeSwitch, Remedies, StopRequest, StopVerdict,
};
use crate::resolve::plan::*;
use crate::settings::istio::{NativeSidecars, ProxyConfig};
use crate::settings::version::KubeVersion;
use crate::settings::{IstioSettings, IstioVersion, Settings, Source, Sourced};
use crate::time::{Millis, parse_go_duration};
use crate::workload::Workload;

/// The proxy container's name.
pub const PROXY: &str = "istio-proxy";

/// The UID the proxy runs as; the redirection skips its traffic (docs/lifecycle.md §3.2).
pub const PROXY_UID: i64 = 1337;

/// Default status port of pilot-agent: `/healthz/ready`, `/quitquitquit`, `/drain`.
pub const DEFAULT_STATUS_PORT: u16 = 15020;

/// Istio's `istio-proxy`: pilot-agent and Envoy.
pub struct Istio;

/// Its sidecar, as plans name it.
pub const KIND: SidecarKind = SidecarKind::Known(&Istio);

/// Istio.
pub const MESH: Mesh = Mesh::new(&MeshInfo {
    id: "istio",
    title: "Istio",
    injector: "sidecar injector",
    captures_traffic: true,
    words: Words {
        in_manifest: InManifestWords::InjectedAlready,
        namespace_opt_in_by_meaning: true,
        native_on_pod_only: true,
        classic: ("sidecar", "sidecar injection"),
        ..Words::PLAIN
    },
});

impl SidecarModel for Istio {
    fn description(&self) -> &Description {
        static ISTIO_PROXY: Description = Description {
            id: "istio-proxy",
            label: "Istio proxy",
            mesh: Some(MESH),
            vocabulary: &VOCABULARY,
            remedies: &REMEDIES,
        };
        &ISTIO_PROXY
    }

    fn resolve(&self, b: &mut Builder) {
        let found = b.find(PROXY);
        let custom_template =
            found.filter(|&(list, i)| b.get(list, i).image.as_deref() == Some("auto"));
        match (found, custom_template) {
            (Some((list, index)), None) => adopt_injected(b, list, index),
            (_, template) => {
                if let Some(decision) = injection(b, template.is_some()) {
                    let config = effective_config(b, None);
                    inject(b, decision, template, config);
                }
            }
        }
    }

    fn judge_stop(&self, call: &StopRequest, b: &Builder) -> Option<StopVerdict> {
        judge_stop(call, b)
    }

    fn stop_command(&self, b: &Builder) -> Option<String> {
        stop_command(b)
    }

    fn answers_signal(&self, target: &str) -> bool {
        answers_signal(target)
    }

    fn serves(&self, path: &str, b: &Builder) -> Option<Served> {
        serves(path, b)
    }
}

/// The settings of the Istio revision whose webhook injects the pod
/// ([`selected_revision`]), or of the default revision.
pub(crate) fn revision_settings<'a>(b: &Builder<'a>) -> &'a IstioSettings {
    selected_revision(b.workload, b.settings).map_or(&b.settings.istio, |(_, istio)| istio)
}

fn version(b: &Builder) -> Option<IstioVersion> {
    revision_settings(b).version.as_ref().map(|v| v.value)
}

/// Whether the running Istio has the feature that arrived in `minor` (unknown versions
/// have everything).
fn has(b: &Builder, minor: u32) -> bool {
    version(b).is_none_or(|v| v.minor >= minor)
}

/// The proxy is in the manifest: read it as written.
fn adopt_injected(b: &mut Builder, list: ContainerList, index: usize) {
    let container = b.manifest_container(b.get(list, index)).cloned();
    let config = effective_config(b, container.as_ref());
    conflicting_opt_out(b);
    let switch = native_switch(version(b), b.settings.kubernetes.value);
    let written = written::adopt(b, (list, index), KIND, switch, "pilot-agent wait");
    let intercepts = intercepts_inbound(b);
    let status_off = status_port_off(b, &config);
    let proxy = b.get_mut(list, index);
    proxy.status_port_off = status_off;
    mark_unanswered_wait(proxy);
    if !written.waits && config.hold.value {
        proxy.gate_request = Some(GateRequest {
            source: config.hold.source.clone(),
            asked_by: HOLD_REQUEST,
        });
    }
    judge_drain_request(proxy, config.status_port);
    apply_shutdown(proxy, &config, written.native, intercepts);
    // A native proxy ignores the hold setting (docs/lifecycle.md §3.2 layout C).
    if written.native && !written.wait_moot && config.hold.value {
        b.moot.push(MootSetting {
            source: config.hold.source.clone(),
            why: Moot::Gate(GateMoot::HoldIgnoredWhenNative { setting: HOLD }),
        });
    }
    written.decide(b, MESH, PROXY, None);
    let exits_on_signal = written.native
        && b.find(PROXY)
            .is_some_and(|(list, index)| drains_on_pre_stop(b.get(list, index)));
    note_moot_drain(b, &config, exits_on_signal);
}

/// `sidecar.istio.io/inject: "false"` on a pod whose proxy is already there.
fn conflicting_opt_out(b: &mut Builder) {
    let opt_out = b
        .workload
        .pod_label(INJECT)
        .or_else(|| b.workload.pod_annotation(INJECT))
        .filter(|(value, _)| *value == "false")
        .map(|(_, path)| path);
    if let Some(path) = opt_out {
        b.problem(
            path,
            Fault::Conflict(Conflict::ProxyInOptedOutPod { proxy: PROXY }),
        );
    }
}

/// `holdApplicationUntilProxyStarts: true`, which asks the injector to hold the app.
const HOLD_REQUEST: GateSetting = GateSetting::Setting {
    name: HOLD,
    value: Some("true"),
};
