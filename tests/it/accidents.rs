//! Nothing passes by accident: a chart or kustomization its tool could not render is
//! an input error under `--strict` (a note otherwise), `explain --workload NAME` that
//! matches nothing exits 2, and a JUnit report fails exactly what fails the run.

use crate::common;

use common::{cli, root, testdata};

/// The plugin with an empty `PATH` and a kubectl that does not exist: no `helm`, no
/// `kubectl` to render with.
fn without_renderers() -> (tempfile::TempDir, assert_cmd::Command) {
    let empty = tempfile::tempdir().unwrap();
    let mut command = cli();
    command
        .current_dir(root())
        .env("PATH", empty.path())
        .env("KUBECTL", empty.path().join("kubectl"));
    (empty, command)
}

#[test]
fn what_could_not_be_rendered_fails_a_strict_run() {
    for dir in ["helm/shop", "kustomize/app"] {
        let dir = testdata(dir);
        let (_empty, mut command) = without_renderers();
        let output = command
            .args(["lint", "--no-config"])
            .arg(&dir)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("not rendered"),
            "{}: {stderr}",
            dir.display()
        );
        assert_ne!(output.status.code(), Some(2), "{}: {stderr}", dir.display());

        let (_empty, mut command) = without_renderers();
        let output = command
            .args(["lint", "--no-config", "--strict", "-o", "json"])
            .arg(&dir)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{}", dir.display());
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let errors = report["errors"].as_array().unwrap();
        assert!(
            errors.iter().any(|e| {
                let message = e["message"].as_str().unwrap();
                message.contains("not rendered") && message.contains("--strict")
            }),
            "{}: {report:#}",
            dir.display()
        );
        assert_eq!(report["summary"]["inputErrors"], errors.len());

        // `--quiet` hides notes, but not this one: it says workloads went unlinted.
        let (_empty, mut command) = without_renderers();
        let output = command
            .args(["lint", "--no-config", "--quiet"])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(String::from_utf8_lossy(&output.stderr).contains("not rendered"));
    }
}

#[test]
fn explain_of_a_workload_that_is_not_there_exits_2() {
    let job = testdata("rules/ml101-fire-job.yaml");
    // The fixture's workload, found.
    let report: serde_json::Value = serde_json::from_slice(
        &cli()
            .args(["lint", "-o", "json"])
            .arg(&job)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let name = report["findings"][0]["workload"]["name"]
        .as_str()
        .unwrap()
        .to_owned();
    for format in ["text", "json", "svg", "html"] {
        cli()
            .args(["explain", "-o", format, "--workload", &name])
            .arg(&job)
            .assert()
            .code(0);
        let output = cli()
            .args(["explain", "-o", format, "--workload", "no-such-workload"])
            .arg(&job)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{format}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("--workload no-such-workload"),
            "{format}: {stderr}"
        );
    }
    cli()
        .args(["explain", "--kind", "StatefulSet"])
        .arg(&job)
        .assert()
        .code(2);
    cli()
        .args([
            "explain",
            "--compare",
            "--to",
            "istio=1.27",
            "--workload",
            "typo",
        ])
        .arg(&job)
        .assert()
        .code(2);
}

/// The test cases of a JUnit report: (failing, skipped below the gate).
fn junit_cases(args: &[&str]) -> (usize, usize, i32) {
    let output = cli()
        .args(["lint", "-o", "junit"])
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    let xml = roxmltree::Document::parse(&text).unwrap();
    let failing = xml
        .descendants()
        .filter(|n| n.has_tag_name("failure"))
        .count();
    let below = xml
        .descendants()
        .filter(|n| n.has_tag_name("skipped"))
        .filter(|n| {
            n.attribute("message")
                .is_some_and(|m| m.starts_with("not failing the run"))
        })
        .count();
    (failing, below, output.status.code().unwrap())
}

#[test]
fn junit_fails_only_what_fails_the_run() {
    // A warning and an info: the run passes at the default gate.
    let warning = testdata("rules/ml208-fire-istio-distroless-proxy.yaml");
    let warning = warning.to_str().unwrap();
    assert_eq!(junit_cases(&[warning]), (0, 2, 0));
    assert_eq!(junit_cases(&["--fail-on", "warning", warning]), (1, 1, 1));
    assert_eq!(junit_cases(&["--fail-on", "info", warning]), (2, 0, 1));
    assert_eq!(junit_cases(&["--exit-zero", warning]), (0, 2, 0));
    // An error fails the default gate, and its case fails.
    let error = testdata("rules/ml206-fire-sleep-45.yaml");
    let (failing, _, status) = junit_cases(&[error.to_str().unwrap()]);
    assert_eq!((failing > 0, status), (true, 1));
}
