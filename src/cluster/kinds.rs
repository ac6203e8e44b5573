//! The workload kinds as the API serves them: group, resource and short names, one row
//! per kind, and the `TYPE` of `TYPE/NAME` read the way kubectl reads it.

use crate::workload::kinds::group_of;
use crate::workload::{DeclaredKind, Kind};

/// How the API serves one built-in workload kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resource {
    /// The kind.
    pub kind: Kind,
    /// The API group (`""` for the core group).
    pub group: &'static str,
    /// The resource: the kind's plural, lower case.
    pub plural: &'static str,
    /// The short names discovery lists (`deploy`), from the kind's API (Kubernetes) or
    /// its CustomResourceDefinition (the controller's manifests).
    pub short_names: &'static [&'static str],
}

const fn resource(
    kind: Kind,
    group: &'static str,
    plural: &'static str,
    short_names: &'static [&'static str],
) -> Resource {
    Resource {
        kind,
        group,
        plural,
        short_names,
    }
}

/// Every built-in kind the linter reads, in the order a run lists them: Kubernetes'
/// own, then the custom resources, whose short names are those of their CRDs
/// (argoproj/argo-rollouts v1.9.1 `manifests/crds/rollout-crd.yaml`;
/// argoproj/argo-workflows v4.1.2 `manifests/base/crds/minimal/`; knative/serving
/// knative-v1.23.0 `config/core/300-resources/`; kedacore/keda
/// `config/crd/bases/keda.sh_scaledjobs.yaml`; openkruise/kruise v1.9.0-alpha3
/// `config/crd/bases/`). A kind is read from a cluster only if the cluster serves it
/// (`kubectl api-resources`), so a custom resource's row costs nothing where its CRD
/// is not installed. Where two groups share a name (`statefulsets`, `sts`), the first
/// row wins, as kubectl prefers Kubernetes' own groups.
pub const RESOURCES: &[Resource] = &[
    resource(Kind::Deployment, "apps", "deployments", &["deploy"]),
    resource(Kind::StatefulSet, "apps", "statefulsets", &["sts"]),
    resource(Kind::DaemonSet, "apps", "daemonsets", &["ds"]),
    resource(Kind::ReplicaSet, "apps", "replicasets", &["rs"]),
    resource(
        Kind::ReplicationController,
        "",
        "replicationcontrollers",
        &["rc"],
    ),
    resource(Kind::Job, "batch", "jobs", &[]),
    resource(Kind::CronJob, "batch", "cronjobs", &["cj"]),
    resource(Kind::Pod, "", "pods", &["po"]),
    resource(Kind::Rollout, "argoproj.io", "rollouts", &["ro"]),
    resource(Kind::Workflow, "argoproj.io", "workflows", &["wf"]),
    resource(
        Kind::CronWorkflow,
        "argoproj.io",
        "cronworkflows",
        &["cwf", "cronwf"],
    ),
    resource(
        Kind::WorkflowTemplate,
        "argoproj.io",
        "workflowtemplates",
        &["wftmpl"],
    ),
    resource(
        Kind::ClusterWorkflowTemplate,
        "argoproj.io",
        "clusterworkflowtemplates",
        &["clusterwftmpl", "cwft"],
    ),
    resource(
        Kind::KnativeService,
        "serving.knative.dev",
        "services",
        &["kservice", "ksvc"],
    ),
    resource(
        Kind::KnativeConfiguration,
        "serving.knative.dev",
        "configurations",
        &["config", "cfg"],
    ),
    resource(
        Kind::KnativeRevision,
        "serving.knative.dev",
        "revisions",
        &["rev"],
    ),
    resource(Kind::ScaledJob, "keda.sh", "scaledjobs", &["sj"]),
    resource(Kind::CloneSet, "apps.kruise.io", "clonesets", &["clone"]),
    resource(
        Kind::KruiseStatefulSet,
        "apps.kruise.io",
        "statefulsets",
        &["sts", "asts"],
    ),
    resource(
        Kind::KruiseDaemonSet,
        "apps.kruise.io",
        "daemonsets",
        &["daemon", "ads"],
    ),
    resource(
        Kind::BroadcastJob,
        "apps.kruise.io",
        "broadcastjobs",
        &["bcj"],
    ),
];

