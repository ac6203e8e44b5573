use crate::resolve::{HookAction, HookDuration};
use crate::rules::help::grace_label;
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, declare_rule};
use crate::simulate::Phase;

declare_rule! {
    /// ## What it detects
    /// A preStop hook that alone lasts at least `terminationGracePeriodSeconds`.
    ///
    /// ## Why it loses traffic
    /// The kubelet waits for the hook only as long as the grace period; then it sends
    /// SIGTERM with the one-time 2-second minimum left and SIGKILLs 2 s later
    /// (docs/lifecycle.md §2.2). The rest of the hook never matters, the process gets 2 s to shut
    /// down instead of the time it was meant to have, and in-flight requests are cut.
    ///
    /// ## Example
    /// ```yaml
    /// terminationGracePeriodSeconds: 20
    /// containers:
    /// - name: app
    ///   lifecycle:
    ///     preStop:
    ///       exec: {command: [sleep, "45"]}   # SIGTERM at 20 s, SIGKILL at 22 s
    /// ```
    ///
    /// ## Fix
    /// Keep the hook well inside the grace period and leave room for the shutdown:
    /// ```yaml
    /// terminationGracePeriodSeconds: 60
    /// ```
    /// or shorten the sleep.
    ///
    /// ## References
    /// - docs/lifecycle.md §2.2 (preStop time counts against the grace period; `minimumGracePeriodInSeconds`)
    /// - https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-termination
    pub struct PrestopOutlivesGrace {
        id: "ML206",
        name: "prestop-outlives-grace",
        severity: Error,
        group: Termination,
        summary: "a preStop hook alone lasts the whole grace period",
    }
}

impl Rule for PrestopOutlivesGrace {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        for (id, record) in pod.timeline.containers.with_ids() {
            let Some(entry) = &record.stop else { continue };
            let container = &plan.containers[id];
            let Some(hook) = &container.pre_stop else {
                continue;
            };
            let HookDuration::Fixed(length) = hook.duration else {
                continue;
            };
            // A sleep action longer than the grace period is rejected outright (ML209).
            if matches!(hook.action, HookAction::Sleep(seconds) if seconds > plan.grace_period.value)
            {
                continue;
            }
            if !entry.pre_stop_cut {
                continue;
            }
            let Some(path) = hook.finding_path().cloned() else {
                continue;
            };
            let lost = length.saturating_sub(entry.signal);
            let message = format!(
                "the preStop hook of `{}` (`{}`) lasts {} but the grace period is {} s: the kubelet stops waiting at {}, sends SIGTERM with only {} s left and SIGKILLs at {}{}",
                container.name,
                hook.summary,
                length,
                plan.deletion_grace().value,
                entry.signal,
                (entry.kill - entry.signal).whole_secs(),
                entry.kill,
                if lost.0 > 0 {
                    format!("; the hook's last {lost} never matter")
                } else {
                    String::new()
                },
            );
            let suggested = (length.whole_secs().saturating_add(15))
                .max(plan.deletion_grace().value.saturating_add(1));
            let help = format!(
                "raise `terminationGracePeriodSeconds` to at least {suggested} (the hook plus time to shut down), or shorten the hook"
            );
            findings.push(
                Finding::new(
                    &Self::META,
                    Label::key(path, format!("lasts {length}")),
                    message,
                    help,
                )
                .container(&container.name)
                .related(grace_label(plan))
                .window(
                    Phase::Termination,
                    entry.signal,
                    entry.kill,
                    Some(&container.name),
                ),
            );
        }
    }
}
