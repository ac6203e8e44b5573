//! What each mesh resolver decided about its proxy for this pod, as facts: whether the
//! proxy is in the pod, how it runs, and what the decision rests on (the labels,
//! annotations, settings and releases it read). `report` words them for `explain`, so a
//! sentence about a mesh is written in one place and the facts stay comparable.

use super::Mesh;
use crate::load::JsonPath;
use crate::settings::{IstioVersion, KubeVersion, KumaVersion, LinkerdVersion, Source};

/// A decision about one mesh for this pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MeshDecision {
    /// The mesh decided about.
    pub mesh: Mesh,
    /// Whether its proxy is in the pod.
    pub injection: Injection,
    /// How its proxy runs.
    pub mode: ProxyMode,
    /// What the decision rests on, in the order `explain` gives them: what asks for the
    /// proxy first, then what shapes it.
    pub reasons: Vec<DecisionReason>,
}

/// How a mesh's proxy runs in the pod.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProxyMode {
    /// There is no proxy: the mesh does not inject this pod.
    None,
    /// No sidecar: Istio's ztunnel carries the pod's traffic (ambient mode).
    Ambient,
    /// A regular container, started with the app.
    Classic,
    /// A regular container whose postStart hook holds the app until it is ready.
    Held {
        /// The injector puts it before the app containers, so that its hook holds them.
        first: bool,
        /// The hook's waiting command (`pilot-agent wait`).
        command: &'static str,
    },
    /// A native sidecar.
    Native,
    /// An init container with `restartPolicy: Always` on a Kubernetes version that does
    /// not run native sidecars.
    NativeUnsupported,
}

impl ProxyMode {
    /// `classic` or `native`, as the mode of a sidecar placed as `native` says.
    pub fn of(native: bool) -> ProxyMode {
        if native {
            ProxyMode::Native
        } else {
            ProxyMode::Classic
        }
    }
}

/// Whether a mesh's proxy is in the pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Injection {
    /// The proxy is already in the manifest (it was injected before).
    InManifest,
    /// The injector will add it; `trigger` asks for it.
    WillInject {
        /// The label, annotation or pod metadata that asks for it.
        trigger: JsonPath,
    },
    /// Not injected.
    NotInjected {
        /// What keeps the injector from adding it.
        cause: NotInjectedCause,
        /// The pod is enrolled in ambient mode instead: ztunnel carries its traffic.
        ambient: Option<Enrollment>,
    },
}

/// What keeps a mesh's injector from adding its proxy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotInjectedCause {
    /// Nothing on the pod or its namespace asks for a proxy.
    NotAsked,
    /// `hostNetwork: true`: the injector never adds a proxy to such a pod.
    HostNetwork,
    /// The namespace is one the injector never touches (`kube-system`).
    IgnoredNamespace {
        /// The namespace.
        namespace: String,
    },
    /// The namespace's label turns injection off.
    NamespaceOptOut {
        /// The label's key (`istio-injection`).
        key: &'static str,
        /// Its value.
        value: String,
    },
    /// The API server does not call the injector's webhook for this pod.
    WebhookNotCalled,
    /// The pod's own setting keeps the proxy out.
    PodOptOut {
        /// The label or annotation's key.
        key: &'static str,
        /// Its value.
        value: String,
    },
    /// The pod matches the injector's `neverInjectSelector`.
    NeverInjectSelector,
    /// The injection policy is disabled and nothing asks explicitly.
    PolicyDisabled,
}

/// A pod's enrolment in a mesh's sidecar-less mode (Istio's ambient mode), by a label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Enrollment {
    /// Whose label enrols the pod.
    pub by: LabelOwner,
    /// The label's key (`istio.io/dataplane-mode`).
    pub key: &'static str,
    /// Its value (`ambient`).
    pub value: &'static str,
}

/// The object a label that decides is on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LabelOwner {
    /// The pod.
    Pod,
    /// The pod's namespace, by name when the pod has one.
    Namespace(Option<String>),
}

/// A pod label or annotation as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodMetadata {
    /// A label or an annotation.
    pub kind: MetadataKind,
    /// Its key.
    pub key: &'static str,
    /// Its value.
    pub value: String,
}

/// Where in the pod's metadata a setting is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetadataKind {
    /// `metadata.labels`.
    Label,
    /// `metadata.annotations`.
    Annotation,
}

