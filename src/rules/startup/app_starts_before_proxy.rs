use crate::resolve::PlannedContainer;
use crate::rules::evidence;
use crate::rules::help::{container_label_path, hold_app, is_in_manifest, status_off_remedy};
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Severity, Violation, declare_rule};
use crate::simulate::Phase;
use crate::time::Millis;

declare_rule! {
    /// ## What it detects
    /// A proxy that runs as a regular container with nothing holding the app until it
    /// is ready: Istio without `holdApplicationUntilProxyStarts`, Linkerd with
    /// `proxy-await` off, any classic sidecar proxy without a start gate. The app
    /// container starts at once and runs while the proxy is still starting.
    ///
    /// ## Why it loses traffic
    /// The kubelet starts regular containers one after another without waiting for
    /// readiness; only a `postStart` hook blocks the next container (docs/lifecycle.md §1.1).
    /// With traffic redirected to a proxy that is not ready, the app's first outbound
    /// calls fail with connection refused or 503, and apps that connect at start-up
    /// crash-loop (istio#4341, istio#32439). In a Job the failed call is the work itself.
    ///
    /// ## Example
    /// ```yaml
    /// template:
    ///   metadata:
    ///     labels:
    ///       sidecar.istio.io/inject: "true"   # proxy injected last, no hold
    ///   spec:
    ///     containers:
    ///     - name: app
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// template:
    ///   metadata:
    ///     annotations:
    ///       proxy.istio.io/config: |
    ///         holdApplicationUntilProxyStarts: true
    /// ```
    /// or `config.linkerd.io/proxy-await: enabled` for Linkerd,
    /// `kuma.io/wait-for-dataplane-ready: "true"` for Kuma (2.4+), or a native sidecar
    /// (Kubernetes 1.29+) whose startupProbe holds the app: for an injected proxy
    /// through its mesh's switch, and only where its injector gives the native sidecar
    /// a startup probe (not Dapr's daprd, docs/lifecycle.md §5.1; not Linkerd's proxy
    /// with proxy-await off, §4.2; not Istio's with its status port off, §3.2). A loop
    /// in the app's own command that polls the proxy's readiness before `exec`-ing the
    /// app works too (for daprd, `GET :3500/v1.0/healthz/outbound`).
    ///
    /// `lint --fix` (safe) sets the hold on the pod template: for Istio
    /// `holdApplicationUntilProxyStarts: true` inside `proxy.istio.io/config`, edited in
    /// that annotation's own format (or a new annotation), for Linkerd
    /// `config.linkerd.io/proxy-await: enabled`, for Kuma
    /// `kuma.io/wait-for-dataplane-ready: "true"`. Each only delays the app's start
    /// until the proxy is ready; for other sidecars the fix is shown, not made: they
    /// have no setting that holds the app, so the remedy is a wait in the app's own
    /// command or a native sidecar, a change to how the pod starts that its owner
    /// decides.
    ///
    /// A proxy already written in the manifest (an injected pod saved as it runs) gets
    /// no fix: both settings are read by the injector, which has already run, so they
    /// would not move or gate the proxy written there (and ML102 would then report the
    /// setting that cannot hold the app). Inject again from the manifest without the
    /// proxy, with the setting on the template; or, keeping the proxy written in it,
    /// move it first in `containers` with the postStart its injector would add (Istio
    /// `pilot-agent wait`, Linkerd `linkerd-await --timeout=2m --port=4191`, Kuma
    /// `kuma-dp wait`; docs/lifecycle.md §3.2, §4.2, §5.3).
    ///
    /// ## Evidence
    /// Proven when the input shows the app calling out (an env value that is a URL or a
    /// `host:port` address, a network client in its command, an image whose only job is to
    /// call out): the finding keeps its severity (error in a Job, warning elsewhere).
    /// Assumed when the input does not say what the app does on the network: one level
    /// lower, with the premise "the app calls out"; info when the app is seen only to serve;
    /// none for an app that only idles (`sleep 3600`, `tail -f /dev/null`, a shell image
    /// with no command), only stops the sidecars, or only waits for and stops processes
    /// (`sleep 30; killall cloud_sql_proxy`). An app whose command sleeps before anything
    /// else (`sleep 20 && psql …`) makes its first call when the sleep is over: no finding
    /// where the proxy is ready by then. A version default or a hook reading
    /// the verdict needs lowers it one level too. These lowerings are the
    /// default; `--assumed-losses full` (config `assumedLosses: full`) keeps every assumed
    /// finding at full severity.
    ///
    /// ## References
    /// - docs/lifecycle.md §1.1 (postStart blocks the next container), §3.2 (layouts A and B), §3.5 (`pilot-agent wait`), §4.2 (`linkerd-await`), §5.1 (Dapr's native daprd has no startup probe), §5.3 (`kuma-dp wait`), §2.8 (a container that only stops the sidecars is not the app)
    /// - https://github.com/istio/istio/issues/4341
    pub struct AppStartsBeforeProxy {
        id: "ML101",
        name: "app-starts-before-proxy",
        severity: Warning,
        fix: Sometimes,
        group: Startup,
        summary: "the app can start and call out before its proxy is ready",
        since: "0.1.0",
    }
}

