use crate::resolve::PodPlan;
use crate::resolve::traffic::Serves;
use crate::resolve::{Cut, HookEffect, PlannedContainer};
use crate::rules::help::container_label;
use crate::rules::stay::{self, StayAnswer};
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Severity, Violation, declare_rule};
use crate::rules::{Premise, Subject};
use crate::simulate::Phase;
use crate::time::Millis;

declare_rule! {
    /// ## What it detects
    /// A proxy that stops accepting inbound connections before the pod's removal from
    /// the endpoints has propagated (a scenario value, 5 s unless set), in a pod that
    /// serves. For a native proxy whose preStop starts Envoy's inbound drain (Istio's
    /// `pilot-agent request POST drain`, docs/lifecycle.md §3.3; Kuma's `killall -USR2
    /// kuma-dp`, §5.3), which tells clients to go away from the first moment, it is
    /// reported as information: whether new connections are refused then is still open
    /// upstream (istio#60649).
    ///
    /// ## Why it loses traffic
    /// Endpoint removal races the kubelet's preStop and SIGTERM (docs/lifecycle.md §2.1). Until
    /// load balancers and other proxies have seen it, they keep sending new requests. A
    /// Linkerd proxy refuses new connections from SIGTERM on (docs/lifecycle.md §4.3),
    /// and Dapr's `daprd` closes the server other apps invoke this one through (§5.1),
    /// so without a delay those requests are refused.
    ///
    /// ## Example
    /// ```yaml
    /// metadata:
    ///   annotations:
    ///     linkerd.io/inject: enabled        # no proxy-wait-before-exit-seconds
    /// ```
    ///
    /// ## Fix
    /// Delay the proxy's shutdown past endpoint propagation, and past the app's exit
    /// (ML202) with the same setting: the help gives one value for both, the smallest
    /// that clears every finding of the proxy the setting clears, computed from the
    /// timeline, and says so.
    /// ```yaml
    /// config.alpha.linkerd.io/proxy-wait-before-exit-seconds: "10"
    /// ```
    /// For a Linkerd proxy written in the manifest (already injected), the injector no
    /// longer reads that annotation: the proxy's own preStop
    /// `exec: {command: [/bin/sleep, "10"]}`, as the injector writes it. For Dapr,
    /// `dapr.io/block-shutdown-duration`; for Consul, the proxy lifecycle's
    /// `sidecar-proxy-lifecycle-shutdown-grace-period-seconds`, with the lifecycle on
    /// (unsafe: where it was off, the dataplane then also starts before the app).
    ///
    /// `lint --fix` makes that one change (the same fix ML202's finding carries, made
    /// once). It is safe when the times it rests on are set (`endpoint-propagation`,
    /// and `app-shutdown` when it also clears ML202), unsafe when they are assumed,
    /// since the value is then a guess; Dapr's is unsafe (it needs Dapr 1.13+), and an
    /// already injected `daprd` gets none: its flag is a word of the container's args,
    /// which the fix does not rewrite (the help gives it). Every fix is checked against the
    /// timeline: one that would stretch the stop past the grace period is not made.
    /// A Linkerd proxy its injector adds natively gets neither the wait nor a fix: the
    /// injector renders no wait for it (2.15 to 2.19 deny the pod, ML402; 2.20 ignores
    /// the wait), and the kubelet stops it only once the app has exited, so the help
    /// says to keep the app running past endpoint propagation.
    ///
    /// ## Evidence
    /// Proven when a Service of the input selects the pod and the proxy refuses inbound at
    /// once (at 0 s, before any removal can propagate): a warning. Assumed, info, when no
    /// Service of the input selects the pod (premise "requests arrive"; lint the Service
    /// with the pod) or when the refusal comes later and only the default endpoint
    /// propagation makes it early (settle with `--endpoint-propagation` or
    /// `mesh-lifecycle.io/endpoint-propagation`), or when a version default decides the
    /// proxy. A pod without labels is in no Service's endpoints: no finding. A sidecar
    /// that proxies none of the pod's own traffic (Dapr's daprd) refuses only what is
    /// sent to its own ports: proven where a Service of the input sends requests there
    /// (the `<app-id>-dapr` Service), else info (premise "requests reach the pod through
    /// the sidecar": the app's clients may reach only its own port, which daprd never
    /// sees; docs/lifecycle.md §5.1). These lowerings are the default; `--assumed-losses full` keeps the warning.
    ///
    /// ## References
    /// - docs/lifecycle.md §2.1 (endpoint removal is asynchronous), §3.3 (the native Istio proxy's drain preStop, and the status ports on which it drains nothing), §3.6 (Envoy's inbound drain), §4.3 (Linkerd refuses new connections on SIGTERM), §5.1 (daprd closes its servers on SIGTERM), §5.3 (Kuma's native preStop drains at T0), §6 (endpoint propagation), §7 F11, F16
    /// - https://github.com/istio/istio/issues/60649
    pub struct InboundClosedBeforeEndpointsRemoved {
        id: "ML203",
        name: "inbound-closed-before-endpoints-removed",
        severity: Warning,
        fix: Sometimes,
        group: Termination,
        summary: "the proxy refuses new requests while endpoints still route to the pod",
        since: "0.1.0",
    }
}

