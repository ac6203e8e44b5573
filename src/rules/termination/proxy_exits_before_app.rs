use crate::resolve::{PlannedContainer, Role};
use crate::rules::evidence::{self, Premise};
use crate::rules::help::{PendingRequests, container_label, keep_proxy_until_app_exits};
use crate::rules::stay::{self, StayAnswer};
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Violation, declare_rule};
use crate::settings::version::KubeVersion;
use crate::simulate::{Phase, StopEntry};
use crate::time::Millis;

declare_rule! {
    /// ## What it detects
    /// On the simulated termination, a proxy stops carrying traffic while an app
    /// container is still running: the app's outbound calls and its responses to
    /// in-flight requests have nowhere to go. The finding states the window in seconds.
    ///
    /// ## Why it loses traffic
    /// All containers get their preStop hooks and signals independently, and a classic
    /// proxy is not told to wait for the app (docs/lifecycle.md §2.2). Istio's agent kills Envoy
    /// `terminationDrainDuration` (5 s) after SIGTERM; Linkerd refuses new connections
    /// from SIGTERM on, and Dapr's `daprd` closes the API the app calls
    /// (docs/lifecycle.md §3.6, §4.3, §5.1). An app that sleeps in preStop, or takes a
    /// while to shut down, outlives its proxy (istio#7136, istio#36631).
    ///
    /// ## Example
    /// ```yaml
    /// - name: app           # serves until 30 s
    ///   lifecycle: {preStop: {exec: {command: [sleep, "25"]}}}
    /// - name: istio-proxy   # gone at 10 s
    ///   lifecycle: {preStop: {exec: {command: [sleep, "5"]}}}
    /// ```
    ///
    /// ## Fix
    /// Make the proxy leave after the app: Istio's `EXIT_ON_ZERO_ACTIVE_CONNECTIONS`
    /// (it exits once the app's connections close), a longer `terminationDrainDuration`,
    /// Linkerd's `proxy-wait-before-exit-seconds` longer than the app's preStop plus
    /// shutdown, Dapr's `dapr.io/block-shutdown-duration`, Consul's proxy lifecycle with
    /// its `sidecar-proxy-lifecycle-shutdown-grace-period-seconds`, or a native sidecar,
    /// which the kubelet stops only after the app:
    /// ```yaml
    /// proxy.istio.io/config: |
    ///   proxyMetadata:
    ///     EXIT_ON_ZERO_ACTIVE_CONNECTIONS: "true"
    /// ```
    ///
    /// One value answers this finding and the proxy's ML203: the smallest value of the
    /// proxy's own setting that clears both, computed once from the timeline (the app's
    /// exit with the scenario's `app-shutdown`, endpoint removal with its
    /// `endpoint-propagation`); both helps give it and say that it clears the other.
    ///
    /// `lint --fix` makes that change: Linkerd's `proxy-wait-before-exit-seconds`
    /// (on a proxy written in the manifest, which its injector no longer reads, the
    /// proxy's preStop `exec: {command: [/bin/sleep, "N"]}` as the injector writes it),
    /// Istio's `terminationDrainDuration` in `proxy.istio.io/config` (which pilot-agent
    /// itself reads, injected or not), Dapr's `dapr.io/block-shutdown-duration`
    /// (unsafe: Dapr 1.13+), Consul's
    /// `consul.hashicorp.com/sidecar-proxy-lifecycle-shutdown-grace-period-seconds` with
    /// `consul.hashicorp.com/enable-sidecar-proxy-lifecycle: "true"` (unsafe: where the
    /// lifecycle was off, it also starts the dataplane before the app). It is safe when the times it rests on are set, unsafe when
    /// they are assumed (the value is then a guess to review). `EXIT_ON_ZERO_ACTIVE_CONNECTIONS`
    /// stays the help's alternative: whether the app's connections close is not in the
    /// manifest. No fix for the Cloud SQL proxy's flags or an injected `daprd`'s args
    /// (a flag is a word of the container's command line, written as `--flag=N`,
    /// `--flag N` or inside a script, which the fix does not rewrite: the help gives
    /// the flag and its value), for Kuma's drain time (its one value is not
    /// computed: the help names the setting), or for a sidecar with no setting of
    /// its own (there is nothing to set); none on
    /// a Job, whose proxy is better made a native sidecar (ML301's fix, which clears
    /// this too, and which Linkerd before 2.20 refuses beside a wait); and none that
    /// the check against the timeline refuses (a value past the grace period).
    ///
    /// ## Evidence
    /// Proven when the input shows the app calling out (an env value that is a URL or a
    /// `host:port` address, a network client in its command, an image whose only job is to
    /// call out, or a proxy that carries only outbound connections, as the Cloud SQL proxy
    /// does) and the app outlives the proxy by what the input states (its preStop, its
    /// grace period): an error. Assumed, one level lower (warning), when the app's role is
    /// unknown (premise "the app calls out while its proxy is gone"), when only the default
    /// app shutdown time makes it outlive the proxy (settle with `--app-shutdown` or
    /// `mesh-lifecycle.io/app-shutdown`), or when a version default decides the proxy's
    /// layout (settle with the mesh's version flag). Info when the app is seen only to serve
    /// (ports, probes, a Service, and no call out). No finding for an app that only idles.
    /// A proxy whose PID-1 shell drops SIGTERM never refuses connections on its signal: it
    /// carries traffic until SIGKILL, as the timeline and ML210 say. These lowerings
    /// are the default; `--assumed-losses full` (config `assumedLosses: full`) keeps every
    /// assumed finding an error.
    ///
    /// ## References
    /// - docs/lifecycle.md §2.2 (independent kills), §2.4 (native ordering), §2.7 (an app whose shell drops SIGTERM runs until SIGKILL), §3.6 (pilot-agent shutdown), §4.3 (Linkerd shutdown), §5.1 (daprd), §6 (`p_app + s_app ≤ p_sc + D`), §7 F10
    /// - https://github.com/istio/istio/issues/7136
    pub struct ProxyExitsBeforeApp {
        id: "ML202",
        name: "proxy-exits-before-app",
        severity: Error,
        fix: Sometimes,
        group: Termination,
        summary: "the proxy is gone while the app still serves or calls out",
        since: "0.1.0",
    }
}

