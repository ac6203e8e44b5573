use crate::resolve::{PlannedContainer, SidecarStop, StopFailure, StopMethod, SwitchedOff};
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Violation, declare_rule};

declare_rule! {
    /// ## What it detects
    /// A call in a Job's work that is meant to stop the sidecar but cannot: a call the
    /// shell never makes because `exec` replaced it first (a later command, or an EXIT
    /// trap), pilot-agent's `/quitquitquit` with GET (405) or on the wrong port, Envoy's
    /// own `:15000/quitquitquit` on Istio 1.3 and older (Envoy exits, pilot-agent keeps
    /// running), Linkerd's `:4191/shutdown` where the endpoint is off (the default since
    /// 2.16), a Cloud SQL proxy quit call without `--quitquitquit` (or to v1, which has
    /// none), a stop path on a port nothing serves; and a signal a self-stopping sidecar
    /// never sees: a file the work creates in another volume than the one the sidecar
    /// watches, or in one whose sidecar runs its image's entrypoint and watches nothing,
    /// a kubexit tombstone in another graveyard or not among the sidecar's
    /// `KUBEXIT_DEATH_DEPS`. In an Argo Workflows step, the kill command Argo's controller
    /// execs in an injected sidecar once `main` has exited: `/bin/sh -c 'kill -15 1'` in
    /// a proxy whose image has no shell, a `workflows.argoproj.io/kill-cmd-<container>`
    /// annotation whose program the image lacks or that is not a JSON list, or one that
    /// is the sidecar's own stop call where that call is off (Linkerd's `/shutdown`). A
    /// template's own sidecar stays silent whatever its kill command (its emissary
    /// stops it), and so does a failing call of `main`'s to a sidecar Argo stops.
    ///
    /// ## Why it loses traffic
    /// The sidecar keeps running, so the pod stays `Running` and the Job (or the Argo
    /// step) never completes (docs/lifecycle.md §2.6, §5.7, §7 F2, F3).
    ///
    /// ## Example
    /// ```yaml
    /// command: ["/bin/sh", "-c"]
    /// args:
    /// - |
    ///   trap 'curl -X POST localhost:15020/quitquitquit' EXIT
    ///   exec ./work   # the shell is gone: its trap never runs
    /// ```
    ///
    /// ## Fix
    /// Keep the shell (no `exec`) and call the endpoint that stops the whole sidecar,
    /// with POST:
    /// ```yaml
    /// command: ["/bin/sh", "-c"]
    /// args:
    /// - |
    ///   trap 'curl -fsS -X POST http://localhost:15020/quitquitquit' EXIT
    ///   ./work
    /// ```
    /// For Linkerd, enable the endpoint: `config.linkerd.io/proxy-admin-shutdown: enabled`.
    ///
    /// `lint --fix` makes no change: it would rewrite the Job's own script, whose shell,
    /// `exec` and exit status belong to the work and are its author's to change.
    ///
    /// ## Evidence
    /// Proven from the manifest and the timeline: it keeps its error. Assumed when it needs a
    /// reading the input does not state (a hook of unknown length or whose program the image
    /// lacks, a version's default where releases differ): warning, naming the reading and
    /// how to settle it (the default; `--assumed-losses full` keeps the error).
    ///
    /// ## References
    /// - docs/lifecycle.md §3.4 (agent endpoints: POST only, port 15020; Envoy's exit ends pilot-agent from 1.4), §4.3 (`/shutdown` off since 2.16), §5.4 (Cloud SQL `--quitquitquit`, admin port 9091), §5.7 (Argo Workflows' kill commands), §7 F2, F3, F19
    /// - https://github.com/istio/istio/issues/11659
    /// - https://github.com/cloudnative-pg/cloudnative-pg/pull/5643
    pub struct JobExitCallIneffective {
        id: "ML304",
        name: "job-exit-call-ineffective",
        severity: Error,
        fix: Never,
        group: Jobs,
        summary: "the call meant to stop the sidecar cannot work",
        since: "0.1.0",
    }
}

/// A call in a Job's work meant to stop the sidecar that cannot.
struct CallFails<'a> {
    /// The work's container.
    app: &'a PlannedContainer,
    /// The call.
    stop: &'a SidecarStop,
    /// Why it fails.
    failure: &'a StopFailure,
    /// The call that works instead.
    working_call: &'a str,
    /// The pod, for the command a sidecar's image has.
    plan: &'a crate::resolve::PodPlan,
}

