//! Ten places where the simulated timeline must agree with the upstream code to the
//! second, each pinned by the function it follows (repository, file, function, tag),
//! and the other upstream facts found while checking them. The facts and their sources
//! are in `docs/lifecycle.md`; each test names its section.

use crate::common;

use common::{analyze_one, index_of, rule_ids, s, start, stop};
use mesh_lifecycle::pipeline::Analysis;
use mesh_lifecycle::resolve::{Assumed, ContainerList, RejectionCause, Rejector};
use mesh_lifecycle::rules::Severity;
use mesh_lifecycle::settings::istio::NativeSidecars;
use mesh_lifecycle::settings::{
    IstioVersion, KubeVersion, LinkerdVersion, Settings, Source, Sourced,
};
use mesh_lifecycle::simulate::{EventKind, Outcome, Phase, events};

fn kube(minor: u32) -> impl Fn(&mut Settings) {
    move |settings| settings.kubernetes = Sourced::new(KubeVersion { minor }, Source::Default)
}

fn istio(minor: u32) -> impl Fn(&mut Settings) {
    move |settings| {
        settings.istio.version = Some(Sourced::new(IstioVersion::new(minor), Source::Default))
    }
}

fn linkerd(version: &'static str) -> impl Fn(&mut Settings) {
    move |settings| {
        settings.linkerd.version = Some(Sourced::new(
            LinkerdVersion::parse(version).unwrap(),
            Source::Default,
        ))
    }
}

fn both(a: impl Fn(&mut Settings), b: impl Fn(&mut Settings)) -> impl Fn(&mut Settings) {
    move |settings| {
        a(settings);
        b(settings);
    }
}

/// `key:` indented by `indent`, then `lines`; nothing when there are none.
fn mapping(indent: &str, key: &str, lines: &str) -> String {
    if lines.is_empty() {
        String::new()
    } else {
        format!("{indent}{key}:\n{lines}")
    }
}

/// A pod with `labels` and `annotations` lines (indented four spaces) and `spec` lines.
fn pod(labels: &str, annotations: &str, spec: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ns\n{}{}spec:\n{spec}",
        mapping("  ", "labels", labels),
        mapping("  ", "annotations", annotations),
    )
}

/// A Job (labels and annotations indented eight spaces) whose work container runs
/// `script` with `sh -c`.
fn job(labels: &str, annotations: &str, spec: &str, script: &str) -> String {
    format!(
        "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: j}}\nspec:\n  template:\n    metadata:\n{}{}    spec:\n      restartPolicy: Never\n{spec}      containers:\n      - name: work\n        image: work\n        command: [/bin/sh, -c, \"{script}\"]\n",
        mapping("      ", "labels", labels),
        mapping("      ", "annotations", annotations),
    )
}

const APP: &str = "  containers:\n  - name: app\n    image: app\n";
const ISTIO: &str = "    sidecar.istio.io/inject: \"true\"\n";

fn app_with_prestop(command: &str) -> String {
    format!(
        "  containers:\n  - name: app\n    image: app\n    lifecycle:\n      preStop:\n        exec:\n          command: {command}\n"
    )
}

/// Whether rule `id` reports a configuration problem whose message says `text`.
fn has_problem(a: &Analysis, id: &str, text: &str) -> bool {
    !a.plan.config_problems.is_empty()
        && a.findings
            .iter()
            .any(|f| f.finding.rule.id == id && f.finding.message.contains(text))
}

fn list_of(a: &Analysis, name: &str) -> ContainerList {
    a.plan.containers[index_of(a, name)].list()
}

fn outcome(a: &Analysis) -> Outcome {
    a.timeline
        .completion
        .as_ref()
        .expect("a completion")
        .outcome
}

// --- Case 1: the pod's grace is floored at 1 s ---------------------------------------

/// kubernetes/kubernetes `pkg/kubelet/pod_workers.go`, `calculateEffectiveGracePeriod`
/// (v1.22 and later): "no matter what, we always supply a grace period of 1". The 2 s
/// floor is per container, after the preStop (`pkg/kubelet/kuberuntime/
/// kuberuntime_container.go`, `killContainer`, `minimumGracePeriodInSeconds`).
/// docs/lifecycle.md §2.2.
#[test]
fn case_1_grace_1_with_a_5_s_prestop_signals_at_1_and_kills_at_3() {
    let yaml = pod(
        "",
        "",
        &format!(
            "  terminationGracePeriodSeconds: 1\n{}",
            app_with_prestop("[sleep, \"5\"]")
        ),
    );
    let a = analyze_one(&yaml, |_| {});
    let app = stop(&a, "app");
    assert_eq!(a.timeline.termination.grace.value, 1);
    assert_eq!(
        (app.pre_stop_end, app.signal, app.kill),
        (Some(s(1.0)), s(1.0), s(3.0))
    );
    assert!(app.pre_stop_cut);
}

