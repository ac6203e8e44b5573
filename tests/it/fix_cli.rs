//! `lint --fix`, `--diff` and standard input through the binary: each rule's fix on
//! its firing fixtures, the exact file it writes, that the finding is gone, that
//! kubectl reads the result, and that a second run changes nothing.

use crate::common;

use std::path::Path;

/// A copy of the fixture `name` in a fresh directory.
fn copy(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::copy(common::testdata(&format!("rules/{name}")), &path).unwrap();
    (dir, path)
}

/// The rule ids `lint` reports for `path`, run with `flags`.
fn rules_of(path: &Path, flags: &[String]) -> Vec<String> {
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let (report, _) = common::lint_json(path, &flags);
    common::rule_lines(&report)
        .into_iter()
        .map(|(rule, _)| rule)
        .collect()
}

/// Fixes the fixture `name` as [`common::fixing::fix_fixture`] does; returns the fixed
/// file and kubectl's reading of it.
fn fix_fixture(name: &str, rule: &str, flags: &[&str]) -> (String, Option<serde_json::Value>) {
    let fixed = common::fixing::fix_fixture(&format!("rules/{name}"), rule, flags);
    (fixed.text, fixed.reads.map(|(_, after)| after))
}

#[test]
fn ml101_istio_gets_the_hold_annotation() {
    // A safe fix on a classic sidecar: one the pod asks for, or one of a release
    // before native sidecars (on an unknown release the hold rests on that reading).
    for (name, flags) in [
        ("ml101-fire-inject-label.yaml", &[][..]),
        ("ml101-fire-job.yaml", &["--mesh-version", "istio=1.26"][..]),
    ] {
        let (fixed, read) = fix_fixture(name, "ML101", flags);
        insta::assert_snapshot!(name, fixed);
        if let Some(object) = read {
            assert_eq!(
                object["spec"]["template"]["metadata"]["annotations"]["proxy.istio.io/config"],
                "holdApplicationUntilProxyStarts: true\n"
            );
        }
    }
}

#[test]
fn ml101_linkerd_turns_proxy_await_back_on() {
    let name = "ml101-fire-linkerd-await-disabled.yaml";
    let (fixed, read) = fix_fixture(name, "ML101", &[]);
    insta::assert_snapshot!(name, fixed);
    if let Some(object) = read {
        assert_eq!(
            object["spec"]["template"]["metadata"]["annotations"]["config.linkerd.io/proxy-await"],
            "enabled"
        );
    }
}

/// The fix loop lints each input with the context the other inputs give: here the
/// Namespace in another file turns proxy-await off, so only with it does ML101 fire,
/// and the fix must set the pod's own annotation, which wins over the Namespace's.
#[test]
fn an_input_is_fixed_with_the_context_of_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let namespace = dir.path().join("namespace.yaml");
    std::fs::write(
        &namespace,
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  annotations:\n    \
         linkerd.io/inject: enabled\n    config.linkerd.io/proxy-await: disabled\n",
    )
    .unwrap();
    let deployment = dir.path().join("orders.yaml");
    let original = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders\n  \
                    namespace: shop\nspec:\n  selector:\n    matchLabels: {app: orders}\n  \
                    template:\n    metadata:\n      labels: {app: orders}\n    spec:\n      \
                    containers:\n      - name: orders\n        image: example/orders:2.3.0\n";
    std::fs::write(&deployment, original).unwrap();
    let namespace_text = std::fs::read_to_string(&namespace).unwrap();
    // A release before native sidecars: ML101 (not ML104) is the finding.
    common::cli()
        .args(["lint", "--fix", "--mesh-version", "linkerd=2.19"])
        .arg(&namespace)
        .arg(&deployment)
        .assert()
        .code(predicates::ord::lt(2));
    assert_eq!(
        std::fs::read_to_string(&deployment).unwrap(),
        original.replace(
            "      labels: {app: orders}\n",
            "      labels: {app: orders}\n      annotations:\n        \
             config.linkerd.io/proxy-await: enabled\n"
        )
    );
    assert_eq!(std::fs::read_to_string(&namespace).unwrap(), namespace_text);
    let output = common::cli()
        .args(["lint", "--format", "json"])
        .arg(&namespace)
        .arg(&deployment)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(
        !common::rule_lines(&report)
            .iter()
            .any(|(rule, _)| rule == "ML101"),
        "{report}"
    );
}

/// Fixes the fixture `name` with `--unsafe-fixes` after checking that `--fix` alone
/// leaves it as it is; returns the fixed file and kubectl's reading of it.
fn fix_unsafe_fixture(name: &str, rule: &str) -> (String, Option<serde_json::Value>) {
    fix_unsafe_fixture_with(name, rule, &[])
}

/// [`fix_unsafe_fixture`] with more flags.
fn fix_unsafe_fixture_with(
    name: &str,
    rule: &str,
    flags: &[&str],
) -> (String, Option<serde_json::Value>) {
    let (_dir, path) = copy(name);
    let before = std::fs::read_to_string(&path).unwrap();
    common::cli()
        .args(["lint", "--fix"])
        .args(flags)
        .args(common::profile_flags(&before))
        .arg(&path)
        .assert()
        .code(predicates::ord::lt(3));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        before,
        "{name}: an unsafe fix was made without --unsafe-fixes"
    );
    let mut flags = flags.to_vec();
    flags.push("--unsafe-fixes");
    fix_fixture(name, rule, &flags)
}

/// The fix of the one finding of `rule` that `lint` (with `flags`) reports for `path`,
/// or `None` when it has none.
fn only_fix(path: &Path, flags: &[&str], rule: &str) -> Option<serde_json::Value> {
    let (report, _) = common::lint_json(path, flags);
    let found = common::reports::findings(&report, rule);
    assert_eq!(found.len(), 1, "{path:?} {flags:?}: {report}");
    found[0].get("fix").cloned()
}

/// A copy of the fixture `name` in `dir`, with `from` replaced by `to`.
fn variant(dir: &Path, name: &str, from: &str, to: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(common::testdata(&format!("rules/{name}"))).unwrap();
    assert!(text.contains(from), "{name} has no {from:?}");
    let path = dir.join(name);
    std::fs::write(&path, text.replace(from, to)).unwrap();
    path
}

/// The pod spec of what kubectl read: a Pod's own, else its template's.
fn pod_spec(object: &serde_json::Value) -> &serde_json::Value {
    if object["kind"] == "Pod" {
        &object["spec"]
    } else {
        &object["spec"]["template"]["spec"]
    }
}

#[test]
fn ml201_and_ml206_raise_the_grace_period_to_what_the_timeline_needs() {
    // Safe where the manifest gives every time the value adds up; unsafe where an
    // app's shutdown time is the default, and the fix's title says so.
    for (name, rule, seconds, safe) in [
        // 25 s of preStop, then the declared 10 s of shutdown, plus a fifth of that
        // as headroom; inserted after the containers, in the pod spec's indentation.
        ("ml201-fire-app-shutdown.yaml", "ML201", 42, true),
        // The proxy's 10 s preStop, then its 25 s drain, plus 7 s.
        ("ml201-fire-prestop-plus-drain.yaml", "ML201", 42, true),
        // The app's assumed 5 s of shutdown, plus 5 s.
        ("ml201-fire-assumed-app-shutdown.yaml", "ML201", 10, false),
        // A 45 s hook, then the assumed 5 s of shutdown, plus 10 s.
        ("ml206-fire-sleep-45.yaml", "ML206", 60, false),
        ("ml206-fire-sleep-action.yaml", "ML206", 42, false),
        ("ml206-fire-sleep-after-heredoc.yaml", "ML206", 126, false),
    ] {
        let (report, _) = common::lint_json(&common::testdata(&format!("rules/{name}")), &[]);
        let findings = report["findings"].as_array().unwrap();
        let fix = &findings.iter().find(|f| f["ruleId"] == rule).unwrap()["fix"];
        let assumes = fix["description"].as_str().unwrap().contains("it assumes");
        assert_eq!(fix["applicability"] == "safe", safe, "{name}: {fix}");
        assert_eq!(assumes, !safe, "{name}: {fix}");
        let (fixed, read) = if safe {
            fix_fixture(name, rule, &[])
        } else {
            fix_unsafe_fixture(name, rule)
        };
        insta::assert_snapshot!(name, fixed);
        if let Some(object) = read {
            assert_eq!(
                pod_spec(&object)["terminationGracePeriodSeconds"],
                seconds,
                "{name}"
            );
        }
    }
}

