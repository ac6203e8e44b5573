use serde_json::Value as Json;

use super::endpoint_call;
use crate::fix::{Applicability, Change, Remedy};
use crate::resolve::{PlannedContainer, PodPlan, SidecarStop, StopFailure, StopMethod};
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Violation, declare_rule};

declare_rule! {
    /// ## What it detects
    /// A Job's work stops its sidecar by signalling the sidecar's process (`pkill`,
    /// `kill`, `killall`) when it cannot: without `shareProcessNamespace: true` the
    /// process is not visible from the work's container, and a work container running
    /// as another non-root user may not signal it. An Argo Workflows step stays silent
    /// where Argo signals that sidecar itself once `main` has exited (docs/lifecycle.md
    /// §5.7).
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
    /// Stop the sidecar through its own endpoint, which needs nothing shared:
    /// ```yaml
    ///     command:
    ///     - /bin/sh
    ///     - -c
    ///     - ./work; curl -fsS -X POST localhost:15020/quitquitquit
    /// ```
    /// or run it as a native sidecar, which the kubelet stops once the work is done.
    /// `spec.shareProcessNamespace: true` would let the signal through, but it shows
    /// the work container every process of the proxy, its environment and its workload
    /// certificates under `/proc`, and makes the pause container PID 1: the help names
    /// it only where the sidecar has no stop endpoint (Cloud SQL proxy v1).
    ///
    /// `lint --fix --unsafe-fixes` (unsafe) replaces the signal in the work's script
    /// with the sidecar's stop call (Istio's `/quitquitquit` on the status port in use,
    /// the Cloud SQL proxy's `/quitquitquit` where it is served, Linkerd's `/shutdown`
    /// where it is enabled). Unsafe because it changes the Job's command, and, where
    /// the script does not run `curl` itself, assumes the image has it. No fix sets
    /// `shareProcessNamespace`.
    ///
    /// ## Evidence
    /// Proven from the manifest and the timeline: it keeps its error. Assumed when it needs a
    /// reading the input does not state (a hook of unknown length or whose program the image
    /// lacks, a version's default where releases differ): warning, naming the reading and
    /// how to settle it (the default; `--assumed-losses full` keeps the error).
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
                "stop the sidecar through its API instead ({api}), or run it as a native sidecar"
            ),
            (false, None) => "run the sidecar as a native sidecar, or set `spec.shareProcessNamespace: true` (risk: the work then sees the sidecar's processes, their environment and files under /proc)".to_owned(),
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
            // The workload's controller stops the sidecar anyway (an Argo step).
            if plan.controller_stops_anyway(stop) {
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
                .with_fix(stop_call_instead(plan, stop))
                .container(&app.name)
                .related(Label::key(
                    plan.pod_spec_path().key("shareProcessNamespace"),
                    "process namespace",
                )),
            );
        }
    }
}

/// The signal replaced, where it is written in the work's script, by the stop call of
/// the sidecar it is meant for ([`endpoint_call`]). `spec.shareProcessNamespace` is
/// never set: it would show the work every process of the proxy, its environment and
/// its workload certificates. Unsafe: it changes the Job's command. `None` when the
/// sidecar has no stop call that works here, or the call's place is not the
/// manifest's to rewrite (a mounted script).
fn stop_call_instead(plan: &PodPlan, stop: &SidecarStop) -> Option<Remedy> {
    let endpoint = endpoint_call::instead_of_signal(plan, stop)?;
    let at = stop.script.as_ref()?;
    let (script, _) = endpoint_call::swapped(&at.script, at.call.clone(), &stop.written, endpoint);
    Some(Remedy::new(
        Applicability::Unsafe,
        format!(
            "stop `{}` through its own endpoint: replace `{}` with `{}`, which needs no shared process namespace{}",
            endpoint.sidecar,
            stop.written,
            endpoint.call,
            endpoint_call::client_risk(endpoint)
        ),
        vec![Change::Set(at.item.clone(), Json::String(script))],
    ))
}
