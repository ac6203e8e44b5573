//! Baselines through the binary: written by `lint --write-baseline`, read by `lint
//! --baseline`; only new findings fail, baselined ones are counted and listed on
//! request, and entries that match nothing any more are named.

use crate::common;

use std::path::Path;

use serde_json::Value;

/// A Deployment named `name`; with `hazard`, ML206 (an error).
fn deployment(name: &str, hazard: bool) -> String {
    common::deployment(name, None, hazard)
}

fn lint(dir: &Path, args: &[&str]) -> (String, String, i32) {
    let output = common::cli()
        .current_dir(dir)
        .arg("lint")
        .arg("--no-config")
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        output.status.code().unwrap_or(-1),
    )
}

fn json(stdout: &str) -> Value {
    let report: Value = serde_json::from_str(stdout).unwrap();
    common::validate_lint_json(&report);
    report
}

#[test]
fn the_baseline_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("deploy")).unwrap();
    std::fs::write(d.join("deploy/web.yaml"), deployment("web", true)).unwrap();
    std::fs::write(d.join("deploy/db.yaml"), deployment("db", true)).unwrap();
    std::fs::write(d.join("deploy/api.yaml"), deployment("api", false)).unwrap();
    // Today's findings fail the run.
    let (_, _, code) = lint(d, &["deploy"]);
    assert_eq!(code, 1);
    // Written: sorted, one entry per line, named relative to the baseline's directory.
    std::fs::create_dir(d.join("ci")).unwrap();
    let (_, stderr, code) = lint(d, &["--write-baseline", "ci/baseline.json", "deploy"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("wrote 2 findings to the baseline ci/baseline.json"),
        "{stderr}"
    );
    let text = std::fs::read_to_string(d.join("ci/baseline.json")).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| l.contains("\"ruleId\"")).collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].contains("\"file\":\"../deploy/db.yaml\""),
        "{text}"
    );
    assert!(
        lines[1].contains("\"file\":\"../deploy/web.yaml\""),
        "{text}"
    );
    assert!(
        lines.iter().all(|l| l.contains("\"ruleId\":\"ML206\"")),
        "{text}"
    );
    // Read with it: nothing new, exit 0, the two counted.
    let (stdout, _, code) = lint(
        d,
        &[
            "--baseline",
            "ci/baseline.json",
            "--format",
            "json",
            "deploy",
        ],
    );
    assert_eq!(code, 0, "{stdout}");
    let report = json(&stdout);
    assert_eq!(report["findings"].as_array().unwrap().len(), 0);
    assert_eq!(report["summary"]["baselined"], 2);
    assert_eq!(report["summary"]["errors"], 0);
    // From another directory, the baseline still holds: its paths are its own.
    let (_, _, code) = lint(&d.join("ci"), &["--baseline", "baseline.json", "../deploy"]);
    assert_eq!(code, 0);
    // Lines move (a comment on top): the fingerprints do not.
    std::fs::write(
        d.join("deploy/web.yaml"),
        format!("# owned by the web team\n\n{}", deployment("web", true)),
    )
    .unwrap();
    let (_, _, code) = lint(d, &["--baseline", "ci/baseline.json", "deploy"]);
    assert_eq!(code, 0);
    // A new hazard fails the run, and is the only finding reported.
    std::fs::write(d.join("deploy/api.yaml"), deployment("api", true)).unwrap();
    let (stdout, _, code) = lint(
        d,
        &[
            "--baseline",
            "ci/baseline.json",
            "--format",
            "json",
            "deploy",
        ],
    );
    assert_eq!(code, 1);
    let report = json(&stdout);
    let findings: Vec<(&str, &str)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["ruleId"].as_str().unwrap(),
                f["workload"]["name"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(findings, [("ML206", "api")]);
    assert_eq!(report["summary"]["baselined"], 2);
    // --show-baselined lists the others too, marked.
    let (stdout, _, code) = lint(
        d,
        &[
            "--baseline",
            "ci/baseline.json",
            "--show-baselined",
            "--format",
            "json",
            "deploy",
        ],
    );
    assert_eq!(code, 1);
    let report = json(&stdout);
    let baselined: Vec<bool> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.get("baselined").is_some())
        .collect();
    assert_eq!(baselined.iter().filter(|b| **b).count(), 2);
    assert_eq!(baselined.len(), 3);
    let (stdout, _, _) = lint(
        d,
        &[
            "--baseline",
            "ci/baseline.json",
            "--show-baselined",
            "deploy",
        ],
    );
    assert!(stdout.contains("Baselined (2, not failing):"), "{stdout}");
    assert!(stdout.contains("; 2 baselined"), "{stdout}");
    // SARIF says which results are new.
    let (stdout, _, _) = lint(
        d,
        &[
            "--baseline",
            "ci/baseline.json",
            "--show-baselined",
            "--format",
            "sarif",
            "deploy",
        ],
    );
    let log: Value = serde_json::from_str(&stdout).unwrap();
    common::validate_sarif(&log);
    let mut states: Vec<&str> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["baselineState"].as_str().unwrap())
        .collect();
    states.sort_unstable();
    assert_eq!(states, ["new", "unchanged", "unchanged"]);
    // An old hazard fixed: its entry is stale, and named so the file can shrink.
    std::fs::write(d.join("deploy/db.yaml"), deployment("db", false)).unwrap();
    std::fs::write(d.join("deploy/api.yaml"), deployment("api", false)).unwrap();
    let (stdout, stderr, code) = lint(
        d,
        &[
            "--baseline",
            "ci/baseline.json",
            "--format",
            "json",
            "deploy",
        ],
    );
    assert_eq!(code, 0);
    assert!(
        stderr.contains("baseline entry ML206 prestop-outlives-grace of Deployment db (container `db`) in ../deploy/db.yaml matches no finding any more"),
        "{stderr}"
    );
    let report = json(&stdout);
    let notes: Vec<&str> = report["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["message"].as_str().unwrap())
        .collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(report["notes"][0]["file"], "ci/baseline.json");
    // Entries of files this run did not read are not stale.
    let (_, stderr, code) = lint(d, &["--baseline", "ci/baseline.json", "deploy/web.yaml"]);
    assert_eq!(code, 0);
    assert!(!stderr.contains("matches no finding"), "{stderr}");
}