/// kubernetes/kubernetes `staging/src/k8s.io/kubectl/pkg/cmd/delete/delete.go`,
/// `DeleteOptions.Complete`: "we convert --grace-period=0 into --grace-period=1" unless
/// `--force`. docs/lifecycle.md §2.2.
#[test]
fn case_1_deletion_grace_period_0_is_sent_as_1() {
    let yaml = pod("", "", &app_with_prestop("[sleep, \"5\"]"));
    let a = analyze_one(&yaml, |settings| {
        settings.deletion_grace_period =
            Some(Sourced::new(0, Source::Flag("--deletion-grace-period")));
    });
    assert_eq!(a.plan.deletion_grace().value, 1);
    let app = stop(&a, "app");
    assert_eq!((app.signal, app.kill), (s(1.0), s(3.0)));
    assert!(
        a.plan
            .assumptions
            .iter()
            .any(|n| n.assumed == Assumed::DeletionGraceZero)
    );
}

#[test]
fn case_1_the_flag_says_how_0_is_taken_and_the_timeline_shows_it() {
    let help = common::cli().args(["explain", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("0 is taken as 1"), "{help}");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pod.yaml");
    std::fs::write(&file, pod("", "", &app_with_prestop("[sleep, \"5\"]"))).unwrap();
    let out = common::cli()
        .args([
            "explain",
            "--format",
            "json",
            "--deletion-grace-period",
            "0",
        ])
        .arg(&file)
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let events = json["workloads"][0]["events"].as_array().unwrap();
    let at = |kind: &str| {
        events
            .iter()
            .find(|e| e["phase"] == "termination" && e["kind"] == kind && e["container"] == "app")
            .map(|e| e["atMs"].as_i64().unwrap())
    };
    assert_eq!(
        (at("sigterm"), at("sigkill")),
        (Some(1000), Some(3000)),
        "{json}"
    );
}

// --- Case 2: Istio 1.27 already defaults ENABLE_NATIVE_SIDECARS to auto --------------

/// istio/istio `pilot/pkg/features/pilot.go` at 1.27.0 (lines 306-322):
/// `env.Register("ENABLE_NATIVE_SIDECARS", "auto", …)`; at 1.26.0 it is a boolean that
/// defaults to false (`pilot/pkg/features/experimental.go`). `auto` enables native mode
/// when the nodes run Kubernetes 1.33+ (`pkg/kube/inject/webhook.go`,
/// `DetectNativeSidecar`). docs/lifecycle.md §3.3.
#[test]
fn case_2_istio_1_27_injects_native_sidecars_on_kubernetes_1_33() {
    let yaml = pod(ISTIO, "", APP);
    assert_eq!(
        list_of(
            &analyze_one(&yaml, both(istio(27), kube(33))),
            "istio-proxy"
        ),
        ContainerList::Init
    );
    assert_eq!(
        list_of(
            &analyze_one(&yaml, both(istio(27), kube(32))),
            "istio-proxy"
        ),
        ContainerList::Regular
    );
    assert_eq!(
        list_of(
            &analyze_one(&yaml, both(istio(26), kube(34))),
            "istio-proxy"
        ),
        ContainerList::Regular
    );
    // `auto` is not a value 1.26 knows: its boolean stays false.
    let a = analyze_one(&yaml, |settings| {
        both(istio(26), kube(34))(settings);
        settings.istio.native_sidecars = Some(Sourced::new(NativeSidecars::Auto, Source::Default));
    });
    assert_eq!(list_of(&a, "istio-proxy"), ContainerList::Regular);
}

// --- Case 3: a Job with native sidecars completes when the last one has exited -------

/// kubernetes/kubernetes `pkg/kubelet/kubelet_pods.go`, `getPhase` (v1.29+): a running
/// restartable init container counts as running, a terminated one is ignored. Once the
/// work is done, `computePodActions` (`kuberuntime_manager.go`) kills the pod and
/// `killContainer` runs each sidecar's preStop and waits its turn in reverse order
/// (`kuberuntime_termination_order.go`). docs/lifecycle.md §2.6, §2.4.
#[test]
fn case_3_native_sidecars_stop_in_reverse_order_after_the_work() {
    let sidecars = "      initContainers:\n      - name: a\n        image: a\n        restartPolicy: Always\n      - name: b\n        image: b\n        restartPolicy: Always\n        lifecycle:\n          preStop:\n            exec:\n              command: [sleep, \"7\"]\n";
    let a = analyze_one(&job("", "", sidecars, "./work"), kube(29));
    let completion = a.timeline.completion.as_ref().unwrap();
    assert_eq!(completion.work_done, s(10.0));
    let stopped = |name: &str| {
        a.timeline.containers[index_of(&a, name)]
            .job
            .sidecar_stop
            .clone()
            .unwrap()
    };
    let (sa, sb) = (stopped("a"), stopped("b"));
    assert_eq!(
        (sb.pre_stop_end, sb.signal, sb.exit),
        (Some(s(17.0)), s(17.0), s(22.0))
    );
    assert_eq!((sa.signal, sa.exit), (s(22.0), s(27.0)));
    assert_eq!(completion.outcome, Outcome::Succeeds(s(27.0)));
    // The events show the sidecars' preStop at the end of the work, and their signals.
    let at = |name: &str, kind: EventKind| {
        events(&a.plan, &a.timeline)
            .into_iter()
            .find(|e| {
                e.phase == Phase::Completion
                    && e.kind == kind
                    && e.container.as_deref() == Some(name)
            })
            .map(|e| e.at_ms)
    };
    assert_eq!(at("b", EventKind::PreStopStarted), Some(10_000));
    assert_eq!(at("a", EventKind::Sigterm), Some(22_000));
    assert_eq!(at("a", EventKind::Exited), Some(27_000));
    // Nothing blocks the Job: the Job rules stay silent.
    assert!(
        !rule_ids(&a).iter().any(|id| id.starts_with("ML3")),
        "{:?}",
        rule_ids(&a)
    );
}

// --- Case 4: `exec` replaces the shell ------------------------------------------------

/// POSIX `exec` replaces the shell process: the commands after it never run, and a
/// replaced shell never runs its EXIT trap (bash, dash: `trap 'echo bye' EXIT; exec
/// true` prints nothing). docs/lifecycle.md §7 F19.
#[test]
fn case_4_exec_replaces_the_shell_so_the_sidecar_is_never_stopped() {
    let quit = "curl -fsS -X POST localhost:15020/quitquitquit";
    for script in [
        format!("trap '{quit}' EXIT; exec ./work"),
        format!("exec ./work; {quit}"),
    ] {
        let a = analyze_one(
            &job(ISTIO.replace("    ", "        ").as_str(), "", "", &script),
            |_| {},
        );
        assert_eq!(outcome(&a), Outcome::Hangs, "{script}");
        assert!(
            rule_ids(&a).contains(&"ML304"),
            "{script}: {:?}",
            rule_ids(&a)
        );
    }
    // Without exec the same calls stop the proxy.
    let a = analyze_one(
        &job(
            ISTIO.replace("    ", "        ").as_str(),
            "",
            "",
            &format!("trap '{quit}' EXIT; ./work"),
        ),
        |_| {},
    );
    assert!(matches!(outcome(&a), Outcome::Succeeds(_)));
    // `exec` of a wrapper that stops the proxy itself still stops it.
    let a = analyze_one(
        &job(
            "",
            "        linkerd.io/inject: enabled\n        config.linkerd.io/proxy-admin-shutdown: enabled\n",
            "",
            "exec linkerd-await --shutdown -- ./work",
        ),
        |_| {},
    );
    assert!(matches!(outcome(&a), Outcome::Succeeds(_)));
}

// --- Case 5: POST /quitquitquit skips the drain ----------------------------------------

/// istio/istio `pilot/cmd/pilot-agent/status/server.go` at 1.28.0, `handleQuit`: calls
/// `s.disableDrain()` before shutting the agent down, and `pkg/envoy/agent.go`
/// `terminate` then exits at once ("Agent already drained, exiting immediately"); a
/// SIGTERM drains for terminationDrainDuration. docs/lifecycle.md §3.4, §3.6.
#[test]
fn case_5_quitquitquit_exits_at_once_and_sigterm_keeps_the_drain() {
    let labels = ISTIO.replace("    ", "        ");
    let drain =
        "        proxy.istio.io/config: '{\\\"terminationDrainDuration\\\": \\\"20s\\\"}'\n";
    let quit = analyze_one(
        &job(
            &labels,
            drain,
            "",
            "./work; rc=$?; curl -fsS -X POST localhost:15020/quitquitquit; exit $rc",
        ),
        |_| {},
    );
    let proxy = index_of(&quit, "istio-proxy");
    let completion = quit.timeline.completion.as_ref().unwrap();
    // The 20 s drain does not apply: gone when the call comes, at the end of the work.
    assert_eq!(quit.timeline.containers[proxy].job.exit, Some(s(10.0)));
    assert_eq!(completion.outcome, Outcome::Succeeds(s(10.0)));
    let signalled = analyze_one(
        &job(
            &labels,
            "",
            "      shareProcessNamespace: true\n",
            "./work; rc=$?; pkill -TERM pilot-agent; exit $rc",
        ),
        |_| {},
    );
    assert!(signalled.timeline.completion.is_some());
    assert_eq!(
        signalled.timeline.containers[proxy].job.exit,
        Some(s(15.0)),
        "the 5 s drain"
    );
}

// --- Case 6: EXIT_ON_ZERO_ACTIVE_CONNECTIONS checks one second after the minimum ------

/// istio/istio `pkg/envoy/agent.go` at 1.28.0, `terminate`: `time.Sleep(minDrainDuration)`
/// then `time.NewTicker(activeConnectionCheckDelay)` (1 s); `for range ticker.C` — the
/// first check comes a full second after the sleep. docs/lifecycle.md §3.6.
#[test]
fn case_6_an_app_gone_by_2_s_leaves_the_proxy_until_6_s() {
    let yaml = pod(
        ISTIO,
        "    proxy.istio.io/config: '{\"proxyMetadata\": {\"EXIT_ON_ZERO_ACTIVE_CONNECTIONS\": \"true\"}}'\n    mesh-lifecycle.io/app-shutdown: 2s\n",
        APP,
    );
    let a = analyze_one(&yaml, |_| {});
    assert_eq!(stop(&a, "app").exit, s(2.0));
    assert_eq!(stop(&a, "istio-proxy").exit, s(6.0));
}

// --- Case 7: annotation values as each injector parses them --------------------------

/// istio/istio `manifests/charts/istio-control/istio-discovery/files/
/// injection-template.yaml`: at 1.24.0–1.26.0 `$nativeSidecar` is `(eq (index
/// .ObjectMeta.Annotations "sidecar.istio.io/nativeSidecar") "true")`; at 1.27.0 it is
/// `ne (index … | default (printf "%t" .NativeSidecars)) "false"`. docs/lifecycle.md §3.3.
#[test]
fn case_7_istio_native_annotation_yes_is_ignored_by_1_26_and_enables_1_27() {
    let yaml = pod(ISTIO, "    sidecar.istio.io/nativeSidecar: \"yes\"\n", APP);
    let a = analyze_one(&yaml, both(istio(26), kube(34)));
    assert_eq!(list_of(&a, "istio-proxy"), ContainerList::Regular);
    assert!(has_problem(&a, "ML404", "exactly \"true\""));
    assert!(rule_ids(&a).contains(&"ML404"));
    let a = analyze_one(&yaml, both(istio(27), kube(32)));
    assert_eq!(list_of(&a, "istio-proxy"), ContainerList::Init);
    assert!(!rule_ids(&a).contains(&"ML404"));
    // 1.27+: "no" is not "false", so it enables native mode too, which ML404 says.
    let no = pod(ISTIO, "    sidecar.istio.io/nativeSidecar: \"no\"\n", APP);
    let a = analyze_one(&no, both(istio(27), kube(34)));
    assert_eq!(list_of(&a, "istio-proxy"), ContainerList::Init);
    assert!(has_problem(&a, "ML404", "only for exactly \"false\""));
    // Before 1.24 the annotation does not exist.
    let yes = pod(ISTIO, "    sidecar.istio.io/nativeSidecar: \"true\"\n", APP);
    let a = analyze_one(&yes, istio(23));
    assert_eq!(list_of(&a, "istio-proxy"), ContainerList::Regular);
    assert!(has_problem(&a, "ML404", "arrived in Istio 1.24"));
}

/// linkerd/linkerd2 `pkg/inject/inject.go` at version-2.20, `GetOverriddenValues`:
/// `strconv.ParseBool` of the GA key, else the beta, else the alpha one; a value that
/// does not parse keeps the default. `pkg/k8s/labels.go`: the alpha key from
/// version-2.15, the beta key from version-2.19, the GA key from version-2.20.
/// docs/lifecycle.md §4.2.
#[test]
fn case_7_linkerd_native_keys_and_values_per_version() {
    let with = |key: &str, value: &str| {
        pod(
            "",
            &format!("    linkerd.io/inject: enabled\n    {key}: \"{value}\"\n"),
            APP,
        )
    };
    let ga = "config.linkerd.io/proxy-enable-native-sidecar";
    let beta = "config.beta.linkerd.io/proxy-enable-native-sidecar";
    let alpha = "config.alpha.linkerd.io/proxy-enable-native-sidecar";
    use ContainerList::{Init, Regular};
    // (key, value, release, where the proxy goes, what ML404 says, if anything)
    let cases = [
        // ParseBool: TRUE, 1 and t enable it on 2.19, whose default is classic.
        (beta, "TRUE", "version-2.19", Init, None),
        (beta, "1", "version-2.19", Init, None),
        (beta, "t", "version-2.19", Init, None),
        // "yes" does not parse: the default stays (classic on 2.19, native on 2.20).
        (
            beta,
            "yes",
            "version-2.19",
            Regular,
            Some("strconv.ParseBool"),
        ),
        (ga, "yes", "version-2.20", Init, Some("strconv.ParseBool")),
        // A key the release does not read does nothing.
        (
            ga,
            "true",
            "version-2.19",
            Regular,
            Some("first read by 2.20"),
        ),
        (
            beta,
            "true",
            "version-2.18",
            Regular,
            Some("first read by 2.19"),
        ),
        (alpha, "true", "version-2.15", Init, None),
        (
            alpha,
            "true",
            "stable-2.14.0",
            Regular,
            Some("first read by 2.15"),
        ),
    ];
    for (key, value, release, list, problem) in cases {
        let a = analyze_one(&with(key, value), linkerd(release));
        let case = format!("{key}: {value} on {release}");
        assert_eq!(list_of(&a, "linkerd-proxy"), list, "{case}");
        match problem {
            Some(text) => {
                assert!(has_problem(&a, "ML404", text), "{case}");
                assert!(rule_ids(&a).contains(&"ML404"), "{case}");
            }
            None => assert!(!rule_ids(&a).contains(&"ML404"), "{case}"),
        }
    }
}

// --- Case 8: Kubernetes 1.28 with the SidecarContainers gate off ----------------------

/// kubernetes/kubernetes `pkg/api/pod/util.go` at v1.28, `dropDisabledFields`: without
/// `SidecarContainers` "Drop the RestartPolicy field of init containers";
/// `pkg/apis/core/validation/validation.go`, `validateInitContainers`: lifecycle and
/// the three probes "may not be set for init containers without restartPolicy=Always".
/// docs/lifecycle.md §1.2.
#[test]
fn case_8_a_probed_sidecar_on_1_28_is_not_admitted() {
    let yaml = pod(
        "",
        "",
        &format!(
            "  initContainers:\n  - name: logs\n    image: logs\n    restartPolicy: Always\n    startupProbe:\n      httpGet: {{path: /ready, port: 2020}}\n{APP}"
        ),
    );
    let a = analyze_one(&yaml, kube(28));
    let rejection = a.plan.rejection().expect("rejected");
    assert_eq!(rejection.by, Rejector::ApiServer);
    assert!(
        matches!(&rejection.cause, RejectionCause::DroppedSidecarPolicy { container, .. } if container == "logs")
    );
    assert_eq!(rule_ids(&a), ["ML105"]);
    let text = common::cli()
        .args(["explain", "--kubernetes-version", "1.28", "-"])
        .write_stdin(yaml)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("Not admitted: the API server rejects the pod"),
        "{text}"
    );
}

