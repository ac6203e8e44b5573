//! The inputs a CI job actually has: `kubectl kustomize` and `helm template` output on
//! standard input, and a repository where manifests sit among other YAML.

use crate::common;

use std::process::{Command, Stdio};

use common::{cli, kubectl, kubectl_binary, root, testdata};
use serde_json::Value;

/// The 1-based line of the first line containing `needle` after the first line
/// containing `after`.
fn line_of(text: &str, after: &str, needle: &str) -> u64 {
    let start = text
        .lines()
        .position(|line| line.contains(after))
        .unwrap_or_else(|| panic!("no `{after}` in\n{text}"));
    let offset = text
        .lines()
        .skip(start)
        .position(|line| line.contains(needle))
        .unwrap_or_else(|| panic!("no `{needle}` after `{after}` in\n{text}"));
    (start + offset + 1) as u64
}

/// `(ruleId, line, workload)` of each finding.
fn findings(report: &Value) -> Vec<(String, u64, String)> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let workload = &f["workload"];
            let namespace = workload["namespace"]
                .as_str()
                .map(|ns| format!("{ns}/"))
                .unwrap_or_default();
            (
                f["ruleId"].as_str().unwrap().to_owned(),
                f["line"].as_u64().unwrap(),
                format!(
                    "{} {namespace}{}",
                    workload["kind"].as_str().unwrap(),
                    workload["name"].as_str().unwrap()
                ),
            )
        })
        .collect()
}

/// The rules the kustomize fixtures are about: a new rule that also fires on them must
/// not change what these tests check.
const OVERLAY_RULES: &str = "ML101,ML201,ML301";

/// What the prod overlay must produce, at lines of the rendered `text`.
fn expected_overlay_findings(text: &str) -> Vec<(String, u64, String)> {
    let drain = line_of(text, "kind: Deployment", "terminationDrainDuration: 25s");
    let inject = line_of(text, "kind: Job", "sidecar.istio.io/inject");
    let mut expected = vec![
        (
            "ML201".to_owned(),
            drain,
            "Deployment shop/prod-api".to_owned(),
        ),
        (
            "ML101".to_owned(),
            inject,
            "Job shop/prod-migrate".to_owned(),
        ),
        (
            "ML301".to_owned(),
            inject,
            "Job shop/prod-migrate".to_owned(),
        ),
    ];
    expected.sort_by_key(|(rule, line, _)| (*line, rule.clone()));
    expected
}

/// `kubectl kustomize testdata/kustomize/prod | kubectl mesh-lifecycle lint --format json -`,
/// two processes joined by a pipe, both run by the real kubectl.
#[test]
fn kustomize_output_piped_into_the_plugin() {
    let Some((_, dir)) = kubectl() else {
        return;
    };
    let overlay = testdata("kustomize/prod");
    let rendered = Command::new(common::tools::path_of("kubectl"))
        .arg("kustomize")
        .arg(&overlay)
        .output()
        .unwrap();
    assert!(rendered.status.success(), "{rendered:?}");
    let text = String::from_utf8(rendered.stdout).unwrap();

    let path = std::env::join_paths(
        std::iter::once(dir.path().to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let mut kustomize = Command::new(common::tools::path_of("kubectl"))
        .arg("kustomize")
        .arg(&overlay)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let lint = Command::new(common::tools::path_of("kubectl"))
        .env("PATH", &path)
        .env("KUBECONFIG", dir.path().join("no-kubeconfig"))
        .args([
            "mesh-lifecycle",
            "lint",
            "--assumed-losses",
            "full",
            "--format",
            "json",
            "--select",
            OVERLAY_RULES,
            "-",
        ])
        .stdin(kustomize.stdout.take().unwrap())
        .output()
        .unwrap();
    assert!(kustomize.wait().unwrap().success());
    assert_eq!(
        lint.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&lint.stderr)
    );
    assert!(
        lint.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&lint.stderr)
    );
    let report: Value = serde_json::from_slice(&lint.stdout).unwrap();
    assert_eq!(findings(&report), expected_overlay_findings(&text));
    assert!(
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["file"] == "-")
    );
    assert_eq!(report["summary"]["workloads"], 2);

    // The human format names the lines of the rendered stream too.
    let human = Command::new(common::tools::path_of("kubectl"))
        .env("PATH", &path)
        .env("KUBECONFIG", dir.path().join("no-kubeconfig"))
        .args(["mesh-lifecycle", "lint", "--select", OVERLAY_RULES, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    human
        .stdin
        .as_ref()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let human = human.wait_with_output().unwrap();
    let drain = line_of(&text, "kind: Deployment", "terminationDrainDuration: 25s");
    let human = String::from_utf8(human.stdout).unwrap();
    assert!(human.contains(&format!("[-:{drain}:")), "{human}");
}

/// Every kubectl release this machine has renders the overlay to the same findings.
#[test]
fn kustomize_of_each_kubectl_release_gives_the_same_findings() {
    if kubectl_binary().is_none() {
        return;
    }
    let mut kubectls = vec![std::path::PathBuf::from("kubectl")];
    if let Ok(entries) = std::fs::read_dir("/usr/lib/google-cloud-sdk/bin") {
        let mut versioned: Vec<_> = entries
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("kubectl.1."))
            })
            .collect();
        versioned.sort();
        kubectls.extend(versioned);
    }
    for kubectl in kubectls {
        let rendered = Command::new(&kubectl)
            .arg("kustomize")
            .arg(testdata("kustomize/prod"))
            .output()
            .unwrap();
        assert!(
            rendered.status.success(),
            "{}: {rendered:?}",
            kubectl.display()
        );
        let text = String::from_utf8(rendered.stdout).unwrap();
        let output = cli()
            .args(["lint", "--format", "json", "--select", OVERLAY_RULES, "-"])
            .write_stdin(text.clone())
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(
            findings(&report),
            expected_overlay_findings(&text),
            "{}",
            kubectl.display()
        );
    }
}

