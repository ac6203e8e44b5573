//! Consul's `consul-dataplane` sidecar (docs/lifecycle.md §5.2).
//!
//! `consul.hashicorp.com/connect-inject: "true"` adds the dataplane: first among the
//! containers with the proxy lifecycle on (the default), last with it off, or after the
//! pod's own init containers as a native sidecar with
//! `enable-consul-dataplane-as-sidecar`. No hooks either way. With the lifecycle on it
//! drains inbound listeners on SIGTERM, keeps outbound working, and quits Envoy after
//! the whole shutdown grace period (30 s unless set), native or not: a native
//! dataplane, signalled after the apps, can outlive the pod's grace period.

use serde_json::Value as Json;

use super::injected::{self, OptIn, PodSwitch, SidecarMesh};
use crate::fix::{Applicability, Change, Remedy};
use crate::resolve::assumption::Assumed;
use crate::resolve::decision::{DecisionReason, MetadataKind, PodMetadata};
use crate::resolve::mesh::{
    Description, InManifestWords, Measure, Mesh, MeshInfo, SidecarModel, Stay, Suggestion, Words,
};
use crate::resolve::plan::*;
use crate::resolve::reading::{Reading, parse_go_bool};
use crate::resolve::vocabulary::Vocabulary;
use crate::resolve::{Builder, Remedies};
use crate::settings::Sourced;
use crate::time::Millis;

/// Names the dataplane container has had (consul-k8s 1.x, and the Envoy sidecar before).
const CONTAINERS: [&str; 2] = ["consul-dataplane", "envoy-sidecar"];
const INJECT: &str = "consul.hashicorp.com/connect-inject";
const NATIVE: &str = "consul.hashicorp.com/enable-consul-dataplane-as-sidecar";
const LIFECYCLE: &str = "consul.hashicorp.com/enable-sidecar-proxy-lifecycle";
const GRACE: &str = "consul.hashicorp.com/sidecar-proxy-lifecycle-shutdown-grace-period-seconds";
const DEFAULT_GRACE: Millis = Millis::secs(30);

/// The dataplane the injector adds.
const DATAPLANE: SidecarMesh = SidecarMesh {
    mesh: MESH,
    kind: KIND,
    containers: &CONTAINERS,
    // The injected startup probe: delay 1 s, period 1 s, 10 tries.
    native_probe: Some(ProbeTiming {
        initial_delay: Millis::secs(1),
        period: Millis::secs(1),
        failure_threshold: 10,
    }),
    hold: None,
    // Read from consul-k8s v1.9.0, v1.8.2, v1.7.5 and v1.6.9; an unknown release is
    // taken to read it.
    native_switch: Some(PodSwitch {
        annotation: NATIVE,
        wait_after_signal: Some(GRACE),
        needs: None,
        // Appended to the init containers, after the pod's own.
        leads_inits: false,
        read: reads_native,
    }),
};

/// The releases of each line that first read [`NATIVE`].
const NATIVE_SINCE: &str = "consul-k8s 1.6.9, 1.7.5, 1.8.2 or 1.9.0";

/// Whether the release in force reads [`NATIVE`] (an unknown one is taken to, so the
/// annotation is read as written).
fn reads_native(b: &Builder) -> bool {
    b.settings
        .versions
        .consul
        .as_ref()
        .is_none_or(|v| v.value.reads_dataplane_as_sidecar())
}

/// [`NATIVE`] as the pod sets it, read with `strconv.ParseBool`.
fn native_asked(b: &Builder) -> bool {
    b.workload
        .pod_annotation(NATIVE)
        .and_then(|(v, _)| parse_go_bool(v))
        .unwrap_or(false)
}

/// Consul's dataplane.
pub struct Consul;

/// Its sidecar, as plans name it.
pub const KIND: SidecarKind = SidecarKind::Known(&Consul);

/// Consul.
pub const MESH: Mesh = Mesh::new(&MeshInfo {
    id: "consul",
    title: "Consul",
    injector: "connect injector",
    captures_traffic: true,
    words: Words {
        in_manifest: InManifestWords::Named("the Consul dataplane"),
        ..Words::PLAIN
    },
});

/// What the dataplane's own settings offer: the shutdown grace period is its drain,
/// and what keeps it serving.
static REMEDIES: Remedies = Remedies {
    drain_setting: Some(GRACE),
    stay: Some(STAY),
    ..Remedies::NONE
};