#[test]
fn case_8_a_plain_sidecar_on_1_28_blocks_init_and_nothing_else_is_drawn() {
    let yaml = pod(
        "",
        "",
        "  initContainers:\n  - name: logs\n    image: logs\n    restartPolicy: Always\n  containers:\n  - name: app\n    image: app\n    ports:\n    - containerPort: 8080\n    lifecycle:\n      preStop:\n        exec:\n          command: [sleep, \"40\"]\n",
    );
    let a = analyze_one(&yaml, kube(28));
    assert!(a.plan.rejection().is_none());
    assert_eq!(start(&a, "app").started, None);
    // The app never started: nothing of it is stopped, and only ML105 speaks.
    assert!(a.timeline.stop(index_of(&a, "app")).is_none());
    let logs = stop(&a, "logs");
    assert_eq!((logs.signal, logs.exit), (s(0.0), s(5.0)));
    assert_eq!(rule_ids(&a), ["ML105"]);
}

// --- Case 9: the sleep action in 1.29 is dropped, not rejected -------------------------

/// kubernetes/kubernetes `pkg/api/pod/util.go` at v1.29, `dropPodLifecycleSleepAction`:
/// with `PodLifecycleSleepAction` off it sets `PreStop.Sleep = nil`, and the preStop
/// with it when no other handler is left. docs/lifecycle.md §2.3.
#[test]
fn case_9_a_sleep_prestop_on_1_29_is_dropped_and_ml209_warns() {
    let yaml = pod(
        "",
        "",
        "  containers:\n  - name: app\n    image: app\n    lifecycle:\n      preStop:\n        sleep: {seconds: 10}\n",
    );
    let a = analyze_one(&yaml, kube(29));
    assert!(a.plan.rejection().is_none());
    assert!(a.plan.containers[index_of(&a, "app")].pre_stop.is_none());
    let app = stop(&a, "app");
    assert_eq!(
        (app.pre_stop_end, app.signal, app.exit),
        (None, s(0.0), s(5.0))
    );
    let ml209: Vec<_> = a
        .findings
        .iter()
        .filter(|f| f.finding.rule.id == "ML209")
        .collect();
    assert_eq!(ml209.len(), 1);
    assert_eq!(ml209[0].finding.severity, Severity::Warning);
    assert!(
        ml209[0]
            .finding
            .message
            .contains("10 s delay does not happen")
    );
}

