//! The rendered output users read, pinned as snapshots: a reviewer sees any change to
//! it in the diff.

mod common;

use common::{cli, root};

fn run(args: &[&str]) -> String {
    let output = cli()
        .current_dir(root())
        .args(args)
        .args(["--color", "never"])
        .output()
        .unwrap();
    let mut text = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    if !stderr.is_empty() {
        text.push_str("\n--- stderr ---\n");
        text.push_str(&stderr);
    }
    text.push_str(&format!(
        "\n--- exit status: {:?} ---\n",
        output.status.code()
    ));
    text
}

#[test]
fn lint_human_grace_period_exceeded() {
    insta::assert_snapshot!(run(&[
        "lint",
        "testdata/rules/ml201-fire-prestop-plus-drain.yaml"
    ]));
}

#[test]
fn lint_human_app_starts_before_proxy_in_a_job() {
    insta::assert_snapshot!(run(&["lint", "testdata/rules/ml101-fire-job.yaml"]));
}

#[test]
fn lint_human_prestop_outlives_grace() {
    insta::assert_snapshot!(run(&["lint", "testdata/rules/ml206-fire-sleep-45.yaml"]));
}

#[test]
fn lint_human_proxy_gate_ineffective() {
    insta::assert_snapshot!(run(&[
        "lint",
        "testdata/rules/ml102-fire-proxy-not-first.yaml"
    ]));
}

#[test]
fn lint_human_invalid_yaml() {
    insta::assert_snapshot!(run(&["lint", "testdata/bad/unclosed-flow.yaml"]));
}

#[test]
fn lint_json_job() {
    insta::assert_snapshot!(run(&[
        "lint",
        "--format",
        "json",
        "testdata/rules/ml301-fire-injected-job.yaml"
    ]));
}

const TABLE_FIXTURES: [&str; 3] = [
    "testdata/rules/ml101-fire-job.yaml",
    "testdata/rules/ml201-fire-prestop-plus-drain.yaml",
    "testdata/rules/ml206-silent-short-sleep.yaml",
];

#[test]
fn lint_table() {
    let mut args = vec!["lint", "--format", "table"];
    args.extend(TABLE_FIXTURES);
    insta::assert_snapshot!(run(&args));
}

/// The SARIF log with the base directory redacted and the rule table cut to its ids
/// (each descriptor is checked against the rule docs in tests/sarif.rs).
#[test]
fn lint_sarif() {
    let output = cli()
        .current_dir(root())
        .args([
            "lint",
            "--format",
            "sarif",
            "testdata/rules/ml201-fire-prestop-plus-drain.yaml",
            "testdata/suppressions/partly-suppressed.yaml",
            "testdata/bad/unclosed-flow.yaml",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let mut log: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let run = &mut log["runs"][0];
    run["originalUriBaseIds"]["%SRCROOT%"]["uri"] = "file:///[current directory]/".into();
    let ids: Vec<serde_json::Value> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|rule| rule["id"].clone())
        .collect();
    run["tool"]["driver"]["rules"] = ids.into();
    insta::assert_snapshot!(serde_json::to_string_pretty(&log).unwrap());
}

#[test]
fn lint_junit() {
    insta::assert_snapshot!(run(&[
        "lint",
        "--format",
        "junit",
        "testdata/rules/ml101-fire-job.yaml",
        "testdata/rules/ml206-silent-short-sleep.yaml",
        "testdata/suppressions/partly-suppressed.yaml",
        "testdata/bad/unclosed-flow.yaml",
    ]));
}

#[test]
fn lint_github() {
    insta::assert_snapshot!(run(&[
        "lint",
        "--format",
        "github",
        "--fail-on",
        "warning",
        "testdata/rules/ml101-fire-inject-label.yaml",
        "testdata/rules/ml201-fire-prestop-plus-drain.yaml",
        "testdata/suppressions/partly-suppressed.yaml",
        "testdata/bad/unclosed-flow.yaml",
    ]));
}
