//! One test (at least) per fact of `docs/lifecycle.md`, each named after the section
//! whose fact it checks (`s2_2_…` checks §2.2), with both sides of every version
//! boundary: Kubernetes 1.28/1.29/1.33/1.34, Istio 1.7/1.8/1.12/1.20/1.21/1.24/1.27,
//! Linkerd 2.16/2.20. The cases that pin a single upstream function to the second are
//! in `tests/it/fidelity.rs`.

use crate::common;

use common::{analyze_one, index_of, s, start, stop};
use mesh_lifecycle::pipeline::Analysis;
use mesh_lifecycle::resolve::{
    ContainerList, DecisionReason, ExitPolicy, Fault, HookDuration, Injection,
};
use mesh_lifecycle::settings::istio::NativeSidecars;
use mesh_lifecycle::settings::{
    IstioVersion, KubeVersion, KumaVersion, LinkerdVersion, NamespaceInfo, ScenarioKey, Settings,
    Source, Sourced,
};
use mesh_lifecycle::simulate::Outcome;
use mesh_lifecycle::time::Millis;

fn kube(minor: u32) -> impl FnOnce(&mut Settings) {
    move |settings| settings.kubernetes = Sourced::new(KubeVersion { minor }, Source::Default)
}

fn istio(minor: u32) -> impl FnOnce(&mut Settings) {
    move |settings| {
        settings.istio.version = Some(Sourced::new(IstioVersion::new(minor), Source::Default))
    }
}

fn linkerd(version: &str) -> impl FnOnce(&mut Settings) + '_ {
    move |settings| {
        settings.linkerd.version = Some(Sourced::new(
            LinkerdVersion::parse(version).unwrap(),
            Source::Default,
        ))
    }
}

/// A pod with `metadata` lines (under `metadata:`) and `spec` lines (under `spec:`).
fn pod(metadata: &str, spec: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ns\n{metadata}spec:\n{spec}"
    )
}

const APP: &str = "  containers:\n  - name: app\n    image: app\n";

fn app_with_prestop(command: &str) -> String {
    format!(
        "  containers:\n  - name: app\n    image: app\n    lifecycle:\n      preStop:\n        exec:\n          command: {command}\n"
    )
}

fn labels(lines: &str) -> String {
    format!("  labels:\n{lines}")
}

fn annotations(lines: &str) -> String {
    format!("  annotations:\n{lines}")
}

/// Whether resolving the pod recorded a configuration problem that `is_kind` accepts.
fn has_problem(a: &Analysis, is_kind: fn(&Fault) -> bool) -> bool {
    a.plan.config_problems.iter().any(|p| is_kind(&p.fault))
}

fn opt_in_ignored(fault: &Fault) -> bool {
    matches!(fault, Fault::OptInIgnored(_))
}

fn conflict(fault: &Fault) -> bool {
    matches!(fault, Fault::Conflict(_))
}

fn istio_injected(a: &Analysis) -> bool {
    a.plan.containers.iter().any(|c| c.name == "istio-proxy")
}

fn namespace(labels: &[(&str, &str)], annotations: &[(&str, &str)]) -> impl FnOnce(&mut Settings) {
    let info = NamespaceInfo {
        labels: labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        annotations: annotations
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        source: Some(Source::Default),
    };
    move |settings| {
        settings.namespaces.insert("ns".into(), info);
    }
}

// --- Kubernetes: the kubelet -------------------------------------------------------

#[test]
fn s2_1_and_s1_3_grace_period_defaults_to_30_seconds() {
    let a = analyze_one(&pod("", &app_with_prestop("[sleep, \"50\"]")), |_| {});
    assert_eq!(a.plan.grace_period.value, 30);
    assert_eq!(stop(&a, "app").signal, s(30.0));
    assert_eq!(stop(&a, "app").kill, s(32.0));
}

#[test]
fn s2_1_deletion_grace_period_overrides_the_pods() {
    let yaml = pod(
        "",
        &format!(
            "  terminationGracePeriodSeconds: 60\n{}",
            app_with_prestop("[sleep, \"50\"]")
        ),
    );
    let a = analyze_one(&yaml, |settings| {
        settings.deletion_grace_period =
            Some(Sourced::new(10, Source::Flag("--deletion-grace-period")));
    });
    assert_eq!(stop(&a, "app").signal, s(10.0));
    assert_eq!(stop(&a, "app").kill, s(12.0));
    let a = analyze_one(&yaml, |_| {});
    assert_eq!(stop(&a, "app").signal, s(50.0));
}

#[test]
fn s1_3_probe_termination_grace_period_applies_to_probe_kills() {
    let sidecar = "  initContainers:\n  - name: agent\n    image: agent\n    restartPolicy: Always\n    startupProbe:\n      httpGet: {path: /ready, port: 8080}\n      periodSeconds: 1\n      failureThreshold: 3\n      terminationGracePeriodSeconds: 5\n";
    let a = analyze_one(&pod("", &format!("{sidecar}{APP}")), |settings| {
        settings
            .scenario
            .set(ScenarioKey::ProxyStartup, Millis::secs(10), Source::Default);
    });
    let agent = start(&a, "agent");
    // The worker's first run, at the pod's add (0), finds no running container; the
    // probes at 1, 2 and 3 fail, and the third failure is final (`worker.go`,
    // `doProbe`, v1.29–v1.35: only probes run count; this test expected 2).
    assert_eq!(agent.startup_probe_failed, Some(s(3.0)));
    assert_eq!(agent.probe_kill_grace, Some(5));
    assert_eq!(
        start(&a, "app").started,
        None,
        "nothing after a failed native sidecar starts"
    );
    let a = analyze_one(&pod("", &format!("{sidecar}{APP}")), |_| {});
    assert_eq!(start(&a, "agent").startup_probe_passed, Some(s(2.0)));
    assert_eq!(start(&a, "app").started, Some(s(2.0)));
}

/// A pod whose 45 s preStop hook outlives its 20 s grace period.
fn hook_past_grace() -> String {
    pod(
        "",
        &format!(
            "  terminationGracePeriodSeconds: 20\n{}",
            app_with_prestop("[sleep, \"45\"]")
        ),
    )
}

#[test]
fn s2_2_minimum_grace_period_is_2_seconds_per_container_and_1_per_pod() {
    let yaml = hook_past_grace();
    let a = analyze_one(&yaml, |_| {});
    assert_eq!(
        (stop(&a, "app").signal, stop(&a, "app").kill),
        (s(20.0), s(22.0))
    );
    // The pod worker raises a grace period of 0 to 1 (`calculateEffectiveGracePeriod`);
    // `killContainer` still gives the container 2 s after its signal.
    let yaml = pod("", &format!("  terminationGracePeriodSeconds: 0\n{APP}"));
    let a = analyze_one(&yaml, |_| {});
    assert_eq!(a.timeline.termination.grace.value, 1);
    assert_eq!(stop(&a, "app").kill, s(2.0));
}

