//! The shared corpus of real manifests (copied verbatim into `testdata/corpus/`):
//! every file is read without a crash, and every file yields the findings reviewed for it
//! in `testdata/corpus-expectations.tsv`.

use crate::common;

use common::{cli, corpus_files, lint_json, rule_lines, testdata};

#[test]
fn every_corpus_file_is_processed_without_a_crash() {
    let files = corpus_files();
    assert!(files.len() >= 130, "the corpus has {} files", files.len());
    let output = cli()
        .args(["lint", "--format", "json"])
        .args(&files)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "status {:?}: {stderr}",
        output.status
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        report["summary"]["files"].as_u64().unwrap(),
        files.len() as u64
    );
    assert_eq!(report["summary"]["inputErrors"], 0, "{stderr}");
    assert!(report["summary"]["workloads"].as_u64().unwrap() >= 150);
}

/// One row of `testdata/corpus-expectations.tsv`.
struct Expectation {
    line: usize,
    file: String,
    /// `None` when the column is malformed (reported as a problem).
    findings: Option<Vec<(String, u64)>>,
}

/// Parses `RULEID:LINE RULEID:LINE ...` (or `-`), checking the documented order: by line,
/// then rule id.
fn parse_findings(text: &str) -> Result<Vec<(String, u64)>, String> {
    if text == "-" {
        return Ok(Vec::new());
    }
    let mut findings = Vec::new();
    for token in text.split(' ') {
        let (rule, line) = token
            .split_once(':')
            .ok_or_else(|| format!("`{token}` is not RULEID:LINE"))?;
        let valid_rule = rule.len() == 5
            && rule.starts_with("ML")
            && rule[2..].bytes().all(|b| b.is_ascii_digit());
        let line: u64 = line
            .parse()
            .map_err(|_| format!("`{token}` has no line number"))?;
        if !valid_rule || line == 0 {
            return Err(format!("`{token}` is not RULEID:LINE"));
        }
        findings.push((rule.to_owned(), line));
    }
    let mut sorted = findings.clone();
    sorted.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
    if sorted != findings {
        return Err(format!("`{text}` is not sorted by line, then rule id"));
    }
    Ok(findings)
}

/// Reads the expectations table; every malformed row is reported as a problem.
fn read_expectations(problems: &mut Vec<String>) -> Vec<Expectation> {
    let path = testdata("corpus-expectations.tsv");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut rows = Vec::new();
    let mut header = false;
    for (index, row) in text.lines().enumerate() {
        let line = index + 1;
        if row.starts_with('#') || row.trim().is_empty() {
            continue;
        }
        if !header {
            assert_eq!(
                row, "file\tfindings\treview",
                "corpus-expectations.tsv:{line}: the first row names the columns"
            );
            header = true;
            continue;
        }
        let fields: Vec<&str> = row.split('\t').collect();
        let [file, findings, review] = fields[..] else {
            problems.push(format!(
                "corpus-expectations.tsv:{line}: {} columns, expected 3",
                fields.len()
            ));
            continue;
        };
        if review.trim().is_empty() {
            problems.push(format!(
                "corpus-expectations.tsv:{line}: {file}: empty review"
            ));
        }
        if !testdata("corpus").join(file).is_file() || matches!(file, "SOURCES.md" | "INDEX.tsv") {
            problems.push(format!(
                "corpus-expectations.tsv:{line}: {file} is not a corpus file"
            ));
            continue;
        }
        let findings = parse_findings(findings)
            .map_err(|error| {
                problems.push(format!("corpus-expectations.tsv:{line}: {file}: {error}"));
            })
            .ok();
        rows.push(Expectation {
            line,
            file: file.to_owned(),
            findings,
        });
    }
    rows
}

fn format_findings(findings: &[(String, u64)]) -> String {
    if findings.is_empty() {
        return "-".into();
    }
    findings
        .iter()
        .map(|(rule, line)| format!("{rule}:{line}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every corpus file, linted on its own with default settings, yields exactly the findings
/// its row of `testdata/corpus-expectations.tsv` lists; each row is reviewed by hand against
/// the hazard note of INDEX.tsv. All mismatches are reported together.
#[test]
fn every_corpus_file_yields_its_reviewed_findings() {
    let mut problems = Vec::new();
    let rows = read_expectations(&mut problems);

    let corpus = testdata("corpus");
    let files: Vec<String> = corpus_files()
        .iter()
        .map(|path| {
            let relative = path.strip_prefix(&corpus).unwrap();
            relative.to_str().unwrap().replace('\\', "/")
        })
        .collect();
    let mut seen = std::collections::BTreeMap::new();
    for row in &rows {
        if let Some(first) = seen.insert(row.file.as_str(), row.line) {
            problems.push(format!(
                "corpus-expectations.tsv:{}: {} already has a row at line {first}",
                row.line, row.file
            ));
        }
    }
    for file in &files {
        if !seen.contains_key(file.as_str()) {
            problems.push(format!("{file}: no row in corpus-expectations.tsv"));
        }
    }

    for row in &rows {
        let Some(expected) = &row.findings else {
            continue;
        };
        let (report, status) = lint_json(&corpus.join(&row.file), &["--no-config"]);
        if !matches!(status, 0 | 1) || report["errors"].as_array().is_some_and(|e| !e.is_empty()) {
            problems.push(format!(
                "{}: exit status {status}, input errors {}",
                row.file, report["errors"]
            ));
        }
        let mut found = rule_lines(&report);
        found.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
        if found != *expected {
            let missing: Vec<_> = expected
                .iter()
                .filter(|f| !found.contains(f))
                .cloned()
                .collect();
            let unexpected: Vec<_> = found
                .iter()
                .filter(|f| !expected.contains(f))
                .cloned()
                .collect();
            problems.push(format!(
                "{} (corpus-expectations.tsv:{}): expected {}, found {}{}{}",
                row.file,
                row.line,
                format_findings(expected),
                format_findings(&found),
                if missing.is_empty() {
                    String::new()
                } else {
                    format!("; missing {}", format_findings(&missing))
                },
                if unexpected.is_empty() {
                    String::new()
                } else {
                    format!("; unexpected {}", format_findings(&unexpected))
                },
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}
