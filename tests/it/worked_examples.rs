//! Every worked timeline of `docs/lifecycle.md` §9 (computed by hand from the facts of
//! §1–§6), checked to the second; `example_N` is §9.N. G is the grace period, T0 = 0 the
//! moment the kubelet starts killing the pod, defaults: proxy start-up 2 s, endpoint
//! propagation 5 s, app shutdown 5 s.

use crate::common;

use common::{analyze_one, rule_ids, s, start, stop};
use mesh_lifecycle::settings::{KubeVersion, Source, Sourced};
use mesh_lifecycle::simulate::Outcome;

/// A Deployment with the app `app` and the pod-template additions given.
fn deployment(template_metadata: &str, spec: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {{app: web}}\n  template:\n    metadata:\n      labels:\n        app: web\n{template_metadata}    spec:\n{spec}"
    )
}

const INJECT: &str = "        sidecar.istio.io/inject: \"true\"\n";

#[test]
fn example_1_classic_istio_upstream_defaults() {
    let yaml = deployment(
        INJECT,
        "      containers:\n      - name: app\n        image: app\n        ports:\n        - containerPort: 8080\n",
    );
    let a = analyze_one(&yaml, |_| {});
    // app: no preStop: SIGTERM 0, exits 5.
    assert_eq!(stop(&a, "app").signal, s(0.0));
    assert_eq!(stop(&a, "app").exit, s(5.0));
    // istio-proxy: SIGTERM 0, exits 0 + D = 5.
    assert_eq!(stop(&a, "istio-proxy").signal, s(0.0));
    assert_eq!(stop(&a, "istio-proxy").exit, s(5.0));
    assert_eq!(a.timeline.termination.endpoints_removed, s(5.0));
    // Start-up, layout A: the proxy is last; the app starts at 0, the proxy is ready at 2.
    let last = a.plan.containers.iter().last().unwrap();
    assert_eq!(last.name, "istio-proxy");
    assert_eq!(start(&a, "app").started, Some(s(0.0)));
    assert_eq!(start(&a, "istio-proxy").ready, Some(s(2.0)));
    assert!(rule_ids(&a).contains(&"ML101"));
}

/// The app preStop `sleep 25` and the proxy's `sleep 5`, written in the manifest after
/// injection.
fn example_2_manifest() -> String {
    deployment(
        "",
        "      terminationGracePeriodSeconds: 30\n      containers:\n      - name: app\n        image: app\n        lifecycle:\n          preStop:\n            exec:\n              command: [sleep, \"25\"]\n      - name: istio-proxy\n        image: docker.io/istio/proxyv2:1.24.0\n        args: [proxy, sidecar]\n        lifecycle:\n          preStop:\n            exec:\n              command: [sleep, \"5\"]\n",
    )
}

#[test]
fn example_2_a_widely_taught_coordination_design() {
    let a = analyze_one(&example_2_manifest(), |_| {});
    // app: SIGTERM 25, g = 5, SIGKILL 30; exits 25 + 5 = 30 (not killed).
    let app = stop(&a, "app");
    assert_eq!(
        (app.signal, app.kill, app.exit, app.killed),
        (s(25.0), s(30.0), s(30.0), false)
    );
    // istio-proxy: SIGTERM 5, g = 25, SIGKILL 30; exits 5 + 5 = 10.
    let proxy = stop(&a, "istio-proxy");
    assert_eq!(
        (proxy.signal, proxy.kill, proxy.exit, proxy.killed),
        (s(5.0), s(30.0), s(10.0), false)
    );
    // The proxy is gone from 10 while the app runs until 30: its calls fail for 20 s.
    assert_eq!(proxy.outbound_refused, Some(s(10.0)));
    assert_eq!(app.exit - proxy.exit, s(20.0));
}