/// A proxy that refuses inbound connections while endpoints still route to the pod.
struct RefusedBeforeRemoval<'a> {
    /// The proxy.
    proxy: &'a PlannedContainer,
    /// From when it refuses.
    refused: Millis,
    /// When the endpoints stop routing to the pod.
    removed: Millis,
    /// Whether endpoint propagation is the default rather than set.
    propagation_assumed: bool,
    /// The value of the proxy's own setting that clears this and its other hazards.
    stay: Option<StayAnswer>,
}

impl Violation for RefusedBeforeRemoval<'_> {
    const RULE: &'static RuleMeta = &InboundClosedBeforeEndpointsRemoved::META;

    fn message(&self) -> String {
        format!(
            "`{}` {} from {}, but endpoints route new requests to the pod until {}{}: {} of requests are refused",
            self.proxy.name,
            refusal(self.proxy),
            self.refused,
            self.removed,
            assumed(self.propagation_assumed),
            self.removed - self.refused
        )
    }

    fn help(&self) -> String {
        match self.stay.as_ref().filter(|stay| stay.clears(Self::RULE)) {
            Some(stay) => stay.help_for(Self::RULE),
            // Nothing the pod sets delays an injected native proxy's signal but the
            // apps' exit, which the kubelet waits for.
            None if self.proxy.is_native_sidecar() && self.proxy.manifest_path().is_none() => {
                format!(
                    "`{}` is a native sidecar, stopped only once the app containers have exited: keep the app running past endpoint propagation (a preStop sleep on the app), and the proxy stays with it",
                    self.proxy.name
                )
            }
            None => format!(
                "delay `{}`'s shutdown past endpoint propagation with a preStop sleep",
                self.proxy.name
            ),
        }
    }
}

/// A proxy whose preStop drains inbound connections while endpoints still route to the
/// pod.
struct DrainedBeforeRemoval<'a> {
    /// The proxy.
    proxy: &'a PlannedContainer,
    /// When it starts draining.
    drained: Millis,
    /// When the endpoints stop routing to the pod.
    removed: Millis,
    /// Whether endpoint propagation is the default rather than set.
    propagation_assumed: bool,
}

impl Violation for DrainedBeforeRemoval<'_> {
    const RULE: &'static RuleMeta = &InboundClosedBeforeEndpointsRemoved::META;

    fn message(&self) -> String {
        format!(
            "`{}` starts draining inbound connections at {} (its preStop `{}`: GOAWAY and `Connection: close`) while endpoints route requests to the pod until {}{}; whether new connections are refused meanwhile is an open upstream question (istio#60649)",
            self.proxy.name,
            self.drained,
            self.proxy
                .pre_stop
                .as_ref()
                .map_or_else(String::new, crate::rules::describe::hook),
            self.removed,
            assumed(self.propagation_assumed)
        )
    }

    fn help(&self) -> String {
        "watch clients for connection resets during rollouts; an app preStop sleep does not delay this drain".into()
    }
}

fn assumed(propagation_assumed: bool) -> &'static str {
    if propagation_assumed {
        " (endpoint propagation of 5 s assumed; set endpoint-propagation)"
    } else {
        ""
    }
}

/// What the sidecar stops taking: its mesh's words for it, or new inbound connections.
fn refusal(proxy: &PlannedContainer) -> &'static str {
    proxy
        .sidecar()
        .and_then(|sidecar| sidecar.kind.mesh())
        .and_then(|mesh| mesh.words().refusal)
        .unwrap_or("refuses new inbound connections")
}

