use crate::resolve::{ExitStatus, PlannedContainer, RestartPolicy, SidecarStop, StopFailure};
use crate::rules::help::container_label;
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Violation, declare_rule};
use crate::simulate::Phase;

declare_rule! {
    /// ## What it detects
    /// A Job's work stops its sidecar in a way that loses the work's result:
    /// `work; stop` reports the stop call's success for failed work; `work && stop` (or
    /// `set -e`) never stops the sidecar when the work fails, so the pod hangs;
    /// `work || stop` stops it only on failure. Also a sidecar that exits non-zero when
    /// stopped (the Cloud SQL proxy exits 143 on SIGTERM), which fails the pod although
    /// the work succeeded.
    ///
    /// ## Why it loses traffic
    /// The pod's phase comes from the regular containers' exit codes (docs/lifecycle.md §2.6): the
    /// Job controller retries or gives up on the wrong result, and a hung pod holds the
    /// Job open forever (F1, F4; linkerd#8033).
    ///
    /// ## Example
    /// ```yaml
    /// command: ["/bin/sh", "-c", "./migrate; curl -X POST localhost:15020/quitquitquit"]
    /// ```
    ///
    /// ## Fix
    /// Keep the status and stop the sidecar on every path:
    /// ```yaml
    /// command: ["/bin/sh", "-c"]
    /// args:
    /// - |
    ///   trap 'curl -fsS -X POST http://localhost:15020/quitquitquit' EXIT
    ///   ./migrate
    /// ```
    /// (or `./migrate; rc=$?; curl …; exit $rc`, or `linkerd-await --shutdown -- ./migrate`).
    ///
    /// ## References
    /// - docs/lifecycle.md §2.6 (phase from exit codes), §3.4 (`/quitquitquit`), §4.3 (`linkerd-await --shutdown` keeps the child's code), §5.4 (Cloud SQL proxy exit 143), §7 F1, F4
    /// - https://github.com/linkerd/linkerd2/issues/8033
    pub struct JobExitStatusLost {
        id: "ML302",
        name: "job-exit-status-lost",
        severity: Error,
        group: Jobs,
        summary: "the sidecar is stopped in a way that loses the work's result",
    }
}

/// A stop call placed so that the work's result is lost or the Job hangs.
struct StatusLost<'a> {
    /// The work's container.
    app: &'a PlannedContainer,
    /// The stop call.
    stop: &'a SidecarStop,
}

impl Violation for StatusLost<'_> {
    const RULE: &'static RuleMeta = &JobExitStatusLost::META;

    fn message(&self) -> String {
        let problem = match self.stop.status {
            ExitStatus::LostOnFailure => {
                "runs after the work whatever its result: the container exits with the stop call's status, so failed work is reported as success"
            }
            ExitStatus::HangsOnFailure => {
                "runs only when the work succeeds: when it fails the sidecar keeps running and the Job never completes"
            }
            ExitStatus::BeforeWork => {
                "runs before the work: the sidecar is gone while the work runs, so its network calls fail"
            }
            ExitStatus::SkippedOnSuccess => {
                "runs only when the work fails: after successful work the sidecar keeps running and the Job never completes"
            }
            ExitStatus::Kept => "keeps the work's status",
        };
        format!("in `{}`, `{}` {problem}", self.app.name, self.stop.written)
    }

    fn help(&self) -> String {
        match self.stop.status {
            ExitStatus::LostOnFailure => {
                "save and return the work's status: `trap '<stop call>' EXIT` before the work, or `work; rc=$?; <stop call>; exit $rc`"
            }
            ExitStatus::HangsOnFailure | ExitStatus::SkippedOnSuccess => {
                "stop the sidecar on every path: `trap '<stop call>' EXIT` before the work"
            }
            ExitStatus::BeforeWork => {
                "stop the sidecar after the work, on every path: `trap '<stop call>' EXIT` before the work"
            }
            ExitStatus::Kept => "",
        }
        .to_owned()
    }
}

/// A sidecar whose non-zero exit when stopped fails the pod although the work succeeded.
struct SidecarExitFails<'a> {
    /// The sidecar.
    sidecar: &'a PlannedContainer,
    /// Its exit code.
    code: i32,
    /// The pod's restart policy, which decides what the failure does.
    restart_policy: RestartPolicy,
}

impl Violation for SidecarExitFails<'_> {
    const RULE: &'static RuleMeta = &JobExitStatusLost::META;

    fn message(&self) -> String {
        format!(
            "`{}` exits with code {} when the work stops it, so the pod {} although the work succeeded",
            self.sidecar.name,
            self.code,
            if self.restart_policy == RestartPolicy::OnFailure {
                "restarts it and never completes"
            } else {
                "fails"
            }
        )
    }

    fn help(&self) -> String {
        "make the sidecar exit 0 when stopped (Cloud SQL proxy: --exit-zero-on-sigterm), or run it as a native sidecar, whose exit code does not count".into()
    }
}

impl Rule for JobExitStatusLost {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        if !plan.runs_to_completion() {
            return;
        }
        for (_, app) in plan.apps() {
            // A call that cannot stop the sidecar (ML303, ML304) still decides what
            // becomes of the work's status once it is made to work, so both are
            // reported; only a call the shell never makes has no say in it.
            for stop in app
                .sidecar_stops
                .iter()
                .filter(|s| !matches!(s.effective, Err(StopFailure::ReplacedByExec { .. })))
            {
                match stop.status {
                    ExitStatus::Kept => continue,
                    // Under `OnFailure` the failed work's container restarts and retries,
                    // so the sidecar is still wanted: nothing hangs.
                    ExitStatus::HangsOnFailure
                        if plan.restart_policy == RestartPolicy::OnFailure =>
                    {
                        continue;
                    }
                    _ => {}
                }
                findings.push(
                    Finding::new(
                        &StatusLost { app, stop },
                        Label::key(stop.path.clone(), "the stop call"),
                    )
                    .container(&app.name),
                );
            }
        }
        let Some(completion) = &pod.timeline.completion else {
            return;
        };
        for &(id, code) in &completion.failing {
            let sidecar = &plan.containers[id];
            let at = pod.timeline.containers[id]
                .job
                .exit
                .unwrap_or(completion.work_done);
            let violation = SidecarExitFails {
                sidecar,
                code,
                restart_policy: plan.restart_policy,
            };
            findings.push(
                Finding::new(
                    &violation,
                    container_label(sidecar, format!("exits {code} when stopped")),
                )
                .container(&sidecar.name)
                .window(Phase::Completion, at, at, Some(&sidecar.name)),
            );
        }
    }
}
