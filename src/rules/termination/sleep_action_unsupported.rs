use serde_json::json;

use crate::fix::{Applicability, Change, Remedy};
use crate::load::JsonPath;
use crate::resolve::{
    DroppedHook, HookAction, PlannedContainer, SleepActionProblem, sleep_action_problem,
};
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
    /// `lint --fix` (safe) replaces the hook's `sleep` action, where the version has no
    /// sleep action (1.28 and older) or drops it (1.29), with
    /// `exec: {command: [sleep, "N"]}` of the same seconds, where the container's image
    /// has `sleep` (not a distroless one). Safe: the hook keeps its meaning, the same
    /// delay before SIGTERM (or before the next container starts, for `postStart`),
    /// counted against the grace period the same way; only who runs the sleep changes,
    /// the container instead of the kubelet. An image without `sleep` gets no fix (an
    /// exec hook would fail at once, ML208). Seconds the version rejects (negative,
    /// zero before 1.33, more than the grace period) get no fix: lowering them to fit
    /// changes the delay the author chose, and a longer grace period is ML206's remedy
    /// to weigh, not this rule's.
    ///
    /// ## Evidence
    /// The manifest and the profile's versions alone: nothing it rests on is assumed, so
    /// it keeps its severity.
    ///
    /// ## References
    /// - docs/lifecycle.md §2.3 (`PodLifecycleSleepAction`: alpha 1.29, on 1.30, GA 1.34; bounds and `PodLifecycleSleepActionAllowZero`)
    /// - https://github.com/kubernetes/enhancements/tree/master/keps/sig-node/3960-pod-lifecycle-sleep-action
    pub struct SleepActionUnsupported {
        id: "ML209",
        name: "sleep-action-unsupported",
        severity: Error,
        fix: Sometimes,
        group: Termination,
        summary: "a sleep hook action the Kubernetes version rejects or drops",
        since: "0.1.0",
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
    problem: SleepActionProblem,
    /// The cluster's version.
    version: KubeVersion,
    /// The grace period, the longest sleep allowed.
    grace: i64,
}

impl Violation for Rejected<'_> {
    const RULE: &'static RuleMeta = &SleepActionUnsupported::META;

    fn message(&self) -> String {
        format!("`{}`: {}", self.container, problem(self.problem))
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

/// Why the API server rejects the sleep action.
pub(crate) fn problem(problem: SleepActionProblem) -> String {
    match problem {
        SleepActionProblem::Unknown { version } => format!(
            "Kubernetes {version} has no sleep action (it arrived in 1.29): the API server sees an empty handler and rejects the pod"
        ),
        SleepActionProblem::Negative { seconds } => {
            format!("sleep.seconds is {seconds}; it must not be negative")
        }
        SleepActionProblem::Zero { version } => {
            format!("sleep.seconds: 0 is accepted only from Kubernetes 1.33 (this is {version})")
        }
        SleepActionProblem::ExceedsGrace { seconds, grace } => format!(
            "sleep.seconds is {seconds} but must not exceed terminationGracePeriodSeconds ({grace}); the API server rejects it"
        ),
    }
}

/// The delay that works on every version.
const EXEC_SLEEP: &str = "use exec: {command: [sleep, \"N\"]} on this version";

impl Rule for SleepActionUnsupported {
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
                .container(&dropped.container)
                .with_fix(
                    plan.containers
                        .iter()
                        .find(|container| container.name == dropped.container)
                        .and_then(|container| {
                            exec_sleep(container, &dropped.path, dropped.seconds)
                        }),
                ),
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
                    .container(&container.name)
                    .with_fix(match problem {
                        SleepActionProblem::Unknown { .. } => exec_sleep(container, path, *seconds),
                        _ => None,
                    }),
                );
            }
        }
    }
}

/// The hook at `hook` (`…lifecycle.preStop`) replaced by `exec` `sleep` of the same
/// seconds, where the container's image has `sleep`: the same delay, run in the
/// container rather than by the kubelet. Safe: the hook keeps its meaning.
fn exec_sleep(container: &PlannedContainer, hook: &JsonPath, seconds: i64) -> Option<Remedy> {
    if container.missing_tools.sleep || seconds < 0 {
        return None;
    }
    Some(Remedy::new(
        Applicability::Safe,
        format!(
            "run the {seconds} s delay as `exec: {{command: [sleep, \"{seconds}\"]}}`, which this version runs"
        ),
        vec![Change::Set(
            hook.clone(),
            json!({"exec": {"command": ["sleep", seconds.to_string()]}}),
        )],
    ))
}
