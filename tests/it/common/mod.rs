//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod apiserver;
pub mod fixing;
pub mod imports;
pub mod in_process;
pub mod lists;
pub mod reports;
pub mod tools;

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A path under `testdata/`.
pub fn testdata(relative: &str) -> PathBuf {
    root().join("testdata").join(relative)
}

/// Every file under `dir`, recursively, sorted.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Every `.rs` file under `dir`, recursively, sorted.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = files_under(dir);
    files.retain(|path| path.extension().is_some_and(|e| e == "rs"));
    files
}

/// The manifests of `testdata/corpus/` (not its notes and tables), sorted.
pub fn corpus_files() -> Vec<PathBuf> {
    let mut files = files_under(&testdata("corpus"));
    files.retain(|path| {
        !matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("md" | "tsv")
        )
    });
    files
}

/// The rule fixtures, `testdata/rules/*.yaml`, sorted.
pub fn rule_fixtures() -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(testdata("rules"))
        .expect("testdata/rules exists")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .collect();
    files.sort();
    files
}

/// A configuration file (`--config`) holding `text`, `config.yaml` in a temporary
/// directory that lives as long as the returned guard.
pub fn config_file(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("config.yaml");
    std::fs::write(&path, text).expect("the configuration file is written");
    (dir, path)
}

/// The plugin binary, ready to run with arguments.
pub fn cli() -> Command {
    let mut command = Command::cargo_bin("kubectl-mesh_lifecycle").expect("the binary is built");
    command.env_remove("NO_COLOR").env("COLUMNS", "100");
    // The github format reads these in GitHub Actions; tests set them explicitly.
    for variable in [
        "GITHUB_STEP_SUMMARY",
        "GITHUB_WORKSPACE",
        "GITHUB_SERVER_URL",
        "GITHUB_REPOSITORY",
        "GITHUB_SHA",
    ] {
        command.env_remove(variable);
    }
    command
}

/// Runs `lint --format json` on `path` with extra flags; returns the parsed report and
/// the exit status.
pub fn lint_json(path: &Path, flags: &[&str]) -> (serde_json::Value, i32) {
    let output = cli()
        .arg("lint")
        .arg("--format")
        .arg("json")
        .args(flags)
        .arg(path)
        .output()
        .expect("the binary runs");
    let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "invalid JSON from {}: {error}\nstdout: {}\nstderr: {}",
            path.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (report, output.status.code().unwrap_or(-1))
}

/// `(ruleId, line)` of every finding, sorted.
pub fn rule_lines(report: &serde_json::Value) -> Vec<(String, u64)> {
    let mut found: Vec<(String, u64)> = report["findings"]
        .as_array()
        .expect("findings is an array")
        .iter()
        .map(|f| {
            (
                f["ruleId"].as_str().unwrap().to_owned(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    found.sort();
    found
}

/// The messages of a report's findings, one a line, each line after the first starting
/// with `indent`: for a failure message that shows what fired instead.
pub fn messages(report: &serde_json::Value, indent: &str) -> String {
    report["findings"]
        .as_array()
        .expect("findings is an array")
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .collect::<Vec<_>>()
        .join(&format!("\n{indent}"))
}

/// The `# expect: ML101 ML301` markers of a fixture: `(ruleId, line)`, sorted.
pub fn expectations(text: &str) -> Vec<(String, u64)> {
    let mut expected = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if let Some(at) = line.find("# expect:") {
            for id in line[at + "# expect:".len()..].split_whitespace() {
                expected.push((id.to_owned(), index as u64 + 1));
            }
        }
    }
    expected.sort();
    expected
}

/// Flags from a `# profile: ...` first line.
pub fn profile_flags(text: &str) -> Vec<String> {
    text.lines()
        .next()
        .and_then(|line| line.strip_prefix("# profile:"))
        .map(|flags| flags.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// Runs the whole pipeline on `yaml` in memory with `configure` applied to the default
/// profile; returns every workload's analysis.
pub fn analyze(
    yaml: &str,
    configure: impl FnOnce(&mut mesh_lifecycle::settings::Settings),
) -> Vec<mesh_lifecycle::pipeline::Analysis> {
    use mesh_lifecycle::load::Inputs;
    use mesh_lifecycle::pipeline::{self, RunOptions};
    let mut settings = mesh_lifecycle::settings::Settings::default();
    let inputs = Inputs::from_bytes(yaml.as_bytes().to_vec());
    mesh_lifecycle::settings::layers::gather_context(&inputs, Default::default(), &mut settings);
    configure(&mut settings);
    let options = RunOptions {
        threads: 1,
        ..RunOptions::default()
    };
    let mut analyses = Vec::new();
    pipeline::run(&inputs, &settings, &options, |report| {
        assert!(
            report.errors.is_empty(),
            "input errors: {:?}",
            report.errors
        );
        analyses.extend(report.analyses);
    });
    analyses
}

/// The one analysis of `yaml`.
pub fn analyze_one(
    yaml: &str,
    configure: impl FnOnce(&mut mesh_lifecycle::settings::Settings),
) -> mesh_lifecycle::pipeline::Analysis {
    let mut analyses = analyze(yaml, configure);
    assert_eq!(analyses.len(), 1, "one workload");
    analyses.remove(0)
}

/// The index of container `name` in the plan.
pub fn index_of(
    analysis: &mesh_lifecycle::pipeline::Analysis,
    name: &str,
) -> mesh_lifecycle::resolve::ContainerId {
    analysis
        .plan
        .find(name)
        .unwrap_or_else(|| panic!("no container {name}"))
}

/// The termination entry of container `name`.
pub fn stop<'a>(
    analysis: &'a mesh_lifecycle::pipeline::Analysis,
    name: &str,
) -> &'a mesh_lifecycle::simulate::StopEntry {
    analysis
        .timeline
        .stop(index_of(analysis, name))
        .unwrap_or_else(|| panic!("{name} is not running at T0"))
}

/// The start-up entry of container `name`.
pub fn start<'a>(
    analysis: &'a mesh_lifecycle::pipeline::Analysis,
    name: &str,
) -> &'a mesh_lifecycle::simulate::StartEntry {
    analysis.timeline.start(index_of(analysis, name))
}

/// Seconds as milliseconds on the timeline.
pub fn s(seconds: f64) -> mesh_lifecycle::time::Millis {
    mesh_lifecycle::time::Millis((seconds * 1000.0).round() as i64)
}

/// The rule ids found, sorted.
pub fn rule_ids(analysis: &mesh_lifecycle::pipeline::Analysis) -> Vec<&'static str> {
    let mut ids: Vec<&str> = analysis
        .findings
        .iter()
        .map(|f| f.finding.rule.id)
        .collect();
    ids.sort();
    ids
}

