//! What Linkerd's own settings offer against each hazard.

use serde_json::Value as Json;

use super::*;
use crate::fix::{Applicability, Change, Remedy};
use crate::resolve::mesh::{Advice, Measure, Stay, StayAt, Suggestion};

/// What Linkerd's own settings offer against each hazard.
pub const REMEDIES: Remedies = Remedies {
    hold_app: Some(hold_app),
    hold_hook: Some("[/usr/lib/linkerd/linkerd-await, --timeout=2m, --port=4191]"),
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
    // The readiness probe the injector gives the proxy.
    ready_api: Some("GET :4191/ready"),
    stay: Some(STAY),
    bypass_for_init: Some(|| {
        format!(
            "run the init container as UID {PROXY_UID} or skip its port (config.linkerd.io/skip-outbound-ports)"
        )
    }),
    drain_setting: None,
    no_stop_call: None,
    kill_command: Some(r#"["/usr/lib/linkerd/linkerd-await", "sleep", "1", "--shutdown"]"#),
    status_off: None,
};

/// Linkerd's remedies for a proxy written in the manifest (an injector's output): the
/// same, [`STAY`] knowing which form each needs.
pub const WRITTEN_REMEDIES: Remedies = Remedies { ..REMEDIES };

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

/// `proxy-wait-before-exit-seconds`: the injector renders it as the classic proxy's
/// preStop `/bin/sleep N` (`charts/partials/templates/_proxy.tpl`), which holds the
/// proxy's SIGTERM back, and with it every refusal (docs/lifecycle.md §4.2, §4.3). The
/// injector alone reads the annotation, so on a proxy written in the manifest the
/// preStop itself is the change; the proxy image has `/bin/sleep` and no shell. The
/// injector renders no wait for a native proxy (`_proxy.tpl`): 2.15 to 2.19 refuse the
/// two together and deny the pod, 2.20 drops the wait.
pub const STAY: Stay = Stay {
    measures: Measure::UntilSignal,
    inbound: true,
    when_injected_native: false,
    at: wait_before_exit_at,
};

fn wait_before_exit_at(at: &StayAt) -> Suggestion {
    let seconds = at.seconds;
    match at.written {
        None => Suggestion {
            help: format!(
                "delay the proxy's SIGTERM; on the pod template:\n  metadata:\n    annotations:\n      {WAIT_BEFORE_EXIT}: \"{seconds}\"\n"
            ),
            fix: Some(Remedy::new(
                Applicability::Safe,
                format!(
                    "delay the proxy's SIGTERM to {seconds} s (`{WAIT_BEFORE_EXIT}: \"{seconds}\"`)"
                ),
                vec![Change::Set(
                    at.annotations.key(WAIT_BEFORE_EXIT),
                    Json::String(seconds.to_string()),
                )],
            )),
        },
        Some(container) => Suggestion {
            help: format!(
                "delay the proxy's SIGTERM with its preStop, as the injector writes it for {WAIT_BEFORE_EXIT} (which it reads only when it adds the proxy):\n  - name: {PROXY}\n    lifecycle:\n      preStop:\n        exec:\n          command: [/bin/sleep, \"{seconds}\"]\n"
            ),
            fix: Some(Remedy::new(
                Applicability::Safe,
                format!(
                    "delay the proxy's SIGTERM to {seconds} s (preStop `/bin/sleep {seconds}` on `{PROXY}`)"
                ),
                vec![Change::Set(
                    container.key("lifecycle").key("preStop"),
                    serde_json::json!({"exec": {"command": ["/bin/sleep", seconds.to_string()]}}),
                )],
            )),
        },
    }
}
