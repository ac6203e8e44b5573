//! The meshes' injected lifecycles against their upstream code, through the binary:
//! Istio's native drain preStop with a status port of its own, Kuma's native and classic
//! sidecars, Consul's dataplane and Dapr's `daprd`. Each test feeds a manifest to
//! `explain --format json` or `lint --format json`, reads the event times or verdicts a
//! user would see, and names the upstream source it follows (repository, file,
//! function, release) and the section of `docs/lifecycle.md` that states the fact.

use crate::common;

use common::reports::{at, explain, findings, lint, names_in, notes, rule_ids};
use common::testdata;
use serde_json::Value;

/// The plan's container `name`, as `explain --format json` gives it.
fn container<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["workloads"][0]["plan"]["containers"]
        .as_array()
        .expect("containers is an array")
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no container {name} in {report}"))
}

/// When `name` stops: (SIGTERM, exit), in ms.
fn stop(report: &Value, name: &str) -> (Option<i64>, Option<i64>) {
    (
        at(report, "termination", Some(name), "sigterm"),
        at(report, "termination", Some(name), "exited"),
    )
}

// --- Istio's native proxy with a status port of its own (docs/lifecycle.md §3.3) ------

/// A pod with a native Istio proxy (`sidecar.istio.io/nativeSidecar`), the app's
/// shutdown set to 5 s, and `annotations` (indented four spaces) and `app` lines.
fn istio_native(annotations: &str, app: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ns\n  labels:\n    sidecar.istio.io/inject: \"true\"\n  annotations:\n    sidecar.istio.io/nativeSidecar: \"true\"\n    mesh-lifecycle.io/app-shutdown: 5s\n{annotations}spec:\n  containers:\n  - name: app\n    image: app\n{app}"
    )
}

const ISTIO_1_28: [&str; 2] = ["--istio-version", "1.28"];

/// istio/istio 1.28.0: the injection template renders the native proxy's preStop as
/// `pilot-agent request --debug-port={{(annotation .ObjectMeta
/// `status.sidecar.istio.io/port` .Values.global.proxy.statusPort)}} POST drain`
/// (`manifests/charts/istio-control/istio-discovery/files/injection-template.yaml`,
/// 1.21.0 on); `pilot-agent request` refuses any port outside `allowedPorts` {15000,
/// 15004, 15020, 15021} in its `PreRunE` before any request
/// (`pilot/cmd/pilot-agent/app/request.go`). With 15030 the hook fails at once,
/// `/drain` is never called, `skipDrain` stays false, and the proxy's SIGTERM at 5 s
/// (its turn after the app) runs `Agent.terminate` (`pkg/envoy/agent.go`): exit
/// `terminationDrainDuration` (5 s) later, at 10 s. With the default 15020 it exits at
/// its SIGTERM, at 5 s. G = 30, app exits 5 s after its SIGTERM at 0.
#[test]
fn a_native_istio_proxy_on_status_port_15030_exits_5_s_after_its_sigterm() {
    let moved = explain(
        &istio_native("    status.sidecar.istio.io/port: \"15030\"\n", ""),
        &ISTIO_1_28,
    );
    assert_eq!(stop(&moved, "app"), (Some(0), Some(5000)));
    assert_eq!(stop(&moved, "istio-proxy"), (Some(5000), Some(10_000)));
    let hook = &container(&moved, "istio-proxy")["preStop"];
    assert_eq!(
        hook["summary"],
        "pilot-agent request --debug-port=15030 POST drain"
    );
    assert_eq!(
        hook["drainMissed"],
        "fails: `pilot-agent` refuses port 15030 (it calls only 15000, 15004, 15020 or 15021), so no drain starts"
    );
    // Inbound is drained on the SIGTERM, not by the preStop at 0.
    assert_eq!(
        at(&moved, "termination", Some("istio-proxy"), "inboundDrained"),
        Some(5000)
    );

    let default = explain(&istio_native("", ""), &ISTIO_1_28);
    assert_eq!(stop(&default, "istio-proxy"), (Some(5000), Some(5000)));
    assert_eq!(
        at(
            &default,
            "termination",
            Some("istio-proxy"),
            "inboundDrained"
        ),
        Some(0)
    );
    assert!(
        container(&default, "istio-proxy")["preStop"]
            .get("drainMissed")
            .is_none()
    );
}