// --- Case 10: Istio 1.19 native mode: a startup probe from the readiness values -------

/// istio/istio `manifests/charts/istio-control/istio-discovery/files/
/// injection-template.yaml` at 1.19.0: `{{ if $nativeSidecar }} startupProbe: {{ else }}
/// readinessProbe: {{ end }}` with the readiness values (values.yaml at 1.19.0:
/// initialDelay 1, period 2, failureThreshold 30). From 1.20.0 to 1.29.0 every template
/// emits a startup probe (0 s, 1 s, 600) and a readiness probe (0 s, 15 s, 4), native
/// or not. docs/lifecycle.md §3.2.
#[test]
fn case_10_istio_1_19_native_proxy_holds_the_app_with_readiness_timing() {
    let yaml = pod(ISTIO, "", APP);
    let native = |minor: u32| {
        move |settings: &mut Settings| {
            istio(minor)(settings);
            settings.istio.native_sidecars =
                Some(Sourced::new(NativeSidecars::On, Source::Default));
        }
    };
    let a = analyze_one(&yaml, native(19));
    let proxy = &a.plan.containers[index_of(&a, "istio-proxy")];
    let probe = proxy.startup_probe.expect("a startup probe");
    assert_eq!(
        (probe.initial_delay, probe.period, probe.failure_threshold),
        (s(1.0), s(2.0), 30)
    );
    assert!(proxy.readiness_probe.is_none());
    // The worker ticks at 0, 2, 4 from the pod's add; the delay of 1 only skips ticks
    // while the proxy is younger (kubernetes `pkg/kubelet/prober/worker.go`, `run` and
    // `doProbe`, v1.29–v1.35; docs/lifecycle.md §1.3). Ready at 2, probed at 2: the app
    // starts at 2. (This test expected 3, from ticks at start + delay + k × period,
    // which is not how the worker runs.)
    assert_eq!(start(&a, "istio-proxy").startup_probe_passed, Some(s(2.0)));
    assert_eq!(start(&a, "app").started, Some(s(2.0)));
    for minor in [20, 24, 28] {
        let a = analyze_one(&yaml, native(minor));
        let proxy = &a.plan.containers[index_of(&a, "istio-proxy")];
        let probe = proxy.startup_probe.unwrap();
        assert_eq!(
            (probe.period, probe.failure_threshold),
            (s(1.0), 600),
            "1.{minor}"
        );
        assert!(proxy.readiness_probe.is_some(), "1.{minor}");
        assert_eq!(start(&a, "app").started, Some(s(2.0)), "1.{minor}");
    }
}