/// The base on its own has only the Job's hazards: the grace-period one is the
/// overlay's doing, and only the rendered output shows it.
#[test]
fn the_kustomize_base_alone_lacks_the_overlays_hazard() {
    let (report, status) = common::lint_json(
        &testdata("kustomize/base"),
        &["--select", OVERLAY_RULES, "--assumed-losses", "full"],
    );
    assert_eq!(status, 1);
    let rules: Vec<String> = findings(&report).into_iter().map(|f| f.0).collect();
    assert_eq!(rules, ["ML101", "ML301"]);
}

#[test]
fn helm_template_output_on_standard_input_names_the_template() {
    let text = std::fs::read_to_string(testdata("helm/shop-rendered.yaml")).unwrap();
    let drain = line_of(&text, "kind: Deployment", "terminationDrainDuration");
    let output = cli()
        .args(["lint", "--assumed-losses", "full", "--format", "json"])
        .args(["--select", "ML201", "-"])
        .write_stdin(text.clone())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        findings(&report),
        [("ML201".to_owned(), drain, "Deployment shop".to_owned())]
    );
    assert_eq!(
        report["summary"]["workloads"], 2,
        "the Deployment and the test Pod"
    );

    let human = cli()
        .args(["lint", "--select", "ML201", "-"])
        .write_stdin(text.clone())
        .output()
        .unwrap();
    let human = String::from_utf8(human.stdout).unwrap();
    assert!(
        human.contains(&format!(
            "[- (from shop/templates/deployment.yaml):{drain}:37]"
        )),
        "{human}"
    );
    let sarif = cli()
        .args(["lint", "--format", "sarif", "--select", "ML201", "-"])
        .write_stdin(text)
        .output()
        .unwrap();
    let log: Value = serde_json::from_slice(&sarif.stdout).unwrap();
    assert_eq!(
        log["runs"][0]["results"][0]["properties"]["helmTemplate"],
        "shop/templates/deployment.yaml"
    );
}

/// A repository's workflows, Helm values, Chart.yaml, CRDs and JSON config are passed
/// over without a word; only the workload is reported, and the custom resource that
/// holds a pod (of a kind the linter does not read) is named in a note, with how to
/// declare it. (The chart's directory read as files: rendered, it is `tests/it/render.rs`'s.)
#[test]
fn other_yaml_in_a_repository_is_passed_over_silently() {
    for format in ["human", "json"] {
        let output = cli()
            .current_dir(root())
            .args(["lint", "--no-render", "--format", format, "testdata/mixed"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{format}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.starts_with(
                "note: testdata/mixed/crd.yaml:35:7: Rollout web (example.com/v1) holds containers"
            ) && stderr.contains("podTemplate: spec.template")
                && stderr.matches("note:").count() == 1,
            "{format}: the custom resource's note only: {stderr}"
        );
        if format == "json" {
            let report: Value = serde_json::from_slice(&output.stdout).unwrap();
            let all = report["findings"].as_array().unwrap();
            assert!(
                all.iter()
                    .all(|f| f["file"] == "testdata/mixed/deploy.yaml"),
                "only the workload is reported: {all:#?}"
            );
            assert!(findings(&report).contains(&(
                "ML206".to_owned(),
                17,
                "Deployment shop".to_owned()
            )));
            assert_eq!(report["summary"]["workloads"], 1);
            // deploy.yaml, crd.yaml, renovate.json, chart/{Chart,values}.yaml and
            // workflows/release.yaml; nothing from the hidden .github/.
            assert_eq!(report["summary"]["files"], 6);
            assert_eq!(report["errors"], serde_json::json!([]));
        }
    }
}

#[test]
fn a_path_that_does_not_exist_exits_2_and_the_rest_is_linted() {
    let output = cli()
        .current_dir(root())
        .args([
            "lint",
            "--format",
            "json",
            "testdata/mixed/deploy.yaml",
            "testdata/no-such-dir",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("testdata/no-such-dir: no such file or directory"),
        "{stderr}"
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["findings"][0]["ruleId"], "ML206");
    assert_eq!(report["errors"][0]["file"], "testdata/no-such-dir");

    let empty = tempfile::tempdir().unwrap();
    std::fs::write(empty.path().join("notes.txt"), "not a manifest").unwrap();
    let output = cli().arg("lint").arg(empty.path()).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("directory contains no .yaml, .yml or .json files")
    );
}
