//! No silent pass: a workload that is not linted (no containers at its pod's path, a
//! kind the linter does not read, a Rollout whose template is elsewhere) is a note in
//! every format — standard error even with `--quiet`, JSON `notes`, a SARIF
//! notification, a GitHub `::warning`, a skipped JUnit test case — and `--strict` (or
//! `strict: true`) makes each an input error, exit 2. Cluster reads add their own
//! (tests/it/cluster.rs).

use crate::common;

use serde_json::Value;

/// The directory of workloads that are not linted: a KEDA ScaledJob without
/// containers, and a declared kind whose entry names a path its objects do not use.
fn dir() -> std::path::PathBuf {
    common::testdata("not-linted")
}

fn lint(args: &[&str]) -> (String, String, i32) {
    let output = common::cli()
        .current_dir(dir())
        .arg("lint")
        .args(args)
        .arg(".")
        .output()
        .unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
        output.status.code().unwrap(),
    )
}

const SCALEDJOB: &str = "ScaledJob worker has no containers at `spec.jobTargetRef.template.spec.containers`; not linted";
const WEBAPP: &str = "WebApp portal has no containers at `spec.runtime.template.spec.containers`; not linted (the `workloadKinds` entry's path";

#[test]
fn every_format_names_what_was_not_linted() {
    let (stdout, stderr, code) = lint(&["-o", "json", "-q"]);
    assert_eq!(code, 0, "{stderr}");
    // Standard error, whatever --quiet says.
    for note in [
        format!("note: scaledjob-no-containers.yaml:12:9: {SCALEDJOB}"),
        format!("note: declared-wrong-path.yaml:8:3: {WEBAPP}"),
    ] {
        assert!(stderr.contains(&note), "{note} not in {stderr}");
    }
    let report: Value = serde_json::from_str(&stdout).unwrap();
    common::validate_lint_json(&report);
    let notes: Vec<(&str, u64, &str)> = report["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["file"].as_str().unwrap(),
                n["line"].as_u64().unwrap(),
                n["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes.iter().any(
        |(file, line, message)| *file == "scaledjob-no-containers.yaml"
            && *line == 12
            && message.starts_with(SCALEDJOB)
    ));
    assert!(
        notes
            .iter()
            .any(|(file, line, message)| *file == "declared-wrong-path.yaml"
                && *line == 8
                && message.starts_with(WEBAPP))
    );

    let (stdout, _, code) = lint(&["-o", "sarif"]);
    assert_eq!(code, 0);
    let sarif: Value = serde_json::from_str(&stdout).unwrap();
    common::validate_sarif(&sarif);
    let invocation = &sarif["runs"][0]["invocations"][0];
    let notifications = invocation["toolExecutionNotifications"].as_array().unwrap();
    assert_eq!(notifications.len(), 2);
    assert!(
        notifications.iter().all(|n| n["level"] == "warning"),
        "{notifications:?}"
    );
    assert_eq!(invocation["executionSuccessful"], true);

    let (stdout, _, code) = lint(&["-o", "github", "-q"]);
    assert_eq!(code, 0);
    let warnings: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("::warning "))
        .collect();
    assert_eq!(warnings.len(), 2, "{stdout}");
    assert!(
        warnings.iter().all(|w| w.contains("title=not linted::")),
        "{stdout}"
    );

    let (stdout, _, code) = lint(&["-o", "junit"]);
    assert_eq!(code, 0);
    let junit = roxmltree::Document::parse(&stdout).unwrap();
    let skipped: Vec<&str> = junit
        .descendants()
        .filter(|n| n.has_tag_name("skipped"))
        .filter_map(|n| n.attribute("message"))
        .collect();
    assert_eq!(skipped.len(), 2, "{stdout}");

    // The summary line, wrapped to the width of the report.
    let (stdout, _, _) = lint(&["-o", "human"]);
    let unwrapped = stdout.replace("\n  ", " ");
    assert!(
        unwrapped.contains("2 workloads without containers not linted (see the notes)"),
        "{stdout}"
    );
}

#[test]
fn strict_makes_each_an_input_error() {
    let (stdout, stderr, code) = lint(&["-o", "json", "--strict"]);
    assert_eq!(code, 2, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    common::validate_lint_json(&report);
    assert_eq!(report["notes"], serde_json::json!([]));
    assert_eq!(report["summary"]["inputErrors"], 2);
    let errors = report["errors"].as_array().unwrap();
    assert!(errors.iter().all(|e| {
        e["message"]
            .as_str()
            .unwrap()
            .ends_with("(--strict: what is not linted fails the run)")
    }));
    // Whatever --fail-on says, as for any input error.
    let (_, _, code) = lint(&["--strict", "--fail-on", "never"]);
    assert_eq!(code, 2);
    // The config key does the same.
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(common::testdata("not-linted")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    let config = dir.path().join(".mesh-lifecycle.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}strict: true\n")).unwrap();
    let output = common::cli()
        .current_dir(dir.path())
        .args(["lint", "."])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}
