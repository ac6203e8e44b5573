use serde_json::Value as Json;

use crate::fix::{Applicability, Change, Remedy};
use crate::load::JsonPath;
use crate::resolve::mesh::Advice;
use crate::resolve::{HookDuration, PlannedContainer, PodPlan};
use crate::rules::help::{container_label, ready_poll, status_off_remedy, wait_in_app};
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Violation, declare_rule};
use crate::settings::Source;
use crate::simulate::Phase;
use crate::time::Millis;

declare_rule! {
    /// ## What it detects
    /// A native sidecar proxy (an init container with `restartPolicy: Always` that
    /// carries the pod's traffic) with neither a `startupProbe` nor a `postStart` hook that
    /// waits for it to be ready (`pilot-agent wait`, `linkerd-await`, `cloud-sql-proxy
    /// wait`).
    ///
    /// ## Why it loses traffic
    /// The kubelet starts the container after a native sidecar as soon as the sidecar is
    /// running and its startupProbe, if it has one, has passed; a readiness probe does not
    /// hold it (docs/lifecycle.md §1.2). Without a startup probe the app starts while the proxy is
    /// still starting, exactly as with a classic sidecar: its first calls fail.
    ///
    /// ## Example
    /// ```yaml
    /// initContainers:
    /// - name: istio-proxy
    ///   restartPolicy: Always
    ///   readinessProbe: {httpGet: {path: /healthz/ready, port: 15021}}
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    ///   startupProbe:
    ///     httpGet: {path: /healthz/ready, port: 15021}
    ///     periodSeconds: 1
    ///     failureThreshold: 600
    /// ```
    /// (Istio injects this since 1.20 unless `global.proxy.startupProbe.enabled` is off.)
    /// An injected proxy whose injector adds it without a probe and has no setting for
    /// one (Dapr's native daprd, docs/lifecycle.md §5.1) cannot be given one by the
    /// pod: the help has the app's command poll the proxy's readiness before starting
    /// the app (`GET :3500/v1.0/healthz/outbound` for daprd). An Istio proxy whose pod
    /// turns the status port off (`status.sidecar.istio.io/port: "0"`) gets no probes:
    /// the finding points at that setting, and the help has the app poll Envoy's admin
    /// (`GET :15000/ready`) if the port is to stay off. Where the configuration turns
    /// Helm's `global.proxy.startupProbe.enabled` off, the help names it and where it is
    /// set: turned back on, the injector adds the probe (and, with the status port
    /// off, both must change).
    ///
    /// `lint --fix` (safe) turns the gate back on where a mesh setting turned it off
    /// (Linkerd's `config.linkerd.io/proxy-await: disabled` becomes `enabled`, and
    /// the injector adds its startup probe). With `--unsafe-fixes`, a sidecar written
    /// in the manifest with a readinessProbe gets a startupProbe making that same
    /// check (its own readiness endpoint) every second, for up to 120 s: unsafe, as
    /// the containers after it then wait, and never start if it never turns ready. A
    /// sidecar without a readinessProbe gets no fix: the manifest does not say which
    /// endpoint tells that it is ready.
    ///
    /// ## Evidence
    /// Proven from the manifest and the timeline: it keeps its warning. Assumed when it needs a
    /// reading the input does not state (a hook of unknown length or whose program the image
    /// lacks, a version's default where releases differ): info, naming the reading and
    /// how to settle it (the default; `--assumed-losses full` keeps the warning).
    ///
    /// ## References
    /// - docs/lifecycle.md §1.2 (only startupProbe gates the next container), §1.3 (when the prober worker runs a probe), §3.2 (the injected startup probe, on since Istio 1.20), §4.2 (Linkerd's native startup probe), §5.1 (Dapr's native daprd has none)
    /// - https://kubernetes.io/docs/concepts/workloads/pods/sidecar-containers/
    pub struct NativeSidecarNotGated {
        id: "ML104",
        name: "native-sidecar-not-gated",
        severity: Warning,
        fix: Sometimes,
        group: Startup,
        summary: "a native sidecar proxy has no startupProbe, so nothing waits for it",
        since: "0.1.0",
    }
}

/// A native sidecar proxy without a startupProbe, and the container that starts before
/// it is ready.
struct StartsBeforeReady<'a> {
    /// The native proxy.
    proxy: &'a PlannedContainer,
    /// The container after it.
    next: &'a PlannedContainer,
    /// When that container starts.
    next_start: Millis,
    /// When the proxy is ready.
    ready: Millis,
    /// The pod.
    plan: &'a PodPlan,
}

