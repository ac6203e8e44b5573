//! Version facts through the binary: Istio's `ENABLE_NATIVE_SIDECARS=auto` looks at the
//! nodes' kubelets (`--node-version`, `nodeVersion`, `--to nodes=`), and a version newer
//! than the model knows is checked as the newest it knows, with a note in every format.

use crate::common;

use std::collections::BTreeSet;

use serde_json::Value;

const ISTIO_CLASSIC: &str = "diff/istio-classic.yaml";

fn rules(report: &Value) -> BTreeSet<String> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["ruleId"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn istio_auto_makes_native_sidecars_only_when_every_node_runs_1_33() {
    let path = common::testdata(ISTIO_CLASSIC);
    let profile = [
        "--no-config",
        "--istio-version",
        "1.27",
        "--kubernetes-version",
        "1.33",
    ];
    // The API server is 1.33, but a node still runs 1.32: classic sidecars, the drain
    // cut by the grace period.
    let (old_node, _) =
        common::lint_json(&path, &[&profile[..], &["--node-version", "1.32"]].concat());
    assert!(rules(&old_node).contains("ML201"), "{old_node:#}");
    assert!(!rules(&old_node).contains("ML403"));
    // Every node 1.33: native, the hold moot.
    let (new_nodes, _) =
        common::lint_json(&path, &[&profile[..], &["--node-version", "1.33"]].concat());
    assert!(rules(&new_nodes).contains("ML403"), "{new_nodes:#}");
    assert!(!rules(&new_nodes).contains("ML201"));
    // Without --node-version the nodes run the Kubernetes version.
    let (default, _) = common::lint_json(&path, &profile);
    assert_eq!(rules(&default), rules(&new_nodes));
    // `explain` says what decided it.
    let output = common::cli()
        .args(["explain"])
        .args(profile)
        .args(["--node-version", "1.32"])
        .arg(&path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        text.contains("native when every node's kubelet is ≥ 1.33; the oldest here is 1.32"),
        "{text}"
    );
    // The config file says the same; `diff --to nodes=` moves it.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(".mesh-lifecycle.yaml"),
        "kubernetesVersion: 1.33\nnodeVersion: 1.32\nistio: {version: 1.27}\n",
    )
    .unwrap();
    let output = common::cli()
        .current_dir(dir.path())
        .args(["diff", "--format", "json", "--to", "nodes=1.33"])
        .arg(&path)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let roles: Vec<&Value> = report["workloads"][0]["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["kind"] == "role")
        .collect();
    assert_eq!(roles.len(), 1, "{report:#}");
    assert_eq!(roles[0]["to"], "native-sidecar");
    let before = report["before"]["assumptions"][0].as_str().unwrap();
    assert!(
        before.starts_with("oldest kubelet 1.32 (config ")
            && before.ends_with(".mesh-lifecycle.yaml)"),
        "{report:#}"
    );
    assert_eq!(
        report["after"]["assumptions"],
        serde_json::json!([]),
        "1.33 is the Kubernetes version"
    );
}

#[test]
fn a_version_newer_than_the_model_is_checked_as_the_newest_and_named_in_every_format() {
    let path = common::testdata(ISTIO_CLASSIC);
    let newer = [
        "--no-config",
        "--kubernetes-version",
        "1.37",
        "--istio-version",
        "1.31",
    ];
    let newest = [
        "--no-config",
        "--kubernetes-version",
        "1.36",
        "--istio-version",
        "1.29",
    ];
    let (report, _) = common::lint_json(&path, &newer);
    let (same, _) = common::lint_json(&path, &newest);
    assert_eq!(
        report["findings"], same["findings"],
        "the newest modelled behaviour"
    );
    let notes: Vec<(&str, &str)> = report["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["file"].as_str().unwrap(), n["message"].as_str().unwrap()))
        .collect();
    assert_eq!(
        notes,
        [
            (
                "--kubernetes-version",
                "Kubernetes 1.37 (--kubernetes-version) is newer than the releases the linter models: it is checked as Kubernetes 1.36, the newest it knows"
            ),
            (
                "--istio-version",
                "Istio 1.31 (--istio-version) is newer than the releases the linter models: it is checked as Istio 1.29, the newest it knows"
            )
        ]
    );
    let run = |format: &str| {
        let output = common::cli()
            .args(["lint", "--format", format])
            .args(newer)
            .arg(&path)
            .output()
            .unwrap();
        (
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (human, stderr) = run("human");
    let human = common::unwrapped(&human);
    assert!(
        human.contains(
            "Kubernetes 1.37 (--kubernetes-version; checked as 1.36, the newest modelled)"
        ),
        "{human}"
    );
    assert!(
        human.contains("Istio 1.31 (--istio-version; checked as 1.29, the newest modelled)"),
        "{human}"
    );
    assert!(
        stderr.contains("note: Kubernetes 1.37 (--kubernetes-version) is newer"),
        "{stderr}"
    );
    let (sarif, _) = run("sarif");
    let log: Value = serde_json::from_str(&sarif).unwrap();
    let notifications: Vec<&str> = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["message"]["text"].as_str().unwrap())
        .collect();
    assert!(
        notifications.iter().any(|n| n.contains("Kubernetes 1.37")),
        "{notifications:?}"
    );
    let (github, _) = run("github");
    assert!(
        github.contains("::notice") && github.contains("Kubernetes 1.37"),
        "{github}"
    );
    // explain's drawings name it in their assumptions.
    let output = common::cli()
        .args(["explain"])
        .args(newer)
        .arg(&path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        text.contains(
            "Kubernetes 1.37 (--kubernetes-version; checked as 1.36, the newest modelled)"
        ),
        "{text}"
    );
    // An older version than the model knows is still refused.
    let output = common::cli()
        .args(["lint", "--no-config", "--kubernetes-version", "1.21"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}
