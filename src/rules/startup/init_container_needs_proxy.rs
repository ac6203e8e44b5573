use crate::resolve::{NetworkUse, PlannedContainer};
use crate::rules::help::{container_label, native_before_inits};
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Violation, declare_rule};
use crate::simulate::Phase;
use crate::time::Millis;

declare_rule! {
    /// ## What it detects
    /// A regular init container that makes network calls (an HTTP client, a database or
    /// queue client, a migration tool, a URL in its arguments) in a pod whose traffic
    /// goes through a proxy that is not running yet when the init container runs.
    ///
    /// ## Why it loses traffic
    /// Init containers run one at a time before the regular containers (docs/lifecycle.md §1.1).
    /// A classic proxy is a regular container, so it does not exist yet; with the Istio
    /// CNI plugin the traffic redirection is already in place, so the call goes to a
    /// proxy that is not there and fails, and without CNI it leaves the pod outside the
    /// mesh, in plaintext, and fails against STRICT mTLS (docs/lifecycle.md §3.2, istio#11130).
    /// A native proxy placed after the init container has the same problem. A call the
    /// redirection lets through is fine: the init container runs as the proxy's UID
    /// (Istio 1337, Linkerd 2102), or every port it uses is excluded.
    ///
    /// ## Example
    /// ```yaml
    /// metadata:
    ///   labels: {sidecar.istio.io/inject: "true"}
    /// spec:
    ///   initContainers:
    ///   - name: migrate
    ///     command: ["./migrate", "--db", "postgres://db:5432/app"]
    /// ```
    ///
    /// ## Fix
    /// Run the proxy as a native sidecar, which Istio and Linkerd place before the pod's
    /// own init containers (`sidecar.istio.io/nativeSidecar: "true"`, or istiod's
    /// `ENABLE_NATIVE_SIDECARS` on Istio 1.19 to 1.23, which read no pod annotation;
    /// `config.beta.linkerd.io/proxy-enable-native-sidecar: "true"`), with the startup
    /// probe that holds them until it is ready (Linkerd gives it one only with
    /// proxy-await on, Istio only with its status port); not Consul's native
    /// dataplane, which its injector appends after them (docs/lifecycle.md §5.2). Or
    /// move the call into the app container after its start gate, or let the
    /// call bypass the proxy:
    /// ```yaml
    /// traffic.sidecar.istio.io/excludeOutboundPorts: "5432"   # Istio
    /// config.linkerd.io/skip-outbound-ports: "5432"           # Linkerd
    /// ```
    /// or run the init container with `securityContext.runAsUser: 1337` (Istio's
    /// documented workaround; needed when DNS proxying resolves the name).
    ///
    /// `lint --fix` makes no change: which remedy fits depends on whether the call must
    /// go through the mesh (mTLS, policy) and may move to the app, which only the pod's
    /// owner knows.
    ///
    /// ## Evidence
    /// Proven: the init container's command shows the call (a network client or a URL),
    /// so the finding keeps its warning. Assumed: a version default or a hook reading the
    /// verdict needs (named with how to settle it) makes it info, the default;
    /// `--assumed-losses full` keeps the warning.
    ///
    /// ## References
    /// - docs/lifecycle.md §1.1 (init containers run first, in order), §3.2 (layout A and the CNI note; layout C places the proxy first), §4.2 (Linkerd's native proxy goes right after `linkerd-init`, first), §5.2 (Consul appends its native dataplane after the pod's init containers)
    /// - https://istio.io/latest/docs/setup/additional-setup/cni/#compatibility-with-application-init-containers
    /// - https://github.com/istio/istio/issues/11130
    pub struct InitContainerNeedsProxy {
        id: "ML103",
        name: "init-container-needs-proxy",
        severity: Warning,
        fix: Never,
        group: Startup,
        summary: "an init container calls out before the proxy it needs is running",
        since: "0.1.0",
    }
}

/// A regular init container that calls out before the pod's proxy runs.
struct CallsBeforeProxyRuns<'a> {
    /// The init container.
    init: &'a PlannedContainer,
    /// Its network call.
    call: &'a NetworkUse,
    /// When it runs.
    at: Millis,
    /// The proxy the pod's traffic goes through.
    proxy: &'a PlannedContainer,
}

impl Violation for CallsBeforeProxyRuns<'_> {
    const RULE: &'static RuleMeta = &InitContainerNeedsProxy::META;

    fn message(&self) -> String {
        format!(
            "init container `{}` runs `{}` at {}, before `{}` is running: with traffic redirected to the proxy the call fails (and without redirection it leaves the mesh)",
            self.init.name, self.call.call, self.at, self.proxy.name
        )
    }

    /// A native proxy placed first, where the pod can have one, or the call in the
    /// app, or the mesh's own way to let the call bypass the proxy.
    fn help(&self) -> String {
        let bypass = self.proxy.remedies().bypass_for_init.map_or_else(
            || "exclude its port from the proxy's redirection".to_owned(),
            |bypass| bypass(),
        );
        let native = native_before_inits(self.proxy)
            .map(|native| format!("{native}, "))
            .unwrap_or_default();
        format!("{native}do the call in the app after its start gate, or {bypass}")
    }
}

impl Rule for InitContainerNeedsProxy {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        let timeline = &pod.timeline;
        // The proxy the pod's traffic goes through, and when it is ready.
        let Some((proxy_index, proxy)) = plan.proxies().next() else {
            return;
        };
        let proxy_ready = timeline.start(proxy_index).ready;
        for (index, init) in plan.containers.with_ids() {
            if init.is_injected() || init.restart_always() {
                continue;
            }
            let Some(call) = &init.network_use else {
                continue;
            };
            if call.bypass.is_some() {
                continue;
            }
            let runs_at = timeline.start(index).started;
            let before_proxy = match (runs_at, proxy_ready) {
                (Some(at), Some(ready)) => at < ready,
                (Some(_), None) => true,
                (None, _) => false,
            };
            if !before_proxy {
                continue;
            }
            let at = runs_at.unwrap_or_default();
            let violation = CallsBeforeProxyRuns {
                init,
                call,
                at,
                proxy,
            };
            findings.push(
                Finding::new(
                    &violation,
                    Label::value(call.path.clone(), "calls out before the proxy runs"),
                )
                .container(&init.name)
                .related(container_label(proxy, "not running yet"))
                .window(
                    Phase::Startup,
                    at,
                    proxy_ready.unwrap_or(at),
                    Some(&init.name),
                ),
            );
        }
    }
}
