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
//! note ([`unlinted`]), never skipped without a word.

pub mod argo;
pub mod config_map;
pub mod declared;
pub mod kinds;
pub mod knative;
pub mod reference;
mod service;
mod unlinted;

pub use config_map::ConfigMap;
pub use kinds::{DeclaredKind, Kind, Layout, PodPath};
pub use reference::Templates;
pub use service::{Service, TargetPort};

use k8s_openapi::api::core::v1::PodSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::de::DeserializeOwned;

use crate::load::{Document, EntryPart, InputError, JsonPath, Node, SourceText, Value};

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
    fn controller(&self) -> Option<(Kind, usize)> {
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

/// The `spec.workloadRef` of a Rollout without a template of its own.
fn rollout_reference(node: &Node, kind: Kind) -> Option<&Node> {
    if kind != Kind::Rollout || node.at(&JsonPath::parse("spec.template")).is_some() {
        return None;
    }
    node.at(&JsonPath::parse("spec.workloadRef"))
}

/// A Rollout that runs the pod template of the object its `workloadRef` names: that
/// template, where the input holds the object, findings pointing at the reference;
/// else a note that its pod could not be read.
fn referenced_workload(
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
    let target = reference::of_rollout(node, reference);
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

/// Where an object keeps its pod, relative to the object.
enum PodAt {
    /// The object is a Pod.
    Object,
    /// A PodTemplateSpec here.
    Template(JsonPath),
    /// A bare PodSpec here; the pod's metadata is the object's.
    Spec(JsonPath),
}

enum Rejected {
    /// Not a valid object: an input error.
    Invalid(InputError),
    /// A partial object, left out (a kustomize patch).
    Skipped(InputError),
    /// A Rollout whose pod template could not be followed, with why: a note every
    /// report shows.
    Noted(InputError),
}

/// Errors and notes at nodes of one object, by paths relative to it.
struct At<'a> {
    document: &'a Document,
    object: &'a JsonPath,
}

impl At<'_> {
    /// A diagnostic at the node `relative` names (or its deepest existing ancestor).
    fn error(&self, relative: &JsonPath, message: String) -> InputError {
        let path = self.object.join(relative);
        let located = self.document.root.locate(&path, EntryPart::Value);
        InputError {
            file: self.document.source.file.clone(),
            pos: Some(located.span.start),
            message,
            related: None,
            source: Some(self.document.source.clone()),
        }
    }

    /// Decodes the node at `relative` as a `T`, an invalid one an error there.
    fn decode<T: DeserializeOwned + Default>(
        &self,
        node: &Node,
        relative: &JsonPath,
        what: &str,
    ) -> Result<T, Rejected> {
        decode(node.at(relative), &self.document.source).map_err(|(path, error)| {
            let full = relative.join(&path);
            Rejected::Invalid(self.error(
                &full,
                format!("invalid {what} at `{}`: {error}", self.object.join(&full)),
            ))
        })
    }
}

/// The name reports give an object: `metadata.name`, else `generateName`.
fn name_of(metadata: &ObjectMeta) -> String {
    metadata
        .name
        .clone()
        .or_else(|| metadata.generate_name.clone())
        .unwrap_or_else(|| "<unnamed>".to_owned())
}

/// Absent, null or empty: a partial object such as a kustomize patch. Anything else
/// that is not a list (a map, a string) is a type error, reported by decoding.
fn has_no_containers(spec: Option<&Node>) -> bool {
    match spec.and_then(|spec| spec.get("containers")) {
        None => true,
        Some(containers) => match &containers.value {
            Value::Null => true,
            Value::Seq(items) => items.is_empty(),
            _ => false,
        },
    }
}