/// The grace period a fix raises `terminationGracePeriodSeconds` to: the shortest with
/// which every container exits on its own, from the same kubelet arithmetic (§2.2).
#[test]
fn s2_2_the_grace_period_needed_lets_every_container_exit_on_its_own() {
    use mesh_lifecycle::simulate::grace_needed;
    let yaml = hook_past_grace();
    // The hook's 45 s, then the app's assumed 5 s to exit.
    let a = analyze_one(&yaml, |_| {});
    assert!(stop(&a, "app").killed);
    assert_eq!(grace_needed(&a.plan), Some(50));
    let mut fixed = a.plan.clone();
    fixed.grace_period.value = 50;
    let timeline = mesh_lifecycle::simulate::simulate(&fixed);
    assert!(
        timeline
            .containers
            .iter()
            .all(|c| c.stop.as_ref().is_none_or(|s| !s.killed))
    );
    fixed.grace_period.value = 49;
    let timeline = mesh_lifecycle::simulate::simulate(&fixed);
    assert!(
        timeline
            .containers
            .iter()
            .any(|c| c.stop.as_ref().is_some_and(|s| s.killed))
    );
    // 2.5 s of hook and 5 s of shutdown: 8 whole seconds.
    let a = analyze_one(&pod("", &app_with_prestop("[sleep, \"2.5\"]")), |_| {});
    assert_eq!(grace_needed(&a.plan), Some(8));
    // A hook that never ends needs no grace period, it needs another hook.
    let a = analyze_one(&pod("", &app_with_prestop("[sleep, infinity]")), |_| {});
    assert_eq!(grace_needed(&a.plan), None);
    // The deletion's own grace period wins over the pod's: raising it changes nothing.
    let a = analyze_one(&yaml, |settings| {
        settings.deletion_grace_period =
            Some(Sourced::new(10, Source::Flag("--deletion-grace-period")));
    });
    assert_eq!(grace_needed(&a.plan), None);
}

#[test]
fn s2_2_elapsed_hook_time_is_truncated_to_whole_seconds() {
    let a = analyze_one(&pod("", &app_with_prestop("[sleep, \"2.5\"]")), |_| {});
    // g = 30 − floor(2.5) = 28: SIGKILL at 2.5 + 28 = 30.5.
    assert_eq!(stop(&a, "app").signal, s(2.5));
    assert_eq!(stop(&a, "app").kill, s(30.5));
}

#[test]
fn s2_6_restart_policy_decides_a_job_whose_sidecar_exits_non_zero() {
    let job = |policy: &str, flags: &str| {
        format!(
            "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: j}}\nspec:\n  template:\n    spec:\n      restartPolicy: {policy}\n      shareProcessNamespace: true\n      containers:\n      - name: work\n        image: work\n        command: [/bin/sh, -c, \"./work; pkill -TERM cloud-sql-proxy\"]\n      - name: sql\n        image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.0\n        args: [\"--port=5432\"{flags}]\n"
        )
    };
    let outcome = |yaml: String| {
        analyze_one(&yaml, |_| {})
            .timeline
            .completion
            .unwrap()
            .outcome
    };
    // SIGTERM makes the Cloud SQL proxy exit 143 (docs/lifecycle.md §5): the pod fails under Never...
    assert!(matches!(outcome(job("Never", "")), Outcome::Fails(_)));
    // ...and the proxy is restarted under OnFailure, so the Job never ends.
    assert_eq!(outcome(job("OnFailure", "")), Outcome::Hangs);
    assert!(matches!(
        outcome(job("Never", ", \"--exit-zero-on-sigterm\"")),
        Outcome::Succeeds(_)
    ));
}

const NATIVE_SIDECAR: &str =
    "  initContainers:\n  - name: logs\n    image: fluent-bit\n    restartPolicy: Always\n";

#[test]
fn s1_2_restart_policy_always_marks_a_native_sidecar_from_1_29() {
    let yaml = pod("", &format!("{NATIVE_SIDECAR}{APP}"));
    let a = analyze_one(&yaml, kube(29));
    let logs = &a.plan.containers[index_of(&a, "logs")];
    assert!(logs.is_native_sidecar());
    assert!(logs.sidecar().is_some());
    assert_eq!(start(&a, "app").started, Some(s(0.0)));
    // 1.28: the SidecarContainers gate is alpha and off: an init container that never
    // exits, so the app never starts.
    let a = analyze_one(&yaml, kube(28));
    assert!(!a.plan.containers[index_of(&a, "logs")].is_native_sidecar());
    assert_eq!(start(&a, "app").started, None);
}

#[test]
fn s2_4_native_sidecars_stop_after_the_app_in_reverse_order() {
    let yaml = pod(
        "",
        &format!(
            "  initContainers:\n  - name: first\n    image: a\n    restartPolicy: Always\n  - name: second\n    image: b\n    restartPolicy: Always\n{}",
            app_with_prestop("[sleep, \"10\"]")
        ),
    );
    let a = analyze_one(&yaml, kube(29));
    let app_exit = stop(&a, "app").exit;
    assert_eq!(app_exit, s(15.0));
    // `second` was declared last: its turn comes first.
    assert_eq!(stop(&a, "second").signal, app_exit);
    assert_eq!(stop(&a, "first").signal, stop(&a, "second").exit);
    assert!(stop(&a, "first").signal > stop(&a, "second").signal);
}

#[test]
fn s2_5_sidecars_restartable_during_pod_termination_drops_the_floor() {
    let yaml = pod("", &app_with_prestop("[sleep, \"40\"]"));
    let a = analyze_one(&yaml, |_| {});
    assert_eq!(stop(&a, "app").kill, s(32.0));
    let a = analyze_one(&yaml, |settings| {
        settings.restartable_sidecars_during_termination =
            Sourced::new(true, Source::Flag("--feature-gates"));
    });
    // An absolute deadline at T0 + 30 s, no 2-second extension.
    assert_eq!(
        (stop(&a, "app").signal, stop(&a, "app").kill),
        (s(30.0), s(30.0))
    );
}