/// Same template and `request.go` (istio/istio 1.28.0): `status.sidecar.istio.io/port:
/// "0"` renders `--debug-port=0`, also refused; the agent has no status server at all
/// (`pilot/cmd/pilot-agent/app/cmd.go`: `if proxyConfig.StatusPort > 0`). With
/// `EXIT_ON_ZERO_ACTIVE_CONNECTIONS` the undrained agent sleeps `MINIMUM_DRAIN_DURATION`
/// (5 s) and exits at its first 1 s poll that finds no connections (`Agent.terminate`,
/// `activeConnectionCheckDelay`): 5 + 5 + 1 = 11 s.
#[test]
fn status_port_0_fails_the_drain_too_and_exit_on_zero_waits_the_minimum_and_a_poll() {
    let off = explain(
        &istio_native("    status.sidecar.istio.io/port: \"0\"\n", ""),
        &ISTIO_1_28,
    );
    assert_eq!(stop(&off, "istio-proxy"), (Some(5000), Some(10_000)));
    let exit_on_zero = explain(
        &istio_native(
            "    status.sidecar.istio.io/port: \"15030\"\n    proxy.istio.io/config: '{\"proxyMetadata\": {\"EXIT_ON_ZERO_ACTIVE_CONNECTIONS\": \"true\"}}'\n",
            "",
        ),
        &ISTIO_1_28,
    );
    assert_eq!(
        stop(&exit_on_zero, "istio-proxy"),
        (Some(5000), Some(11_000))
    );
}

/// The agent's status port is the annotation, else ProxyConfig `statusPort`
/// (`applyAnnotations`, `pilot/cmd/pilot-agent/config/config.go`, istio/istio 1.28.0),
/// but the template renders `--debug-port` from the annotation else Helm's
/// `global.proxy.statusPort` (15020). With `statusPort: 15030` in `proxy.istio.io/config`
/// the preStop calls 15020, which `request.go` accepts, where nothing serves `/drain`:
/// no drain, exit at 5 + 5 = 10 s.
#[test]
fn a_proxy_config_status_port_leaves_the_drain_call_on_a_port_that_serves_none() {
    let report = explain(
        &istio_native("    proxy.istio.io/config: '{\"statusPort\": 15030}'\n", ""),
        &ISTIO_1_28,
    );
    assert_eq!(stop(&report, "istio-proxy"), (Some(5000), Some(10_000)));
    assert_eq!(
        container(&report, "istio-proxy")["preStop"]["drainMissed"],
        "returns without draining: port 15020 serves no drain (the status port is 15030)"
    );
}

/// The verdicts that follow (istio/istio 1.28.0 as above; kubelet grace arithmetic,
/// docs/lifecycle.md §2.2 and §2.4): app preStop `sleep 20`, shutdown 5 s, so the app
/// exits at 25 and the proxy gets SIGTERM at 25; with `terminationDrainDuration: 10s`
/// and status port 15030 it would exit at 35, so SIGKILL at 30 cuts it (ML201), and the
/// drain setting is in use (no ML205). With the default port the preStop drains, the
/// proxy exits at 25, and `terminationDrainDuration` is the unused setting (ML205).
#[test]
fn the_undrained_native_proxy_outlives_the_grace_period_where_the_drained_one_does_not() {
    let app = "    lifecycle:\n      preStop:\n        exec:\n          command: [sleep, \"20\"]\n";
    let drain = "    proxy.istio.io/config: '{\"terminationDrainDuration\": \"10s\"}'\n";
    let moved = format!("{drain}    status.sidecar.istio.io/port: \"15030\"\n");
    let (report, status) = lint(&istio_native(&moved, app), &ISTIO_1_28);
    assert_eq!(rule_ids(&report), ["ML201"], "{report}");
    assert!(
        findings(&report, "ML201")[0]["message"]
            .as_str()
            .unwrap()
            .contains("`istio-proxy` needs until 35 s to exit"),
        "{report}"
    );
    assert_eq!(status, 1);
    let (report, status) = lint(&istio_native(drain, app), &ISTIO_1_28);
    assert_eq!(rule_ids(&report), ["ML205"], "{report}");
    assert_eq!(status, 0);
}

/// A pod injected already is read as written (istio/istio 1.28.0 as above): the preStop
/// `--debug-port=15030` is refused whatever the pod says, and `--debug-port=15020` next
/// to an annotation that moved the agent to 15030 reaches no `/drain`.
#[test]
fn an_injected_native_proxy_is_judged_by_the_port_its_prestop_names() {
    let injected = |annotation: &str, port: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n    mesh-lifecycle.io/app-shutdown: 5s\n{annotation}spec:\n  initContainers:\n  - name: istio-proxy\n    image: docker.io/istio/proxyv2:1.28.0\n    restartPolicy: Always\n    args: [proxy, sidecar]\n    lifecycle:\n      preStop:\n        exec:\n          command: [pilot-agent, request, --debug-port={port}, POST, drain]\n    startupProbe:\n      httpGet: {{path: /healthz/ready, port: 15021}}\n      periodSeconds: 1\n      failureThreshold: 600\n  containers:\n  - name: app\n    image: app\n"
        )
    };
    let moved = "    status.sidecar.istio.io/port: \"15030\"\n";
    for (annotation, port, exit) in [
        (moved, "15030", 10_000),
        (moved, "15020", 10_000),
        ("", "15020", 5000),
        ("", "15030", 10_000),
    ] {
        let report = explain(&injected(annotation, port), &ISTIO_1_28);
        assert_eq!(
            stop(&report, "istio-proxy"),
            (Some(5000), Some(exit)),
            "--debug-port={port} with {annotation:?}"
        );
    }
}