#[test]
fn ml205_removes_the_ignored_drain_setting() {
    for name in [
        // The only key of the annotation's YAML: the annotation goes, and
        // `annotations:`, which held nothing else; no empty mapping is left.
        "ml205-fire-drain-on-native.yaml",
        // Two findings, two keys removed in one round.
        "ml205-fire-exit-on-zero-on-native.yaml",
    ] {
        let (fixed, _) = fix_fixture(name, "ML205", &[]);
        insta::assert_snapshot!(name, fixed);
    }
    // A drain length the mode replaces keeps its intent: the 40 s move to the setting
    // the mode reads, which lengthens the drain from its 5 s default (unsafe).
    let name = "ml205-fire-drain-with-exit-on-zero.yaml";
    let (fixed, read) = fix_unsafe_fixture_with(name, "ML205", &[]);
    insta::assert_snapshot!(name, fixed);
    assert!(
        fixed.contains("MINIMUM_DRAIN_DURATION: 40s")
            && !fixed.contains("terminationDrainDuration: 40s  #"),
        "{fixed}"
    );
    if let Some(object) = read {
        let config = object["spec"]["template"]["metadata"]["annotations"]["proxy.istio.io/config"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(!config.contains("terminationDrainDuration"), "{config}");
    }
    // A variable of `env` is not a key to remove: unsetting its value would set it to
    // the empty string. No fix is offered.
    let path = common::testdata("rules/ml205-fire-minimum-drain-without-exit-on-zero.yaml");
    let flags = common::profile_flags(&std::fs::read_to_string(&path).unwrap());
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let (report, _) = common::lint_json(&path, &flags);
    let ml205 = common::reports::findings(&report, "ML205");
    assert!(!ml205.is_empty());
    assert!(ml205.iter().all(|f| f.get("fix").is_none()), "{report}");
}

/// A sleep action the version has not got (1.28) or drops (1.29) becomes `exec`
/// `sleep` of the same seconds: safe, the delay is the one written.
#[test]
fn ml209_runs_the_sleep_in_the_container_where_the_version_has_no_sleep_action() {
    for name in ["ml209-fire-1.28.yaml", "ml209-fire-1.29.yaml"] {
        let (fixed, read) = fix_fixture(name, "ML209", &[]);
        insta::assert_snapshot!(name, fixed);
        if let Some(object) = read {
            let pre_stop = &pod_spec(&object)["containers"][0]["lifecycle"]["preStop"];
            assert_eq!(
                pre_stop,
                &serde_json::json!({"exec": {"command": ["sleep", "10"]}})
            );
        }
    }
}

/// Seconds the version rejects are the author's to change, and an image without
/// `sleep` cannot run the delay itself.
#[test]
fn ml209_offers_no_fix_for_rejected_seconds_or_an_image_without_sleep() {
    let dir = tempfile::tempdir().unwrap();
    let distroless = variant(
        dir.path(),
        "ml209-fire-1.28.yaml",
        "example/events-consumer:1.3.0",
        "gcr.io/distroless/static:nonroot",
    );
    for (path, flags) in [
        (
            common::testdata("rules/ml209-fire-above-grace.yaml"),
            &[][..],
        ),
        (
            common::testdata("rules/ml209-fire-zero-before-1.33.yaml"),
            &["--kubernetes-version", "1.32"][..],
        ),
        (distroless, &["--kubernetes-version", "1.28"][..]),
    ] {
        assert_eq!(only_fix(&path, flags, "ML209"), None, "{path:?}");
    }
}

/// The stop call becomes the script's EXIT trap, set first: it runs on every path and
/// the shell exits with the work's status. The script is rewritten in its own style.
#[test]
fn ml302_makes_the_stop_call_the_script_s_exit_trap() {
    for (name, script) in [
        (
            "ml302-fire-semicolon.yaml",
            "trap 'curl -fsS -X POST http://127.0.0.1:15020/quitquitquit' EXIT; ./migrate up",
        ),
        (
            "ml302-fire-and-and.yaml",
            "trap 'curl -fsS -X POST http://localhost:15020/quitquitquit' EXIT; /app/sync --source https://pim.example.com/export",
        ),
        (
            "ml302-fire-set-e.yaml",
            "trap 'curl -fsS -X POST http://localhost:15020/quitquitquit' EXIT  # expect: ML302\nset -e\npg_dump -h orders-db -U backup orders > /backup/orders.sql\ngsutil cp /backup/orders.sql gs://example-backups/orders/\n",
        ),
    ] {
        let (fixed, read) = fix_unsafe_fixture(name, "ML302");
        insta::assert_snapshot!(name, fixed);
        if let Some(object) = read {
            let spec = match object["kind"].as_str() {
                Some("CronJob") => &object["spec"]["jobTemplate"]["spec"]["template"]["spec"],
                _ => pod_spec(&object),
            };
            let command = &spec["containers"][0]["command"];
            assert_eq!(command[2], script, "{name}: {command}");
        }
    }
}

/// A sidecar's exit code is not in the work's command, and a script with a trap of
/// its own would have one trap replace the other.
#[test]
fn ml302_offers_no_fix_for_an_exit_code_or_a_script_with_its_own_trap() {
    let dir = tempfile::tempdir().unwrap();
    let trapped = variant(
        dir.path(),
        "ml302-fire-semicolon.yaml",
        "- ./migrate up;",
        "- trap 'rm -f /tmp/lock' EXIT; ./migrate up;",
    );
    for path in [
        common::testdata("rules/ml302-fire-cloudsql-exit-143.yaml"),
        trapped,
    ] {
        assert_eq!(only_fix(&path, &[], "ML302"), None, "{path:?}");
    }
}

#[test]
fn ml207_adds_or_lengthens_a_prestop_sleep() {
    // Kubernetes 1.36 (the default) runs the `sleep` action; 1.29 does not, so the
    // image's own `sleep` runs it.
    for (name, snapshot, flags) in [
        (
            "ml207-fire-no-prestop.yaml",
            "ml207-fire-no-prestop.yaml",
            &[][..],
        ),
        (
            "ml207-fire-no-prestop.yaml",
            "ml207-fire-no-prestop-kubernetes-1.29.yaml",
            &["--kubernetes-version", "1.29"][..],
        ),
        (
            "ml207-fire-short-prestop.yaml",
            "ml207-fire-short-prestop.yaml",
            &[][..],
        ),
    ] {
        let (fixed, read) = fix_unsafe_fixture_with(name, "ML207", flags);
        insta::assert_snapshot!(snapshot, fixed);
        if let Some(object) = read {
            let pre_stop = &pod_spec(&object)["containers"][0]["lifecycle"]["preStop"];
            let seconds = match &pre_stop["sleep"] {
                serde_json::Value::Null => pre_stop["exec"]["command"][1].clone(),
                sleep => sleep["seconds"].clone(),
            };
            // 5 s of endpoint propagation and the 5 s floor of headroom.
            assert!(seconds == 10 || seconds == "10", "{name}: {pre_stop}");
        }
    }
    // A tcpSocket hook is invalid, not short: what to run instead is the user's choice.
    let path = common::testdata("rules/ml207-fire-tcp-socket-prestop.yaml");
    let (report, _) = common::lint_json(&path, &[]);
    let finding = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["ruleId"] == "ML207")
        .unwrap();
    assert!(finding.get("fix").is_none(), "{finding}");
}

