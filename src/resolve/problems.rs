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
        /// The setting.
        setting: &'static str,
        /// Its value.
        value: String,
    },
    /// An injection value the injector does not know, so it skips the pod.
    UnknownInjectValue {
        /// The mesh whose injector reads it.
        mesh: Mesh,
        /// The setting.
        setting: &'static str,
        /// Its value.
        value: String,
    },
    /// Istio's opt-in in a form the webhook is not called for: an annotation, or a
    /// label value other than exactly "true".
    NotCalledFor {
        /// The setting.
        setting: &'static str,
        /// Its value, when it is a label; `None` for an annotation.
        label_value: Option<String>,
        /// Whether the namespace is known not to inject (rather than unknown).
        namespace_known: bool,
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
    /// Istio's native-sidecar annotation before the release that reads it.
    NativeAnnotationTooNew {
        /// The annotation.
        setting: &'static str,
        /// The Istio release.
        release: String,
        /// Whether the proxy is native anyway.
        native_anyway: bool,
    },
    /// Istio's native-sidecar annotation with a value that does not mean what it looks
    /// like: 1.24–1.26 enable only for exactly "true", 1.27+ disable only for exactly
    /// "false".
    NativeValueMisread {
        /// The annotation.
        setting: &'static str,
        /// Its value.
        value: String,
        /// The Istio release, when it decides (1.24–1.26); `None` for 1.27 and later.
        release: Option<String>,
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