impl Resource {
    /// The row of a built-in `kind`; `None` for a declared one.
    pub fn of(kind: Kind) -> Option<&'static Resource> {
        RESOURCES.iter().find(|resource| resource.kind == kind)
    }

    /// `deployments.apps`, `pods`: the name `kubectl api-resources -o name` prints, and
    /// an unambiguous TYPE for `kubectl get`.
    pub fn qualified(&self) -> String {
        qualified(self.plural, None, self.group)
    }

    /// The shortest TYPE that names this row alone: the plural, or the qualified name
    /// where the plural reads another row (`statefulsets.apps.kruise.io`) or one of
    /// Kubernetes' own resources (`services.serving.knative.dev`).
    pub fn type_name(&self) -> String {
        match Resource::parse(self.plural) {
            Some(first) if first == self => self.plural.to_owned(),
            _ => self.qualified(),
        }
    }

    /// Reads a `TYPE` as kubectl does (client-go `restmapper`, `shortcutExpander`): the
    /// resource, its singular or a short name, in any case, which may name the group
    /// (`deployment.apps`, `deploy.apps`) and the version (`deployments.v1.apps`).
    /// A custom resource's name that is also one of Kubernetes' own resources
    /// (`service`, for Knative's) reads as Kubernetes' one, as kubectl prefers its own
    /// groups; only the qualified name (`ksvc`, `services.serving.knative.dev`) reads
    /// the custom one.
    pub fn parse(text: &str) -> Option<&'static Resource> {
        let unqualified = !text.contains('.');
        RESOURCES.iter().find(|resource| {
            let shadowed = resource.group.contains('.')
                && unqualified
                && KUBERNETES_NAMES.contains(&text.to_ascii_lowercase().as_str());
            !shadowed
                && names(
                    text,
                    resource.plural,
                    resource.kind.as_str(),
                    resource.short_names,
                    resource.group,
                )
        })
    }
}

/// Names of Kubernetes' own resources that are not workloads and that a custom
/// workload resource reuses: `kubectl get service` reads core Services.
const KUBERNETES_NAMES: &[&str] = &["service", "services", "svc"];

/// A workload resource the server serves, as discovery describes it: a built-in kind
/// or one `workloadKinds` declares, whose names only the server knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Served {
    /// The kind.
    pub kind: Kind,
    /// The API group.
    pub group: String,
    /// The resource (plural).
    pub plural: String,
    /// The short names discovery lists.
    pub short_names: Vec<String>,
    /// The version it is read at: a declared kind's own, else the one discovery
    /// prefers.
    pub version: String,
    /// Whether its objects live in namespaces.
    pub namespaced: bool,
}

impl Served {
    /// The API path that lists it (`/apis/apps/v1/namespaces/shop/deployments`), in
    /// `namespace`, or in every namespace (and for a cluster-scoped resource) with
    /// `None`.
    pub fn list_path(&self, namespace: Option<&str>) -> String {
        let mut path = if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        };
        if let (true, Some(namespace)) = (self.namespaced, namespace) {
            path.push_str("/namespaces/");
            path.push_str(&percent_encode(namespace));
        }
        path.push('/');
        path.push_str(&self.plural);
        path
    }

    /// The TYPE that reads this resource with `kubectl get`: `rollouts.argoproj.io`, or
    /// `webapps.v1.platform.example.com` for a kind declared at one version.
    pub fn qualified(&self) -> String {
        let version = match self.kind {
            Kind::Declared(declared) => declared.version.as_deref(),
            _ => None,
        };
        qualified(&self.plural, version, &self.group)
    }

    /// Whether `text` names this resource as kubectl reads a TYPE.
    pub fn is_named(&self, text: &str) -> bool {
        let short: Vec<&str> = self.short_names.iter().map(String::as_str).collect();
        names(text, &self.plural, self.kind.as_str(), &short, &self.group)
    }
}

