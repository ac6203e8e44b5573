//! The workload kinds: Kubernetes' own, the custom resources of the controllers mesh
//! users run (Argo, Knative, KEDA, OpenKruise), and the kinds a config file declares.
//! One row per kind says where its pod lies and whether the pod runs to completion.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::{Mutex, OnceLock};

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
    /// Argo Rollouts `Rollout` (`argoproj.io`).
    Rollout,
    /// Argo Workflows `Workflow`: one run-to-completion pod per container or script
    /// template.
    Workflow,
    /// Argo Workflows `WorkflowTemplate`.
    WorkflowTemplate,
    /// Argo Workflows `ClusterWorkflowTemplate`.
    ClusterWorkflowTemplate,
    /// Argo Workflows `CronWorkflow` (`spec.workflowSpec`).
    CronWorkflow,
    /// Knative Serving `Service` (`serving.knative.dev`).
    KnativeService,
    /// Knative Serving `Configuration`.
    KnativeConfiguration,
    /// Knative Serving `Revision` (its spec is the pod spec).
    KnativeRevision,
    /// KEDA `ScaledJob` (`keda.sh`, `spec.jobTargetRef`: a Job spec).
    ScaledJob,
    /// OpenKruise `CloneSet` (`apps.kruise.io`).
    CloneSet,
    /// OpenKruise Advanced `StatefulSet` (`apps.kruise.io`).
    KruiseStatefulSet,
    /// OpenKruise Advanced `DaemonSet` (`apps.kruise.io`).
    KruiseDaemonSet,
    /// OpenKruise `BroadcastJob`: a Job on every node.
    BroadcastJob,
    /// A kind `workloadKinds` declares.
    Declared(&'static DeclaredKind),
}