impl Rule for InboundClosedBeforeEndpointsRemoved {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        // A pod without labels is in no Service's endpoints.
        if plan.runs_to_completion() || !plan.labelled || !plan.apps().any(|(_, app)| app.serves())
        {
            return;
        }
        let termination = &pod.timeline.termination;
        let removed = termination.endpoints_removed;
        let propagation_assumed = !plan.scenario.endpoint_propagation.is_explicit();
        for (index, proxy) in plan.proxies() {
            let Some(stop) = pod.timeline.stop(index) else {
                continue;
            };
            let primary = |text: String| match proxy
                .pre_stop
                .as_ref()
                .and_then(|h| h.finding_path().cloned())
            {
                Some(path) => Label::key(path, text),
                None => container_label(proxy, text),
            };
            if let Some((refused, removed)) = stay::early_refusal(plan, pod.timeline, stop) {
                let stay = stay::answer(plan, pod.timeline, index)
                    .filter(|stay| stay.clears(&InboundClosedBeforeEndpointsRemoved::META));
                let fix = stay.as_ref().and_then(|stay| stay.fix.clone());
                let violation = RefusedBeforeRemoval {
                    proxy,
                    refused,
                    removed,
                    propagation_assumed,
                    stay,
                };
                findings.push(
                    Finding::new(
                        &violation,
                        primary(format!("refuses inbound from {refused}")),
                    )
                    .container(&proxy.name)
                    .window(Phase::Termination, refused, removed, Some(&proxy.name))
                    .with_proposal(fix)
                    .premises(
                        request_premises(plan, refused)
                            .into_iter()
                            .filter(|premise| !sent_to_sidecar(proxy, premise)),
                    )
                    .premises(through_sidecar(proxy)),
                );
                continue;
            }
            let drains_on_prestop = proxy
                .pre_stop
                .as_ref()
                .is_some_and(|h| h.effect == HookEffect::DrainsInbound)
                && proxy
                    .traffic
                    .is_some_and(|t| t.inbound_drained == Cut::PreStop);
            if let Some(drained) = stop
                .inbound_drained
                .filter(|at| drains_on_prestop && *at < removed)
            {
                let violation = DrainedBeforeRemoval {
                    proxy,
                    drained,
                    removed,
                    propagation_assumed,
                };
                findings.push(
                    Finding::new(
                        &violation,
                        primary(format!("drains inbound from {drained}")),
                    )
                    .severity(Severity::Info)
                    .container(&proxy.name)
                    .window(
                        Phase::Termination,
                        drained,
                        removed,
                        Some(&proxy.name),
                    ),
                );
            }
        }
    }
}

/// What a loss of requests routed to a pod whose proxy refuses them from `refused`
/// needs that the input may not prove: a Service that sends them (none of the input
/// selects the pod), and an endpoint propagation longer than `refused` (when it is the
/// default; a refusal at 0 loses requests however fast the removal).
/// A sidecar that proxies none of the pod's own traffic refuses only what comes to its
/// own ports: where nothing of the input sends requests there, the app's clients reach
/// its own port and never see the refusal.
fn through_sidecar(proxy: &PlannedContainer) -> Vec<Premise> {
    match &proxy.own_inbound {
        Some(inbound) if inbound.service.is_none() => {
            vec![Premise::through_sidecar(&proxy.name, inbound.ports)]
        }
        _ => Vec::new(),
    }
}

/// Whether `premise`, that requests arrive, is settled by a Service of the input that
/// sends them to the sidecar's own ports (it selects the pod).
fn sent_to_sidecar(proxy: &PlannedContainer, premise: &Premise) -> bool {
    premise.subject == Subject::RequestsArrive
        && proxy
            .own_inbound
            .as_ref()
            .is_some_and(|inbound| inbound.service.is_some())
}

pub(crate) fn request_premises(plan: &PodPlan, refused: Millis) -> Vec<Premise> {
    let mut premises = Vec::new();
    let selected = plan
        .apps()
        .any(|(_, app)| matches!(app.network.serves, Some(Serves::Service(_))));
    if !selected {
        premises.push(Premise::requests_arrive());
    }
    let propagation = &plan.scenario.endpoint_propagation;
    if !propagation.is_explicit() && refused > Millis::ZERO {
        premises.push(Premise::endpoint_propagation(propagation.value));
    }
    premises
}
