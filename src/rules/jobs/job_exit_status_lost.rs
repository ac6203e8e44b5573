use serde_json::Value as Json;

use super::endpoint_call;
use crate::fix::{Applicability, Change, Remedy};
use crate::resolve::shell::trap_stop_call;
use crate::resolve::{
    ExitStatus, PlannedContainer, PodPlan, RestartPolicy, SidecarStop, StopFailure,
};
use crate::rules::help::container_label;
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Violation, declare_rule};
use crate::simulate::Phase;

declare_rule! {
    /// ## What it detects
    /// A Job's work stops its sidecar in a way that loses the work's result:
    /// `work; stop` reports the stop call's success for failed work; `work && stop` (or
    /// errexit: `set -e`, `sh -e`, `bash -euo pipefail`, a `#!/bin/sh -e` script) never
    /// stops the sidecar when the work fails, so the pod hangs; `work || stop` stops it
    /// only on failure. Also a sidecar that exits non-zero when
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
    /// command:
    /// - /bin/sh
    /// - -c
    /// - ./migrate; curl -X POST localhost:15020/quitquitquit
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
    /// `lint --fix --unsafe-fixes` (unsafe: it changes a Job's command) makes the stop
    /// call the script's EXIT trap, set first, and takes it out of its place with the
    /// operator that joined it (`./migrate; curl …` becomes
    /// `trap 'curl …' EXIT; ./migrate`; a call on a line of its own leaves its line).
    /// The trap runs on every path out of the script, after the work, and the shell
    /// still exits with the work's status (POSIX `trap`: `$?` after the EXIT action is
    /// the value before it), so the fix covers `work; stop`, `work && stop`, `set -e`,
    /// `work || stop` and a stop before the work alike. The whole script string is
    /// rewritten in its scalar's style (a `|` block stays a block). No fix where the
    /// script sets a trap of its own (one would replace the other), where an `exec`
    /// replaces the shell (it would never run the trap), or where the call is not a
    /// command of its own at the script's top level (inside a function, a group, a
    /// pipeline or a branch); nor for a sidecar that exits non-zero when stopped (its
    /// flag or native mode is the user's choice).
    ///
    /// ## Evidence
    /// Proven from the manifest and the timeline: it keeps its error. Assumed when it needs a
    /// reading the input does not state (a hook of unknown length or whose program the image
    /// lacks, a version's default where releases differ): warning, naming the reading and
    /// how to settle it (the default; `--assumed-losses full` keeps the error).
    ///
    /// ## References
    /// - docs/lifecycle.md §2.6 (phase from exit codes), §3.4 (`/quitquitquit`), §4.3 (`linkerd-await --shutdown` keeps the child's code), §5.4 (Cloud SQL proxy exit 143), §2.8 (a container that only stops the sidecars is not the work), §7 F1, F4
    /// - https://github.com/linkerd/linkerd2/issues/8033
    pub struct JobExitStatusLost {
        id: "ML302",
        name: "job-exit-status-lost",
        severity: Error,
        fix: Sometimes,
        group: Jobs,
        summary: "the sidecar is stopped in a way that loses the work's result",
        since: "0.1.0",
    }
}

/// A stop call placed so that the work's result is lost or the Job hangs.
struct StatusLost<'a> {
    /// The work's container.
    app: &'a PlannedContainer,
    /// The stop call.
    stop: &'a SidecarStop,
    /// What its place does to the work's result.
    lost: Lost,
}

impl Violation for StatusLost<'_> {
    const RULE: &'static RuleMeta = &JobExitStatusLost::META;

    fn message(&self) -> String {
        format!(
            "in `{}`, `{}` {}",
            self.app.name, self.stop.written, self.lost.problem
        )
    }

    fn help(&self) -> String {
        self.lost.help.to_owned()
    }
}

