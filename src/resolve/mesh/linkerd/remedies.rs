//! What Linkerd's own settings offer against each hazard.

use serde_json::Value as Json;

use super::*;
use crate::fix::{Applicability, Change, Remedy};
use crate::resolve::mesh::Advice;

/// What Linkerd's own settings offer against each hazard.
pub const REMEDIES: Remedies = Remedies {
    hold_app: Some(hold_app),
    missing_gate_cause: Some("the pod was injected without the `linkerd-await` hook"),
    restore_gate: Some(
        "re-inject the pod so that the injector adds the `linkerd-await` postStart (it does while `config.linkerd.io/proxy-await` is enabled, the default)",
    ),
    // Where `/shutdown` already answers in the pod, nothing needs enabling first.
    stop_after_work: Some(|stop| match stop.call {
        Some(call) => format!(
            "the proxy's `/shutdown` already answers in this pod: wrap the work in `linkerd-await --shutdown -- <work>`, or `trap '{call}' EXIT` before it{}",
            stop.native
        ),
        None => format!(
            "wrap the work in `linkerd-await --shutdown -- <work>` and enable the endpoint with the annotation `{SHUTDOWN_ANNOTATION}: enabled`{}",
            stop.native
        ),
    }),
    working_stop_call: Some(
        "enable the endpoint on the pod template: config.linkerd.io/proxy-admin-shutdown: enabled",
    ),
    stop_api: Some(
        "`linkerd-await --shutdown`, with `config.linkerd.io/proxy-admin-shutdown: enabled`",
    ),
    outlive_app: Some(|seconds| {
        format!(
            "delay the proxy's shutdown past the app's: config.alpha.linkerd.io/proxy-wait-before-exit-seconds: \"{seconds}\""
        )
    }),
    outlast_endpoints: Some(
        "delay the proxy's shutdown past endpoint propagation: config.alpha.linkerd.io/proxy-wait-before-exit-seconds: \"10\"",
    ),
    bypass_for_init: Some(|| {
        format!(
            "run the init container as UID {PROXY_UID} or skip its port (config.linkerd.io/skip-outbound-ports)"
        )
    }),
    drain_setting: None,
    no_stop_call: None,
    kill_command: Some(r#"["/usr/lib/linkerd/linkerd-await", "sleep", "1", "--shutdown"]"#),
};

/// Linkerd's remedies for a proxy written in the manifest (an injector's output). The
/// injector reads `proxy-wait-before-exit-seconds` only when it adds the proxy
/// (it renders the proxy's preStop from it), so here the preStop itself is the change.
pub const WRITTEN_REMEDIES: Remedies = Remedies {
    outlive_app: Some(|seconds| {
        format!(
            "delay the proxy's shutdown past the app's with a preStop on `{PROXY}` in the manifest: `preStop: {{exec: {{command: [/bin/sleep, \"{seconds}\"]}}}}` (the injector reads config.alpha.linkerd.io/proxy-wait-before-exit-seconds only when it adds the proxy)"
        )
    }),
    outlast_endpoints: Some(
        "delay the proxy's shutdown past endpoint propagation with a preStop on `linkerd-proxy` in the manifest: `preStop: {exec: {command: [/bin/sleep, \"10\"]}}` (the injector reads config.alpha.linkerd.io/proxy-wait-before-exit-seconds only when it adds the proxy)",
    ),
    ..REMEDIES
};

/// `config.linkerd.io/proxy-await: enabled`: the injector then puts the proxy first
/// with a `linkerd-await` postStart.
fn hold_app(annotations: &JsonPath) -> Advice {
    Advice {
        help: format!(
            "let the app wait for the proxy; on the pod template:\n  metadata:\n    annotations:\n      {AWAIT}: enabled\n"
        ),
        fix: Remedy::new(
            Applicability::Safe,
            format!("let the app wait for the proxy (`{AWAIT}: enabled`)"),
            vec![Change::Set(
                annotations.key(AWAIT),
                Json::String("enabled".into()),
            )],
        ),
    }
}
