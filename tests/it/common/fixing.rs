//! `lint --fix` on a fixture through the binary, checked as every fix test checks it:
//! the rule fires before and not after, no finding is new or more severe, kubectl reads
//! the file before and after, a second run changes nothing and `--diff` has nothing left.

use std::path::Path;

use serde_json::Value;

use super::{cli, kubectl_reads, lint_json, profile_flags, testdata};

/// What one checked `--fix` made of a fixture.
pub struct Fixed {
    /// The file as `--fix` left it.
    pub text: String,
    /// What kubectl reads of it before and after the fix, where kubectl is installed.
    pub reads: Option<(Value, Value)>,
}

/// Copies the fixture at `fixture` (under `testdata/`) into a fresh directory and fixes
/// it with `lint --fix`, the flags of its `# profile:` line and `flags`, checking that
/// `rule` fires before and not after, that no finding is new or more severe, that the
/// file changed and kubectl reads it, and that the result is a fixed point (a second
/// `--fix` changes nothing, `--diff` prints nothing and exits 0).
pub fn fix_fixture(fixture: &str, rule: &str, flags: &[&str]) -> Fixed {
    let dir = tempfile::tempdir().unwrap();
    let name = Path::new(fixture).file_name().unwrap();
    let path = dir.path().join(name);
    std::fs::copy(testdata(fixture), &path).unwrap();
    let original = std::fs::read_to_string(&path).unwrap();
    let mut flags: Vec<String> = flags.iter().map(|flag| (*flag).to_owned()).collect();
    flags.extend(profile_flags(&original));
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    // The findings as `lint` reports them, whatever fixes `--fix` would make.
    let lint_flags: Vec<&str> = flags
        .iter()
        .copied()
        .filter(|flag| *flag != "--unsafe-fixes")
        .collect();
    let before = findings(&path, &lint_flags);
    assert!(
        before.iter().any(|(r, ..)| r == rule),
        "{fixture} fires {rule}: {before:?}"
    );
    let read_before = kubectl_reads(&path);
    let fix = || {
        cli()
            .arg("lint")
            .args(&flags)
            .arg("--fix")
            .arg(&path)
            .assert()
            .code(predicates::ord::lt(2));
    };
    fix();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_ne!(text, original, "{fixture}: --fix changed nothing");
    let after = findings(&path, &lint_flags);
    assert!(
        !after.iter().any(|(r, ..)| r == rule),
        "{rule} still fires after --fix on {fixture}:\n{text}"
    );
    for finding in &after {
        assert!(
            before.contains(finding),
            "{fixture}: {finding:?} is new or more severe after --fix:\n{text}"
        );
    }
    let reads = read_before.zip(kubectl_reads(&path));
    fix();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        text,
        "{fixture}: a second --fix changed the file"
    );
    cli()
        .arg("lint")
        .args(&flags)
        .arg("--diff")
        .arg(&path)
        .assert()
        .code(0)
        .stdout("");
    Fixed { text, reads }
}

/// `(rule, severity, container)` of every finding, sorted, for comparing two runs.
fn findings(path: &Path, flags: &[&str]) -> Vec<(String, String, String)> {
    let (report, _) = lint_json(path, flags);
    let mut found: Vec<(String, String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| {
            (
                finding["ruleId"].as_str().unwrap().to_owned(),
                finding["severity"].as_str().unwrap().to_owned(),
                finding["container"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    found.sort();
    found
}
