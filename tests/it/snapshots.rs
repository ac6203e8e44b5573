//! The rendered output users read, pinned as snapshots: a reviewer sees any change to
//! it in the diff.

use crate::common;

use common::{cli, root};

fn run(args: &[&str]) -> String {
    transcript(cli().current_dir(root()).args(args))
}

/// What the command printed, stdout then stderr, and its exit status, with no colour.
fn transcript(command: &mut assert_cmd::Command) -> String {
    let output = command.args(["--color", "never"]).output().unwrap();
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
/// (each descriptor is checked against the rule docs in tests/it/sarif.rs).
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

/// What a terminal of 80 columns shows of each terminal detail, run as `run` runs
/// (`COLUMNS=80`, no colour).
fn at_80(args: &[&str]) -> String {
    transcript(cli().current_dir(root()).env("COLUMNS", "80").args(args))
}

/// Lines wider than 80 columns, but for a line that is one URL or path (never cut).
fn wider_than_80(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|line| line.chars().count() > 80)
        .filter(|line| {
            let words: Vec<&str> = line
                .split(|c: char| c.is_whitespace() || c == '•')
                .filter(|w| !w.is_empty())
                .collect();
            !(words.len() == 1 && words[0].contains('/'))
        })
        .collect()
}

/// The table keeps to 80 columns even where a finding quotes a long command: the quote
/// breaks at its spaces.
#[test]
fn table_at_80_columns() {
    let text = at_80(&[
        "lint",
        "--no-config",
        "--format",
        "table",
        "testdata/rules/ml103-fire-istio-migration.yaml",
        "testdata/rules/ml401-fire-linkerd-durations.yaml",
        "testdata/rules/ml201-fire-prestop-plus-drain.yaml",
    ]);
    assert_eq!(wider_than_80(&text), Vec::<&str>::new());
    insta::assert_snapshot!(text);
}

#[test]
fn rules_catalog_at_80_columns() {
    let text = at_80(&["rules"]);
    assert_eq!(wider_than_80(&text), Vec::<&str>::new());
    insta::assert_snapshot!(text);
}

/// A rule's documentation laid out for the terminal: headings flush left, prose
/// wrapped under them, examples indented and written to fit 80 columns. Every rule's
/// does.
#[test]
fn rules_doc_at_80_columns() {
    let catalog = cli().args(["rules", "--format", "json"]).output().unwrap();
    let catalog: serde_json::Value = serde_json::from_slice(&catalog.stdout).unwrap();
    for rule in catalog.as_array().unwrap() {
        let id = rule["id"].as_str().unwrap();
        let text = at_80(&["rules", id]);
        assert_eq!(wider_than_80(&text), Vec::<&str>::new(), "{id}");
        assert!(
            !text.contains("```") && !text.contains("## "),
            "{id}: {text}"
        );
    }
    insta::assert_snapshot!(at_80(&["rules", "ML304"]));
}

/// `--format markdown` prints the Markdown itself, as docs/rules holds it.
#[test]
fn rules_doc_as_markdown() {
    let text = at_80(&["rules", "ML304", "--format", "markdown"]);
    assert!(text.starts_with("# ML304 `job-exit-call-ineffective`\n"));
    insta::assert_snapshot!(text);
}

/// The assumptions close a report that has a verdict; with nothing linted there is
/// nothing they bear on.
#[test]
fn assumed_only_when_something_was_linted() {
    let nothing = at_80(&["lint", "--no-config", "testdata/mixed/renovate.json"]);
    assert!(!nothing.contains("Assumed:"), "{nothing}");
    insta::assert_snapshot!(nothing);
    let something = at_80(&[
        "lint",
        "--no-config",
        "testdata/rules/ml201-fire-prestop-plus-drain.yaml",
    ]);
    assert!(
        something.contains("\nAssumed: Kubernetes 1.36 (default)"),
        "{something}"
    );
}

/// Documents are numbered from 1, with how many the file holds; a file of one is
/// named alone.
#[test]
fn documents_are_numbered_as_people_count_them() {
    let text = at_80(&[
        "explain",
        "--no-config",
        "testdata/rules/ml301-fire-cronjob.yaml",
        "testdata/rules/ml201-fire-prestop-plus-drain.yaml",
    ]);
    let titles: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" · testdata/"))
        .collect();
    assert_eq!(
        titles,
        [
            "Deployment api · testdata/rules/ml201-fire-prestop-plus-drain.yaml",
            "CronJob batch/nightly · testdata/rules/ml301-fire-cronjob.yaml (document 2 of 2)"
        ]
    );
    insta::assert_snapshot!(titles.join("\n"));
}

/// `--kind` takes what kubectl takes: a kind, its resource, its short name.
#[test]
fn kind_takes_kubectls_names() {
    let fixtures = [
        "testdata/rules/ml301-fire-cronjob.yaml",
        "testdata/rules/ml201-fire-prestop-plus-drain.yaml",
    ];
    let explain = |kind: &str| {
        let mut args = vec!["explain", "--no-config", "--kind", kind];
        args.extend(fixtures);
        at_80(&args)
    };
    let by_kind = explain("CronJob");
    assert!(by_kind.starts_with("CronJob batch/nightly"), "{by_kind}");
    for name in ["cj", "cronjobs", "cronjob.batch", "CJ"] {
        assert_eq!(explain(name), by_kind, "{name}");
    }
    assert_eq!(explain("deploy"), explain("Deployment"));
    insta::assert_snapshot!(explain("rollout-ish"));
}

/// `-n` without `--cluster` says what it is for and what to do, in the tool's words.
#[test]
fn namespace_without_cluster_says_what_to_do() {
    let text = at_80(&[
        "lint",
        "-n",
        "shop",
        "testdata/rules/ml201-fire-prestop-plus-drain.yaml",
    ]);
    assert!(text.ends_with("--- exit status: Some(2) ---\n"), "{text}");
    insta::assert_snapshot!(text);
}
