//! One version policy for every mesh, through the binary (docs/configuration.md, "Mesh
//! versions"): `--mesh-version MESH=VERSION` sets each mesh's release; an unknown one is
//! read as the releases before the mesh's native-sidecar default, and a setting the
//! manifest writes is read as written until a release that predates it is given. The
//! premises and `explain` name the releases a verdict holds for.

use crate::common;

use common::reports::{explain, findings, lint, names_in, notes};
use serde_json::Value;

/// The reasons `explain` gives for `mesh`'s decision.
fn reasons(report: &Value, mesh: &str) -> Vec<String> {
    report["workloads"][0]["plan"]["meshes"]
        .as_array()
        .expect("meshes is an array")
        .iter()
        .filter(|m| m["mesh"] == mesh)
        .flat_map(|m| m["reasons"].as_array().cloned().unwrap_or_default())
        .map(|r| r.as_str().map_or_else(|| r.to_string(), str::to_owned))
        .collect()
}

/// A Deployment Kuma injects, with an init container of its own; a drain time of 45 s
/// that a classic sidecar waits past the 30 s grace period (ML201), and a native one
/// never waits.
const KUMA: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels:\n        app: web\n        kuma.io/sidecar-injection: enabled\n      annotations:\n        kuma.io/sidecar-drain-time: 45s\n    spec:\n      initContainers:\n      - name: migrate\n        image: migrate\n      containers:\n      - name: web\n        image: web\n        ports:\n        - containerPort: 8080\n";

#[test]
fn kuma_unknown_is_classic_and_native_only_from_2_14_on_1_29() {
    // Unknown: the releases before 2.14, a classic sidecar first among the containers.
    let unknown = explain(KUMA, &[]);
    assert_eq!(names_in(&unknown, "containers"), ["kuma-sidecar", "web"]);
    let note = notes(&unknown)
        .into_iter()
        .find(|n| n.starts_with("Kuma version unknown"))
        .unwrap_or_else(|| panic!("{unknown}"));
    assert!(
        note.contains(
            "holds for Kuma before 2.14, or where the API server is before Kubernetes 1.29"
        ),
        "{note}"
    );
    assert!(
        note.contains("--mesh-version kuma=VERSION or config `kuma.version`"),
        "{note}"
    );
    // Given 2.14 on 1.29 or later: native, before the pod's own init container.
    let native = explain(
        KUMA,
        &[
            "--mesh-version",
            "kuma=2.14",
            "--kubernetes-version",
            "1.29",
        ],
    );
    assert_eq!(
        names_in(&native, "initContainers"),
        ["kuma-sidecar", "migrate"]
    );
    assert!(
        notes(&native)
            .iter()
            .all(|n| !n.contains("Kuma version unknown"))
    );
    // 2.14 on 1.28, and 2.13 anywhere: classic.
    let old_api = explain(
        KUMA,
        &[
            "--mesh-version",
            "kuma=2.14",
            "--kubernetes-version",
            "1.28",
        ],
    );
    assert_eq!(names_in(&old_api, "containers"), ["kuma-sidecar", "web"]);
    let older = explain(KUMA, &["--mesh-version", "kuma=2.13"]);
    assert_eq!(names_in(&older, "containers"), ["kuma-sidecar", "web"]);
    // The classic drain outlives the grace period; the native sidecar does not wait it.
    let (classic, _) = lint(KUMA, &[]);
    assert_eq!(findings(&classic, "ML201").len(), 1, "{classic}");
    let (native, _) = lint(KUMA, &["--mesh-version", "kuma=2.14"]);
    assert!(findings(&native, "ML201").is_empty(), "{native}");
}

