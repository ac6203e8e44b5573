use crate::resolve::{PlannedContainer, SidecarStop, StopFailure, StopMethod};
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
    /// ## References
    /// - docs/lifecycle.md §2.6 (a running regular container keeps the pod Running), §3.4 (the agent's `/quitquitquit`), §7 F1
    /// - https://kubernetes.io/docs/tasks/configure-pod-container/share-process-namespace/
    pub struct JobKillNeedsSharedPid {
        id: "ML303",
        name: "job-kill-needs-shared-pid",
        severity: Error,
        group: Jobs,
        summary: "the sidecar is signalled from a container that cannot reach its process",
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
            self.app.name, self.stop.text, self.target
        )
    }

    fn help(&self) -> String {
        let api = self.api.map(|api| format!(" ({api})")).unwrap_or_default();
        if self.shared {
            format!(
                "run the work as root or as the sidecar's user, or stop the sidecar through its API instead{api}"
            )
        } else {
            format!(
                "set `spec.shareProcessNamespace: true`, or stop the sidecar through its API{api}"
            )
        }
    }
}

impl Rule for JobKillNeedsSharedPid {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        if !plan.runs_to_completion() {
            return;
        }
        for (_, app) in plan.apps() {
            for stop in &app.sidecar_stops {
                let (StopMethod::Signal { target }, Err(failure)) = (&stop.method, &stop.effective)
                else {
                    continue;
                };
                // A signal that stops the wrong process, or is never sent, is ML304's.
                if !matches!(
                    failure,
                    StopFailure::NoSharedProcessNamespace | StopFailure::OtherUser { .. }
                ) {
                    continue;
                }
                // The stop API of the sidecar the signal is meant for.
                let api = plan
                    .containers
                    .iter()
                    .filter_map(|c| c.sidecar())
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
                    .container(&app.name)
                    .related(Label::key(
                        plan.pod_spec_path().key("shareProcessNamespace"),
                        "process namespace",
                    )),
                );
            }
        }
    }
}