#[test]
fn ml303_stops_the_proxy_through_its_endpoint_not_a_shared_namespace() {
    for (name, shared_before) in [
        ("ml303-fire-no-shared-pid.yaml", false),
        // ML302 stays: the call now reaches, but the status is still the call's
        // (ML302's own fix is left out here with `--select`).
        ("ml303-fire-semicolon-without-shared-pid.yaml", false),
        // Shared already, but the work runs as another user: the call needs neither.
        ("ml303-fire-other-user.yaml", true),
    ] {
        let (fixed, read) = fix_unsafe_fixture_with(name, "ML303", &["--select", "ML303"]);
        insta::assert_snapshot!(name, fixed);
        assert!(
            fixed.contains("curl -fsS -X POST http://localhost:15020/quitquitquit")
                && !fixed.contains("pkill -TERM"),
            "{name}: {fixed}"
        );
        if let Some(object) = read {
            let shared = pod_spec(&object)["shareProcessNamespace"] == true;
            assert_eq!(shared, shared_before, "{name}");
        }
    }
}

#[test]
fn ml404_moves_istio_s_opt_in_to_the_label() {
    let name = "ml404-fire-istio-annotation-unknown-ns.yaml";
    let (fixed, read) = fix_unsafe_fixture(name, "ML404");
    insta::assert_snapshot!(name, fixed);
    if let Some(object) = read {
        let metadata = &object["spec"]["template"]["metadata"];
        assert_eq!(metadata["labels"]["sidecar.istio.io/inject"], "true");
        assert!(
            metadata["annotations"]
                .get("sidecar.istio.io/inject")
                .is_none()
        );
    }
    // Injected, a pod without a hold would start its app before the proxy (a new
    // ML101): the fix is not made, and a note says why.
    let (_dir, path) = copy("ml404-fire-istio-annotation-unlabeled-ns.yaml");
    let before = std::fs::read_to_string(&path).unwrap();
    let output = common::cli()
        .args(["lint", "--fix", "--unsafe-fixes"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the fix for ML404 was not made: it would bring a new finding (ML101"),
        "{stderr}"
    );
}

/// The pod template's annotations of the workload kind `kind` in what kubectl read (a
/// List when the file holds several objects).
fn template_annotations<'a>(object: &'a serde_json::Value, kind: &str) -> &'a serde_json::Value {
    let object = match object["items"].as_array() {
        Some(items) => items.iter().find(|item| item["kind"] == kind).unwrap(),
        None => object,
    };
    let template = match kind {
        "CronJob" => &object["spec"]["jobTemplate"]["spec"]["template"],
        _ => &object["spec"]["template"],
    };
    &template["metadata"]["annotations"]
}

#[test]
fn ml301_makes_the_injected_proxy_a_native_sidecar() {
    for (name, snapshot, flags, kind, annotation) in [
        // Istio's annotation; Istio version unknown, read as the resolver reads it.
        (
            "ml301-fire-cronjob.yaml",
            "ml301-fire-cronjob.yaml",
            &["--select", "ML301"][..],
            "CronJob",
            "sidecar.istio.io/nativeSidecar",
        ),
        // The first release that reads the annotation, on the oldest Kubernetes that
        // runs native sidecars.
        (
            "ml301-fire-cronjob.yaml",
            "ml301-fire-cronjob-istio-1.24.yaml",
            &[
                "--select",
                "ML301",
                "--istio-version",
                "1.24",
                "--kubernetes-version",
                "1.29",
            ][..],
            "CronJob",
            "sidecar.istio.io/nativeSidecar",
        ),
        // Linkerd 2.18 reads only the alpha key (the beta key arrived in 2.19). The
        // native proxy also outlives the app on shutdown: ML202 goes too.
        (
            "ml301-fire-linkerd-job.yaml",
            "ml301-fire-linkerd-job.yaml",
            &[][..],
            "Job",
            "config.alpha.linkerd.io/proxy-enable-native-sidecar",
        ),
    ] {
        let (fixed, read) = fix_unsafe_fixture_with(name, "ML301", flags);
        insta::assert_snapshot!(snapshot, fixed);
        if let Some(object) = read {
            assert_eq!(
                template_annotations(&object, kind)[annotation],
                "true",
                "{name}"
            );
        }
    }
    // With ML101's hold made first (safe, in the first round), native mode would leave
    // the hold without effect (ML403): the native switch removes it, and the startup
    // probe holds the app instead.
    let (fixed, read) = fix_fixture("ml301-fire-cronjob.yaml", "ML301", &["--unsafe-fixes"]);
    insta::assert_snapshot!("ml301-fire-cronjob-with-ml101.yaml", fixed);
    if let Some(object) = read {
        let annotations = template_annotations(&object, "CronJob");
        assert_eq!(annotations["sidecar.istio.io/nativeSidecar"], "true");
        assert_eq!(
            annotations.get("proxy.istio.io/config"),
            None,
            "the hold was its only key: no empty annotation is left"
        );
    }
}

/// A sidecar written in `containers` moves, with its comments and probe, to the end
/// of `initContainers` (after the setup step it may need) with `restartPolicy:
/// Always`; as a native sidecar it also starts before the work (ML101) and outlives
/// it (ML202).
#[test]
fn ml301_moves_a_written_sidecar_to_the_end_of_the_init_containers() {
    let name = "ml301-fire-written-sidecar.yaml";
    let (fixed, read) = fix_unsafe_fixture(name, "ML301");
    insta::assert_snapshot!(name, fixed);
    let path = common::testdata(&format!("rules/{name}"));
    assert_eq!(rules_of(&path, &[]), ["ML101", "ML202", "ML301"]);
    if let Some(object) = read {
        let spec = pod_spec(&object);
        let names = |list: &str| -> Vec<String> {
            spec[list]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["name"].as_str().unwrap().to_owned())
                .collect()
        };
        assert_eq!(names("initContainers"), ["fetch-config", "cloud-sql-proxy"]);
        assert_eq!(names("containers"), ["export"]);
        assert_eq!(spec["initContainers"][1]["restartPolicy"], "Always");
        assert_eq!(
            spec["initContainers"][1]["startupProbe"]["tcpSocket"]["port"],
            5432
        );
    }
}

/// Without native sidecars (Kubernetes 1.28) the mesh's stop call becomes the EXIT
/// trap of the work's script, which already runs curl.
#[test]
fn ml301_sets_the_stop_call_as_the_work_s_exit_trap_without_native_sidecars() {
    let name = "ml301-fire-no-native-sidecars.yaml";
    let (fixed, read) = fix_unsafe_fixture_with(name, "ML301", &["--select", "ML301"]);
    insta::assert_snapshot!(name, fixed);
    if let Some(object) = read {
        assert_eq!(
            pod_spec(&object)["containers"][0]["args"][0],
            "trap 'curl -fsS -X POST http://localhost:15020/quitquitquit' EXIT\ncurl -fsS https://api.example.com/healthz\n./report --month last\n"
        );
    }
}

/// Linkerd's `/shutdown` answers only where the pod enables it (linkerd/linkerd2
/// `pkg/inject/inject.go`: `ProxyAdminShutdownAnnotation` sets
/// `Proxy.EnableShutdownEndpoint`, read as `enabled` or `disabled` only); a script
/// that does not run curl may run in an image without it.
#[test]
fn ml301_wraps_the_work_only_where_the_stop_call_works_and_the_image_has_curl() {
    let dir = tempfile::tempdir().unwrap();
    let istio =
        std::fs::read_to_string(common::testdata("rules/ml301-fire-no-native-sidecars.yaml"))
            .unwrap();
    let linkerd = istio.replace(
        "      labels:\n        sidecar.istio.io/inject: \"true\"",
        "      annotations:\n        linkerd.io/inject: enabled",
    );
    assert_ne!(linkerd, istio);
    let enabled = linkerd.replace(
        "linkerd.io/inject: enabled",
        "linkerd.io/inject: enabled\n        config.linkerd.io/proxy-admin-shutdown: enabled",
    );
    let no_curl = istio.replace("curl -fsS https://api.example.com/healthz\n", "");
    for (text, fix) in [
        (&linkerd, None),
        (&enabled, Some("4191/shutdown")),
        (&no_curl, None),
    ] {
        let path = dir.path().join("job.yaml");
        std::fs::write(&path, text).unwrap();
        let offered = only_fix(&path, &["--kubernetes-version", "1.28"], "ML301");
        let described = offered
            .as_ref()
            .map(|fix| fix["description"].as_str().unwrap());
        match (fix, described) {
            (Some(call), Some(description)) => assert!(description.contains(call), "{description}"),
            (None, None) => {}
            _ => panic!("{text}: {offered:?}"),
        }
    }
}

