//! The command line end to end: kubectl plugin discovery, exit statuses, the JSON
//! output contract, and bad input among good input.

use crate::common;

use std::path::Path;

use common::{cli, kubectl, lint_json, testdata};
use predicates::prelude::*;

#[test]
fn kubectl_runs_the_plugin() {
    let Some((mut kubectl, _dir)) = kubectl() else {
        return;
    };
    kubectl
        .arg("mesh-lifecycle")
        .arg("lint")
        .arg(testdata("rules/ml201-fire-prestop-plus-drain.yaml"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("ML201"))
        .stdout(predicate::str::contains(
            "ml201-fire-prestop-plus-drain.yaml:18:37",
        ));
}

#[test]
fn kubectl_lists_the_plugin() {
    let Some((mut kubectl, _dir)) = kubectl() else {
        return;
    };
    kubectl
        .args(["plugin", "list"])
        .assert()
        .stdout(predicate::str::contains("kubectl-mesh_lifecycle"));
}

#[test]
fn help_speaks_as_a_kubectl_plugin() {
    cli()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Usage: kubectl mesh-lifecycle <COMMAND>",
        ));
    cli()
        .args(["lint", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Usage: kubectl mesh-lifecycle lint",
        ));
}

#[test]
fn exit_status_follows_fail_on() {
    let warning_only = testdata("rules/ml208-fire-istio-distroless-proxy.yaml");
    cli().arg("lint").arg(&warning_only).assert().code(0);
    cli()
        .args(["lint", "--fail-on", "warning"])
        .arg(&warning_only)
        .assert()
        .code(1);
    cli()
        .args(["lint", "--fail-on", "info"])
        .arg(&warning_only)
        .assert()
        .code(1);
    let error = testdata("rules/ml206-fire-sleep-45.yaml");
    cli().arg("lint").arg(&error).assert().code(1);
    cli()
        .args(["lint", "--fail-on", "never"])
        .arg(&error)
        .assert()
        .code(0);
    let clean = testdata("rules/ml206-silent-short-sleep.yaml");
    cli().arg("lint").arg(&clean).assert().code(0);
}

#[test]
fn usage_errors_exit_2() {
    cli()
        .args(["lint", "--fail-on", "sometimes"])
        .assert()
        .code(2);
    cli()
        .args(["lint", "--select", "ML999", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown rule"));
    cli().args(["rules", "no-such-rule"]).assert().code(2);
}

#[test]
fn a_missing_path_exits_2() {
    cli()
        .args(["lint", "does/not/exist.yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "does/not/exist.yaml: no such file or directory",
        ));
}

#[test]
fn invalid_yaml_is_reported_and_the_rest_is_still_linted() {
    let bad = testdata("bad/unclosed-flow.yaml");
    let good = testdata("rules/ml206-fire-sleep-45.yaml");
    let output = cli().arg("lint").arg(&bad).arg(&good).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let location = format!("{}:9:27", bad.display());
    assert!(
        stderr.contains(&location),
        "stderr names file:line: {stderr}"
    );
    let diagnostics = stderr
        .lines()
        .filter(|line| line.trim_start().starts_with('×'))
        .count();
    assert_eq!(diagnostics, 1, "one diagnostic: {stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("ML206"),
        "the good file is linted: {stdout}"
    );

    let (report, status) = lint_json(&bad, &[]);
    assert_eq!(status, 2);
    assert_eq!(report["errors"][0]["line"], 9);
    assert_eq!(report["summary"]["inputErrors"], 1);
}

#[test]
fn json_output_follows_the_contract() {
    let mut paths: Vec<String> = std::fs::read_dir(testdata("rules"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .map(|p| p.display().to_string())
        .collect();
    paths.sort();
    paths.push(testdata("bad/unclosed-flow.yaml").display().to_string());
    paths.push("does/not/exist.yaml".into());
    let output = cli()
        .args(["lint", "--format", "json"])
        .args(&paths)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("stdout is only JSON");
    common::validate_lint_json(&report);

    let findings = report["findings"].as_array().unwrap();
    assert!(findings.len() >= 10);
    // Sorted by file in input order, then line, then rule.
    let order: Vec<(usize, u64, String)> = findings
        .iter()
        .map(|f| {
            let file = paths
                .iter()
                .position(|p| p == f["file"].as_str().unwrap())
                .expect("file as given");
            (
                file,
                f["line"].as_u64().unwrap(),
                f["ruleId"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);
    // The summary counts what is listed.
    let count = |severity: &str| {
        findings
            .iter()
            .filter(|f| f["severity"] == severity)
            .count() as u64
    };
    let summary = &report["summary"];
    assert_eq!(summary["errors"].as_u64().unwrap(), count("error"));
    assert_eq!(summary["warnings"].as_u64().unwrap(), count("warning"));
    assert_eq!(summary["infos"].as_u64().unwrap(), count("info"));
    assert_eq!(summary["inputErrors"], 2);
    assert_eq!(summary["files"].as_u64().unwrap(), paths.len() as u64 - 1);
}

#[test]
fn json_output_of_an_empty_run_follows_the_contract() {
    let (report, status) = lint_json(
        Path::new(&testdata("rules/ml206-silent-short-sleep.yaml")),
        &[],
    );
    assert_eq!(status, 0);
    common::validate_lint_json(&report);
    assert_eq!(report["findings"].as_array().unwrap().len(), 0);
    assert_eq!(report["summary"]["workloads"], 1);
}

#[test]
fn standard_input_is_read_with_a_dash() {
    let text = std::fs::read_to_string(testdata("rules/ml206-fire-sleep-45.yaml")).unwrap();
    cli()
        .args(["lint", "--format", "json", "-"])
        .write_stdin(text)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(r#""file": "-""#))
        .stdout(predicate::str::contains(r#""line": 19"#));
    cli()
        .args(["lint", "-"])
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("standard input is empty"));
}

#[test]
fn directories_are_searched_recursively() {
    let (report, _) = lint_json(&testdata("rules"), &[]);
    let files: std::collections::BTreeSet<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert!(files.iter().any(|f| f.ends_with("ml301-fire-cronjob.yaml")));
    assert!(report["summary"]["files"].as_u64().unwrap() >= 20);
}

#[test]
fn multi_document_streams_and_lists_are_read() {
    let stream = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n  spec:\n    terminationGracePeriodSeconds: 5\n    containers:\n    - name: a\n      image: x\n      lifecycle: {preStop: {exec: {command: [sleep, '9']}}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ignored}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\nspec:\n  terminationGracePeriodSeconds: 5\n  containers:\n  - name: b\n    image: x\n    lifecycle: {preStop: {sleep: {seconds: 7}}}\n";
    let output = cli()
        .args(["lint", "--format", "json", "-"])
        .write_stdin(stream)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let found: Vec<(u64, u64)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["document"].as_u64().unwrap(), f["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(found, vec![(0, 12), (2, 26)]);
    assert_eq!(report["summary"]["workloads"], 2);
}
