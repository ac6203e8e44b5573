use serde_json::Value as Json;

use crate::fix::{Applicability, Change, Remedy};
use crate::resolve::{
    ContainerId, Hook, HookAction, HookDuration, HookEffect, PlannedContainer, PodPlan,
};
use crate::rules::fixes::Proposal;
use crate::rules::headroom::Headroom;
use crate::rules::help::container_label;
use crate::rules::stay;
use crate::rules::termination::inbound_closed_before_endpoints_removed::request_premises;
use crate::rules::{Finding, Label, Pod, Premise, Rule, RuleMeta, Violation, declare_rule};
use crate::settings::version::KubeVersion;
use crate::simulate::{self, Phase};
use crate::time::Millis;

declare_rule! {
    /// ## What it detects
    /// A serving app container (it declares ports or a readiness probe, in a workload
    /// that is not a Job) that gets SIGTERM before endpoint removal has propagated,
    /// because it has no preStop delay, or one too short. It matters with or without a
    /// mesh: endpoint propagation is the same for every pod.
    ///
    /// A preStop hook whose length cannot be read from the manifest (a program other
    /// than `sleep`, such as `nodetool drain`, or an `httpGet`) is the delay its author
    /// chose: the rule stays silent, and `explain` draws the hook as of unknown length.
    ///
    /// ## Why it loses traffic
    /// The kubelet sends SIGTERM while load balancers and other proxies still route new
    /// requests to the pod (docs/lifecycle.md §2.1). An app that stops accepting on SIGTERM
    /// refuses them: the familiar 502/503 spike of rolling updates (kubernetes#43576,
    /// istio#12183). A short preStop sleep is the standard mitigation (docs/lifecycle.md §6).
    ///
    /// ## Example
    /// ```yaml
    /// containers:
    /// - name: web
    ///   ports: [{containerPort: 8080}]
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    ///   lifecycle:
    ///     preStop:
    ///       sleep: {seconds: 5}      # Kubernetes 1.30+; else exec: [sleep, "5"]
    /// ```
    /// In a meshed pod the proxy must keep serving that long too (ML202 and ML203 check
    /// it).
    ///
    /// `lint --fix` adds a preStop delay until endpoint removal has propagated, plus
    /// headroom, in whole seconds: the `sleep` action where the Kubernetes version runs
    /// it (1.30+), else `exec: {command: [sleep, "N"]}` where the image has `sleep` (not a
    /// distroless one); an existing `sleep` action or `[sleep, "N"]` command is
    /// lengthened. In a meshed pod the delay goes with the proxy's own setting to stay
    /// until the delayed app has exited (Istio's `terminationDrainDuration`, Linkerd's
    /// `proxy-wait-before-exit-seconds`, Dapr's block), so that the app does not serve
    /// past its proxy (ML202); where the proxy has no such setting, the check against the
    /// timeline refuses the fix. The fix is safe only where nothing it rests on is
    /// assumed: the endpoint propagation, the Kubernetes version for the `sleep` action,
    /// the app's shutdown time in the proxy's value, and, on a pod that shows no proxy,
    /// that no mesh injects its namespace (whose labels the input does not show); else it
    /// is unsafe (`--unsafe-fixes`) and its title says what it assumes. Where a comment
    /// in the pod spec speaks of the hook ("No pre-stop hook is required"), the change is
    /// left to the author. Another kind of hook (a `tcpSocket` one, which the kubelet
    /// fails at once, or a command other than `[sleep, "N"]`) is left to the user:
    /// replacing it would drop what it does, and its length is not one number to raise.
    ///
    /// ## Evidence
    /// Info either way, as its default: proven when a Service of the input selects the pod
    /// and the app's signal comes at 0 s; otherwise it names the premises it needs
    /// ("requests arrive", the default endpoint propagation) with how to settle them. A pod
    /// without labels is in no Service's endpoints: no finding.
    ///
    /// ## References
    /// - docs/lifecycle.md §2.1 (endpoint removal races SIGTERM), §2.3 (the sleep action), §6 (endpoint propagation), §7 F11
    /// - https://github.com/kubernetes/kubernetes/issues/43576
    pub struct AppWithoutPrestopDelay {
        id: "ML207",
        name: "app-without-prestop-delay",
        severity: Info,
        fix: Sometimes,
        group: Termination,
        summary: "a serving app gets SIGTERM while endpoints still route to it",
        since: "0.1.0",
    }
}