#[test]
fn ml301_offers_no_fix_where_the_versions_have_no_native_sidecars() {
    // None of these works runs a script the stop call could be set in as a trap.
    for (name, flags) in [
        // The annotation arrived in Istio 1.24.
        ("ml301-fire-cronjob.yaml", &["--istio-version", "1.23"][..]),
        // Native sidecars run from Kubernetes 1.29.
        (
            "ml301-fire-cronjob.yaml",
            &["--kubernetes-version", "1.28"][..],
        ),
        (
            "ml301-fire-linkerd-job.yaml",
            &["--linkerd-version", "2.14"][..],
        ),
        // A mesh proxy written out by its injector: injecting it again in native mode
        // is the remedy, not the classic container moved.
        ("ml301-fire-injected-job.yaml", &[][..]),
        // A written sidecar moves to `initContainers` only where they run natively.
        (
            "ml301-fire-written-sidecar.yaml",
            &["--kubernetes-version", "1.28"][..],
        ),
    ] {
        let path = common::testdata(&format!("rules/{name}"));
        assert_eq!(only_fix(&path, flags, "ML301"), None, "{name} {flags:?}");
    }
}

#[test]
fn ml301_s_native_switch_takes_away_the_wait_linkerd_would_deny_beside_it() {
    // Linkerd 2.15 to 2.19 deny a native proxy with a wait before exit (ML402): the
    // native switch removes the pod's wait with it, so the pod it leaves is created
    // and its proxy stopped after the work.
    const WAIT: &str = "config.alpha.linkerd.io/proxy-wait-before-exit-seconds";
    let dir = tempfile::tempdir().unwrap();
    let path = variant(
        dir.path(),
        "ml301-fire-linkerd-job.yaml",
        "linkerd.io/inject: enabled  # expect: ML202 ML301",
        &format!("linkerd.io/inject: enabled\n        {WAIT}: \"10\""),
    );
    let output = common::cli()
        .args([
            "lint",
            "--linkerd-version",
            "2.18",
            "--fix",
            "--unsafe-fixes",
        ])
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let fixed = std::fs::read_to_string(&path).unwrap();
    assert!(
        fixed.contains("config.alpha.linkerd.io/proxy-enable-native-sidecar: \"true\"")
            && !fixed.contains(WAIT),
        "{fixed}"
    );
    // What the fixed file means, read again: no denial, no finding.
    let (report, status) = common::lint_json(&path, &["--linkerd-version", "2.18"]);
    assert_eq!(status, 0, "{report}");
    assert_eq!(report["findings"], serde_json::json!([]), "{report}");
}

#[test]
fn the_linkerd_wait_is_never_offered_for_a_native_proxy() {
    // 2.18 denies a native proxy with a wait, 2.20 ignores the wait: ML203 on a native
    // proxy gets the app's delay as its help, and no fix.
    let dir = tempfile::tempdir().unwrap();
    let path = variant(
        dir.path(),
        "ml402-silent-linkerd-native-without-wait.yaml",
        "        lifecycle:\n          preStop:\n            sleep: {seconds: 5}\n",
        "",
    );
    for version in ["2.18", "2.20"] {
        let flags = [
            "--linkerd-version",
            version,
            "--app-shutdown",
            "1s",
            "--unsafe-fixes",
        ];
        assert_eq!(only_fix(&path, &flags, "ML203"), None, "{version}");
        let (report, _) = common::lint_json(&path, &flags);
        let help = common::reports::findings(&report, "ML203")[0]["help"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            help.contains("native sidecar") && help.contains("a preStop sleep on the app"),
            "{version}: {help}"
        );
        assert!(!help.contains("proxy-wait-before-exit-seconds"), "{help}");
    }
}

