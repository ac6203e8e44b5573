//! Pod templates taken by reference: an Argo Rollout with `spec.workloadRef` runs the
//! template of another object (argoproj/argo-rollouts v1.9.1,
//! `rollout/templateref.go`, `Resolve`): an `apps` Deployment's or ReplicaSet's
//! `spec.template`, or a core PodTemplate's `template`, in the Rollout's namespace; the
//! Rollout's own `template` must then be empty. `scaleDown` only says when the
//! referenced Deployment is scaled down (`never`, `onsuccess`, `progressively`:
//! `rollout/replicaset.go`, `rollout/sync.go`); its template is the pod either way.
//! Such a Rollout is a workload with the template found in the input, or a note that
//! names what the input lacks.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use k8s_openapi::api::core::v1::PodSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::kinds::group_of;
use super::{At, Context, Kind, Paths, Rejected, Workload, decode, list_items, name_of};
use crate::load::{Document, JsonPath, Node};

/// An object whose pod template another one takes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TemplateRef {
    /// The namespace of the object that refers to it (references never cross one).
    pub namespace: Option<String>,
    /// The kind, `Deployment`, `ReplicaSet` or `PodTemplate`.
    pub kind: String,
    /// Its name.
    pub name: String,
}

/// The kinds a `workloadRef` may name, and where their template is
/// (`templateref.go`, `infoByGroupKind`).
const REFERABLE: [(&str, &str, &str); 3] = [
    ("apps", "Deployment", "spec.template"),
    ("apps", "ReplicaSet", "spec.template"),
    ("", "PodTemplate", "template"),
];

/// A template found in the input.
#[derive(Clone, Debug)]
pub struct Referenced {
    /// The template's metadata.
    pub metadata: ObjectMeta,
    /// The template's pod spec.
    pub spec: PodSpec,
    /// The input it is in, for messages.
    pub file: Arc<str>,
}

/// The templates the input's references name, as far as the input holds them.
#[derive(Clone, Debug, Default)]
pub struct Templates {
    found: HashMap<TemplateRef, Referenced>,
}

impl Templates {
    /// The template `reference` names, when the input holds it.
    pub fn get(&self, reference: &TemplateRef) -> Option<&Referenced> {
        self.found.get(reference)
    }

    /// Keeps the templates of `document`'s objects that `wanted` names.
    pub fn collect(
        &mut self,
        file: &Arc<str>,
        document: &Document,
        wanted: &BTreeSet<TemplateRef>,
    ) {
        for object in objects(document) {
            let field = |key: &str| object.at(&JsonPath::parse(key)).and_then(Node::as_str);
            let api_version = field("apiVersion").unwrap_or_default();
            let Some((_, kind, template)) = REFERABLE.iter().find(|(group, kind, _)| {
                field("kind") == Some(*kind) && group_of(api_version) == *group
            }) else {
                continue;
            };
            let reference = TemplateRef {
                namespace: field("metadata.namespace").map(str::to_owned),
                kind: (*kind).to_owned(),
                name: field("metadata.name").unwrap_or_default().to_owned(),
            };
            if !wanted.contains(&reference) {
                continue;
            }
            let template = JsonPath::parse(template);
            let (Ok(metadata), Ok(spec)) = (
                decode::<ObjectMeta>(object.at(&template.key("metadata")), &document.source),
                decode::<PodSpec>(object.at(&template.key("spec")), &document.source),
            ) else {
                // An invalid template is reported where it is, by the main pass.
                continue;
            };
            self.found.insert(
                reference,
                Referenced {
                    metadata,
                    spec,
                    file: file.clone(),
                },
            );
        }
    }
}

/// The objects of a document: itself, or a list's items.
fn objects(document: &Document) -> Vec<&Node> {
    match list_items(&document.root) {
        Some(items) => items.iter().collect(),
        None => vec![&document.root],
    }
}

