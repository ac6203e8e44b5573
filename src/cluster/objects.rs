//! The objects kubectl printed, and which of them are linted on whose behalf.
//!
//! Controllers own what they create: a Deployment its ReplicaSets, a ReplicaSet its
//! pods, a CronJob its Jobs (`metadata.ownerReferences`, the one with `controller:
//! true`). A workload is linted from its own pod template; what it owns is not linted
//! again, except its pods, which show what the injector really produced, and whose
//! findings belong to the workload at the top of the chain. Pods of one controller
//! revision (`pod-template-hash`, `controller-revision-hash`) come from one template,
//! so one of them speaks for all.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::workload::{DeclaredKind, Kind, Layout, WorkloadRef};

/// One object as kubectl printed it.
#[derive(Clone, Debug)]
pub struct ApiObject {
    /// The object, as `kubectl get -o json` prints it.
    pub json: Value,
    /// `apiVersion`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    /// `metadata.namespace`.
    pub namespace: Option<String>,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.uid`.
    pub uid: Option<String>,
    /// The owner reference with `controller: true`.
    pub controller: Option<OwnerRef>,
}

/// An owner reference: the controller of an object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerRef {
    /// Its `apiVersion`: which group's kind `kind` is (a ReplicaSet's owner may be a
    /// Deployment or an Argo Rollout, a Deployment's a Knative Revision).
    pub api_version: String,
    /// Its kind.
    pub kind: String,
    /// Its name (in the object's namespace: owners are never in another one).
    pub name: String,
    /// Its uid.
    pub uid: String,
}

impl ApiObject {
    /// Reads the identity of an object; `None` for something that is not one.
    pub fn new(json: Value) -> Option<ApiObject> {
        let text = |value: &Value| value.as_str().map(str::to_owned);
        let kind = text(json.get("kind")?)?;
        let metadata = json.get("metadata")?;
        let name = text(metadata.get("name")?)?;
        let controller = metadata
            .get("ownerReferences")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|owner| owner.get("controller") == Some(&Value::Bool(true)))
            .and_then(|owner| {
                Some(OwnerRef {
                    api_version: owner.get("apiVersion").and_then(text).unwrap_or_default(),
                    kind: text(owner.get("kind")?)?,
                    name: text(owner.get("name")?)?,
                    uid: text(owner.get("uid")?)?,
                })
            });
        Some(ApiObject {
            api_version: json.get("apiVersion").and_then(text).unwrap_or_default(),
            kind,
            namespace: metadata.get("namespace").and_then(text),
            name,
            uid: metadata.get("uid").and_then(text),
            controller,
            json,
        })
    }

    /// A label of the object.
    pub fn label(&self, key: &str) -> Option<&str> {
        self.json.pointer("/metadata/labels")?.get(key)?.as_str()
    }

    /// The workload kind, when the object is one (of a group the linter reads).
    fn workload_kind(&self, declared: &[&'static DeclaredKind]) -> Option<Kind> {
        Kind::of(&self.api_version, &self.kind, declared)
    }

    /// The Argo Workflows template a workflow's pod runs: the `name` of the template
    /// the controller gives its containers in `ARGO_TEMPLATE` (argo-workflows v4.1.2,
    /// `workflow/controller/workflowpod.go`, `createWorkflowPod`); `None` for another
    /// pod, or one whose template was offloaded to a ConfigMap.
    fn argo_template(&self) -> Option<String> {
        let spec = self.json.get("spec")?;
        ["initContainers", "containers"]
            .into_iter()
            .filter_map(|list| spec.get(list)?.as_array())
            .flatten()
            .filter_map(|container| container.get("env")?.as_array())
            .flatten()
            .filter(|var| var.get("name").and_then(Value::as_str) == Some("ARGO_TEMPLATE"))
            .find_map(|var| {
                let template: Value = serde_json::from_str(var.get("value")?.as_str()?).ok()?;
                Some(template.get("name")?.as_str()?.to_owned())
            })
    }
}

/// The workload a pod belongs to: `kind`/`name`, or for a kind whose every template is
/// a workload of its own (Argo Workflows), the template the pod runs, named as the
/// linter names it (`nightly/build`).
fn owner_of(pod: &ApiObject, kind: Kind, name: &str) -> WorkloadRef {
    let name = match (kind.layout(), pod.argo_template()) {
        (Layout::ArgoTemplates(_), Some(template)) => format!("{name}/{template}"),
        _ => name.to_owned(),
    };
    WorkloadRef {
        kind,
        name,
        namespace: pod.namespace.clone(),
    }
}

/// The objects of a `kubectl get -o json`: a `List`'s items, the object itself when one
/// was named, nothing for empty output (`--ignore-not-found` that found nothing).
pub fn parse_list(stdout: &[u8]) -> Result<Vec<ApiObject>, String> {
    Ok(parse_page(stdout)?.objects)
}

/// One page of a list, as the API server sends it (`kubectl get --raw
/// '/api/v1/pods?limit=500'`), or the output of `kubectl get -o json`.
#[derive(Debug, Default)]
pub struct Page {
    /// The items, each with the `kind` and `apiVersion` the API server leaves out of a
    /// list's items (the list's own, `PodList` giving `Pod`), as kubectl restores them.
    pub objects: Vec<ApiObject>,
    /// `metadata.continue`: where the next page starts, when there is one.
    pub next: Option<String>,
}

/// Reads a page of a list, or a single object; empty output is an empty page.
pub fn parse_page(stdout: &[u8]) -> Result<Page, String> {
    if stdout.iter().all(u8::is_ascii_whitespace) {
        return Ok(Page::default());
    }
    let value: Value = serde_json::from_slice(stdout)
        .map_err(|error| format!("kubectl printed something that is not JSON: {error}"))?;
    let Value::Object(mut map) = value else {
        return Err(format!(
            "kubectl printed JSON that is not an object, but {}",
            type_name(&value)
        ));
    };
    if !map.contains_key("items") {
        return Ok(Page {
            objects: ApiObject::new(Value::Object(map)).into_iter().collect(),
            next: None,
        });
    }
    let items = match map.remove("items") {
        Some(Value::Array(items)) => items,
        Some(Value::Null) => Vec::new(),
        Some(other) => {
            return Err(format!(
                "kubectl printed a list whose `items` is not a list, but {}",
                type_name(&other)
            ));
        }
        None => Vec::new(),
    };
    let text = |key: &str| map.get(key).and_then(Value::as_str).map(str::to_owned);
    let item_kind = text("kind").and_then(|kind| kind.strip_suffix("List").map(str::to_owned));
    let api_version = text("apiVersion");
    let next = map
        .get("metadata")
        .and_then(|metadata| metadata.get("continue"))
        .and_then(Value::as_str)
        .filter(|token| !token.is_empty())
        .map(str::to_owned);
    let objects = items
        .into_iter()
        .filter_map(|mut item| {
            if let Value::Object(fields) = &mut item {
                for (key, value) in [("kind", &item_kind), ("apiVersion", &api_version)] {
                    if let (false, Some(value)) = (fields.contains_key(key), value) {
                        fields.insert(key.to_owned(), Value::String(value.clone()));
                    }
                }
            }
            ApiObject::new(item)
        })
        .collect();
    Ok(Page { objects, next })
}

/// `a string`, `an array`: what a JSON value is, for messages.
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// An object to lint, and the workload its findings belong to when that is another.
#[derive(Debug)]
pub struct Linted {
    /// `Kind/namespace/name`, the name reports give it.
    pub name: String,
    /// Its kind, namespace and name.
    pub kind: String,
    /// `metadata.namespace`.
    pub namespace: Option<String>,
    /// `metadata.name`.
    pub object_name: String,
    /// Its JSON as `kubectl get -o json` prints it ([`json_text`]).
    pub text: String,
    /// The workload that owns it, for a pod that is not linted as itself.
    pub owner: Option<WorkloadRef>,
    /// The Istio revision its pod asks for (`istio.io/rev` on the pod or its template).
    pub istio_revision: Option<String>,
}

impl Linted {
    fn new(object: &ApiObject, owner: Option<WorkloadRef>) -> Linted {
        let label = if object.kind == "Pod" {
            "/metadata/labels/istio.io~1rev"
        } else {
            "/spec/template/metadata/labels/istio.io~1rev"
        };
        Linted {
            name: display_name(object),
            kind: object.kind.clone(),
            namespace: object.namespace.clone(),
            object_name: object.name.clone(),
            text: json_text(object),
            owner,
            istio_revision: object
                .json
                .pointer(label)
                .and_then(Value::as_str)
                .map(str::to_owned),
        }
    }
}

/// What a run reads: everything in its scope, or named objects and what they own.
#[derive(Debug)]
pub enum Wanted<'a> {
    /// Workloads in the scope, of these kinds only when any are given.
    Listed(&'a [Kind]),
    /// The objects named on the command line (`deploy/web`), by uid.
    Named(&'a HashSet<String>),
}

/// What is kept of an object that chains of controllers pass through: a few names,
/// not the object.
#[derive(Debug)]
struct Link {
    kind: Kind,
    name: String,
    controller: Option<String>,
}

/// A workload that is linted unless its controller turns up.
#[derive(Debug)]
struct Candidate {
    /// Its place in the order reports list workloads.
    rank: usize,
    /// The order it was read in.
    seq: usize,
    controller: Option<String>,
    linted: Linted,
}

/// Chooses what to lint among the objects of a cluster as they are read, keeping only
/// what it lints and a few names per object that it does not: workloads first, each
/// offered with [`Selection::workload`] (a kind's owners before it, so that what a
/// Deployment owns is dropped as it comes), then, once [`Selection::close_workloads`]
/// has settled which are linted, the pods, each offered with [`Selection::pod`], of
/// which one per controller revision is kept (per template, for a workflow's pods) and
/// attributed to the workload at the top of its chain. Kinds are read by `apiVersion`
/// and `kind`, with the kinds `declared`. [`Selection::kept_bytes`] is what the kept
/// objects weigh, for the run's bound on what it holds.
#[derive(Debug)]
pub struct Selection<'a> {
    wanted: Wanted<'a>,
    declared: &'a [&'static DeclaredKind],
    /// Every workload read (not the pods), by uid.
    links: HashMap<String, Link>,
    candidates: Vec<Candidate>,
    seq: usize,
    /// The uids of the workloads linted, once settled.
    roots: HashSet<String>,
    pods: Vec<Linted>,
    revisions: HashSet<(WorkloadRef, Option<String>, Option<String>)>,
    /// The objects named on the command line, by kind and uid.
    named: HashSet<(String, String)>,
    kept_bytes: u64,
}