// --- Istio's hold with the status port off (docs/lifecycle.md §3.5) ---------------------

/// A Pod Istio injects, classic (Istio 1.22), with `annotations` (indented four spaces),
/// an app `web` and `extra` lines after it.
fn istio_classic(annotations: &str, extra: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels:\n    sidecar.istio.io/inject: \"true\"\n  annotations:\n{annotations}spec:\n  containers:\n  - name: web\n    image: web\n{extra}"
    )
}

const ISTIO_1_22: [&str; 2] = ["--istio-version", "1.22"];

const HOLD: &str = "    proxy.istio.io/config: '{\"holdApplicationUntilProxyStarts\": true}'\n";

const STATUS_OFF: &str = "    status.sidecar.istio.io/port: \"0\"\n";

/// istio/istio master and 1.22.0: the injection template adds `postStart: pilot-agent
/// wait` whenever `$holdProxy` (which does not read the status port); `pilot-agent
/// wait` polls `http://localhost:15021/healthz/ready` every 500 ms for 60 s
/// (`pilot/cmd/pilot-agent/app/wait.go`); Envoy routes that path to the cluster `agent`
/// on the agent's status port (`tools/packaging/common/envoy_bootstrap.json`), and with
/// the port 0 the agent serves no status (`app/cmd.go`, `if proxyConfig.StatusPort >
/// 0`). The hook fails at 60 s and the kubelet starts `web` once the killed proxy is
/// gone (pilot-agent's 5-s drain after the SIGTERM, §1.1), not when the proxy is ready at
/// 2 s; ML102 names the setting.
#[test]
fn the_hold_fails_after_60_s_when_the_status_port_is_off() {
    let held = explain(&istio_classic(HOLD, ""), &ISTIO_1_22);
    assert_eq!(
        at(&held, "startup", Some("istio-proxy"), "postStartDone"),
        Some(2000)
    );
    assert_eq!(at(&held, "startup", Some("web"), "started"), Some(2000));
    let off = explain(
        &istio_classic(&format!("{HOLD}{STATUS_OFF}"), ""),
        &ISTIO_1_22,
    );
    assert_eq!(
        at(&off, "startup", Some("istio-proxy"), "postStartDone"),
        None
    );
    assert_eq!(
        at(&off, "startup", Some("istio-proxy"), "postStartFailed"),
        Some(60_000)
    );
    assert_eq!(
        at(&off, "startup", Some("istio-proxy"), "exited"),
        Some(65_000)
    );
    assert_eq!(at(&off, "startup", Some("web"), "started"), Some(65_000));
    assert_eq!(
        container(&off, "istio-proxy")["postStart"]["duration"]["untilReady"]["unanswered"],
        true
    );
    let (report, status) = lint(
        &istio_classic(&format!("{HOLD}{STATUS_OFF}"), ""),
        &ISTIO_1_22,
    );
    assert_eq!(rule_ids(&report), ["ML102"]);
    assert_eq!(status, 1);
    let finding = findings(&report, "ML102")[0];
    assert_eq!(finding["line"], 9, "at the status port: {finding}");
    let message = finding["message"].as_str().unwrap();
    assert!(message.contains("fails at 60 s"), "{message}");
    assert!(
        message.contains("once it is gone at 65 s, starts `web` without it"),
        "{message}"
    );
    let (report, _) = lint(&istio_classic(HOLD, ""), &ISTIO_1_22);
    assert_eq!(rule_ids(&report), Vec::<String>::new());
}

/// The kubelet starts the next container only once the one it killed for a failed
/// postStart is gone: `startContainer` calls `killContainer`, which runs the preStop,
/// signals, and waits on the runtime's `StopContainer` for the pod's
/// `terminationGracePeriodSeconds` (no deletion sets another; docs/lifecycle.md §1.1).
/// pilot-agent exits its `terminationDrainDuration` after the SIGTERM (5 s by default,
/// §3.6), and a grace period shorter than that ends it with SIGKILL, 3 s after the
/// SIGTERM.
#[test]
fn the_next_container_waits_until_the_killed_proxy_is_gone() {
    let drain = "\"terminationDrainDuration\": \"12s\", ";
    for (drain, grace, gone) in [
        ("", "", 65_000),
        (drain, "", 72_000),
        (drain, "  terminationGracePeriodSeconds: 3\n", 63_000),
    ] {
        let pod = format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels:\n    sidecar.istio.io/inject: \"true\"\n  annotations:\n{STATUS_OFF}    proxy.istio.io/config: '{{{drain}\"holdApplicationUntilProxyStarts\": true}}'\nspec:\n{grace}  containers:\n  - name: web\n    image: web\n"
        );
        let report = explain(&pod, &ISTIO_1_22);
        assert_eq!(
            at(&report, "startup", Some("istio-proxy"), "postStartFailed"),
            Some(60_000),
            "{pod}"
        );
        assert_eq!(
            at(&report, "startup", Some("istio-proxy"), "sigterm"),
            Some(60_000),
            "{pod}"
        );
        let sigkill = at(&report, "startup", Some("istio-proxy"), "sigkill");
        assert_eq!(sigkill, (gone == 63_000).then_some(gone), "{pod}");
        assert_eq!(
            at(&report, "startup", Some("istio-proxy"), "exited"),
            Some(gone),
            "{pod}"
        );
        assert_eq!(
            at(&report, "startup", Some("web"), "started"),
            Some(gone),
            "{pod}"
        );
    }
}

