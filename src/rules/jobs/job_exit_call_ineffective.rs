use crate::resolve::{Ineffective, IneffectiveKind, StopMethod};
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, declare_rule};

declare_rule! {
    /// ## What it detects
    /// A call in a Job's work that is meant to stop the sidecar but cannot: a call the
    /// shell never makes because `exec` replaced it first (a later command, or an EXIT
    /// trap), pilot-agent's `/quitquitquit` with GET (405) or on the wrong port, Envoy's
    /// own `:15000/quitquitquit` on Istio 1.3 and older (Envoy exits, pilot-agent keeps
    /// running), Linkerd's `:4191/shutdown` where the endpoint is off (the default since
    /// 2.16), a Cloud SQL proxy quit call without `--quitquitquit`, a stop path on a port
    /// nothing serves.
    ///
    /// ## Why it loses traffic
    /// The sidecar keeps running, so the pod stays `Running` and the Job never completes
    /// (docs/lifecycle.md §2.6, §7 F2, F3).
    ///
    /// ## Example
    /// ```yaml
    /// command: ["/bin/sh", "-c", "trap 'curl -X POST localhost:15020/quitquitquit' EXIT; exec ./work"]
    /// ```
    ///
    /// ## Fix
    /// Keep the shell (no `exec`) and call the endpoint that stops the whole sidecar,
    /// with POST:
    /// ```yaml
    /// command: ["/bin/sh", "-c", "trap 'curl -fsS -X POST http://localhost:15020/quitquitquit' EXIT; ./work"]
    /// ```
    /// For Linkerd, enable the endpoint: `config.linkerd.io/proxy-admin-shutdown: enabled`.
    ///
    /// ## References
    /// - docs/lifecycle.md §3.4 (agent endpoints: POST only, port 15020; Envoy's exit ends pilot-agent from 1.4), §4.3 (`/shutdown` off since 2.16), §5.4 (Cloud SQL `--quitquitquit`, admin port 9091), §7 F2, F3, F19
    /// - https://github.com/istio/istio/issues/11659
    /// - https://github.com/cloudnative-pg/cloudnative-pg/pull/5643
    pub struct JobExitCallIneffective {
        id: "ML304",
        name: "job-exit-call-ineffective",
        severity: Error,
        group: Jobs,
        summary: "the call meant to stop the sidecar cannot work",
    }
}

impl Rule for JobExitCallIneffective {
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
                // Signals that cannot reach the process are ML303's.
                let Err(Ineffective { kind, reason }) = &stop.effective else {
                    continue;
                };
                let help = match (kind, &stop.method) {
                    (IneffectiveKind::ProcessNamespace | IneffectiveKind::Permission, _) => {
                        continue;
                    }
                    (IneffectiveKind::NeverRuns, _) => {
                        "drop `exec` so the shell outlives the work, and keep its status: `trap '<stop call>' EXIT` before `./work` (without exec)".to_owned()
                    }
                    (IneffectiveKind::Call, method) => match method {
                        StopMethod::LinkerdShutdown { .. } | StopMethod::LinkerdAwaitShutdown => {
                        "enable the endpoint on the pod template: config.linkerd.io/proxy-admin-shutdown: enabled".to_owned()
                    }
                    StopMethod::CloudSqlQuit { .. } => "start the Cloud SQL proxy with --quitquitquit".to_owned(),
                    _ => "call pilot-agent with POST: curl -fsS -X POST http://localhost:15020/quitquitquit".to_owned(),
                    },
                };
                findings.push(
                    Finding::new(
                        &Self::META,
                        Label::key(stop.path.clone(), "does not stop the sidecar"),
                        format!(
                            "in `{}`, `{}` does not stop the sidecar: {reason}",
                            app.name, stop.text
                        ),
                        help,
                    )
                    .container(&app.name),
                );
            }
        }
    }
}
