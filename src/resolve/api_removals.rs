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

/// The workload kinds each removed API version served.
const EXTENSIONS_V1BETA1: &[&str] = &["Deployment", "DaemonSet", "ReplicaSet"];
const APPS_V1BETA1: &[&str] = &["Deployment", "StatefulSet", "ReplicaSet"];
const APPS_V1BETA2: &[&str] = &["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"];
const CRON_JOB: &[&str] = &["CronJob"];

/// The API versions of workload kinds that are no longer served: each with the first
/// release that no longer serves it, the API version to use instead and the kinds it
/// served. `batch/v2alpha1` CronJob was never served without `--runtime-config` and its
/// type is gone from 1.21.
const REMOVED_VERSIONS: [(&str, u32, &str, &[&str]); 5] = [
    ("extensions/v1beta1", 16, "apps/v1", EXTENSIONS_V1BETA1),
    ("apps/v1beta1", 16, "apps/v1", APPS_V1BETA1),
    ("apps/v1beta2", 16, "apps/v1", APPS_V1BETA2),
    ("batch/v1beta1", 25, "batch/v1", CRON_JOB),
    ("batch/v2alpha1", 21, "batch/v1", CRON_JOB),
];

/// The removal of `kind` in `api_version` that `version` is past, when there is one.
pub fn removed_by(api_version: &str, kind: &str, version: KubeVersion) -> Option<Removal> {
    REMOVED_VERSIONS
        .iter()
        .filter(|(removed, ..)| *removed == api_version)
        .find_map(|&(api_version, minor, current, kinds)| {
            let kind = *kinds.iter().find(|k| **k == kind)?;
            let removed_in = KubeVersion { minor };
            (version >= removed_in).then_some(Removal {
                api_version,
                kind,
                removed_in,
                current,
            })
        })
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