/// A `pilot-agent wait` written with its own `--url` (Envoy's admin `/ready`, which
/// answers without the status port) is answered: it returns when the proxy is ready.
#[test]
fn a_wait_with_its_own_url_is_answered_with_the_status_port_off() {
    let written = |url: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n{STATUS_OFF}spec:\n  containers:\n  - name: istio-proxy\n    image: docker.io/istio/proxyv2:1.22.0\n    args: [proxy, sidecar]\n    lifecycle:\n      postStart:\n        exec:\n          command: [pilot-agent, wait{url}]\n  - name: web\n    image: web\n"
        )
    };
    let own = explain(
        &written(", --url=http://localhost:15000/ready"),
        &ISTIO_1_22,
    );
    assert_eq!(at(&own, "startup", Some("web"), "started"), Some(2000));
    for url in ["", ", --url, http://localhost:15021/healthz/ready"] {
        let default = explain(&written(url), &ISTIO_1_22);
        assert_eq!(
            at(&default, "startup", Some("web"), "started"),
            Some(65_000),
            "{url}"
        );
        let (report, _) = lint(&written(url), &ISTIO_1_22);
        assert_eq!(rule_ids(&report), ["ML102"], "{url}");
    }
}

/// pilot-agent reads the annotation with `strconv.Atoi` and takes 0 for what it cannot
/// read (`applyAnnotations`, `pilot/cmd/pilot-agent/config/config.go`): `"00"` turns the
/// status server off as `"0"` does, though the template, which compares the text with
/// `"0"`, still adds the probes. A port of its own (`"15030"`) is answered.
#[test]
fn the_agent_reads_the_status_port_as_a_number() {
    for (port, started) in [("00", 65_000), ("15030", 2000)] {
        let annotations = format!("{HOLD}    status.sidecar.istio.io/port: \"{port}\"\n");
        let report = explain(&istio_classic(&annotations, ""), &ISTIO_1_22);
        assert_eq!(
            at(&report, "startup", Some("web"), "started"),
            Some(started),
            "{port}"
        );
        let probe = &container(&report, "istio-proxy")["startupProbe"];
        assert!(!probe.is_null(), "{port}: the template keeps the probes");
    }
}

/// A restartable init container killed for a failed postStart is not running, and the
/// kubelet starts the next init container only from a running one
/// (`computeInitContainerActions`, kubernetes v1.29–v1.35): with Istio 1.20 native, which
/// still adds `pilot-agent wait` with the hold (§3.2), nothing after the proxy starts.
#[test]
fn a_native_proxy_whose_wait_fails_holds_everything_after_it() {
    let (_dir, config) =
        common::config_file("istio:\n  version: \"1.20\"\n  nativeSidecars: \"true\"\n");
    let flags = ["--config", config.to_str().unwrap()];
    let pod = istio_classic(&format!("{HOLD}{STATUS_OFF}"), "");
    let report = explain(&pod, &flags);
    assert_eq!(
        names_in(&report, "initContainers"),
        ["istio-init", "istio-proxy"]
    );
    assert_eq!(
        at(&report, "startup", Some("istio-proxy"), "postStartFailed"),
        Some(60_000)
    );
    assert_eq!(at(&report, "startup", Some("web"), "started"), None);
    let (report, _) = lint(&pod, &flags);
    assert_eq!(rule_ids(&report), ["ML102"]);
    let message = findings(&report, "ML102")[0]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.contains("nothing after it starts"), "{message}");
}

