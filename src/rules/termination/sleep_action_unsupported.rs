use crate::resolve::{DroppedHook, HookAction, sleep_action_problem};
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Severity, Violation, declare_rule};
use crate::settings::version::KubeVersion;

declare_rule! {
    /// ## What it detects
    /// The kubelet's `sleep` hook action (`lifecycle.preStop.sleep`,
    /// `lifecycle.postStart.sleep`) on a Kubernetes version that does not run it, or with
    /// `seconds` the version does not accept: negative, zero before 1.33, or more than
    /// `terminationGracePeriodSeconds`.
    ///
    /// ## Why it loses traffic
    /// Kubernetes 1.28 and older have no sleep action: the handler is left empty and the
    /// API server rejects the pod. In 1.29 the `PodLifecycleSleepAction` gate is alpha
    /// and off: the API server drops the action silently (`dropPodLifecycleSleepAction`)
    /// and the pod runs without that hook, so the delay that was to cover endpoint
    /// removal does not happen (a warning). From 1.30 invalid seconds are rejected by
    /// validation (docs/lifecycle.md §2.3).
    ///
    /// ## Example
    /// ```yaml
    /// # Kubernetes 1.29
    /// lifecycle:
    ///   preStop:
    ///     sleep: {seconds: 5}
    /// ```
    ///
    /// ## Fix
    /// On older clusters use `exec: {command: [sleep, "5"]}`; keep `seconds` between 1
    /// (0 from 1.33) and the grace period.
    ///
    /// ## References
    /// - docs/lifecycle.md §2.3 (`PodLifecycleSleepAction`: alpha 1.29, on 1.30, GA 1.34; bounds and `PodLifecycleSleepActionAllowZero`)
    /// - https://github.com/kubernetes/enhancements/tree/master/keps/sig-node/3960-pod-lifecycle-sleep-action
    pub struct SleepActionUnsupported {
        id: "ML209",
        name: "sleep-action-unsupported",
        severity: Error,
        group: Termination,
        summary: "a sleep hook action the Kubernetes version rejects or drops",
        admission: true,
    }
}

/// A sleep action the API server drops at admission.
struct Dropped<'a> {
    /// The hook and its container.
    hook: &'a DroppedHook,
    /// The cluster's version.
    version: KubeVersion,
}

impl Violation for Dropped<'_> {
    const RULE: &'static RuleMeta = &SleepActionUnsupported::META;

    fn message(&self) -> String {
        format!(
            "`{}`: Kubernetes {} drops the sleep action (PodLifecycleSleepAction is alpha and off): the pod runs without this hook, so its {} s delay does not happen",
            self.hook.container, self.version, self.hook.seconds
        )
    }

    fn help(&self) -> String {
        EXEC_SLEEP.to_owned()
    }
}

/// A sleep action the API server rejects the pod for.
struct Rejected<'a> {
    /// The container.
    container: &'a str,
    /// Why it is rejected.
    problem: String,
    /// The cluster's version.
    version: KubeVersion,
    /// The grace period, the longest sleep allowed.
    grace: i64,
}

impl Violation for Rejected<'_> {
    const RULE: &'static RuleMeta = &SleepActionUnsupported::META;

    fn message(&self) -> String {
        format!("`{}`: {}", self.container, self.problem)
    }

    fn help(&self) -> String {
        if self.version.knows_sleep_action() {
            format!(
                "keep sleep.seconds between {} and {}",
                if self.version.allows_zero_sleep() {
                    0
                } else {
                    1
                },
                self.grace
            )
        } else {
            EXEC_SLEEP.to_owned()
        }
    }
}

/// The delay that works on every version.
const EXEC_SLEEP: &str = "use exec: {command: [sleep, \"N\"]} on this version";

impl Rule for SleepActionUnsupported {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        let version = plan.kubernetes.value;
        let grace = plan.grace_period.value;
        for dropped in &plan.dropped_hooks {
            findings.push(
                Finding::new(
                    &Dropped {
                        hook: dropped,
                        version,
                    },
                    Label::value(
                        dropped.path.key("sleep").key("seconds"),
                        "dropped at admission",
                    ),
                )
                .severity(Severity::Warning)
                .container(&dropped.container),
            );
        }
        for container in &plan.containers {
            for hook in [&container.pre_stop, &container.post_start]
                .into_iter()
                .flatten()
            {
                let (HookAction::Sleep(seconds), Some(path)) = (&hook.action, &hook.path) else {
                    continue;
                };
                let Some(problem) = sleep_action_problem(version, grace, *seconds) else {
                    continue;
                };
                let violation = Rejected {
                    container: &container.name,
                    problem,
                    version,
                    grace,
                };
                findings.push(
                    Finding::new(
                        &violation,
                        Label::value(path.key("sleep").key("seconds"), "rejected"),
                    )
                    .container(&container.name),
                );
            }
        }
    }
}