#[test]
fn diff_prints_the_change_writes_nothing_and_exits_1() {
    let (_dir, path) = copy("ml101-fire-inject-label.yaml");
    let before = std::fs::read_to_string(&path).unwrap();
    let output = common::cli()
        .current_dir(path.parent().unwrap())
        .args(["lint", "--diff", "ml101-fire-inject-label.yaml"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    insta::assert_snapshot!(String::from_utf8(output).unwrap());
}

#[test]
fn standard_input_with_fix_prints_the_fixed_stream() {
    let (_dir, path) = copy("ml101-fire-inject-label.yaml");
    let original = std::fs::read_to_string(&path).unwrap();
    let output = common::cli()
        .args(["lint", "--fix", "-"])
        .write_stdin(original.clone())
        .output()
        .unwrap();
    let printed = String::from_utf8(output.stdout).unwrap();
    common::cli()
        .args(["lint", "--fix"])
        .arg(&path)
        .assert()
        .code(predicates::ord::lt(2));
    assert_eq!(printed, std::fs::read_to_string(&path).unwrap());
    assert_ne!(printed, original);
    // ML207 still fires on the fixed stream at its default severity (warning), which
    // does not fail the default gate.
    assert_eq!(output.status.code(), Some(0));
}

/// The findings of `lint --format json` on `path`, run with `flags`: rule and line.
fn findings(path: &Path, flags: &[&str]) -> Vec<(String, u64)> {
    let output = common::cli()
        .args(["lint", "--format", "json"])
        .args(flags)
        .arg(path)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| {
            let rule = finding["ruleId"].as_str().unwrap().to_owned();
            (rule, finding["line"].as_u64().unwrap())
        })
        .collect()
}

#[test]
fn the_report_after_fix_reads_the_files_as_written() {
    // A `List` holding a Service, which the context pass parses before the fixes, and
    // one over a mebibyte, which that pass keeps: the report after `--fix` is of the
    // fixed text, as a plain `lint` of it says.
    let dir = tempfile::tempdir().unwrap();
    let deployment = |name: &str| {
        format!(
            "- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {{name: {name}, namespace: shop}}\n  spec:\n    selector: {{matchLabels: {{app: {name}}}}}\n    template:\n      metadata:\n        labels: {{app: {name}, sidecar.istio.io/inject: \"true\"}}\n      spec:\n        containers:\n        - name: app\n          image: example/web:1.0\n          ports: [{{containerPort: 8000}}]\n"
        )
    };
    let service = "- apiVersion: v1\n  kind: Service\n  metadata: {name: web-0, namespace: shop}\n  spec:\n    selector: {app: web-0}\n    ports: [{port: 80}]\n";
    let small = dir.path().join("small.yaml");
    let small_items = format!("{service}{}", deployment("web-0"));
    let large = dir.path().join("large.yaml");
    let padding = format!("# {}\n", "-".repeat(2000));
    let large_items: String = (0..500)
        .map(|n| padding.clone() + &deployment(&format!("web-{n}")))
        .collect();
    assert!(large_items.len() > 1 << 20);
    for (path, items) in [(&small, small_items), (&large, large_items)] {
        std::fs::write(path, format!("apiVersion: v1\nkind: List\nitems:\n{items}")).unwrap();
        let before = findings(path, &[]);
        let reported = findings(path, &["--fix", "--unsafe-fixes"]);
        assert!(
            reported.len() < before.len(),
            "{}: {reported:?}",
            path.display()
        );
        assert_eq!(reported, findings(path, &[]), "{}", path.display());
    }
}

#[test]
fn a_manifest_with_nothing_to_fix_is_left_as_it_is() {
    let (_dir, path) = copy("ml101-silent-hold-annotation.yaml");
    let before = std::fs::read_to_string(&path).unwrap();
    common::cli()
        .args(["lint", "--fix"])
        .arg(&path)
        .assert()
        .code(predicates::ord::lt(2));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    common::cli()
        .args(["lint", "--diff"])
        .arg(&path)
        .assert()
        .code(0)
        .stdout("");
}

/// The byte offset of a 1-based line and code-point column in `text` (LF line ends).
fn offset_of(text: &str, line: u64, column: u64) -> usize {
    let mut at = 0;
    for _ in 1..line {
        at += text[at..].find('\n').expect("the line exists") + 1;
    }
    text[at..]
        .char_indices()
        .nth(column as usize - 1)
        .map_or(text.len(), |(offset, _)| at + offset)
}

/// A 1-based `(line, column)`.
type Position = (u64, u64);

/// One edit of a machine format: start, exclusive end, replacement text.
type PositionedEdit = (Position, Position, String);

/// `text` with the edits made.
fn apply_positioned(text: &str, mut edits: Vec<PositionedEdit>) -> String {
    edits.sort_by_key(|(start, _, _)| std::cmp::Reverse(*start));
    let mut out = text.to_owned();
    for (start, end, replacement) in edits {
        let range = offset_of(text, start.0, start.1)..offset_of(text, end.0, end.1);
        out.replace_range(range, &replacement);
    }
    out
}

#[test]
fn json_and_sarif_carry_the_edits_that_fix_writes() {
    let (_dir, path) = copy("ml101-fire-inject-label.yaml");
    let original = std::fs::read_to_string(&path).unwrap();
    let (report, _) = common::lint_json(&path, &[]);
    common::validate_lint_json(&report);
    let findings = report["findings"].as_array().unwrap();
    let ml101 = findings.iter().find(|f| f["ruleId"] == "ML101").unwrap();
    let fix = &ml101["fix"];
    assert_eq!(fix["applicability"], "safe");
    assert!(
        fix["description"]
            .as_str()
            .unwrap()
            .contains("holdApplicationUntilProxyStarts")
    );
    let position =
        |p: &serde_json::Value| (p["line"].as_u64().unwrap(), p["column"].as_u64().unwrap());
    let json_edits: Vec<_> = fix["edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|edit| {
            (
                position(&edit["start"]),
                position(&edit["end"]),
                edit["replacement"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    // ML207's preStop delay alone would leave the app serving after `istio-proxy` has
    // exited (a new ML202): it goes with the proxy's drain, and rests on the times.
    let ml207 = findings.iter().find(|f| f["ruleId"] == "ML207").unwrap();
    assert_eq!(ml207["fix"]["applicability"], "unsafe", "{ml207}");
    assert!(
        ml207["fix"]["description"]
            .as_str()
            .unwrap()
            .contains("terminationDrainDuration"),
        "{ml207}"
    );

    let output = common::cli()
        .current_dir(path.parent().unwrap())
        .args(["lint", "--format", "sarif", "ml101-fire-inject-label.yaml"])
        .output()
        .unwrap();
    let log: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    common::validate_sarif(&log);
    let results = log["runs"][0]["results"].as_array().unwrap();
    let result = results.iter().find(|r| r["ruleId"] == "ML101").unwrap();
    let fixes = result["fixes"].as_array().unwrap();
    assert_eq!(fixes.len(), 1);
    assert_eq!(fixes[0]["description"]["text"], fix["description"]);
    assert_eq!(fixes[0]["properties"]["applicability"], "safe");
    let changes = fixes[0]["artifactChanges"].as_array().unwrap();
    assert_eq!(changes.len(), 1);
    assert_eq!(
        changes[0]["artifactLocation"]["uri"],
        "ml101-fire-inject-label.yaml"
    );
    let sarif_edits: Vec<_> = changes[0]["replacements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|replacement| {
            let region = &replacement["deletedRegion"];
            (
                (
                    region["startLine"].as_u64().unwrap(),
                    region["startColumn"].as_u64().unwrap(),
                ),
                (
                    region["endLine"].as_u64().unwrap(),
                    region["endColumn"].as_u64().unwrap(),
                ),
                replacement["insertedContent"]["text"]
                    .as_str()
                    .unwrap_or("")
                    .to_owned(),
            )
        })
        .collect();
    assert_eq!(sarif_edits, json_edits);
    let paired = results.iter().find(|r| r["ruleId"] == "ML207").unwrap();
    assert_eq!(
        paired["fixes"][0]["properties"]["applicability"], "unsafe",
        "{paired}"
    );

    // Made by hand, the edits give exactly the file `--fix` writes.
    let by_hand = apply_positioned(&original, json_edits);
    common::cli()
        .args(["lint", "--fix"])
        .arg(&path)
        .assert()
        .code(predicates::ord::lt(2));
    assert_eq!(by_hand, std::fs::read_to_string(&path).unwrap());
    assert_ne!(by_hand, original);
}

/// Standard input fixed onto standard output is the input itself outside the fixes,
/// whatever separates its documents: it is cut into documents to be read, and printed
/// back from them.
#[test]
fn standard_input_is_printed_back_byte_for_byte_around_the_fixes() {
    let fixture =
        std::fs::read_to_string(common::testdata("rules/ml101-fire-inject-label.yaml")).unwrap();
    let second = fixture.replace("name: web\n", "name: web2\n");
    for separator in [
        "---\n",
        "--- # the next one\n",
        "\n\n---   \n",
        "...\n---\n",
        "---\n---\n",
    ] {
        for last_break in [true, false] {
            let mut text = format!("---\n{fixture}{separator}{second}");
            if !last_break {
                text.pop();
            }
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("stream.yaml");
            std::fs::write(&path, &text).unwrap();
            common::cli()
                .args(["lint", "--fix"])
                .arg(&path)
                .assert()
                .code(predicates::ord::lt(2));
            let written = std::fs::read_to_string(&path).unwrap();
            assert_eq!(
                written.matches("holdApplicationUntilProxyStarts").count(),
                2
            );
            let output = common::cli()
                .args(["lint", "--fix", "-"])
                .write_stdin(text.clone())
                .output()
                .unwrap();
            assert_eq!(
                String::from_utf8(output.stdout).unwrap(),
                written,
                "separator {separator:?}, last line break {last_break}"
            );
        }
    }
}

/// A document of standard input that could not be read has no text left to print:
/// nothing is printed, the error is reported, and the exit status says so.
#[test]
fn standard_input_with_an_unreadable_document_is_not_printed_half() {
    let fixture =
        std::fs::read_to_string(common::testdata("rules/ml101-fire-inject-label.yaml")).unwrap();
    let text = format!("{fixture}---\nbig: '{}'\n---\n{fixture}", "x".repeat(3000));
    let output = common::cli()
        .args(["lint", "--fix", "--max-document-size", "1000", "-"])
        .write_stdin(text)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("document larger than 1000 bytes"),
        "{stderr}"
    );
}

// ML403, ML101 on a written proxy, and the diff's headers.

#[test]
fn ml403_removes_the_redundant_gate() {
    let name = "ml403-fire-hold-with-native-istio.yaml";
    let (fixed, read) = fix_fixture(name, "ML403", &[]);
    insta::assert_snapshot!(name, fixed);
    if let Some(object) = read {
        // The annotation's only key is gone, and with it the annotation and the
        // `annotations:` that held nothing else.
        assert_eq!(
            object["spec"]["template"]["metadata"].get("annotations"),
            None,
            "{object}"
        );
    }
    let name = "ml403-fire-linkerd-await-on-native.yaml";
    let (fixed, read) = fix_fixture(name, "ML403", &[]);
    insta::assert_snapshot!(name, fixed);
    if let Some(object) = read {
        let proxy = &pod_spec(&object)["initContainers"][1];
        assert_eq!(proxy["name"], "linkerd-proxy");
        assert_eq!(proxy.get("lifecycle"), None, "no `lifecycle: {{}}` is left");
        assert!(
            proxy["startupProbe"].is_object(),
            "the probe still holds the app"
        );
    }
}

/// Inside a JSON `proxy.istio.io/config` only the hold goes: the other keys, and the
/// annotation's JSON form and quoting, stay.
#[test]
fn ml403_removes_the_hold_from_a_json_config_in_its_own_format() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("web.yaml");
    let manifest = |config: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    \
             matchLabels: {{app: web}}\n  template:\n    metadata:\n      labels:\n        app: web\n        \
             sidecar.istio.io/inject: \"true\"\n      annotations:\n        \
             proxy.istio.io/config: '{config}'\n    spec:\n      containers:\n      - name: web\n        \
             image: example/web:1.0.0\n"
        )
    };
    std::fs::write(
        &path,
        manifest(r#"{"holdApplicationUntilProxyStarts": true, "concurrency": 2}"#),
    )
    .unwrap();
    let flags = ["--kubernetes-version", "1.33", "--istio-version", "1.28"];
    let flags_owned: Vec<String> = flags.iter().map(|f| (*f).to_owned()).collect();
    assert!(rules_of(&path, &flags_owned).iter().any(|r| r == "ML403"));
    common::cli()
        .arg("lint")
        .args(flags)
        .arg("--fix")
        .arg(&path)
        .assert()
        .code(predicates::ord::lt(2));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        manifest(r#"{"concurrency": 2}"#)
    );
    assert!(!rules_of(&path, &flags_owned).iter().any(|r| r == "ML403"));
    if let Some(object) = common::kubectl_reads(&path) {
        assert_eq!(
            object["spec"]["template"]["metadata"]["annotations"]["proxy.istio.io/config"],
            r#"{"concurrency": 2}"#
        );
    }
}

