//! `mcp`: the server driven by a real client, the official Python SDK (PyPI `mcp`,
//! `tests/it/mcp_client/client.py`), over stdio. The tools' answers are the command
//! line's: the findings `lint` returns are those of `lint --format json` on the same
//! files, the rule fixtures and a corpus file.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::common;

/// python3 with the `mcp` package, or `None` after a visible skip (a failure where
/// `.ci/run` installed it: `python-mcp` in MESH_LIFECYCLE_REQUIRE).
fn python_with_mcp() -> Option<std::path::PathBuf> {
    let python = common::tools::program("python3")?;
    // Importing the SDK takes seconds: the probe is made once a run.
    static IMPORTS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let imports = *IMPORTS.get_or_init(|| {
        Command::new(&python)
            .args(["-c", "import mcp"])
            .output()
            .expect("python3 runs")
            .status
            .success()
    });
    if !imports {
        common::tools::unavailable(
            "python-mcp",
            "the Python package `mcp` is not installed (pip install mcp)",
        );
        return None;
    }
    Some(python)
}

/// Starts the server in `dir` with `server_args`, makes `calls`, and returns what the
/// client saw: `initialize`, `tools` and each call's result, as the protocol spells
/// them.
fn session(python: &Path, dir: &Path, server_args: &[&str], calls: &Value) -> Value {
    let binary = assert_cmd::cargo::cargo_bin("kubectl-mesh_lifecycle");
    let run = Command::new(python)
        .arg(common::root().join("tests/it/mcp_client/client.py"))
        .arg(&binary)
        .arg(dir)
        .args(server_args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the client starts");
    use std::io::Write;
    let mut run = run;
    run.stdin
        .take()
        .unwrap()
        .write_all(calls.to_string().as_bytes())
        .unwrap();
    let done = run.wait_with_output().unwrap();
    assert!(
        done.status.success(),
        "the client failed:\n{}",
        String::from_utf8_lossy(&done.stderr)
    );
    serde_json::from_slice(&done.stdout).unwrap()
}

fn relative(path: &Path) -> String {
    path.strip_prefix(common::root())
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// The fixture `explain`, `diff` and the refused calls are made on.
const FIXTURE: &str = "testdata/rules/ml101-fire-job.yaml";

#[test]
fn a_client_lists_the_tools_and_gets_the_answers_of_the_command_line() {
    let Some(python) = python_with_mcp() else {
        return;
    };
    let fixtures: Vec<String> = common::rule_fixtures()
        .iter()
        .map(|p| relative(p))
        .collect();
    let corpus = "testdata/corpus/linkerd-inject/linkerd2-version-2.19/inject_emojivoto_deployment.golden.yml";
    let corpus_text = std::fs::read_to_string(common::root().join(corpus)).unwrap();
    let calls = json!([
        {"name": "lint", "arguments": {"paths": fixtures}},
        {"name": "lint", "arguments": {"paths": [corpus]}},
        {"name": "lint", "arguments": {"yaml": corpus_text, "filename": corpus}},
        {"name": "explain", "arguments": {"paths": [FIXTURE]}},
        {"name": "rules", "arguments": {"rule": "grace-period-exceeded"}},
        {"name": "rules", "arguments": {}},
        {"name": "diff", "arguments": {"paths": [FIXTURE], "from": ["istio=1.22"], "to": ["istio=1.27"]}},
        {"name": "diff", "arguments": {"paths": [FIXTURE]}},
        {"name": "lint", "arguments": {"paths": [FIXTURE], "yaml": "kind: Pod"}},
    ]);
    let seen = session(&python, &common::root(), &[], &calls);
    assert_eq!(
        seen["initialize"]["serverInfo"]["name"],
        "kubectl-mesh-lifecycle"
    );
    let mut names: Vec<&str> = seen["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["diff", "explain", "fix", "lint", "rules"]);
    for tool in seen["tools"].as_array().unwrap() {
        assert!(tool["description"].as_str().unwrap().len() > 40, "{tool:#}");
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool:#}");
        let read_only = tool["annotations"]["readOnlyHint"] == true;
        assert_eq!(read_only, tool["name"] != "fix", "{tool:#}");
    }

    // All the rule fixtures at once, then the corpus file, from paths and as text.
    let lint = |paths: &[String], flags: &[&str]| {
        let output = common::cli()
            .args(["lint", "--format", "json"])
            .args(flags)
            .arg("--")
            .args(paths)
            .current_dir(common::root())
            .output()
            .unwrap();
        serde_json::from_slice::<Value>(&output.stdout).unwrap()
    };
    let results = seen["results"].as_array().unwrap();
    let expected = lint(&fixtures, &[]);
    assert!(expected["findings"].as_array().unwrap().len() > 100);
    assert_eq!(results[0]["isError"], false);
    assert_eq!(
        results[0]["structuredContent"], expected,
        "the rule fixtures"
    );
    let expected = lint(&[corpus.to_owned()], &[]);
    assert!(!expected["findings"].as_array().unwrap().is_empty());
    assert_eq!(results[1]["structuredContent"], expected, "{corpus}");
    assert_eq!(
        results[2]["structuredContent"], expected,
        "{corpus} as text"
    );
    // Each finding carries its fix where lint has one.
    assert!(
        results[0]["structuredContent"]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|finding| finding["fix"]["edits"].is_array()),
        "no finding with a fix"
    );

    let run = |args: &[&str]| {
        let output = common::cli()
            .args(args)
            .current_dir(common::root())
            .output()
            .unwrap();
        String::from_utf8(output.stdout).unwrap()
    };
    // The timeline as text, then as JSON.
    let explain = &results[3];
    assert_eq!(
        explain["content"][0]["text"],
        run(&[
            "explain", "--format", "text", "--color", "never", "--", FIXTURE
        ])
    );
    let json: Value =
        serde_json::from_str(&run(&["explain", "--format", "json", "--", FIXTURE])).unwrap();
    assert_eq!(explain["structuredContent"], json);
    // A rule's doc; the catalog.
    let doc = results[4]["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        doc,
        run(&["rules", "--format", "markdown", "grace-period-exceeded"])
    );
    assert!(doc.contains("ML201"), "{doc}");
    let catalog: Value = serde_json::from_str(&run(&["rules", "--format", "json"])).unwrap();
    assert_eq!(results[5]["structuredContent"]["rules"], catalog);
    // Two profiles compared.
    let diff: Value = serde_json::from_str(&run(&[
        "diff",
        "--format",
        "json",
        "--from",
        "istio=1.22",
        "--to",
        "istio=1.27",
        "--",
        FIXTURE,
    ]))
    .unwrap();
    assert_eq!(results[6]["structuredContent"], diff);
    // Calls the tools cannot make are errors the assistant reads, not protocol errors.
    assert_eq!(results[7]["isError"], true);
    assert!(
        results[7]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("two sides")
    );
    assert_eq!(results[8]["isError"], true);
    assert!(
        results[8]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("not both")
    );
}

#[test]
fn fix_returns_the_fixed_text_and_writes_only_when_allowed_under_its_directory() {
    let Some(python) = python_with_mcp() else {
        return;
    };
    // A classic Istio proxy the pod asks for: the hold is a safe fix.
    let original =
        std::fs::read_to_string(common::testdata("rules/ml101-fire-inject-label.yaml")).unwrap();
    let work = tempfile::tempdir().unwrap();
    let inside = work.path().join("job.yaml");
    std::fs::write(&inside, &original).unwrap();
    let outside_dir = tempfile::tempdir().unwrap();
    let outside = outside_dir.path().join("job.yaml");
    std::fs::write(&outside, &original).unwrap();
    let expected = common::cli()
        .args(["lint", "--fix-only", "--no-config", "-"])
        .write_stdin(original.clone())
        .output()
        .unwrap();
    let expected = String::from_utf8(expected.stdout).unwrap();
    assert_ne!(expected, original, "the fixture has a safe fix");

    let calls = json!([
        {"name": "fix", "arguments": {"paths": ["job.yaml"]}},
        {"name": "fix", "arguments": {"yaml": original}},
        {"name": "fix", "arguments": {"paths": ["job.yaml"], "write": true}},
    ]);
    let seen = session(&python, work.path(), &[], &calls);
    let results = seen["results"].as_array().unwrap();
    assert_eq!(
        results[0]["structuredContent"]["files"][0]["fixed"],
        expected
    );
    assert_eq!(
        results[0]["structuredContent"]["files"][0]["written"],
        false
    );
    assert_eq!(results[1]["structuredContent"]["fixed"], expected);
    assert_eq!(results[2]["isError"], true, "{:#}", results[2]);
    assert!(
        results[2]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("--allow-writes")
    );
    assert_eq!(
        std::fs::read_to_string(&inside).unwrap(),
        original,
        "nothing written"
    );

    let calls = json!([
        {"name": "fix", "arguments": {"paths": [outside.to_string_lossy()], "write": true}},
        {"name": "fix", "arguments": {"paths": ["job.yaml"], "write": true}},
    ]);
    let seen = session(&python, work.path(), &["--allow-writes"], &calls);
    let results = seen["results"].as_array().unwrap();
    assert_eq!(results[0]["isError"], true, "{:#}", results[0]);
    assert!(
        results[0]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("outside the server's working directory")
    );
    assert_eq!(
        std::fs::read_to_string(&outside).unwrap(),
        original,
        "nothing written outside"
    );
    assert_eq!(results[1]["structuredContent"]["files"][0]["written"], true);
    assert_eq!(std::fs::read_to_string(&inside).unwrap(), expected);
}