/// A serving app signalled while endpoints still route new requests to it.
struct SignalledWhileRouted<'a> {
    /// The app.
    app: &'a PlannedContainer,
    /// When it gets its stop signal.
    signal: Millis,
    /// When the endpoints stop routing to the pod.
    removed: Millis,
    /// Whether endpoint propagation is the default rather than set.
    propagation_assumed: bool,
    /// The pod's proxies, which must keep serving as long as the delay.
    proxies: Vec<&'a PlannedContainer>,
    /// The cluster's version, which decides whether the sleep action is available.
    kubernetes: KubeVersion,
}

impl Violation for SignalledWhileRouted<'_> {
    const RULE: &'static RuleMeta = &AppWithoutPrestopDelay::META;

    fn message(&self) -> String {
        format!(
            "`{}` gets SIGTERM at {} but endpoints route new requests to it until {}{}: requests arriving in between can be refused",
            self.app.name,
            self.signal,
            self.removed,
            if self.propagation_assumed {
                " (endpoint propagation of 5 s assumed)"
            } else {
                ""
            }
        )
    }

    /// A preStop delay, and in a meshed pod a proxy that serves as long.
    fn help(&self) -> String {
        let sleep = if self.kubernetes.has_sleep_action() {
            "lifecycle: {preStop: {sleep: {seconds: 5}}}"
        } else {
            "lifecycle: {preStop: {exec: {command: [sleep, \"5\"]}}}"
        };
        let proxies: Vec<String> = self
            .proxies
            .iter()
            .map(|proxy| format!("`{}`", proxy.name))
            .collect();
        match proxies.as_slice() {
            [] => format!("delay SIGTERM past endpoint propagation: {sleep}"),
            proxies => format!(
                "delay SIGTERM past endpoint propagation: {sleep}; {} must keep serving that long too",
                proxies.join(" and ")
            ),
        }
    }
}

impl Rule for AppWithoutPrestopDelay {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        // A pod without labels is in no Service's endpoints.
        if plan.runs_to_completion() || !plan.labelled {
            return;
        }
        let termination = &pod.timeline.termination;
        let removed = termination.endpoints_removed;
        // Once per pod, not per app: a pod may run thousands.
        let proxies: Vec<&PlannedContainer> = plan.proxies().map(|(_, proxy)| proxy).collect();
        for (index, app) in plan.apps() {
            if !app.serves() {
                continue;
            }
            let Some(stop) = pod.timeline.stop(index) else {
                continue;
            };
            if stop.signal >= removed {
                continue;
            }
            // A delay that fails for want of its program is ML208's.
            let failed_delay = app
                .pre_stop
                .as_ref()
                .and_then(|h| h.missing_program(app.missing_tools));
            if failed_delay.is_some() {
                continue;
            }
            // A hook of unknown length is a delay its author chose. Not a tcpSocket
            // one: the kubelet runs only exec, httpGet and sleep handlers and fails any
            // other at once (kubernetes pkg/kubelet/lifecycle/handlers.go,
            // `handlerRunner.Run`: "invalid handler").
            let chosen_delay = app.pre_stop.as_ref().is_some_and(|hook| {
                hook.duration == HookDuration::Unknown && hook.action != HookAction::TcpSocket
            });
            if chosen_delay {
                continue;
            }
            let primary = match app.pre_stop.as_ref().and_then(|h| h.path.clone()) {
                Some(path) => Label::key(path, format!("SIGTERM at {}", stop.signal)),
                None => container_label(app, format!("SIGTERM at {}", stop.signal)),
            };
            let violation = SignalledWhileRouted {
                app,
                signal: stop.signal,
                removed,
                propagation_assumed: !plan.scenario.endpoint_propagation.is_explicit(),
                proxies: proxies.clone(),
                kubernetes: plan.kubernetes.value,
            };
            findings.push(
                Finding::new(&violation, primary)
                    .container(&app.name)
                    .window(Phase::Termination, stop.signal, removed, Some(&app.name))
                    .with_proposal(delay(plan, index, app, removed))
                    .premises(request_premises(plan, stop.signal)),
            );
        }
    }
}