#[test]
fn a_baseline_is_not_written_from_inputs_that_could_not_be_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("web.yaml"), deployment("web", true)).unwrap();
    std::fs::write(d.join("broken.yaml"), "kind: Deployment\n  bad: [\n").unwrap();
    let (_, stderr, code) = lint(d, &["--write-baseline", "baseline.json", "."]);
    assert_eq!(code, 2, "{stderr}");
    assert!(!d.join("baseline.json").exists());
    assert!(stderr.contains("baseline.json not written"), "{stderr}");
}

#[test]
fn a_baseline_that_cannot_be_read_is_an_error_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("web.yaml"), deployment("web", true)).unwrap();
    std::fs::write(
        d.join("baseline.json"),
        "{\n  \"version\": 1,\n  \"findings\": [{]\n}\n",
    )
    .unwrap();
    let (_, stderr, code) = lint(d, &["--baseline", "baseline.json", "web.yaml"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("not a baseline this version reads"),
        "{stderr}"
    );
    assert!(stderr.contains("baseline.json:3"), "{stderr}");
}

/// `--write-baseline` never writes over a file the run reads, through any name: a
/// manifest named, one a directory search found (a baseline of an earlier run in the
/// tree), the config file. The run stops before the first document, exit 2, and the
/// file is as it was.
#[cfg(unix)]
#[test]
fn a_baseline_is_never_written_over_a_file_the_run_reads() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("deploy")).unwrap();
    let manifest = deployment("web", true);
    std::fs::write(d.join("deploy/web.yaml"), &manifest).unwrap();
    std::os::unix::fs::symlink("web.yaml", d.join("deploy/link.yaml")).unwrap();
    let earlier = "{\"version\": 1, \"findings\": []}\n";
    std::fs::write(d.join("deploy/old.json"), earlier).unwrap();
    let config = "kubernetesVersion: \"1.30\"\n";
    std::fs::write(d.join("config.yaml"), config).unwrap();
    let cases: [(&str, &[&str], &str); 4] = [
        ("the input named", &["deploy/web.yaml"], "deploy/web.yaml"),
        ("a link to it", &["deploy/web.yaml"], "deploy/link.yaml"),
        ("a file the search found", &["deploy"], "deploy/old.json"),
        (
            "the config file",
            &["--config", "config.yaml", "deploy/web.yaml"],
            "config.yaml",
        ),
    ];
    for (case, args, target) in cases {
        let output = common::cli()
            .current_dir(d)
            .args(["lint", "--write-baseline", target])
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{case}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "--write-baseline {target} is the same file as the input"
            )) && stderr.contains("writing the baseline there would overwrite it"),
            "{case}: {stderr}"
        );
        assert_eq!(
            stderr.contains("--exclude 'old.json'"),
            case == "a file the search found",
            "{case}: {stderr}"
        );
        assert!(!stderr.contains("wrote"), "{case}: {stderr}");
    }
    assert_eq!(
        std::fs::read_to_string(d.join("deploy/web.yaml")).unwrap(),
        manifest
    );
    assert_eq!(
        std::fs::read_to_string(d.join("deploy/old.json")).unwrap(),
        earlier
    );
    assert_eq!(
        std::fs::read_to_string(d.join("config.yaml")).unwrap(),
        config
    );
}

/// The baseline a run reads is one of its files: the report never goes over it.
#[test]
fn the_report_is_never_written_over_the_baseline_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("web.yaml"), deployment("web", true)).unwrap();
    let (_, stderr, code) = lint(d, &["--write-baseline", "baseline.json", "web.yaml"]);
    assert_eq!(code, 0, "{stderr}");
    let baseline = std::fs::read_to_string(d.join("baseline.json")).unwrap();
    let (_, stderr, code) = lint(
        d,
        &[
            "--baseline",
            "baseline.json",
            "--output",
            "baseline.json",
            "web.yaml",
        ],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(
            "--output baseline.json is the same file as the input baseline.json, the baseline read"
        ),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("baseline.json")).unwrap(),
        baseline
    );
}
