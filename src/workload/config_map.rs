//! `ConfigMap` objects of the input whose files a pod may run as scripts: a container
//! whose command is a file of a ConfigMap volume runs that text, which the shell
//! reader then reads as if it were written inline (docs/lifecycle.md §2.8).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::load::{Document, Node};

/// A core `v1` ConfigMap: its name, namespace and text data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigMap {
    /// `metadata.name`.
    pub name: String,
    /// `metadata.namespace`, when set.
    pub namespace: Option<String>,
    /// `data`: each key is a file of a volume that mounts it.
    pub data: BTreeMap<String, String>,
}

impl ConfigMap {
    /// Whether a pod of `namespace` mounting a ConfigMap named `name` gets this one: the
    /// same name, and the same namespace as written (both unset counts as the same).
    pub fn is(&self, name: &str, namespace: Option<&str>) -> bool {
        self.name == name && self.namespace.as_deref() == namespace
    }
}

/// Whether a document's text may hold a ConfigMap with scripts in it, so that it is
/// worth reading before the workloads: a `#!` line or a key ending in `.sh`.
pub fn may_hold_scripts(text: &str) -> bool {
    text.contains("#!") || text.contains(".sh:") || text.contains(".sh\"")
}

/// Reads a core `v1` ConfigMap; `None` for one that does not decode.
pub(super) fn read(document: &Document, node: &Node) -> Option<ConfigMap> {
    let meta: ObjectMeta = super::decode(node.get("metadata"), &document.source).ok()?;
    let data: BTreeMap<String, String> = super::decode(node.get("data"), &document.source).ok()?;
    Some(ConfigMap {
        name: meta.name.unwrap_or_default(),
        namespace: meta.namespace,
        data,
    })
}