/// A hold that native sidecars ignore, set in the mesh's configuration rather than in
/// the manifest, is reported but not fixed: there is nothing in the file to remove.
#[test]
fn ml403_offers_no_fix_for_a_hold_outside_the_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("web.yaml");
    std::fs::write(
        &path,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels:\n    sidecar.istio.io/inject: \"true\"\n\
         spec:\n  containers:\n  - name: web\n    image: example/web:1.0.0\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join(".mesh-lifecycle.yaml"),
        "kubernetesVersion: \"1.33\"\nistio:\n  version: \"1.28\"\n  holdApplicationUntilProxyStarts: true\n",
    )
    .unwrap();
    let output = common::cli()
        .current_dir(dir.path())
        .args(["lint", "--format", "json", "web.yaml"])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let found = common::reports::findings(&report, "ML403");
    assert_eq!(found.len(), 1, "{report:#}");
    assert!(found[0].get("fix").is_none(), "{report:#}");
}

/// An injected pod saved with its proxy: the hold settings (`proxy-await`,
/// `holdApplicationUntilProxyStarts`) are read by the injector, which has already run,
/// so setting them would not hold the app (and ML102 would report them). ML101 offers
/// no fix there, its help says what to do instead, and `--fix` drops none.
#[test]
fn ml101_offers_no_injector_setting_for_a_proxy_written_in_the_manifest() {
    let original = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ledger\nspec:\n  \
        selector:\n    matchLabels: {app: ledger}\n  template:\n    metadata:\n      labels:\n        \
        app: ledger\n        linkerd.io/control-plane-ns: linkerd\n      annotations:\n        \
        linkerd.io/inject: enabled\n        linkerd.io/proxy-version: stable-2.14.10\n    spec:\n      \
        initContainers:\n      - name: linkerd-init\n        image: cr.l5d.io/linkerd/proxy-init:v2.2.3\n        \
        args: [--incoming-proxy-port, \"4143\", --outgoing-proxy-port, \"4140\", --proxy-uid, \"2102\"]\n      \
        containers:\n      - name: linkerd-proxy\n        image: cr.l5d.io/linkerd/proxy:stable-2.14.10\n        \
        readinessProbe:\n          httpGet: {path: /ready, port: 4191}\n      - name: ledger\n        \
        image: example/ledger:6.0.3\n";
    assert_ml101_has_no_fix(original);
    let istio = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  annotations:\n    \
        sidecar.istio.io/status: '{\"containers\":[\"istio-proxy\"]}'\nspec:\n  containers:\n  \
        - name: web\n    image: example/web:1.0.0\n  - name: istio-proxy\n    \
        image: docker.io/istio/proxyv2:1.24.0\n    args: [proxy, sidecar]\n    readinessProbe:\n      \
        httpGet: {path: /healthz/ready, port: 15021}\n";
    assert_ml101_has_no_fix(istio);
}

/// `original` fires ML101 without a fix, and `--fix` leaves it as it is.
fn assert_ml101_has_no_fix(original: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pod.yaml");
    std::fs::write(&path, original).unwrap();
    let (report, _) = common::lint_json(&path, &[]);
    let found = common::reports::findings(&report, "ML101");
    assert_eq!(found.len(), 1, "{report:#}");
    assert!(found[0].get("fix").is_none(), "{report:#}");
    assert!(
        found[0]["help"]
            .as_str()
            .unwrap()
            .contains("written in the manifest"),
        "{report:#}"
    );
    let output = common::cli()
        .args(["lint", "--fix"])
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(!stderr.contains("dropped"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
}

/// The diff names a file as `git apply` run in the current directory expects it:
/// `a/` and `b/` before the path relative to it, however the path was given; a file
/// outside it by its absolute path after the prefix, as `git diff --no-index` writes
/// it; standard input by `--stdin-filename`, or `-`.
#[test]
fn diff_headers_name_the_file_relative_to_the_current_directory() {
    let (dir, path) = copy("ml101-fire-inject-label.yaml");
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let headers = |cwd: &Path, args: &[&std::ffi::OsStr], stdin: Option<String>| {
        let mut command = common::cli();
        command.current_dir(cwd).args(["lint", "--diff"]).args(args);
        if let Some(stdin) = stdin {
            command.write_stdin(stdin);
        }
        let output = command.output().unwrap();
        assert_eq!(output.status.code(), Some(1));
        String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .take(2)
            .collect::<Vec<_>>()
            .join("\n")
    };
    let name = "ml101-fire-inject-label.yaml";
    let relative = format!("--- a/{name}\n+++ b/{name}");
    assert_eq!(headers(dir.path(), &[name.as_ref()], None), relative);
    assert_eq!(
        headers(dir.path(), &[format!("./{name}").as_ref()], None),
        relative
    );
    assert_eq!(headers(dir.path(), &[path.as_os_str()], None), relative);
    let absolute = path.to_str().unwrap().trim_start_matches('/').to_owned();
    assert_eq!(
        headers(&sub, &[format!("../{name}").as_ref()], None),
        format!("--- a/{absolute}\n+++ b/{absolute}")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        headers(dir.path(), &["-".as_ref()], Some(text.clone())),
        "--- a/-\n+++ b/-"
    );
    assert_eq!(
        headers(
            dir.path(),
            &[
                "--stdin-filename".as_ref(),
                "deploy/web.yaml".as_ref(),
                "-".as_ref()
            ],
            Some(text)
        ),
        "--- a/deploy/web.yaml\n+++ b/deploy/web.yaml"
    );
}

// Fixes that never make the pod worse, and edits that drop nothing.

/// The operator's comments inside the hook ML209 rewrites are kept, every line of
/// them.
#[test]
fn ml209_keeps_the_comments_inside_the_hook_it_rewrites() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("consumer.yaml");
    let original =
        std::fs::read_to_string(common::testdata("fixes/ml209-comments-inside.yaml")).unwrap();
    std::fs::write(&path, &original).unwrap();
    common::cli()
        .args(["lint", "--fix", "--kubernetes-version", "1.28"])
        .arg(&path)
        .assert()
        .code(0);
    let fixed = std::fs::read_to_string(&path).unwrap();
    for line in original.lines().filter(|line| line.contains('#')) {
        let comment = &line[line.find('#').unwrap()..];
        assert!(fixed.contains(comment), "`{comment}` was lost:\n{fixed}");
    }
    insta::assert_snapshot!("ml209-comments-inside.yaml", fixed);
    if let Some(object) = common::kubectl_reads(&path) {
        assert_eq!(
            pod_spec(&object)["containers"][0]["lifecycle"]["preStop"],
            serde_json::json!({"exec": {"command": ["sleep", "10"]}})
        );
    }
}

/// ML207's delay on a Linkerd pod, whose proxy stops on SIGTERM, would alone double
/// the time the app serves without it (ML202): the fix goes with the proxy's own wait
/// (`proxy-wait-before-exit-seconds`) until the delayed app has exited, so that both
/// clear, with or without `--select ML207` (rules outside the selection are weighed
/// all the same). It rests on the assumed times: unsafe, and its title says so.
#[test]
fn ml207_goes_with_the_proxy_s_own_wait() {
    const FIXTURE: &str = "fixes/linkerd-ml207.yaml";
    let (report, _) = common::lint_json(&common::testdata(FIXTURE), &[]);
    let ml207 = common::reports::findings(&report, "ML207");
    assert_eq!(ml207.len(), 1, "{report}");
    let fix = &ml207[0]["fix"];
    assert_eq!(fix["applicability"], "unsafe", "{fix}");
    assert!(
        fix["description"]
            .as_str()
            .unwrap()
            .contains("endpoints are removed in 5 s"),
        "{fix}"
    );
    let replacements: Vec<&str> = fix["edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|edit| edit["replacement"].as_str().unwrap())
        .collect();
    assert!(
        replacements
            .iter()
            .any(|r| r.contains("proxy-wait-before-exit-seconds: \"20\""))
            && replacements.iter().any(|r| r.contains("seconds: 10")),
        "{fix}"
    );
    for select in [&[][..], &["--select", "ML207"][..]] {
        let mut flags = vec!["--unsafe-fixes"];
        flags.extend(select);
        let fixed = common::fixing::fix_fixture(FIXTURE, "ML207", &flags);
        assert!(
            fixed.text.contains("preStop:")
                && fixed.text.contains("proxy-wait-before-exit-seconds"),
            "{select:?}: {}",
            fixed.text
        );
    }
}

/// `--select` limits what is reported and fixed, not what is weighed: with
/// `--select ML101`, ML101 is fixed and ML207, outside the selection, is neither
/// reported nor fixed.
#[test]
fn select_with_fix_fixes_the_selected_rules_only() {
    let (_dir, path) = copy("ml101-fire-inject-label.yaml");
    let output = common::cli()
        .args([
            "lint",
            "--fix",
            "--unsafe-fixes",
            "--select",
            "ML101",
            "--format",
            "json",
        ])
        .arg(&path)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["summary"]["fixes"]["fixed"], 1, "{report}");
    assert!(
        report["findings"].as_array().unwrap().is_empty(),
        "{report}"
    );
    let all = rules_of(&path, &[]);
    assert!(all.contains(&"ML207".to_owned()), "{all:?}");
    assert!(!all.contains(&"ML101".to_owned()), "{all:?}");
}

/// `fixable:` and `unfixable:` in the config file, as ruff's: an unfixable rule is
/// reported without a fix, and `--fix` leaves it.
#[test]
fn unfixable_rules_are_reported_without_a_fix() {
    let (dir, path) = copy("ml101-fire-inject-label.yaml");
    let config = dir.path().join(".mesh-lifecycle.yaml");
    std::fs::write(&config, "unfixable: [app-starts-before-proxy]\n").unwrap();
    let config_flag = ["--config".to_owned(), config.display().to_string()];
    let flags: Vec<&str> = config_flag.iter().map(String::as_str).collect();
    let (report, _) = common::lint_json(&path, &flags);
    assert_eq!(
        common::reports::findings(&report, "ML101")[0].get("fix"),
        None,
        "{report}"
    );
    let before = std::fs::read_to_string(&path).unwrap();
    common::cli()
        .args(["lint", "--fix"])
        .args(&flags)
        .arg(&path)
        .assert()
        .code(0);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    std::fs::write(&config, "fixable: [ML207]\n").unwrap();
    let (report, _) = common::lint_json(&path, &flags);
    assert_eq!(
        common::reports::findings(&report, "ML101")[0].get("fix"),
        None,
        "{report}"
    );
    std::fs::write(&config, "fixable: [ALL]\nunfixable: [ML999]\n").unwrap();
    let output = common::cli()
        .args(["lint"])
        .args(&flags)
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("unknown rule `ML999`"),
        "{output:?}"
    );
}

/// ruff's marks and summary: `[*]` on a finding `--fix` fixes, and how many it would
/// fix with and without `--unsafe-fixes`; `--show-fixes` shows each fix under its
/// finding.
#[test]
fn fixable_findings_are_marked_and_counted() {
    // ML201's grace period rests on the app's assumed shutdown time: an unsafe fix.
    let path = common::testdata("rules/ml201-fire-assumed-app-shutdown.yaml");
    let human = |flags: &[&str]| {
        let output = common::cli()
            .env("COLUMNS", "120")
            .args(["lint", "--color", "never"])
            .args(flags)
            .arg(&path)
            .output()
            .unwrap();
        String::from_utf8(output.stdout).unwrap()
    };
    let plain = human(&[]);
    assert!(plain.contains("ML201(grace-period-exceeded)\n"), "{plain}");
    assert!(
        plain.contains("No fixes available with `--fix` (1 with `--unsafe-fixes`)."),
        "{plain}"
    );
    let with_unsafe = human(&["--unsafe-fixes", "--show-fixes"]);
    assert!(
        with_unsafe.contains("ML201(grace-period-exceeded) [*]"),
        "{with_unsafe}"
    );
    assert!(
        with_unsafe.contains("[*] 1 fixable with `--fix`."),
        "{with_unsafe}"
    );
    assert!(
        with_unsafe.contains("Unsafe fix: raise `terminationGracePeriodSeconds` to 10 s (5 s needed plus 5 s headroom)")
            && with_unsafe.contains("it assumes `web` exits 5 s after SIGTERM")
            && with_unsafe.contains("16       │ -       terminationGracePeriodSeconds: 1\n")
            && with_unsafe.contains("16 │ +       terminationGracePeriodSeconds: 10"),
        "{with_unsafe}"
    );
}

#[test]
fn consul_s_dataplane_stays_by_its_lifecycle_s_grace_period() {
    // With the proxy lifecycle off the dataplane quits on SIGTERM (ML202, ML203); its
    // one remedy is the lifecycle's shutdown grace period, turned on with it, which
    // the injector reads from the pod's annotations (docs/lifecycle.md §5.2).
    const LIFECYCLE: &str = "consul.hashicorp.com/enable-sidecar-proxy-lifecycle";
    const GRACE: &str =
        "consul.hashicorp.com/sidecar-proxy-lifecycle-shutdown-grace-period-seconds";
    // One fix for both, checked as every fix is: each rule gone, nothing new or worse
    // (ML207's delay, whose fix goes with a longer grace period, is left out).
    for rule in ["ML202", "ML203"] {
        let fixed = common::fixing::fix_fixture(
            "rules/ml203-fire-consul-lifecycle-off.yaml",
            rule,
            &["--unsafe-fixes", "--select", "ML202,ML203"],
        );
        assert!(
            fixed.text.contains(&format!("{LIFECYCLE}: \"true\""))
                && fixed.text.contains(&format!("{GRACE}: \"10\"")),
            "{}",
            fixed.text
        );
    }
}

#[test]
fn kuma_s_classic_sidecar_is_held_by_its_own_wait_for_the_dataplane() {
    // Before Kubernetes 1.29 Kuma injects a classic sidecar and the app starts with it
    // (ML101). Its own hold, `kuma.io/wait-for-dataplane-ready`, has the injector put
    // the sidecar first with a postStart `kuma-dp wait` (docs/lifecycle.md §5.3): the
    // help names it and the safe fix sets it, checked as every fix is.
    const WAIT: &str = "kuma.io/wait-for-dataplane-ready";
    let fixture = "rules/ml201-fire-kuma-classic-drain-time.yaml";
    let report = common::lint_json(
        &common::testdata(fixture),
        &["--kubernetes-version", "1.28"],
    )
    .0;
    let ml101 = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|finding| finding["ruleId"] == "ML101")
        .unwrap_or_else(|| panic!("{report}"));
    let help = ml101["help"].as_str().unwrap();
    assert!(help.contains(&format!("{WAIT}: \"true\"")), "{help}");
    assert!(!help.contains("poll its readiness"), "{help}");
    assert_eq!(ml101["fix"]["applicability"], "safe", "{ml101}");

    let fixed = common::fixing::fix_fixture(fixture, "ML101", &[]);
    assert!(
        fixed.text.contains(&format!("{WAIT}: \"true\"")),
        "{}",
        fixed.text
    );
}

