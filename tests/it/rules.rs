//! Every rule fixture in `testdata/rules/` produces exactly the findings its
//! `# expect:` comments name, at those lines, and nothing else; their messages and help
//! end with their last word.

use crate::common;

use common::{expectations, lint_json, profile_flags, rule_lines, testdata};

fn fixtures() -> Vec<std::path::PathBuf> {
    common::rule_fixtures()
}

#[test]
fn every_fixture_yields_exactly_its_expected_findings() {
    let mut failures = Vec::new();
    for path in fixtures() {
        let text = std::fs::read_to_string(&path).unwrap();
        let flags = profile_flags(&text);
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        let (report, status) = lint_json(&path, &flags);
        let expected = expectations(&text);
        let found = rule_lines(&report);
        if found != expected {
            failures.push(format!(
                "{}:\n  expected {expected:?}\n  found    {found:?}\n  messages: {}",
                path.file_name().unwrap().to_string_lossy(),
                common::messages(&report, "            ")
            ));
        }
        // Help and messages end with their last word: a stray line break shows as a
        // blank line in the terminal and in every editor that shows the help.
        for finding in report["findings"].as_array().unwrap() {
            for field in ["message", "help"] {
                let text = finding[field].as_str().unwrap_or_default();
                if text.trim() != text {
                    failures.push(format!(
                        "{}: {} {field} has blank space at an end: {text:?}",
                        path.display(),
                        finding["ruleId"]
                    ));
                }
            }
        }
        let errors = report["summary"]["errors"].as_u64().unwrap();
        let expected_status = if errors > 0 { 1 } else { 0 };
        if status != expected_status {
            failures.push(format!(
                "{}: exit status {status}, expected {expected_status}",
                path.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_rule_has_fixtures_that_fire_and_that_stay_silent() {
    let names: Vec<String> = fixtures()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for rule in mesh_lifecycle::rules::RULES {
        let id = rule.meta().id.to_lowercase();
        let fire = names
            .iter()
            .filter(|n| n.starts_with(&format!("{id}-fire-")))
            .count();
        let silent = names
            .iter()
            .filter(|n| n.starts_with(&format!("{id}-silent-")))
            .count();
        assert!(fire >= 2, "{id} has {fire} firing fixtures");
        assert!(silent >= 2, "{id} has {silent} silent fixtures");
    }
}

#[test]
fn app_starts_before_proxy_is_an_error_in_jobs() {
    let (report, _) = lint_json(
        &testdata("rules/ml101-fire-job.yaml"),
        &["--istio-version", "1.26"],
    );
    let ml101 = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["ruleId"] == "ML101")
        .expect("ML101 fires");
    assert_eq!(ml101["severity"], "error");
    // A Deployment's start-up loss is a warning; this app's calls out are not shown,
    // so by default it is lowered to info, and counted in full on request.
    let inject_label = testdata("rules/ml101-fire-inject-label.yaml");
    let (report, _) = lint_json(&inject_label, &[]);
    assert_eq!(report["findings"][0]["severity"], "info");
    let (report, _) = lint_json(&inject_label, &["--assumed-losses", "full"]);
    assert_eq!(report["findings"][0]["severity"], "warning");
}

#[test]
fn a_linkerd_pod_gets_linkerd_advice_only() {
    // Regression: ML102 gave an injected Linkerd pod Istio's fix (`pilot-agent wait`,
    // Helm `global.proxy.lifecycle`). Every finding's text comes from the pod's mesh.
    let path = testdata("rules/ml102-fire-linkerd-await-missing.yaml");
    let (report, _) = lint_json(&path, &[]);
    let findings = report["findings"].as_array().unwrap();
    let gate = findings
        .iter()
        .find(|f| f["ruleId"] == "ML102")
        .expect("ML102 fires");
    assert!(
        gate["help"].as_str().unwrap().contains("linkerd-await"),
        "{gate}"
    );
    for finding in findings {
        let text = format!("{} {}", finding["message"], finding["help"]);
        for istio in ["pilot-agent", "global.proxy.lifecycle", "istio", "15020"] {
            assert!(!text.contains(istio), "Istio text `{istio}` in: {text}");
        }
    }
}

#[test]
fn no_mesh_gets_another_mesh_s_text() {
    // Every finding's words come from the pod's own mesh: a Linkerd pod's stop call is
    // worded with Linkerd's annotation and never Istio's, an Istio pod's never Linkerd's.
    let cases = [
        (
            "rules/ml304-fire-linkerd-shutdown-disabled.yaml",
            "config.linkerd.io/proxy-admin-shutdown",
            ["pilot-agent", "istio", "15020", "terminationDrainDuration"],
        ),
        (
            "rules/ml304-fire-get-to-pilot-agent.yaml",
            "pilot-agent",
            ["linkerd", "4191", "proxy-admin-shutdown", "/shutdown"],
        ),
    ];
    for (fixture, own, foreign) in cases {
        let (report, _) = lint_json(&testdata(fixture), &[]);
        let findings = report["findings"].as_array().unwrap();
        let texts: Vec<String> = findings
            .iter()
            .map(|f| format!("{} {}", f["message"], f["help"]))
            .collect();
        assert!(
            texts.iter().any(|t| t.contains(own)),
            "{fixture}: no finding names `{own}`: {texts:?}"
        );
        for text in &texts {
            for word in foreign {
                assert!(
                    !text.to_lowercase().contains(word),
                    "{fixture}: `{word}` in: {text}"
                );
            }
        }
    }
}

#[test]
fn a_proxy_written_in_the_manifest_gets_no_injector_setting_for_its_shutdown() {
    // Linkerd's injector renders the proxy's preStop from
    // `config.alpha.linkerd.io/proxy-wait-before-exit-seconds` only when it adds the
    // proxy (linkerd/linkerd2 charts/partials/templates/_proxy.tpl, `preStop: exec:
    // /bin/sleep`); once the proxy is in the manifest the annotation does nothing, so
    // ML202 and ML203 name the preStop to write on the proxy itself.
    let injected = testdata(
        "corpus/linkerd-inject/linkerd2-b24cd40/inject_emojivoto_already_injected.input.yml",
    );
    let (report, _) = lint_json(&injected, &[]);
    let findings: Vec<&serde_json::Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["ruleId"] == "ML202" || f["ruleId"] == "ML203")
        .collect();
    assert!(
        findings.iter().any(|f| f["ruleId"] == "ML202")
            && findings.iter().any(|f| f["ruleId"] == "ML203"),
        "{findings:?}"
    );
    for finding in &findings {
        let help = finding["help"].as_str().unwrap();
        assert!(
            help.contains("- name: linkerd-proxy\n    lifecycle:\n      preStop:")
                && help.contains("command: [/bin/sleep,"),
            "{help}"
        );
        assert!(
            !help.starts_with("delay the proxy's shutdown past the app's: config.alpha")
                && !help.contains("proxy-wait-before-exit-seconds: \""),
            "{help}"
        );
    }
    // A pod the injector has yet to inject is still told the annotation, at the value
    // that clears ML202 and ML203 together.
    let (report, _) = lint_json(
        &testdata("rules/ml202-fire-linkerd-no-wait-before-exit.yaml"),
        &[],
    );
    let ml203 = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["ruleId"] == "ML203")
        .expect("ML203 fires");
    assert!(
        ml203["help"]
            .as_str()
            .unwrap()
            // The one value that also clears ML202: the app's exit at 15 s, and the
            // fixes' 5 s of headroom.
            .contains("config.alpha.linkerd.io/proxy-wait-before-exit-seconds: \"20\""),
        "{ml203}"
    );
}

/// The severity and premises of the one finding of `rule` in the fixture `name`.
fn graded(name: &str, rule: &str, args: &[&str]) -> (String, Vec<String>) {
    let (report, _) = lint_json(&testdata(&format!("rules/{name}")), args);
    let finding = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["ruleId"] == rule)
        .unwrap_or_else(|| panic!("{rule} fires on {name}: {report}"));
    let premises = finding["evidence"]["premises"]
        .as_array()
        .expect("every finding carries its evidence")
        .iter()
        .map(|p| p["kind"].as_str().unwrap().to_owned())
        .collect();
    (finding["severity"].as_str().unwrap().to_owned(), premises)
}

#[test]
fn a_proxy_gone_before_the_app_is_an_error_only_where_the_app_is_seen_to_call_out() {
    let version = ["--istio-version", "1.26"];
    for fixture in [
        "ml202-fire-frontend-fans-out.yaml",
        "ml202-fire-loadgenerator.yaml",
    ] {
        let (severity, premises) = graded(fixture, "ML202", &version);
        assert_eq!(
            (severity.as_str(), premises.len()),
            ("error", 0),
            "{fixture}"
        );
    }
    // Apps that only answer (a static nginx, an Envoy with only direct responses, a
    // gRPC adder, Knative's event_display): information, naming the premise.
    for fixture in [
        "ml202-fire-static-nginx-info.yaml",
        "ml202-fire-envoy-direct-response-info.yaml",
        "ml202-fire-adder-server-info.yaml",
        "ml202-fire-event-display-info.yaml",
    ] {
        let (severity, premises) = graded(fixture, "ML202", &version);
        assert_eq!(
            (severity.as_str(), premises),
            ("info", vec!["callsOut".to_owned()]),
            "{fixture}"
        );
    }
    // Counted in full on request.
    let full = ["--istio-version", "1.26", "--assumed-losses", "full"];
    let (severity, _) = graded("ml202-fire-static-nginx-info.yaml", "ML202", &full);
    assert_eq!(severity, "error");
    // An unknown Istio release could inject a native sidecar: the verdict rests on it.
    let (severity, premises) = graded("ml202-fire-frontend-fans-out.yaml", "ML202", &[]);
    assert_eq!(
        (severity.as_str(), premises),
        ("warning", vec!["plan".to_owned()])
    );
}

#[test]
fn an_unknown_release_is_a_premise_only_where_the_newest_release_reads_the_pod_otherwise() {
    // A proxy preStop plus its drain past the grace period: the same overrun whether
    // the release injects a classic or a native proxy, so the unknown release is no
    // premise and the finding keeps its error, with the fact that says why.
    let (report, _) = lint_json(&testdata("rules/ml201-fire-prestop-plus-drain.yaml"), &[]);
    let ml201 = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["ruleId"] == "ML201")
        .expect("ML201 fires");
    assert_eq!(ml201["severity"], "error", "{ml201}");
    assert_eq!(
        ml201["evidence"]["premises"],
        serde_json::json!([]),
        "{ml201}"
    );
    let facts = ml201["evidence"]["facts"].to_string();
    assert!(facts.contains("gives the same finding"), "{facts}");
    // A Job's proxy that never exits: a native proxy would be stopped by the kubelet,
    // so the finding rests on the release and is lowered until it is given.
    let (severity, premises) = graded("ml101-fire-job.yaml", "ML301", &[]);
    assert_eq!(
        (severity.as_str(), premises),
        ("warning", vec!["plan".to_owned()])
    );
    let (severity, premises) = graded("ml101-fire-job.yaml", "ML301", &["--istio-version", "1.26"]);
    assert_eq!((severity.as_str(), premises.len()), ("error", 0));
}