#[test]
fn s2_3_sleep_action_is_dropped_in_1_29_on_from_1_30_and_beta_until_1_34() {
    let yaml = pod(
        "",
        "  containers:\n  - name: app\n    image: app\n    lifecycle:\n      preStop:\n        sleep:\n          seconds: 10\n",
    );
    let notes = |a: &Analysis| {
        a.plan
            .assumptions
            .iter()
            .map(|n| mesh_lifecycle::rules::describe::assumed(&n.assumed))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let a = analyze_one(&yaml, kube(29));
    assert_eq!(
        stop(&a, "app").signal,
        s(0.0),
        "off in 1.29: the API server drops the hook"
    );
    assert!(a.plan.containers[index_of(&a, "app")].pre_stop.is_none());
    assert!(a.plan.rejection().is_none(), "dropped, not rejected");
    assert!(notes(&a).contains("Kubernetes 1.29 drops the sleep action"));
    let a = analyze_one(&yaml, kube(28));
    assert!(
        a.plan.rejection().is_some(),
        "1.28 has no sleep action at all"
    );
    let a = analyze_one(&yaml, kube(30));
    assert_eq!(stop(&a, "app").signal, s(10.0));
    let a = analyze_one(&yaml, kube(33));
    assert!(notes(&a).contains("beta in Kubernetes 1.33"));
    let a = analyze_one(&yaml, kube(34));
    assert!(!notes(&a).contains("sleep action"));
}

#[test]
fn s1_3_probe_defaults_are_0_10_1_1_3() {
    let yaml = pod(
        "",
        &format!(
            "  initContainers:\n  - name: agent\n    image: agent\n    restartPolicy: Always\n    startupProbe:\n      httpGet: {{path: /ready, port: 8080}}\n{APP}"
        ),
    );
    let a = analyze_one(&yaml, |_| {});
    let probe = a.plan.containers[index_of(&a, "agent")]
        .startup_probe
        .unwrap();
    assert_eq!(
        (probe.initial_delay, probe.period, probe.failure_threshold),
        (s(0.0), s(10.0), 3)
    );
    // Ready at 2 s, but the worker ticks at 0 (nothing running yet) and 10: the app
    // starts at 10.
    assert_eq!(start(&a, "app").started, Some(s(10.0)));
}

#[test]
fn s1_1_exec_hooks_have_no_timeout_and_postart_blocks_the_next_container() {
    let yaml = pod(
        "",
        "  containers:\n  - name: first\n    image: a\n    lifecycle:\n      postStart:\n        exec:\n          command: [sleep, \"3600\"]\n  - name: second\n    image: b\n",
    );
    let a = analyze_one(&yaml, |_| {});
    assert_eq!(start(&a, "second").started, Some(s(3600.0)));
}

// --- Istio ------------------------------------------------------------------------

#[test]
fn s3_1_namespace_label_and_pod_label_decide_injection() {
    let plain = pod("", APP);
    assert!(istio_injected(&analyze_one(
        &plain,
        namespace(&[("istio-injection", "enabled")], &[])
    )));
    assert!(!istio_injected(&analyze_one(
        &plain,
        namespace(&[("istio-injection", "disabled")], &[])
    )));
    assert!(!istio_injected(&analyze_one(&plain, namespace(&[], &[]))));
    assert!(istio_injected(&analyze_one(
        &plain,
        namespace(&[("istio.io/rev", "canary")], &[])
    )));
    let opted_out = pod(&labels("    sidecar.istio.io/inject: \"false\"\n"), APP);
    assert!(!istio_injected(&analyze_one(
        &opted_out,
        namespace(&[("istio-injection", "enabled")], &[])
    )));
    let opted_in = pod(&labels("    sidecar.istio.io/inject: \"true\"\n"), APP);
    assert!(istio_injected(&analyze_one(&opted_in, namespace(&[], &[]))));
    assert!(!istio_injected(&analyze_one(
        &opted_in,
        namespace(&[("istio-injection", "disabled")], &[])
    )));
    let revision = pod(&labels("    istio.io/rev: canary\n"), APP);
    assert!(istio_injected(&analyze_one(&revision, namespace(&[], &[]))));
}

#[test]
fn s3_1_the_injector_reads_yes_and_on_as_true_and_other_values_as_no() {
    // `injectRequired` (istio pkg/kube/inject): y, yes, true, on inject; empty falls
    // through to the policy; anything else keeps the pod out.
    let enabled = || namespace(&[("istio-injection", "enabled")], &[]);
    let with = |value: &str| {
        pod(
            &labels(&format!("    sidecar.istio.io/inject: \"{value}\"\n")),
            APP,
        )
    };
    assert!(istio_injected(&analyze_one(&with("yes"), enabled())));
    assert!(istio_injected(&analyze_one(&with("On"), enabled())));
    assert!(istio_injected(&analyze_one(&with(""), enabled())));
    let a = analyze_one(&with("enabled"), enabled());
    assert!(!istio_injected(&a));
    assert!(
        has_problem(&a, opt_in_ignored),
        "a value that looks like an opt-in but keeps the pod out is reported"
    );
    let a = analyze_one(&with("no"), enabled());
    assert!(!istio_injected(&a));
    assert!(
        a.plan.config_problems.is_empty(),
        "\"no\" says what it does"
    );
    // Stage 1 matches the label value "true" exactly: "yes" in a plain namespace is
    // never seen by the webhook.
    let a = analyze_one(&with("yes"), namespace(&[], &[]));
    assert!(!istio_injected(&a));
    assert!(has_problem(&a, opt_in_ignored));
}

#[test]
fn s3_1_the_annotation_cannot_opt_a_pod_in() {
    let yaml = pod(&annotations("    sidecar.istio.io/inject: \"true\"\n"), APP);
    let a = analyze_one(&yaml, namespace(&[], &[]));
    assert!(!istio_injected(&a));
    assert!(has_problem(&a, opt_in_ignored));
}

#[test]
fn s3_1_host_network_and_ignored_namespaces_are_never_injected() {
    let yaml = pod(
        &labels("    sidecar.istio.io/inject: \"true\"\n"),
        &format!("  hostNetwork: true\n{APP}"),
    );
    assert!(!istio_injected(&analyze_one(&yaml, |_| {})));
    let system = pod(&labels("    sidecar.istio.io/inject: \"true\"\n"), APP)
        .replace("namespace: ns", "namespace: kube-system");
    assert!(!istio_injected(&analyze_one(&system, |_| {})));
}

#[test]
fn s3_1_selectors_and_the_policy() {
    let plain = pod(&labels("    app: batch\n"), APP);
    let selector: k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector =
        serde_json::from_value(serde_json::json!({"matchLabels": {"app": "batch"}})).unwrap();
    let never = selector.clone();
    let a = analyze_one(&plain, |settings| {
        namespace(&[("istio-injection", "enabled")], &[])(settings);
        settings.istio.never_inject_selector = vec![never];
    });
    assert!(!istio_injected(&a));
    let a = analyze_one(&plain, |settings| {
        namespace(&[("istio-injection", "enabled")], &[])(settings);
        settings.istio.auto_inject = Sourced::new(false, Source::Default);
    });
    assert!(!istio_injected(&a), "policy disabled");
    let a = analyze_one(&plain, |settings| {
        namespace(&[("istio-injection", "enabled")], &[])(settings);
        settings.istio.auto_inject = Sourced::new(false, Source::Default);
        settings.istio.always_inject_selector = vec![selector];
    });
    assert!(
        istio_injected(&a),
        "alwaysInjectSelector overrides the disabled policy"
    );
}

fn injected_istio() -> String {
    pod(&labels("    sidecar.istio.io/inject: \"true\"\n"), APP)
}

fn proxy_list(a: &Analysis) -> ContainerList {
    a.plan.containers[index_of(a, "istio-proxy")].list()
}

#[test]
fn s3_3_native_sidecars_by_istio_and_kubernetes_version_1_26_1_27_and_1_32_1_33() {
    let both = |istio_minor, kube_minor| {
        move |settings: &mut Settings| {
            istio(istio_minor)(settings);
            kube(kube_minor)(settings);
        }
    };
    assert_eq!(
        proxy_list(&analyze_one(&injected_istio(), both(26, 34))),
        ContainerList::Regular
    );
    assert_eq!(
        proxy_list(&analyze_one(&injected_istio(), both(27, 33))),
        ContainerList::Init
    );
    assert_eq!(
        proxy_list(&analyze_one(&injected_istio(), both(27, 32))),
        ContainerList::Regular
    );
    // Unknown version: the conservative classic reading.
    assert_eq!(
        proxy_list(&analyze_one(&injected_istio(), |_| {})),
        ContainerList::Regular
    );
    let forced = analyze_one(&injected_istio(), |settings| {
        settings.istio.native_sidecars = Some(Sourced::new(NativeSidecars::On, Source::Default));
    });
    assert_eq!(proxy_list(&forced), ContainerList::Init);
}

#[test]
fn s3_3_the_native_sidecar_annotation_needs_istio_1_24() {
    let yaml = pod(
        &format!(
            "{}{}",
            labels("    sidecar.istio.io/inject: \"true\"\n"),
            annotations("    sidecar.istio.io/nativeSidecar: \"true\"\n")
        ),
        APP,
    );
    assert_eq!(
        proxy_list(&analyze_one(&yaml, istio(23))),
        ContainerList::Regular
    );
    assert_eq!(
        proxy_list(&analyze_one(&yaml, istio(24))),
        ContainerList::Init
    );
}

fn held(a: &Analysis) -> bool {
    let proxy = &a.plan.containers[index_of(a, "istio-proxy")];
    proxy.post_start.is_some()
        && a.plan
            .regular()
            .next()
            .is_some_and(|(_, c)| c.name == "istio-proxy")
}

#[test]
fn s3_5_hold_in_proxy_config_needs_istio_1_8_and_the_helm_value_1_7() {
    let annotated = pod(
        &format!(
            "{}{}",
            labels("    sidecar.istio.io/inject: \"true\"\n"),
            annotations(
                "    proxy.istio.io/config: '{\"holdApplicationUntilProxyStarts\": true}'\n"
            )
        ),
        APP,
    );
    assert!(!held(&analyze_one(&annotated, istio(7))));
    assert!(held(&analyze_one(&annotated, istio(8))));
    let global = |minor| {
        move |settings: &mut Settings| {
            istio(minor)(settings);
            settings.istio.hold_helm_global = Some(Sourced::new(true, Source::Default));
        }
    };
    assert!(!held(&analyze_one(&injected_istio(), global(6))));
    assert!(held(&analyze_one(&injected_istio(), global(7))));
}

#[test]
fn s3_2_a_custom_lifecycle_replaces_the_injected_hooks() {
    let a = analyze_one(&injected_istio(), |settings| {
        settings.istio.hold_helm_global = Some(Sourced::new(true, Source::Default));
        let lifecycle = serde_json::from_value(
            serde_json::json!({"preStop": {"exec": {"command": ["sleep", "15"]}}}),
        )
        .unwrap();
        settings.istio.set_lifecycle(lifecycle, Source::Default);
    });
    let proxy = &a.plan.containers[index_of(&a, "istio-proxy")];
    assert!(
        proxy.post_start.is_none(),
        "layout D drops the hold postStart"
    );
    assert_eq!(
        proxy.pre_stop.as_ref().unwrap().duration,
        HookDuration::Fixed(s(15.0))
    );
    assert!(common::rule_ids(&a).contains(&"ML102"));
}

#[test]
fn s3_5_pilot_agent_wait_polls_every_500_ms_for_60_s() {
    let held = pod(
        &format!(
            "{}{}",
            labels("    sidecar.istio.io/inject: \"true\"\n"),
            annotations(
                "    proxy.istio.io/config: '{\"holdApplicationUntilProxyStarts\": true}'\n"
            )
        ),
        APP,
    );
    let a = analyze_one(&held, |settings| {
        settings
            .scenario
            .set(ScenarioKey::ProxyStartup, Millis(2200), Source::Default);
    });
    assert_eq!(start(&a, "app").started, Some(s(2.5)));
    let a = analyze_one(&held, |settings| {
        settings
            .scenario
            .set(ScenarioKey::ProxyStartup, Millis::secs(70), Source::Default);
    });
    let proxy = start(&a, "istio-proxy");
    assert!(proxy.post_start_failed);
    assert_eq!(proxy.post_start_done, Some(s(60.0)));
    // §1.1: the kill is waited for, and pilot-agent drains 5 s after its SIGTERM.
    assert_eq!(proxy.killed_exit(), Some(s(65.0)));
    assert_eq!(
        start(&a, "app").started,
        Some(s(65.0)),
        "the kubelet starts the app anyway (F6), once the killed proxy is gone"
    );
}

fn native_istio() -> String {
    pod(
        &format!(
            "{}{}",
            labels("    sidecar.istio.io/inject: \"true\"\n"),
            annotations("    sidecar.istio.io/nativeSidecar: \"true\"\n")
        ),
        APP,
    )
}

#[test]
fn s3_2_startup_probe_1_s_600_tries_since_istio_1_20() {
    let a = analyze_one(&native_istio(), |settings| {
        istio(28)(settings);
        settings.scenario.set(
            ScenarioKey::ProxyStartup,
            Millis::secs(700),
            Source::Default,
        );
    });
    // Probes run at 1, 2, …, 600 (none at the pod's add, before the proxy runs): the
    // 600th failure is at 600 (`worker.go`, `doProbe`; this test expected 599).
    assert_eq!(
        start(&a, "istio-proxy").startup_probe_failed,
        Some(s(600.0))
    );
    // Istio 1.19 classic: no startup probe (native mode is in tests/it/fidelity.rs).
    let a = analyze_one(&injected_istio(), istio(19));
    assert!(
        a.plan.containers[index_of(&a, "istio-proxy")]
            .startup_probe
            .is_none()
    );
    let a = analyze_one(&native_istio(), istio(24));
    assert_eq!(start(&a, "app").started, Some(s(2.0)));
}

#[test]
fn s3_2_readiness_probe_0_15_4_since_1_20_and_1_2_30_before() {
    // 1.20+: readiness probing starts when the startup probe passes (2 s).
    let a = analyze_one(&injected_istio(), istio(20));
    assert_eq!(start(&a, "istio-proxy").serving, Some(s(2.0)));
    // 1.19: no startup probe; the readiness worker ticks at 0, 2, 4, … from the pod's
    // add, and the initial delay of 1 s only skips ticks while the proxy is younger:
    // ready at 2, probed at 2 (`worker.go`, `run`/`doProbe`, v1.29–v1.35; this test
    // expected 3, from ticks at start + delay + k × period).
    let a = analyze_one(&injected_istio(), istio(19));
    assert_eq!(start(&a, "istio-proxy").serving, Some(s(2.0)));
    assert_eq!(a.timeline.startup.pod_ready, Some(s(2.0)));
}

#[test]
fn s3_6_native_proxies_drain_on_prestop_and_exit_on_sigterm_since_istio_1_21() {
    // The annotation needs 1.24; istiod's ENABLE_NATIVE_SIDECARS turns native mode on.
    let a = analyze_one(&native_istio(), |settings| {
        istio(21)(settings);
        settings.istio.native_sidecars = Some(Sourced::new(NativeSidecars::On, Source::Default));
    });
    let proxy = &a.plan.containers[index_of(&a, "istio-proxy")];
    assert!(proxy.pre_stop.is_some());
    assert_eq!(stop(&a, "istio-proxy").inbound_drained, Some(s(0.0)));
    assert_eq!(stop(&a, "istio-proxy").exit, stop(&a, "istio-proxy").signal);
    // 1.20: the native experiment had no preStop; the agent drains on SIGTERM for D.
    let a = analyze_one(&native_istio(), |settings| {
        istio(20)(settings);
        settings.istio.native_sidecars = Some(Sourced::new(NativeSidecars::On, Source::Default));
    });
    assert!(
        a.plan.containers[index_of(&a, "istio-proxy")]
            .pre_stop
            .is_none()
    );
    let proxy = stop(&a, "istio-proxy");
    assert_eq!(proxy.exit - proxy.signal, s(5.0));
}

fn exit_on_zero() -> String {
    pod(
        &format!(
            "{}{}",
            labels("    sidecar.istio.io/inject: \"true\"\n"),
            annotations(
                "    proxy.istio.io/config: '{\"proxyMetadata\": {\"EXIT_ON_ZERO_ACTIVE_CONNECTIONS\": \"true\"}}'\n"
            )
        ),
        &app_with_prestop("[sleep, \"8.5\"]"),
    )
}

#[test]
fn s3_6_exit_on_zero_active_connections_needs_istio_1_12_and_polls_every_second() {
    let a = analyze_one(&exit_on_zero(), istio(11));
    assert_eq!(
        stop(&a, "istio-proxy").exit,
        s(5.0),
        "ignored: terminationDrainDuration applies"
    );
    let a = analyze_one(&exit_on_zero(), istio(12));
    // The app exits at 13.5; polls after the 5 s minimum come at 5, 6, …, 14.
    assert_eq!(stop(&a, "app").exit, s(13.5));
    assert_eq!(stop(&a, "istio-proxy").exit, s(14.0));
}

#[test]
fn s3_6_envoy_stops_accepting_once_drain_duration_ends() {
    let yaml = pod(
        &format!(
            "{}{}",
            labels("    sidecar.istio.io/inject: \"true\"\n"),
            annotations(
                "    proxy.istio.io/config: '{\"proxyMetadata\": {\"EXIT_ON_ZERO_ACTIVE_CONNECTIONS\": \"true\"}}'\n"
            )
        ),
        &format!(
            "  terminationGracePeriodSeconds: 90\n{}",
            app_with_prestop("[sleep, \"60\"]")
        ),
    );
    let a = analyze_one(&yaml, |_| {});
    let proxy = stop(&a, "istio-proxy");
    assert_eq!(proxy.exit, s(65.0));
    assert_eq!(proxy.inbound_refused, Some(s(45.0)), "drainDuration 45 s");
    // Outbound traffic works until the proxy is gone (inbound-only drain).
    assert_eq!(proxy.outbound_refused, Some(s(65.0)));
}

#[test]
fn s3_4_status_port_moves_quitquitquit() {
    let job = |annotation: &str, port: u16| {
        format!(
            "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: j}}\nspec:\n  template:\n    metadata:\n      labels: {{sidecar.istio.io/inject: \"true\"}}\n{annotation}    spec:\n      restartPolicy: Never\n      containers:\n      - name: work\n        image: work\n        command: [/bin/sh, -c, \"trap 'curl -fsS -X POST localhost:{port}/quitquitquit' EXIT; ./work\"]\n"
        )
    };
    let moved = "      annotations: {status.sidecar.istio.io/port: \"15030\"}\n";
    let outcome = |yaml: String| {
        analyze_one(&yaml, |_| {})
            .timeline
            .completion
            .unwrap()
            .outcome
    };
    assert!(matches!(outcome(job("", 15020)), Outcome::Succeeds(_)));
    assert_eq!(outcome(job(moved, 15020)), Outcome::Hangs);
    assert!(matches!(outcome(job(moved, 15030)), Outcome::Succeeds(_)));
}

// --- Linkerd ----------------------------------------------------------------------

fn linkerd_injected(a: &Analysis) -> bool {
    a.plan.containers.iter().any(|c| c.name == "linkerd-proxy")
}

#[test]
fn s4_1_the_linkerd_inject_annotation_on_pod_or_namespace() {
    let plain = pod("", APP);
    assert!(linkerd_injected(&analyze_one(
        &plain,
        namespace(&[], &[("linkerd.io/inject", "enabled")])
    )));
    let disabled = pod(&annotations("    linkerd.io/inject: disabled\n"), APP);
    assert!(!linkerd_injected(&analyze_one(
        &disabled,
        namespace(&[], &[("linkerd.io/inject", "enabled")])
    )));
    let enabled = pod(&annotations("    linkerd.io/inject: enabled\n"), APP);
    assert!(linkerd_injected(&analyze_one(
        &enabled,
        namespace(&[], &[])
    )));
    assert!(linkerd_injected(&analyze_one(
        &enabled,
        namespace(&[], &[("linkerd.io/inject", "disabled")])
    )));
    let invalid = pod(&annotations("    linkerd.io/inject: yes-please\n"), APP);
    assert!(!linkerd_injected(&analyze_one(&invalid, |_| {})));
    let label = pod(&labels("    linkerd.io/inject: enabled\n"), APP);
    let a = analyze_one(&label, |_| {});
    assert!(!linkerd_injected(&a));
    assert!(has_problem(&a, opt_in_ignored));
}

fn linkerd_pod(extra: &str) -> String {
    pod(
        &annotations(&format!("    linkerd.io/inject: enabled\n{extra}")),
        APP,
    )
}

fn linkerd_list(a: &Analysis) -> ContainerList {
    a.plan.containers[index_of(a, "linkerd-proxy")].list()
}

#[test]
fn s4_2_native_by_default_from_linkerd_2_20() {
    assert_eq!(
        linkerd_list(&analyze_one(&linkerd_pod(""), |_| {})),
        ContainerList::Regular
    );
    assert_eq!(
        linkerd_list(&analyze_one(&linkerd_pod(""), linkerd("version-2.19"))),
        ContainerList::Regular
    );
    assert_eq!(
        linkerd_list(&analyze_one(&linkerd_pod(""), linkerd("version-2.20"))),
        ContainerList::Init
    );
    assert_eq!(
        linkerd_list(&analyze_one(&linkerd_pod(""), linkerd("edge-26.5.2"))),
        ContainerList::Init
    );
    let beta = linkerd_pod("    config.beta.linkerd.io/proxy-enable-native-sidecar: \"true\"\n");
    assert_eq!(
        linkerd_list(&analyze_one(&beta, linkerd("version-2.19"))),
        ContainerList::Init
    );
    let alpha = linkerd_pod("    config.alpha.linkerd.io/proxy-enable-native-sidecar: \"true\"\n");
    assert_eq!(
        linkerd_list(&analyze_one(&alpha, linkerd("stable-2.14.0"))),
        ContainerList::Regular
    );
}

#[test]
fn s4_2_proxy_await_holds_the_app_unless_disabled() {
    let a = analyze_one(&linkerd_pod(""), |_| {});
    let ready = start(&a, "linkerd-proxy").ready.unwrap();
    assert_eq!(start(&a, "app").started, Some(ready));
    assert!(!common::rule_ids(&a).contains(&"ML101"));
    let a = analyze_one(
        &linkerd_pod("    config.linkerd.io/proxy-await: disabled\n"),
        |_| {},
    );
    assert_eq!(start(&a, "app").started, Some(s(0.0)));
    assert!(common::rule_ids(&a).contains(&"ML101"));
}

#[test]
fn s4_2_native_startup_probe_and_await_timeout() {
    let a = analyze_one(&linkerd_pod(""), linkerd("version-2.20"));
    let probe = a.plan.containers[index_of(&a, "linkerd-proxy")]
        .startup_probe
        .unwrap();
    assert_eq!((probe.period, probe.failure_threshold), (s(1.0), 120));
    assert_eq!(start(&a, "app").started, Some(s(2.0)));
    // Classic: `linkerd-await --timeout=2m` backs off 1 s.
    let a = analyze_one(&linkerd_pod(""), |settings| {
        settings
            .scenario
            .set(ScenarioKey::ProxyStartup, Millis(2300), Source::Default);
    });
    assert_eq!(start(&a, "app").started, Some(s(3.0)));
    let a = analyze_one(&linkerd_pod(""), |settings| {
        settings.scenario.set(
            ScenarioKey::ProxyStartup,
            Millis::secs(150),
            Source::Default,
        );
    });
    assert!(start(&a, "linkerd-proxy").post_start_failed);
    assert_eq!(start(&a, "app").started, Some(s(120.0)));
}

#[test]
fn s4_2_wait_before_exit_is_a_classic_proxy_prestop_only() {
    let extra = "    config.alpha.linkerd.io/proxy-wait-before-exit-seconds: \"10\"\n";
    let a = analyze_one(&linkerd_pod(extra), |_| {});
    assert_eq!(stop(&a, "linkerd-proxy").signal, s(10.0));
    let a = analyze_one(&linkerd_pod(extra), linkerd("version-2.20"));
    assert!(
        a.plan.containers[index_of(&a, "linkerd-proxy")]
            .pre_stop
            .is_none()
    );
}

#[test]
fn s4_3_shutdown_grace_period_caps_in_flight_requests() {
    let with_grace = linkerd_pod("    config.linkerd.io/shutdown-grace-period: 3s\n");
    let a = analyze_one(&with_grace, |settings| {
        settings.scenario.set(
            ScenarioKey::LongestRequest,
            Millis::secs(60),
            Source::Default,
        );
    });
    assert_eq!(stop(&a, "linkerd-proxy").exit, s(3.0));
    // Default 120 s: the app, still finishing a 60 s request, is SIGKILLed at 30 s, and
    // its requests die with it: nothing is left in flight through the proxy.
    let a = analyze_one(&linkerd_pod(""), |settings| {
        settings.scenario.set(
            ScenarioKey::LongestRequest,
            Millis::secs(60),
            Source::Default,
        );
    });
    let app = stop(&a, "app");
    assert_eq!(
        (app.natural_exit, app.exit, app.killed),
        (s(60.0), s(30.0), true)
    );
    assert_eq!(stop(&a, "linkerd-proxy").exit, s(30.0));
    // Requests of 10 s, taken until the signal at 0 s: done at 10 s, and so is the proxy.
    let a = analyze_one(&linkerd_pod(""), |settings| {
        settings.scenario.set(
            ScenarioKey::LongestRequest,
            Millis::secs(10),
            Source::Default,
        );
    });
    assert_eq!(stop(&a, "app").exit, s(10.0));
    assert_eq!(stop(&a, "linkerd-proxy").exit, s(10.0));
}

#[test]
fn s4_3_the_shutdown_endpoint_is_off_by_default_from_linkerd_2_16() {
    let job = |extra: &str| {
        format!(
            "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: j}}\nspec:\n  template:\n    metadata:\n      annotations:\n        linkerd.io/inject: enabled\n{extra}    spec:\n      restartPolicy: Never\n      containers:\n      - name: work\n        image: work\n        command: [/bin/sh, -c, \"./work; rc=$?; curl -X POST http://localhost:4191/shutdown; exit $rc\"]\n"
        )
    };
    let outcome = |yaml: String, version: &str| {
        analyze_one(&yaml, linkerd(version))
            .timeline
            .completion
            .unwrap()
            .outcome
    };
    assert!(matches!(
        outcome(job(""), "version-2.15"),
        Outcome::Succeeds(_)
    ));
    assert_eq!(outcome(job(""), "version-2.16"), Outcome::Hangs);
    let enabled = job("        config.linkerd.io/proxy-admin-shutdown: enabled\n");
    assert!(matches!(
        outcome(enabled, "version-2.16"),
        Outcome::Succeeds(_)
    ));
}

// --- Other sidecars ---------------------------------------------------------------

fn exit_after_signal(a: &Analysis, name: &str) -> Millis {
    let entry = stop(a, name);
    entry.exit - entry.signal
}

/// daprd's shutdown (dapr/dapr v1.18.3, `pkg/runtime/runtime.go` `Run` and
/// `NewRunnerCloserManager` of dapr/kit): on SIGTERM it closes its servers and exits
/// once in-flight work is done; `graceful-shutdown-seconds` (5 s) is only the limit
/// after which it forces the exit, 0 meaning none; `block-shutdown-duration` keeps it
/// serving first.
#[test]
fn s5_1_daprd_exits_when_its_work_is_done_within_graceful_shutdown_seconds() {
    let dapr = |extra: &str| {
        pod(
            &annotations(&format!("    dapr.io/enabled: \"true\"\n{extra}")),
            APP,
        )
    };
    let long_requests = |settings: &mut Settings| {
        settings.scenario.set(
            ScenarioKey::LongestRequest,
            Millis::secs(60),
            Source::Default,
        );
    };
    // Nothing in flight: gone at the signal.
    let a = analyze_one(&dapr(""), |_| {});
    assert_eq!(exit_after_signal(&a, "daprd"), s(0.0));
    assert_eq!(stop(&a, "daprd").outbound_refused, Some(s(0.0)));
    // The app's 60 s requests: daprd gives up after its 5 s, or 20 s when set.
    let a = analyze_one(&dapr(""), long_requests);
    assert_eq!(exit_after_signal(&a, "daprd"), s(5.0));
    let a = analyze_one(
        &dapr("    dapr.io/graceful-shutdown-seconds: \"20\"\n"),
        long_requests,
    );
    assert_eq!(exit_after_signal(&a, "daprd"), s(20.0));
    // 0: no limit of its own; the app's SIGKILL at 30 s ends the requests.
    let a = analyze_one(
        &dapr("    dapr.io/graceful-shutdown-seconds: \"0\"\n"),
        long_requests,
    );
    assert_eq!(stop(&a, "daprd").exit, s(30.0));
    // block-shutdown-duration: serves 10 s more, then exits.
    let a = analyze_one(&dapr("    dapr.io/block-shutdown-duration: 10s\n"), |_| {});
    let daprd = stop(&a, "daprd");
    assert_eq!(
        (daprd.outbound_refused, daprd.exit),
        (Some(s(10.0)), s(10.0))
    );
    // `dapr.io/enabled` is compared case-insensitively (`strings.EqualFold`).
    let a = analyze_one(
        &pod(&annotations("    dapr.io/enabled: \"True\"\n"), APP),
        |_| {},
    );
    assert!(a.plan.containers.iter().any(|c| c.name == "daprd"));
}

#[test]
fn s5_consul_dataplane_and_kuma_wait_30_seconds() {
    let yaml = pod(
        &format!(
            "{}{}",
            annotations("    consul.hashicorp.com/connect-inject: \"true\"\n"),
            ""
        ),
        &format!("  terminationGracePeriodSeconds: 60\n{APP}"),
    );
    let a = analyze_one(&yaml, |_| {});
    assert_eq!(exit_after_signal(&a, "consul-dataplane"), s(30.0));
    // Kuma's classic sidecar, which its injector adds below Kubernetes 1.29; the native
    // one of 1.29 and later exits at its signal (tests/it/fidelity_meshes.rs).
    let yaml = pod(
        &labels("    kuma.io/sidecar-injection: enabled\n"),
        &format!("  terminationGracePeriodSeconds: 60\n{APP}"),
    );
    let a = analyze_one(&yaml, |settings| {
        settings.kubernetes = Sourced::new(KubeVersion { minor: 28 }, Source::Default)
    });
    assert_eq!(exit_after_signal(&a, "kuma-sidecar"), s(30.0));
    // An unknown release is read as one before 2.14: classic on 1.29 too.
    let a = analyze_one(&yaml, |_| {});
    assert_eq!(exit_after_signal(&a, "kuma-sidecar"), s(30.0));
    let a = analyze_one(&yaml, |settings| {
        let kuma = KumaVersion::new(2, 14, 0);
        settings.versions.kuma = Some(Sourced::new(kuma, Source::Default));
    });
    assert_eq!(exit_after_signal(&a, "kuma-sidecar"), s(0.0));
}

#[test]
fn s5_cloud_sql_proxy_exits_143_and_quits_on_its_admin_port() {
    let job = |flags: &str, port: u16| {
        format!(
            "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: j}}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: work\n        image: work\n        command: [/bin/sh, -c, \"./work; rc=$?; curl -X POST localhost:{port}/quitquitquit; exit $rc\"]\n      - name: sql\n        image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.0\n        args: [\"--port=5432\"{flags}]\n"
        )
    };
    let outcome = |yaml: String| {
        analyze_one(&yaml, |_| {})
            .timeline
            .completion
            .unwrap()
            .outcome
    };
    assert_eq!(
        outcome(job("", 9091)),
        Outcome::Hangs,
        "no --quitquitquit: the call gets nothing"
    );
    assert!(matches!(
        outcome(job(", \"--quitquitquit\"", 9091)),
        Outcome::Succeeds(_)
    ));
    let a = analyze_one(&job("", 9091), |_| {});
    assert_eq!(
        a.plan.containers[index_of(&a, "sql")].exit_code_on_signal,
        143
    );
}

#[test]
fn s5_cloud_sql_proxy_sigterm_delays() {
    let serving = |flags: &str| {
        pod(
            "",
            &format!(
                "  containers:\n  - name: app\n    image: app\n  - name: sql\n    image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.0\n    args: [\"--port=5432\"{flags}]\n"
            ),
        )
    };
    let shutdown = |seconds: i64| {
        move |settings: &mut mesh_lifecycle::settings::Settings| {
            settings.scenario.set(
                ScenarioKey::AppShutdown,
                Millis::secs(seconds),
                Source::Default,
            );
        }
    };
    // No delay: it exits on SIGTERM, and refuses the app's new connections at once.
    let a = analyze_one(&serving(""), shutdown(5));
    let sql = stop(&a, "sql");
    assert_eq!((sql.exit, sql.outbound_refused), (s(0.0), Some(s(0.0))));
    assert_eq!(sql.inbound_refused, None, "it carries no inbound traffic");
    // --min-sigterm-delay: accepts for 10 s, then exits (no --max-sigterm-delay).
    let a = analyze_one(&serving(", \"--min-sigterm-delay=10s\""), shutdown(5));
    let sql = stop(&a, "sql");
    assert_eq!((sql.exit, sql.outbound_refused), (s(10.0), Some(s(10.0))));
    // --max-sigterm-delay: waits for the app's connections, which close when it exits at
    // 5 s, at most 20 s.
    let a = analyze_one(&serving(", \"--max-sigterm-delay=20s\""), shutdown(5));
    assert_eq!(stop(&a, "sql").exit, s(5.0));
    let a = analyze_one(&serving(", \"--max-sigterm-delay=3s\""), shutdown(5));
    assert_eq!(stop(&a, "sql").exit, s(3.0));
    // Both: accepts for 2 s, then waits up to 20 s more for the app, gone at 8 s.
    let a = analyze_one(
        &serving(", \"--min-sigterm-delay=2s\", \"--max-sigterm-delay=20s\""),
        shutdown(8),
    );
    let sql = stop(&a, "sql");
    assert_eq!((sql.exit, sql.outbound_refused), (s(8.0), Some(s(2.0))));
}

#[test]
fn s3_1_and_s4_1_two_meshes_conflict() {
    let yaml = pod(
        &format!(
            "{}{}",
            labels("    sidecar.istio.io/inject: \"true\"\n"),
            annotations("    linkerd.io/inject: enabled\n")
        ),
        APP,
    );
    let a = analyze_one(&yaml, |_| {});
    let injected = a
        .plan
        .meshes
        .iter()
        .filter(|m| matches!(m.injection, Injection::WillInject { .. }))
        .count();
    assert_eq!(injected, 2);
    assert!(has_problem(&a, conflict));
}

/// A classic proxy as the injector wrote it, with `proxy_config` in `PROXY_CONFIG`.
fn injected_with_proxy_config(proxy_config: &str) -> String {
    pod(
        "",
        &format!(
            "  containers:\n  - name: app\n    image: app\n  - name: istio-proxy\n    image: docker.io/istio/proxyv2:1.24.2\n    args: [proxy, sidecar]\n    env:\n    - name: PROXY_CONFIG\n      value: '{proxy_config}'\n"
        ),
    )
}

#[test]
fn s3_7_a_running_proxy_keeps_the_mesh_config_it_was_injected_under() {
    // pilot-agent builds its ProxyConfig from its defaults, then PROXY_CONFIG, then the
    // annotation (istio 1.24 `pilot/cmd/pilot-agent/config/config.go`, `getMeshConfig`);
    // the mesh config of now, and the Helm hold only the injector reads, play no part.
    let mesh_now = |settings: &mut Settings| {
        istio(24)(settings);
        settings.istio.mesh_default_config = mesh_lifecycle::settings::istio::ProxyConfig::parse(
            "holdApplicationUntilProxyStarts: true\nterminationDrainDuration: 20s\n",
            &Source::Default,
        )
        .unwrap();
        settings.istio.hold_helm_global = Some(Sourced::new(true, Source::Default));
    };
    let a = analyze_one(&injected_with_proxy_config("{}"), mesh_now);
    let proxy = &a.plan.containers[index_of(&a, "istio-proxy")];
    assert!(proxy.gate_request.is_none(), "no hold was injected");
    assert!(!common::rule_ids(&a).contains(&"ML102"));
    assert_eq!(
        proxy.exit,
        ExitPolicy::After(Sourced::default_value(s(5.0)))
    );
    let a = analyze_one(
        &injected_with_proxy_config(r#"{"terminationDrainDuration": "25s"}"#),
        mesh_now,
    );
    let proxy = stop(&a, "istio-proxy");
    assert_eq!(
        proxy.exit - proxy.signal,
        s(25.0),
        "as rendered at injection"
    );
}

#[test]
fn s2_6_a_pod_its_job_created_runs_to_completion() {
    // Read from a cluster, a Job's pod is a Pod whose controller is the Job
    // (`metadata.ownerReferences`); the kubelet runs it to completion like any Job pod.
    let owned = |kind: &str, api_version: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: export-x7k2p\n  namespace: ns\n  ownerReferences:\n  - {{apiVersion: {api_version}, kind: {kind}, name: export, uid: u1, controller: true}}\nspec:\n  restartPolicy: Never\n  containers:\n  - name: export\n    image: export\n  - name: istio-proxy\n    image: docker.io/istio/proxyv2:1.24.2\n    args: [proxy, sidecar]\n"
        )
    };
    let job_pod = analyze_one(&owned("Job", "batch/v1"), |_| {});
    assert!(job_pod.plan.runs_to_completion());
    assert!(common::rule_ids(&job_pod).contains(&"ML301"));
    let message = &job_pod
        .findings
        .iter()
        .find(|f| f.finding.rule.id == "ML301")
        .unwrap()
        .finding
        .message;
    assert!(message.ends_with("the Job never completes"), "{message}");
    for (kind, api_version) in [
        ("ReplicaSet", "apps/v1"),
        ("Job", "batch.volcano.sh/v1alpha1"),
    ] {
        let pod = analyze_one(&owned(kind, api_version), |_| {});
        assert!(!pod.plan.runs_to_completion(), "{kind} {api_version}");
    }
}