/// A Job's proxy killed for its failed wait stays gone: `restartPolicy: Never` restarts
/// nothing, and under `OnFailure` pilot-agent, which exits 0 on the kill, is not
/// restarted either (istio#45627). The Job ends with its work (ML301 would say it never
/// completes), and ML102 says the proxy does not come back.
#[test]
fn a_jobs_proxy_killed_for_its_wait_stays_gone() {
    for policy in ["Never", "OnFailure"] {
        let job = format!(
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  template:\n    metadata:\n      labels:\n        sidecar.istio.io/inject: \"true\"\n      annotations:\n        status.sidecar.istio.io/port: \"0\"\n        proxy.istio.io/config: '{{\"holdApplicationUntilProxyStarts\": true}}'\n    spec:\n      restartPolicy: {policy}\n      containers:\n      - name: work\n        image: work\n"
        );
        let report = explain(&job, &ISTIO_1_22);
        assert_eq!(
            at(&report, "completion", Some("istio-proxy"), "exited"),
            Some(65_000),
            "{policy}"
        );
        let (report, _) = lint(&job, &ISTIO_1_22);
        assert_eq!(rule_ids(&report), ["ML102"], "{policy}");
        let message = findings(&report, "ML102")[0]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            message.contains(&format!("is not restarted under `restartPolicy: {policy}`")),
            "{message}"
        );
    }
}

/// With the status port off the hold is no remedy and pilot-agent serves no
/// `/quitquitquit`: ML101 offers no fix and has the app poll Envoy's admin `GET
/// :15000/ready`; ML301 has the work call Envoy's own `POST :15000/quitquitquit`, which
/// stops pilot-agent too (it exits once Envoy has, §3.4), and its fix leaves the Job
/// clean of ML301.
#[test]
fn with_the_status_port_off_advice_uses_envoys_admin() {
    let (report, _) = lint(
        &istio_classic(STATUS_OFF, "    ports: [{containerPort: 80}]\n"),
        &ISTIO_1_22,
    );
    let ml101 = findings(&report, "ML101")[0];
    let help = ml101["help"].as_str().unwrap();
    assert!(help.contains("poll `GET :15000/ready`"), "{help}");
    assert!(!help.contains("poll `GET :15021"), "{help}");
    assert!(help.contains("is no remedy here"), "{help}");
    assert!(ml101.get("fix").is_none_or(Value::is_null), "{ml101}");
    let job = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  template:\n    metadata:\n      labels:\n        sidecar.istio.io/inject: \"true\"\n      annotations:\n        status.sidecar.istio.io/port: \"0\"\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: work\n        image: work\n        command: [sh, -c, \"curl -fsS http://db/ok; ./work\"]\n";
    let (report, _) = lint(job, &ISTIO_1_22);
    let help = findings(&report, "ML301")[0]["help"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        help.contains("curl -fsS -X POST http://localhost:15000/quitquitquit"),
        "{help}"
    );
    assert!(!help.contains("15020"), "{help}");
}

// --- Kuma (docs/lifecycle.md §5.3) -------------------------------------------------------

/// A Deployment Kuma injects (the pod's `kuma.io/sidecar-injection` label), with
/// `annotations` (indented eight spaces) and `app` lines, `terminationGracePeriodSeconds`
/// unset (30 s), and an init container of its own.
fn kuma(annotations: &str, app: &str) -> String {
    let annotations = if annotations.is_empty() {
        String::new()
    } else {
        format!("      annotations:\n{annotations}")
    };
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  selector:\n    matchLabels: {{app: web}}\n  template:\n    metadata:\n      labels:\n        app: web\n        kuma.io/sidecar-injection: enabled\n{annotations}    spec:\n      initContainers:\n      - name: migrate\n        image: migrate\n      containers:\n      - name: web\n        image: web\n        ports:\n        - containerPort: 8080\n{app}"
    )
}

/// kumahq/kuma v2.14.3: with `experimental.sidecarContainers` (on by default from
/// v2.14.0, `pkg/config/app/kuma-cp/kuma-cp.defaults.yaml`) and an API server at 1.29
/// or later (`sidecarContainerVersion`, `pkg/plugins/runtime/k8s/plugin.go`), the
/// injector (`pkg/plugins/runtime/k8s/webhooks/injector/injector.go`, `Inject`) puts
/// `kuma-sidecar` in the init containers with `restartPolicy: Always`, before the pod's
/// own, with the preStop `killall -USR2 kuma-dp`; its startup probe (delay 1 s, period
/// 5 s, 12 failures, `NewContainer` in `pkg/plugins/runtime/k8s/containers/factory.go`)
/// first probes at the 5 s tick (kubelet `worker.run`), so the pod's init container and
/// the app start at 5. On deletion SIGUSR2 drains Envoy's inbound listeners at 0
/// (`app/kuma-dp/cmd/run.go`, `newRunCmd`: `envoyComponent.DrainForever()`); the
/// SIGTERM at 5 s, once the app has exited, finds `draining` and kuma-dp "already
/// drained, exit immediately": it exits at 5. No ML201, where the classic model said
/// 5 + 30 s.
#[test]
fn a_kuma_injected_pod_gets_a_native_sidecar_that_exits_at_its_sigterm() {
    let report = explain(&kuma("", ""), &KUMA_2_14);
    assert_eq!(
        names_in(&report, "initContainers"),
        ["kuma-sidecar", "migrate"]
    );
    let sidecar = container(&report, "kuma-sidecar");
    assert_eq!(sidecar["nativeSidecar"], true);
    assert_eq!(sidecar["preStop"]["summary"], "killall -USR2 kuma-dp");
    assert_eq!(sidecar["exit"], "immediately");
    assert_eq!(
        at(
            &report,
            "startup",
            Some("kuma-sidecar"),
            "startupProbePassed"
        ),
        Some(5000)
    );
    assert_eq!(at(&report, "startup", Some("web"), "started"), Some(5000));
    assert_eq!(stop(&report, "web"), (Some(0), Some(5000)));
    assert_eq!(stop(&report, "kuma-sidecar"), (Some(5000), Some(5000)));
    assert_eq!(
        at(
            &report,
            "termination",
            Some("kuma-sidecar"),
            "inboundDrained"
        ),
        Some(0)
    );
    assert!(
        notes(&report)
            .iter()
            .all(|n| !n.contains("Kuma version unknown"))
    );
    let (report, status) = lint(&kuma("", ""), &KUMA_2_14);
    assert!(findings(&report, "ML201").is_empty(), "{report}");
    assert_eq!(status, 0);
}