/// ML404 and ML101 fixed in one run on a pod template whose metadata holds only the
/// opt-in annotation: `metadata:` stays a block (not `metadata: {labels: {…}}`), the
/// hold is a literal block, the script's literal block is untouched, and the moved
/// comment keeps the spaces that align it.
#[test]
fn ml404_on_a_template_of_one_annotation_keeps_the_blocks_and_the_comments() {
    let fixed = common::fixing::fix_fixture(
        "fixes/ml404-template-annotation-only.yaml",
        "ML404",
        &["--unsafe-fixes"],
    );
    let original = std::fs::read_to_string(common::testdata(
        "fixes/ml404-template-annotation-only.yaml",
    ))
    .unwrap();
    let expected = original.replace(
        "      annotations:\n        sidecar.istio.io/inject: \"true\"    # the mesh, per pod\n",
        "      labels:\n        sidecar.istio.io/inject: \"true\"    # the mesh, per pod\n      annotations:\n        proxy.istio.io/config: |\n          holdApplicationUntilProxyStarts: true\n",
    );
    assert_ne!(expected, original);
    assert_eq!(fixed.text, expected);
}

/// The lines a run ends with, on standard error.
fn stderr_of(args: &[&str], path: &Path) -> String {
    let output = common::cli()
        .arg("lint")
        .args(args)
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `--diff` and `--fix-only` say how many unsafe fixes a run without `--unsafe-fixes`
/// leaves, as ruff does; with it, they are made and nothing is said.
#[test]
fn diff_and_fix_only_name_the_unsafe_fixes_left() {
    // ML201's grace period rests on the app's assumed shutdown time: unsafe.
    let (_dir, path) = copy("ml201-fire-assumed-app-shutdown.yaml");
    let hidden = "(1 hidden fix can be enabled with the `--unsafe-fixes` option).\n";
    assert!(
        stderr_of(&["--diff"], &path).ends_with(&format!("Would fix 0 findings {hidden}")),
        "{}",
        stderr_of(&["--diff"], &path)
    );
    let unsafe_diff = stderr_of(&["--diff", "--unsafe-fixes"], &path);
    assert!(
        unsafe_diff.ends_with("Would fix 1 finding.\n"),
        "{unsafe_diff}"
    );
    assert!(
        stderr_of(&["--fix-only"], &path).ends_with(&format!("Fixed 0 findings {hidden}")),
        "{}",
        stderr_of(&["--fix-only"], &path)
    );
}

/// "Would fix N" counts what `--fix` writes: the fixes of a Helm-rendered document
/// are in the diff but counted apart, and `--fix` writes none of them.
#[test]
fn would_fix_counts_what_fix_writes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rendered.yaml");
    std::fs::copy(common::testdata("fixes/helm-rendered.yaml"), &path).unwrap();
    let diff = stderr_of(&["--diff"], &path);
    assert!(
        diff.starts_with("Would fix 0 findings; 1 more in the diff in rendered"),
        "{diff}"
    );
    let (report, _) = common::lint_json(&path, &["--fix"]);
    assert_eq!(report["summary"]["fixes"]["fixed"], 0, "{report}");
}