#[test]
fn the_premise_of_an_unknown_release_names_the_releases_it_holds_for() {
    let (report, _) = lint(KUMA, &[]);
    let ml201 = findings(&report, "ML201")[0];
    let premises = ml201["evidence"]["premises"].as_array().unwrap();
    let premise = premises
        .iter()
        .find(|p| {
            p["text"]
                .as_str()
                .unwrap()
                .starts_with("Kuma version unknown")
        })
        .unwrap_or_else(|| panic!("{ml201}"));
    assert!(
        premise["text"]
            .as_str()
            .unwrap()
            .contains("holds for Kuma before 2.14"),
        "{premise}"
    );
    assert_eq!(
        premise["settle"],
        "set --mesh-version kuma=VERSION or config `kuma.version`"
    );
    // With the release given there is no such premise.
    let (given, _) = lint(KUMA, &["--mesh-version", "kuma=2.13"]);
    let ml201 = findings(&given, "ML201")[0];
    assert!(
        ml201["evidence"]["premises"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| !p["text"].as_str().unwrap().contains("version unknown")),
        "{ml201}"
    );
    // Istio's, in the human report's "assumed:" line.
    let istio = common::testdata("diff/istio-classic.yaml");
    let output = common::cli()
        .args(["lint", "--no-config", "--color", "never"])
        .arg(&istio)
        .output()
        .unwrap();
    let text = common::unwrapped(&String::from_utf8_lossy(&output.stdout));
    assert!(
        text.contains("holds for Istio before 1.27, or on nodes before Kubernetes 1.33"),
        "{text}"
    );
}

#[test]
fn explain_names_the_release_it_drew() {
    let unknown = explain(KUMA, &[]);
    assert!(
        reasons(&unknown, "kuma")
            .iter()
            .any(|r| r == "Kuma version unknown: read as a release before 2.14 (classic sidecar)"),
        "{unknown}"
    );
    let given = explain(KUMA, &["--mesh-version", "kuma=2.14"]);
    assert!(
        reasons(&given, "kuma")
            .iter()
            .any(|r| r == "Kuma 2.14 (--mesh-version) injects native sidecars by default"),
        "{given}"
    );
    let istio = common::testdata("diff/istio-classic.yaml");
    let istio = std::fs::read_to_string(istio).unwrap();
    let unknown = explain(&istio, &["--no-config"]);
    assert!(
        reasons(&unknown, "istio")
            .iter()
            .any(|r| r == "Istio version unknown: read as a release before 1.27 (classic sidecar)"),
        "{unknown}"
    );
    let given = explain(&istio, &["--no-config", "--mesh-version", "istio=1.26"]);
    assert!(
        reasons(&given, "istio")
            .iter()
            .any(|r| r == "Istio 1.26 (--mesh-version) injects classic sidecars by default"),
        "{given}"
    );
}

/// A pod Dapr injects with `dapr.io/enable-native-sidecar`.
const DAPR_NATIVE: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n    dapr.io/enabled: \"true\"\n    dapr.io/enable-native-sidecar: \"true\"\n    dapr.io/block-shutdown-duration: 10s\nspec:\n  containers:\n  - name: app\n    image: app\n";

#[test]
fn dapr_reads_its_annotations_unless_the_release_predates_them() {
    // Unknown: read as written, daprd native.
    let unknown = explain(DAPR_NATIVE, &[]);
    assert_eq!(names_in(&unknown, "initContainers"), ["daprd"]);
    let native = explain(DAPR_NATIVE, &["--mesh-version", "dapr=1.18"]);
    assert_eq!(names_in(&native, "initContainers"), ["daprd"]);
    // 1.17 ignores it, and says so.
    let old = explain(DAPR_NATIVE, &["--mesh-version", "dapr=1.17"]);
    assert!(names_in(&old, "initContainers").is_empty(), "{old}");
    assert_eq!(names_in(&old, "containers"), ["app", "daprd"]);
    assert!(
        notes(&old)
            .iter()
            .any(|n| n == "dapr.io/enable-native-sidecar needs Dapr 1.18; this version ignores it"),
        "{old}"
    );
    assert!(notes(&native).iter().all(|n| !n.contains("ignores it")));
    // 1.12 ignores the block too.
    let older = explain(DAPR_NATIVE, &["--mesh-version", "dapr=1.12"]);
    assert!(
        notes(&older).iter().any(
            |n| n == "dapr.io/block-shutdown-duration needs Dapr 1.13; this version ignores it"
        ),
        "{older}"
    );
}

