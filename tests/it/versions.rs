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

/// Every markdown file of the repository whose lines say what the model knows, its text
/// with each run of whitespace made one space (a sentence wraps anywhere).
fn documents() -> Vec<(std::path::PathBuf, String)> {
    let mut files = vec![common::root().join("README.md")];
    files.extend(
        common::files_under(&common::root().join("docs"))
            .into_iter()
            .filter(|path| path.extension().is_some_and(|e| e == "md")),
    );
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
            (path, flat)
        })
        .collect()
}

/// The version-like word after each occurrence of `before` in `text` (`1.36`,
/// `edge-26.5.2`), its trailing punctuation dropped.
fn after<'t>(text: &'t str, before: &str) -> Vec<&'t str> {
    text.match_indices(before)
        .map(|(at, _)| {
            let rest = &text[at + before.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
                .unwrap_or(rest.len());
            rest[..end].trim_end_matches('.')
        })
        .collect()
}

/// The docs' lines about the versions the model knows say what the binary's tables
/// hold: the newest Kubernetes (the default), and each range.
#[test]
fn the_docs_name_the_versions_the_model_knows() {
    use mesh_lifecycle::settings::version::{IstioVersion, KubeVersion, LinkerdVersion};
    let newest = KubeVersion::NEWEST_KNOWN.to_string();
    let known = format!(
        "knows Kubernetes {} to {}, Istio {} to {}, Linkerd {} to {} and {} to {}",
        KubeVersion::OLDEST_KNOWN,
        KubeVersion::NEWEST_KNOWN,
        IstioVersion::OLDEST_KNOWN,
        IstioVersion::NEWEST_KNOWN,
        LinkerdVersion::OLDEST_STABLE,
        LinkerdVersion::NEWEST_STABLE,
        LinkerdVersion::OLDEST_EDGE,
        LinkerdVersion::NEWEST_EDGE,
    );
    let (mut ranges_said, mut newest_said) = (0, 0);
    for (path, text) in documents() {
        let name = path
            .strip_prefix(common::root())
            .unwrap()
            .display()
            .to_string();
        for (at, _) in text.match_indices("knows Kubernetes ") {
            let said = &text[at..(at + known.len()).min(text.len())];
            assert_eq!(said, known, "{name}");
            ranges_said += 1;
        }
        for phrase in [
            "the newest Kubernetes it models (",
            "is checked as Kubernetes ",
            "| `kubernetesVersion` | version (`\"1.30\"`) | ",
        ] {
            for version in after(&text, phrase) {
                assert_eq!(version, newest, "{name}: `{phrase}{version}`");
                newest_said += 1;
            }
        }
    }
    assert!(
        ranges_said >= 1,
        "no doc says which versions the model knows"
    );
    assert!(
        newest_said >= 2,
        "no doc says which Kubernetes is the default"
    );
}
