//! Workload API versions the API server no longer serves, and the release that stopped
//! serving each (kubernetes/website `content/en/docs/reference/using-api/
//! deprecation-guide.md`; "Deprecated APIs Removed In 1.16", kubernetes.io blog,
//! 2019-07-18). A manifest in one of them is read like its current form, so that its
//! pod can be described; where the Kubernetes version in force no longer serves it,
//! the request fails (`no matches for kind "Deployment" in version
//! "extensions/v1beta1"`) and the pod never exists (docs/lifecycle.md §1.4).

use crate::settings::KubeVersion;

/// An API version of a workload kind that is no longer served.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Removal {
    /// `extensions/v1beta1`.
    pub api_version: &'static str,
    /// `Deployment`.
    pub kind: &'static str,
    /// The first release that no longer serves it.
    pub removed_in: KubeVersion,
    /// The API version to use instead (`apps/v1`).
    pub current: &'static str,
}

const fn removed(
    api_version: &'static str,
    kind: &'static str,
    minor: u32,
    current: &'static str,
) -> Removal {
    Removal {
        api_version,
        kind,
        removed_in: KubeVersion { minor },
        current,
    }
}

/// The removals of workload kinds' API versions. `batch/v2alpha1` CronJob was never
/// served without `--runtime-config` and its type is gone from 1.21.
const REMOVALS: [Removal; 12] = [
    removed("extensions/v1beta1", "Deployment", 16, "apps/v1"),
    removed("extensions/v1beta1", "DaemonSet", 16, "apps/v1"),
    removed("extensions/v1beta1", "ReplicaSet", 16, "apps/v1"),
    removed("apps/v1beta1", "Deployment", 16, "apps/v1"),
    removed("apps/v1beta1", "StatefulSet", 16, "apps/v1"),
    removed("apps/v1beta1", "ReplicaSet", 16, "apps/v1"),
    removed("apps/v1beta2", "Deployment", 16, "apps/v1"),
    removed("apps/v1beta2", "StatefulSet", 16, "apps/v1"),
    removed("apps/v1beta2", "DaemonSet", 16, "apps/v1"),
    removed("apps/v1beta2", "ReplicaSet", 16, "apps/v1"),
    removed("batch/v1beta1", "CronJob", 25, "batch/v1"),
    removed("batch/v2alpha1", "CronJob", 21, "batch/v1"),
];

/// The removal of `kind` in `api_version` that `version` is past, when there is one.
pub fn removed_by(api_version: &str, kind: &str, version: KubeVersion) -> Option<Removal> {
    REMOVALS
        .iter()
        .find(|r| r.api_version == api_version && r.kind == kind && version >= r.removed_in)
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removed_versions_by_release() {
        let v = |minor| KubeVersion { minor };
        assert_eq!(
            removed_by("extensions/v1beta1", "Deployment", v(22)).map(|r| r.current),
            Some("apps/v1")
        );
        assert_eq!(removed_by("batch/v1beta1", "CronJob", v(24)), None);
        assert!(removed_by("batch/v1beta1", "CronJob", v(25)).is_some());
        assert_eq!(removed_by("apps/v1", "Deployment", v(34)), None);
    }
}
