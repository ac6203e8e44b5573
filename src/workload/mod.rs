//! Stage 2 of the pipeline: documents in, typed workloads out.
//!
//! Recognises the kinds that run pods ([`kinds`]: Kubernetes' own, the custom resources
//! of Argo, Knative, KEDA and OpenKruise, and those `workloadKinds` declares), also
//! inside a list (`List`, `PodList`, `DeploymentList`: any object with `items`, see
//! [`list_items`]), and decodes their object metadata, pod template metadata and pod
//! spec through k8s-openapi. Only those parts are decoded, so a manifest from an older
//! API version (`batch/v1beta1` CronJob, `extensions/v1beta1` Deployment) is linted like
//! its current form (whether the Kubernetes version in force still serves it is
//! `resolve::api_removals`'s). `Namespace` objects are kept because their labels decide sidecar
//! injection. Any other document that holds something shaped like a pod is named in a
//! note ([`unlinted`]), never skipped without a word. This module finds the objects of
//! a document and hands each to its reader: a workload to `decoding` (an Argo Workflow to
//! [`argo`], a Rollout that runs another object's template to [`reference`]), whose
//! result is a [`Workload`] (`typed`).

pub mod argo;
pub mod config_map;
pub mod declared;
mod decoding;
pub mod kinds;
pub mod knative;
pub mod reference;
mod service;
mod typed;
mod unlinted;

pub use config_map::ConfigMap;
pub use kinds::{DeclaredKind, Kind, Layout, PodPath};
pub use reference::Templates;
pub use service::{Service, TargetPort};
pub use typed::{ControllerStop, Namespace, Paths, RefusedField, Workload, WorkloadRef};

use decoding::{At, PodAt, Rejected, decode, decode_workload, name_of};
use reference::{referenced_workload, rollout_reference};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::load::{Document, InputError, JsonPath, Node, Value};

/// What a document holds, as far as the linter cares.
#[derive(Debug, Default)]
pub struct Objects {
    /// Workloads found.
    pub workloads: Vec<Workload>,
    /// Namespaces found.
    pub namespaces: Vec<Namespace>,
    /// Services with a selector found.
    pub services: Vec<Service>,
    /// ConfigMaps found, whose files a pod may run as scripts.
    pub config_maps: Vec<ConfigMap>,
    /// Workloads that could not be decoded.
    pub errors: Vec<InputError>,
    /// What every report names: objects of a kind the linter does not read that hold a
    /// pod, workloads without containers, and what a controller does that the linter
    /// cannot follow.
    pub notes: Vec<Note>,
}

/// An object that holds or runs a pod the linter does not lint, and why: a note every
/// report names, which changes the exit status only under `--strict`.
#[derive(Clone, Debug)]
pub struct Note {
    /// Why the pod is not linted, which decides what the user can do about it.
    pub why: Unlinted,
    /// The note, at the object's node.
    pub error: InputError,
}

/// Why an object's pod is not linted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unlinted {
    /// A kind the linter does not read: `workloadKinds` can declare it.
    UnknownKind,
    /// A Rollout whose `spec.workloadRef` names no pod template of the input.
    UnfollowedReference,
    /// A workload kind with no containers where its pod should be (a kustomize patch,
    /// a partial object, or a `workloadKinds` entry that names the wrong path).
    NoContainers,
}

/// Finds the workloads and namespaces of a document, with Kubernetes' kinds and the
/// built-in custom ones.
pub fn objects(document: &Document) -> Objects {
    objects_with(document, &Context::default())
}

/// What the rest of the input tells the workload stage about a document's objects.
#[derive(Clone, Copy, Debug, Default)]
pub struct Context<'a> {
    /// The kinds `workloadKinds` declares.
    pub declared: &'a [&'static DeclaredKind],
    /// The pod templates other objects of the input hold, for those that refer to one.
    pub templates: Option<&'a Templates>,
}

/// Finds the workloads and namespaces of a document, with what `context` says.
pub fn objects_with(document: &Document, context: &Context) -> Objects {
    let mut found = Objects::default();
    match list_items(&document.root) {
        Some(items) => {
            for index in 0..items.len() {
                objects_at(document, Some(index), context, &mut found);
            }
        }
        None => objects_at(document, None, context, &mut found),
    }
    found
}

/// Adds to `found` what one object of a document holds: item `item` of its list, or
/// with `None`, the document's root itself. [`objects_with`] is this for every object.
pub fn objects_at(
    document: &Document,
    item: Option<usize>,
    context: &Context,
    found: &mut Objects,
) {
    let root = &document.root;
    let object = match item {
        None => Some((root, JsonPath::root())),
        Some(index) => list_items(root)
            .and_then(|items| items.get(index))
            .map(|node| (node, JsonPath::root().key("items").index(index))),
    };
    if let Some((node, path)) = object {
        classify(document, node, path, context, found);
    }
}