impl Violation for StartsBeforeReady<'_> {
    const RULE: &'static RuleMeta = &NativeSidecarNotGated::META;

    fn message(&self) -> String {
        format!(
            "native sidecar `{}` has no startupProbe: `{}` starts at {} while the proxy is ready only at {}",
            self.proxy.name, self.next.name, self.next_start, self.ready
        )
    }

    /// The mesh's setting that turned the gate off, turned on; for another injected
    /// proxy, whose container the pod cannot change, the app's own wait for it; for a
    /// sidecar written in the manifest, a startupProbe.
    fn help(&self) -> String {
        let proxy = self.proxy;
        // Helm's switch for the injected startupProbe, when it is off.
        let helm_on = |source: &Source| {
            format!("turn Helm `global.proxy.startupProbe.enabled` back on (false in {source})")
        };
        if let Some(off) = status_off_remedy(proxy) {
            let (drop, why) = match &proxy.startup_probe_off {
                Some(source) => (
                    format!("drop `{}` and {}", off.setting, helm_on(source)),
                    format!(
                        "the injector gives `{}` no probes with the first, and no startupProbe with the second",
                        proxy.name
                    ),
                ),
                None => (
                    format!("drop `{}`", off.setting),
                    format!("with it, the injector gives `{}` no probes", proxy.name),
                ),
            };
            return format!(
                "{drop}: {why}, so no startupProbe holds the next container; or, to keep the port off, have `{}`'s command {} before it starts",
                self.next.name,
                ready_poll(proxy)
            );
        }
        if let Some(source) = &proxy.startup_probe_off {
            return format!(
                "{}, so that the injector adds the startupProbe that holds the next container until `{}` is ready; or {}",
                helm_on(source),
                proxy.name,
                wait_in_app(proxy)
            );
        }
        match gate_back_on(proxy, self.plan) {
            Some(advice) => advice.help,
            None if proxy.is_injected() => format!(
                "{} (its injector adds it without a startupProbe, and the pod cannot give it one)",
                wait_in_app(proxy)
            ),
            None => format!(
                "give `{}` a startupProbe on its readiness endpoint (periodSeconds: 1) so the kubelet holds the next container until it passes",
                proxy.name
            ),
        }
    }
}

impl Rule for NativeSidecarNotGated {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        let timeline = &pod.timeline;
        for (index, proxy) in plan.proxies() {
            // A postStart that waits for readiness holds the next container too.
            let waits = proxy
                .post_start
                .as_ref()
                .is_some_and(|h| matches!(h.duration, HookDuration::UntilReady { .. }));
            if !proxy.is_native_sidecar() || proxy.startup_probe.is_some() || waits {
                continue;
            }
            let (Some(started), Some(ready)) =
                (timeline.start(index).started, timeline.start(index).ready)
            else {
                continue;
            };
            let next = plan
                .containers
                .with_ids()
                .filter(|(id, _)| *id > index)
                .map(|(id, c)| (c, timeline.start(id)))
                .find(|(_, e)| e.started.is_some());
            let Some((next, next_entry)) = next else {
                continue;
            };
            let next_start = next_entry.started.unwrap_or(started);
            if next_start >= ready {
                continue;
            }
            let violation = StartsBeforeReady {
                proxy,
                next,
                next_start,
                ready,
                plan,
            };
            findings.push(
                Finding::new(&violation, primary_label(proxy))
                    .with_fix(gate(proxy, plan))
                    .container(&proxy.name)
                    .window(Phase::Startup, next_start, ready, Some(&next.name)),
            );
        }
    }
}

/// The mesh setting that left an injected proxy without its gate
/// (`config.linkerd.io/proxy-await: disabled`).
fn gate_turned_off(proxy: &PlannedContainer) -> Option<&JsonPath> {
    proxy.shaped_by()?.no_startup_gate.as_ref()
}

/// That setting turned back on, as help and as the fix (the mesh's hold).
fn gate_back_on(proxy: &PlannedContainer, plan: &PodPlan) -> Option<Advice> {
    gate_turned_off(proxy)?;
    let hold = proxy.remedies().hold_app?;
    Some(hold(&plan.paths.pod_metadata.key("annotations")))
}

/// The setting that left an injected proxy without its gate, or the proxy itself.
fn primary_label(proxy: &PlannedContainer) -> Label {
    match (gate_turned_off(proxy), &proxy.status_port_off) {
        (Some(path), _) => Label::value(path.clone(), "turns the start-up gate off"),
        (None, Some(path)) => Label::value(path.clone(), "turns off the proxy's probes"),
        (None, None) => container_label(proxy, "nothing waits for it to be ready"),
    }
}

/// How long a startupProbe added by `lint --fix` lets the sidecar take to become ready,
/// polled every second: two minutes, as long as `linkerd-await` waits.
const STARTUP_TRIES: i64 = 120;

/// The gate: for an injected proxy whose mesh setting turned it off, that setting
/// turned on (safe: what the injector does by default); for a sidecar in the manifest
/// with a readinessProbe, a startupProbe making the same check every second (unsafe:
/// the containers after it then wait, and one that never turns ready keeps them from
/// starting).
fn gate(proxy: &PlannedContainer, plan: &PodPlan) -> Option<Remedy> {
    if gate_turned_off(proxy).is_some() {
        return gate_back_on(proxy, plan).map(|advice| advice.fix);
    }
    let path = proxy.manifest_path()?;
    let mut probe = proxy.readiness_check.clone()?;
    let object = probe.as_object_mut()?;
    object.insert("periodSeconds".into(), Json::from(1));
    object.insert("failureThreshold".into(), Json::from(STARTUP_TRIES));
    Some(Remedy::new(
        Applicability::Unsafe,
        format!(
            "give `{}` a startupProbe making its readinessProbe's check every second, for up to {STARTUP_TRIES} s; the containers after it then wait, and never start if it never turns ready",
            proxy.name
        ),
        vec![Change::Set(path.key("startupProbe"), probe)],
    ))
}
