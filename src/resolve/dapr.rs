//! Dapr's `daprd` sidecar (semantics section 5).
//!
//! `dapr.io/enabled: "true"` appends `daprd` to the containers with no start-up hold.
//! On SIGTERM it waits `dapr.io/graceful-shutdown-seconds` (5 s unless set) for
//! in-flight work. Jobs stop it with `POST :3500/v1.0/shutdown`.

use super::Builder;
use super::plan::*;
use crate::settings::{Source, Sourced};
use crate::time::Millis;

const CONTAINER: &str = "daprd";
const ENABLED: &str = "dapr.io/enabled";
const GRACEFUL: &str = "dapr.io/graceful-shutdown-seconds";
const NATIVE: &str = "dapr.io/enable-native-sidecar";
/// daprd's own default when the annotation is unset or -1.
const DEFAULT_GRACEFUL: Millis = Millis::secs(5);

/// Resolves Dapr for the pod being built.
pub fn resolve(b: &mut Builder) {
    let graceful = graceful_shutdown(b);
    if let Some((list, index)) = b.find(CONTAINER) {
        b.make_sidecar(list, index, SidecarKind::Daprd, true);
        apply_shutdown(b.get_mut(list, index), graceful);
        b.meshes.push(MeshDecision {
            mesh: "dapr",
            injection: Injection::InManifest,
            mode: if b.get(list, index).native_sidecar {
                "native"
            } else {
                "classic"
            }
            .into(),
            reasons: vec![format!("`{CONTAINER}` is in the manifest")],
        });
        return;
    }
    let Some((value, trigger)) = b.workload.pod_annotation(ENABLED) else {
        return;
    };
    if value != "true" {
        return;
    }
    // Native mode exists on Dapr's main branch only; honour an explicit opt-in.
    let native = b
        .workload
        .pod_annotation(NATIVE)
        .is_some_and(|(v, _)| v == "true");
    let list = if native {
        ContainerList::Init
    } else {
        ContainerList::Regular
    };
    let role = Role::Sidecar(Sidecar {
        kind: SidecarKind::Daprd,
        carries_traffic: true,
    });
    let mut daprd = PlannedContainer::injected(CONTAINER, list, "Dapr", trigger.clone(), role);
    daprd.native_sidecar = native && b.settings.kubernetes.value.runs_native_sidecars();
    daprd.restart_always = native;
    daprd.startup = b.scenario.proxy_startup.value;
    apply_shutdown(&mut daprd, graceful);
    if native {
        b.init.push(daprd);
    } else {
        b.regular.push(daprd);
    }
    b.meshes.push(MeshDecision {
        mesh: "dapr",
        injection: Injection::WillInject { trigger },
        mode: if native { "native" } else { "classic" }.into(),
        reasons: vec![format!("pod annotation `{ENABLED}: \"true\"`")],
    });
}

fn graceful_shutdown(b: &mut Builder) -> Sourced<Millis> {
    match b.workload.pod_annotation(GRACEFUL) {
        Some((value, path)) => match value.trim().parse::<i64>() {
            Ok(seconds) if seconds >= 0 => {
                Sourced::new(Millis::secs(seconds), Source::Manifest(path))
            }
            Ok(-1) => Sourced::default_value(DEFAULT_GRACEFUL),
            _ => {
                b.problems.push(ConfigProblem {
                    path,
                    message: format!("`{GRACEFUL}: {value}` is not a whole number of seconds"),
                    kind: ConfigProblemKind::Invalid,
                    fix: None,
                });
                Sourced::default_value(DEFAULT_GRACEFUL)
            }
        },
        None => Sourced::default_value(DEFAULT_GRACEFUL),
    }
}

fn apply_shutdown(daprd: &mut PlannedContainer, graceful: Sourced<Millis>) {
    daprd.exit = ExitPolicy::After(graceful);
    daprd.traffic = Some(TrafficCuts {
        inbound_refused: Cut::Signal,
        inbound_drained: Cut::Signal,
        outbound_refused: Cut::Exit,
    });
}