/// A proxy that stops carrying the app's traffic while the app still runs.
struct GoneBeforeApp<'a> {
    /// The proxy.
    proxy: &'a PlannedContainer,
    /// Its stop signal.
    proxy_signal: Millis,
    /// When it stops carrying traffic.
    gone: Millis,
    /// Whether it only refuses new connections then (Linkerd), rather than being gone.
    refuses_new: bool,
    /// The app that runs longest after that.
    app: &'a PlannedContainer,
    /// The app's stop on the timeline.
    app_stop: &'a StopEntry,
    /// The requests that decide the app's exit, when they do.
    requests: Option<PendingRequests<'a>>,
    /// Whether the app's shutdown time is the default rather than set.
    shutdown_assumed: bool,
    /// The cluster's version, which decides whether a native sidecar is an option.
    kubernetes: KubeVersion,
    /// The value of the proxy's own setting that clears this and its other hazards.
    stay: Option<StayAnswer>,
}

impl Violation for GoneBeforeApp<'_> {
    const RULE: &'static RuleMeta = &ProxyExitsBeforeApp::META;

    fn message(&self) -> String {
        let (how, lost) = if self.refuses_new {
            ("refuses new connections", "its new outbound calls")
        } else {
            ("is gone", "its outbound calls and responses")
        };
        format!(
            "`{}` {how} at {} while `{}` runs until {} {}: {lost} in those {} fail",
            self.proxy.name,
            self.gone,
            self.app.name,
            self.app_stop.exit,
            self.app_timing(),
            self.app_stop.exit - self.gone,
        )
    }

    fn help(&self) -> String {
        keep_proxy_until_app_exits(
            self.proxy,
            self.kubernetes,
            self.app_stop.exit - self.proxy_signal.min(self.gone),
            self.stay.as_ref().map(|stay| stay.help_for(Self::RULE)),
        )
    }
}

