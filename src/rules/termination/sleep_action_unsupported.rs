use crate::resolve::{HookAction, sleep_action_problem};
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Severity, declare_rule};

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
                    &Self::META,
                    Label::value(dropped.path.key("sleep").key("seconds"), "dropped at admission"),
                    format!(
                        "`{}`: Kubernetes {version} drops the sleep action (PodLifecycleSleepAction is alpha and off): the pod runs without this hook, so its {} s delay does not happen",
                        dropped.container, dropped.seconds
                    ),
                    "use exec: {command: [sleep, \"N\"]} on this version".to_owned(),
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
                findings.push(
                    Finding::new(
                        &Self::META,
                        Label::value(path.key("sleep").key("seconds"), "rejected"),
                        format!("`{}`: {problem}", container.name),
                        if version.knows_sleep_action() {
                            format!(
                                "keep sleep.seconds between {} and {grace}",
                                if version.allows_zero_sleep() { 0 } else { 1 }
                            )
                        } else {
                            "use exec: {command: [sleep, \"N\"]} on this version".to_owned()
                        },
                    )
                    .container(&container.name),
                );
            }
        }
    }
}
