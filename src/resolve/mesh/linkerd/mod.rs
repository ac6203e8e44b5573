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
pub use native::*;
pub use remedies::*;
use shutdown::*;
use stop::*;

use crate::load::JsonPath;
use crate::resolve::Builder;
use crate::resolve::assumption::Assumed;
use crate::resolve::decision::*;
use crate::resolve::hooks::{self, HookKind, Owner};
use crate::resolve::mesh::{
    Identity, InManifestWords, Mesh, MeshInfo, OptInWords, SidecarModel, Words,
};
use crate::resolve::mesh::{NativeSwitch, Remedies, StopRequest, StopVerdict};
use crate::resolve::plan::*;
use crate::resolve::problems::*;
use crate::resolve::reading::Reading;
use crate::resolve::vocabulary::Vocabulary;
use crate::settings::version::{KubeVersion, LinkerdVersion};
use crate::settings::{Source, Sourced};
use crate::time::{Millis, parse_go_duration};

/// The proxy container's name.
pub const PROXY: &str = "linkerd-proxy";

/// The UID the proxy runs as; `linkerd-init` skips its traffic (`--proxy-uid`).
pub const PROXY_UID: i64 = 2102;

const INIT: &str = "linkerd-init";
/// The debug container `linkerd inject --enable-debug-sidecar` adds.
const DEBUG: &str = "linkerd-debug";

const INJECT: &str = "linkerd.io/inject";

const AWAIT: &str = "config.linkerd.io/proxy-await";

const WAIT_BEFORE_EXIT: &str = "config.alpha.linkerd.io/proxy-wait-before-exit-seconds";

const SHUTDOWN_GRACE: &str = "config.linkerd.io/shutdown-grace-period";

/// Linkerd's `linkerd-proxy`.
pub struct Linkerd;

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
        namespace_opt_in_by_meaning: false,
        native_on_pod_only: false,
        classic: ("proxy", "proxy"),
        held_waits_for: None,
        refusal: None,
    },
});

static IDENTITY: Identity = Identity {
    id: "linkerd-proxy",
    label: "Linkerd proxy",
    mesh: Some(MESH),
};

/// Its sidecar, as plans name it.
pub const KIND: SidecarKind = SidecarKind::Known(&Linkerd);

impl SidecarModel for Linkerd {
    fn identity(&self) -> &Identity {
        &IDENTITY
    }

    fn resolve(&self, b: &mut Builder) {
        resolve(b);
    }

    fn remedies(&self, written: bool) -> &'static Remedies {
        if written {
            &WRITTEN_REMEDIES
        } else {
            &REMEDIES
        }
    }

    fn vocabulary(&self) -> &'static Vocabulary {
        &VOCABULARY
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

/// Resolves Linkerd for the pod being built.
fn resolve(b: &mut Builder) {
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

/// An annotation of the pod, or else of its namespace (namespace `config.*` annotations
/// are copied to pods that do not set them, §4.1).
fn setting(b: &Builder, key: &str) -> Option<(String, Source)> {
    if let Some((value, path)) = b.workload.pod_annotation(key) {
        return Some((value.to_owned(), Source::Manifest(path)));
    }
    let namespace = b.workload.namespace.as_ref()?;
    let info = b.settings.namespaces.get(namespace)?;
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
    let native = b.get(list, index).is_native_sidecar();
    let restart_always = b.get(list, index).restart_always();
    let await_setting = setting(b, AWAIT);
    b.make_sidecar(list, index, KIND, true);
    let switch = native_switch_in_force(b);
    let proxy = b.get_mut(list, index);
    // Written classic: what its injector would read to add it natively.
    proxy.native_switch = switch.filter(|_| !restart_always);
    let path = proxy.manifest_path().cloned().unwrap_or_default();
    let awaits = proxy
        .post_start
        .as_ref()
        .is_some_and(|h| matches!(h.duration, HookDuration::UntilReady { .. }));
    if awaits {
        proxy.gate_request = Some(GateRequest {
            source: Source::Manifest(path.key("lifecycle").key("postStart")),
            asked_by: GateSetting::PostStart {
                command: "linkerd-await",
            },
        });
    } else if let Some((_, source)) = await_setting.filter(|(v, _)| v == "enabled") {
        proxy.gate_request = Some(GateRequest {
            source,
            asked_by: GateSetting::Setting {
                name: AWAIT,
                value: Some("enabled"),
            },
        });
    }
    let probed = proxy.startup_probe.is_some();
    apply_shutdown(proxy, grace);
    // Without a startup probe, the postStart is what holds the next container.
    if native && awaits && probed {
        let source = Source::Manifest(path.key("lifecycle").key("postStart"));
        b.moot.push(MootSetting {
            source,
            why: Moot::Gate(GateMoot::WaitUnderStartupProbe {
                command: "linkerd-await",
            }),
        });
    }
    let mode = if native {
        ProxyMode::Native
    } else if restart_always {
        ProxyMode::NativeUnsupported
    } else if awaits {
        ProxyMode::Held {
            first: false,
            command: "linkerd-await",
        }
    } else {
        ProxyMode::Classic
    };
    b.meshes.push(MeshDecision {
        mesh: MESH,
        injection: Injection::InManifest,
        mode,
        reasons: vec![DecisionReason::InManifest {
            container: PROXY.to_owned(),
        }],
    });
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
