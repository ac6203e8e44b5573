//! `explain` end to end: every corpus file renders in every format, the renderings of a
//! few are pinned as snapshots, the SVG is a real image, and the assumptions printed
//! follow the profile.

use crate::common;

use common::{cli, corpus_files, root, testdata};

#[test]
fn every_corpus_file_explains_in_every_format() {
    let files = corpus_files();
    for format in ["text", "json", "svg"] {
        let output = cli()
            .args(["explain", "--format", format])
            .args(&files)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{format}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(!output.stdout.is_empty());
    }
}

fn explain(format: &str, file: &str) -> String {
    let output = cli()
        .current_dir(root())
        .args(["explain", "--format", format, "--no-config", file])
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

const SNAPSHOTS: [(&str, &str); 5] = [
    (
        "istio_classic_job",
        "testdata/corpus/istio-inject/istio-1.24.0/job.yaml.injected",
    ),
    (
        "istio_native_sidecar",
        "testdata/corpus/istio-inject/istio-86c9f01/native-sidecar.yaml.injected",
    ),
    (
        "linkerd_held_classic",
        "testdata/corpus/linkerd-inject/linkerd2-version-2.19/inject_emojivoto_deployment.golden.yml",
    ),
    (
        "nginx_quits_in_prestop",
        "testdata/corpus/k8s-examples/kubernetes-website/pods/lifecycle-events.yaml",
    ),
    (
        "argo_step_injected_proxy",
        "testdata/rules/ml304-fire-argo-step-injected-proxy.yaml",
    ),
];

#[test]
fn text_renderings() {
    for (name, file) in SNAPSHOTS {
        insta::assert_snapshot!(format!("text_{name}"), explain("text", file));
    }
}

#[test]
fn json_renderings() {
    for (name, file) in SNAPSHOTS {
        let value: serde_json::Value = serde_json::from_str(&explain("json", file)).unwrap();
        let workload = &value["workloads"][0];
        assert!(
            workload["plan"]["containers"]
                .as_array()
                .is_some_and(|c| !c.is_empty())
        );
        assert!(
            workload["assumptions"]["scenario"]
                .as_array()
                .is_some_and(|s| s.len() >= 4)
        );
        assert!(workload["events"].as_array().is_some_and(|e| !e.is_empty()));
        insta::assert_json_snapshot!(format!("json_{name}"), value);
    }
}

#[test]
fn a_pod_that_is_not_admitted_has_no_timeline() {
    let file = "testdata/rules/ml401-fire-injector-denies.yaml";
    insta::assert_snapshot!("text_denied_by_the_injector", explain("text", file));
    let value: serde_json::Value = serde_json::from_str(&explain("json", file)).unwrap();
    let workload = &value["workloads"][0];
    assert_eq!(
        workload["plan"]["rejection"]["by"],
        "Istio's sidecar injector"
    );
    assert_eq!(workload["events"], serde_json::json!([]));
    let svg = explain("svg", file);
    assert!(svg.contains("Not admitted"), "{svg}");
    assert!(!svg.contains("Termination"), "{svg}");
}

#[test]
fn svg_renderings_are_valid_images() {
    for (name, file) in SNAPSHOTS {
        let svg = explain("svg", file);
        let tree = resvg::usvg::Tree::from_str(&svg, &resvg::usvg::Options::default())
            .unwrap_or_else(|error| panic!("{name}: not a valid SVG: {error}"));
        let size = tree.size().to_int_size();
        assert!(
            size.width() > 400 && size.height() > 100,
            "{name}: {size:?}"
        );
        let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).unwrap();
        resvg::render(
            &tree,
            resvg::tiny_skia::Transform::default(),
            &mut pixmap.as_mut(),
        );
        let drawn = pixmap
            .pixels()
            .iter()
            .filter(|p| p.red() < 200 || p.blue() < 200)
            .count();
        assert!(drawn > 1000, "{name}: only {drawn} drawn pixels");
        insta::assert_snapshot!(format!("svg_{name}"), svg);
    }
}

