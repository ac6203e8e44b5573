//! Fix coverage: the README's table of findings with a safe fix, an unsafe fix or none
//! over `testdata/corpus` is what `lint` reports (regenerated with
//! `MESH_LIFECYCLE_UPDATE_DOCS=1 cargo test --test fix_coverage`); each fix added for
//! coverage is made through the binary where it is offered, read back by kubectl, and
//! clears its finding without a new or worse one; where it is not offered, the file
//! is left as it was.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

const COVERAGE_START: &str = "<!-- fix-coverage:start -->\n";
const COVERAGE_END: &str = "<!-- fix-coverage:end -->";

/// Per rule: findings, with a safe fix, with an unsafe fix, with none.
type Counts = BTreeMap<String, [usize; 4]>;

/// The coverage of `lint --format json` over the corpus, linted as one directory.
fn corpus_coverage() -> (Counts, String) {
    let (report, _) = common::lint_json(&common::testdata("corpus"), &[]);
    let mut counts = Counts::new();
    let mut severities = BTreeMap::new();
    for finding in report["findings"].as_array().unwrap() {
        let rule = finding["ruleId"].as_str().unwrap().to_owned();
        severities
            .entry(rule.clone())
            .or_insert_with(Vec::new)
            .push(finding["severity"].as_str().unwrap().to_owned());
        let row = counts.entry(rule).or_default();
        row[0] += 1;
        match finding["fix"]["applicability"].as_str() {
            Some("safe") => row[1] += 1,
            Some("unsafe") => row[2] += 1,
            _ => row[3] += 1,
        }
    }
    let mut table = String::from(
        "| Rule | Severity | Findings | Safe fix | Unsafe fix | No fix |\n|------|----------|---------:|---------:|-----------:|-------:|\n",
    );
    let mut total = [0; 4];
    for (rule, row) in &counts {
        let mut kinds = severities[rule].clone();
        kinds.sort();
        kinds.dedup();
        table.push_str(&format!(
            "| {rule} | {} | {} | {} | {} | {} |\n",
            kinds.join(", "),
            row[0],
            row[1],
            row[2],
            row[3]
        ));
        for (sum, value) in total.iter_mut().zip(row) {
            *sum += value;
        }
    }
    table.push_str(&format!(
        "| **all** | | **{}** | **{}** | **{}** | **{}** |\n",
        total[0], total[1], total[2], total[3]
    ));
    (counts, table)
}

#[test]
fn readme_coverage_table_is_what_lint_reports_over_the_corpus() {
    let (counts, table) = corpus_coverage();
    let path = common::root().join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let start = readme
        .find(COVERAGE_START)
        .expect("README has the fix-coverage start marker")
        + COVERAGE_START.len();
    let end = readme
        .find(COVERAGE_END)
        .expect("README has the fix-coverage end marker");
    if std::env::var_os("MESH_LIFECYCLE_UPDATE_DOCS").is_some() {
        let updated = format!("{}{table}{}", &readme[..start], &readme[end..]);
        std::fs::write(&path, updated).unwrap();
    } else {
        assert_eq!(
            readme[start..end],
            table,
            "the README's fix coverage is stale; run MESH_LIFECYCLE_UPDATE_DOCS=1 cargo test --test fix_coverage"
        );
    }
    // Every error the corpus shows with a mechanical remedy carries a fix.
    for rule in ["ML202", "ML203", "ML301"] {
        let row = counts.get(rule).copied().unwrap_or_default();
        assert!(row[0] > 0, "the corpus shows {rule}");
        assert_eq!(row[3], 0, "every {rule} finding of the corpus has a fix");
    }
}

/// A fixture of `testdata/fixes/coverage/` copied into a fresh directory.
fn copy(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::copy(common::testdata(&format!("fixes/coverage/{name}")), &path).unwrap();
    (dir, path)
}