/// Kuma 2.14, whose control plane injects native sidecars by default.
const KUMA_2_14: [&str; 2] = ["--mesh-version", "kuma=2.14"];

/// kumahq/kuma v2.14.3 as above: with an app preStop `sleep 20` the app exits at 25 and
/// the sidecar, drained since 0, exits at its SIGTERM at 25.
#[test]
fn a_native_kuma_sidecar_follows_a_late_app_out() {
    let app = "        lifecycle:\n          preStop:\n            sleep: {seconds: 20}\n";
    let report = explain(&kuma("", app), &KUMA_2_14);
    assert_eq!(stop(&report, "web"), (Some(20_000), Some(25_000)));
    assert_eq!(stop(&report, "kuma-sidecar"), (Some(25_000), Some(25_000)));
}

/// Below Kubernetes 1.29 the injector adds a classic sidecar in every release
/// (kumahq/kuma v2.14.3, `plugin.go`): first among the containers ("inject sidecar as
/// first container", `Inject`), no preStop. On SIGTERM kuma-dp fails Envoy's health
/// checks and waits the whole drain time (`run.go`: `time.After(cfg.Dataplane.DrainTime
/// .Duration)`, `KUMA_DATAPLANE_DRAIN_TIME` from `kuma.io/sidecar-drain-time`, 30 s):
/// it exits at 30, within the default grace period. A drain time of 45 s is cut by
/// SIGKILL at 30: a true ML201, whose help names the drain setting.
#[test]
fn a_classic_kuma_sidecar_waits_its_drain_time_and_ml201_names_it() {
    let classic = ["--kubernetes-version", "1.28"];
    let report = explain(&kuma("", ""), &classic);
    assert_eq!(names_in(&report, "containers"), ["kuma-sidecar", "web"]);
    assert_eq!(stop(&report, "kuma-sidecar"), (Some(0), Some(30_000)));
    // Every release is classic here; the note says which releases the reading is for.
    assert!(
        notes(&report)
            .iter()
            .any(|n| n.contains("where the API server is before Kubernetes 1.29")),
        "{report}"
    );
    let (report, _) = lint(&kuma("", ""), &classic);
    assert!(findings(&report, "ML201").is_empty(), "{report}");
    let long = kuma("        kuma.io/sidecar-drain-time: 45s\n", "");
    let (report, _) = lint(&long, &classic);
    let ml201 = findings(&report, "ML201");
    assert_eq!(ml201.len(), 1, "{report}");
    assert!(
        ml201[0]["help"]
            .as_str()
            .unwrap()
            .contains("the drain (`kuma.io/sidecar-drain-time`)"),
        "{report}"
    );
    let report = explain(
        &kuma("        kuma.io/sidecar-drain-time: 10s\n", ""),
        &classic,
    );
    assert_eq!(stop(&report, "kuma-sidecar"), (Some(0), Some(10_000)));
}

/// kumahq/kuma v2.14.3, `Inject`: a native sidecar's `Lifecycle` is the preStop alone,
/// which replaces the postStart `kuma-dp wait` that `kuma.io/wait-for-dataplane-ready`
/// asks for; the startup probe holds the app instead. The annotation is reported as
/// moot (ML403) and no postStart is modelled. A classic sidecar keeps it.
#[test]
fn wait_for_dataplane_ready_is_moot_for_a_native_kuma_sidecar() {
    let wait = "        kuma.io/wait-for-dataplane-ready: \"true\"\n";
    let report = explain(&kuma(wait, ""), &KUMA_2_14);
    assert_eq!(container(&report, "kuma-sidecar")["postStart"], Value::Null);
    let (report, _) = lint(&kuma(wait, ""), &KUMA_2_14);
    assert_eq!(findings(&report, "ML403").len(), 1, "{report}");
    let report = explain(&kuma(wait, ""), &["--kubernetes-version", "1.28"]);
    assert_eq!(
        container(&report, "kuma-sidecar")["postStart"]["summary"],
        "kuma-dp wait"
    );
}