/// One fact a mesh decision rests on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecisionReason {
    /// The proxy's container is in the manifest.
    InManifest {
        /// The container's name.
        container: String,
    },
    /// A label or annotation of the pod asks for the proxy.
    PodOptIn(PodMetadata),
    /// A pod label names the control-plane revision that injects it (`istio.io/rev`).
    RevisionLabel(PodMetadata),
    /// A partial proxy container in the manifest asks for custom injection.
    CustomTemplate {
        /// The container's name.
        container: &'static str,
        /// Its image, which marks it as a template (`auto`).
        image: &'static str,
    },
    /// The namespace asks for the proxy.
    NamespaceOptIn {
        /// The namespace, when the pod names one.
        namespace: Option<String>,
        /// The label or annotation that asks.
        key: &'static str,
        /// Its value.
        value: String,
    },
    /// The control-plane revision whose injector adds the proxy.
    Revision {
        /// The revision's name.
        name: String,
    },
    /// The pod is enrolled in ambient mode, but a pod with a sidecar is left to it.
    SidecarOverridesAmbient(Enrollment),
    /// Where the namespace's labels were read.
    NamespaceLabelsFrom(Source),
    /// Why the proxy is, or is not, a native sidecar.
    Native(NativeReason),
    /// A setting asks for the app to be held until the proxy is ready.
    Hold {
        /// The setting (`holdApplicationUntilProxyStarts`).
        setting: &'static str,
        /// Where it is set.
        source: Source,
    },
}

/// What decides whether an injected proxy is a native sidecar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NativeReason {
    /// A native-sidecar annotation of the pod (or, where the injector copies it, of its
    /// namespace).
    Annotation {
        /// Its key.
        key: &'static str,
        /// Its value.
        value: String,
        /// Where it is.
        source: Source,
    },
    /// The control plane's own setting (`ENABLE_NATIVE_SIDECARS`, Helm
    /// `proxy.nativeSidecar`), on or off.
    Setting {
        /// The setting's name.
        name: &'static str,
        /// Whether it asks for native sidecars.
        native: bool,
        /// Where it is set.
        source: Source,
    },
    /// The setting says `auto`, which this release does not know: classic sidecars.
    AutoUnknown {
        /// The setting's name.
        name: &'static str,
        /// Where it is set.
        source: Source,
        /// The release, which reads the setting as a boolean.
        release: IstioVersion,
        /// The first release that reads `auto`.
        since: IstioVersion,
    },
    /// `auto`: native where the nodes run at least `native_from`.
    Auto {
        /// The setting's name.
        name: &'static str,
        /// Where `auto` comes from.
        from: AutoFrom,
        /// The first Kubernetes version it makes native sidecars on.
        native_from: KubeVersion,
        /// The oldest kubelet of the nodes (the Kubernetes version simulated, unless
        /// the nodes' own is known).
        kubernetes: KubeVersion,
    },
    /// What this release injects when nothing asks otherwise.
    ReleaseDefault {
        /// The release.
        release: Release,
        /// Whether it injects native sidecars.
        native: bool,
        /// Where the release was given.
        source: Source,
    },
    /// The release is unknown: it is read as a release before `before`, the first
    /// whose injector makes native sidecars by default, so a classic proxy.
    UnknownRelease {
        /// The first release that injects native sidecars by default.
        before: Release,
    },
}

/// Where a setting's `auto` comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AutoFrom {
    /// Set so here.
    Setting(Source),
    /// The default of this release, given there.
    ReleaseDefault(IstioVersion, Source),
}

/// A mesh release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    /// An Istio release.
    Istio(IstioVersion),
    /// A Linkerd release.
    Linkerd(LinkerdVersion),
    /// A Kuma release.
    Kuma(KumaVersion),
}

impl Release {
    /// The product, as reports name it.
    pub fn product(self) -> &'static str {
        match self {
            Release::Istio(_) => "Istio",
            Release::Linkerd(_) => "Linkerd",
            Release::Kuma(_) => "Kuma",
        }
    }
}

impl std::fmt::Display for Release {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Release::Istio(version) => version.fmt(f),
            Release::Linkerd(version) => version.fmt(f),
            Release::Kuma(version) => version.fmt(f),
        }
    }
}
