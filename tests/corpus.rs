//! The shared corpus of real manifests (copied verbatim into `testdata/corpus/`):
//! every file is read without a crash, and the files that pin a rule's behaviour on
//! real input do so.

mod common;

use common::{cli, lint_json, rule_lines, testdata};

fn corpus_files() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![testdata("corpus")];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if !matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("md" | "tsv")
            ) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

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

/// `(file under testdata/corpus, expected (rule, line) pairs)`, each checked against the
/// hazard notes of INDEX.tsv.
const PINNED: &[(&str, &[(&str, u64)])] = &[
    // Classic istio-proxy appended after the app, no hold: the app starts first.
    (
        "istio-inject/istio-86c9f01/daemonset-old-version.yaml.injected",
        &[("ML101", 106), ("ML207", 31)],
    ),
    // Hold on: the proxy is first with `pilot-agent wait`.
    // (the app serves without a preStop delay: ML207, information)
    (
        "istio-inject/istio-1.24.0/hello.proxyHoldsApplication.yaml.injected",
        &[("ML207", 169)],
    ),
    // Native: the preStop /drain starts at deletion (ML203 as information, istio#60649).
    (
        "istio-inject/istio-86c9f01/hello.proxyHoldsApplication.yaml.injected",
        &[("ML203", 151), ("ML207", 33)],
    ),
    // istioctl test output: hold is asked for, but the stub template has no postStart.
    (
        "istio-inject/istioctl-86c9f01/hello-with-proxyconfig-anno.yaml.injected",
        &[("ML102", 19), ("ML207", 31)],
    ),
    // Classic proxy in a Job with nothing that stops it (ML101 is an error in Jobs).
    (
        "istio-inject/istio-1.24.0/job.yaml.injected",
        &[("ML101", 107), ("ML301", 107)],
    ),
    // The legacy log-shipper sidecar of the Kubernetes docs never exits.
    (
        "k8s-examples/kubernetes-website/application/job/job-sidecar-legacy.yaml",
        &[("ML301", 15)],
    ),
    // Native sidecars: the Job completes.
    (
        "k8s-examples/kubernetes-website/application/job/job-sidecar.yaml",
        &[],
    ),
    ("istio-inject/istio-86c9f01/job.yaml.injected", &[]),
    // nginx quits itself in preStop and the hook waits for it: no fixed length to check.
    (
        "k8s-examples/kubernetes-website/pods/lifecycle-events.yaml",
        &[],
    ),
];

#[test]
fn pinned_corpus_files_yield_their_findings() {
    let mut failures = Vec::new();
    for (file, expected) in PINNED {
        let (report, _) = lint_json(&testdata(&format!("corpus/{file}")), &[]);
        let found = rule_lines(&report);
        let mut expected: Vec<(String, u64)> = expected
            .iter()
            .map(|(id, line)| (id.to_string(), *line))
            .collect();
        expected.sort();
        if found != expected {
            failures.push(format!("{file}: expected {expected:?}, found {found:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
