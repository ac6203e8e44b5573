use crate::resolve::mesh::StatusOff;
use crate::resolve::{
    ContainerId, GateRequest, GateSetting, HookDuration, PlannedContainer, RestartPolicy, Role,
};
use crate::rules::describe;
use crate::rules::help::{container_label_path, is_in_manifest, ready_poll, status_off_remedy};
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Violation, declare_rule};
use crate::settings::Source;
use crate::simulate::Phase;
use crate::time::Millis;

declare_rule! {
    /// ## What it detects
    /// A start gate that is asked for but cannot work: the proxy carries the
    /// `pilot-agent wait` (or `linkerd-await`) postStart hook but is not the first
    /// container, or `holdApplicationUntilProxyStarts` is set yet the proxy has no
    /// postStart that waits (for Istio, a custom `global.proxy.lifecycle` replaced it;
    /// for Linkerd, the pod was injected without `linkerd-await`), or the proxy's
    /// `pilot-agent wait` polls a status port the pod turns off
    /// (`status.sidecar.istio.io/port: "0"`).
    ///
    /// ## Why it loses traffic
    /// A postStart hook only delays the containers *after* its own (docs/lifecycle.md §1.1).
    /// Containers listed before the proxy start at once, before the proxy is ready, and
    /// their first outbound calls fail, exactly as if there were no gate. A custom
    /// proxy lifecycle drops the injected hook altogether (istio#37541). With the status
    /// port off, nothing answers `pilot-agent wait` (it polls `:15021/healthz/ready`,
    /// which Envoy passes to that port): the hook fails after 60 s, the kubelet kills
    /// the proxy (`FailedPostStartHook`) and, once it has drained and exited, starts the
    /// app without it, and the proxy
    /// restarts into the same wait, or, in a Job (`restartPolicy: Never` or
    /// `OnFailure`), stays gone (docs/lifecycle.md §3.5); a native proxy (Istio
    /// 1.19 and 1.20 still add the wait to one) holds everything after it for good.
    ///
    /// ## Example
    /// ```yaml
    /// containers:
    /// - name: app            # starts first, not held
    /// - name: istio-proxy
    ///   lifecycle:
    ///     postStart:
    ///       exec: {command: [pilot-agent, wait]}
    /// ```
    ///
    /// ## Fix
    /// Put the proxy first in `containers` (re-inject rather than editing injected
    /// YAML), or put `pilot-agent wait` back into the custom lifecycle:
    /// ```yaml
    /// global:
    ///   proxy:
    ///     lifecycle:
    ///       postStart:
    ///         exec: {command: [pilot-agent, wait]}
    /// ```
    ///
    /// With the status port off, drop `status.sidecar.istio.io/port: "0"`; or keep it,
    /// turn the hold off for the pod (`holdApplicationUntilProxyStarts: false` in its
    /// `proxy.istio.io/config`, which overrides the mesh's) and have the app's command
    /// poll Envoy's admin (`GET :15000/ready`), which answers without the status port.
    ///
    /// `lint --fix` makes no change: the remedy lies in what the injector reads (a
    /// re-injection, Helm values), not in this file, and reordering containers an
    /// injector wrote would be undone by the next injection; the status port was turned
    /// off on purpose, and which way to go is the user's choice.
    ///
    /// ## Evidence
    /// Proven from the manifest and the timeline: it keeps its error. Assumed when it needs a
    /// reading the input does not state (a hook of unknown length or whose program the image
    /// lacks, a version's default where releases differ): warning, naming the reading and
    /// how to settle it (the default; `--assumed-losses full` keeps the error).
    ///
    /// ## References
    /// - docs/lifecycle.md §1.1 (only later containers wait), §3.2 (layouts B and D), §3.5, §7 F8
    /// - `pilot/cmd/pilot-agent/app/wait.go`, `tools/packaging/common/envoy_bootstrap.json`
    /// - https://github.com/istio/istio/issues/37541
    pub struct ProxyGateIneffective {
        id: "ML102",
        name: "proxy-gate-ineffective",
        severity: Error,
        fix: Never,
        group: Startup,
        summary: "a start gate is configured but cannot hold the app",
        since: "0.1.0",
    }
}

/// What asks for the hold, as users know it: `holdApplicationUntilProxyStarts: true`,
/// `postStart `pilot-agent wait``.
fn asked_by(request: &GateRequest) -> String {
    match &request.asked_by {
        GateSetting::PostStart { command } => format!("postStart `{command}`"),
        GateSetting::Setting {
            name,
            value: Some(value),
        } => format!("{name}: {value}"),
        GateSetting::Setting { name, value: None } => (*name).to_owned(),
    }
}