/// The real `kubectl` on PATH; without it the test is skipped ([`tools::program`]).
pub fn kubectl_binary() -> Option<PathBuf> {
    tools::program("kubectl")
}

/// Runs the real `kubectl` with the plugin and its completion helper on PATH, and no
/// cluster configured; the directory holding them lives as long as the returned guard.
pub fn kubectl() -> Option<(Command, tempfile::TempDir)> {
    kubectl_binary()?;
    let dir = tempfile::tempdir().unwrap();
    for name in ["kubectl-mesh_lifecycle", "kubectl_complete-mesh_lifecycle"] {
        std::fs::copy(assert_cmd::cargo::cargo_bin(name), dir.path().join(name)).unwrap();
    }
    let path = std::env::join_paths(
        std::iter::once(dir.path().to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let mut command = Command::new(tools::path_of("kubectl"));
    command
        .env("PATH", path)
        .env("KUBECONFIG", dir.path().join("no-kubeconfig"));
    Some((command, dir))
}

/// `program` on PATH.
pub fn which(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
}

/// Asserts that `report` follows the contract of docs/lint-output.schema.json.
pub fn validate_lint_json(report: &serde_json::Value) {
    validate_against("docs/lint-output.schema.json", report);
}

/// Asserts that `report` follows the JSON schema at `schema` (from the repository root).
pub fn validate_against(schema: &str, report: &serde_json::Value) {
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join(schema)).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema is valid");
    let errors: Vec<String> = validator
        .iter_errors(report)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "contract violations: {errors:#?}");
}

/// A Deployment named `name` (in `namespace`, when given); with `hazard`, its
/// container's preStop (10 s) outlives its grace period (5 s): ML206, an error.
pub fn deployment(name: &str, namespace: Option<&str>, hazard: bool) -> String {
    let (grace, hook) = if hazard {
        (
            "      terminationGracePeriodSeconds: 5\n",
            "        lifecycle: {preStop: {exec: {command: [sleep, '10']}}}\n",
        )
    } else {
        ("", "")
    };
    let namespace = namespace
        .map(|ns| format!("  namespace: {ns}\n"))
        .unwrap_or_default();
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n{namespace}spec:\n  selector:\n    matchLabels: {{app: {name}}}\n  template:\n    metadata:\n      labels: {{app: {name}}}\n    spec:\n{grace}      containers:\n      - name: {name}\n        image: example/{name}:1.0\n{hook}"
    )
}

/// `text` with its lines joined and every run of whitespace made one space: what it
/// says, whatever the width it was wrapped to.
pub fn unwrapped(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Asserts that `log` is valid against the official SARIF 2.1.0 schema.
pub fn validate_sarif(log: &serde_json::Value) {
    let text = std::fs::read_to_string(testdata("schemas/sarif-2.1.0.json")).unwrap();
    // The schema's two `language` patterns end in `]?$`: a lone `]` is a literal in
    // ECMA-262 regular expressions but an error in Rust's, so the validator would
    // reject the schema itself. Escaping it keeps the pattern's meaning.
    let text = text.replace(
        r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#,
        r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}\\]?$""#,
    );
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        schema["title"],
        "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    );
    let validator = jsonschema::validator_for(&schema).expect("the SARIF schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(log)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "SARIF schema violations: {errors:#?}");
}

/// What kubectl reads from `path` (a List of a file's several objects), or `None`
/// without kubectl.
pub fn kubectl_reads(path: &Path) -> Option<serde_json::Value> {
    let kubectl = kubectl_binary()?;
    let output = std::process::Command::new(kubectl)
        .args(["label", "--local", "-f"])
        .arg(path)
        .args(["x=y", "-o", "json"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "kubectl cannot read the fixed file: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    // One object per document: several are gathered in a List, as `kubectl get` does.
    let mut objects: Vec<serde_json::Value> = serde_json::Deserializer::from_slice(&output.stdout)
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap();
    Some(match objects.len() {
        1 => objects.remove(0),
        _ => serde_json::json!({"kind": "List", "items": objects}),
    })
}