/// After `--fix`, "Found" counts every finding there was, those another finding's fix
/// cleared with it among the fixed (ruff's "Found N errors (M fixed, K remaining)").
#[test]
fn the_found_total_counts_the_findings_a_fix_cleared_with_it() {
    let (_dir, path) = copy("ml301-fire-written-sidecar.yaml");
    let (report, _) = common::lint_json(&path, &[]);
    let summary = &report["summary"];
    let before = ["errors", "warnings", "infos"]
        .iter()
        .map(|key| summary[key].as_u64().unwrap())
        .sum::<u64>();
    assert!(before > 1, "{summary}");
    let errors = stderr_of(&["--fix", "--unsafe-fixes", "-q"], &path);
    assert!(
        errors.contains(&format!(
            "Found {before} findings ({before} fixed, 0 remaining)."
        )),
        "{errors}"
    );
}

/// `--fix` on standard input reports the stream it printed: no fix it made is offered
/// again as "fixable with `--fix`".
#[test]
fn fixed_standard_input_offers_no_fix_it_made() {
    let text =
        std::fs::read_to_string(common::testdata("rules/ml101-fire-inject-label.yaml")).unwrap();
    let output = common::cli()
        .args(["lint", "--fix", "-"])
        .write_stdin(text.clone())
        .output()
        .unwrap();
    let errors = String::from_utf8_lossy(&output.stderr);
    assert_ne!(String::from_utf8_lossy(&output.stdout), text);
    assert!(!errors.contains("fixable with `--fix`"), "{errors}");
    assert!(errors.contains("(1 fixed, "), "{errors}");
}

/// The diff `--diff` prints applies with `patch`: `-p1` with git's `a/` and `b/`
/// prefixes, `-p0` with `--no-prefix`, in the directory the paths are relative to.
#[test]
fn the_diff_applies_with_patch() {
    if common::tools::program("patch").is_none() {
        return;
    }
    let fixture = "fixes/ml404-template-annotation-only.yaml";
    let original = std::fs::read_to_string(common::testdata(fixture)).unwrap();
    for (flags, strip) in [(&[][..], "-p1"), (&["--no-prefix"][..], "-p0")] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("deploy")).unwrap();
        let path = dir.path().join("deploy/web.yaml");
        std::fs::write(&path, &original).unwrap();
        let fixed_dir = tempfile::tempdir().unwrap();
        let fixed = fixed_dir.path().join("web.yaml");
        std::fs::write(&fixed, &original).unwrap();
        common::cli()
            .args(["lint", "--fix", "--unsafe-fixes"])
            .arg(&fixed)
            .assert()
            .code(predicates::ord::lt(2));
        let diff = common::cli()
            .current_dir(dir.path())
            .args(["lint", "--diff", "--unsafe-fixes"])
            .args(flags)
            .arg("deploy/web.yaml")
            .output()
            .unwrap();
        assert_eq!(diff.status.code(), Some(1), "{diff:?}");
        let applied = std::process::Command::new(common::tools::path_of("patch"))
            .current_dir(dir.path())
            .args([strip, "--batch", "--silent"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child.stdin.take().unwrap().write_all(&diff.stdout)?;
                child.wait()
            })
            .unwrap();
        assert!(
            applied.success(),
            "patch {strip} failed on:\n{}",
            String::from_utf8_lossy(&diff.stdout)
        );
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            std::fs::read_to_string(&fixed).unwrap(),
            "{flags:?}"
        );
    }
}