/// A preStop delay until endpoint removal has propagated: the `sleep` action where the
/// Kubernetes version runs it, else `sleep` run in the container where its image has
/// it; a short delay of either form is lengthened. A hook of another kind is the user's
/// to change. In a meshed pod the delay goes with each proxy's own setting to stay as
/// long ([`stay::answer`] on the timeline with the delay), so that the app does not
/// serve past its proxy (ML202); where the pod shows no proxy but its namespace's
/// labels are not in the input, a mesh may inject one, and the fix rests on it not.
/// Safe where nothing it rests on is assumed ([`applicability`](crate::rules::applicability)).
fn delay(
    plan: &PodPlan,
    index: ContainerId,
    app: &PlannedContainer,
    removed: Millis,
) -> Option<Proposal> {
    let container = app.manifest_path()?;
    let kubernetes = plan.kubernetes.value;
    let delay = Headroom::over((removed.0.saturating_add(999) / 1000).max(1));
    let seconds = delay.seconds();
    let pre_stop = container.key("lifecycle").key("preStop");
    let mut rests_on = Vec::new();
    let propagation = &plan.scenario.endpoint_propagation;
    if !propagation.is_explicit() {
        rests_on.push(Premise::endpoint_propagation(propagation.value));
    }
    let change = match app.pre_stop.as_ref().map(|hook| &hook.action) {
        None if kubernetes.has_sleep_action() => {
            if !plan.kubernetes.is_explicit() {
                rests_on.push(Premise::kubernetes_version(kubernetes));
            }
            Change::Set(pre_stop.key("sleep").key("seconds"), Json::from(seconds))
        }
        None if !app.missing_tools.sleep => Change::Set(
            pre_stop.key("exec").key("command"),
            Json::from(vec!["sleep".to_owned(), seconds.to_string()]),
        ),
        Some(HookAction::Sleep(_)) => {
            Change::Set(pre_stop.key("sleep").key("seconds"), Json::from(seconds))
        }
        Some(HookAction::Exec(argv))
            if argv.len() == 2 && argv[0] == "sleep" && !app.missing_tools.sleep =>
        {
            Change::Set(
                pre_stop.key("exec").key("command").index(1),
                Json::from(seconds.to_string()),
            )
        }
        _ => return None,
    };
    let mut remedy = Remedy::new(
        Applicability::Safe,
        format!("delay SIGTERM by a preStop sleep of {delay}, past endpoint propagation"),
        vec![change],
    );
    let proxies: Vec<ContainerId> = plan.proxies().map(|(id, _)| id).collect();
    if proxies.is_empty() {
        if let Some(namespace) = injection_unknown(plan) {
            rests_on.push(Premise::no_injection(namespace));
        }
        return Some((remedy, rests_on));
    }
    let mut delayed = plan.clone();
    delayed.containers[index].pre_stop = Some(Hook {
        path: Some(pre_stop),
        asked_by: None,
        action: HookAction::Sleep(seconds),
        duration: HookDuration::Fixed(Millis::secs(seconds)),
        effect: HookEffect::None,
        rendered_from: None,
    });
    let timeline = simulate::simulate(&delayed);
    for proxy in proxies {
        let Some((stay, premises)) = stay::answer(&delayed, &timeline, proxy).and_then(|a| a.fix)
        else {
            continue;
        };
        remedy.description = format!("{}; {}", remedy.description, stay.description);
        for change in stay.changes {
            if !remedy.changes.contains(&change) {
                remedy.changes.push(change);
            }
        }
        remedy.applicability = remedy.applicability.min(stay.applicability);
        rests_on.extend(premises);
    }
    Some((remedy, rests_on))
}

/// The pod's namespace, as the manifest names it, when its labels are not known: a
/// mesh may inject it.
fn injection_unknown(plan: &PodPlan) -> Option<Option<&str>> {
    (!plan.namespace_known).then_some(plan.workload.namespace.as_deref())
}