// --- Other upstream facts -------------------------------------------------------------

/// injection-template.yaml at 1.19.0 and 1.20.0: `$holdProxy := or
/// .ProxyConfig.HoldApplicationUntilProxyStarts …` — not masked by native mode, which
/// 1.21.0 added (`and … (not $nativeSidecar)`). docs/lifecycle.md §3.2.
#[test]
fn istio_1_20_native_proxies_still_get_the_hold_poststart() {
    let yaml = pod(
        ISTIO,
        "    proxy.istio.io/config: '{\"holdApplicationUntilProxyStarts\": true}'\n",
        APP,
    );
    let native = |minor: u32| {
        move |settings: &mut Settings| {
            istio(minor)(settings);
            settings.istio.native_sidecars =
                Some(Sourced::new(NativeSidecars::On, Source::Default));
        }
    };
    let a = analyze_one(&yaml, native(20));
    assert!(
        a.plan.containers[index_of(&a, "istio-proxy")]
            .post_start
            .is_some()
    );
    assert!(!rule_ids(&a).contains(&"ML403"));
    let a = analyze_one(&yaml, native(21));
    assert!(
        a.plan.containers[index_of(&a, "istio-proxy")]
            .post_start
            .is_none()
    );
    assert!(rule_ids(&a).contains(&"ML403"));
}