/// The templates `document`'s Rollouts take by reference.
pub fn references(document: &Document) -> Vec<TemplateRef> {
    objects(document)
        .into_iter()
        .filter(|object| {
            object.get("kind").and_then(Node::as_str) == Some("Rollout")
                && object
                    .get("apiVersion")
                    .and_then(Node::as_str)
                    .is_some_and(|v| group_of(v) == "argoproj.io")
        })
        .filter_map(|object| {
            let reference = object.at(&JsonPath::parse("spec.workloadRef"))?;
            of_rollout(object, reference)
        })
        .collect()
}

/// What a Rollout's `workloadRef` names, when it names a kind that may be referred to.
pub fn of_rollout(rollout: &Node, reference: &Node) -> Option<TemplateRef> {
    fn field<'n>(node: &'n Node, key: &str) -> Option<&'n str> {
        node.at(&JsonPath::parse(key)).and_then(Node::as_str)
    }
    let kind = field(reference, "kind")?;
    let group = group_of(field(reference, "apiVersion").unwrap_or_default());
    REFERABLE
        .iter()
        .any(|(g, k, _)| *k == kind && *g == group)
        .then(|| TemplateRef {
            namespace: field(rollout, "metadata.namespace").map(str::to_owned),
            kind: kind.to_owned(),
            name: field(reference, "name").unwrap_or_default().to_owned(),
        })
}

/// The `spec.workloadRef` of a Rollout without a template of its own.
pub(super) fn rollout_reference(node: &Node, kind: Kind) -> Option<&Node> {
    if kind != Kind::Rollout || node.at(&JsonPath::parse("spec.template")).is_some() {
        return None;
    }
    node.at(&JsonPath::parse("spec.workloadRef"))
}

/// A Rollout that runs the pod template of the object its `workloadRef` names: that
/// template, where the input holds the object, findings pointing at the reference;
/// else a note that its pod could not be read.
pub(super) fn referenced_workload(
    document: &Document,
    node: &Node,
    api_version: &str,
    object: JsonPath,
    reference: &Node,
    context: &Context,
) -> Result<Workload, Rejected> {
    let at = At {
        document,
        object: &object,
    };
    let metadata_path = JsonPath::parse("metadata");
    let metadata: ObjectMeta = at.decode(node, &metadata_path, "Rollout metadata")?;
    let name = name_of(&metadata);
    let reference_path = JsonPath::parse("spec.workloadRef");
    let target = of_rollout(node, reference);
    let found = target
        .as_ref()
        .and_then(|target| context.templates?.get(target));
    let Some(found) = found else {
        let field = |key: &str| reference.get(key).and_then(Node::as_str);
        let named = match (field("kind"), field("name")) {
            (Some(kind), Some(target)) => format!("{kind} {target}"),
            _ => "the object `spec.workloadRef` names".to_owned(),
        };
        let why = if target.is_none() {
            "Argo Rollouts takes templates from Deployments, ReplicaSets and PodTemplates only"
                .to_owned()
        } else {
            format!(
                "{named} is not in the input, so its pod template could not be read; lint its manifest with this one"
            )
        };
        return Err(Rejected::Noted(at.error(
            &reference_path,
            format!("Rollout {name} runs the pod template of {named} (`spec.workloadRef`): {why}"),
        )));
    };
    let here = object.join(&reference_path);
    let pod_spec = found.spec.clone();
    let paths = |count: usize| vec![here.clone(); count];
    Ok(Workload {
        kind: Kind::Rollout,
        api_version: api_version.to_owned(),
        namespace: metadata.namespace.clone(),
        name,
        pod_metadata: found.metadata.clone(),
        paths: Paths {
            metadata: object.join(&metadata_path),
            pod_metadata: here.clone(),
            pod_spec: here.clone(),
            init_containers: paths(pod_spec.init_containers.as_ref().map_or(0, Vec::len)),
            containers: paths(pod_spec.containers.len()),
            object,
        },
        metadata,
        pod_spec,
        document: document.index,
        origin: document.origin.clone(),
        sidecar_stop: None,
        refused_fields: Vec::new(),
    })
}
