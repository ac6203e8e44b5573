//! Stage 2 of the pipeline: documents in, typed workloads out.
//!
//! Recognises the kinds that run pods (Pod, Deployment, StatefulSet, DaemonSet,
//! ReplicaSet, ReplicationController, Job, CronJob), also inside a list (`List`,
//! `PodList`, `DeploymentList`: any object with `items`, see [`list_items`]), and decodes
//! their object metadata, pod template metadata and pod spec through k8s-openapi. Only
//! those parts are decoded, so a manifest from an older API version (`batch/v1beta1`
//! CronJob, `extensions/v1beta1` Deployment) is linted like its current form. `Namespace`
//! objects are kept because their labels decide sidecar injection. Everything else is
//! skipped without a word.

use std::fmt;
use std::sync::Arc;

use k8s_openapi::api::core::v1::PodSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::de::DeserializeOwned;

use crate::load::{Anchor, Document, InputError, JsonPath, Node, SourceText, Value};

/// The kinds whose pods the linter checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// `v1` Pod.
    Pod,
    /// `apps` Deployment.
    Deployment,
    /// `apps` StatefulSet.
    StatefulSet,
    /// `apps` DaemonSet.
    DaemonSet,
    /// `apps` ReplicaSet.
    ReplicaSet,
    /// `v1` ReplicationController.
    ReplicationController,
    /// `batch` Job.
    Job,
    /// `batch` CronJob (`spec.jobTemplate`).
    CronJob,
}

impl Kind {
    /// Every supported kind.
    pub const ALL: [Kind; 8] = [
        Kind::Pod,
        Kind::Deployment,
        Kind::StatefulSet,
        Kind::DaemonSet,
        Kind::ReplicaSet,
        Kind::ReplicationController,
        Kind::Job,
        Kind::CronJob,
    ];

