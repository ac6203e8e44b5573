//! Linkerd proxies (docs/lifecycle.md §4).
//!
//! Before injection: the `linkerd.io/inject` annotation on the pod or its namespace
//! decides (§4.1); the proxy is a native sidecar or a classic container, held by
//! `linkerd-await` or not, with a `wait-before-exit` preStop (§4.2). After injection:
//! `linkerd-proxy` is read as written. On SIGTERM the proxy refuses new connections and
//! lets in-flight ones finish, up to its shutdown grace period (§4.3).

mod inject;
mod native;
mod remedies;
mod shutdown;
mod stop;

use inject::*;
pub use native::native_switch;
use native::{NATIVE, native_mode, native_setting, native_switch_in_force};
pub use remedies::{REMEDIES, STAY, WRITTEN_REMEDIES};
use shutdown::*;
use stop::*;

use crate::load::JsonPath;
use crate::resolve::Builder;
use crate::resolve::assumption::Assumed;
use crate::resolve::decision::*;
use crate::resolve::hooks::HookKind;
use crate::resolve::mesh::{
    Description, InManifestWords, Mesh, MeshInfo, OptInWords, SidecarModel, Words, written,
};
use crate::resolve::mesh::{
    Displaced, Displacement, NativeSwitch, Remedies, StopRequest, StopVerdict,
};
use crate::resolve::plan::*;
use crate::resolve::problems::*;
use crate::resolve::reading::Reading;
use crate::settings::version::{KubeVersion, LinkerdVersion};
use crate::settings::{Source, Sourced};
use crate::time::{Millis, parse_go_duration};

/// The proxy container's name.
pub const PROXY: &str = "linkerd-proxy";

/// The UID the proxy runs as; `linkerd-init` skips its traffic (`--proxy-uid`).
pub const PROXY_UID: i64 = 2102;

/// The debug container `linkerd inject --enable-debug-sidecar` adds.
const DEBUG: &str = "linkerd-debug";

/// Linkerd's `linkerd-proxy`.
pub struct Linkerd;

/// Its sidecar, as plans name it.
pub const KIND: SidecarKind = SidecarKind::Known(&Linkerd);

/// Linkerd.
pub const MESH: Mesh = Mesh::new(&MeshInfo {
    id: "linkerd",
    title: "Linkerd",
    injector: "proxy injector",
    captures_traffic: true,
    words: Words {
        quoted_values: false,
        pod_opt_in: OptInWords::KindKey,
        in_manifest: InManifestWords::InjectedAlready,
        ..Words::PLAIN
    },
});

impl SidecarModel for Linkerd {
    fn description(&self) -> &Description {
        static LINKERD_PROXY: Description = Description {
            id: "linkerd-proxy",
            label: "Linkerd proxy",
            mesh: Some(MESH),
            vocabulary: &VOCABULARY,
            remedies: &REMEDIES,
        };
        &LINKERD_PROXY
    }

    fn resolve(&self, b: &mut Builder) {
        mark_debug_sidecar(b);
        label_instead_of_annotation(b);
        if let Some((list, index)) = b.find(PROXY) {
            adopt_injected(b, list, index);
            return;
        }
        if let Some((trigger, asked_by)) = injection(b) {
            inject(b, trigger, asked_by);
        }
    }

    fn remedies(&self, written: bool) -> &'static Remedies {
        if written {
            &WRITTEN_REMEDIES
        } else {
            &REMEDIES
        }
    }

    fn judge_stop(&self, call: &StopRequest, b: &Builder) -> Option<StopVerdict> {
        judge_stop(call, b)
    }

    fn stop_command(&self, _b: &Builder) -> Option<String> {
        Some(stop_command())
    }

    fn answers_signal(&self, target: &str) -> bool {
        answers_signal(target)
    }
}

/// An annotation of the pod, or else of its namespace (namespace `config.*` annotations
/// are copied to pods that do not set them, §4.1).
fn setting(b: &Builder, key: &str) -> Option<(String, Source)> {
    if let Some((value, path)) = b.workload.pod_annotation(key) {
        return Some((value.to_owned(), Source::Manifest(path)));
    }
    let (_, info) = b.settings.namespace_of(b.workload.namespace.as_deref())?;
    let value = info.annotations.get(key)?;
    Some((
        value.clone(),
        info.source.clone().unwrap_or(Source::Default),
    ))
}

fn version_at_least(b: &Builder, minor: u32, edge: (u32, u32, u32)) -> Option<bool> {
    b.settings
        .linkerd
        .version
        .as_ref()
        .map(|v| v.value.at_least(minor, edge))
}

/// `linkerd.io/inject` is read as an annotation only; as a label it does nothing.
fn label_instead_of_annotation(b: &mut Builder) {
    if b.workload.pod_annotation(INJECT).is_some() {
        return;
    }
    if let Some((value, path)) = b.workload.pod_label(INJECT) {
        b.problem(
            path,
            Fault::OptInIgnored(OptInIgnored::LabelNotRead {
                mesh: MESH,
                setting: INJECT,
                value: value.to_owned(),
            }),
        );
    }
}

/// The proxy is in the manifest: read it as written.
fn adopt_injected(b: &mut Builder, list: ContainerList, index: usize) {
    let container = b.manifest_container(b.get(list, index)).cloned();
    let env_grace = container.as_ref().and_then(|c| {
        c.env.iter().flatten().find_map(|var| {
            (var.name == "LINKERD2_PROXY_SHUTDOWN_GRACE_PERIOD")
                .then(|| var.value.clone())
                .flatten()
        })
    });
    let grace = shutdown_grace(b, env_grace.as_deref());
    let await_setting = setting(b, AWAIT);
    let switch = native_switch_in_force(b);
    let written = written::adopt(b, (list, index), KIND, switch, "linkerd-await");
    let proxy = b.get_mut(list, index);
    if let Some((_, source)) = await_setting.filter(|(v, _)| v == "enabled" && !written.waits) {
        proxy.gate_request = Some(GateRequest {
            source,
            asked_by: GateSetting::Setting {
                name: AWAIT,
                value: Some("enabled"),
            },
        });
    }
    apply_shutdown(proxy, grace);
    let held = written.waits.then_some(ProxyMode::Held {
        first: false,
        command: "linkerd-await",
    });
    written.decide(b, MESH, PROXY, held);
}

/// The debug container `linkerd inject --enable-debug-sidecar` adds: a long-running
/// helper, not the pod's work.
fn mark_debug_sidecar(b: &mut Builder) {
    let found = b.find(DEBUG).filter(|&(list, index)| {
        list == ContainerList::Regular && b.get(list, index).role == Role::App
    });
    if let Some((list, index)) = found {
        b.make_sidecar(list, index, SidecarKind::Declared(DEBUG.to_owned()), false);
    }
}