impl GoneBeforeApp<'_> {
    /// "(preStop until 25 s, then 5 s to exit, assumed; set app-shutdown)".
    fn app_timing(&self) -> String {
        let stop = self.app_stop;
        if let Some(requests) = self.requests {
            let killed = if stop.killed { ", SIGKILLed" } else { "" };
            return format!("({requests}{killed})");
        }
        let shutdown = stop.exit - stop.signal;
        let note = if self.shutdown_assumed && self.app.role == Role::App {
            ", assumed; set app-shutdown"
        } else {
            ""
        };
        match stop.pre_stop_end {
            Some(end) if end.0 > 0 => {
                format!("(preStop until {end}, then {shutdown} to exit{note})")
            }
            _ => format!(
                "(SIGTERM at {}, then {shutdown} to exit{note})",
                stop.signal
            ),
        }
    }
}

impl Rule for ProxyExitsBeforeApp {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        let timeline = &pod.timeline;
        for (proxy_index, proxy) in plan.proxies() {
            let Some(proxy_stop) = timeline.stop(proxy_index) else {
                continue;
            };
            let Some(stay::LateApp {
                gone,
                app: (_, app, app_stop),
            }) = stay::late_app(plan, timeline, proxy_stop)
            else {
                continue;
            };
            // An app that only idles makes no call the proxy could drop. A proxy that
            // carries no inbound traffic (the Cloud SQL proxy) is there for the app's
            // calls out: the pod shows them.
            let outbound_only = proxy.traffic.is_some_and(|t| {
                t.inbound_refused == crate::resolve::Cut::Never
                    && t.inbound_drained == crate::resolve::Cut::Never
            });
            let Some(calls_out) = evidence::calls_out_premise(app) else {
                continue;
            };
            let calls_out = calls_out.filter(|_| !outbound_only);
            // Linkerd refuses new connections from its signal but lets in-flight ones
            // finish; Istio's Envoy carries everything until it is killed.
            let refuses_new = proxy
                .traffic
                .is_some_and(|t| t.outbound_refused != crate::resolve::Cut::Exit);
            let stay = stay::answer(plan, timeline, proxy_index);
            let fix = stay.as_ref().and_then(|stay| stay.fix.clone());
            let violation = GoneBeforeApp {
                proxy,
                proxy_signal: proxy_stop.signal,
                gone,
                refuses_new,
                app,
                app_stop,
                requests: PendingRequests::of(plan, app_stop),
                shutdown_assumed: !plan.scenario.app_shutdown.is_explicit(),
                kubernetes: plan.kubernetes.value,
                stay,
            };
            let mut finding = Finding::new(&violation, proxy_label(proxy, gone))
                .container(&proxy.name)
                .window(Phase::Termination, gone, app_stop.exit, Some(&app.name))
                .with_proposal(fix);
            if let Some(label) = app_label(app, app_stop) {
                finding = finding.related(label);
            }
            finding.evidence.facts.extend(evidence::traffic_fact(app));
            if outbound_only {
                finding = finding.fact(format!(
                    "`{}` carries only the pod's outbound connections",
                    proxy.name
                ));
            }
            if let Some(premise) = calls_out {
                finding = finding.premise(premise);
            }
            // The app outlives the proxy only for its assumed shutdown time.
            let shutdown = app_stop.exit - app_stop.signal;
            if violation.shutdown_assumed
                && violation.requests.is_none()
                && app.role == Role::App
                && app_stop.exit - shutdown <= gone
            {
                finding = finding.premise(Premise::app_shutdown(&app.name, shutdown));
            }
            findings.push(finding);
        }
    }
}

/// Where to point at the proxy: its preStop, or the container.
fn proxy_label(proxy: &PlannedContainer, gone: crate::time::Millis) -> Label {
    match proxy
        .pre_stop
        .as_ref()
        .and_then(|h| h.finding_path().cloned())
    {
        Some(path) => Label::key(path, format!("gone at {gone}")),
        None => container_label(proxy, format!("gone at {gone}")),
    }
}

fn app_label(app: &PlannedContainer, stop: &StopEntry) -> Option<Label> {
    match app.pre_stop.as_ref().and_then(|h| h.path.clone()) {
        Some(path) => Some(Label::key(path, format!("runs until {}", stop.exit))),
        None => app
            .manifest_path()
            .map(|p| Label::value(p.key("name"), format!("runs until {}", stop.exit))),
    }
}
