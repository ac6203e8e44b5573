//! What Istio's own settings offer against each hazard.

use super::*;

/// What Istio's own settings offer against each hazard.
pub const REMEDIES: Remedies = Remedies {
    hold_app: Some(
        "hold the app until the proxy is ready; on the pod template:\n  metadata:\n    annotations:\n      proxy.istio.io/config: |\n        holdApplicationUntilProxyStarts: true\n",
    ),
    native_opt_in: Some("sidecar.istio.io/nativeSidecar: \"true\""),
    missing_gate_cause: Some("a custom proxy lifecycle replaces it"),
    restore_gate: Some(
        "add `postStart: {exec: {command: [pilot-agent, wait]}}` to the custom proxy lifecycle (Helm `global.proxy.lifecycle`), or drop the custom lifecycle",
    ),
    stop_after_work: Some(|native| {
        format!(
            "stop the proxy when the work ends, keeping the work's exit status:\n  command: [\"/bin/sh\", \"-c\"]\n  args:\n  - |\n    trap 'curl -fsS -X POST http://localhost:15020/quitquitquit' EXIT\n    ./your-work   # not `exec`: the trap must outlive it\n(or `sidecar.istio.io/nativeSidecar: \"true\"` on the pod template{native})"
        )
    }),
    working_stop_call: Some(
        "call pilot-agent with POST: curl -fsS -X POST http://localhost:15020/quitquitquit",
    ),
    stop_api: Some("POST :15020/quitquitquit"),
    outlive_app: Some(|seconds| {
        format!(
            "keep the proxy until the app's connections are gone; on the pod template:\n  proxy.istio.io/config: |\n    proxyMetadata:\n      EXIT_ON_ZERO_ACTIVE_CONNECTIONS: \"true\"\n(or terminationDrainDuration of at least {seconds}s)"
        )
    }),
    outlast_endpoints: None,
    bypass_for_init: Some(|| {
        format!(
            "run the init container as UID {PROXY_UID} or exclude its port (traffic.sidecar.istio.io/excludeOutboundPorts)"
        )
    }),
    drain_setting: Some("terminationDrainDuration"),
    stop_endpoint_switch: None,
};