/// A hold asked for on a proxy that has no postStart hook that waits.
struct NoWaitingHook<'a> {
    /// The proxy meant to hold the app.
    proxy: &'a PlannedContainer,
    /// The setting that asks for the hold.
    request: &'a GateRequest,
}

impl Violation for NoWaitingHook<'_> {
    const RULE: &'static RuleMeta = &ProxyGateIneffective::META;

    fn message(&self) -> String {
        let cause = self
            .proxy
            .remedies()
            .missing_gate_cause
            .map(|cause| format!(" ({cause})"))
            .unwrap_or_default();
        format!(
            "{} asks to hold the app until `{}` is ready, but the proxy has no postStart hook that waits{cause}: the app starts at once",
            asked_by(self.request),
            self.proxy.name
        )
    }

    fn help(&self) -> String {
        self.proxy.remedies().restore_gate.map_or_else(
            || {
                format!(
                    "give `{}` a postStart hook that waits until it is ready",
                    self.proxy.name
                )
            },
            str::to_owned,
        )
    }
}

/// A postStart gate that nothing answers: the pod turned off the status port it polls.
struct GateUnanswered<'a> {
    /// The gated proxy.
    proxy: &'a PlannedContainer,
    /// What the pod's setting changes for the proxy.
    off: &'static StatusOff,
    /// The hook's timeout, when it fails and the kubelet kills the proxy.
    fails_at: Millis,
    /// When the killed proxy is gone, and the kubelet goes on (docs/lifecycle.md §1.1).
    gone: Millis,
    /// The app containers it was to hold, which start then.
    held: Vec<&'a PlannedContainer>,
    /// Whether the kubelet starts the killed proxy again.
    restarts: bool,
    /// The pod's restart policy, which decided it.
    restart: RestartPolicy,
}

impl Violation for GateUnanswered<'_> {
    const RULE: &'static RuleMeta = &ProxyGateIneffective::META;

    fn message(&self) -> String {
        let hook = self.proxy.post_start.as_ref().map(describe::hook);
        let names: Vec<String> = self.held.iter().map(|c| format!("`{}`", c.name)).collect();
        // A native sidecar's next container waits for it to run (§1.2); a classic
        // one's starts anyway (§1.1).
        let then = match names.as_slice() {
            _ if self.proxy.is_native_sidecar() => ", and nothing after it starts".to_owned(),
            [] => String::new(),
            [one] => format!(
                " and, once it is gone at {}, starts {one} without it",
                self.gone
            ),
            [rest @ .., last] => format!(
                " and, once it is gone at {}, starts {} and {last} without it",
                self.gone,
                rest.join(", ")
            ),
        };
        let after = match self.restart {
            _ if self.restarts => "every restart of the proxy runs the same wait",
            RestartPolicy::OnFailure => {
                "the proxy, which exits 0 on the kill, is not restarted under `restartPolicy: OnFailure`"
            }
            _ => "the proxy is not restarted under `restartPolicy: Never`",
        };
        format!(
            "`{}`'s postStart `{}` waits for the proxy's status port, which `{}` turns off: nothing answers it, so it fails at {}, the kubelet kills `{}` (FailedPostStartHook){then}; {after}",
            self.proxy.name,
            hook.unwrap_or_default(),
            self.off.setting,
            self.fails_at,
            self.proxy.name,
        )
    }

    fn help(&self) -> String {
        let app = self
            .held
            .first()
            .map_or_else(|| "the app".to_owned(), |app| format!("`{}`", app.name));
        format!(
            "drop `{}`, so that the wait finds the proxy ready; or, to keep the port off, turn the hold off ({}) and have {app}'s command {} before it starts",
            self.off.setting,
            self.off.hold_off,
            ready_poll(self.proxy)
        )
    }
}

/// A proxy with the postStart gate that app containers start before.
struct GateNotFirst<'a> {
    /// The gated proxy.
    proxy: &'a PlannedContainer,
    /// The setting that asks for the hold.
    request: &'a GateRequest,
    /// The app containers before it, in start order.
    before: Vec<&'a PlannedContainer>,
    /// When the first of them starts.
    started: Millis,
    /// When the proxy is ready.
    ready: Millis,
}

