//! The workload kinds as the API serves them: group, resource and short names, one row
//! per kind, and the `TYPE` of `TYPE/NAME` read the way kubectl reads it.

use crate::workload::Kind;

/// How the API serves one workload kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resource {
    /// The kind.
    pub kind: Kind,
    /// The API group (`""` for the core group).
    pub group: &'static str,
    /// The resource: the kind's plural, lower case.
    pub plural: &'static str,
    /// The short names discovery lists (`deploy`).
    pub short_names: &'static [&'static str],
}

/// Every kind the linter reads, in the order a run lists them. A kind is read from a
/// cluster only if the cluster serves it (`kubectl api-resources`), so a custom
/// resource's row costs nothing where its CRD is not installed.
pub const RESOURCES: &[Resource] = &[
    Resource {
        kind: Kind::Deployment,
        group: "apps",
        plural: "deployments",
        short_names: &["deploy"],
    },
    Resource {
        kind: Kind::StatefulSet,
        group: "apps",
        plural: "statefulsets",
        short_names: &["sts"],
    },
    Resource {
        kind: Kind::DaemonSet,
        group: "apps",
        plural: "daemonsets",
        short_names: &["ds"],
    },
    Resource {
        kind: Kind::ReplicaSet,
        group: "apps",
        plural: "replicasets",
        short_names: &["rs"],
    },
    Resource {
        kind: Kind::ReplicationController,
        group: "",
        plural: "replicationcontrollers",
        short_names: &["rc"],
    },
    Resource {
        kind: Kind::Job,
        group: "batch",
        plural: "jobs",
        short_names: &[],
    },
    Resource {
        kind: Kind::CronJob,
        group: "batch",
        plural: "cronjobs",
        short_names: &["cj"],
    },
    Resource {
        kind: Kind::Pod,
        group: "",
        plural: "pods",
        short_names: &["po"],
    },
];

impl Resource {
    /// The row of `kind`.
    pub fn of(kind: Kind) -> &'static Resource {
        RESOURCES
            .iter()
            .find(|resource| resource.kind == kind)
            .expect("every kind has a row in RESOURCES")
    }

    /// `deployments.apps`, `pods`: the name `kubectl api-resources -o name` prints, and
    /// an unambiguous TYPE for `kubectl get`.
    pub fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.plural.to_owned()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// Reads a `TYPE` as kubectl does (client-go `restmapper`, `shortcutExpander`): the
    /// resource, its singular or a short name, in any case, which may name the group
    /// (`deployment.apps`, `deploy.apps`) and the version (`deployments.v1.apps`).
    pub fn parse(text: &str) -> Option<&'static Resource> {
        let text = text.to_ascii_lowercase();
        RESOURCES.iter().find(|resource| {
            let singular = resource.kind.as_str().to_ascii_lowercase();
            let (name, qualifier) = text.split_once('.').unwrap_or((&text, ""));
            if name != resource.plural && name != singular && !resource.short_names.contains(&name)
            {
                return false;
            }
            if qualifier.is_empty() {
                return true;
            }
            let group = match qualifier.split_once('.') {
                // `deployments.v1.apps`: a version, then the group.
                Some((version, group)) if is_version(version) => group,
                // `pods.v1`: the core group's version.
                None if resource.group.is_empty() && is_version(qualifier) => "",
                _ => qualifier,
            };
            group == resource.group
        })
    }
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
        for kind in Kind::ALL {
            let rows = RESOURCES.iter().filter(|r| r.kind == kind).count();
            assert_eq!(rows, 1, "{kind}");
        }
        assert_eq!(RESOURCES.len(), Kind::ALL.len());
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
    fn qualified_names_are_what_api_resources_prints() {
        assert_eq!(
            Resource::of(Kind::Deployment).qualified(),
            "deployments.apps"
        );
        assert_eq!(Resource::of(Kind::Pod).qualified(), "pods");
        assert_eq!(Resource::of(Kind::CronJob).qualified(), "cronjobs.batch");
    }
}
