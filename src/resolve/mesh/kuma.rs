//! Kuma and Kong Mesh's `kuma-sidecar` (docs/lifecycle.md §5).
//!
//! The label `kuma.io/sidecar-injection: enabled` adds the sidecar; with
//! `kuma.io/wait-for-dataplane-ready: "true"` it is placed first with a postStart that
//! waits for it (the same kubelet mechanism as Istio's hold). On SIGTERM it drains its
//! listeners and waits the whole drain time (`kuma.io/sidecar-drain-time`, 30 s) before
//! exiting.

use super::injected::{self, Hold, OptIn, SidecarMesh};
use crate::load::JsonPath;
use crate::resolve::decision::{DecisionReason, MetadataKind, PodMetadata, ProxyMode};
use crate::resolve::mesh::{Description, Mesh, MeshInfo, OptInWords, SidecarModel, Words};
use crate::resolve::plan::*;
use crate::resolve::reading::Reading;
use crate::resolve::vocabulary::Vocabulary;
use crate::resolve::{Builder, Remedies};
use crate::settings::Sourced;
use crate::time::Millis;

const CONTAINER: &str = "kuma-sidecar";
const INJECT: &str = "kuma.io/sidecar-injection";
const WAIT: &str = "kuma.io/wait-for-dataplane-ready";
const DRAIN: &str = "kuma.io/sidecar-drain-time";
const DEFAULT_DRAIN: Millis = Millis::secs(30);

/// The sidecar the injector adds; `kuma.io/wait-for-dataplane-ready: "true"` puts it
/// first with a postStart `kuma-dp wait`.
const SIDECAR: SidecarMesh = SidecarMesh {
    mesh: MESH,
    kind: KIND,
    containers: &[CONTAINER],
    native_probe: None,
    hold: Some(Hold {
        command: &["kuma-dp", "wait"],
        timeout: Millis::secs(180),
        poll: Millis::secs(1),
        mode: ProxyMode::Held {
            first: true,
            command: "kuma-dp wait",
        },
    }),
};

/// Kuma's (and Kong Mesh's) sidecar.
pub struct Kuma;

/// Its sidecar, as plans name it.
pub const KIND: SidecarKind = SidecarKind::Known(&Kuma);

/// Kuma and Kong Mesh.
pub const MESH: Mesh = Mesh::new(&MeshInfo {
    id: "kuma",
    title: "Kuma",
    injector: "sidecar injector",
    captures_traffic: true,
    words: Words {
        quoted_values: false,
        pod_opt_in: OptInWords::KeyValueOnPod,
        held_waits_for: Some("the dataplane"),
        ..Words::PLAIN
    },
});

impl SidecarModel for Kuma {
    fn description(&self) -> &Description {
        static KUMA_SIDECAR: Description = Description {
            id: "kuma-sidecar",
            label: "Kuma sidecar",
            mesh: Some(MESH),
            vocabulary: &Vocabulary::NONE,
            remedies: &Remedies::NONE,
        };
        &KUMA_SIDECAR
    }

    fn resolve(&self, b: &mut Builder) {
        let drain = drain_time(b);
        injected::resolve(b, &SIDECAR, opt_in, |sidecar| {
            injected::drain_then_exit(sidecar, drain);
        });
    }
}

fn opt_in(b: &Builder) -> Option<OptIn> {
    let (trigger, reason) = injection(b)?;
    let hold = b
        .workload
        .pod_annotation(WAIT)
        .filter(|(v, _)| *v == "true")
        .map(|(_, path)| {
            let value = Some("\"true\"");
            (path, GateSetting::Setting { name: WAIT, value })
        });
    Some(OptIn {
        trigger,
        reason,
        native: false,
        hold,
    })
}

/// Whether the injector adds the sidecar, what asks for it and why: the pod's label
/// decides when it has one, else its namespace's (`KumaInjector.needToInject`,
/// `pkg/plugins/runtime/k8s/webhooks/injector/precheck.go`, kumahq/kuma v2.14.3), each
/// read as `true`/`yes`/`enabled` or `false`/`no`/`disabled` (`GetEnabled`,
/// `pkg/plugins/runtime/k8s/metadata/annotations.go`).
fn injection(b: &Builder) -> Option<(JsonPath, DecisionReason)> {
    let enabled = |value: &str| match value {
        "true" | "yes" | "enabled" => Some(true),
        "false" | "no" | "disabled" => Some(false),
        _ => None,
    };
    // The label is the documented form; the annotation form is deprecated but honoured.
    if let Some((kind, (value, trigger))) = b
        .workload
        .pod_label(INJECT)
        .map(|found| (MetadataKind::Label, found))
        .or_else(|| {
            let found = b.workload.pod_annotation(INJECT)?;
            Some((MetadataKind::Annotation, found))
        })
    {
        return (enabled(value) == Some(true)).then(|| {
            let opt_in = PodMetadata {
                kind,
                key: INJECT,
                value: value.to_owned(),
            };
            (trigger, DecisionReason::PodOptIn(opt_in))
        });
    }
    let namespace = b.workload.namespace.as_deref()?;
    let value = b.settings.namespaces.get(namespace)?.labels.get(INJECT)?;
    (enabled(value) == Some(true)).then(|| {
        (
            b.workload.paths.pod_metadata.clone(),
            DecisionReason::NamespaceOptIn {
                namespace: Some(namespace.to_owned()),
                key: INJECT,
                value: value.clone(),
            },
        )
    })
}

fn drain_time(b: &mut Builder) -> Sourced<Millis> {
    b.read_annotation(DRAIN, &Reading::duration("30s"))
        .unwrap_or_else(|| Sourced::default_value(DEFAULT_DRAIN))
}
