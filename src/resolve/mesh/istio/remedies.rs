//! What Istio's own settings offer against each hazard.

use serde_json::Value as Json;

use super::*;
use crate::fix::{Applicability, Change, Remedy};
use crate::resolve::mesh::{Advice, Measure, StatusOff, Stay, StayAt, StopAfterWork, Suggestion};

/// The ProxyConfig field for how long pilot-agent keeps Envoy after SIGTERM.
const TERMINATION_DRAIN: &str = "terminationDrainDuration";

/// What Istio's own settings offer against each hazard.
pub const REMEDIES: Remedies = Remedies {
    hold_app: Some(hold_app),
    hold_hook: Some("[pilot-agent, wait]"),
    missing_gate_cause: Some("a custom proxy lifecycle replaces it"),
    restore_gate: Some(
        "add `postStart: {exec: {command: [pilot-agent, wait]}}` to the custom proxy lifecycle (Helm `global.proxy.lifecycle`), or drop the custom lifecycle",
    ),
    stop_after_work: Some(stop_after_work),
    working_stop_call: Some(
        "call pilot-agent with POST: curl -fsS -X POST http://localhost:15020/quitquitquit",
    ),
    stop_api: Some("POST :15020/quitquitquit"),
    // The readiness probe the injector gives the proxy.
    ready_api: Some("GET :15021/healthz/ready"),
    stay: Some(STAY),
    bypass_for_init: Some(|| {
        format!(
            "run the init container as UID {PROXY_UID} or exclude its port (traffic.sidecar.istio.io/excludeOutboundPorts)"
        )
    }),
    drain_setting: Some(TERMINATION_DRAIN),
    kill_command: Some(r#"["pilot-agent", "request", "POST", "quitquitquit"]"#),
    no_stop_call: None,
    status_off: Some(StatusOff {
        setting: "status.sidecar.istio.io/port: \"0\"",
        hold_fails: "`holdApplicationUntilProxyStarts` is no remedy here: the `pilot-agent wait` it adds polls `:15021/healthz/ready`, which Envoy passes to the status port the pod turns off, so it would fail after 60 s and get the proxy killed",
        hold_off: "`holdApplicationUntilProxyStarts: false` in the pod's `proxy.istio.io/config`",
        // Envoy's admin answers itself, without pilot-agent's status server.
        ready_api: "GET :15000/ready",
    }),
};

/// `holdApplicationUntilProxyStarts: true` in the pod's `proxy.istio.io/config`: the
/// injector then puts the proxy first with a `pilot-agent wait` postStart.
fn hold_app(annotations: &JsonPath) -> Advice {
    Advice {
        help: format!(
            "hold the app until the proxy is ready; on the pod template:\n  metadata:\n    annotations:\n      {PROXY_CONFIG}: |\n        {HOLD}: true\n"
        ),
        fix: Remedy::new(
            Applicability::Safe,
            format!("hold the app until the proxy is ready (`{HOLD}: true` in `{PROXY_CONFIG}`)"),
            vec![Change::Set(
                annotations.key(PROXY_CONFIG).embedded().key(HOLD),
                Json::Bool(true),
            )],
        ),
    }
}

/// The pod's own call to pilot-agent's `/quitquitquit` as an EXIT trap, and the
/// native sidecar where the versions in force let the pod ask for one.
fn stop_after_work(stop: &StopAfterWork) -> String {
    let call = stop.call.map_or_else(
        || format!("curl -fsS -X POST http://localhost:{DEFAULT_STATUS_PORT}/quitquitquit"),
        str::to_owned,
    );
    stop.trapped("the proxy", &call)
}

/// `terminationDrainDuration` in the pod's `proxy.istio.io/config`: pilot-agent keeps
/// Envoy that long after SIGTERM (docs/lifecycle.md §3.6), and reads the annotation
/// itself (from the downward-API file), so the same change works on a proxy already
/// injected. `EXIT_ON_ZERO_ACTIVE_CONNECTIONS` is the help's alternative, not the fix:
/// it waits on the app's connections, which the manifest cannot show.
pub const STAY: Stay = Stay {
    measures: Measure::AfterSignal,
    inbound: false,
    when_injected_native: true,
    at: drain_at,
};

fn drain_at(at: &StayAt) -> Suggestion {
    let seconds = at.seconds;
    let exit_on_zero = match at.written {
        None => {
            "proxyMetadata:\n  EXIT_ON_ZERO_ACTIVE_CONNECTIONS: \"true\"` in the same annotation"
                .to_owned()
        }
        Some(_) => format!(
            "EXIT_ON_ZERO_ACTIVE_CONNECTIONS: \"true\"` in `{PROXY}`'s env (the injector copied proxyMetadata there)"
        ),
    };
    Suggestion {
        help: format!(
            "keep the proxy longer after its SIGTERM; on the pod template:\n  metadata:\n    annotations:\n      {PROXY_CONFIG}: |\n        {TERMINATION_DRAIN}: {seconds}s\n(or let it exit once the app's connections close: `{exit_on_zero})"
        ),
        fix: Some(Remedy::new(
            Applicability::Safe,
            format!(
                "keep the proxy {seconds} s after its SIGTERM (`{TERMINATION_DRAIN}: {seconds}s` in `{PROXY_CONFIG}`)"
            ),
            vec![Change::Set(
                at.annotations
                    .key(PROXY_CONFIG)
                    .embedded()
                    .key(TERMINATION_DRAIN),
                Json::String(format!("{seconds}s")),
            )],
        )),
    }
}
