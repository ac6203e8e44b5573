//! What the linter reads, through the binary: the readings where YAML 1.2 and
//! Kubernetes part ways, versions in config, unknown keys in config and mesh config,
//! and positions on every encoding. tests/it/kubectl_reading.rs checks the manifest
//! readings against the real kubectl; here each is pinned to the value the linter
//! then works with.

use crate::common;

use std::path::{Path, PathBuf};

use common::cli;
use serde_json::Value;

/// Writes `text` as `name` in a fresh directory.
fn file(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// `explain --format json` of `path` with `flags`: the report and the exit status.
fn explain(path: &Path, flags: &[&str]) -> (Value, i32) {
    let output = cli()
        .args(["explain", "--format", "json"])
        .args(flags)
        .arg(path)
        .output()
        .unwrap();
    let report = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    (report, output.status.code().unwrap_or(-1))
}

/// The grace period the simulation uses for the one pod of `spec_lines`.
fn grace_period(spec_lines: &str) -> Value {
    let text = format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n{spec_lines}  containers:\n  - name: app\n    image: example/app:1.0\n"
    );
    let (_dir, path) = file("pod.yaml", &text);
    let (report, status) = explain(&path, &["--no-config"]);
    assert_eq!(status, 0, "{report}");
    report["workloads"][0]["plan"]["gracePeriodSeconds"].clone()
}

#[test]
fn merge_keys_apply_in_document_order_as_kubectl_applies_them() {
    // go-yaml v2's decoder.mapping (sigs.k8s.io/yaml v1.4.0, goyaml.v2/decode.go) sets
    // each key in order, a merge included: what comes later wins.
    let merge = "  <<: {terminationGracePeriodSeconds: 60}\n";
    let explicit = "  terminationGracePeriodSeconds: 5\n";
    assert_eq!(grace_period(&format!("{explicit}{merge}")), 60);
    assert_eq!(grace_period(&format!("{merge}{explicit}")), 5);
    assert_eq!(
        grace_period(
            "  <<: {terminationGracePeriodSeconds: 60}\n  <<: {terminationGracePeriodSeconds: 70}\n"
        ),
        70
    );
    // In a list, decoder.merge steps backwards: the earlier mapping wins.
    assert_eq!(
        grace_period(
            "  <<: [{terminationGracePeriodSeconds: 60}, {terminationGracePeriodSeconds: 70}]\n"
        ),
        60
    );
}

#[test]
fn an_integral_float_in_an_integer_field_is_that_integer() {
    // Go's JSON encoder writes float64(12) as `12`, which the API server reads as int64.
    assert_eq!(grace_period("  terminationGracePeriodSeconds: 12.0\n"), 12);
    assert_eq!(grace_period("  terminationGracePeriodSeconds: 3e1\n"), 30);
}

#[test]
fn a_null_label_is_an_empty_label() {
    // kubectl sends `"app": null`; Go's encoding/json leaves the map's string empty.
    let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {app: }\nspec:\n  containers:\n  - name: app\n    image: example/app:1.0\n";
    let (_dir, path) = file("pod.yaml", text);
    let (report, status) = explain(&path, &["--no-config"]);
    assert_eq!(status, 0, "{report}");
    assert_eq!(report["workloads"].as_array().unwrap().len(), 1);
}

#[test]
fn infinity_is_refused_with_kubectl_s_reason() {
    let (_dir, path) = file(
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  terminationGracePeriodSeconds: .inf\n  containers: [{name: app, image: x}]\n",
    );
    let (report, status) = common::lint_json(&path, &["--no-config"]);
    assert_eq!(status, 2);
    let error = &report["errors"][0];
    assert_eq!(
        (error["line"].as_u64(), error["column"].as_u64()),
        (Some(5), Some(34))
    );
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("json: unsupported value: +Inf"),
        "{error}"
    );
}

#[test]
fn concatenated_json_objects_are_two_objects() {
    let object = |name: &str| {
        format!(
            r#"{{"apiVersion": "v1", "kind": "Pod", "metadata": {{"name": "{name}"}}, "spec": {{"containers": [{{"name": "app", "image": "x"}}]}}}}"#
        )
    };
    let (_dir, path) = file("pods.json", &format!("{}{}\n", object("a"), object("b")));
    let (report, status) = explain(&path, &["--no-config"]);
    assert_eq!(status, 0, "{report}");
    let names: Vec<&str> = report["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["workload"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a", "b"]);
}