/// Where an object keeps its pod.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// The object is the pod.
    Pod,
    /// A PodTemplateSpec (metadata and spec) at this dotted path.
    Template(&'static str),
    /// A bare PodSpec at this dotted path; the pod's metadata is the object's.
    Spec(&'static str),
    /// Argo Workflows: a pod per container or script template of the workflow spec at
    /// this dotted path.
    ArgoTemplates(&'static str),
}

/// One built-in kind: its identity in manifests and in the API.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// The kind.
    pub kind: Kind,
    /// `kind:` as written.
    pub name: &'static str,
    /// The API group (`""` for the core group).
    pub group: &'static str,
    /// Where its pod lies.
    pub layout: Layout,
    /// Whether its pods run to completion (Job semantics).
    pub completes: bool,
}

const fn row(
    kind: Kind,
    name: &'static str,
    group: &'static str,
    layout: Layout,
    completes: bool,
) -> Row {
    Row {
        kind,
        name,
        group,
        layout,
        completes,
    }
}

const TEMPLATE: Layout = Layout::Template("spec.template");

/// Every built-in kind, Kubernetes' own first.
pub const ROWS: &[Row] = &[
    row(Kind::Pod, "Pod", "", Layout::Pod, false),
    row(Kind::Deployment, "Deployment", "apps", TEMPLATE, false),
    row(Kind::StatefulSet, "StatefulSet", "apps", TEMPLATE, false),
    row(Kind::DaemonSet, "DaemonSet", "apps", TEMPLATE, false),
    row(Kind::ReplicaSet, "ReplicaSet", "apps", TEMPLATE, false),
    row(
        Kind::ReplicationController,
        "ReplicationController",
        "",
        TEMPLATE,
        false,
    ),
    row(Kind::Job, "Job", "batch", TEMPLATE, true),
    row(
        Kind::CronJob,
        "CronJob",
        "batch",
        Layout::Template("spec.jobTemplate.spec.template"),
        true,
    ),
    row(Kind::Rollout, "Rollout", "argoproj.io", TEMPLATE, false),
    row(
        Kind::Workflow,
        "Workflow",
        "argoproj.io",
        Layout::ArgoTemplates("spec"),
        true,
    ),
    row(
        Kind::WorkflowTemplate,
        "WorkflowTemplate",
        "argoproj.io",
        Layout::ArgoTemplates("spec"),
        true,
    ),
    row(
        Kind::ClusterWorkflowTemplate,
        "ClusterWorkflowTemplate",
        "argoproj.io",
        Layout::ArgoTemplates("spec"),
        true,
    ),
    row(
        Kind::CronWorkflow,
        "CronWorkflow",
        "argoproj.io",
        Layout::ArgoTemplates("spec.workflowSpec"),
        true,
    ),
    row(
        Kind::KnativeService,
        "Service",
        "serving.knative.dev",
        TEMPLATE,
        false,
    ),
    row(
        Kind::KnativeConfiguration,
        "Configuration",
        "serving.knative.dev",
        TEMPLATE,
        false,
    ),
    row(
        Kind::KnativeRevision,
        "Revision",
        "serving.knative.dev",
        Layout::Spec("spec"),
        false,
    ),
    row(
        Kind::ScaledJob,
        "ScaledJob",
        "keda.sh",
        Layout::Template("spec.jobTargetRef.template"),
        true,
    ),
    row(
        Kind::CloneSet,
        "CloneSet",
        "apps.kruise.io",
        TEMPLATE,
        false,
    ),
    row(
        Kind::KruiseStatefulSet,
        "StatefulSet",
        "apps.kruise.io",
        TEMPLATE,
        false,
    ),
    row(
        Kind::KruiseDaemonSet,
        "DaemonSet",
        "apps.kruise.io",
        TEMPLATE,
        false,
    ),
    row(
        Kind::BroadcastJob,
        "BroadcastJob",
        "apps.kruise.io",
        TEMPLATE,
        true,
    ),
];

impl Kind {
    /// Kubernetes' own kinds, the ones `Kind::parse` reads.
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

    /// The row of a built-in kind; `None` for a declared one.
    pub fn row(self) -> Option<&'static Row> {
        ROWS.iter().find(|row| row.kind == self)
    }

    /// The `kind` string of manifests.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Declared(declared) => &declared.kind,
            kind => kind.row().map_or("", |row| row.name),
        }
    }

    /// The API group, `""` for the core group.
    pub fn group(self) -> &'static str {
        match self {
            Kind::Declared(declared) => &declared.group,
            kind => kind.row().map_or("", |row| row.group),
        }
    }

    /// Looks up one of Kubernetes' own kinds by its `kind` string.
    pub fn parse(kind: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == kind)
    }

    /// The built-in kind of an object, by `apiVersion` and `kind`. Kubernetes' kinds
    /// live in the core group or in groups without a dot (`apps`, `batch`,
    /// `extensions`), so a custom resource that reuses a name (`batch.volcano.sh/v1alpha1
    /// Job`) is not read as one; the custom kinds must be in their own group.
    pub fn recognise(api_version: &str, kind: &str) -> Option<Kind> {
        let group = group_of(api_version);
        ROWS.iter()
            .find(|row| {
                row.name == kind
                    && if row.group.contains('.') {
                        row.group == group
                    } else {
                        !group.contains('.')
                    }
            })
            .map(|row| row.kind)
    }

    /// The kind of an object, by `apiVersion` and `kind`: one `declared` names (a config
    /// file may declare a kind the linter also knows, and its entry wins), else a
    /// built-in one.
    pub fn of(api_version: &str, kind: &str, declared: &[&'static DeclaredKind]) -> Option<Kind> {
        declared
            .iter()
            .find(|d| d.matches(api_version, kind))
            .map(|d| Kind::Declared(d))
            .or_else(|| Kind::recognise(api_version, kind))
    }

    /// Whether its pods run to completion, so that a sidecar that never exits blocks them.
    pub fn runs_to_completion(self) -> bool {
        match self {
            Kind::Declared(declared) => declared.runs_to_completion,
            kind => kind.row().is_some_and(|row| row.completes),
        }
    }

    /// Where its pod lies in an object.
    pub fn layout(self) -> Layout {
        match self {
            Kind::Declared(declared) => match &declared.pod {
                PodPath::Template(path) => Layout::Template(path),
                PodPath::Spec(path) => Layout::Spec(path),
            },
            kind => kind.row().map_or(Layout::Pod, |row| row.layout),
        }
    }

    /// Whether `workloadKinds` declares it.
    pub fn is_declared(self) -> bool {
        matches!(self, Kind::Declared(_))
    }

    /// Whether the kind is a custom resource (built in or declared), not Kubernetes' own.
    pub fn is_custom(self) -> bool {
        self.group().contains('.')
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// The group of an `apiVersion`: `apps` of `apps/v1`, `""` of `v1`.
pub fn group_of(api_version: &str) -> &str {
    api_version.split_once('/').map_or("", |(group, _)| group)
}

/// Where a declared kind keeps its pod.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PodPath {
    /// `podTemplate:` a dotted path to a PodTemplateSpec.
    Template(String),
    /// `podSpec:` a dotted path to a bare PodSpec.
    Spec(String),
}

/// A kind of `workloadKinds`: a custom resource whose pod the linter reads where the
/// entry says.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeclaredKind {
    /// The API group (`platform.example.com`).
    pub group: String,
    /// The version, when the entry names one; any version otherwise.
    pub version: Option<String>,
    /// `kind:` as written.
    pub kind: String,
    /// Where its pod lies.
    pub pod: PodPath,
    /// Whether its pods run to completion (Job semantics).
    pub runs_to_completion: bool,
}