/// An app container that calls out before its classic proxy is ready.
struct CallsBeforeProxyReady<'a> {
    /// The app that calls out first.
    app: &'a PlannedContainer,
    /// The proxy it calls through.
    proxy: &'a PlannedContainer,
    /// When the app first uses the network.
    first_use: Millis,
    /// When the proxy is ready.
    ready: Millis,
    /// Whether the proxy's start-up time is the default rather than set.
    startup_assumed: bool,
    /// How to hold the app, for the versions in force.
    hold: String,
}

impl Violation for CallsBeforeProxyReady<'_> {
    const RULE: &'static RuleMeta = &AppStartsBeforeProxy::META;

    fn message(&self) -> String {
        let assumed = if self.startup_assumed {
            " (proxy start-up of 2 s assumed; set proxy-startup)"
        } else {
            ""
        };
        // A command that sleeps first calls out once the sleep is over.
        let starts = if self.app.call_delay > Millis::ZERO {
            format!(
                "makes its first call at {} (its command sleeps {} first)",
                self.first_use, self.app.call_delay
            )
        } else {
            format!("starts at {}", self.first_use)
        };
        format!(
            "app container `{}` {starts} but `{}` is ready only at {}{}: its outbound calls in those {} can fail",
            self.app.name,
            self.proxy.name,
            self.ready,
            assumed,
            self.ready - self.first_use
        )
    }

    fn help(&self) -> String {
        // The mesh's hold is read by its injector, which has already run for a proxy
        // written in the manifest.
        let remedies = self.proxy.remedies();
        if is_in_manifest(self.proxy)
            && remedies.hold_app.is_some()
            && status_off_remedy(self.proxy).is_none()
        {
            let hook = match remedies.hold_hook {
                Some(command) => format!(
                    ":\n  containers:\n  - name: {}\n    lifecycle:\n      postStart:\n        exec:\n          command: {command}\n  - name: {}\n",
                    self.proxy.name, self.app.name
                ),
                None => String::new(),
            };
            return format!(
                "`{}` is written in the manifest, so the hold setting, which only its injector reads, no longer applies: move it first in `containers` with the postStart that returns once it is ready, as the injector writes it with the hold{hook}or inject the pod again with the hold on",
                self.proxy.name
            );
        }
        self.hold.clone()
    }
}

impl Rule for AppStartsBeforeProxy {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        let timeline = &pod.timeline;
        for (proxy_index, proxy) in plan.proxies() {
            // Native proxies are ML104's; a gate that is asked for but fails is ML102's.
            if proxy.is_native_sidecar() || proxy.gate_request.is_some() {
                continue;
            }
            let Some(ready) = timeline.start(proxy_index).ready else {
                continue;
            };
            // The work container that uses the network earliest before the proxy is
            // ready (one that only stops the sidecars calls them on localhost; one
            // that only idles or stops processes makes no call at all).
            let exposed = plan
                .work()
                .filter_map(|(i, app)| {
                    let calls_out = evidence::calls_out_premise(app)?;
                    let at = timeline.start(i).first_network_use?;
                    Some((app, at, calls_out))
                })
                .filter(|(_, at, _)| *at < ready)
                .min_by_key(|(_, at, _)| *at);
            let Some((app, first_use, calls_out)) = exposed else {
                continue;
            };
            let (hold, fix) = hold_app(proxy, plan);
            let violation = CallsBeforeProxyReady {
                app,
                proxy,
                first_use,
                ready,
                startup_assumed: !plan.scenario.proxy_startup.is_explicit(),
                hold,
            };
            let severity = if plan.runs_to_completion() {
                Severity::Error
            } else {
                Severity::Warning
            };
            let primary = if is_in_manifest(proxy) {
                Label::value(
                    container_label_path(proxy),
                    format!("{} starts without holding the app", proxy.name),
                )
            } else {
                Label::key(
                    proxy.finding_path().clone(),
                    format!("injects {} without holding the app", proxy.name),
                )
            };
            let mut finding = Finding::new(&violation, primary)
                // The mesh's hold is read by its injector, which has already run for a
                // proxy written in the manifest.
                .with_fix(fix.filter(|_| !is_in_manifest(proxy)))
                .severity(severity)
                .container(&proxy.name)
                .window(Phase::Startup, first_use, ready, Some(&app.name));
            if let Some(path) = app.manifest_path() {
                finding = finding.related(Label::value(
                    path.key("name"),
                    if app.call_delay > Millis::ZERO {
                        format!("first calls out at {first_use}")
                    } else {
                        format!("starts at {first_use}")
                    },
                ));
            }
            finding.evidence.facts.extend(evidence::traffic_fact(app));
            if let Some(premise) = calls_out {
                finding = finding.premise(premise);
            }
            findings.push(finding);
        }
    }
}