impl Violation for CallFails<'_> {
    const RULE: &'static RuleMeta = &JobExitCallIneffective::META;

    fn message(&self) -> String {
        match &self.stop.method {
            // The workload's controller runs it, not the work.
            StopMethod::Controller { .. } => format!(
                "`{}` does not stop the sidecar: {}",
                self.stop.written,
                reason(self.failure)
            ),
            _ => format!(
                "in `{}`, `{}` does not stop the sidecar: {}",
                self.app.name,
                self.stop.written,
                reason(self.failure)
            ),
        }
    }

    fn help(&self) -> String {
        match self.failure {
            StopFailure::ReplacedByExec { .. } => {
                "drop `exec` so the shell outlives the work, and keep its status: `trap '<stop call>' EXIT` before `./work` (without exec)".to_owned()
            }
            StopFailure::NoShellForArgoKill {
                container,
                offered_fails,
            } => argo_kill_command(self.plan, container, *offered_fails),
            StopFailure::KillProgramMissing { container, .. }
            | StopFailure::KillCommandUnreadable { container, .. } => {
                argo_kill_command(self.plan, container, false)
            }
            StopFailure::SignalNotShared { .. } => {
                "mount one volume (an `emptyDir`) in the work and in the sidecar, and leave and watch the file at the same path below it".to_owned()
            }
            StopFailure::SidecarIgnoresSignal { sidecar, file, .. } => format!(
                "make `{sidecar}` exit once the file is there, with a command that runs its process in the background and then `until [ -f {file} ]; do sleep 1; done; kill $!`; or {}",
                self.working_call
            ),
            // The pod's own sidecar, stopped as its model says.
            StopFailure::NotInPod { container, .. } => self
                .plan
                .containers
                .iter()
                .find(|c| c.name == *container)
                .map_or_else(
                    || self.working_call.to_owned(),
                    |sidecar| crate::rules::help::stop_sidecar(sidecar, self.plan),
                ),
            StopFailure::KubexitNotADeathDep { name, .. } => format!(
                "add `{name}` (the work's KUBEXIT_NAME) to the sidecar's KUBEXIT_DEATH_DEPS"
            ),
            _ => self.working_call.to_owned(),
        }
    }
}

impl Rule for JobExitCallIneffective {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        // The call the pod's proxy answers, found once rather than for each stop (a
        // pod may run thousands of containers).
        let proxy_call = plan
            .proxies()
            .find_map(|(_, proxy)| proxy.remedies().working_stop_call);
        for (app, stop) in plan.work_stops() {
            // Signals that cannot reach the process are ML303's.
            let Err(failure) = &stop.effective else {
                continue;
            };
            if failure.is_unreachable_signal() {
                continue;
            }
            // The workload's controller stops the sidecar anyway (an Argo step).
            if plan.controller_stops_anyway(stop) {
                continue;
            }
            let violation = CallFails {
                app,
                stop,
                failure,
                working_call: working_call(&stop.method, proxy_call),
                plan,
            };
            findings.push(
                Finding::new(
                    &violation,
                    Label::key(stop.path.clone(), "does not stop the sidecar"),
                )
                .container(&app.name),
            );
        }
    }
}

/// Why the call does not stop the sidecar.
fn reason(failure: &StopFailure) -> String {
    match failure {
        StopFailure::ReplacedByExec { exec } => format!(
            "`{exec}` replaces the shell first, so the shell never gets to it (an EXIT trap does not run either)"
        ),
        StopFailure::NeedsPost { endpoint } => {
            format!("{endpoint} only accepts POST; this call sends GET and gets 405")
        }
        StopFailure::SwitchedOff {
            owner,
            endpoint,
            off,
        } => switched_off(owner, endpoint, off),
        StopFailure::NoStopCall { sidecar, command } => match sidecar.remedies().no_stop_call {
            Some(why) => why(*command),
            None => format!(
                "the {} has no stop call: only a signal stops it",
                sidecar.label()
            ),
        },
        StopFailure::NotInPod {
            written_for,
            in_pod,
            container,
        } => format!(
            "it is the {}'s stop call, and this pod runs none: its sidecar is the {} `{container}`, which the call does not reach",
            written_for.label(),
            in_pod.label()
        ),
        StopFailure::NothingOnPort { port, path, served } => format!(
            "nothing in this pod serves {path} on port {port}; {} listens on {}",
            served.by, served.port
        ),
        StopFailure::WrongPort {
            owner,
            endpoint,
            port,
            admin_port,
        } => format!("{owner}'s {endpoint} is on the admin port {admin_port}, not {port}"),
        StopFailure::PartStops {
            release,
            stopped,
            running,
            issue,
            instead,
        } => format!(
            "in {release} {running} keeps running when {stopped} exits, so the pod stays Running ({issue}); call {instead}"
        ),
        StopFailure::NoShellForArgoKill { container, .. } => format!(
            "once the work has exited, Argo Workflows runs it in `{container}` to stop it, and that image has no shell: `{container}` keeps running and the step never completes"
        ),
        StopFailure::KillProgramMissing { container, program } => format!(
            "once the work has exited, Argo Workflows runs this kill command (its `kill-cmd` annotation) in `{container}`, and that image has no `{program}`: the exec fails, `{container}` keeps running and the step never completes"
        ),
        StopFailure::KillCommandUnreadable {
            container,
            annotation,
        } => format!(
            "Argo Workflows reads `{annotation}` as a JSON list of strings, and this is not one: it signals nothing, `{container}` keeps running and the step never completes"
        ),
        StopFailure::SignalNotShared {
            sidecar,
            waits_at,
            waits_in,
            leaves_at,
            leaves_in,
        } => {
            let place = |path: &str, volume: &Option<String>| match volume {
                Some(volume) => format!("{path} (volume `{volume}`)"),
                None => format!("{path} (its own filesystem, no volume)"),
            };
            format!(
                "`{sidecar}` waits at {}, but the work leaves it at {}: the two never meet, so `{sidecar}` keeps running",
                place(waits_at, waits_in),
                place(leaves_at, leaves_in)
            )
        }
        StopFailure::SidecarIgnoresSignal {
            sidecar,
            file,
            own_entrypoint: true,
        } => format!(
            "`{sidecar}` runs its image's own entrypoint, which does not watch {file}: creating it stops nothing"
        ),
        StopFailure::SidecarIgnoresSignal {
            sidecar,
            file,
            own_entrypoint: false,
        } => format!(
            "the command of `{sidecar}` does not wait for {file}: creating it stops nothing"
        ),
        StopFailure::KubexitNotADeathDep {
            sidecar,
            name,
            deaths,
        } => format!(
            "kubexit in `{sidecar}` stops it on the death of {}, but the work's tombstone is `{name}` (KUBEXIT_NAME)",
            if deaths.is_empty() {
                "nothing (no KUBEXIT_DEATH_DEPS)".to_owned()
            } else {
                crate::rules::help::quoted_list(deaths, ", ")
            }
        ),
        // ML303's, which the check leaves to it.
        StopFailure::NoSharedProcessNamespace | StopFailure::OtherUser { .. } => {
            "the signal cannot reach the sidecar's process".into()
        }
    }
}