/// `(rule, severity, container)` of every finding, for comparing two runs.
fn findings(path: &Path, flags: &[&str]) -> Vec<(String, String, String)> {
    let (report, _) = common::lint_json(path, flags);
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

/// What kubectl reads from `path`, with the label every read adds; `None` without
/// kubectl (then `MESH_LIFECYCLE_REQUIRE_KUBECTL` unset lets the check go).
fn kubectl_reads(path: &Path) -> Option<serde_json::Value> {
    let Some(kubectl) = common::kubectl_binary() else {
        assert!(
            std::env::var_os("MESH_LIFECYCLE_REQUIRE_KUBECTL").is_none(),
            "kubectl is required"
        );
        return None;
    };
    let output = std::process::Command::new(kubectl)
        .args(["label", "--local", "-f"])
        .arg(path)
        .args(["x=y", "-o", "json"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "kubectl cannot read {}: {}",
        path.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    Some(serde_json::from_slice(&output.stdout).unwrap())
}

/// The value at a `/`-separated pointer of what kubectl read.
fn at<'a>(object: &'a serde_json::Value, pointer: &str) -> &'a serde_json::Value {
    object.pointer(pointer).unwrap_or(&serde_json::Value::Null)
}

/// Runs `lint --fix` (with `flags`) on the fixture `name`, expecting `rule` to fire
/// before and not after, no finding new or worse, and kubectl to read the result;
/// returns what kubectl reads before and after.
fn fixed(
    name: &str,
    rule: &str,
    flags: &[&str],
) -> (String, Option<(serde_json::Value, serde_json::Value)>) {
    let (_dir, path) = copy(name);
    let before_text = std::fs::read_to_string(&path).unwrap();
    let mut flags: Vec<String> = flags.iter().map(|flag| (*flag).to_owned()).collect();
    flags.extend(common::profile_flags(&before_text));
    let lint_flags: Vec<&str> = flags
        .iter()
        .map(String::as_str)
        .filter(|flag| !matches!(*flag, "--unsafe-fixes"))
        .collect();
    let before = findings(&path, &lint_flags);
    assert!(
        before.iter().any(|(r, ..)| r == rule),
        "{name} fires {rule}: {before:?}"
    );
    let read_before = kubectl_reads(&path);
    common::cli()
        .arg("lint")
        .args(&flags)
        .arg("--fix")
        .arg(&path)
        .assert()
        .code(predicates::ord::lt(2));
    let text = std::fs::read_to_string(&path).unwrap();
    assert_ne!(text, before_text, "{name}: --fix changed nothing");
    let after = findings(&path, &lint_flags);
    assert!(
        !after.iter().any(|(r, ..)| r == rule),
        "{rule} still fires after --fix on {name}:\n{text}"
    );
    for finding in &after {
        assert!(
            before.contains(finding),
            "{name}: {finding:?} is new or more severe after --fix:\n{text}"
        );
    }
    // A second run changes nothing.
    common::cli()
        .arg("lint")
        .args(&flags)
        .arg("--fix")
        .arg(&path)
        .assert()
        .code(predicates::ord::lt(2));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "{name}: not a fixed point");
    let reads = read_before.zip(kubectl_reads(&path));
    (text, reads)
}

/// Runs `lint --fix --unsafe-fixes` on `name`, where `rule` fires but has no fix: the
/// file is left as it was.
fn not_fixed(name: &str, rule: &str) {
    let (_dir, path) = copy(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let flags = common::profile_flags(&text);
    let lint_flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let (report, _) = common::lint_json(&path, &lint_flags);
    let offered: Vec<_> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| finding["ruleId"] == rule)
        .collect();
    assert!(!offered.is_empty(), "{name} fires {rule}");
    assert!(
        offered.iter().all(|finding| finding["fix"].is_null()),
        "{name}: {rule} offers no fix: {offered:?}"
    );
    common::cli()
        .arg("lint")
        .args(&flags)
        .args(["--fix", "--unsafe-fixes", "--select", rule])
        .arg(&path)
        .assert()
        .code(predicates::ord::lt(2));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "{name} changed");
}