#[test]
fn consul_reads_the_native_annotation_from_its_per_line_releases() {
    let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n    consul.hashicorp.com/connect-inject: \"true\"\n    consul.hashicorp.com/enable-consul-dataplane-as-sidecar: \"true\"\nspec:\n  containers:\n  - name: app\n    image: app\n";
    for (version, native) in [
        (None, true),
        (Some("consul=1.6.9"), true),
        (Some("consul=1.6.8"), false),
        (Some("consul=1.8.1"), false),
        (Some("consul=1.9.0"), true),
    ] {
        let flags: Vec<&str> = version.iter().flat_map(|v| ["--mesh-version", v]).collect();
        let report = explain(pod, &flags);
        let inits = names_in(&report, "initContainers");
        assert_eq!(
            inits == ["consul-dataplane"],
            native,
            "{version:?}: {report}"
        );
    }
}

/// A Job whose Cloud SQL Auth Proxy v2 is started with `--quitquitquit` and
/// `--exit-zero-on-sigterm`, the work calling the quit endpoint when it ends.
fn cloud_sql_job(tag: &str) -> String {
    format!(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: work\n        image: work\n        command: [sh, -c, \"./work; curl -fsS -X POST localhost:9091/quitquitquit\"]\n      - name: proxy\n        image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:{tag}\n        args: [--quitquitquit, --exit-zero-on-sigterm, proj:region:db]\n"
    )
}

#[test]
fn the_cloud_sql_proxy_version_comes_from_its_tag_or_the_flag() {
    let named = |report: &Value, text: &str| notes(report).iter().any(|n| n.contains(text));
    // A tag that is no version, and no flag: the flags are read as written.
    let unknown = explain(&cloud_sql_job("latest"), &[]);
    assert!(!named(&unknown, "ignores it"), "{unknown}");
    let (report, _) = lint(&cloud_sql_job("latest"), &[]);
    assert!(findings(&report, "ML304").is_empty(), "{report}");
    // The tag 2.0.0 has neither flag.
    let old = explain(&cloud_sql_job("2.0.0"), &[]);
    assert!(
        named(&old, "--quitquitquit needs Cloud SQL Auth Proxy 2.1"),
        "{old}"
    );
    assert!(
        named(
            &old,
            "--exit-zero-on-sigterm needs Cloud SQL Auth Proxy 2.6"
        ),
        "{old}"
    );
    // 2.5 has the one, not the other; the flag wins over the tag.
    let flagged = explain(
        &cloud_sql_job("2.0.0"),
        &["--mesh-version", "cloud-sql-proxy=2.5"],
    );
    assert!(!named(&flagged, "--quitquitquit needs"), "{flagged}");
    assert!(named(&flagged, "--exit-zero-on-sigterm needs"), "{flagged}");
    let new = explain(&cloud_sql_job("2.14.1-alpine"), &[]);
    assert!(!named(&new, "ignores it"), "{new}");
}

#[test]
fn an_older_release_is_refused_with_the_range_for_each_mesh() {
    for (flag, range) in [
        ("istio=1.2", "(1.3 to 1.29)"),
        ("linkerd=2.6", "(2.7 to 2.20)"),
        ("kuma=2.3", "(2.4 to 2.14)"),
        ("consul=0.49.0", "(1.0 to 2.0)"),
        ("dapr=1.5", "(1.6 to 1.18)"),
        ("cloud-sql-proxy=1.33.2", "(2.0 to 2.25)"),
    ] {
        let output = common::cli()
            .args(["lint", "--no-config", "--mesh-version", flag, "-"])
            .write_stdin(KUMA)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flag}: {stderr}");
        assert!(stderr.contains(range), "{flag}: {stderr}");
    }
    // Comma-separated, and newer than the model knows: taken, with the note.
    let output = common::cli()
        .args([
            "lint",
            "--no-config",
            "--mesh-version",
            "kuma=2.15,dapr=1.18",
            "-",
        ])
        .write_stdin(KUMA)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("Kuma 2.15 (--mesh-version) is newer than the releases the linter models: it is checked as Kuma 2.14"),
        "{stderr}"
    );
    // The same mesh given two different versions is an error.
    let output = common::cli()
        .args(["lint", "--no-config", "--istio-version", "1.24"])
        .args(["--mesh-version", "istio=1.25", "-"])
        .write_stdin(KUMA)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_ne!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("give istio two versions"), "{stderr}");
}
