//! The precision review the project keeps: every warning and error that `lint` gives
//! on the corpus with the default profile, as a user meets it in a new repository, is
//! listed in `testdata/corpus-verdicts.tsv` with its severity, the premises it rests on
//! and a verdict judged by hand (`true` or `false`, with the reason). A change that adds
//! a warning or an error, raises one, or clears one fails here until the file is
//! reviewed again: `MESH_LIFECYCLE_UPDATE_VERDICTS=1` rewrites the file with the new
//! findings marked `?` (still failing until judged) and the stale rows dropped.

use std::collections::BTreeMap;

use crate::common::{cli, corpus_files, testdata};

const FILE: &str = "corpus-verdicts.tsv";
const HEADER: &str = "file\tline\trule\tseverity\tpremises\tverdict\treason";

/// What identifies a finding across runs: its file (under `testdata/corpus/`), line
/// and rule.
type Key = (String, u64, String);

/// A finding as the review sees it: its severity and the kinds of its premises.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Seen {
    severity: String,
    premises: String,
}

/// A reviewed row.
struct Verdict {
    seen: Seen,
    verdict: String,
    reason: String,
}

fn findings() -> BTreeMap<Key, Seen> {
    let corpus = testdata("corpus");
    let output = cli()
        .current_dir(&corpus)
        .args([
            "lint",
            "--no-config",
            "--format",
            "json",
            "--fail-on",
            "never",
        ])
        .args(
            corpus_files()
                .iter()
                .map(|file| file.strip_prefix(&corpus).unwrap()),
        )
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut found = BTreeMap::new();
    for finding in report["findings"].as_array().unwrap() {
        let severity = finding["severity"].as_str().unwrap();
        if severity == "info" {
            continue;
        }
        let mut premises: Vec<&str> = finding["evidence"]["premises"]
            .as_array()
            .unwrap()
            .iter()
            .map(|premise| premise["kind"].as_str().unwrap())
            .collect();
        premises.sort_unstable();
        premises.dedup();
        let key = (
            finding["file"].as_str().unwrap().to_owned(),
            finding["line"].as_u64().unwrap(),
            finding["ruleId"].as_str().unwrap().to_owned(),
        );
        let premises = if premises.is_empty() {
            "-".to_owned()
        } else {
            premises.join(",")
        };
        found.insert(
            key,
            Seen {
                severity: severity.to_owned(),
                premises,
            },
        );
    }
    found
}

fn read(problems: &mut Vec<String>) -> BTreeMap<Key, Verdict> {
    let text = std::fs::read_to_string(testdata(FILE)).unwrap_or_default();
    let mut rows = BTreeMap::new();
    let mut header = false;
    for (index, row) in text.lines().enumerate() {
        let at = format!("{FILE}:{}", index + 1);
        if row.starts_with('#') || row.trim().is_empty() {
            continue;
        }
        if !header {
            assert_eq!(row, HEADER, "{at}: the first row names the columns");
            header = true;
            continue;
        }
        let fields: Vec<&str> = row.split('\t').collect();
        let [file, line, rule, severity, premises, verdict, reason] = fields[..] else {
            problems.push(format!("{at}: {} columns, expected 7", fields.len()));
            continue;
        };
        let Ok(line) = line.parse() else {
            problems.push(format!("{at}: `{line}` is no line number"));
            continue;
        };
        if !matches!(verdict, "true" | "false" | "?") {
            problems.push(format!("{at}: verdict `{verdict}` is not true, false or ?"));
        }
        let key = (file.to_owned(), line, rule.to_owned());
        let seen = Seen {
            severity: severity.to_owned(),
            premises: premises.to_owned(),
        };
        let verdict = Verdict {
            seen,
            verdict: verdict.to_owned(),
            reason: reason.to_owned(),
        };
        if rows.insert(key, verdict).is_some() {
            problems.push(format!("{at}: {file}:{line} {rule} is listed twice"));
        }
    }
    rows
}

fn write(found: &BTreeMap<Key, Seen>, reviewed: &BTreeMap<Key, Verdict>) {
    let old = std::fs::read_to_string(testdata(FILE)).unwrap_or_default();
    let mut text: String = old
        .lines()
        .take_while(|line| line.starts_with('#'))
        .map(|line| format!("{line}\n"))
        .collect();
    text.push_str(HEADER);
    text.push('\n');
    for (key, seen) in found {
        let (verdict, reason) = match reviewed.get(key) {
            Some(row) if row.seen == *seen => (row.verdict.as_str(), row.reason.as_str()),
            _ => ("?", "unreviewed"),
        };
        let (file, line, rule) = key;
        text.push_str(&format!(
            "{file}\t{line}\t{rule}\t{}\t{}\t{verdict}\t{reason}\n",
            seen.severity, seen.premises
        ));
    }
    std::fs::write(testdata(FILE), text).unwrap();
}

#[test]
fn every_warning_and_error_on_the_corpus_is_reviewed() {
    let found = findings();
    let mut problems = Vec::new();
    let reviewed = read(&mut problems);
    if std::env::var_os("MESH_LIFECYCLE_UPDATE_VERDICTS").is_some() {
        write(&found, &reviewed);
    }
    for (key @ (file, line, rule), seen) in &found {
        match reviewed.get(key) {
            None => problems.push(format!(
                "{file}:{line} {rule} ({}, premises {}) is not reviewed",
                seen.severity, seen.premises
            )),
            Some(row) if row.seen != *seen => problems.push(format!(
                "{file}:{line} {rule} is now {} resting on {}, reviewed as {} on {}",
                seen.severity, seen.premises, row.seen.severity, row.seen.premises
            )),
            Some(row) if row.verdict == "?" || row.reason.trim().is_empty() => {
                problems.push(format!("{file}:{line} {rule} awaits its verdict"));
            }
            Some(_) => {}
        }
    }
    for (file, line, rule) in reviewed.keys().filter(|key| !found.contains_key(*key)) {
        problems.push(format!(
            "{file}:{line} {rule} is reviewed but no longer found"
        ));
    }
    // A finding judged false is never an error: where the input does not prove a loss,
    // the finding is lowered.
    for ((file, line, rule), row) in &reviewed {
        if row.verdict == "false" && row.seen.severity == "error" {
            problems.push(format!(
                "{file}:{line} {rule} is a false error: {}",
                row.reason
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} (run with MESH_LIFECYCLE_UPDATE_VERDICTS=1 to list new findings, then judge each):\n{}",
        FILE,
        problems.join("\n")
    );
    let judged = reviewed.values().filter(|row| row.verdict != "?").count();
    let true_ones = reviewed
        .values()
        .filter(|row| row.verdict == "true")
        .count();
    eprintln!("corpus precision: {true_ones} of {judged} warnings and errors judged true");
}
