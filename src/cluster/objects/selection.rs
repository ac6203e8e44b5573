//! Which of the objects read are linted, on whose behalf.
//!
//! Controllers own what they create: a Deployment its ReplicaSets, a ReplicaSet its
//! pods, a CronJob its Jobs (`metadata.ownerReferences`, the one with `controller:
//! true`). A workload is linted from its own pod template; what it owns is not linted
//! again, except its pods, which show what the injector really produced, and whose
//! findings belong to the workload at the top of the chain. Pods of one controller
//! revision (`pod-template-hash`, `controller-revision-hash`) come from one template,
//! so one of them speaks for all.

use std::collections::{HashMap, HashSet};

use super::ApiObject;
use super::linted::{Linted, owner_of};
use crate::workload::{DeclaredKind, Kind, WorkloadRef};

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
}
