use crate::resolve::RejectionCause;
use crate::resolve::api_removals::Removal;
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Violation, declare_rule};
use crate::settings::KubeVersion;

declare_rule! {
    /// ## What it detects
    /// A workload written in an API version that the Kubernetes version in force no
    /// longer serves: Deployment, DaemonSet and ReplicaSet in `extensions/v1beta1`,
    /// Deployment, StatefulSet, DaemonSet and ReplicaSet in `apps/v1beta1` or
    /// `apps/v1beta2` (not served from 1.16), CronJob in `batch/v1beta1` (from 1.25) or
    /// `batch/v2alpha1`. Reported at `apiVersion`, like every rejection, for the version
    /// linted against (`--kubernetes-version`, the config file, or the newest known).
    ///
    /// ## Why it loses traffic
    /// The API server answers `no matches for kind "Deployment" in version
    /// "extensions/v1beta1"`: the object is never created, so neither is its pod
    /// (docs/lifecycle.md §1.4). Nothing about the pod's start or stop is simulated,
    /// and a CI gate that passed it would ship a manifest that cannot be applied.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: extensions/v1beta1
    /// kind: Deployment
    /// ```
    ///
    /// ## Fix
    /// Write the kind's current API version, with what it requires (`apps/v1` needs
    /// `spec.selector`, which the old versions took from the template's labels, and
    /// changes defaults such as a DaemonSet's `updateStrategy`):
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// spec:
    ///   selector:
    ///     matchLabels: {app: web}
    /// ```
    /// No automatic fix: the fields the new version requires are the author's.
    ///
    /// ## Evidence
    /// The manifest and the profile's versions alone: nothing it rests on is assumed, so
    /// it keeps its severity.
    ///
    /// ## References
    /// - docs/lifecycle.md §1.4 (API versions served)
    /// - kubernetes/website `content/en/docs/reference/using-api/deprecation-guide.md`
    /// - https://kubernetes.io/blog/2019/07/18/api-deprecations-in-1-16/
    pub struct ApiVersionRemoved {
        id: "ML405",
        name: "api-version-removed",
        severity: Error,
        fix: Never,
        group: Configuration,
        summary: "a workload API version the Kubernetes version in force no longer serves",
        since: "0.1.0",
        admission: true,
    }
}

/// A workload in an API version that is no longer served.
struct NotServed {
    removal: Removal,
    version: KubeVersion,
}

/// Why the API server rejects the workload, as `explain` and the rule say it.
pub(crate) fn not_served(removal: &Removal, version: KubeVersion) -> String {
    format!(
        "Kubernetes {version} does not serve {} in `{}` (removed in {}): the API server answers `no matches for kind \"{}\" in version \"{}\"` and nothing is created",
        removal.kind, removal.api_version, removal.removed_in, removal.kind, removal.api_version
    )
}

impl Violation for NotServed {
    const RULE: &'static RuleMeta = &ApiVersionRemoved::META;

    fn message(&self) -> String {
        not_served(&self.removal, self.version)
    }

    fn help(&self) -> String {
        format!(
            "use `apiVersion: {}`{}",
            self.removal.current,
            if self.removal.current == "apps/v1" {
                ", with the `spec.selector` it requires (the old versions took it from the template's labels)"
            } else {
                ""
            }
        )
    }
}

impl Rule for ApiVersionRemoved {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        for rejection in &pod.plan.rejections {
            let RejectionCause::RemovedApiVersion { removal, version } = rejection.cause else {
                continue;
            };
            findings.push(Finding::new(
                &NotServed { removal, version },
                Label::value(
                    rejection.path.clone(),
                    format!("not served by Kubernetes {version}"),
                ),
            ));
        }
    }
}
