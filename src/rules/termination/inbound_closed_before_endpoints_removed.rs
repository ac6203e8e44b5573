use crate::resolve::{Cut, HookEffect};
use crate::rules::help::container_label;
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Severity, declare_rule};
use crate::simulate::Phase;

declare_rule! {
    /// ## What it detects
    /// A proxy that stops accepting inbound connections before the pod's removal from
    /// the endpoints has propagated (a scenario value, 5 s unless set), in a pod that
    /// serves. For a native Istio proxy, whose preStop `/drain` tells clients to go away
    /// from the first moment, it is reported as information: whether new connections are
    /// refused then is still open upstream (istio#60649).
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
    /// Delay the proxy's shutdown past endpoint propagation:
    /// ```yaml
    /// config.alpha.linkerd.io/proxy-wait-before-exit-seconds: "10"
    /// ```
    /// (for Istio, a proxy preStop `sleep`, or a longer `terminationDrainDuration`; for
    /// Dapr, `dapr.io/block-shutdown-duration`).
    ///
    /// ## References
    /// - docs/lifecycle.md §2.1 (endpoint removal is asynchronous), §3.6 (Envoy's inbound drain), §4.3 (Linkerd refuses new connections on SIGTERM), §5.1 (daprd closes its servers on SIGTERM), §6 (endpoint propagation), §7 F11, F16
    /// - https://github.com/istio/istio/issues/60649
    pub struct InboundClosedBeforeEndpointsRemoved {
        id: "ML203",
        name: "inbound-closed-before-endpoints-removed",
        severity: Warning,
        group: Termination,
        summary: "the proxy refuses new requests while endpoints still route to the pod",
    }
}

impl Rule for InboundClosedBeforeEndpointsRemoved {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        if plan.runs_to_completion() || !plan.apps().any(|(_, app)| app.serves()) {
            return;
        }
        let termination = &pod.timeline.termination;
        let removed = termination.endpoints_removed;
        let assumed = if plan.scenario.endpoint_propagation.is_explicit() {
            ""
        } else {
            " (endpoint propagation of 5 s assumed; set endpoint-propagation)"
        };
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
            if let Some(refused) = stop.inbound_refused.filter(|at| *at < removed) {
                findings.push(
                    Finding::new(
                        &Self::META,
                        primary(format!("refuses inbound from {refused}")),
                        format!(
                            "`{}` {} from {refused}, but endpoints route new requests to the pod until {removed}{assumed}: {} of requests are refused",
                            proxy.name,
                            refusal(proxy),
                            removed - refused
                        ),
                        delay_help(proxy),
                    )
                    .container(&proxy.name)
                    .window(Phase::Termination, refused, removed, Some(&proxy.name)),
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
                findings.push(
                    Finding::new(
                        &Self::META,
                        primary(format!("drains inbound from {drained}")),
                        format!(
                            "`{}` starts draining inbound connections at {drained} (its preStop `/drain`: GOAWAY and `Connection: close`) while endpoints route requests to the pod until {removed}{assumed}; whether new connections are refused meanwhile is an open upstream question (istio#60649)",
                            proxy.name
                        ),
                        "watch clients for connection resets during rollouts; an app preStop sleep does not delay this drain".into(),
                    )
                    .severity(Severity::Info)
                    .container(&proxy.name)
                    .window(Phase::Termination, drained, removed, Some(&proxy.name)),
                );
            }
        }
    }
}

/// What the sidecar stops taking.
fn refusal(proxy: &crate::resolve::PlannedContainer) -> &'static str {
    match proxy.sidecar().map(|s| &s.kind) {
        // daprd closes its internal gRPC server: other apps' service invocations,
        // which find this pod through the `<app-id>-dapr` Service, are refused.
        Some(crate::resolve::SidecarKind::Daprd) => {
            "closes its servers (Dapr service invocation of this app is refused)"
        }
        _ => "refuses new inbound connections",
    }
}

fn delay_help(proxy: &crate::resolve::PlannedContainer) -> String {
    proxy.remedies().outlast_endpoints.map_or_else(
        || {
            format!(
                "delay `{}`'s shutdown past endpoint propagation with a preStop sleep",
                proxy.name
            )
        },
        str::to_owned,
    )
}