/// The call that works instead: the one of the sidecar the call is written for, or
/// else `proxy_call`, that of the pod's proxy.
fn working_call(method: &StopMethod, proxy_call: Option<&'static str>) -> &'static str {
    method
        .written_for()
        .and_then(|kind| kind.remedies().working_stop_call)
        .or(proxy_call)
        .unwrap_or("call the sidecar's own stop endpoint, with POST, on the port it serves")
}

/// What leaves `owner`'s stop `endpoint` off.
fn switched_off(owner: &str, endpoint: &str, off: &SwitchedOff) -> String {
    match off {
        SwitchedOff::Flag {
            flag,
            command: None,
        } => format!("{owner} serves {endpoint} only when started with {flag}"),
        SwitchedOff::Flag {
            flag,
            command: Some(command),
        } => format!("`{command}` needs the proxy started with {flag}"),
        SwitchedOff::Annotation { key } => {
            format!("`{key}: disabled` leaves {owner}'s {endpoint} endpoint off (404)")
        }
        SwitchedOff::ContainerEnv { variable, value } => {
            format!("the injected proxy has {variable}={value}: {endpoint} answers 404")
        }
        SwitchedOff::InstallValue { setting, source } => format!("{setting} is off ({source})"),
        SwitchedOff::ReleaseDefault {
            release,
            since,
            key,
        } => format!(
            "{owner} {release} serves {endpoint} only with `{key}: enabled` (off by default since {since})"
        ),
        SwitchedOff::UnknownRelease { since, key } => format!(
            "{owner} {since} and later serve {endpoint} only with `{key}: enabled` ({owner} version unknown, newest assumed)"
        ),
    }
}

/// The `workflows.argoproj.io/kill-cmd-<container>` annotation that gives Argo a
/// command the sidecar's image has (argo-workflows `docs/sidecar-injection.md`).
/// `offered_fails`: that command is the sidecar's own stop call, which is off in this
/// pod (Linkerd's `/shutdown`, off by default since 2.16), so the help says what turns
/// it on.
fn argo_kill_command(
    plan: &crate::resolve::PodPlan,
    container: &str,
    offered_fails: bool,
) -> String {
    let remedies = plan
        .containers
        .iter()
        .find(|c| c.name == container)
        .map(|c| c.remedies());
    let command = remedies
        .and_then(|r| r.kill_command)
        .unwrap_or(r#"["<a program in the image that stops it>"]"#);
    let enable = match remedies.and_then(|r| r.working_stop_call) {
        Some(call) if offered_fails => {
            format!("\nthat command is the proxy's own stop call, so also {call}")
        }
        _ => String::new(),
    };
    format!(
        "give Argo a command the image has, in the workflow's `podMetadata` (or the template's `metadata`):\n  annotations:\n    workflows.argoproj.io/kill-cmd-{container}: '{command}'{enable}"
    )
}
