//! `lint --fix`, `--diff` and standard input through the binary: each rule's fix on
//! its firing fixtures, the exact file it writes, that the finding is gone, that
//! kubectl reads the result, and that a second run changes nothing.

mod common;

use std::path::Path;

/// A copy of the fixture `name` in a fresh directory.
fn copy(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::copy(common::testdata(&format!("rules/{name}")), &path).unwrap();
    (dir, path)
}

/// The rule ids `lint` reports for `path`.
fn rules_of(path: &Path) -> Vec<String> {
    let (report, _) = common::lint_json(path, &[]);
    common::rule_lines(&report)
        .into_iter()
        .map(|(rule, _)| rule)
        .collect()
}

/// What kubectl reads from `path`, or `None` without kubectl.
fn kubectl_reads(path: &Path) -> Option<serde_json::Value> {
    let kubectl = common::kubectl_binary()?;
    let output = std::process::Command::new(kubectl)
        .args(["label", "--local", "-f"])
        .arg(path)
        .args(["x=y", "-o", "json"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "kubectl cannot read the fixed file: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(serde_json::from_slice(&output.stdout).unwrap())
}

/// Fixes the fixture `name`, checks `rule` is gone, kubectl reads the file, and a
/// second `--fix` changes nothing; returns the fixed file.
fn fix_fixture(name: &str, rule: &str, flags: &[&str]) -> (String, Option<serde_json::Value>) {
    let (_dir, path) = copy(name);
    assert!(
        rules_of(&path).iter().any(|r| r == rule),
        "{name} fires {rule}"
    );
    common::cli()
        .arg("lint")
        .args(flags)
        .arg("--fix")
        .arg(&path)
        .assert()
        .code(predicates::ord::lt(2));
    let fixed = std::fs::read_to_string(&path).unwrap();
    assert!(
        !rules_of(&path).iter().any(|r| r == rule),
        "{rule} still fires after --fix:\n{fixed}"
    );
    let read = kubectl_reads(&path);
    common::cli()
        .arg("lint")
        .args(flags)
        .arg("--fix")
        .arg(&path)
        .assert()
        .code(predicates::ord::lt(2));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        fixed,
        "a second --fix changed the file"
    );
    common::cli()
        .arg("lint")
        .args(flags)
        .arg("--diff")
        .arg(&path)
        .assert()
        .code(0)
        .stdout("");
    (fixed, read)
}

#[test]
fn ml101_istio_gets_the_hold_annotation() {
    for name in ["ml101-fire-inject-label.yaml", "ml101-fire-job.yaml"] {
        let (fixed, read) = fix_fixture(name, "ML101", &[]);
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