/// injection-template.yaml (1.19.0–1.29.0): the probes are inside `{{ if ne (annotation
/// .ObjectMeta "status.sidecar.istio.io/port" …) "0" }}`. docs/lifecycle.md §3.2.
#[test]
fn istio_status_port_0_injects_no_probes() {
    let yaml = pod(
        ISTIO,
        "    sidecar.istio.io/nativeSidecar: \"true\"\n    status.sidecar.istio.io/port: \"0\"\n",
        APP,
    );
    let a = analyze_one(&yaml, istio(28));
    let proxy = &a.plan.containers[index_of(&a, "istio-proxy")];
    assert!(proxy.startup_probe.is_none() && proxy.readiness_probe.is_none());
    assert_eq!(start(&a, "app").started, Some(s(0.0)));
}

/// linkerd/linkerd2 `charts/partials/templates/_proxy.tpl` at version-2.15 to
/// version-2.19: `fail "proxy.nativeSidecar and waitBeforeExitSeconds cannot be used
/// simultaneously"`, which `controller/proxy-injector/webhook.go` returns as a denial;
/// version-2.20 dropped the check and ignores the wait. docs/lifecycle.md §4.2.
#[test]
fn linkerd_before_2_20_denies_a_native_proxy_with_wait_before_exit() {
    let yaml = pod(
        "",
        "    linkerd.io/inject: enabled\n    config.beta.linkerd.io/proxy-enable-native-sidecar: \"true\"\n    config.alpha.linkerd.io/proxy-wait-before-exit-seconds: \"10\"\n",
        APP,
    );
    let a = analyze_one(&yaml, linkerd("version-2.19"));
    let rejection = a.plan.rejection().expect("denied");
    assert!(
        matches!(rejection.by, Rejector::Injector(mesh) if mesh.id() == "linkerd"),
        "{rejection:?}"
    );
    let a = analyze_one(&yaml, linkerd("version-2.20"));
    assert!(a.plan.rejection().is_none());
    assert!(
        a.plan.containers[index_of(&a, "linkerd-proxy")]
            .pre_stop
            .is_none()
    );
}