#[test]
fn s3_1_the_namespace_or_else_the_pod_selects_the_istio_revision() {
    // istio-discovery's mutatingwebhook.yaml: `istio-injection` sends a namespace's pods
    // to the default revision whatever they say; else the namespace's `istio.io/rev`
    // selects; only in a namespace with neither label does the pod's own.
    let canary = |namespace_labels: &'static [(&'static str, &'static str)]| {
        move |settings: &mut Settings| {
            istio(24)(settings);
            let mut revision = settings.istio.clone();
            revision.version = Some(Sourced::new(IstioVersion::new(27), Source::Default));
            revision.native_sidecars = Some(Sourced::new(NativeSidecars::On, Source::Default));
            settings.istio_revisions.insert("canary".into(), revision);
            namespace(namespace_labels, &[])(settings);
        }
    };
    let pod_of = |labels_lines: &str| pod(&labels(labels_lines), APP);
    let native = |a: &Analysis| proxy_list(a) == ContainerList::Init;
    let pod_canary = pod_of("    istio.io/rev: canary\n");
    assert!(native(&analyze_one(&pod_canary, canary(&[]))));
    assert!(!native(&analyze_one(
        &pod_canary,
        canary(&[("istio-injection", "enabled")])
    )));
    let plain = pod_of("    app: web\n");
    assert!(native(&analyze_one(
        &plain,
        canary(&[("istio.io/rev", "canary")])
    )));
    assert!(!native(&analyze_one(
        &plain,
        canary(&[("istio.io/rev", "default")])
    )));
    let a = analyze_one(&plain, canary(&[("istio.io/rev", "canary")]));
    let reasons = &a.plan.meshes[0].reasons;
    let canary = DecisionReason::Revision {
        name: "canary".to_owned(),
    };
    assert!(reasons.contains(&canary), "{reasons:?}");
}
