//! The meshes: one module per mesh holds what that mesh does — how it is detected in a
//! manifest, what its injector adds, how its proxy shuts down — and the changes to its
//! own settings that fix a hazard ([`Remedies`]). What leaves these modules is the
//! mesh-neutral [`PodPlan`](super::PodPlan); rules ask the sidecar for its remedies
//! instead of knowing any mesh, so one mesh's advice never reaches another's pod.

pub mod cloud_sql;
pub mod consul;
pub mod dapr;
mod injected;
pub mod istio;
pub mod kuma;
pub mod linkerd;

use std::fmt;

use serde::Serialize;

/// A service mesh whose injector and proxy the resolver models.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mesh {
    /// Istio (`istio-proxy`: pilot-agent and Envoy).
    Istio,
    /// Linkerd (`linkerd-proxy`).
    Linkerd,
    /// Consul (`consul-dataplane`).
    Consul,
    /// Kuma and Kong Mesh (`kuma-sidecar`).
    Kuma,
    /// Dapr (`daprd`).
    Dapr,
}

impl Mesh {
    /// The lower-case name used in machine output (`istio`).
    pub fn id(self) -> &'static str {
        match self {
            Mesh::Istio => "istio",
            Mesh::Linkerd => "linkerd",
            Mesh::Consul => "consul",
            Mesh::Kuma => "kuma",
            Mesh::Dapr => "dapr",
        }
    }

    /// The name as its project writes it (`Istio`), for messages.
    pub fn title(self) -> &'static str {
        match self {
            Mesh::Istio => "Istio",
            Mesh::Linkerd => "Linkerd",
            Mesh::Consul => "Consul",
            Mesh::Kuma => "Kuma",
            Mesh::Dapr => "Dapr",
        }
    }

    /// What the project calls its injector webhook (`sidecar injector`), for naming it
    /// when it denies a pod.
    pub fn injector(self) -> &'static str {
        match self {
            Mesh::Istio | Mesh::Kuma | Mesh::Dapr => "sidecar injector",
            Mesh::Linkerd => "proxy injector",
            Mesh::Consul => "connect injector",
        }
    }

    /// Whether its sidecar captures the pod's traffic. Dapr's is an API the app calls,
    /// so it runs beside any mesh.
    pub fn captures_traffic(self) -> bool {
        self != Mesh::Dapr
    }
}

impl fmt::Display for Mesh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.title())
    }
}

/// The pod annotation that makes a mesh's injector add its proxy as a native sidecar,
/// found by the mesh's own version gates (`istio::native_switch`,
/// `linkerd::native_switch`), so rules never hold a mesh's release numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeSwitch {
    /// The annotation's key (`sidecar.istio.io/nativeSidecar`).
    pub annotation: &'static str,
    /// The value that turns native mode on, as the injector compares it (`"true"`).
    pub value: &'static str,
    /// The pod's own setting that native mode leaves without effect (Istio's
    /// `holdApplicationUntilProxyStarts: true`, ignored once the startup probe holds the
    /// app), to remove with the switch.
    pub moots: Option<crate::load::JsonPath>,
}

impl NativeSwitch {
    /// The switch `annotation: value`, which makes no setting of the pod moot.
    pub const fn new(annotation: &'static str, value: &'static str) -> NativeSwitch {
        NativeSwitch {
            annotation,
            value,
            moots: None,
        }
    }
}

/// The changes a sidecar's own settings offer against each hazard, as help text. A
/// `None` means the sidecar has no setting of its own for it; the rule then gives the
/// generic Kubernetes fix.
#[derive(Debug, Default)]
pub struct Remedies {
    /// Holds the app until the proxy is ready (a YAML snippet for the pod template).
    pub hold_app: Option<&'static str>,
    /// The pod annotation that makes the injected proxy a native sidecar.
    pub native_opt_in: Option<&'static str>,
    /// Why a gate is asked for but the proxy has no postStart that waits.
    pub missing_gate_cause: Option<&'static str>,
    /// Puts the waiting postStart back when the gate is asked for but missing.
    pub restore_gate: Option<&'static str>,
    /// How a Job's work stops the sidecar when it is done, keeping its exit status;
    /// `native` is the native-sidecar alternative, when there is one, to weave in.
    pub stop_after_work: Option<fn(native: &str) -> String>,
    /// The stop call that works when the one written does not.
    pub working_stop_call: Option<&'static str>,
    /// The sidecar's own stop API, to use instead of a signal.
    pub stop_api: Option<&'static str>,
    /// Keeps the sidecar alive `seconds` longer after its stop signal.
    pub outlive_app: Option<fn(seconds: i64) -> String>,
    /// Keeps it serving until the endpoints no longer route to the pod.
    pub outlast_endpoints: Option<&'static str>,
    /// Lets an init container's call out of the pod bypass the proxy.
    pub bypass_for_init: Option<fn() -> String>,
    /// The sidecar's own setting for how long it drains after its stop signal
    /// (`terminationDrainDuration`), the one to change when the drain is at fault.
    pub drain_setting: Option<&'static str>,
    /// The pod annotation that turns the sidecar's stop endpoint on or off
    /// (`config.linkerd.io/proxy-admin-shutdown`), when one does.
    pub stop_endpoint_switch: Option<&'static str>,
}

impl Remedies {
    /// No remedies: a sidecar the resolver knows nothing specific about.
    pub const NONE: Remedies = Remedies {
        hold_app: None,
        native_opt_in: None,
        missing_gate_cause: None,
        restore_gate: None,
        stop_after_work: None,
        working_stop_call: None,
        stop_api: None,
        outlive_app: None,
        outlast_endpoints: None,
        bypass_for_init: None,
        drain_setting: None,
        stop_endpoint_switch: None,
    };
}