/// The assumptions in force, from the block that closes a human lint report, its
/// wrapped lines joined.
fn assumptions(args: &[&str]) -> String {
    let output = cli()
        .current_dir(root())
        .args(["lint", "testdata/rules/ml101-fire-inject-label.yaml"])
        .args(args)
        .output()
        .unwrap();
    assumption_block(&String::from_utf8(output.stdout).unwrap())
}

/// The `Assumed:` block at the end of `report`, as one line.
fn assumption_block(report: &str) -> String {
    let start = report
        .rfind("Assumed: ")
        .expect("the report ends with the assumptions");
    report[start..]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn the_assumptions_line_follows_mesh_config_and_config_files() {
    let defaults = assumptions(&["--no-config"]);
    assert!(
        defaults.starts_with("Assumed: Kubernetes 1.36 (default) · Istio version unknown"),
        "{defaults}"
    );
    let mesh = assumptions(&[
        "--no-config",
        "--mesh-config",
        "testdata/.profiles/mesh-config/istio-configmap.yaml",
    ]);
    assert!(
        mesh.contains("mesh-wide holdApplicationUntilProxyStarts true (mesh config testdata/.profiles/mesh-config/istio-configmap.yaml)"),
        "{mesh}"
    );
    assert!(
        mesh.contains("mesh-wide terminationDrainDuration 20 s"),
        "{mesh}"
    );
    let operator = assumptions(&[
        "--no-config",
        "--mesh-config",
        "testdata/.profiles/mesh-config/istio-operator.yaml",
    ]);
    assert!(operator.contains("Istio 1.28 (mesh config"), "{operator}");
    assert!(
        operator.contains("ENABLE_NATIVE_SIDECARS false"),
        "{operator}"
    );
    let config = assumptions(&["--config", "testdata/.profiles/config/.mesh-lifecycle.yaml"]);
    assert!(
        config.contains("Kubernetes 1.30 (config testdata/.profiles/config/.mesh-lifecycle.yaml)"),
        "{config}"
    );
    assert!(config.contains("Istio 1.24 (config"), "{config}");
    assert!(config.contains("app-shutdown 12 s (config"), "{config}");
    assert!(
        config.contains("mesh-wide holdApplicationUntilProxyStarts true (mesh config"),
        "{config}"
    );
    assert_ne!(defaults, mesh);
    assert_ne!(defaults, config);
}

#[test]
fn the_config_file_is_found_upward_and_changes_the_verdict() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(".mesh-lifecycle.yaml"),
        "rules:\n  ML101: off\n",
    )
    .unwrap();
    let nested = dir.path().join("deploy/web");
    std::fs::create_dir_all(&nested).unwrap();
    let manifest = nested.join("web.yaml");
    std::fs::copy(testdata("rules/ml101-fire-inject-label.yaml"), &manifest).unwrap();
    let output = cli()
        .current_dir(&nested)
        .args(["lint", "--format", "json", "web.yaml"])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let ids: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["ruleId"].as_str().unwrap())
        .collect();
    assert!(
        !ids.contains(&"ML101"),
        "ML101 is off in the config: {ids:?}"
    );
    let output = cli()
        .current_dir(&nested)
        .args(["lint", "--format", "json", "--no-config", "web.yaml"])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let ids: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["ruleId"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"ML101"), "{ids:?}");
}

#[test]
fn config_errors_point_at_their_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join(".mesh-lifecycle.yaml");
    std::fs::write(
        &config,
        "istio:\n  version: \"1.24\"\nrules:\n  ML999: off\n",
    )
    .unwrap();
    let output = cli()
        .arg("lint")
        .arg("--config")
        .arg(&config)
        .arg(testdata("rules/ml101-fire-inject-label.yaml"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(".mesh-lifecycle.yaml:4:3: unknown rule `ML999`"),
        "{stderr}"
    );
}

