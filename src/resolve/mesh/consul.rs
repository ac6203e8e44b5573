//! Consul's `consul-dataplane` sidecar (docs/lifecycle.md §5).
//!
//! `consul.hashicorp.com/connect-inject: "true"` adds the dataplane to the containers,
//! or as a native sidecar with `enable-consul-dataplane-as-sidecar`. With the proxy
//! lifecycle on (the default) it drains inbound listeners on SIGTERM, keeps outbound
//! working, and quits Envoy after the shutdown grace period (30 s unless set).

use super::Mesh;
use crate::resolve::Builder;
use crate::resolve::plan::*;
use crate::resolve::problems::*;
use crate::settings::{Source, Sourced};
use crate::time::Millis;

/// Names the dataplane container has had (consul-k8s 1.x, and the Envoy sidecar before).
const CONTAINERS: [&str; 2] = ["consul-dataplane", "envoy-sidecar"];
const INJECT: &str = "consul.hashicorp.com/connect-inject";
const NATIVE: &str = "consul.hashicorp.com/enable-consul-dataplane-as-sidecar";
const LIFECYCLE: &str = "consul.hashicorp.com/enable-sidecar-proxy-lifecycle";
const GRACE: &str = "consul.hashicorp.com/sidecar-proxy-lifecycle-shutdown-grace-period-seconds";
const DEFAULT_GRACE: Millis = Millis::secs(30);

/// Resolves Consul for the pod being built.
pub fn resolve(b: &mut Builder) {
    let grace = shutdown_grace(b);
    if let Some((list, index)) = CONTAINERS.iter().find_map(|name| b.find(name)) {
        b.make_sidecar(list, index, SidecarKind::ConsulDataplane, true);
        apply_shutdown(b.get_mut(list, index), grace);
        b.meshes.push(MeshDecision {
            mesh: Mesh::Consul,
            injection: Injection::InManifest,
            mode: if b.get(list, index).is_native_sidecar() {
                "native"
            } else {
                "classic"
            }
            .into(),
            reasons: vec!["the Consul dataplane is in the manifest".into()],
        });
        return;
    }
    let Some((value, trigger)) = b.workload.pod_annotation(INJECT) else {
        return;
    };
    if value != "true" {
        return;
    }
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
        kind: SidecarKind::ConsulDataplane,
        carries_traffic: true,
    });
    let mut dataplane =
        PlannedContainer::injected(CONTAINERS[0], list, "Consul", trigger.clone(), role);
    dataplane.placement = Placement::new(
        list,
        native,
        b.settings.kubernetes.value.runs_native_sidecars(),
    );
    dataplane.startup = b.scenario.proxy_startup.value;
    if native {
        // The injected startup probe: delay 1 s, period 1 s, 10 tries.
        dataplane.startup_probe = Some(ProbeTiming {
            initial_delay: Millis::secs(1),
            period: Millis::secs(1),
            failure_threshold: 10,
        });
    }
    apply_shutdown(&mut dataplane, grace);
    if native {
        b.init.push(dataplane);
    } else {
        b.regular.push(dataplane);
    }
    b.meshes.push(MeshDecision {
        mesh: Mesh::Consul,
        injection: Injection::WillInject { trigger },
        mode: if native { "native" } else { "classic" }.into(),
        reasons: vec![format!("pod annotation `{INJECT}: \"true\"`")],
    });
}

fn shutdown_grace(b: &mut Builder) -> Sourced<Millis> {
    if b.workload
        .pod_annotation(LIFECYCLE)
        .is_some_and(|(v, _)| v == "false")
    {
        // Without the lifecycle the dataplane exits on SIGTERM.
        return Sourced::default_value(Millis::ZERO);
    }
    match b.workload.pod_annotation(GRACE) {
        Some((value, path)) => match value.trim().parse::<i64>() {
            Ok(seconds) if seconds >= 0 => {
                Sourced::new(Millis::secs(seconds), Source::Manifest(path))
            }
            _ => {
                b.problem(
                    path,
                    Fault::Unreadable(Unreadable::Value {
                        setting: GRACE.to_owned(),
                        value: value.to_owned(),
                        expected: Expected::WholeSeconds { fallback: None },
                    }),
                );
                Sourced::default_value(DEFAULT_GRACE)
            }
        },
        None => Sourced::default_value(DEFAULT_GRACE),
    }
}

fn apply_shutdown(dataplane: &mut PlannedContainer, grace: Sourced<Millis>) {
    dataplane.exit = ExitPolicy::After(grace);
    dataplane.traffic = Some(TrafficCuts {
        inbound_refused: Cut::Exit,
        inbound_drained: Cut::Signal,
        outbound_refused: Cut::Exit,
    });
}