/// A pod as Kuma 2.14's injector leaves it (testdata/rules/ml201-silent-kuma-injected-
/// native.yaml), read as written: `kuma-init`, the native `kuma-sidecar` with its
/// `killall -USR2 kuma-dp` preStop (kumahq/kuma v2.14.3, `injector.go`, `Inject`; the
/// `kumahq/kuma-dp` image's busybox has `killall`), the pod's own init container, the
/// app. The sidecar exits at its SIGTERM, when the app has exited (`run.go`, "already
/// drained, exit immediately"): no ML201, though `KUMA_DATAPLANE_DRAIN_TIME` is 30 s.
#[test]
fn a_real_shaped_kuma_injected_pod_fires_no_ml201() {
    let path = testdata("rules/ml201-silent-kuma-injected-native.yaml");
    let yaml = std::fs::read_to_string(&path).unwrap();
    let report = explain(&yaml, &[]);
    assert_eq!(
        names_in(&report, "initContainers"),
        ["kuma-init", "kuma-sidecar", "wait-for-redis"]
    );
    assert_eq!(stop(&report, "demo-app"), (Some(0), Some(5000)));
    assert_eq!(stop(&report, "kuma-sidecar"), (Some(5000), Some(5000)));
    // Read as written: no assumption about the release.
    assert!(notes(&report).iter().all(|n| !n.contains("Kuma version")));
    let (report, status) = lint(&yaml, &[]);
    assert!(findings(&report, "ML201").is_empty(), "{report}");
    assert_eq!(status, 0);
    // Without the SIGUSR2 preStop its SIGTERM starts the drain, which lasts
    // `KUMA_DATAPLANE_DRAIN_TIME` as rendered into its environment: 30 s is cut by
    // SIGKILL at 30 (ML201), 15 s ends at 20.
    let from = yaml.find("    lifecycle:\n").unwrap();
    let to = yaml.find("- kuma-dp\n").unwrap() + "- kuma-dp\n".len();
    let undrained = format!("{}{}", &yaml[..from], &yaml[to..]);
    assert!(!undrained.contains("- killall"));
    let (report, _) = lint(&undrained, &[]);
    assert_eq!(findings(&report, "ML201").len(), 1, "{report}");
    let fifteen = undrained.replace("value: 30s", "value: 15s");
    let report = explain(&fifteen, &[]);
    assert_eq!(stop(&report, "kuma-sidecar"), (Some(5000), Some(20_000)));
}

// --- Consul (docs/lifecycle.md §5.2) -----------------------------------------------------

/// A pod Consul injects (`consul.hashicorp.com/connect-inject: "true"`) with more
/// `annotations` (indented four spaces) and an init container of its own.
fn consul(annotations: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n    consul.hashicorp.com/connect-inject: \"true\"\n{annotations}spec:\n  initContainers:\n  - name: setup\n    image: setup\n  containers:\n  - name: app\n    image: app\n    ports: [{{containerPort: 8080}}]\n"
    )
}

/// hashicorp/consul-k8s v2.0.3, `control-plane/connect-inject/webhook/mesh_webhook.go`
/// (`Handle`): with the proxy lifecycle on (Helm `defaultEnabled: true`) the dataplane is
/// prepended to the containers; with `enable-sidecar-proxy-lifecycle: "false"` it is
/// appended. hashicorp/consul-dataplane v2.0.1, `pkg/consuldp/lifecycle.go`
/// (`gracefulShutdown`): on SIGTERM it drains inbound listeners and waits the whole
/// `shutdownGracePeriodSeconds` (30 s) before quitting Envoy; without the lifecycle its
/// grace period is 0 and it quits at once.
#[test]
fn consul_places_a_classic_dataplane_by_the_proxy_lifecycle() {
    let report = explain(&consul(""), &[]);
    assert_eq!(names_in(&report, "containers"), ["consul-dataplane", "app"]);
    assert_eq!(stop(&report, "consul-dataplane"), (Some(0), Some(30_000)));
    let off = explain(
        &consul("    consul.hashicorp.com/enable-sidecar-proxy-lifecycle: \"false\"\n"),
        &[],
    );
    assert_eq!(names_in(&off, "containers"), ["app", "consul-dataplane"]);
    assert_eq!(stop(&off, "consul-dataplane"), (Some(0), Some(0)));
}