#[test]
fn explain_filters_by_workload_and_kind() {
    let file = "testdata/corpus/istio-samples/bookinfo/platform/kube/bookinfo.yaml";
    let all = explain("json", file);
    let all: serde_json::Value = serde_json::from_str(&all).unwrap();
    assert!(all["workloads"].as_array().unwrap().len() > 3);
    let output = cli()
        .current_dir(root())
        .args([
            "explain",
            "--format",
            "json",
            "--workload",
            "productpage-v1",
            file,
        ])
        .output()
        .unwrap();
    let one: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let names: Vec<&str> = one["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["workload"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["productpage-v1"]);
    let output = cli()
        .current_dir(root())
        .args(["explain", "--format", "json", "--kind", "job", file])
        .output()
        .unwrap();
    let none: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(none["workloads"].as_array().unwrap().len(), 0);
}

#[test]
fn mesh_config_in_the_input_stream_applies_to_its_workloads() {
    let mesh =
        std::fs::read_to_string(testdata(".profiles/mesh-config/istio-configmap.yaml")).unwrap();
    let deployment =
        std::fs::read_to_string(testdata("rules/ml101-fire-inject-label.yaml")).unwrap();
    let output = cli()
        .args(["lint", "--format", "json", "--no-config", "-"])
        .write_stdin(format!("{deployment}---\n{mesh}"))
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let ids: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["ruleId"].as_str().unwrap())
        .collect();
    assert!(
        !ids.contains(&"ML101"),
        "the mesh-wide hold holds the app: {ids:?}"
    );
    let output = cli()
        .args(["lint", "--no-config", "-"])
        .write_stdin(format!("{deployment}---\n{mesh}"))
        .output()
        .unwrap();
    let last = assumption_block(&String::from_utf8(output.stdout).unwrap());
    assert!(
        last.contains("mesh-wide holdApplicationUntilProxyStarts true (input -)"),
        "{last}"
    );
}

/// Linkerd's `linkerd-config`, as `kubectl get configmap linkerd-config -n linkerd -o
/// yaml` prints it, among the inputs: its install values apply to the workloads beside
/// it, as `lint --cluster` applies the cluster's, and are checked like `--mesh-config`.
#[test]
fn linkerd_config_in_the_input_stream_sets_the_install_values() {
    let config = |wait: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: linkerd-config\n  namespace: linkerd\ndata:\n  values: |\n    linkerdVersion: stable-2.14.10\n    proxy:\n      waitBeforeExitSeconds: {wait}\n"
        )
    };
    let deployment = std::fs::read_to_string(testdata(
        "rules/ml202-fire-linkerd-no-wait-before-exit.yaml",
    ))
    .unwrap();
    let lint = |wait: &str| {
        let output = cli()
            .args(["lint", "--format", "json", "--no-config", "-"])
            .write_stdin(format!("{deployment}---\n{}", config(wait)))
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        (report, output.status.code())
    };
    let ids = |report: &serde_json::Value| -> Vec<String> {
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["ruleId"].as_str().unwrap().to_owned())
            .collect()
    };
    let (waits, code) = lint("15");
    assert_eq!(code, Some(0));
    assert_eq!(ids(&waits), Vec::<String>::new(), "the proxy waits 15 s");
    let (leaves, _) = lint("0");
    assert_eq!(ids(&leaves), ["ML202", "ML203"]);
    let (wrong, code) = lint("soon");
    assert_eq!(code, Some(2));
    let error = &wrong["errors"][0];
    let line = deployment.lines().count() + 1 + 10;
    assert_eq!(
        (error["line"].as_u64(), error["column"].as_u64()),
        (Some(line as u64), Some(30)),
        "at the value, inside data.values: {error}"
    );
    let output = cli()
        .args(["lint", "--no-config", "-"])
        .write_stdin(format!("{deployment}---\n{}", config("15")))
        .output()
        .unwrap();
    let last = assumption_block(&String::from_utf8(output.stdout).unwrap());
    assert!(last.contains("Linkerd 2.14 (input -)"), "{last}");
}