/// The same denial, seen from the classic proxy's side: the native switch every native
/// remedy names (ML101's help, ML301's help and fix) removes a wait the pod sets, and is
/// not offered beside a wait of the install, which the pod cannot remove, on a release
/// that would deny the pod. A release that ignores the wait, or an unknown one, keeps
/// the switch. docs/lifecycle.md §4.2.
#[test]
fn linkerds_native_switch_goes_without_a_wait_before_exit() {
    const WAIT: &str = "config.alpha.linkerd.io/proxy-wait-before-exit-seconds";
    let switch_of = |annotations: &str, settings: &dyn Fn(&mut Settings)| {
        let yaml = pod("", annotations, APP);
        let a = analyze_one(&yaml, settings);
        assert!(a.plan.rejection().is_none(), "{yaml}");
        a.plan.containers[index_of(&a, "linkerd-proxy")]
            .native_switch
            .clone()
    };
    let injected = "    linkerd.io/inject: enabled\n";
    let waits = format!("{injected}    {WAIT}: \"10\"\n");
    let install_waits = |version: &'static str| {
        both(linkerd(version), |settings: &mut Settings| {
            settings.linkerd.wait_before_exit = Some(Sourced::new(
                mesh_lifecycle::time::Millis::secs(10),
                Source::Default,
            ))
        })
    };
    // The pod's wait goes with the switch.
    let switch = switch_of(&waits, &linkerd("version-2.19")).expect("a switch");
    assert_eq!(
        switch.annotation,
        "config.beta.linkerd.io/proxy-enable-native-sidecar"
    );
    let displaced = switch.displaces.expect("the wait goes with it");
    assert_eq!(displaced.key(), WAIT);
    assert!(
        matches!(
            displaced.because,
            mesh_lifecycle::resolve::mesh::Displacement::DeniedBy(_)
        ),
        "{displaced:?}"
    );
    // Without a wait, the switch alone.
    let switch = switch_of(injected, &linkerd("version-2.19")).expect("a switch");
    assert!(switch.displaces.is_none());
    // The install's wait: no switch on a release that would deny the pod.
    assert!(switch_of(injected, &install_waits("version-2.17")).is_none());
    // Before native sidecars there is no switch at all; with an unknown release, the
    // switch, whose wait the resolver does not hold against it.
    assert!(switch_of(&waits, &linkerd("version-2.14")).is_none());
    let switch = switch_of(injected, &|settings: &mut Settings| {
        settings.linkerd.wait_before_exit = Some(Sourced::new(
            mesh_lifecycle::time::Millis::secs(10),
            Source::Default,
        ))
    })
    .expect("a switch for an unknown release");
    assert!(switch.displaces.is_none());
}

