use serde_json::Value as Json;

use crate::fix::{Applicability, Change, Remedy};
use crate::resolve::{PlannedContainer, PodPlan, SidecarStop, StopFailure, StopMethod};
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Violation, declare_rule};

declare_rule! {
    /// ## What it detects
    /// A Job's work stops its sidecar by signalling the sidecar's process (`pkill`,
    /// `kill`, `killall`) when it cannot: without `shareProcessNamespace: true` the
    /// process is not visible from the work's container, and a work container running
    /// as another non-root user may not signal it.
    ///
    /// ## Why it loses traffic
    /// The signal goes nowhere, the sidecar keeps running, the pod stays `Running`, and
    /// the Job never completes (docs/lifecycle.md §2.6, §7 F1).
    ///
    /// ## Example
    /// ```yaml
    /// spec:
    ///   containers:
    ///   - name: work
    ///     command: ["/bin/sh", "-c", "./work; pkill -INT envoy"]
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// spec:
    ///   shareProcessNamespace: true
    /// ```
    /// or, better, stop the sidecar through its API (`POST :15020/quitquitquit`) or run
    /// it as a native sidecar.
    ///
    /// `lint --fix --unsafe-fixes` (unsafe) sets `spec.shareProcessNamespace: true`
    /// when the pod does not share its process namespace. Unsafe because every
    /// container then sees and may signal the others' processes (and their files under
    /// `/proc`), and the pause container becomes PID 1 of each. Not made when the
    /// namespace is already shared and the signal fails for the user it runs as.
    ///
    /// ## Evidence
    /// Proven from the manifest and the timeline: it keeps its error. Assumed when it needs a
    /// reading the input does not state (a hook of unknown length or whose program the image
    /// lacks, a version's default where releases differ): warning, naming the reading and
    /// how to settle it, under `--assumed-losses lowered`; `full`, the default, keeps the error.
    ///
    /// ## References
    /// - docs/lifecycle.md §2.6 (a running regular container keeps the pod Running), §3.4 (the agent's `/quitquitquit`), §7 F1
    /// - https://kubernetes.io/docs/tasks/configure-pod-container/share-process-namespace/
    pub struct JobKillNeedsSharedPid {
        id: "ML303",
        name: "job-kill-needs-shared-pid",
        severity: Error,
        fix: Sometimes,
        group: Jobs,
        summary: "the sidecar is signalled from a container that cannot reach its process",
        since: "0.1.0",
    }
}

/// A signal from a Job's work that cannot reach the sidecar's process.
struct SignalCannotReach<'a> {
    /// The work's container.
    app: &'a PlannedContainer,
    /// The call that sends the signal.
    stop: &'a SidecarStop,
    /// The process it is meant for.
    target: &'a str,
    /// Why it cannot reach it.
    failure: &'a StopFailure,
    /// Whether the pod already shares its process namespace.
    shared: bool,
    /// The stop API of the sidecar the signal is meant for, when it has one.
    api: Option<&'a str>,
}

impl Violation for SignalCannotReach<'_> {
    const RULE: &'static RuleMeta = &JobKillNeedsSharedPid::META;

    fn message(&self) -> String {
        let reason = match self.failure {
            StopFailure::OtherUser {
                user,
                process,
                owner,
            } => format!(
                "the work runs as UID {user} and may not signal `{process}`, which runs as UID {owner}"
            ),
            _ => "signalling another container's process needs `shareProcessNamespace: true`"
                .to_owned(),
        };
        format!(
            "in `{}`, `{}` cannot stop `{}`: {reason}; the sidecar keeps running and the Job never completes",
            self.app.name, self.stop.written, self.target
        )
    }

    fn help(&self) -> String {
        // A sidecar with no stop API (Cloud SQL proxy v1) is stopped by a signal or
        // not at all.
        match (self.shared, self.api) {
            (true, Some(api)) => format!(
                "run the work as root or as the sidecar's user, or stop the sidecar through its API instead ({api})"
            ),
            (true, None) => "run the work as root or as the sidecar's user".to_owned(),
            (false, Some(api)) => format!(
                "set `spec.shareProcessNamespace: true`, or stop the sidecar through its API ({api})"
            ),
            (false, None) => "set `spec.shareProcessNamespace: true`".to_owned(),
        }
    }
}

impl Rule for JobKillNeedsSharedPid {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        // The pod's sidecars, gathered once rather than for each stop (a pod may run
        // thousands of containers).
        let sidecars: Vec<_> = plan.containers.iter().filter_map(|c| c.sidecar()).collect();
        for (app, stop) in plan.work_stops() {
            let (StopMethod::Signal { target }, Err(failure)) = (&stop.method, &stop.effective)
            else {
                continue;
            };
            // A signal that stops the wrong process, or is never sent, is ML304's.
            if !failure.is_unreachable_signal() {
                continue;
            }
            // The stop API of the sidecar the signal is meant for.
            let api = sidecars
                .iter()
                .filter(|s| stop.method.reaches(&s.kind))
                .find_map(|s| s.kind.remedies().stop_api);
            let violation = SignalCannotReach {
                app,
                stop,
                target,
                failure,
                shared: plan.share_process_namespace,
                api,
            };
            findings.push(
                Finding::new(
                    &violation,
                    Label::key(stop.path.clone(), "signals another container's process"),
                )
                .with_fix(share_process_namespace(plan, failure))
                .container(&app.name)
                .related(Label::key(
                    plan.pod_spec_path().key("shareProcessNamespace"),
                    "process namespace",
                )),
            );
        }
    }
}

/// `spec.shareProcessNamespace: true`, which lets the work's signal reach the sidecar's
/// process. Unsafe: it also shows every container the others' processes and makes the
/// pause container PID 1. `None` when the namespace is shared already (the signal then
/// fails for its user, which no setting of the pod spec alone changes).
fn share_process_namespace(plan: &PodPlan, failure: &StopFailure) -> Option<Remedy> {
    if plan.share_process_namespace || *failure != StopFailure::NoSharedProcessNamespace {
        return None;
    }
    Some(Remedy::new(
        Applicability::Unsafe,
        "set `spec.shareProcessNamespace: true`, so the work's signal reaches the sidecar's process (risk: every container can then see, signal and read the processes of the others, their environment and files through /proc, and the pause container becomes PID 1)"
            .to_owned(),
        vec![Change::Set(
            plan.pod_spec_path().key("shareProcessNamespace"),
            Json::from(true),
        )],
    ))
}
