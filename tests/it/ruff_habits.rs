//! What a ruff user types works as in ruff: `--output-format`, `--statistics`,
//! `--exit-zero` and `--watch`.

use crate::common;

use std::collections::BTreeMap;
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{cli, testdata};

/// Fixtures with findings of several rules, fixable and not.
const FIXTURES: [&str; 4] = [
    "rules/ml101-fire-job.yaml",
    "rules/ml206-fire-sleep-45.yaml",
    "rules/ml101-fire-inject-label.yaml",
    "corpus/istio-inject/istio-1.24.0/job.yaml.injected",
];

/// Per rule: (count, fixable with --fix), from the JSON report.
fn expected() -> BTreeMap<String, (u64, u64)> {
    let output = cli()
        .args(["lint", "--output-format", "json"])
        .args(FIXTURES.map(testdata))
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut counts = BTreeMap::new();
    for finding in report["findings"].as_array().unwrap() {
        let entry: &mut (u64, u64) = counts
            .entry(finding["ruleId"].as_str().unwrap().to_owned())
            .or_default();
        entry.0 += 1;
        entry.1 += u64::from(finding["fix"]["applicability"] == "safe");
    }
    counts
}

#[test]
fn statistics_count_findings_and_fixes_by_rule() {
    let expected = expected();
    assert!(expected.len() >= 3, "{expected:?}");
    assert!(expected.values().any(|(_, fixable)| *fixable > 0));
    assert!(expected.values().any(|(_, fixable)| *fixable == 0));
    let output = cli()
        .args(["lint", "--statistics"])
        .args(FIXTURES.map(testdata))
        .output()
        .unwrap();
    // The exit status is the run's, as without --statistics.
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8(output.stdout).unwrap();
    let mut seen = BTreeMap::new();
    let mut previous = u64::MAX;
    for line in text.lines() {
        // `  3<TAB>ML101<TAB>[*] app-starts-before-proxy`
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 3, "{line:?}");
        let count: u64 = fields[0].trim().parse().unwrap();
        assert!(count <= previous, "the most frequent first:\n{text}");
        previous = count;
        let (mark, name) = fields[2].split_at(3);
        let rule = fields[1].trim();
        let (_, fixable) = expected[rule];
        let want = match fixable {
            0 => "[ ]",
            n if n == count => "[*]",
            _ => "[-]",
        };
        assert_eq!(mark, want, "{line}");
        let meta = mesh_lifecycle::rules::find(rule).unwrap().meta();
        assert_eq!(name.trim(), meta.name);
        seen.insert(rule.to_owned(), count);
    }
    let counts: BTreeMap<String, u64> =
        expected.iter().map(|(r, (n, _))| (r.clone(), *n)).collect();
    assert_eq!(seen, counts, "{text}");

    let output = cli()
        .args(["lint", "--statistics", "-o", "json"])
        .args(FIXTURES.map(testdata))
        .output()
        .unwrap();
    let rows: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let from_json: BTreeMap<String, (u64, u64)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                row["code"].as_str().unwrap().to_owned(),
                (
                    row["count"].as_u64().unwrap(),
                    row["fixableCount"].as_u64().unwrap(),
                ),
            )
        })
        .collect();
    assert_eq!(from_json, expected);
    // A format that has no place for counts is refused.
    cli()
        .args(["lint", "--statistics", "-o", "sarif"])
        .arg(testdata(FIXTURES[0]))
        .assert()
        .code(2);
}

#[test]
fn exit_zero_passes_findings_but_not_unreadable_input() {
    let error = testdata("rules/ml206-fire-sleep-45.yaml");
    cli().arg("lint").arg(&error).assert().code(1);
    cli()
        .args(["lint", "--exit-zero"])
        .arg(&error)
        .assert()
        .code(0);
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.yaml");
    std::fs::write(&broken, "kind: Deployment\nspec: [\n").unwrap();
    cli()
        .args(["lint", "--exit-zero"])
        .arg(&error)
        .arg(&broken)
        .assert()
        .code(2);
    // It is --fail-on never under another name: not both.
    cli()
        .args(["lint", "--exit-zero", "--fail-on", "info"])
        .arg(&error)
        .assert()
        .code(2);
}

/// What a child has printed so far, read on a thread of its own.
fn collect(mut from: impl Read + Send + 'static) -> Arc<Mutex<String>> {
    let text = Arc::new(Mutex::new(String::new()));
    let into = Arc::clone(&text);
    std::thread::spawn(move || {
        let mut buffer = [0; 4096];
        while let Ok(n) = from.read(&mut buffer) {
            if n == 0 {
                break;
            }
            into.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buffer[..n]));
        }
    });
    text
}

/// Waits until `text` holds `pattern` `times` times, or fails after a while.
fn wait_for(text: &Mutex<String>, pattern: &str, times: usize, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while text.lock().unwrap().matches(pattern).count() < times {
        assert!(
            Instant::now() < deadline,
            "{what}: {pattern:?} not seen {times} times in:\n{}",
            text.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn watch_lints_again_when_a_file_changes() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("worker.yaml");
    std::fs::copy(testdata("rules/ml206-silent-short-sleep.yaml"), &manifest).unwrap();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("kubectl-mesh_lifecycle"))
        .current_dir(dir.path())
        .env("COLUMNS", "100")
        .args(["lint", "--watch", "--no-config", "-o", "json", "."])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = collect(child.stdout.take().unwrap());
    let stderr = collect(child.stderr.take().unwrap());
    wait_for(&stderr, "watching . for changes", 1, "the first run");
    assert_eq!(
        stdout.lock().unwrap().matches("\"schemaVersion\"").count(),
        1
    );
    assert!(!stdout.lock().unwrap().contains("ML206"));
    // A change to the file: the next report has its finding.
    std::fs::copy(testdata("rules/ml206-fire-sleep-45.yaml"), &manifest).unwrap();
    wait_for(
        &stderr,
        "watching . for changes",
        2,
        "the run after the change",
    );
    let reports = stdout.lock().unwrap().clone();
    let second = reports.rsplit("{\n  \"schemaVersion\"").next().unwrap();
    assert!(second.contains("\"ML206\""), "{reports}");
    assert!(stderr.lock().unwrap().contains("worker.yaml changed"));
    // Nothing else changes: no run of its own making (its reads, its report).
    std::thread::sleep(Duration::from_millis(800));
    assert_eq!(
        stdout.lock().unwrap().matches("\"schemaVersion\"").count(),
        2,
        "{}",
        stderr.lock().unwrap()
    );
    child.kill().unwrap();
    child.wait().unwrap();
    // Standard input cannot be watched.
    cli().args(["lint", "--watch", "-"]).assert().code(2);
}
