//! `Service` objects of the input: which pods receive traffic through them, and on
//! which ports, so that a container with no declared port still counts as serving
//! when a Service sends it requests.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::ServiceSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use crate::load::{Document, Node};

/// A Service with a selector: the pods it selects get its traffic on its target ports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Service {
    /// `metadata.name`.
    pub name: String,
    /// `metadata.namespace`, when set.
    pub namespace: Option<String>,
    /// `spec.selector`: a pod is selected when its labels include all of these.
    pub selector: BTreeMap<String, String>,
    /// Each port's `targetPort` (its `port` when unset).
    pub target_ports: Vec<TargetPort>,
}

/// Where a Service sends traffic in the pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetPort {
    /// A port number.
    Number(i32),
    /// The name of a container port (`ports[].name`).
    Name(String),
}

impl std::fmt::Display for TargetPort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TargetPort::Number(port) => write!(f, "{port}"),
            TargetPort::Name(name) => write!(f, "{name}"),
        }
    }
}

impl Service {
    /// Whether the Service selects pods of `namespace` with `labels`: the same
    /// namespace as written (both unset counts as the same), and a non-empty selector
    /// the labels include. A Service without a selector gets no endpoints from pods.
    pub fn selects(&self, namespace: Option<&str>, labels: &BTreeMap<String, String>) -> bool {
        self.namespace.as_deref() == namespace
            && !self.selector.is_empty()
            && self
                .selector
                .iter()
                .all(|(key, value)| labels.get(key) == Some(value))
    }

    /// `namespace/name`, or the name alone when the namespace is unset.
    pub fn qualified_name(&self) -> String {
        match &self.namespace {
            Some(namespace) => format!("{namespace}/{}", self.name),
            None => self.name.clone(),
        }
    }
}

/// Reads a core `v1` Service; `None` for one that does not decode or selects no pods.
pub(super) fn read(document: &Document, node: &Node) -> Option<Service> {
    let meta: ObjectMeta = super::decode(node.get("metadata"), &document.source).ok()?;
    let spec: ServiceSpec = super::decode(node.get("spec"), &document.source).ok()?;
    let selector = spec.selector.unwrap_or_default();
    if selector.is_empty() {
        return None;
    }
    let target_ports = spec
        .ports
        .unwrap_or_default()
        .into_iter()
        .map(|port| match port.target_port {
            Some(IntOrString::Int(number)) => TargetPort::Number(number),
            Some(IntOrString::String(name)) => match name.parse() {
                Ok(number) => TargetPort::Number(number),
                Err(_) => TargetPort::Name(name),
            },
            None => TargetPort::Number(port.port),
        })
        .collect();
    Some(Service {
        name: meta.name.unwrap_or_default(),
        namespace: meta.namespace,
        selector,
        target_ports,
    })
}
