//! Where a value in force came from: the default, a file, a flag, the manifest, the
//! cluster; every setting carries it (`Sourced`) for messages and for pointing at it.

use std::fmt;
use std::sync::Arc;

use crate::load::JsonPath;
use crate::load::path::Segment;

/// Where a value in force came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The built-in default (upstream's, or the conservative reading).
    Default,
    /// A command-line flag, by name.
    Flag(&'static str),
    /// The configuration file at this path.
    ConfigFile(Arc<str>),
    /// A mesh configuration file given with `--mesh-config`.
    MeshConfig(Arc<str>),
    /// A `Namespace` object or mesh config found among the inputs.
    Input(Arc<str>),
    /// A named preset for a managed mesh.
    Preset(&'static str),
    /// A field or annotation of the manifest itself.
    Manifest(JsonPath),
    /// An object read from the cluster (`lint --cluster`), described: `ConfigMap
    /// istio-system/istio`, `istiod image docker.io/istio/pilot:1.24.2`.
    Cluster(Arc<str>),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::Flag(flag) => write!(f, "{flag}"),
            Source::ConfigFile(path) => write!(f, "config {path}"),
            Source::MeshConfig(path) => write!(f, "mesh config {path}"),
            Source::Input(path) => write!(f, "input {path}"),
            Source::Preset(name) => write!(f, "preset {name}"),
            Source::Manifest(path) => describe_manifest_path(path, f),
            Source::Cluster(what) => write!(f, "{what}, from the cluster"),
        }
    }
}

/// `annotation proxy.istio.io/config` (also for a field inside it), `label app`, or the
/// path itself.
fn describe_manifest_path(path: &JsonPath, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let segments = path.segments();
    let found = segments.windows(2).position(|pair| {
        matches!(&pair[0], Segment::Key(map) if map == "annotations" || map == "labels")
            && matches!(pair[1], Segment::Key(_))
    });
    let Some(at) = found else {
        return write!(f, "{path}");
    };
    let (Segment::Key(map), Segment::Key(key)) = (&segments[at], &segments[at + 1]) else {
        return write!(f, "{path}");
    };
    let kind = if map == "labels" {
        "label"
    } else {
        "annotation"
    };
    write!(f, "{kind} {key}")
}

/// A value and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sourced<T> {
    /// The value.
    pub value: T,
    /// Where it came from, for messages and for pointing at it.
    pub source: Source,
}

impl<T> Sourced<T> {
    /// `value`, from `source`.
    pub fn new(value: T, source: Source) -> Self {
        Sourced { value, source }
    }

    /// `value` as a built-in default: an assumption the reports name.
    pub fn default_value(value: T) -> Self {
        Sourced {
            value,
            source: Source::Default,
        }
    }

    /// Whether the user (rather than a default) chose this value.
    pub fn is_explicit(&self) -> bool {
        self.source != Source::Default
    }
}