/// `sidecar-proxy-lifecycle-shutdown-grace-period-seconds`, with the proxy lifecycle on:
/// the dataplane keeps Envoy serving that long after its SIGTERM, outbound calls and
/// inbound connections alike, and then quits (docs/lifecycle.md §5.2). Without the
/// lifecycle it quits at once, so the lifecycle is turned on with it. Only the injector
/// reads the annotations: for a dataplane written in the manifest the help says to
/// inject it again, and `lint --fix` leaves it alone. Not for a native dataplane, which
/// is signalled after the apps and whose wait only runs past the pod's grace period.
pub const STAY: Stay = Stay {
    measures: Measure::AfterSignal,
    inbound: true,
    when_injected_native: false,
    at: |at| match at.written {
        None => Suggestion {
            help: format!(
                "keep the dataplane serving after its SIGTERM; on the pod template:\n  metadata:\n    annotations:\n      {LIFECYCLE}: \"true\"\n      {GRACE}: \"{}\"\n",
                at.seconds
            ),
            fix: Some(Remedy::new(
                Applicability::Unsafe,
                format!(
                    "keep the dataplane serving {} s after its SIGTERM (`{GRACE}: \"{}\"`, with the proxy lifecycle on); where the lifecycle was off, it also starts the dataplane before the app",
                    at.seconds, at.seconds
                ),
                vec![
                    Change::Set(at.annotations.key(LIFECYCLE), Json::String("true".into())),
                    Change::Set(
                        at.annotations.key(GRACE),
                        Json::String(at.seconds.to_string()),
                    ),
                ],
            )),
        },
        Some(_) => Suggestion {
            help: format!(
                "keep the dataplane serving after its SIGTERM: inject the pod again with `{LIFECYCLE}: \"true\"` and `{GRACE}: \"{}\"` (the injector reads them only when it adds the dataplane)",
                at.seconds
            ),
            fix: None,
        },
    },
};

/// The Consul agent's quit endpoint reads as a stop call (one to another port than the
/// dataplane's is not judged).
static VOCABULARY: Vocabulary = Vocabulary {
    stop_paths: &["/agent/v1/quit"],
    ..Vocabulary::NONE
};

impl SidecarModel for Consul {
    fn description(&self) -> &Description {
        static CONSUL_DATAPLANE: Description = Description {
            id: "consul-dataplane",
            label: "Consul dataplane",
            mesh: Some(MESH),
            vocabulary: &VOCABULARY,
            remedies: &REMEDIES,
        };
        &CONSUL_DATAPLANE
    }

    fn resolve(&self, b: &mut Builder) {
        if native_asked(b)
            && !reads_native(b)
            && let Some(version) = b.settings.versions.consul.clone()
        {
            let setting = NATIVE;
            let since = NATIVE_SINCE;
            let too_new = Assumed::SettingTooNew {
                setting,
                layer: None,
                since,
            };
            b.assume(too_new, version.source);
        }
        let grace = shutdown_grace(b);
        injected::resolve(b, &DATAPLANE, opt_in, |dataplane| {
            injected::drain_then_exit(dataplane, grace);
        });
    }
}

fn opt_in(b: &Builder) -> Option<OptIn> {
    let (value, trigger) = b.workload.pod_annotation(INJECT)?;
    if value != "true" {
        return None;
    }
    // `enable-consul-dataplane-as-sidecar`, read with `strconv.ParseBool` where the
    // release reads it (Helm `dataplaneAsSidecarInitContainer.defaultEnabled: false`).
    let native = native_asked(b) && reads_native(b);
    Some(OptIn {
        trigger,
        reason: DecisionReason::PodOptIn(PodMetadata {
            kind: MetadataKind::Annotation,
            key: INJECT,
            value: value.to_owned(),
        }),
        native,
        // With the proxy lifecycle on, a classic dataplane goes first (`lifecycleEnabled
        // && !consulDataplaneSidecarEnabled`); a native one is appended to the init
        // containers, after the pod's own.
        first: !native && lifecycle_enabled(b),
        hold: None,
    })
}

/// Whether the proxy lifecycle is on: the annotation read with `strconv.ParseBool`,
/// else the Helm default `connectInject.sidecarProxy.lifecycle.defaultEnabled: true`.
fn lifecycle_enabled(b: &Builder) -> bool {
    b.workload
        .pod_annotation(LIFECYCLE)
        .and_then(|(v, _)| parse_go_bool(v))
        .unwrap_or(true)
}

fn shutdown_grace(b: &mut Builder) -> Sourced<Millis> {
    if !lifecycle_enabled(b) {
        // Without the lifecycle the dataplane exits on SIGTERM.
        return Sourced::default_value(Millis::ZERO);
    }
    b.read_annotation(GRACE, &Reading::whole_seconds())
        .unwrap_or_else(|| Sourced::default_value(DEFAULT_GRACE))
}