/// What a stop call's place does to the work's result, and the remedy, for the
/// statuses that lose it; `None` for [`ExitStatus::Kept`], which the rule does not
/// report.
struct Lost {
    problem: &'static str,
    help: &'static str,
}

fn lost(status: ExitStatus) -> Option<Lost> {
    let (problem, help) = match status {
        ExitStatus::Kept => return None,
        ExitStatus::LostOnFailure => (
            "runs after the work whatever its result: the container exits with the stop call's status, so failed work is reported as success",
            "save and return the work's status: `trap '<stop call>' EXIT` before the work, or `work; rc=$?; <stop call>; exit $rc`",
        ),
        ExitStatus::HangsOnFailure => (
            "runs only when the work succeeds: when it fails the sidecar keeps running and the Job never completes",
            "stop the sidecar on every path: `trap '<stop call>' EXIT` before the work",
        ),
        ExitStatus::BeforeWork => (
            "runs before the work: the sidecar is gone while the work runs, so its network calls fail",
            "stop the sidecar after the work, on every path: `trap '<stop call>' EXIT` before the work",
        ),
        ExitStatus::SkippedOnSuccess => (
            "runs only when the work fails: after successful work the sidecar keeps running and the Job never completes",
            "stop the sidecar on every path: `trap '<stop call>' EXIT` before the work",
        ),
    };
    Some(Lost { problem, help })
}

/// The stop call made the script's EXIT trap, set before the work (see the doc's
/// "Fix"); a signal to another container's process becomes the sidecar's own stop call
/// on the way ([`endpoint_call`]), which needs no shared process namespace. Unsafe: it
/// changes the Job's command.
fn trap_fix(plan: &PodPlan, stop: &SidecarStop) -> Option<Remedy> {
    let at = stop.script.as_ref().filter(|at| at.own_command)?;
    let endpoint = endpoint_call::instead_of_signal(plan, stop);
    let (script, call) = match endpoint {
        Some(endpoint) => {
            endpoint_call::swapped(&at.script, at.call.clone(), &stop.written, endpoint)
        }
        None => (at.script.clone(), at.call.clone()),
    };

    let script = trap_stop_call(&script, call)?;
    let description = match endpoint {
        Some(endpoint) => format!(
            "stop `{}` through its own endpoint, `{}`, instead of `{}`, run as the script's EXIT trap before the work, so it runs on every path and the work's status is kept{}",
            endpoint.sidecar,
            endpoint.call,
            stop.written,
            endpoint_call::client_risk(endpoint)
        ),
        None => format!(
            "run `{}` as the script's EXIT trap, before the work, so it runs on every path and the work's status is kept",
            stop.written
        ),
    };
    Some(Remedy::new(
        Applicability::Unsafe,
        description,
        vec![Change::Set(at.item.clone(), Json::String(script))],
    ))
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
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        if !plan.runs_to_completion() {
            return;
        }
        // A container whose only job is to stop the sidecars exits with its own status,
        // not the work's, which its stop calls cannot lose.
        for (_, app) in plan.work() {
            // A call that cannot stop the sidecar (ML303, ML304) still decides what
            // becomes of the work's status once it is made to work, so both are
            // reported; only a call the shell never makes has no say in it.
            for stop in app
                .sidecar_stops
                .iter()
                .filter(|s| !matches!(s.effective, Err(StopFailure::ReplacedByExec { .. })))
            {
                // Under `OnFailure` the failed work's container restarts and retries,
                // so the sidecar is still wanted: nothing hangs.
                if stop.status == ExitStatus::HangsOnFailure
                    && plan.restart_policy == RestartPolicy::OnFailure
                {
                    continue;
                }
                let Some(lost) = lost(stop.status) else {
                    continue;
                };
                findings.push(
                    Finding::new(
                        &StatusLost { app, stop, lost },
                        Label::key(stop.path.clone(), "the stop call"),
                    )
                    .container(&app.name)
                    .with_fix(trap_fix(plan, stop)),
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