/// The corpus's Consul Deployment (hashicorp/consul-k8s' acceptance fixture
/// `cases/openshift/basic/frontend.yaml`, testdata/corpus): the proxy lifecycle is on by
/// default, so the dataplane is injected first (`mesh_webhook.go`, `Handle`, v2.0.3)
/// and, with no preStop and no postStart, still holds nothing (ML101); on SIGTERM it
/// keeps outbound for its 30 s grace period (`gracefulShutdown`, consul-dataplane
/// v2.0.1) and exits at 30, within the default grace period: no ML201.
#[test]
fn the_corpus_consul_deployment_gets_its_dataplane_first_and_within_the_grace_period() {
    let path = testdata("corpus/apps/consul-k8s/fixtures/cases/openshift/basic/frontend.yaml");
    let yaml = std::fs::read_to_string(path).unwrap();
    let report = explain(&yaml, &[]);
    assert_eq!(
        names_in(&report, "containers"),
        ["consul-dataplane", "frontend"]
    );
    assert_eq!(stop(&report, "consul-dataplane"), (Some(0), Some(30_000)));
    let (report, _) = lint(&yaml, &[]);
    assert_eq!(rule_ids(&report), ["ML101", "ML207"], "{report}");
}

/// hashicorp/consul-k8s v2.0.3: `enable-consul-dataplane-as-sidecar` appends the
/// dataplane to the init containers, after the pod's own, with `restartPolicy: Always`
/// and a startup probe (delay 1 s, period 1 s, 10 failures;
/// `consul_dataplane_sidecar.go`); no hooks. Its SIGTERM comes at 5 s, once the app has
/// exited, and `gracefulShutdown` (consul-dataplane v2.0.1) would wait 30 s more: SIGKILL
/// at 30 s cuts it, a true ML201 whose help names the grace-period annotation. `"0"`
/// lets it quit at its SIGTERM.
#[test]
fn a_native_consul_dataplane_waits_its_grace_period_past_the_pods() {
    let native = "    consul.hashicorp.com/enable-consul-dataplane-as-sidecar: \"true\"\n";
    let report = explain(&consul(native), &[]);
    assert_eq!(
        names_in(&report, "initContainers"),
        ["setup", "consul-dataplane"]
    );
    assert_eq!(
        at(
            &report,
            "startup",
            Some("consul-dataplane"),
            "startupProbePassed"
        ),
        Some(2000)
    );
    assert_eq!(
        stop(&report, "consul-dataplane"),
        (Some(5000), Some(30_000))
    );
    let (report, status) = lint(&consul(native), &[]);
    let ml201 = findings(&report, "ML201");
    assert_eq!(ml201.len(), 1, "{report}");
    assert!(
        ml201[0]["help"].as_str().unwrap().contains(
            "`consul.hashicorp.com/sidecar-proxy-lifecycle-shutdown-grace-period-seconds`"
        ),
        "{report}"
    );
    assert_eq!(status, 1);
    let zero = format!(
        "{native}    consul.hashicorp.com/sidecar-proxy-lifecycle-shutdown-grace-period-seconds: \"0\"\n"
    );
    let report = explain(&consul(&zero), &[]);
    assert_eq!(stop(&report, "consul-dataplane"), (Some(5000), Some(5000)));
}

// --- Dapr (docs/lifecycle.md §5.1) -------------------------------------------------------

/// A pod Dapr injects natively (`dapr.io/enable-native-sidecar`) with more `annotations`
/// (indented four spaces) and an init container of its own.
fn dapr_native(annotations: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n    dapr.io/enabled: \"true\"\n    dapr.io/app-id: orders\n    dapr.io/enable-native-sidecar: \"true\"\n{annotations}spec:\n  initContainers:\n  - name: setup\n    image: setup\n  containers:\n  - name: app\n    image: app\n"
    )
}

/// dapr/dapr v1.18.3: the native `daprd` is patched at `/spec/initContainers/-`, after
/// the pod's own init containers (`pkg/injector/patcher/sidecar_patcher.go`,
/// `sidecar_container.go`), with no startup probe and no hooks. `pkg/runtime/runtime.go`
/// (`Run`): with `dapr.io/block-shutdown-duration` and no app health check, daprd keeps
/// serving for the whole duration after its SIGTERM (the app never reports unhealthy),
/// then closes: SIGTERM at 5 s (after the app), exit at 5 + 20 = 25 s; with 40 s
/// SIGKILL at 30 s cuts it (ML201).
#[test]
fn a_native_daprd_comes_after_the_pods_init_containers_and_blocks_its_full_duration() {
    let block = |duration: &str| {
        dapr_native(&format!(
            "    dapr.io/block-shutdown-duration: {duration}\n"
        ))
    };
    let report = explain(&block("20s"), &[]);
    assert_eq!(names_in(&report, "initContainers"), ["setup", "daprd"]);
    assert_eq!(stop(&report, "daprd"), (Some(5000), Some(25_000)));
    let (report, _) = lint(&block("20s"), &[]);
    assert!(findings(&report, "ML201").is_empty(), "{report}");
    let (report, _) = lint(&block("40s"), &[]);
    assert_eq!(findings(&report, "ML201").len(), 1, "{report}");
}
