//! `--format sarif` against the official SARIF 2.1.0 schema and what GitHub code
//! scanning requires, over every fixture in `testdata/`.

use crate::common;

use std::collections::BTreeSet;

use common::{cli, root, testdata};
use serde_json::Value;

/// Runs `lint --format sarif` from the repository root; returns the log and the exit
/// status.
fn sarif(args: &[&str], stdin: Option<&str>) -> (Value, i32) {
    let mut command = cli();
    command
        .current_dir(root())
        .args(["lint", "--format", "sarif"])
        .args(args);
    if let Some(text) = stdin {
        command.write_stdin(text);
    }
    let output = command.output().unwrap();
    let log = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "stdout is not JSON: {error}\n{}",
            String::from_utf8_lossy(&output.stdout)
        )
    });
    (log, output.status.code().unwrap())
}

type Markers = BTreeSet<(String, u64)>;

/// `(ruleId, line)` markers of a fixture: `# expect: ML101` or `# suppressed: ML301`
/// (both may share a line).
fn markers(text: &str, marker: &str) -> Markers {
    let mut found = BTreeSet::new();
    for (index, line) in text.lines().enumerate() {
        let Some(at) = line.find('#') else { continue };
        let mut current = None;
        for word in line[at + 1..].split_whitespace() {
            if let Some(name) = word.strip_suffix(':') {
                current = Some(name == marker);
            } else if current == Some(true) && is_rule_id(word) {
                found.insert((word.to_owned(), index as u64 + 1));
            }
        }
    }
    found
}

fn is_rule_id(word: &str) -> bool {
    word.len() == 5 && word.starts_with("ML") && word[2..].bytes().all(|b| b.is_ascii_digit())
}

#[test]
fn the_whole_testdata_set_is_valid_sarif_that_github_accepts() {
    let (log, status) = sarif(&["testdata"], None);
    assert_eq!(status, 2, "testdata/bad holds an unreadable input");
    common::validate_sarif(&log);

    // What GitHub code scanning requires of an upload.
    assert_eq!(log["version"], "2.1.0");
    assert!(
        log["$schema"]
            .as_str()
            .unwrap()
            .contains("sarif-schema-2.1.0")
    );
    let runs = log["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "kubectl-mesh-lifecycle");
    let rules = driver["rules"].as_array().unwrap();
    let catalog: Vec<&str> = mesh_lifecycle::rules::RULES
        .iter()
        .map(|r| r.meta().id)
        .collect();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, catalog, "rules[] is the whole catalog, in order");
    for (rule, meta) in rules.iter().zip(mesh_lifecycle::rules::RULES) {
        let meta = meta.meta();
        assert_eq!(rule["name"], meta.name);
        assert!(
            !rule["shortDescription"]["text"]
                .as_str()
                .unwrap()
                .is_empty()
        );
        assert!(!rule["fullDescription"]["text"].as_str().unwrap().is_empty());
        assert_eq!(rule["help"]["markdown"].as_str().unwrap(), meta.doc());
        assert!(!rule["help"]["text"].as_str().unwrap().is_empty());
        let level = match meta.severity {
            mesh_lifecycle::rules::Severity::Error => "error",
            mesh_lifecycle::rules::Severity::Warning => "warning",
            mesh_lifecycle::rules::Severity::Info => "note",
        };
        assert_eq!(rule["defaultConfiguration"]["level"], level);
    }
    let base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .unwrap();
    assert!(
        base.starts_with("file:///") && base.ends_with('/'),
        "{base}"
    );

    let results = run["results"].as_array().unwrap();
    assert!(results.len() >= 20, "{} results", results.len());
    let mut fingerprints = BTreeSet::new();
    for result in results {
        let id = result["ruleId"].as_str().unwrap();
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], id, "ruleIndex points at the rule");
        assert!(["error", "warning", "note"].contains(&result["level"].as_str().unwrap()));
        assert!(!result["message"]["text"].as_str().unwrap().is_empty());
        let location = &result["locations"][0]["physicalLocation"];
        let uri = location["artifactLocation"]["uri"].as_str().unwrap();
        assert!(
            uri.starts_with("testdata/"),
            "relative to the current directory: {uri}"
        );
        assert_eq!(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        check_region(&location["region"]);
        for related in result["relatedLocations"].as_array().into_iter().flatten() {
            check_region(&related["physicalLocation"]["region"]);
            assert!(!related["message"]["text"].as_str().unwrap().is_empty());
        }
        let fingerprint = result["partialFingerprints"]["primaryLocationLineHash"]
            .as_str()
            .unwrap();
        assert!(
            fingerprints.insert(fingerprint.to_owned()),
            "fingerprints are unique: {fingerprint}"
        );
    }

    // The unreadable input is a notification, and the run says it did not succeed.
    let invocation = &run["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let notifications = invocation["toolExecutionNotifications"].as_array().unwrap();
    assert!(notifications.iter().any(|n| {
        n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            == "testdata/bad/unclosed-flow.yaml"
            && n["locations"][0]["physicalLocation"]["region"]["startLine"] == 9
    }));
}

