//! A workload as the later stages read it: its kind, the pod template as `k8s_openapi`
//! types, the paths in its document that findings point into, and what its controller
//! does to its pod; with its namespace's labels and annotations, which decide injection,
//! and the identity reports print.

use k8s_openapi::api::core::v1::PodSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::Kind;
use crate::load::JsonPath;

/// Where the parts of a workload lie in its document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Paths {
    /// The object itself (the root, or `items[i]` inside a List).
    pub object: JsonPath,
    /// The object's metadata.
    pub metadata: JsonPath,
    /// The pod template's metadata (the object's own metadata for a Pod).
    pub pod_metadata: JsonPath,
    /// The pod spec.
    pub pod_spec: JsonPath,
    /// Each of the pod's `initContainers`, in order: in the pod spec, or where the
    /// controller takes them from (an Argo template's own fields).
    pub init_containers: Vec<JsonPath>,
    /// Each of the pod's `containers`, in order.
    pub containers: Vec<JsonPath>,
}

/// A workload, typed, with the paths that findings point into.
#[derive(Clone, Debug)]
pub struct Workload {
    /// Its kind.
    pub kind: Kind,
    /// `apiVersion` as written (older groups are read like current ones).
    pub api_version: String,
    /// `metadata.name` (or `generateName`).
    pub name: String,
    /// `metadata.namespace`, when set.
    pub namespace: Option<String>,
    /// The object's metadata.
    pub metadata: ObjectMeta,
    /// The pod template's metadata: labels and annotations that injectors read.
    pub pod_metadata: ObjectMeta,
    /// The pod spec.
    pub pod_spec: PodSpec,
    /// Where the parts lie in the document.
    pub paths: Paths,
    /// Index of the document it came from.
    pub document: usize,
    /// Where Helm rendered it from, when known.
    pub origin: Option<String>,
    /// What its controller does to sidecars once the work is done, when it does.
    pub sidecar_stop: Option<ControllerStop>,
    /// Fields its controller's admission webhook refuses: with any, the object is
    /// never created.
    pub refused_fields: Vec<RefusedField>,
}

/// A field of the pod template that the workload's controller does not allow: its
/// validating webhook denies the object (Knative Serving allows a container no
/// `lifecycle`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefusedField {
    /// The field as written.
    pub path: JsonPath,
    /// The container that sets it.
    pub container: String,
    /// The field's name (`lifecycle`).
    pub field: &'static str,
    /// The controller whose webhook refuses it (`Knative Serving`).
    pub controller: &'static str,
}

/// A controller that stops a pod's sidecars itself when the work is done, as Argo
/// Workflows does for each step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControllerStop {
    /// Who stops them, and how: for messages.
    pub description: &'static str,
    /// Where the manifest makes the controller do it (the template).
    pub path: JsonPath,
}

impl Workload {
    /// A workload annotation, looked up on the pod template first and then on the
    /// object, as users put them in either place.
    pub fn annotation(&self, key: &str) -> Option<(&str, JsonPath)> {
        lookup(&self.pod_metadata.annotations, key)
            .map(|value| (value, self.paths.pod_metadata.key("annotations").key(key)))
            .or_else(|| {
                lookup(&self.metadata.annotations, key)
                    .map(|value| (value, self.paths.metadata.key("annotations").key(key)))
            })
    }

    /// A pod label (labels decide injection, so only the pod template counts).
    pub fn pod_label(&self, key: &str) -> Option<(&str, JsonPath)> {
        lookup(&self.pod_metadata.labels, key)
            .map(|value| (value, self.paths.pod_metadata.key("labels").key(key)))
    }

    /// Whether its pod runs to completion: a Job's or a CronJob's, or a Pod whose
    /// controller (in `metadata.ownerReferences`) is a kind whose pods do (a Job, an
    /// Argo Workflow, a Kruise BroadcastJob), as pods read from a cluster are.
    pub fn runs_to_completion(&self) -> bool {
        self.kind.runs_to_completion()
            || (self.kind == Kind::Pod
                && self
                    .controller()
                    .is_some_and(|(kind, _)| kind.runs_to_completion()))
    }

    /// The built-in kind of a Pod's controller, and the index of its owner reference.
    pub(super) fn controller(&self) -> Option<(Kind, usize)> {
        let owners = self.metadata.owner_references.as_ref()?;
        owners.iter().enumerate().find_map(|(index, owner)| {
            if owner.controller != Some(true) {
                return None;
            }
            Some((Kind::recognise(&owner.api_version, &owner.kind)?, index))
        })
    }

    /// A pod template annotation.
    pub fn pod_annotation(&self, key: &str) -> Option<(&str, JsonPath)> {
        lookup(&self.pod_metadata.annotations, key)
            .map(|value| (value, self.paths.pod_metadata.key("annotations").key(key)))
    }
}

fn lookup<'a>(
    map: &'a Option<std::collections::BTreeMap<String, String>>,
    key: &str,
) -> Option<&'a str> {
    map.as_ref()?.get(key).map(String::as_str)
}

/// A `Namespace` object of the input: its labels and annotations decide injection for
/// the workloads in it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Namespace {
    /// `metadata.name`.
    pub name: String,
    /// Its labels (`istio-injection`, `istio.io/rev`).
    pub labels: std::collections::BTreeMap<String, String>,
    /// Its annotations (`linkerd.io/inject`, `config.linkerd.io/*`).
    pub annotations: std::collections::BTreeMap<String, String>,
}

/// A workload's identity in reports.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct WorkloadRef {
    /// Its kind.
    pub kind: Kind,
    /// Its name.
    pub name: String,
    /// Its namespace, when the manifest sets one.
    pub namespace: Option<String>,
}

impl Workload {
    /// The identity reports print.
    pub fn reference(&self) -> WorkloadRef {
        WorkloadRef {
            kind: self.kind,
            name: self.name.clone(),
            namespace: self.namespace.clone(),
        }
    }
}
