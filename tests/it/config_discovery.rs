//! Which `.mesh-lifecycle.yaml` a run uses, and that every report names it: the
//! nearest one at or above the working directory, up to the repository's root (the
//! first directory holding `.git`), and never one another user owns; a file passed over
//! is said in a note.

use crate::common;

use std::path::Path;

use serde_json::Value;

/// A config that turns off the rule the manifest breaks.
const RULE_OFF: &str = "rules:\n  ML206: off\n";

/// `lint --format FORMAT` of the ML206 fixture, run in `dir` with `args`: stdout, stderr
/// and the exit status.
fn lint(dir: &Path, format: &str, args: &[&str]) -> (String, String, i32) {
    let output = common::cli()
        .current_dir(dir)
        .args(["lint", "--format", format])
        .args(args)
        .arg(common::testdata("rules/ml206-fire-sleep-45.yaml"))
        .output()
        .unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
        output.status.code().unwrap(),
    )
}

fn json(dir: &Path, args: &[&str]) -> (Value, String, i32) {
    let (stdout, stderr, code) = lint(dir, "json", args);
    let report = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    common::validate_lint_json(&report);
    (report, stderr, code)
}

#[test]
fn the_nearest_config_within_the_repository_is_used_and_named() {
    let root = tempfile::tempdir().unwrap();
    let repo = root.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("deploy")).unwrap();
    std::fs::write(repo.join(".mesh-lifecycle.yaml"), RULE_OFF).unwrap();
    // From a directory of the repository, the file at its root.
    let (report, stderr, code) = json(&repo.join("deploy"), &[]);
    assert_eq!(code, 0, "{stderr}");
    let config = repo.join(".mesh-lifecycle.yaml");
    assert_eq!(report["config"], config.to_string_lossy().as_ref());
    // At the root, relative to it.
    let (report, _, code) = json(&repo, &[]);
    assert_eq!(code, 0);
    assert_eq!(report["config"], ".mesh-lifecycle.yaml");
    // --no-config: none.
    let (report, _, code) = json(&repo, &["--no-config"]);
    assert_eq!(code, 1);
    assert_eq!(report["config"], Value::Null);
}

#[test]
fn a_config_above_the_repository_is_not_used() {
    let root = tempfile::tempdir().unwrap();
    let repo = root.path().join("checkout");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    // Planted in a parent directory, it would turn the rule off.
    std::fs::write(root.path().join(".mesh-lifecycle.yaml"), RULE_OFF).unwrap();
    let (report, stderr, code) = json(&repo, &[]);
    assert_eq!(code, 1, "the rule still fails the gate: {stderr}");
    assert_eq!(report["config"], Value::Null);
    let planted = root.path().join(".mesh-lifecycle.yaml");
    assert!(
        stderr.contains(&format!(
            "note: {} is not used: it lies above the repository's root, {}; --config {} uses it",
            planted.display(),
            repo.display(),
            planted.display()
        )),
        "{stderr}"
    );
    // Named, it is used.
    let (report, _, code) = json(&repo, &["--config", planted.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(report["config"], planted.to_string_lossy().as_ref());
}

#[cfg(unix)]
#[test]
fn a_config_another_user_owns_is_not_used() {
    // Only root can give a file to another user.
    if rustix::process::geteuid().as_raw() != 0 {
        common::tools::unavailable("sandbox", "giving a file to another user needs root");
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let planted = root.path().join(".mesh-lifecycle.yaml");
    std::fs::write(&planted, RULE_OFF).unwrap();
    std::os::unix::fs::chown(&planted, Some(65534), Some(65534)).unwrap();
    let (report, stderr, code) = json(root.path(), &[]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(report["config"], Value::Null);
    assert!(
        stderr.contains(&format!(
            "note: {} is not used: it belongs to another user (uid 65534) than the one running",
            planted.display()
        )),
        "{stderr}"
    );
}

#[test]
fn every_format_names_the_config_in_force() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::write(
        dir.path().join(".mesh-lifecycle.yaml"),
        "rules:\n  ML207: off\n",
    )
    .unwrap();
    let (human, _, _) = lint(dir.path(), "human", &[]);
    assert!(
        human.contains("(1 file checked); config .mesh-lifecycle.yaml\n"),
        "{human}"
    );
    let (table, _, _) = lint(dir.path(), "table", &[]);
    assert!(table.contains("; config .mesh-lifecycle.yaml\n"), "{table}");
    let (github, _, _) = lint(dir.path(), "github", &[]);
    assert!(
        github.contains("; config .mesh-lifecycle.yaml\n"),
        "{github}"
    );
    let (sarif, _, _) = lint(dir.path(), "sarif", &[]);
    let sarif: Value = serde_json::from_str(&sarif).unwrap();
    common::validate_sarif(&sarif);
    assert_eq!(
        sarif["runs"][0]["invocations"][0]["properties"]["configFile"],
        ".mesh-lifecycle.yaml"
    );
    let (junit, _, _) = lint(dir.path(), "junit", &[]);
    assert!(
        junit.contains(r#"<property name="mesh-lifecycle.config" value=".mesh-lifecycle.yaml"/>"#),
        "{junit}"
    );
    let (human, _, _) = lint(dir.path(), "human", &["--no-config"]);
    assert!(human.contains("; no config file\n"), "{human}");
    let (sarif, _, _) = lint(dir.path(), "sarif", &["--no-config"]);
    let sarif: Value = serde_json::from_str(&sarif).unwrap();
    assert_eq!(
        sarif["runs"][0]["invocations"][0]["properties"]["configFile"],
        Value::Null
    );
}