#[test]
fn example_2_before_injection_gives_the_same_timeline() {
    let yaml = deployment(
        INJECT,
        "      terminationGracePeriodSeconds: 30\n      containers:\n      - name: app\n        image: app\n        lifecycle:\n          preStop:\n            exec:\n              command: [sleep, \"25\"]\n      - name: istio-proxy\n        image: auto\n        lifecycle:\n          preStop:\n            exec:\n              command: [sleep, \"5\"]\n",
    );
    let a = analyze_one(&yaml, |_| {});
    assert_eq!(stop(&a, "istio-proxy").signal, s(5.0));
    assert_eq!(stop(&a, "istio-proxy").exit, s(10.0));
    assert_eq!(stop(&a, "app").signal, s(25.0));
    assert_eq!(stop(&a, "app").exit, s(30.0));
}

#[test]
fn example_3_proxy_prestop_12_and_drain_20_under_30() {
    let yaml = deployment(
        &format!(
            "{INJECT}      annotations:\n        proxy.istio.io/config: '{{\"terminationDrainDuration\": \"20s\"}}'\n"
        ),
        "      terminationGracePeriodSeconds: 30\n      containers:\n      - name: app\n        image: app\n        lifecycle:\n          preStop:\n            exec:\n              command: [sleep, \"25\"]\n      - name: istio-proxy\n        image: auto\n        lifecycle:\n          preStop:\n            exec:\n              command: [sleep, \"12\"]\n",
    );
    let a = analyze_one(&yaml, |_| {});
    // SIGTERM 12, g = 18, SIGKILL 30; would exit 12 + 20 = 32: killed at 30.
    let proxy = stop(&a, "istio-proxy");
    assert_eq!((proxy.signal, proxy.kill), (s(12.0), s(30.0)));
    assert_eq!(proxy.natural_exit, s(32.0));
    assert_eq!((proxy.exit, proxy.killed), (s(30.0), true));
    assert!(rule_ids(&a).contains(&"ML201"));
}

#[test]
fn example_4_a_prestop_longer_than_the_grace_period() {
    let yaml = deployment(
        "",
        "      terminationGracePeriodSeconds: 30\n      containers:\n      - name: app\n        image: app\n        lifecycle:\n          preStop:\n            exec:\n              command: [sleep, \"40\"]\n",
    );
    let a = analyze_one(&yaml, |_| {});
    // The hook still runs at 30; SIGTERM 30, g = max(30 − 30, 2) = 2, SIGKILL 32.
    let app = stop(&a, "app");
    assert_eq!((app.signal, app.kill), (s(30.0), s(32.0)));
    assert!(app.pre_stop_cut);
    assert_eq!(rule_ids(&a), ["ML206"]);
}

/// A native Istio sidecar on Kubernetes 1.29+.
fn native(spec: &str, annotations: &str) -> String {
    deployment(
        &format!(
            "{INJECT}      annotations:\n        sidecar.istio.io/nativeSidecar: \"true\"\n{annotations}"
        ),
        spec,
    )
}

#[test]
fn example_5_native_istio_sidecar() {
    let yaml = native(
        "      terminationGracePeriodSeconds: 30\n      containers:\n      - name: app\n        image: app\n        lifecycle:\n          preStop:\n            exec:\n              command: [sleep, \"10\"]\n",
        "",
    );
    let a = analyze_one(&yaml, |settings| {
        settings.kubernetes = Sourced::new(KubeVersion { minor: 29 }, Source::Default);
    });
    // The proxy's preStop (`/drain`) runs at 0: inbound drain from 0, no exit.
    let proxy = stop(&a, "istio-proxy");
    assert_eq!(proxy.inbound_drained, Some(s(0.0)));
    // app: SIGTERM 10, exits 15.
    assert_eq!(stop(&a, "app").signal, s(10.0));
    assert_eq!(stop(&a, "app").exit, s(15.0));
    // The proxy waits for the app (15); remaining max(30 − 0 − 15, 2) = 15; exits at once.
    assert_eq!(proxy.signal, s(15.0));
    assert_eq!(proxy.kill, s(30.0));
    assert_eq!(proxy.exit, s(15.0));
    assert_eq!(a.timeline.termination.pod_gone, s(15.0));
    // Start-up: the app starts only after the proxy's startupProbe succeeds (2).
    assert_eq!(start(&a, "app").started, Some(s(2.0)));
}