    /// The `kind` string of manifests.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Pod => "Pod",
            Kind::Deployment => "Deployment",
            Kind::StatefulSet => "StatefulSet",
            Kind::DaemonSet => "DaemonSet",
            Kind::ReplicaSet => "ReplicaSet",
            Kind::ReplicationController => "ReplicationController",
            Kind::Job => "Job",
            Kind::CronJob => "CronJob",
        }
    }

    /// Looks up a manifest's `kind`.
    pub fn parse(kind: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == kind)
    }

    /// Jobs and CronJobs run to completion; a sidecar that never exits blocks them.
    pub fn runs_to_completion(self) -> bool {
        matches!(self, Kind::Job | Kind::CronJob)
    }

    /// Where the pod template lies in an object of this kind.
    fn template_path(self) -> Option<JsonPath> {
        match self {
            Kind::Pod => None,
            Kind::CronJob => Some(JsonPath::parse("spec.jobTemplate.spec.template")),
            _ => Some(JsonPath::parse("spec.template")),
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

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

    /// Whether its pod runs to completion: a Job's or a CronJob's, or a Pod a Job created
    /// (its controller in `metadata.ownerReferences` is a Job), as pods read from a
    /// cluster are.
    pub fn runs_to_completion(&self) -> bool {
        self.kind.runs_to_completion()
            || (self.kind == Kind::Pod
                && self
                    .metadata
                    .owner_references
                    .iter()
                    .flatten()
                    .any(|owner| {
                        owner.controller == Some(true)
                            && owner.kind == Kind::Job.as_str()
                            && owner.api_version.starts_with("batch/")
                    }))
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
    /// Workloads that could not be decoded.
    pub errors: Vec<InputError>,
    /// Workloads left out on purpose (no containers: a kustomize patch, say).
    pub skipped: Vec<InputError>,
}

/// Finds the workloads and namespaces of a document.
pub fn objects(document: &Document) -> Objects {
    let mut found = Objects::default();
    let root = &document.root;
    match list_items(root) {
        Some(items) => {
            for (index, item) in items.iter().enumerate() {
                let path = JsonPath::root().key("items").index(index);
                classify(document, item, path, &mut found);
            }
        }
        None => classify(document, root, JsonPath::root(), &mut found),
    }
    found
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

/// Built-in workload kinds live in the core group or in groups without a dot (`apps`,
/// `batch`, `extensions`); a custom resource that reuses a name (`batch.volcano.sh/v1alpha1
/// Job`) has a different schema and is not ours.
fn is_builtin_group(api_version: &str) -> bool {
    match api_version.split_once('/') {
        Some((group, _)) => !group.contains('.'),
        None => true,
    }
}

fn classify(document: &Document, node: &Node, path: JsonPath, found: &mut Objects) {
    let Some(kind) = kind_of(node) else { return };
    let api_version = node.get("apiVersion").and_then(Node::as_str).unwrap_or("");
    if !is_builtin_group(api_version) {
        return;
    }
    if kind == "Namespace" {
        if let Ok(meta) = decode::<ObjectMeta>(node.get("metadata")) {
            found.namespaces.push(Namespace {
                name: meta.name.unwrap_or_default(),
                labels: meta.labels.unwrap_or_default(),
                annotations: meta.annotations.unwrap_or_default(),
            });
        }
        return;
    }
    let Some(kind) = Kind::parse(kind) else {
        return;
    };
    match decode_workload(document, node, kind, api_version, path) {
        Ok(Some(workload)) => found.workloads.push(workload),
        Ok(None) => {}
        Err(Rejected::Invalid(error)) => found.errors.push(error),
        Err(Rejected::Skipped(note)) => found.skipped.push(note),
    }
}

enum Rejected {
    Invalid(InputError),
    Skipped(InputError),
}

fn decode_workload(
    document: &Document,
    node: &Node,
    kind: Kind,
    api_version: &str,
    object: JsonPath,
) -> Result<Option<Workload>, Rejected> {
    let fail = |relative: &JsonPath, message: String| {
        let path = object.join(relative);
        let located = document.root.locate(&path, Anchor::Value);
        let message = explain_big_integer(document, &path, message);
        InputError {
            file: document.source.file.clone(),
            pos: Some(located.span.start),
            message,
            related: None,
            source: Some(document.source.clone()),
        }
    };
    let metadata_path = JsonPath::parse("metadata");
    let metadata: ObjectMeta = decode(node.get("metadata")).map_err(|(path, error)| {
        Rejected::Invalid(fail(
            &metadata_path.join(&path),
            format!(
                "invalid {kind} metadata at `{}`: {error}",
                object.join(&metadata_path).join(&path)
            ),
        ))
    })?;
    let (pod_metadata_path, pod_spec_path) = match kind.template_path() {
        None => (metadata_path.clone(), JsonPath::parse("spec")),
        Some(template) => (template.key("metadata"), template.key("spec")),
    };
    let pod_metadata: ObjectMeta = if kind == Kind::Pod {
        metadata.clone()
    } else {
        decode(node.at(&pod_metadata_path)).map_err(|(path, error)| {
            let full = pod_metadata_path.join(&path);
            Rejected::Invalid(fail(
                &full,
                format!(
                    "invalid pod template metadata at `{}`: {error}",
                    object.join(&full)
                ),
            ))
        })?
    };
    let name = metadata
        .name
        .clone()
        .or_else(|| metadata.generate_name.clone())
        .unwrap_or_else(|| "<unnamed>".to_owned());
    let spec_node = node.at(&pod_spec_path);
    // Absent, null or empty: a partial object such as a kustomize patch. Anything else
    // that is not a list (a map, a string) is a type error, reported by decoding below.
    let no_containers = match spec_node.and_then(|spec| spec.get("containers")) {
        None => true,
        Some(containers) => match &containers.value {
            Value::Null => true,
            Value::Seq(items) => items.is_empty(),
            _ => false,
        },
    };
    if no_containers {
        return Err(Rejected::Skipped(fail(
            &pod_spec_path,
            format!(
                "{kind} {name} has no containers at `{}.containers`; not linted (a kustomize patch or a partial object?)",
                object.join(&pod_spec_path)
            ),
        )));
    }
    let pod_spec: PodSpec = decode(spec_node).map_err(|(path, error)| {
        let full = pod_spec_path.join(&path);
        Rejected::Invalid(fail(
            &full,
            format!("invalid pod spec at `{}`: {error}", object.join(&full)),
        ))
    })?;
    Ok(Some(Workload {
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
            pod_spec: object.join(&pod_spec_path),
            object,
        },
        document: document.index,
        origin: document.origin.clone(),
    }))
}

/// Decodes a node (absent = empty) as the API server decodes what kubectl sends: as
/// strict as it (`"30"` is no integer, `8080` no string), and as lenient (`null` is the
/// zero value, `12.0` is 12); see [`load::de`](crate::load::de).
fn decode<T: DeserializeOwned + Default>(node: Option<&Node>) -> Result<T, (JsonPath, String)> {
    let Some(node) = node else {
        return Ok(T::default());
    };
    if node.value == Value::Null {
        return Ok(T::default());
    }
    crate::load::de::from_node(node, crate::load::de::Reading::ApiObject)
        .map_err(|(path, error)| (JsonPath::from_serde(&path), error.message))
}

/// An integer literal too large for 64 bits reads as a float, as go-yaml reads it, and
/// the decoder then complains about a "floating point" value nobody wrote. Say what the
/// manifest says instead.
fn explain_big_integer(document: &Document, path: &JsonPath, message: String) -> String {
    let Some(node) = document.root.at(path) else {
        return message;
    };
    let Some(at) = message.find("invalid type: floating point") else {
        return message;
    };
    if !matches!(node.value, Value::Float(_)) {
        return message;
    }
    let source = &document.source;
    let (start, end) = (source.offset(node.span.start), source.offset(node.span.end));
    let written = source.text.get(start..end).unwrap_or("").trim();
    let digits = written.strip_prefix(['-', '+']).unwrap_or(written);
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit() || c == '_') {
        return message;
    }
    let expected = message[at..]
        .split_once(", expected ")
        .map_or(String::new(), |(_, expected)| {
            format!(", expected {expected}")
        });
    format!(
        "{}integer `{written}` does not fit in 64 bits{expected}",
        &message[..at]
    )
}

/// The source text of a document, for reports that quote it.
pub fn source_of(document: &Document) -> SourceText {
    document.source.clone()
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

impl serde::Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
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

/// Shared handle to a file name.
pub type FileName = Arc<str>;