#[test]
fn an_app_whose_calls_the_input_does_not_show_gets_its_start_up_finding_lowered() {
    let version = ["--istio-version", "1.26"];
    let (severity, premises) = graded("ml101-fire-job.yaml", "ML101", &version);
    assert_eq!((severity.as_str(), premises.len()), ("error", 0));
    let (severity, premises) = graded("ml101-fire-job-unknown-calls.yaml", "ML101", &version);
    assert_eq!(severity, "warning");
    assert_eq!(premises, ["callsOut"]);
}

#[test]
fn the_human_report_names_the_premise_and_how_to_settle_it() {
    let output = assert_cmd::Command::cargo_bin("kubectl-mesh_lifecycle")
        .unwrap()
        .args(["lint", "--istio-version", "1.26", "--color", "never"])
        .args(["--show-infos"])
        .arg(testdata("rules/ml202-fire-static-nginx-info.yaml"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("assumed: `nginx` calls out while its proxy is gone"),
        "{text}"
    );
}

/// The findings of `rule` in the fixture `name`, each as its severity and message.
fn findings_of(name: &str, rule: &str) -> Vec<(String, String)> {
    let (report, _) = lint_json(&testdata(&format!("rules/{name}")), &[]);
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["ruleId"] == rule)
        .map(|f| {
            (
                f["severity"].as_str().unwrap().to_owned(),
                f["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_script_sourced_with_its_arguments_reads_as_if_written_inline() {
    // `. /scripts/wait-to-complete-sidecar.sh "job.sh" "cloud_sql_proxy"`: the stop
    // in the sourced file reaches the proxy, and the `psql` of the file it runs in turn
    // shows the work calling out, so the start-up loss is proven.
    assert_eq!(
        findings_of("ml301-silent-sourced-stop-script.yaml", "ML301"),
        []
    );
    let ml101 = findings_of("ml301-silent-sourced-stop-script.yaml", "ML101");
    assert_eq!(ml101.len(), 1, "{ml101:?}");
    assert_eq!(ml101[0].0, "error", "{ml101:?}");
    // The same call with its arguments swapped stops nothing.
    let ml301 = findings_of(
        "ml301-fire-sourced-stop-script-swapped-arguments.yaml",
        "ML301",
    );
    assert_eq!(ml301.len(), 1, "{ml301:?}");
    assert_eq!(ml301[0].0, "error", "{ml301:?}");
}

#[test]
fn a_container_that_only_stops_processes_makes_no_call_out() {
    // The stopper gets no start-up finding and no exit-status finding; the client's
    // 20 s sleep puts its first call after the proxy is ready.
    for rule in ["ML101", "ML302"] {
        assert_eq!(
            findings_of("ml101-silent-proxy-stopper.yaml", rule),
            [],
            "{rule}"
        );
    }
    let ml202 = findings_of("ml101-silent-proxy-stopper.yaml", "ML202");
    assert!(
        ml202.len() == 1 && ml202[0].1.contains("`db-client`"),
        "{ml202:?}"
    );
    // A stopper that queries the database itself calls out before the proxy is ready.
    let ml101 = findings_of("ml101-fire-stopper-that-queries.yaml", "ML101");
    assert!(
        ml101.len() == 1 && ml101[0].0 == "error" && ml101[0].1.contains("`proxy-stopper`"),
        "{ml101:?}"
    );
    // A sleep shorter than the proxy's start-up leaves part of the window.
    let ml101 = findings_of("ml101-fire-leading-sleep-too-short.yaml", "ML101");
    assert!(
        ml101.len() == 1
            && ml101[0].0 == "error"
            && ml101[0]
                .1
                .contains("`db-client` makes its first call at 1 s (its command sleeps 1 s first)")
            && ml101[0].1.contains("in those 1 s can fail"),
        "{ml101:?}"
    );
}

/// The message and help of the only ML304 finding of `report`.
fn ml304_wording(report: &serde_json::Value) -> (String, String) {
    let found: Vec<&serde_json::Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["ruleId"] == "ML304")
        .collect();
    assert_eq!(found.len(), 1, "{report}");
    let text = |key: &str| found[0][key].as_str().unwrap().to_owned();
    (text("message"), text("help"))
}

// ML304 names the sidecar the pod runs. In a Consul-injected Job (consul-k8s's
// acceptance `job-client`), pilot-agent's stop call reaches nothing: the finding says
// whose call it is and names the dataplane, and its help is the dataplane's own way
// out, with no word of pilot-agent; in an Istio Job the same call's GET is pilot-agent's
// 405, as Istio's model words it.
#[test]
fn ml304_names_the_sidecar_the_pod_runs() {
    let (report, _) = lint_json(
        &testdata("rules/ml304-fire-consul-job-istio-stop-call.yaml"),
        &[],
    );
    let (message, help) = ml304_wording(&report);
    assert!(
        message.contains("it is the Istio proxy's stop call, and this pod runs none: its sidecar is the Consul dataplane `consul-dataplane`"),
        "{message}"
    );
    assert!(help.contains("`consul-dataplane`"), "{help}");
    for text in [&message, &help] {
        assert!(!text.contains("pilot-agent"), "{text}");
    }
    // ML301 leaves the call that tries to ML304.
    assert!(
        !rule_lines(&report).iter().any(|(rule, _)| rule == "ML301"),
        "{report}"
    );
    let (report, _) = lint_json(&testdata("rules/ml304-fire-get-to-pilot-agent.yaml"), &[]);
    let (message, help) = ml304_wording(&report);
    assert!(
        message.contains(
            "pilot-agent's /quitquitquit only accepts POST; this call sends GET and gets 405"
        ),
        "{message}"
    );
    assert!(help.contains("call pilot-agent with POST"), "{help}");
}

// Every mesh the rule fires on: another mesh's stop call in its pod names the pod's
// own sidecar, by its model's label and its container.
#[test]
fn ml304_names_each_meshs_sidecar_for_another_meshs_stop_call() {
    let cases = [
        (
            "linkerd.io/inject: enabled",
            "Linkerd proxy `linkerd-proxy`",
            ":15020/quitquitquit",
            "Istio proxy",
        ),
        (
            "dapr.io/enabled: \"true\"",
            "Dapr sidecar `daprd`",
            ":15020/quitquitquit",
            "Istio proxy",
        ),
        (
            "kuma.io/sidecar-injection: enabled",
            "Kuma sidecar `kuma-sidecar`",
            ":15020/quitquitquit",
            "Istio proxy",
        ),
        (
            "consul.hashicorp.com/connect-inject: \"true\"",
            "Consul dataplane `consul-dataplane`",
            ":15020/quitquitquit",
            "Istio proxy",
        ),
        (
            "sidecar.istio.io/inject: \"true\"",
            "Istio proxy `istio-proxy`",
            ":4191/shutdown",
            "Linkerd proxy",
        ),
        (
            "sidecar.istio.io/inject: \"true\"",
            "Istio proxy `istio-proxy`",
            ":3500/v1.0/shutdown",
            "Dapr sidecar",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (opt_in, sidecar, call, owner) in cases {
        let yaml = format!(
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  template:\n    metadata:\n      annotations:\n        {opt_in}\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: work\n        image: alpine/curl:3.14\n        command: [/bin/sh, -c]\n        args:\n        - |\n          trap 'curl -fsS -X POST http://localhost{call}' EXIT\n          /work\n"
        );
        let path = dir.path().join("job.yaml");
        std::fs::write(&path, yaml).unwrap();
        let (report, _) = lint_json(&path, &["--no-config"]);
        let (message, _) = ml304_wording(&report);
        let expected = format!(
            "it is the {owner}'s stop call, and this pod runs none: its sidecar is the {sidecar}"
        );
        assert!(message.contains(&expected), "{opt_in}: {message}");
    }
}

/// The severity and premise kinds of the only ML203 finding of `file`.
fn ml203_verdict(file: &str) -> (String, Vec<String>) {
    let (report, _) = lint_json(&testdata(file), &[]);
    let found: Vec<&serde_json::Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["ruleId"] == "ML203")
        .collect();
    assert_eq!(found.len(), 1, "{file}: {report}");
    let kinds = found[0]["evidence"]["premises"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap().to_owned())
        .collect();
    (found[0]["severity"].as_str().unwrap().to_owned(), kinds)
}

// daprd proxies none of the pod's traffic: it takes requests only on its own ports
// (dapr/dapr `pkg/injector/sidecar/consts.go`: 3500, 50001, 50002). Where a Service of
// the input sends requests there (the operator's `<app-id>-dapr` Service), closing
// them on SIGTERM refuses them: ML203 keeps its warning, proven. Where the app's
// clients reach only its own port, ML203 is info and names the premise it rests on.
#[test]
fn ml203_on_daprd_follows_what_sends_requests_through_it() {
    let (severity, premises) = ml203_verdict("rules/ml203-fire-daprd-service-to-sidecar.yaml");
    assert_eq!(severity, "warning");
    assert!(premises.is_empty(), "{premises:?}");
    let (severity, premises) = ml203_verdict("rules/ml203-fire-daprd-app-port-only-info.yaml");
    assert_eq!(severity, "info");
    assert!(
        premises.contains(&"throughSidecar".to_owned()),
        "{premises:?}"
    );
    // Istio's proxy carries the pod's inbound traffic on any port: no such premise.
    let (_, premises) = ml203_verdict("rules/ml203-fire-linkerd-injected.yaml");
    assert!(
        !premises.contains(&"throughSidecar".to_owned()),
        "{premises:?}"
    );
}