impl DeclaredKind {
    /// Whether an object of `apiVersion` and `kind` is of this kind.
    pub fn matches(&self, api_version: &str, kind: &str) -> bool {
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        kind == self.kind
            && group == self.group
            && self.version.as_deref().is_none_or(|want| want == version)
    }

    /// The process-wide copy of this declaration. [`Kind`] is `Copy` so that every
    /// stage can pass it around freely; a declared kind is therefore kept once, for the
    /// life of the process, like the static rows of the built-in kinds (a config file
    /// declares a handful).
    pub fn interned(self) -> &'static DeclaredKind {
        static INTERNED: OnceLock<Mutex<BTreeSet<&'static DeclaredKind>>> = OnceLock::new();
        let mut set = INTERNED
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(existing) = set.get(&self) {
            return existing;
        }
        let leaked: &'static DeclaredKind = Box::leak(Box::new(self));
        set.insert(leaked);
        leaked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_kinds_need_their_group() {
        assert_eq!(
            Kind::recognise("argoproj.io/v1alpha1", "Rollout"),
            Some(Kind::Rollout)
        );
        assert_eq!(Kind::recognise("example.com/v1", "Rollout"), None);
        assert_eq!(
            Kind::recognise("apps.kruise.io/v1beta1", "StatefulSet"),
            Some(Kind::KruiseStatefulSet)
        );
        assert_eq!(
            Kind::recognise("apps/v1", "StatefulSet"),
            Some(Kind::StatefulSet)
        );
        assert_eq!(Kind::recognise("batch.volcano.sh/v1alpha1", "Job"), None);
        assert_eq!(
            Kind::recognise("serving.knative.dev/v1", "Service"),
            Some(Kind::KnativeService)
        );
        assert_eq!(Kind::recognise("v1", "Service"), None);
        assert_eq!(
            Kind::recognise("extensions/v1beta1", "Deployment"),
            Some(Kind::Deployment)
        );
    }

    #[test]
    fn declared_kinds_are_kept_once() {
        let declared = || DeclaredKind {
            group: "platform.example.com".into(),
            version: None,
            kind: "WebApp".into(),
            pod: PodPath::Template("spec.runtime.template".into()),
            runs_to_completion: false,
        };
        let (a, b) = (declared().interned(), declared().interned());
        assert!(std::ptr::eq(a, b));
        assert!(a.matches("platform.example.com/v2", "WebApp"));
        assert!(!a.matches("other.example.com/v1", "WebApp"));
        let pinned = DeclaredKind {
            version: Some("v1".into()),
            ..declared()
        };
        assert!(pinned.matches("platform.example.com/v1", "WebApp"));
        assert!(!pinned.matches("platform.example.com/v2", "WebApp"));
    }
}
