//! One object decoded as a workload: its metadata, pod template metadata and pod spec
//! decoded as the API server decodes them, wherever its kind keeps its pod; a partial
//! object (a kustomize patch) set aside with a note, an invalid one an input error at
//! its node.

use k8s_openapi::api::core::v1::PodSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::de::DeserializeOwned;

use super::{ControllerStop, Kind, Paths, Workload, argo, knative};
use crate::load::{Document, EntryPart, InputError, JsonPath, Node, SourceText, Value};

/// Where an object keeps its pod, relative to the object.
pub(super) enum PodAt {
    /// The object is a Pod.
    Object,
    /// A PodTemplateSpec here.
    Template(JsonPath),
    /// A bare PodSpec here; the pod's metadata is the object's.
    Spec(JsonPath),
}

/// Why an object yields no workload.
pub(super) enum Rejected {
    /// Not a valid object: an input error.
    Invalid(InputError),
    /// A partial object, left out (a kustomize patch).
    Skipped(InputError),
    /// A Rollout whose pod template could not be followed, with why: a note every
    /// report shows.
    Noted(InputError),
}

/// Errors and notes at nodes of one object, by paths relative to it.
pub(super) struct At<'a> {
    pub(super) document: &'a Document,
    pub(super) object: &'a JsonPath,
}

impl At<'_> {
    /// A diagnostic at the node `relative` names (or its deepest existing ancestor).
    pub(super) fn error(&self, relative: &JsonPath, message: String) -> InputError {
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
    pub(super) fn decode<T: DeserializeOwned + Default>(
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
pub(super) fn name_of(metadata: &ObjectMeta) -> String {
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

pub(super) fn decode_workload(
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
pub(super) fn decode<T: DeserializeOwned + Default>(
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
