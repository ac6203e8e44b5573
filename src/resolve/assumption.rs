//! The readings a plan rests on that the manifest does not state: what was assumed,
//! with the values it is about, and where the value came from. `explain` prints them
//! under the timeline, worded by `report`.

use super::Mesh;
use super::decision::Release;
use super::plan::Hook;
use crate::settings::{KubeVersion, Source};

/// A reading the result rests on that the manifest does not state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assumption {
    /// What is assumed.
    pub assumed: Assumed,
    /// Where the value assumed came from.
    pub source: Source,
}

/// What a plan assumes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Assumed {
    /// This Kubernetes version drops a `sleep` hook action (the gate is alpha and off):
    /// the container runs without the hook.
    SleepActionDropped {
        /// The container whose hook it is.
        container: String,
        /// The Kubernetes version.
        kubernetes: KubeVersion,
    },
    /// This Kubernetes version drops a regular container's own `restartPolicy` (the
    /// `ContainerRestartRules` gate is off): the pod is admitted, the container a plain
    /// one.
    ContainerRestartPolicyDropped {
        /// The container.
        container: String,
        /// The Kubernetes version.
        kubernetes: KubeVersion,
    },
    /// The `sleep` action is beta in this version and taken as enabled.
    SleepActionBeta {
        /// The container whose hook it is.
        container: String,
        /// The Kubernetes version.
        kubernetes: KubeVersion,
    },
    /// A deletion grace period of 0 is sent as 1 s, as `kubectl delete --grace-period=0`
    /// does without `--force`.
    DeletionGraceZero,
    /// An exec hook whose program the image most likely lacks fails at once.
    HookProgramMissing {
        /// The container whose hook it is.
        container: String,
        /// The hook.
        hook: Hook,
        /// The image.
        image: String,
        /// The program the image lacks.
        program: String,
    },
    /// A hook whose length could not be read is taken as instant.
    HookLengthUnknown {
        /// The container whose hook it is.
        container: String,
        /// The hook.
        hook: Hook,
    },
    /// A mesh setting this release does not read yet.
    SettingTooNew {
        /// The setting (`global.proxy.holdApplicationUntilProxyStarts`).
        setting: &'static str,
        /// The layer it is set in, when that matters (`ProxyConfig`).
        layer: Option<&'static str>,
        /// The first release that reads it (`Istio 1.8`).
        since: &'static str,
    },
    /// The namespace's labels are unknown: a pod that asks for injection gets it.
    NamespaceLabelsUnknown {
        /// The namespace, when the pod names one.
        namespace: Option<String>,
    },
    /// The namespace's annotations are unknown: the pod's own mesh settings are used.
    NamespaceAnnotationsUnknown {
        /// The mesh whose settings are read.
        mesh: Mesh,
        /// The namespace.
        namespace: String,
    },
    /// The mesh's release is unknown: it is read as a release before its
    /// native-sidecar default, so its injector adds a classic proxy (the reading that
    /// can lose traffic); the finding holds for those releases, or where the nodes
    /// (the API server, for Kuma) are older than `native_nodes`.
    MeshVersionUnknown {
        /// The mesh.
        mesh: Mesh,
        /// The first release that injects native sidecars by default (where the nodes
        /// run `native_nodes`).
        native_since: Release,
        /// The Kubernetes version from which that release's default is native, when
        /// the default depends on the nodes.
        native_nodes: Option<KubeVersion>,
        /// The mesh as `--mesh-version` names it (`kuma`).
        flag_name: &'static str,
        /// Whether `native_nodes` is the API server's version rather than the
        /// kubelets'.
        api_server: bool,
    },
}