/// The workload resources of `kubectl api-resources --no-headers`, whose rows are
/// `NAME [SHORTNAMES] APIVERSION NAMESPACED KIND` (the short names column blank for a
/// resource without any): the built-in kinds in [`RESOURCES`] order, then the
/// declared ones in the order of their declarations. A server that does not serve a
/// group has no row of it.
pub fn served(table: &str, declared: &[&'static DeclaredKind]) -> Vec<Served> {
    struct Row<'a> {
        plural: &'a str,
        short: Vec<String>,
        group: &'a str,
        version: &'a str,
        namespaced: bool,
        kind: &'a str,
    }
    let rows: Vec<Row> = table
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (plural, short, api_version, namespaced, kind) = match fields.as_slice() {
                [name, short, api_version, namespaced, kind] => {
                    (*name, *short, *api_version, *namespaced, *kind)
                }
                [name, api_version, namespaced, kind] => {
                    (*name, "", *api_version, *namespaced, *kind)
                }
                _ => return None,
            };
            let short = short
                .split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect();
            Some(Row {
                plural,
                short,
                group: group_of(api_version),
                version: api_version.rsplit('/').next().unwrap_or(api_version),
                namespaced: namespaced == "true",
                kind,
            })
        })
        .collect();
    let served = |kind: Kind, row: &Row, version: Option<&str>| Served {
        kind,
        group: row.group.to_owned(),
        plural: row.plural.to_owned(),
        short_names: row.short.clone(),
        version: version.unwrap_or(row.version).to_owned(),
        namespaced: row.namespaced,
    };
    let builtin = RESOURCES.iter().filter_map(|resource| {
        let row = rows
            .iter()
            .find(|row| row.plural == resource.plural && row.group == resource.group)?;
        Some(served(resource.kind, row, None))
    });
    let declared = declared.iter().filter_map(|declared| {
        let row = rows
            .iter()
            .find(|row| row.group == declared.group && row.kind == declared.kind)?;
        Some(served(
            Kind::Declared(declared),
            row,
            declared.version.as_deref(),
        ))
    });
    builtin.chain(declared).collect()
}

/// `text` as a URL's path segment or query value: everything but the unreserved
/// characters percent-encoded (RFC 3986).
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn qualified(plural: &str, version: Option<&str>, group: &str) -> String {
    match (group, version) {
        ("", _) => plural.to_owned(),
        (group, Some(version)) => format!("{plural}.{version}.{group}"),
        (group, None) => format!("{plural}.{group}"),
    }
}

/// Whether `text` names the resource `plural` of `kind` in `group` the way kubectl's
/// TYPE does: plural, singular (the kind, lower case) or short name, in any case,
/// optionally qualified by the group, or by a version and the group.
fn names(text: &str, plural: &str, kind: &str, short_names: &[&str], group: &str) -> bool {
    let text = text.to_ascii_lowercase();
    let singular = kind.to_ascii_lowercase();
    let (name, qualifier) = text.split_once('.').unwrap_or((&text, ""));
    if name != plural && name != singular && !short_names.contains(&name) {
        return false;
    }
    if qualifier.is_empty() {
        return true;
    }
    let named_group = match qualifier.split_once('.') {
        // `deployments.v1.apps`: a version, then the group.
        Some((version, rest)) if is_version(version) => rest,
        // `pods.v1`: the core group's version.
        None if group.is_empty() && is_version(qualifier) => "",
        _ => qualifier,
    };
    named_group == group
}