impl Violation for GateNotFirst<'_> {
    const RULE: &'static RuleMeta = &ProxyGateIneffective::META;

    fn message(&self) -> String {
        let names: Vec<String> = self
            .before
            .iter()
            .map(|c| format!("`{}`", c.name))
            .collect();
        let one = names.len() == 1;
        format!(
            "`{}` has the postStart gate ({}), but {} {} before it and {} not held: {} from {} while the proxy is ready only at {}",
            self.proxy.name,
            asked_by(self.request),
            names.join(", "),
            if one { "starts" } else { "start" },
            if one { "is" } else { "are" },
            if one { "it runs" } else { "they run" },
            self.started,
            self.ready
        )
    }

    fn help(&self) -> String {
        format!(
            "make `{}` the first entry of `containers` (re-inject the pod rather than editing injected YAML)",
            self.proxy.name
        )
    }
}

impl Rule for ProxyGateIneffective {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        let timeline = &pod.timeline;
        for (proxy_index, proxy) in plan.proxies() {
            if let Some(finding) = gate_unanswered(pod, proxy_index, proxy) {
                findings.push(finding);
                continue;
            }
            if proxy.is_native_sidecar() {
                continue;
            }
            let Some(request) = &proxy.gate_request else {
                continue;
            };
            let waits = proxy
                .post_start
                .as_ref()
                .is_some_and(|hook| matches!(hook.duration, HookDuration::UntilReady { .. }));
            let ready = timeline.start(proxy_index).ready.unwrap_or_default();
            if !waits {
                let primary = match &request.source {
                    Source::Manifest(path) => Label::key(path.clone(), "asks to hold the app"),
                    _ => Label::key(
                        proxy.finding_path().clone(),
                        format!("{} has no postStart that waits", proxy.name),
                    ),
                };
                findings.push(
                    Finding::new(&NoWaitingHook { proxy, request }, primary).container(&proxy.name),
                );
                continue;
            }
            // Containers before the proxy are not held by its postStart.
            let before: Vec<_> = plan
                .regular()
                .filter(|(i, c)| *i < proxy_index && c.role == Role::App)
                .collect();
            let Some((first_index, first)) = before.first().copied() else {
                continue;
            };
            let started = timeline.start(first_index).started.unwrap_or_default();
            let primary = if is_in_manifest(proxy) {
                Label::value(
                    container_label_path(proxy),
                    format!("{} is not the first container", proxy.name),
                )
            } else {
                Label::key(
                    proxy.finding_path().clone(),
                    format!("{} is not the first container", proxy.name),
                )
            };
            let violation = GateNotFirst {
                proxy,
                request,
                before: before.iter().map(|(_, c)| *c).collect(),
                started,
                ready,
            };
            let mut finding = Finding::new(&violation, primary)
                .container(&proxy.name)
                .window(Phase::Startup, started, ready, Some(&first.name));
            if let Some(path) = first.manifest_path() {
                finding =
                    finding.related(Label::value(path.key("name"), "starts before the proxy"));
            }
            findings.push(finding);
        }
    }
}

/// The finding for a proxy whose postStart gate polls a status port the pod turned off.
fn gate_unanswered(pod: &Pod, index: ContainerId, proxy: &PlannedContainer) -> Option<Finding> {
    let unanswered = proxy
        .post_start
        .as_ref()
        .is_some_and(|hook| hook.duration.is_unanswered());
    let off = status_off_remedy(proxy).filter(|_| unanswered)?;
    let setting = proxy.status_port_off.clone()?;
    let entry = pod.timeline.start(index);
    let (started, fails_at) = (entry.started?, entry.post_start_done?);
    let gone = entry.killed_exit().unwrap_or(fails_at);
    let held: Vec<_> = pod
        .plan
        .containers
        .with_ids()
        .filter(|(id, c)| *id > index && c.role == Role::App)
        .filter(|(id, _)| pod.timeline.start(*id).started.is_some())
        .map(|(_, c)| c)
        .collect();
    let first_held = held.first().map(|c| c.name.clone());
    let violation = GateUnanswered {
        proxy,
        off,
        fails_at,
        gone,
        held,
        restarts: pod.plan.restarts_after_kill(proxy),
        restart: pod.plan.restart_policy,
    };
    let mut finding = Finding::new(
        &violation,
        Label::value(setting, "turns off the status port the wait polls"),
    )
    .container(&proxy.name)
    .window(Phase::Startup, started, gone, first_held.as_deref());
    if let Some(GateRequest {
        source: Source::Manifest(path),
        ..
    }) = &proxy.gate_request
    {
        finding = finding.related(Label::key(path.clone(), "asks to hold the app"));
    }
    Some(finding)
}