#[test]
fn example_6_native_sidecar_and_a_slow_app() {
    let yaml = native(
        "      terminationGracePeriodSeconds: 30\n      containers:\n      - name: app\n        image: app\n        lifecycle:\n          preStop:\n            exec:\n              command: [sleep, \"25\"]\n",
        "        mesh-lifecycle.io/app-shutdown: 10s\n",
    );
    let a = analyze_one(&yaml, |_| {});
    // app: SIGTERM 25, g = 5, SIGKILL 30; would exit 35: killed at 30.
    let app = stop(&a, "app");
    assert_eq!(
        (app.signal, app.kill, app.natural_exit, app.exit, app.killed),
        (s(25.0), s(30.0), s(35.0), s(30.0), true)
    );
    // The sidecar's turn comes at 30; remaining max(30 − 30, 2) = 2: SIGTERM 30, SIGKILL 32.
    let proxy = stop(&a, "istio-proxy");
    assert_eq!((proxy.signal, proxy.kill), (s(30.0), s(32.0)));
    assert!(rule_ids(&a).contains(&"ML201"));
}

fn job(template_metadata: &str) -> String {
    format!(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\nspec:\n  template:\n    metadata:\n{template_metadata}    spec:\n      restartPolicy: Never\n      containers:\n      - name: migrate\n        image: migrate\n        command: [/migrate]\n"
    )
}

