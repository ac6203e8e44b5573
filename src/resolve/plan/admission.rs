//! Why a pod would not be admitted, and what admission removes from it: facts the
//! admission rules judge.

use crate::load::JsonPath;
use crate::resolve::Mesh;
use crate::settings::KubeVersion;

/// A reason the pod would not be admitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    /// The field that causes it.
    pub path: JsonPath,
    /// Who rejects it.
    pub by: Rejector,
    /// What in the pod causes it.
    pub cause: RejectionCause,
}

/// Who refuses to admit a pod.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rejector {
    /// The API server's validation.
    ApiServer,
    /// A mesh's injector webhook, which denies the admission request.
    Injector(crate::resolve::Mesh),
    /// The validating webhook of the controller that runs the workload (`Knative
    /// Serving`), which denies the object.
    Controller(&'static str),
}

/// What makes a pod inadmissible.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RejectionCause {
    /// A `sleep` hook action this Kubernetes version does not accept.
    SleepAction(SleepActionProblem),
    /// An init container whose `restartPolicy: Always` this version drops, left with
    /// the probes or hooks only sidecars may have.
    DroppedSidecarPolicy {
        /// The init container.
        container: String,
        /// The first field only sidecars may have (`startupProbe`).
        field: &'static str,
        /// The Kubernetes version that drops the policy.
        version: KubeVersion,
    },
    /// A mesh setting the injector cannot read, so it denies the pod.
    UnreadableSetting(crate::resolve::problems::Unreadable),
    /// The injector cannot render a native sidecar proxy with a setting of the pod
    /// (Linkerd 2.15 to 2.19 with `proxy-wait-before-exit-seconds`).
    NativeWith {
        /// The mesh whose injector refuses.
        mesh: Mesh,
        /// What makes the proxy native: the annotation's key, or the install's setting
        /// (`proxy.nativeSidecar`).
        native: &'static str,
        /// The setting (`config.alpha.linkerd.io/proxy-wait-before-exit-seconds`).
        setting: &'static str,
        /// The first release that renders the two together.
        until: &'static str,
        /// The injector's error, as it words it.
        error: &'static str,
    },
    /// The workload's API version is no longer served by this Kubernetes version.
    RemovedApiVersion {
        /// Which API version of which kind, since when, and what replaces it.
        removal: crate::resolve::api_removals::Removal,
        /// The Kubernetes version in force.
        version: KubeVersion,
    },
    /// A container field that the workload's controller does not allow (Knative
    /// Serving's `lifecycle`): the controller sets it itself.
    FieldNotAllowed {
        /// The container.
        container: String,
        /// The field (`lifecycle`).
        field: &'static str,
    },
    /// A regular container's own `restartPolicy`, which validation forbids until
    /// `ContainerRestartRules` is on (1.28 to 1.34). docs/lifecycle.md §2.9.
    ContainerRestartPolicy {
        /// The container.
        container: String,
        /// The policy as written (`Always`).
        value: String,
        /// The Kubernetes version that refuses it.
        version: KubeVersion,
    },
}

/// Why the API server rejects a `sleep` hook action (docs/lifecycle.md §2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SleepActionProblem {
    /// The version has no sleep action: the handler is left empty.
    Unknown {
        /// The Kubernetes version.
        version: KubeVersion,
    },
    /// Negative seconds.
    Negative {
        /// The seconds.
        seconds: i64,
    },
    /// Zero seconds, accepted only from 1.33.
    Zero {
        /// The Kubernetes version.
        version: KubeVersion,
    },
    /// Longer than the grace period.
    ExceedsGrace {
        /// The seconds.
        seconds: i64,
        /// The grace period, in seconds.
        grace: i64,
    },
}

/// A lifecycle hook the API server removes at admission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DroppedHook {
    /// The container whose hook it was.
    pub container: String,
    /// The hook in the manifest (`...lifecycle.preStop`).
    pub path: JsonPath,
    /// `sleep.seconds` as written.
    pub seconds: i64,
}