/// `v1`, `v2beta1`: an API version.
fn is_version(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('v') else {
        return false;
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let rest = &rest[digits..];
    rest.is_empty()
        || ["alpha", "beta"].iter().any(|stage| {
            rest.strip_prefix(stage)
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_one_row() {
        for row in crate::workload::kinds::ROWS {
            let rows: Vec<_> = RESOURCES.iter().filter(|r| r.kind == row.kind).collect();
            assert_eq!(rows.len(), 1, "{}", row.kind);
            assert_eq!(rows[0].group, row.group, "{}", row.kind);
        }
        assert_eq!(RESOURCES.len(), crate::workload::kinds::ROWS.len());
    }

    #[test]
    fn reads_kubectls_names() {
        let kind = |text| Resource::parse(text).map(|r| r.kind);
        for text in [
            "deploy",
            "deployment",
            "deployments",
            "Deployment",
            "deployment.apps",
            "deployments.apps",
            "deployments.v1.apps",
            "DEPLOY",
        ] {
            assert_eq!(kind(text), Some(Kind::Deployment), "{text}");
        }
        assert_eq!(kind("job"), Some(Kind::Job));
        assert_eq!(kind("jobs.batch"), Some(Kind::Job));
        assert_eq!(kind("cj"), Some(Kind::CronJob));
        assert_eq!(kind("po"), Some(Kind::Pod));
        assert_eq!(kind("pods.v1"), Some(Kind::Pod));
        assert_eq!(kind("rc"), Some(Kind::ReplicationController));
        assert_eq!(kind("deploy.apps"), Some(Kind::Deployment));
        // Another group's kind of the same name, the wrong group, no such kind.
        assert_eq!(kind("jobs.batch.volcano.sh"), None);
        assert_eq!(kind("deployments.v1.batch"), None);
        assert_eq!(kind("service"), None);
        assert_eq!(kind("k8s"), None);
    }

    #[test]
    fn reads_the_custom_resources_names() {
        let kind = |text| Resource::parse(text).map(|r| r.kind);
        assert_eq!(kind("ro"), Some(Kind::Rollout));
        assert_eq!(kind("rollout"), Some(Kind::Rollout));
        assert_eq!(kind("rollouts.argoproj.io"), Some(Kind::Rollout));
        assert_eq!(kind("rollouts.v1alpha1.argoproj.io"), Some(Kind::Rollout));
        assert_eq!(kind("wf"), Some(Kind::Workflow));
        assert_eq!(kind("cronwf"), Some(Kind::CronWorkflow));
        assert_eq!(kind("cwft"), Some(Kind::ClusterWorkflowTemplate));
        assert_eq!(kind("ksvc"), Some(Kind::KnativeService));
        assert_eq!(
            kind("services.serving.knative.dev"),
            Some(Kind::KnativeService)
        );
        assert_eq!(kind("cfg"), Some(Kind::KnativeConfiguration));
        assert_eq!(kind("rev"), Some(Kind::KnativeRevision));
        assert_eq!(kind("sj"), Some(Kind::ScaledJob));
        assert_eq!(kind("clone"), Some(Kind::CloneSet));
        assert_eq!(kind("bcj"), Some(Kind::BroadcastJob));
        // Kubernetes' own group first, as kubectl prefers it; the group picks Kruise's.
        assert_eq!(kind("sts"), Some(Kind::StatefulSet));
        assert_eq!(kind("sts.apps.kruise.io"), Some(Kind::KruiseStatefulSet));
        assert_eq!(kind("asts"), Some(Kind::KruiseStatefulSet));
        assert_eq!(kind("ads"), Some(Kind::KruiseDaemonSet));
        // `services` is core Services for kubectl, not Knative's.
        assert_eq!(kind("services"), None);
        assert_eq!(kind("svc"), None);
    }

    #[test]
    fn served_resources_come_from_the_api_resources_table() {
        let declared = crate::workload::DeclaredKind {
            group: "platform.example.com".into(),
            version: Some("v1".into()),
            kind: "WebApp".into(),
            pod: crate::workload::PodPath::Template("spec.template".into()),
            runs_to_completion: false,
        }
        .interned();
        let table = "pods              po         v1                            true    Pod
deployments       deploy     apps/v1                       true    Deployment
jobs                         batch/v1                      true    Job
services          svc        v1                            true    Service
rollouts          ro         argoproj.io/v1alpha1          true    Rollout
services          kservice,ksvc  serving.knative.dev/v1    true    Service
webapps           wa         platform.example.com/v2       true    WebApp
";
        let served = served(table, &[declared]);
        let names: Vec<String> = served.iter().map(Served::qualified).collect();
        assert_eq!(
            names,
            [
                "deployments.apps",
                "jobs.batch",
                "pods",
                "rollouts.argoproj.io",
                "services.serving.knative.dev",
                "webapps.v1.platform.example.com"
            ]
        );
        assert_eq!(served[4].short_names, ["kservice", "ksvc"]);
        assert_eq!(
            served[0].list_path(Some("shop")),
            "/apis/apps/v1/namespaces/shop/deployments"
        );
        assert_eq!(served[2].list_path(None), "/api/v1/pods");
        assert_eq!(
            served[5].list_path(Some("a b")),
            "/apis/platform.example.com/v1/namespaces/a%20b/webapps",
            "a declared version wins over the one discovery prefers"
        );
        assert!(served[1].short_names.is_empty());
        let webapps = &served[5];
        assert!(webapps.is_named("wa"));
        assert!(webapps.is_named("webapp"));
        assert!(webapps.is_named("WebApps.platform.example.com"));
        assert!(!webapps.is_named("webapps.other.example.com"));
    }

    #[test]
    fn qualified_names_are_what_api_resources_prints() {
        assert_eq!(
            Resource::of(Kind::Deployment).unwrap().qualified(),
            "deployments.apps"
        );
        assert_eq!(Resource::of(Kind::Pod).unwrap().qualified(), "pods");
        assert_eq!(
            Resource::of(Kind::CronJob).unwrap().qualified(),
            "cronjobs.batch"
        );
        assert_eq!(
            Resource::of(Kind::KruiseStatefulSet).unwrap().qualified(),
            "statefulsets.apps.kruise.io"
        );
    }
}
