//! Before the pipeline, for `--cluster`: what is deployed, read from a live cluster.
//!
//! Everything is read through the user's own kubectl ([`kubectl`]), every call bounded
//! in time and size: the server version, the context, the resources the API serves,
//! then side by side the workloads and pods in scope (page by page, one listing per
//! kind), the namespaces, the nodes' kubelet versions, istiod, Istio's revision tags
//! and Linkerd's config, and last the ConfigMaps of the Istio revisions in use. The objects become the inputs of the
//! loader, each named `Kind/namespace/name` ([`objects`]); what the cluster says about
//! its environment becomes a layer of the settings ([`profile`]). What cannot be read
//! for the profile (RBAC) falls back to the offline default with a note; workloads that
//! cannot be read are input errors, kubectl's own words.

pub mod kinds;
pub mod kubectl;
pub mod objects;
pub mod profile;
mod read;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde::Serialize;

use crate::workload::{DeclaredKind, Kind, WorkloadRef};
use kubectl::{Bounds, Connection};
use profile::Profile;

pub use read::read;

/// What to read.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// kubectl's flags for reaching the cluster.
    pub connection: Connection,
    /// `-n`; without it, the context's namespace, else `default`, as kubectl does.
    pub namespace: Option<String>,
    /// `-A`.
    pub all_namespaces: bool,
    /// `-l`.
    pub selector: Option<String>,
    /// The objects asked for.
    pub targets: Targets,
    /// The kinds `workloadKinds` declares: read too where the server serves them.
    pub declared: Vec<&'static DeclaredKind>,
    /// The time and size every kubectl call is bounded by.
    pub bounds: Bounds,
    /// Objects per page of a list (`--chunk-size`); `None` or 0 reads each list whole.
    pub chunk_size: Option<u64>,
}

/// The objects a run asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Targets {
    /// Every workload in scope.
    #[default]
    All,
    /// The workloads of these kinds (`lint --cluster deployments,jobs`).
    Kinds(Vec<Type>),
    /// These objects, by kind and name (`deploy/web`).
    Named(Vec<(Type, String)>),
}

/// A `TYPE` of the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    /// A built-in kind, by any of its names (`rollout`, `ro`).
    Kind(Kind),
    /// A name that may be one the server gives a kind `workloadKinds` declares (its
    /// plural or short name is known from discovery only).
    Served(String),
}

/// The cluster and context objects were read from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Identity {
    /// The kubeconfig's name for the cluster.
    pub cluster: Option<String>,
    /// The kubeconfig context.
    pub context: Option<String>,
}

/// Where a linted object was read, as reports describe it (JSON `source`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ObjectSource {
    /// The kubeconfig's name for the cluster.
    pub cluster: Option<String>,
    /// The kubeconfig context.
    pub context: Option<String>,
    /// The object's namespace.
    pub namespace: Option<String>,
    /// The object's kind.
    pub kind: String,
    /// The object's name.
    pub name: String,
}

impl ObjectSource {
    /// Where `object` was read.
    pub fn of(object: &objects::ApiObject, identity: &Identity) -> ObjectSource {
        ObjectSource {
            cluster: identity.cluster.clone(),
            context: identity.context.clone(),
            namespace: object.namespace.clone(),
            kind: object.kind.clone(),
            name: object.name.clone(),
        }
    }
}

/// One object for the loader.
#[derive(Clone, Debug)]
pub struct ClusterObject {
    /// The name reports give it in place of a file: `Deployment/shop/web`.
    pub name: Arc<str>,
    /// Its JSON, as `kubectl get KIND NAME -o json` prints it; empty once it has moved
    /// into the run's inputs.
    pub text: String,
    /// Where it was read.
    pub source: ObjectSource,
    /// The workload its findings belong to, for a pod linted on its owner's behalf.
    pub owner: Option<WorkloadRef>,
}

/// A kubectl call that failed, in kubectl's own words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KubectlError {
    /// The command, as the user could type it.
    pub command: String,
    /// What kubectl printed on standard error, verbatim.
    pub message: String,
    /// Whether the user saw it already, as kubectl printed it.
    pub shown: bool,
    /// Whether the read stopped after this call because what it held reached the
    /// input limit, rather than because the call failed.
    pub limit: bool,
}

/// Everything read from the cluster.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// The cluster and context.
    pub identity: Identity,
    /// The objects to lint: workloads first, then pods.
    pub objects: Vec<ClusterObject>,
    /// The environment the cluster states.
    pub profile: Profile,
    /// Workloads that could not be read; when the first call fails, the only entry.
    pub errors: Vec<KubectlError>,
    /// What the profile could not read, and what is assumed instead.
    pub notes: Vec<String>,
    /// The namespace read (`-n`, else the context's, else `default`): where `kubectl
    /// apply` puts an object that names none. `None` when the context was not read.
    pub namespace: Option<String>,
    /// What may have left workloads unlinted: a kind the user may not list, a scope
    /// with no workload at all.
    pub hidden: Vec<Hidden>,
}

/// A note that workloads may have gone unlinted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hidden {
    /// The call it concerns; `None` for the whole read.
    pub subject: Option<String>,
    /// What happened.
    pub message: String,
}

/// The cluster objects of a run, by the name reports give them, for the formats that
/// describe an object's source (JSON `source`, SARIF logical locations).
#[derive(Clone, Debug, Default)]
pub struct Sources {
    objects: HashMap<Arc<str>, ObjectSource>,
    commands: HashSet<String>,
}

impl Sources {
    /// The source of the object reports name `name`.
    pub fn object(&self, name: &str) -> Option<&ObjectSource> {
        self.objects.get(name)
    }

    /// Whether `name` is a kubectl command whose failure is reported as an input error,
    /// rather than a file.
    pub fn is_command(&self, name: &str) -> bool {
        self.commands.contains(name)
    }
}

impl Snapshot {
    /// The sources of its objects (those linted, and those the profile was read from,
    /// which errors may name) and the commands of its errors.
    pub fn sources(&self) -> Sources {
        let linted = self
            .objects
            .iter()
            .map(|object| (object.name.clone(), object.source.clone()));
        let profile = self
            .profile
            .mesh_objects()
            .map(|mesh| (mesh.text.file.clone(), mesh.object.clone()));
        Sources {
            objects: linted.chain(profile).collect(),
            commands: self.errors.iter().map(|e| e.command.clone()).collect(),
        }
    }

    /// The objects whose reports are attributed together: the workloads and the pods
    /// linted on their behalf (all but the pods linted as themselves).
    pub fn owning(&self) -> HashSet<Arc<str>> {
        self.objects
            .iter()
            .filter(|object| object.owner.is_some() || object.source.kind != "Pod")
            .map(|object| object.name.clone())
            .collect()
    }

    /// The workload each object's findings belong to, for those that have one.
    pub fn owners(&self) -> HashMap<Arc<str>, WorkloadRef> {
        self.objects
            .iter()
            .filter_map(|object| Some((object.name.clone(), object.owner.clone()?)))
            .collect()
    }
}