impl<'a> Selection<'a> {
    /// An empty selection for `wanted`.
    pub fn new(wanted: Wanted<'a>, declared: &'a [&'static DeclaredKind]) -> Selection<'a> {
        Selection {
            wanted,
            declared,
            links: HashMap::new(),
            candidates: Vec::new(),
            seq: 0,
            roots: HashSet::new(),
            pods: Vec::new(),
            revisions: HashSet::new(),
            named: HashSet::new(),
            kept_bytes: 0,
        }
    }

    /// The bytes of the objects kept to lint so far.
    pub fn kept_bytes(&self) -> u64 {
        self.kept_bytes
    }

    /// Offers an object named on the command line (`deploy/web`, `pod/debug`), before
    /// the listing of its namespace, which holds it again: linted as a workload, a
    /// named pod too.
    pub fn named(&mut self, object: ApiObject) {
        if let Some(uid) = &object.uid {
            self.named.insert((object.kind.clone(), uid.clone()));
        }
        self.add_workload(object, 0);
    }

    /// Whether an object is not one offered already as named. Nothing else is offered
    /// twice: a list holds each object once, so only the named are remembered.
    fn first_time(&self, object: &ApiObject) -> bool {
        object.uid.as_ref().is_none_or(|uid| {
            self.named.is_empty() || !self.named.contains(&(object.kind.clone(), uid.clone()))
        })
    }

    fn kind_wanted(&self, kind: Kind) -> bool {
        match self.wanted {
            Wanted::Listed(kinds) => kinds.is_empty() || kinds.contains(&kind),
            Wanted::Named(_) => true,
        }
    }

    /// Offers a workload (any kind but Pod) at `rank`, the place of its kind in the
    /// order reports list workloads.
    pub fn workload(&mut self, object: ApiObject, rank: usize) {
        if self.first_time(&object) {
            self.add_workload(object, rank);
        }
    }

    fn add_workload(&mut self, object: ApiObject, rank: usize) {
        let Some(kind) = object.workload_kind(self.declared) else {
            return;
        };
        let controller = object.controller.as_ref().map(|owner| owner.uid.clone());
        if let Some(uid) = &object.uid {
            self.links.insert(
                uid.clone(),
                Link {
                    kind,
                    name: object.name.clone(),
                    controller: controller.clone(),
                },
            );
        }
        let linted = match self.wanted {
            Wanted::Named(named) => object.uid.as_ref().is_some_and(|uid| named.contains(uid)),
            // Its controller read already: what a Deployment owns is not linted again.
            Wanted::Listed(_) => {
                self.kind_wanted(kind)
                    && !controller
                        .as_ref()
                        .is_some_and(|uid| self.links.contains_key(uid))
            }
        };
        if linted {
            let linted = Linted::new(&object, None);
            self.kept_bytes += linted.text.len() as u64;
            self.candidates.push(Candidate {
                rank,
                seq: self.seq,
                controller,
                linted,
            });
            self.seq += 1;
        }
    }

    /// Settles which workloads are linted: those whose controller was not read at all
    /// (a selector left it out, or it is not a workload).
    pub fn close_workloads(&mut self) {
        let links = &self.links;
        let named = matches!(self.wanted, Wanted::Named(_));
        let mut dropped = 0u64;
        self.candidates.retain(|candidate| {
            let owned = !named
                && candidate
                    .controller
                    .as_ref()
                    .is_some_and(|uid| links.contains_key(uid));
            if owned {
                dropped += candidate.linted.text.len() as u64;
            }
            !owned
        });
        self.kept_bytes -= dropped;
        self.candidates
            .sort_by_key(|candidate| (candidate.rank, candidate.seq));
        self.roots = match self.wanted {
            Wanted::Named(named) => named.clone(),
            Wanted::Listed(_) => links
                .iter()
                .filter(|(_, link)| {
                    !link
                        .controller
                        .as_ref()
                        .is_some_and(|uid| links.contains_key(uid))
                })
                .map(|(uid, _)| uid.clone())
                .collect(),
        };
    }

    /// The workload at the top of a pod's chain of controllers, among those read.
    fn root_of(&self, pod: &ApiObject) -> Option<&Link> {
        let mut next = pod.controller.as_ref()?.uid.as_str();
        let mut steps = 0;
        loop {
            let link = self.links.get(next)?;
            if self.roots.contains(next) {
                return Some(link);
            }
            // A chain longer than there are objects loops.
            steps += 1;
            if steps > self.links.len() {
                return None;
            }
            next = link.controller.as_deref()?;
        }
    }

    /// Offers a pod, after [`Selection::close_workloads`].
    pub fn pod(&mut self, pod: ApiObject) {
        if !self.first_time(&pod) || pod.workload_kind(self.declared) != Some(Kind::Pod) {
            return;
        }
        let named = matches!(self.wanted, Wanted::Named(_));
        let owner = match (
            self.root_of(&pod)
                .map(|root| (root.kind, root.name.clone())),
            named,
        ) {
            _ if named && pod.uid.as_ref().is_some_and(|uid| self.roots.contains(uid)) => None,
            (Some((kind, name)), _) if self.kind_wanted(kind) || self.kind_wanted(Kind::Pod) => {
                Some(owner_of(&pod, kind, &name))
            }
            (Some(_), _) => return,
            (None, true) => return,
            // Its controller was not read (a selector left it out): name it from the
            // reference. A pod without one, or owned by what the linter does not read
            // (a Node, for a static pod), is linted as itself.
            (None, false) => match pod.controller.as_ref().and_then(|owner| {
                let kind = Kind::of(&owner.api_version, &owner.kind, self.declared)?;
                Some(owner_of(&pod, kind, &owner.name))
            }) {
                Some(owner) if self.kind_wanted(owner.kind) || self.kind_wanted(Kind::Pod) => {
                    Some(owner)
                }
                None if self.kind_wanted(Kind::Pod) => None,
                _ => return,
            },
        };
        if let Some(owner) = &owner {
            let revision = pod
                .label("pod-template-hash")
                .or_else(|| pod.label("rollouts-pod-template-hash"))
                .or_else(|| pod.label("controller-revision-hash"))
                .map(str::to_owned);
            let controller = pod.controller.as_ref().map(|owner| owner.uid.clone());
            if !self.revisions.insert((owner.clone(), controller, revision)) {
                return;
            }
        }
        let linted = Linted::new(&pod, owner);
        self.kept_bytes += linted.text.len() as u64;
        self.pods.push(linted);
    }

    /// What is linted: the workloads (in the order of their kinds, then as read), then
    /// the pods linted on a workload's behalf, then the pods linted as themselves; so
    /// that what the report holds back to attribute findings to owners comes first.
    pub fn finish(self) -> Vec<Linted> {
        let (owned, standalone): (Vec<Linted>, Vec<Linted>) =
            self.pods.into_iter().partition(|pod| pod.owner.is_some());
        self.candidates
            .into_iter()
            .map(|candidate| candidate.linted)
            .chain(owned)
            .chain(standalone)
            .collect()
    }
}

/// Chooses what to lint among `objects`, read all at once: [`Selection`] fed with the
/// workloads in order, then the pods.
pub fn select(
    objects: Vec<ApiObject>,
    wanted: Wanted,
    declared: &[&'static DeclaredKind],
) -> Vec<Linted> {
    let mut selection = Selection::new(wanted, declared);
    let (pods, workloads): (Vec<ApiObject>, Vec<ApiObject>) = objects
        .into_iter()
        .partition(|object| object.workload_kind(declared) == Some(Kind::Pod));
    for object in workloads {
        selection.workload(object, 0);
    }
    selection.close_workloads();
    for pod in pods {
        selection.pod(pod);
    }
    selection.finish()
}

/// The name reports give an object in place of a file: `Deployment/shop/web`.
pub fn display_name(object: &ApiObject) -> String {
    match &object.namespace {
        Some(namespace) => format!("{}/{namespace}/{}", object.kind, object.name),
        None => format!("{}/{}", object.kind, object.name),
    }
}

/// The object as `kubectl get KIND NAME -o json` prints it (sorted keys, four spaces),
/// so that a finding's line and column point into what the user sees there.
pub fn json_text(object: &ApiObject) -> String {
    use serde::Serialize;
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    object
        .json
        .serialize(&mut serializer)
        .expect("a JSON value serializes");
    out.push(b'\n');
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(kind: &str, name: &str, uid: &str, owner: Option<(&str, &str, &str)>) -> ApiObject {
        let mut metadata = json!({"name": name, "namespace": "shop", "uid": uid});
        if let Some((kind, name, uid)) = owner {
            metadata["ownerReferences"] = json!([
                {"apiVersion": "v1", "kind": "Other", "name": "x", "uid": "other"},
                {"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": uid, "controller": true}
            ]);
        }
        ApiObject::new(json!({"kind": kind, "metadata": metadata})).unwrap()
    }

    /// A ReplicaSet that Deployment `deployment` (uid `deployment_uid`) controls.
    fn replica_set(name: &str, uid: &str, deployment: &str, deployment_uid: &str) -> ApiObject {
        object(
            "ReplicaSet",
            name,
            uid,
            Some(("Deployment", deployment, deployment_uid)),
        )
    }

    fn names(linted: &[Linted]) -> Vec<(String, Option<String>)> {
        linted
            .iter()
            .map(|l| {
                (
                    l.name.clone(),
                    l.owner.as_ref().map(|o| format!("{}/{}", o.kind, o.name)),
                )
            })
            .collect()
    }

    fn with_hash(mut pod: ApiObject, hash: &str) -> ApiObject {
        pod.json["metadata"]["labels"] = json!({"pod-template-hash": hash});
        pod
    }

    #[test]
    fn pods_belong_to_the_top_of_their_chain_once_per_revision() {
        let objects = vec![
            object("Deployment", "web", "d1", None),
            replica_set("web-1", "r1", "web", "d1"),
            replica_set("web-2", "r2", "web", "d1"),
            object("CronJob", "nightly", "c1", None),
            object("Job", "nightly-1", "j1", Some(("CronJob", "nightly", "c1"))),
            with_hash(
                object("Pod", "web-1-a", "p1", Some(("ReplicaSet", "web-1", "r1"))),
                "1",
            ),
            with_hash(
                object("Pod", "web-1-b", "p2", Some(("ReplicaSet", "web-1", "r1"))),
                "1",
            ),
            with_hash(
                object("Pod", "web-2-a", "p3", Some(("ReplicaSet", "web-2", "r2"))),
                "2",
            ),
            object("Pod", "nightly-1-x", "p4", Some(("Job", "nightly-1", "j1"))),
            object("Pod", "debug", "p5", None),
            object("Pod", "kube-proxy-x", "p6", Some(("Node", "node-1", "n1"))),
        ];
        let linted = select(objects, Wanted::Listed(&[]), &[]);
        let owner = |kind: &str, name: &str| Some(format!("{kind}/{name}"));
        assert_eq!(
            names(&linted),
            [
                ("Deployment/shop/web".into(), None),
                ("CronJob/shop/nightly".into(), None),
                ("Pod/shop/web-1-a".into(), owner("Deployment", "web")),
                ("Pod/shop/web-2-a".into(), owner("Deployment", "web")),
                ("Pod/shop/nightly-1-x".into(), owner("CronJob", "nightly")),
                ("Pod/shop/debug".into(), None),
                ("Pod/shop/kube-proxy-x".into(), None),
            ]
        );
    }

    /// An object of `api_version`, owned by `owner` (`apiVersion`, kind, name, uid).
    fn typed(
        api_version: &str,
        kind: &str,
        name: &str,
        owner: Option<(&str, &str, &str, &str)>,
    ) -> ApiObject {
        let mut json = json!({"apiVersion": api_version, "kind": kind,
            "metadata": {"name": name, "namespace": "apps", "uid": name}});
        if let Some((api_version, kind, name, uid)) = owner {
            json["metadata"]["ownerReferences"] = json!([{"apiVersion": api_version,
                "kind": kind, "name": name, "uid": uid, "controller": true}]);
        }
        ApiObject::new(json).unwrap()
    }

    #[test]
    fn owners_are_read_by_api_version() {
        let argo = "argoproj.io/v1alpha1";
        let template = r#"{"name":"build","container":{"image":"alpine"}}"#;
        let mut step = typed("v1", "Pod", "etl", Some((argo, "Workflow", "etl", "etl")));
        step.json["spec"] = json!({"containers": [{"name": "main",
            "env": [{"name": "ARGO_TEMPLATE", "value": template}]}]});
        let objects = vec![
            typed(argo, "Rollout", "web", None),
            typed(
                "apps/v1",
                "ReplicaSet",
                "web-1",
                Some((argo, "Rollout", "web", "web")),
            ),
            typed(
                "v1",
                "Pod",
                "web-1-a",
                Some(("apps/v1", "ReplicaSet", "web-1", "web-1")),
            ),
            typed(argo, "Workflow", "etl", None),
            step,
            // Another group's Deployment is no Deployment; its pod is itself.
            typed("example.com/v1", "Deployment", "odd", None),
            typed(
                "v1",
                "Pod",
                "odd-x",
                Some(("example.com/v1", "Deployment", "odd", "odd")),
            ),
        ];
        let linted = select(objects, Wanted::Listed(&[]), &[]);
        assert_eq!(
            names(&linted),
            [
                ("Rollout/apps/web".into(), None),
                ("Workflow/apps/etl".into(), None),
                ("Pod/apps/web-1-a".into(), Some("Rollout/web".into())),
                ("Pod/apps/etl".into(), Some("Workflow/etl/build".into())),
                ("Pod/apps/odd-x".into(), None),
            ]
        );
    }

    #[test]
    fn an_owner_that_was_not_read_is_named_from_the_reference() {
        let objects = vec![object(
            "Pod",
            "web-1-a",
            "p1",
            Some(("ReplicaSet", "web-1", "r1")),
        )];
        let linted = select(objects, Wanted::Listed(&[]), &[]);
        assert_eq!(
            names(&linted),
            [("Pod/shop/web-1-a".into(), Some("ReplicaSet/web-1".into()))]
        );
    }

    #[test]
    fn named_objects_bring_their_own_pods_only() {
        let objects = vec![
            object("Deployment", "web", "d1", None),
            object("Deployment", "api", "d2", None),
            replica_set("web-1", "r1", "web", "d1"),
            replica_set("api-1", "r2", "api", "d2"),
            object("Pod", "web-1-a", "p1", Some(("ReplicaSet", "web-1", "r1"))),
            object("Pod", "api-1-a", "p2", Some(("ReplicaSet", "api-1", "r2"))),
            object("Pod", "debug", "p3", None),
        ];
        let named = HashSet::from(["d1".to_owned()]);
        let linted = select(objects, Wanted::Named(&named), &[]);
        assert_eq!(
            names(&linted),
            [
                ("Deployment/shop/web".into(), None),
                ("Pod/shop/web-1-a".into(), Some("Deployment/web".into())),
            ]
        );
    }

    #[test]
    fn kinds_limit_the_workloads_and_their_pods() {
        let objects = vec![
            object("Deployment", "web", "d1", None),
            object("StatefulSet", "db", "s1", None),
            object("Pod", "db-0", "p1", Some(("StatefulSet", "db", "s1"))),
            object("Pod", "web-x", "p2", Some(("ReplicaSet", "web-1", "r9"))),
        ];
        let linted = select(objects, Wanted::Listed(&[Kind::StatefulSet]), &[]);
        assert_eq!(
            names(&linted),
            [
                ("StatefulSet/shop/db".into(), None),
                ("Pod/shop/db-0".into(), Some("StatefulSet/db".into())),
            ]
        );
    }

    #[test]
    fn lists_named_objects_and_empty_output() {
        assert!(parse_list(b"").unwrap().is_empty());
        let one = parse_list(br#"{"kind": "Pod", "metadata": {"name": "a"}}"#).unwrap();
        assert_eq!(one[0].name, "a");
        let list = parse_list(
            br#"{"kind": "List", "items": [{"kind": "Pod", "metadata": {"name": "a"}}, {"kind": "Pod", "metadata": {"name": "b"}}]}"#,
        )
        .unwrap();
        assert_eq!(list.len(), 2);
        assert!(parse_list(b"error").is_err());
        assert!(parse_list(b"[1, 2]").is_err());
        assert!(parse_list(br#"{"kind": "List", "items": 3}"#).is_err());
    }

    #[test]
    fn a_page_gets_its_items_kind_back_and_says_where_the_next_starts() {
        let page = parse_page(
            br#"{"kind": "DeploymentList", "apiVersion": "apps/v1",
                "metadata": {"continue": "eyJ2IjoxfQ"},
                "items": [{"metadata": {"name": "web", "uid": "1"}}]}"#,
        )
        .unwrap();
        assert_eq!(page.next.as_deref(), Some("eyJ2IjoxfQ"));
        assert_eq!(page.objects[0].kind, "Deployment");
        assert_eq!(page.objects[0].api_version, "apps/v1");
        let last = parse_page(br#"{"kind": "PodList", "apiVersion": "v1", "metadata": {"continue": ""}, "items": []}"#)
            .unwrap();
        assert_eq!(last.next, None);
    }

    #[test]
    fn json_text_is_kubectls_layout() {
        let pod =
            ApiObject::new(json!({"metadata": {"name": "a"}, "kind": "Pod", "apiVersion": "v1"}))
                .unwrap();
        assert_eq!(
            json_text(&pod),
            "{\n    \"apiVersion\": \"v1\",\n    \"kind\": \"Pod\",\n    \"metadata\": {\n        \"name\": \"a\"\n    }\n}\n"
        );
    }
}