#[test]
fn a_quoted_scalar_may_continue_on_a_less_indented_line() {
    // libyaml accepts it (and some projects' deploy manifests rely on it): the command
    // is `sleep 45`, which outlives the 20 s grace period.
    let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  terminationGracePeriodSeconds: 20\n  containers:\n  - name: app\n    image: example/app:1.0\n    lifecycle:\n      preStop:\n        exec:\n          command: [\"/bin/sh\", \"-c\", \"sleep\n45\"]\n";
    let (_dir, path) = file("pod.yaml", text);
    let (report, status) = common::lint_json(&path, &["--no-config"]);
    assert_eq!(report["errors"], Value::Array(vec![]), "{report}");
    assert_eq!(status, 1);
    assert_eq!(common::rule_lines(&report), [("ML206".to_owned(), 11)]);
}

/// Lints `manifest` with `args` (a config or mesh config file among them): the JSON
/// report (`Null` when the profile could not be read, which stops the run), standard
/// error, and the exit status.
fn lint(args: &[&std::ffi::OsStr], manifest: &Path) -> (Value, String, i32) {
    let output = cli()
        .args(["lint", "--format", "json"])
        .args(args)
        .arg(manifest)
        .output()
        .unwrap();
    let report = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (report, stderr, output.status.code().unwrap_or(-1))
}

/// Lints `manifest` with `config` as the config file.
fn with_config(config: &str, manifest: &Path) -> (Value, String, i32) {
    let (_dir, path) = file(".mesh-lifecycle.yaml", config);
    lint(&["--config".as_ref(), path.as_os_str()], manifest)
}

/// `(line, column, message)` of the first diagnostic on standard error about `name`.
fn first_error(stderr: &str, name: &str) -> (u64, u64, String) {
    // The headline, joined from the lines the report wraps it on (`│ …`).
    let mut lines = stderr.lines().map(str::trim_start);
    let first = lines
        .find_map(|line| line.strip_prefix("× "))
        .unwrap_or_else(|| panic!("no diagnostic in {stderr}"));
    let headline = std::iter::once(first)
        .chain(lines.map_while(|line| line.strip_prefix("│ ")))
        .collect::<Vec<_>>()
        .join(" ");
    let at = headline.find(name).unwrap_or_else(|| panic!("{headline}")) + name.len() + 1;
    let mut parts = headline[at..].splitn(3, ':');
    let line = parts.next().unwrap().parse().unwrap();
    let column = parts.next().unwrap().parse().unwrap();
    (line, column, parts.next().unwrap().trim().to_owned())
}

#[test]
fn config_versions_are_read_as_written() {
    // A preStop sleep action is fine on 1.30 (PodLifecycleSleepAction on from 1.30);
    // read as the number 1.3, an unquoted `kubernetesVersion: 1.30` raised a false ML209.
    let manifest = common::testdata("rules/ml209-silent-1.30.yaml");
    let config = "kubernetesVersion: 1.30\nistio: {version: 1.20}\n";
    let (report, stderr, status) = with_config(config, &manifest);
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(report["findings"], Value::Array(vec![]), "{report}");
    let (_dir, path) = file(".mesh-lifecycle.yaml", config);
    let output = cli()
        .args(["explain", "--format", "json", "--config"])
        .arg(&path)
        .arg(&manifest)
        .output()
        .unwrap();
    let explained: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(explained["profile"]["kubernetesVersion"], "1.30");
    assert_eq!(explained["profile"]["istioVersion"], "1.20");
}

#[test]
fn config_versions_outside_the_model_are_errors_with_the_range() {
    let manifest = common::testdata("rules/ml206-fire-sleep-45.yaml");
    let (_, stderr, status) = with_config("kubernetesVersion: 1.3\n", &manifest);
    assert_eq!(status, 2);
    assert_eq!(
        first_error(&stderr, ".mesh-lifecycle.yaml"),
        (
            1,
            20,
            "kubernetesVersion: Kubernetes 1.3 is outside the releases the linter models (1.22 to 1.36); give the nearest of those it behaves like".to_owned()
        )
    );
    let (_, stderr, status) = with_config("istio:\n  version: 1.2\n", &manifest);
    assert_eq!(status, 2);
    let (line, column, message) = first_error(&stderr, ".mesh-lifecycle.yaml");
    assert_eq!((line, column), (2, 12));
    assert!(
        message.starts_with(
            "istio.version: Istio 1.2 is outside the releases the linter models (1.3 to 1.29)"
        ),
        "{message}"
    );
    // A newer release than the model knows is taken, checked as the newest, and noted.
    let (_, stderr, status) = with_config("istio:\n  version: 1.30\n", &manifest);
    assert_eq!(status, 1, "{stderr}");
    assert!(
        stderr.contains("note: Istio 1.30 (config ")
            && stderr.contains("it is checked as Istio 1.29"),
        "{stderr}"
    );
}

#[test]
fn version_flags_outside_the_model_are_usage_errors_with_the_range() {
    let output = cli()
        .args(["lint", "--no-config", "--kubernetes-version", "1.3"])
        .arg(common::testdata("rules/ml206-fire-sleep-45.yaml"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("Kubernetes 1.3 is outside the releases the linter models (1.22 to 1.36)"),
        "{stderr}"
    );
}

#[test]
fn unknown_config_keys_are_errors_at_the_key_and_wrong_types_at_the_value() {
    let manifest = common::testdata("rules/ml206-fire-sleep-45.yaml");
    let (_, stderr, status) = with_config("scenario:\n  appShutdownn: 10s\n", &manifest);
    assert_eq!(status, 2);
    let (line, column, message) = first_error(&stderr, ".mesh-lifecycle.yaml");
    assert_eq!((line, column), (2, 3));
    assert!(
        message.starts_with(
            "scenario.appShutdownn: unknown setting `appShutdownn`; expected one of: proxyStartup,"
        ),
        "{message}"
    );
    let config = "linkerd:\n  version: version-2.16\n  proxyAwait: sometimes\n";
    let (_, stderr, status) = with_config(config, &manifest);
    assert_eq!(status, 2);
    assert_eq!(
        first_error(&stderr, ".mesh-lifecycle.yaml"),
        (
            3,
            15,
            "linkerd.proxyAwait: invalid type: string \"sometimes\", expected a boolean".to_owned()
        )
    );
}

#[test]
fn unknown_mesh_config_fields_are_errors_at_the_key() {
    // istiod ignores unknown MeshConfig and ProxyConfig fields (istio/istio
    // pkg/util/protomarshal ApplyJSON retries with AllowUnknownFields), so the typo would
    // silently leave the drain at its default.
    let (_dir, mesh) = file(
        "istio.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: |-\n    defaultConfig:\n      terminationDrainDurationn: 30s\n",
    );
    let (_, stderr, status) = lint(
        &[
            "--no-config".as_ref(),
            "--mesh-config".as_ref(),
            mesh.as_os_str(),
        ],
        &common::testdata("rules/ml206-fire-sleep-45.yaml"),
    );
    assert_eq!(status, 2);
    assert_eq!(
        first_error(&stderr, "istio.yaml"),
        (
            7,
            7,
            "data.mesh → defaultConfig.terminationDrainDurationn: unknown ProxyConfig field `terminationDrainDurationn` (istiod ignores it, so it has no effect); did you mean `terminationDrainDuration`?".to_owned()
        )
    );
}

/// The headline `file:line:column` of the human report, and `line`/`column` of the
/// JSON report, for the first finding of `path`.
fn positions(path: &Path, rule: &str) -> ((u64, u64), (u64, u64)) {
    let (report, _) = common::lint_json(path, &["--no-config", "--select", rule]);
    let finding = &report["findings"][0];
    let json = (
        finding["line"].as_u64().unwrap(),
        finding["column"].as_u64().unwrap(),
    );
    let output = cli()
        .args(["lint", "--no-config", "--color", "never", "--select", rule])
        .arg(path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let name = path.file_name().unwrap().to_str().unwrap();
    let at = stdout.find(&format!("{name}:")).expect("a headline") + name.len() + 1;
    let mut numbers = stdout[at..]
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<u64>().unwrap());
    let human = (numbers.next().unwrap(), numbers.next().unwrap());
    (json, human)
}

/// A pod with an invalid drain inside `proxy.istio.io/config`, after `é€😀` on the line.
const WIDE_POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {sidecar.istio.io/inject: \"true\"}\n  annotations: {x: \"é€😀\", proxy.istio.io/config: '{\"terminationDrainDuration\": 5}'}\nspec:\n  containers:\n  - name: app\n    image: example/app:1.0\n";

#[test]
fn positions_agree_with_multi_byte_characters_before_them() {
    let (_dir, path) = file("pod.yaml", WIDE_POD);
    let (json, human) = positions(&path, "ML401");
    // Line 6, at the `5` inside the annotation: columns count characters.
    let line = WIDE_POD.lines().nth(5).unwrap();
    let column = line[..line.find("5}").unwrap()].chars().count() as u64 + 1;
    assert_eq!(json, (6, column));
    assert_eq!(human, json);
}

#[test]
fn positions_agree_with_line_ends_that_are_cr_alone() {
    let (_dir, path) = file("pod.yaml", &WIDE_POD.replace('\n', "\r"));
    let (json, human) = positions(&path, "ML401");
    let (_lf_dir, lf) = file("pod.yaml", WIDE_POD);
    assert_eq!(json, positions(&lf, "ML401").0);
    assert_eq!(human, json);
}

#[test]
fn a_finding_inside_a_json_annotation_points_at_the_value() {
    // Double-quoted, the JSON's quotes are escapes: columns follow the file's text.
    let pod = WIDE_POD.replace(
        "'{\"terminationDrainDuration\": 5}'",
        "\"{\\\"terminationDrainDuration\\\": 5}\"",
    );
    let (_dir, path) = file("pod.yaml", &pod);
    let (json, human) = positions(&path, "ML401");
    let line = pod.lines().nth(5).unwrap();
    let column = line[..line.find("5}").unwrap()].chars().count() as u64 + 1;
    assert_eq!(json, (6, column));
    assert_eq!(human, json);
}

/// A pod that asks Istio to hold the app until the proxy is ready: a custom proxy
/// lifecycle without a postStart that waits would raise ML102.
const HELD_POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels: {sidecar.istio.io/inject: 'true'}\n  annotations:\n    proxy.istio.io/config: '{\"holdApplicationUntilProxyStarts\": true}'\nspec:\n  containers: [{name: app, image: app}]\n";

#[test]
fn a_wrongly_typed_proxy_lifecycle_is_an_error_at_its_value() {
    // Dropped silently, such a lifecycle left ML102 blaming "a custom proxy lifecycle".
    let (_dir, manifest) = file("pod.yaml", HELD_POD);
    let config = "istio:\n  lifecycle:\n    postStart: pilot-agent wait\n";
    let (report, stderr, status) = with_config(config, &manifest);
    assert_eq!(status, 2, "{stderr}");
    assert_eq!(
        report,
        Value::Null,
        "no report from a run whose config is wrong"
    );
    let (line, column, message) = first_error(&stderr, ".mesh-lifecycle.yaml");
    assert_eq!((line, column), (3, 16), "{stderr}");
    assert!(
        message.starts_with("istio.lifecycle.postStart: invalid type: string"),
        "{message}"
    );
    // The injector's `global.proxy.lifecycle`, in a mesh config file and in the input.
    let values = "global:\n  proxy:\n    lifecycle:\n      preStop: {exec: {command: 5}}\n";
    let (_values_dir, values_path) = file("values.yaml", values);
    let (_, stderr, status) = lint(
        &["--mesh-config".as_ref(), values_path.as_os_str()],
        &manifest,
    );
    assert_eq!(status, 2, "{stderr}");
    let (line, column, message) = first_error(&stderr, "values.yaml");
    assert_eq!((line, column), (4, 33), "{stderr}");
    assert!(
        message.starts_with("global.proxy.lifecycle.preStop.exec.command: invalid type"),
        "{message}"
    );
    let injector = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: istio-sidecar-injector, namespace: istio-system}}\ndata:\n  values: |\n    global:\n      proxy:\n        lifecycle: 7\n---\n{HELD_POD}"
    );
    let (_stream_dir, stream) = file("stream.yaml", &injector);
    let (report, stderr, status) = lint(&[], &stream);
    assert_eq!(status, 2, "{stderr}");
    let (line, column, message) = first_error(&stderr, "stream.yaml");
    assert_eq!((line, column), (8, 20), "{stderr}");
    assert!(
        message.starts_with("data.values → global.proxy.lifecycle: invalid type"),
        "{message}"
    );
    let rules: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| &finding["ruleId"])
        .collect();
    assert!(!rules.contains(&&Value::from("ML102")), "{report}");
}

#[test]
fn an_empty_proxy_lifecycle_keeps_the_injected_hooks() {
    // The injection template tests `{{- if .Values.global.proxy.lifecycle }}`: an empty
    // mapping is false there, so `pilot-agent wait` still holds the app.
    let (_dir, manifest) = file("pod.yaml", HELD_POD);
    let (report, stderr, status) = with_config("istio:\n  lifecycle: {}\n", &manifest);
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(report["findings"], Value::Array(vec![]), "{report}");
    let (report, stderr, status) = with_config(
        "istio:\n  version: '1.26'\n  lifecycle:\n    preStop: {exec: {command: [sleep, '5']}}\n",
        &manifest,
    );
    assert_eq!(status, 1, "{stderr}");
    assert_eq!(report["findings"][0]["ruleId"], "ML102", "{report}");
}