fn check_region(region: &Value) {
    let start = (
        region["startLine"].as_u64().unwrap(),
        region["startColumn"].as_u64().unwrap(),
    );
    let end = (
        region["endLine"].as_u64().unwrap(),
        region["endColumn"].as_u64().unwrap(),
    );
    assert!(start.0 >= 1 && start.1 >= 1, "{region}");
    assert!(end > start, "the end is after the start: {region}");
}

/// Every result sits on the line its fixture marks, so no region defaults to line 1.
/// Each fixture is linted alone, with the flags of its `# profile:` line, as the rule
/// fixture test does.
#[test]
fn regions_point_at_the_marked_nodes() {
    for dir in ["rules", "suppressions"] {
        let mut files: Vec<_> = std::fs::read_dir(testdata(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .collect();
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap();
            let uri = format!(
                "testdata/{dir}/{}",
                path.file_name().unwrap().to_str().unwrap()
            );
            let mut args: Vec<String> = vec!["--fail-on".into(), "never".into()];
            args.extend(common::profile_flags(&text));
            args.push(uri.clone());
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (log, _) = sarif(&args, None);
            common::validate_sarif(&log);
            let (mut active, mut suppressed) = (Markers::new(), Markers::new());
            for result in log["runs"][0]["results"].as_array().unwrap() {
                let location = &result["locations"][0]["physicalLocation"];
                assert_eq!(location["artifactLocation"]["uri"], uri.as_str());
                let key = (
                    result["ruleId"].as_str().unwrap().to_owned(),
                    location["region"]["startLine"].as_u64().unwrap(),
                );
                if result["suppressions"].as_array().unwrap().is_empty() {
                    active.insert(key);
                } else {
                    suppressed.insert(key);
                }
            }
            assert_eq!(active, markers(&text, "expect"), "{uri}");
            assert_eq!(suppressed, markers(&text, "suppressed"), "{uri}");
        }
    }
}

#[test]
fn suppressed_findings_are_listed_with_their_reasons() {
    let (log, status) = sarif(
        &[
            "--select",
            "ML101,ML201,ML206,ML301",
            "testdata/suppressions/all-suppressed.yaml",
        ],
        None,
    );
    assert_eq!(status, 0, "suppressed findings do not fail the gate");
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    for result in results {
        let suppressions = result["suppressions"].as_array().unwrap();
        assert_eq!(suppressions.len(), 1);
        assert_eq!(suppressions[0]["kind"], "inSource");
        assert!(
            !suppressions[0]["justification"]
                .as_str()
                .unwrap()
                .is_empty()
        );
    }
    let reasons: BTreeSet<&str> = results
        .iter()
        .map(|r| r["suppressions"][0]["justification"].as_str().unwrap())
        .collect();
    assert!(reasons.contains("a one-off debugging Job, deleted by hand"));
}

/// A suppressed result offers no fix: the user accepted the finding, and `--fix`
/// leaves it alone. The same file without its suppressions has fixes on those results,
/// so the test sees the difference.
#[test]
fn suppressed_results_carry_no_fixes() {
    let fixed_rules = |log: &Value| -> BTreeSet<String> {
        log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|result| result.get("fixes").is_some())
            .map(|result| result["ruleId"].as_str().unwrap().to_owned())
            .collect()
    };
    let path = "testdata/suppressions/all-suppressed.yaml";
    let (log, _) = sarif(&[path], None);
    assert!(
        log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|result| !result["suppressions"].as_array().unwrap().is_empty()),
        "every result of {path} is suppressed"
    );
    assert_eq!(fixed_rules(&log), BTreeSet::new());
    let text = std::fs::read_to_string(root().join(path)).unwrap();
    let unsuppressed: String = text
        .lines()
        .filter(|line| {
            !line.contains("ignore-check.mesh-lifecycle.io/")
                && !line.contains("mesh-lifecycle.io/ignore-all")
        })
        .map(|line| format!("{line}\n"))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let open = dir.path().join("unsuppressed.yaml");
    std::fs::write(&open, unsuppressed).unwrap();
    let (log, _) = sarif(&[open.to_str().unwrap()], None);
    assert!(!fixed_rules(&log).is_empty(), "{log:#}");
    // `--fix` agrees: the suppressed file is left as it is.
    let copy = dir.path().join("all-suppressed.yaml");
    std::fs::write(&copy, &text).unwrap();
    common::cli()
        .args(["lint", "--fix", "--unsafe-fixes"])
        .arg(&copy)
        .assert()
        .code(0);
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), text);
}

