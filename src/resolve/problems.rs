//! Settings that cannot be used as written: what resolve found, as facts. The rules
//! that judge them word them.

use super::Mesh;
use crate::load::JsonPath;
use crate::time::Millis;

/// A malformed, contradictory or unread mesh setting found while resolving.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigProblem {
    /// The setting at fault.
    pub path: JsonPath,
    /// What is wrong with it.
    pub fault: Fault,
}

/// What is wrong with a setting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Unparsable or wrongly typed: the reader falls back to its default.
    Unreadable(Unreadable),
    /// Injection settings that disagree.
    Conflict(Conflict),
    /// An opt-in the injector does not read as written.
    OptInIgnored(OptInIgnored),
}

/// A value its reader cannot use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unreadable {
    /// A value of the wrong form.
    Value {
        /// The annotation (`dapr.io/block-shutdown-duration`).
        setting: String,
        /// The value as written.
        value: String,
        /// What the reader accepts.
        expected: Expected,
    },
    /// Istio's `proxy.istio.io/config` annotation that does not decode.
    ProxyConfig {
        /// The annotation.
        setting: &'static str,
        /// The field at fault (`proxyMetadata.X`), empty when the whole text is.
        field: String,
        /// The decoder's error.
        error: String,
        /// Whether the sidecar injector denies the pod for it (before injection).
        denied: bool,
    },
    /// A negative `terminationGracePeriodSeconds`.
    NegativeGracePeriod {
        /// The value.
        seconds: i64,
    },
}

/// The form a setting's reader accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// A Go duration, such as `example`.
    Duration {
        /// A valid value to show.
        example: &'static str,
    },
    /// A whole number of seconds; the reader keeps `fallback` otherwise, when it says.
    WholeSeconds {
        /// The sidecar and the length it keeps instead (`daprd`, 5 s).
        fallback: Option<(&'static str, Millis)>,
    },
    /// `enabled` or `disabled`; the injector ignores anything else.
    Switch,
}

/// Injection settings that disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Conflict {
    /// The same setting as a label and as an annotation, with different values.
    LabelAndAnnotation {
        /// The setting (`sidecar.istio.io/inject`).
        setting: &'static str,
        /// The label's value, which wins.
        label: String,
        /// The annotation's value.
        annotation: String,
    },
    /// A proxy container in a pod that opts out of injection.
    ProxyInOptedOutPod {
        /// The proxy container's name.
        proxy: &'static str,
    },
    /// Two meshes that would both proxy the pod's traffic.
    TwoMeshes {
        /// The meshes, by id.
        meshes: Vec<&'static str>,
    },
}

/// An opt-in the injector does not read as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptInIgnored {
    /// An annotation-only setting written as a label (Linkerd's `linkerd.io/inject`).
    LabelNotRead {
        /// The mesh whose injector reads it.
        mesh: Mesh,
        /// The setting.
        setting: &'static str,
        /// Its value.
        value: String,
    },
    /// An injection value the injector does not know, so it skips the pod.
    UnknownInjectValue {
        /// The opt-in.
        opt_in: OptIn,
        /// Its value.
        value: String,
    },
    /// An opt-in in a form the webhook is not called for: an annotation, or a label
    /// value other than exactly the one its selector matches (Istio's
    /// `sidecar.istio.io/inject: "true"`).
    NotCalledFor {
        /// The opt-in.
        opt_in: OptIn,
        /// Its value, when it is a label; `None` for an annotation.
        label_value: Option<String>,
        /// Whether the namespace is known not to inject (rather than unknown).
        namespace_known: bool,
        /// The namespace label that has the webhook called for every pod
        /// (`istio-injection`, `enabled`).
        namespace_label: (&'static str, &'static str),
    },
    /// A native-sidecar key this release of the mesh does not read.
    KeyTooNew {
        /// The mesh.
        mesh: Mesh,
        /// Its release.
        release: String,
        /// The key.
        key: &'static str,
        /// The first release that reads it.
        since: String,
        /// The key this release reads instead, or the release native sidecars need.
        instead: KeyInstead,
    },
    /// A native-sidecar value that is not a boolean the injector reads.
    NotBoolean {
        /// The key.
        key: &'static str,
        /// Its value.
        value: String,
        /// Whether the default it keeps is a native sidecar.
        default_native: bool,
    },
    /// A native-sidecar annotation before the release that reads it, with the control
    /// plane's setting that makes native sidecars instead.
    NativeAnnotationTooNew {
        /// The mesh.
        mesh: Mesh,
        /// The annotation.
        setting: &'static str,
        /// The first release that reads it (`1.24`).
        since: String,
        /// The release.
        release: String,
        /// Whether the proxy is native anyway.
        native_anyway: bool,
        /// The control plane's setting to use instead (`ENABLE_NATIVE_SIDECARS on
        /// istiod`).
        instead: &'static str,
    },
    /// A native-sidecar annotation with a value that does not mean what it looks like.
    NativeValueMisread {
        /// The mesh.
        mesh: Mesh,
        /// The annotation.
        setting: &'static str,
        /// Its value.
        value: String,
        /// How the release compares it.
        reading: ExactValue,
    },
}

/// An injection opt-in and the values its injector reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptIn {
    /// The mesh whose injector reads it.
    pub mesh: Mesh,
    /// The label or annotation (`sidecar.istio.io/inject`).
    pub setting: &'static str,
    /// The values that the injector reads: those that inject, for a mesh that skips any
    /// other (Istio's `y`, `yes`, `true`, `on`); all of them for one that knows a few
    /// keywords (Linkerd's `enabled`, `ingress`, `disabled`).
    pub known: &'static [&'static str],
    /// The value that injects (`true`, `enabled`).
    pub on: &'static str,
    /// The value that keeps the pod out (`false`, `disabled`).
    pub off: &'static str,
    /// The form whose `on` value the webhook is called for, when it is a label:
    /// `lint --fix` may then write it.
    pub label_is_read: bool,
}

/// How a release compares a native-sidecar annotation's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExactValue {
    /// Only exactly `"true"` enables native sidecars in this release.
    OnlyTrueEnables {
        /// The release.
        release: String,
    },
    /// From `since`, only exactly `"false"` disables them.
    OnlyFalseDisables {
        /// The first release that reads it so (`1.27`).
        since: String,
    },
}

/// What to write instead of a key the release does not read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyInstead {
    /// The key this release reads.
    Key(&'static str),
    /// No key: native sidecars need this release or later.
    NeedsRelease(&'static str),
}