/// Whether `kind` names a kind whose objects may be workloads, in some group: one the
/// linter knows or one `declared`.
pub fn is_workload_kind(kind: &str, declared: &[&'static DeclaredKind]) -> bool {
    kinds::ROWS.iter().any(|row| row.name == kind) || declared.iter().any(|d| d.kind == kind)
}

/// Whether this stage can find anything in a document that [`crate::load::skim`]
/// outlined as `outline`, without its tree: a workload of any kind it reads, built in
/// or `declared`; a list, whose items may be; an object of another kind that may hold a
/// pod (its text names `containers`), which gets a note; and a `ConfigMap`, which a
/// pod may mount as the script it runs. A document with no `kind` is none of them.
/// Anything else (a Secret, a CustomResourceDefinition, RBAC, a Service) yields
/// nothing here, whatever it holds: the pipeline need not parse it.
pub fn reads(
    outline: &crate::load::skim::Outline,
    text: &str,
    declared: &[&'static DeclaredKind],
) -> bool {
    if outline.unread || outline.has_items {
        return true;
    }
    let Some(kind) = outline.kind else {
        return false;
    };
    kind == "ConfigMap"
        || Kind::of(outline.api_version.unwrap_or(""), kind, declared).is_some()
        || text.contains("containers")
}

/// The items of a list object, `None` when `root` is not one. kubectl reads any object
/// with an `items` field as a list, whatever its kind: `List`, `PodList`,
/// `DeploymentList` (what `kubectl get -o yaml` prints), even a custom kind
/// (apimachinery, `pkg/apis/meta/v1/unstructured/helpers.go`,
/// `unstructuredJSONScheme.decode`, v0.32.0: an `items` field makes an
/// `UnstructuredList`). `items: null` is a list without items.
pub fn list_items(root: &Node) -> Option<&[Node]> {
    match &root.get("items")?.value {
        Value::Seq(items) => Some(items),
        Value::Null => Some(&[]),
        _ => None,
    }
}

fn kind_of(node: &Node) -> Option<&str> {
    node.get("kind").and_then(Node::as_str)
}

fn classify(
    document: &Document,
    node: &Node,
    path: JsonPath,
    context: &Context,
    found: &mut Objects,
) {
    let Some(kind_name) = kind_of(node) else {
        return;
    };
    let api_version = node.get("apiVersion").and_then(Node::as_str).unwrap_or("");
    if kind_name == "Namespace" && !kinds::group_of(api_version).contains('.') {
        if let Ok(meta) = decode::<ObjectMeta>(node.get("metadata"), &document.source) {
            found.namespaces.push(Namespace {
                name: meta.name.unwrap_or_default(),
                labels: meta.labels.unwrap_or_default(),
                annotations: meta.annotations.unwrap_or_default(),
            });
        }
        return;
    }
    if kind_name == "Service" && api_version == "v1" {
        found.services.extend(service::read(document, node));
        return;
    }
    if kind_name == "ConfigMap" && api_version == "v1" {
        found.config_maps.extend(config_map::read(document, node));
        return;
    }
    let Some(kind) = Kind::of(api_version, kind_name, context.declared) else {
        if let Some(error) = unlinted::note(document, node, &path, api_version, kind_name) {
            found.notes.push(Note {
                why: Unlinted::UnknownKind,
                error,
            });
        }
        return;
    };
    if let Layout::ArgoTemplates(spec) = kind.layout() {
        argo::workloads(document, node, kind, api_version, path, spec, found);
        return;
    }
    let pod = match kind.layout() {
        Layout::Pod => PodAt::Object,
        Layout::Template(template) => PodAt::Template(JsonPath::parse(template)),
        Layout::Spec(spec) => PodAt::Spec(JsonPath::parse(spec)),
        Layout::ArgoTemplates(_) => unreachable!("handled above"),
    };
    let decoded = match rollout_reference(node, kind) {
        Some(reference) => {
            referenced_workload(document, node, api_version, path, reference, context)
        }
        None => decode_workload(document, node, kind, api_version, path, &pod),
    };
    push(decoded, found);
}

/// Files a decoded workload, or why there is none.
fn push(decoded: Result<Workload, Rejected>, found: &mut Objects) {
    match decoded {
        Ok(workload) => found.workloads.push(workload),
        Err(Rejected::Invalid(error)) => found.errors.push(error),
        Err(Rejected::Skipped(error)) => found.notes.push(Note {
            why: Unlinted::NoContainers,
            error,
        }),
        Err(Rejected::Noted(error)) => found.notes.push(Note {
            why: Unlinted::UnfollowedReference,
            error,
        }),
    }
}