/// linkerd/linkerd2 `pkg/inject/inject.go` at version-2.20: `proxy-await` is read only
/// as "enabled" or "disabled"; anything else is logged and the default kept.
/// docs/lifecycle.md §4.2.
#[test]
fn linkerd_proxy_await_reads_only_enabled_and_disabled() {
    let yaml = pod(
        "",
        "    linkerd.io/inject: enabled\n    config.linkerd.io/proxy-await: \"off\"\n",
        APP,
    );
    let a = analyze_one(&yaml, |settings| {
        settings.linkerd.proxy_await = Some(Sourced::new(true, Source::Default));
    });
    let ready = start(&a, "linkerd-proxy").ready.unwrap();
    assert_eq!(
        start(&a, "app").started,
        Some(ready),
        "the default (await) stays"
    );
    assert!(has_problem(&a, "ML401", "not enabled or disabled"));
}

/// istio/istio `pkg/envoy/agent.go` at 1.4.0, `Run`: when Envoy's last epoch exits "No
/// more active epochs, terminating" — pilot-agent ends with it; at 1.3.0
/// (`pilot/pkg/proxy/agent.go`) it stayed up (istio#11659). docs/lifecycle.md §3.4.
#[test]
fn envoys_own_quitquitquit_stops_the_sidecar_from_istio_1_4() {
    let yaml = job(
        &ISTIO.replace("    ", "        "),
        "",
        "",
        "trap 'curl -fsS -X POST localhost:15000/quitquitquit' EXIT; ./work",
    );
    let a = analyze_one(&yaml, istio(3));
    assert_eq!(outcome(&a), Outcome::Hangs);
    assert!(rule_ids(&a).contains(&"ML304"));
    let a = analyze_one(&yaml, istio(24));
    assert_eq!(outcome(&a), Outcome::Succeeds(s(10.0)));
    assert!(!rule_ids(&a).contains(&"ML304"));
}

/// dapr/dapr v1.18.3 `pkg/injector/patcher/sidecar_patcher.go`: with
/// `dapr.io/enable-native-sidecar` daprd is appended to the init containers with
/// `restartPolicy: Always` (first released in v1.18.0). docs/lifecycle.md §5.1.
#[test]
fn dapr_1_18_injects_a_native_daprd_on_request() {
    let yaml = pod(
        "",
        "    dapr.io/enabled: \"true\"\n    dapr.io/enable-native-sidecar: \"yes\"\n",
        APP,
    );
    let a = analyze_one(&yaml, |_| {});
    let daprd = &a.plan.containers[index_of(&a, "daprd")];
    assert!(daprd.is_native_sidecar());
    // Its signal waits for the app (§2.4): the app's Dapr calls work while it stops.
    assert_eq!(stop(&a, "daprd").signal, stop(&a, "app").exit);
    assert!(!rule_ids(&a).contains(&"ML202"));
}