#[test]
fn the_header_states_the_grace_period_the_deletion_used() {
    // The pod leaves terminationGracePeriodSeconds at 30; the deletion asks for 10.
    let output = cli()
        .args([
            "explain",
            "--deletion-grace-period",
            "10",
            "--color",
            "never",
        ])
        .arg(testdata("rules/ml201-silent-exit-on-zero.yaml"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("grace period 10 s (--deletion-grace-period)"),
        "{text}"
    );
    assert!(
        text.contains("Termination (0 = deletion; grace period 10 s)"),
        "{text}"
    );
    assert!(!text.contains("grace period 30 s"), "{text}");
}

#[test]
fn a_namespace_opt_in_is_quoted_as_the_namespace_writes_it() {
    // `linkerd.io/inject: ingress` on the namespace injects the proxy too; the reason
    // names the value the namespace has, not `enabled`.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ingress.yaml");
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: edge\n  annotations: {linkerd.io/inject: ingress}\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: gateway\n  namespace: edge\nspec:\n  containers:\n  - name: app\n    image: app\n",
    )
    .unwrap();
    let text = explain("json", file.to_str().unwrap());
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let reasons = &json["workloads"][0]["plan"]["meshes"][0]["reasons"];
    assert_eq!(
        reasons[0], "namespace edge has `linkerd.io/inject: ingress`",
        "{reasons}"
    );
}

/// `explain` of `path` in `format`, without colour.
fn explain_path(format: &str, path: &std::path::Path) -> String {
    let output = cli()
        .args([
            "explain",
            "--format",
            format,
            "--color",
            "never",
            "--no-config",
        ])
        .arg(path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// The longest run of digits in `text`.
fn longest_number(text: &str) -> usize {
    text.split(|c: char| !c.is_ascii_digit())
        .map(str::len)
        .max()
        .unwrap_or(0)
}

#[test]
fn a_grace_period_beyond_the_axis_is_said_and_not_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = |grace: &str| {
        let path = dir.path().join(format!("grace-{grace}.yaml"));
        std::fs::write(
            &path,
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: web}}\nspec:\n  terminationGracePeriodSeconds: {grace}\n  containers:\n  - {{name: web, image: example/web:1.0}}\n"
            ),
        )
        .unwrap();
        path
    };
    let absurd = manifest("9223372036854775807");
    let said = "the grace period ends at 9223372036854775807 s, beyond the drawn axis";
    let text = explain_path("text", &absurd);
    assert!(
        text.contains("Termination (0 = deletion; grace period 9223372036854775807 s)"),
        "{text}"
    );
    assert!(text.contains(said), "{text}");
    assert!(!text.contains("grace period ends: SIGKILL"), "{text}");
    // No other long number: the axis is drawn for the events, not to a clamped end.
    let others = text.replace("9223372036854775807", "");
    assert!(longest_number(&others) < 6, "{text}");
    let svg = explain_path("svg", &absurd);
    resvg::usvg::Tree::from_str(&svg, &resvg::usvg::Options::default()).unwrap();
    assert!(svg.contains(said), "{svg}");
    assert!(!svg.contains(r#"class="deadline""#), "{svg}");
    assert!(
        longest_number(&svg.replace("9223372036854775807", "")) < 6,
        "{svg}"
    );
    // A long grace period the axis can hold is drawn where it ends.
    let long = manifest("1800");
    let text = explain_path("text", &long);
    assert!(text.contains("grace period ends: SIGKILL"), "{text}");
    assert!(!text.contains("beyond the drawn axis"), "{text}");
    let svg = explain_path("svg", &long);
    assert!(
        svg.contains(r#"class="deadline" data-at="1800000""#),
        "{svg}"
    );
}