#[test]
fn related_locations_carry_the_other_side_of_the_comparison() {
    let (log, _) = sarif(
        &[
            "--select",
            "ML201",
            "testdata/rules/ml201-fire-prestop-plus-drain.yaml",
        ],
        None,
    );
    let result = &log["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "ML201");
    let region = &result["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (region["startLine"].as_u64(), region["startColumn"].as_u64()),
        (Some(18), Some(37))
    );
    let related: Vec<(u64, &str)> = result["relatedLocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["physicalLocation"]["region"]["startLine"]
                    .as_u64()
                    .unwrap(),
                r["message"]["text"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(
        related
            .iter()
            .any(|(line, text)| *line == 20 && text.contains("grace period")),
        "{related:?}"
    );
    let ids: Vec<u64> = result["relatedLocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, (1..=ids.len() as u64).collect::<Vec<_>>());
}

#[test]
fn fingerprints_do_not_depend_on_line_numbers() {
    let text =
        std::fs::read_to_string(testdata("rules/ml201-fire-prestop-plus-drain.yaml")).unwrap();
    let shifted = format!("# a comment\n# another\n{text}");
    let fingerprint = |log: &Value| {
        log["runs"][0]["results"][0]["partialFingerprints"]["primaryLocationLineHash"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (before, _) = sarif(&["--select", "ML201", "-"], Some(&text));
    let (after, _) = sarif(&["--select", "ML201", "-"], Some(&shifted));
    assert_eq!(fingerprint(&before), fingerprint(&after));
    let line = |log: &Value| {
        log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(line(&after), line(&before) + 2);
}

#[test]
fn standard_input_and_files_outside_the_directory_get_sensible_uris() {
    let text = std::fs::read_to_string(testdata("rules/ml206-fire-sleep-45.yaml")).unwrap();
    let (log, status) = sarif(&["--select", "ML206", "-"], Some(&text));
    assert_eq!(status, 1);
    common::validate_sarif(&log);
    let artifact =
        &log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(artifact["uri"], "-", "named as in every other format");
    assert!(artifact.get("uriBaseId").is_none());

    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("my app.yaml");
    std::fs::write(&outside, &text).unwrap();
    let (log, _) = sarif(&["--select", "ML206", outside.to_str().unwrap()], None);
    common::validate_sarif(&log);
    let uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        ["uri"]
        .as_str()
        .unwrap();
    assert!(
        uri.starts_with("file:///") && uri.ends_with("/my%20app.yaml"),
        "{uri}"
    );
}

#[test]
fn a_clean_run_still_has_results() {
    let (log, status) = sarif(&["testdata/rules/ml206-silent-short-sleep.yaml"], None);
    assert_eq!(status, 0);
    common::validate_sarif(&log);
    assert_eq!(log["runs"][0]["results"], serde_json::json!([]));
    assert_eq!(
        log["runs"][0]["invocations"][0]["executionSuccessful"],
        true
    );
}
