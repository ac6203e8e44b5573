use crate::resolve::{Hook, HookAction, HookDuration, PlannedContainer, PodPlan};
use crate::rules::describe;
use crate::rules::help::longer_grace;
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Violation, declare_rule};
use crate::simulate::{self, StopEntry};
use crate::time::Millis;

declare_rule! {
    /// ## What it detects
    /// A preStop hook that alone lasts at least `terminationGracePeriodSeconds`,
    /// among them one that never returns: `sleep infinity`, or a `while true` loop of
    /// sleeps and commands that cannot fail (`echo`, `:`), which nothing in it ends (a
    /// loop with a `break`, an `exit` or a command that may fail is of unknown length).
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
    /// `lint --fix` sets `terminationGracePeriodSeconds` on the
    /// pod spec, inserted when it is not set, to the shortest grace period with which
    /// every container of the pod exits on its own on the simulated timeline, plus
    /// headroom: the last
    /// exit with the period left open, in whole seconds rounded up (the next second
    /// when a container would exit just as the period ends). The scenario's margins are
    /// in that exit already: each preStop hook, the app's `app-shutdown`, the requests
    /// it finishes first (`longest-request`, taken until `endpoint-propagation`), each
    /// proxy's wait or drain, and native sidecars stopped in turn after the app.
    /// Endpoint propagation keeps no container running by itself (a proxy that refuses
    /// before it is ML203's), so it adds nothing more. The fixes' headroom goes on top
    /// (a fifth of the time needed, at least 5 s: 35 s becomes 42 s; docs/usage.md,
    /// "Values with headroom"), so the SIGKILL does not fall on the second the last
    /// container exits. Safe where the manifest gives every time the value adds up: the
    /// pod then exits on its own before the period ends, and only the SIGKILL goes;
    /// unsafe (`--unsafe-fixes`) where an app's default shutdown time moves the value,
    /// and its title says so. Not made
    /// when the grace period is not the pod's own (`--deletion-grace-period`: it is not
    /// in the file) or a hook never ends (no period is long enough).
    ///
    /// ## Evidence
    /// Proven from the manifest and the timeline: it keeps its error. Assumed when it needs a
    /// reading the input does not state (a hook of unknown length or whose program the image
    /// lacks, a version's default where releases differ): warning, naming the reading and
    /// how to settle it (the default; `--assumed-losses full` keeps the error).
    ///
    /// ## References
    /// - docs/lifecycle.md §2.2 (preStop time counts against the grace period; `minimumGracePeriodInSeconds`)
    /// - https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-termination
    pub struct PrestopOutlivesGrace {
        id: "ML206",
        name: "prestop-outlives-grace",
        severity: Error,
        fix: Sometimes,
        group: Termination,
        summary: "a preStop hook alone lasts the whole grace period",
        since: "0.1.0",
    }
}

/// A preStop hook the kubelet stops waiting for at the end of the grace period.
struct HookCut<'a> {
    /// The container.
    container: &'a PlannedContainer,
    /// Its preStop hook.
    hook: &'a Hook,
    /// How long the hook lasts.
    length: Millis,
    /// The container's stop on the timeline.
    entry: &'a StopEntry,
    /// The grace period the deletion uses, in seconds.
    grace: i64,
    /// The grace period with which every container exits on its own, when one does.
    needed: Option<i64>,
    /// The pod, for the grace period to lengthen: its own, or the deletion's.
    plan: &'a PodPlan,
}

impl Violation for HookCut<'_> {
    const RULE: &'static RuleMeta = &PrestopOutlivesGrace::META;

    fn message(&self) -> String {
        let entry = self.entry;
        let returns = !never_returns(self.length);
        let lost = self.length.saturating_sub(entry.signal);
        format!(
            "the preStop hook of `{}` (`{}`) {}{} the grace period is {} s: the kubelet stops waiting at {}, sends SIGTERM with only {} s left and SIGKILLs at {}{}",
            self.container.name,
            describe::hook(self.hook),
            lasts(self.length),
            if returns { " but" } else { ", and" },
            self.grace,
            entry.signal,
            (entry.kill - entry.signal).whole_secs(),
            entry.kill,
            if lost.0 > 0 && returns {
                format!("; the hook's last {lost} never matter")
            } else {
                String::new()
            },
        )
    }

    fn help(&self) -> String {
        if never_returns(self.length) {
            return format!(
                "make the hook return: no grace period is long enough for it; bound it (a `sleep N`, or a loop that ends), with N below the grace period of {} s less the time the container needs to shut down",
                self.grace
            );
        }
        let suggested = self.needed.unwrap_or_else(|| {
            (self.length.whole_secs().saturating_add(15)).max(self.grace.saturating_add(1))
        });
        format!(
            "{} (the hook plus time to shut down), or shorten the hook",
            longer_grace(self.plan, suggested)
        )
    }
}

impl Rule for PrestopOutlivesGrace {
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
            let violation = HookCut {
                container,
                hook,
                length,
                entry,
                grace: plan.deletion_grace().value,
                needed: simulate::grace_needed(plan),
                plan,
            };
            findings.push(super::cut_by_grace(
                &violation,
                Label::key(path, lasts(length)),
                plan,
                container,
                (entry.signal, entry.kill),
            ));
        }
    }
}

/// Whether a hook of `length` is one that never returns (`sleep infinity`, an endless
/// loop): no grace period is long enough for it.
fn never_returns(length: Millis) -> bool {
    length >= HookDuration::NEVER_RETURNS
}

/// How long a hook lasts, as a message says it.
fn lasts(length: Millis) -> String {
    if never_returns(length) {
        "never returns".to_owned()
    } else {
        format!("lasts {length}")
    }
}
