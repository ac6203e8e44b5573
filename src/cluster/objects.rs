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
    if stdout.iter().all(u8::is_ascii_whitespace) {
        return Ok(Vec::new());
    }
    let value: Value = serde_json::from_slice(stdout)
        .map_err(|error| format!("kubectl printed something that is not JSON: {error}"))?;
    let items = match value {
        Value::Object(mut map) if map.contains_key("items") => match map.remove("items") {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        },
        other => vec![other],
    };
    Ok(items.into_iter().filter_map(ApiObject::new).collect())
}

/// An object to lint, and the workload its findings belong to when that is another.
#[derive(Debug)]
pub struct Linted {
    /// The object.
    pub object: ApiObject,
    /// The workload that owns it, for a pod that is not linted as itself.
    pub owner: Option<WorkloadRef>,
}

/// What a run reads: everything in its scope, or named objects and what they own.
#[derive(Debug)]
pub enum Wanted<'a> {
    /// Workloads in the scope, of these kinds only when any are given.
    Listed(&'a [Kind]),
    /// The objects named on the command line (`deploy/web`), by uid.
    Named(&'a HashSet<String>),
}

/// Chooses what to lint among `objects` and attributes each pod to its owner: the
/// workloads first (in kubectl's order), then one pod per controller revision (per
/// template, for a workflow's pods). Kinds are read by `apiVersion` and `kind`, with
/// the kinds `declared`.
pub fn select(
    objects: Vec<ApiObject>,
    wanted: &Wanted,
    declared: &[&'static DeclaredKind],
) -> Vec<Linted> {
    let by_uid: HashMap<&str, &ApiObject> = objects
        .iter()
        .filter_map(|object| Some((object.uid.as_deref()?, object)))
        .collect();
    let is_root = |object: &ApiObject| match wanted {
        Wanted::Named(named) => object.uid.as_ref().is_some_and(|uid| named.contains(uid)),
        Wanted::Listed(_) => !object
            .controller
            .as_ref()
            .is_some_and(|owner| by_uid.contains_key(owner.uid.as_str())),
    };
    // The root a pod's chain of controllers leads to.
    let root_of = |pod: &ApiObject| -> Option<&ApiObject> {
        let mut current = pod;
        let mut seen = HashSet::new();
        while let Some(owner) = &current.controller {
            let next = by_uid.get(owner.uid.as_str())?;
            if !seen.insert(owner.uid.as_str()) {
                return None;
            }
            if is_root(next) {
                return Some(next);
            }
            current = next;
        }
        None
    };
    let kind_wanted = |kind: Kind| match wanted {
        Wanted::Listed(kinds) => kinds.is_empty() || kinds.contains(&kind),
        Wanted::Named(_) => true,
    };
    let mut workloads = Vec::new();
    let mut pods = Vec::new();
    let mut revisions = HashSet::new();
    for (index, object) in objects.iter().enumerate() {
        let Some(kind) = object.workload_kind(declared) else {
            continue;
        };
        if kind != Kind::Pod {
            if is_root(object) && kind_wanted(kind) {
                workloads.push((index, None));
            }
            continue;
        }
        let owner = match (wanted, root_of(object)) {
            (Wanted::Named(_), _) if is_root(object) => None,
            (_, Some(root)) => match root.workload_kind(declared) {
                Some(kind) if kind_wanted(kind) || kind_wanted(Kind::Pod) => {
                    Some(owner_of(object, kind, &root.name))
                }
                // Owned by what the linter does not read (another group's kind): the
                // pod is itself.
                None if kind_wanted(Kind::Pod) => None,
                _ => continue,
            },
            (Wanted::Named(_), None) => continue,
            // Its controller was not read (a selector left it out): name it from the
            // reference. A pod without one, or owned by what the linter does not read
            // (a Node, for a static pod), is linted as itself.
            (Wanted::Listed(_), None) => {
                match object.controller.as_ref().and_then(|owner| {
                    let kind = Kind::of(&owner.api_version, &owner.kind, declared)?;
                    Some(owner_of(object, kind, &owner.name))
                }) {
                    Some(owner) if kind_wanted(owner.kind) || kind_wanted(Kind::Pod) => Some(owner),
                    Some(_) => continue,
                    None if kind_wanted(Kind::Pod) => None,
                    None => continue,
                }
            }
        };
        if let Some(owner) = &owner {
            let revision = object
                .label("pod-template-hash")
                .or_else(|| object.label("rollouts-pod-template-hash"))
                .or_else(|| object.label("controller-revision-hash"));
            let controller = object.controller.as_ref().map(|owner| owner.uid.as_str());
            if !revisions.insert((owner.clone(), controller, revision)) {
                continue;
            }
        }
        pods.push((index, owner));
    }
    let mut objects: Vec<Option<ApiObject>> = objects.into_iter().map(Some).collect();
    workloads
        .into_iter()
        .chain(pods)
        .filter_map(|(index, owner)| {
            Some(Linted {
                object: objects[index].take()?,
                owner,
            })
        })
        .collect()
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

    fn names(linted: &[Linted]) -> Vec<(String, Option<String>)> {
        linted
            .iter()
            .map(|l| {
                (
                    display_name(&l.object),
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
            object(
                "ReplicaSet",
                "web-1",
                "r1",
                Some(("Deployment", "web", "d1")),
            ),
            object(
                "ReplicaSet",
                "web-2",
                "r2",
                Some(("Deployment", "web", "d1")),
            ),
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
        let linted = select(objects, &Wanted::Listed(&[]), &[]);
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
        let linted = select(objects, &Wanted::Listed(&[]), &[]);
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
        let linted = select(objects, &Wanted::Listed(&[]), &[]);
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
            object(
                "ReplicaSet",
                "web-1",
                "r1",
                Some(("Deployment", "web", "d1")),
            ),
            object(
                "ReplicaSet",
                "api-1",
                "r2",
                Some(("Deployment", "api", "d2")),
            ),
            object("Pod", "web-1-a", "p1", Some(("ReplicaSet", "web-1", "r1"))),
            object("Pod", "api-1-a", "p2", Some(("ReplicaSet", "api-1", "r2"))),
            object("Pod", "debug", "p3", None),
        ];
        let named = HashSet::from(["d1".to_owned()]);
        let linted = select(objects, &Wanted::Named(&named), &[]);
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
        let linted = select(objects, &Wanted::Listed(&[Kind::StatefulSet]), &[]);
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
