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