#[test]
fn example_7_a_job_with_a_native_sidecar_completes() {
    let native = job(
        "      labels:\n        sidecar.istio.io/inject: \"true\"\n      annotations:\n        sidecar.istio.io/nativeSidecar: \"true\"\n",
    );
    let a = analyze_one(&native, |_| {});
    let completion = a.timeline.completion.as_ref().unwrap();
    let work = completion.work_done;
    // The work exits at W; nothing else runs, so the kubelet stops the sidecar and the
    // Job completes; the sidecar's exit code does not count.
    assert_eq!(completion.outcome, Outcome::Succeeds(work));
    let proxy = common::index_of(&a, "istio-proxy");
    assert_eq!(a.timeline.containers[proxy].job.exit, Some(work));
    assert!(!rule_ids(&a).contains(&"ML301"));

    // Two native sidecars `a`, `b` (declared in that order), `b` with preStop `sleep 7`,
    // each exiting 5 s after SIGTERM: `b` gets SIGTERM at W + 7 and exits at W + 12,
    // then `a` gets SIGTERM and exits at W + 17, when the Job completes (§2.4, §2.6).
    let two = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      initContainers:\n      - name: a\n        image: a\n        restartPolicy: Always\n      - name: b\n        image: b\n        restartPolicy: Always\n        lifecycle:\n          preStop:\n            exec:\n              command: [sleep, \"7\"]\n      containers:\n      - name: migrate\n        image: migrate\n        command: [/migrate]\n";
    let a = analyze_one(two, |_| {});
    let completion = a.timeline.completion.as_ref().unwrap();
    let w = completion.work_done;
    let stopped = |name: &str| {
        a.timeline.containers[common::index_of(&a, name)]
            .job
            .sidecar_stop
            .clone()
            .unwrap()
    };
    let (sa, sb) = (stopped("a"), stopped("b"));
    assert_eq!((sb.signal, sb.exit), (w + s(7.0), w + s(12.0)));
    assert_eq!((sa.signal, sa.exit), (w + s(12.0), w + s(17.0)));
    assert_eq!(completion.outcome, Outcome::Succeeds(w + s(17.0)));

    let classic = job("      labels:\n        sidecar.istio.io/inject: \"true\"\n");
    let a = analyze_one(&classic, |_| {});
    assert_eq!(
        a.timeline.completion.as_ref().unwrap().outcome,
        Outcome::Hangs
    );
    assert!(rule_ids(&a).contains(&"ML301"));
}

fn linkerd(annotations: &str) -> String {
    deployment(
        &format!("      annotations:\n        linkerd.io/inject: enabled\n{annotations}"),
        "      terminationGracePeriodSeconds: 30\n      containers:\n      - name: app\n        image: app\n        ports:\n        - containerPort: 8080\n",
    )
}

#[test]
fn example_8_linkerd_classic_with_wait_before_exit() {
    let a = analyze_one(
        &linkerd("        config.alpha.linkerd.io/proxy-wait-before-exit-seconds: \"10\"\n"),
        |_| {},
    );
    // The proxy is the first container with postStart `linkerd-await`: the app starts
    // once the proxy is ready.
    assert_eq!(
        a.plan
            .containers
            .iter()
            .find(|c| c.name != "linkerd-init")
            .unwrap()
            .name,
        "linkerd-proxy"
    );
    let ready = start(&a, "linkerd-proxy").ready.unwrap();
    assert_eq!(start(&a, "app").started, Some(ready));
    // preStop `sleep 10`: SIGTERM 10, then it refuses new connections; SIGKILL caps its
    // shutdown grace at 30.
    let proxy = stop(&a, "linkerd-proxy");
    assert_eq!((proxy.signal, proxy.kill), (s(10.0), s(30.0)));
    assert_eq!(proxy.inbound_refused, Some(s(10.0)));
    // app: no preStop: SIGTERM 0, exits 5. Endpoints removed at 5 < 10.
    assert_eq!(stop(&a, "app").exit, s(5.0));
    assert!(a.timeline.termination.endpoints_removed < proxy.inbound_refused.unwrap());

    // Without wait-before-exit the proxy refuses new connections from 0 while endpoints
    // route to it until 5: 5 s of refused requests.
    let a = analyze_one(&linkerd(""), |_| {});
    let proxy = stop(&a, "linkerd-proxy");
    assert_eq!(proxy.inbound_refused, Some(s(0.0)));
    assert_eq!(
        a.timeline.termination.endpoints_removed - proxy.inbound_refused.unwrap(),
        s(5.0)
    );
}

#[test]
fn example_9_exit_on_zero_active_connections() {
    let yaml = deployment(
        &format!(
            "{INJECT}      annotations:\n        proxy.istio.io/config: |\n          proxyMetadata:\n            EXIT_ON_ZERO_ACTIVE_CONNECTIONS: \"true\"\n            MINIMUM_DRAIN_DURATION: 5s\n"
        ),
        "      terminationGracePeriodSeconds: 30\n      containers:\n      - name: app\n        image: app\n        lifecycle:\n          preStop:\n            exec:\n              command: [sleep, \"8\"]\n",
    );
    let a = analyze_one(&yaml, |_| {});
    // The proxy: SIGTERM 0, drains from 0, sleeps 5, then polls every second.
    let proxy = stop(&a, "istio-proxy");
    assert_eq!(proxy.signal, s(0.0));
    assert_eq!(proxy.inbound_drained, Some(s(0.0)));
    // app: SIGTERM 8, exits 13; the poll at 13 sees no connections: the proxy exits at 13.
    assert_eq!(stop(&a, "app").exit, s(13.0));
    assert_eq!(proxy.exit, s(13.0));
    // Polls fall at 6, 7, 8, …: the ticker starts when the 5 s sleep ends, so an app
    // that is gone by 2 s still leaves the proxy running until 6.
    let quick = yaml
        .replace(
            "            MINIMUM_DRAIN_DURATION: 5s\n",
            "            MINIMUM_DRAIN_DURATION: 5s\n        mesh-lifecycle.io/app-shutdown: 2s\n",
        )
        .replace("command: [sleep, \"8\"]", "command: [sleep, \"0\"]");
    let a = analyze_one(&quick, |_| {});
    assert_eq!(stop(&a, "app").exit, s(2.0));
    assert_eq!(stop(&a, "istio-proxy").exit, s(6.0));
    // terminationDrainDuration plays no part; set, it is reported (ML205).
    let drained = yaml.replace(
        "            MINIMUM_DRAIN_DURATION: 5s\n",
        "            MINIMUM_DRAIN_DURATION: 5s\n          terminationDrainDuration: 20s\n",
    );
    let a = analyze_one(&drained, |_| {});
    assert_eq!(stop(&a, "istio-proxy").exit, s(13.0));
    assert!(rule_ids(&a).contains(&"ML205"));
}