fn decode_workload(
    document: &Document,
    node: &Node,
    kind: Kind,
    api_version: &str,
    object: JsonPath,
    pod: &PodAt,
) -> Result<Workload, Rejected> {
    let at = At {
        document,
        object: &object,
    };
    let metadata_path = JsonPath::parse("metadata");
    let metadata: ObjectMeta = at.decode(node, &metadata_path, &format!("{kind} metadata"))?;
    let (pod_metadata_path, pod_spec_path) = match pod {
        PodAt::Object => (metadata_path.clone(), JsonPath::parse("spec")),
        PodAt::Template(template) => (template.key("metadata"), template.key("spec")),
        PodAt::Spec(spec) => (metadata_path.clone(), spec.clone()),
    };
    let pod_metadata: ObjectMeta = if pod_metadata_path == metadata_path {
        metadata.clone()
    } else {
        at.decode(node, &pod_metadata_path, "pod template metadata")?
    };
    let name = name_of(&metadata);
    if has_no_containers(node.at(&pod_spec_path)) {
        let why = if kind.is_declared() {
            "the `workloadKinds` entry's path is not where its objects keep their pod, or a partial object?"
        } else {
            "a kustomize patch or a partial object?"
        };
        return Err(Rejected::Skipped(at.error(
            &pod_spec_path,
            format!(
                "{kind} {name} has no containers at `{}.containers`; not linted ({why})",
                object.join(&pod_spec_path)
            ),
        )));
    }
    let mut pod_spec: PodSpec = at.decode(node, &pod_spec_path, "pod spec")?;
    let pod_spec_at = object.join(&pod_spec_path);
    let mut refused_fields = Vec::new();
    if matches!(
        kind,
        Kind::KnativeService | Kind::KnativeConfiguration | Kind::KnativeRevision
    ) {
        refused_fields =
            knative::revision_pod(node.at(&pod_spec_path), &mut pod_spec, &pod_spec_at);
    }
    let list = |field: &str, count: usize| -> Vec<JsonPath> {
        (0..count)
            .map(|i| pod_spec_at.key(field).index(i))
            .collect()
    };
    let init_containers = list(
        "initContainers",
        pod_spec.init_containers.as_ref().map_or(0, Vec::len),
    );
    let containers = list("containers", pod_spec.containers.len());
    Ok(Workload {
        kind,
        api_version: api_version.to_owned(),
        namespace: metadata.namespace.clone(),
        name,
        metadata,
        pod_metadata,
        pod_spec,
        paths: Paths {
            metadata: object.join(&metadata_path),
            pod_metadata: object.join(&pod_metadata_path),
            pod_spec: pod_spec_at,
            init_containers,
            containers,
            object,
        },
        document: document.index,
        origin: document.origin.clone(),
        sidecar_stop: None,
        refused_fields,
    }
    .with_controller_stop())
}

impl Workload {
    /// A Pod an Argo Workflow runs is stopped as the workflow's templates are: the
    /// controller signals its sidecars once `main` has exited.
    fn with_controller_stop(mut self) -> Workload {
        if self.kind == Kind::Pod
            && let Some((Kind::Workflow, index)) = self.controller()
        {
            self.sidecar_stop = Some(ControllerStop {
                description: argo::SIDECAR_STOP,
                path: self.paths.metadata.key("ownerReferences").index(index),
            });
        }
        self
    }
}

/// Decodes a node (absent = empty) as the API server decodes what kubectl sends: as
/// strict as it (`"30"` is no integer, `8080` no string), and as lenient (`null` is the
/// zero value, `12.0` is 12); see [`load::de`](crate::load::de).
fn decode<T: DeserializeOwned + Default>(
    node: Option<&Node>,
    source: &SourceText,
) -> Result<T, (JsonPath, String)> {
    let Some(node) = node else {
        return Ok(T::default());
    };
    if node.value == Value::Null {
        return Ok(T::default());
    }
    crate::load::de::from_node(node, crate::load::de::Reading::ApiObject(source))
        .map_err(|(path, error)| (JsonPath::from_serde(&path), error.message))
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
