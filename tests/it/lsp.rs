//! `lsp`: the language server, driven over standard input and output as an editor
//! drives it. What `lint`, `lint --fix` and `explain` print for the same file are the
//! oracles: the server must show the same findings, make the same fixes and draw the
//! same timeline.

use crate::common;
use crate::lsp_client;

use std::path::Path;

use common::{cli, root, testdata};
use lsp_client::{Server, action_edits, apply};
use serde_json::{Value, json};

/// What an editor like VS Code says it can do: versioned edits, file watching.
fn capabilities() -> Value {
    json!({
        "workspace": {
            "workspaceEdit": {"documentChanges": true},
            "didChangeWatchedFiles": {"dynamicRegistration": true},
        },
        "textDocument": {"publishDiagnostics": {"relatedInformation": true}},
    })
}

/// A workspace holding `files`, with a server started on it.
fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, Server) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let mut server = Server::start(dir.path(), &[]);
    server.initialize(dir.path(), capabilities());
    (dir, server)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// `(code, line, column)` of each diagnostic with a code, 1-based like `lint`'s JSON
/// (the fixtures are ASCII, so UTF-16 columns are characters), sorted.
fn codes(diagnostics: &[Value]) -> Vec<(String, u64, u64)> {
    let mut codes: Vec<(String, u64, u64)> = diagnostics
        .iter()
        .filter_map(|d| {
            Some((
                d["code"].as_str()?.to_owned(),
                d["range"]["start"]["line"].as_u64()? + 1,
                d["range"]["start"]["character"].as_u64()? + 1,
            ))
        })
        .collect();
    codes.sort();
    codes
}

/// `(ruleId, line, column)` of each finding `lint --format json` reports for `file`
/// run in `dir`, sorted.
/// The severity lint gives each finding of `file` in `dir`, by rule id and line.
fn lint_severities(dir: &Path, file: &str) -> std::collections::BTreeMap<(String, u64), String> {
    let output = cli()
        .current_dir(dir)
        .args(["lint", "--no-config", "--format", "json", "."])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["file"] == file)
        .map(|f| {
            let key = (
                f["ruleId"].as_str().unwrap().to_owned(),
                f["line"].as_u64().unwrap(),
            );
            (key, f["severity"].as_str().unwrap().to_owned())
        })
        .collect()
}

fn lint_findings(dir: &Path, file: &str, flags: &[&str]) -> Vec<(String, u64, u64)> {
    let output = cli()
        .current_dir(dir)
        .args(["lint", "--format", "json"])
        .args(flags)
        .arg(".")
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut found: Vec<(String, u64, u64)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["file"] == file)
        .map(|f| {
            (
                f["ruleId"].as_str().unwrap().to_owned(),
                f["line"].as_u64().unwrap(),
                f["column"].as_u64().unwrap(),
            )
        })
        .collect();
    found.sort();
    found
}

/// What `lint --fix` writes for `text`, a file of its own in a directory of its own.
fn lint_fix(text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("web.yaml"), text).unwrap();
    cli()
        .current_dir(dir.path())
        .args(["lint", "--fix", "--no-config", "web.yaml"])
        .output()
        .unwrap();
    read(&dir.path().join("web.yaml"))
}

fn hover_text(server: &mut Server, uri: &str, line: u64, character: u64) -> Option<String> {
    let id = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
    );
    let result = server.result(id);
    result["contents"]["value"].as_str().map(str::to_owned)
}

fn code_actions(server: &mut Server, uri: &str, range: &Value) -> Vec<Value> {
    let id = server.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": range, "context": {"diagnostics": []}}),
    );
    server.result(id).as_array().unwrap().clone()
}

#[test]
fn diagnostics_are_lints_findings_with_codes_ranges_and_related_places() {
    let fixtures = [
        "ml101-fire-inject-label.yaml",
        "ml201-fire-prestop-plus-drain.yaml",
        "ml301-fire-injected-job.yaml",
        "ml205-fire-drain-with-exit-on-zero.yaml",
    ];
    let files: Vec<(String, String)> = fixtures
        .iter()
        .map(|name| (name.to_string(), read(&testdata(&format!("rules/{name}")))))
        .collect();
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let (dir, mut server) = workspace(&borrowed);
    let mut ml201 = None;
    for (name, text) in &files {
        let uri = server.open(&dir.path().join(name), text);
        let diagnostics = server.diagnostics(&uri, 1);
        let expected = lint_findings(dir.path(), name, &["--no-config"]);
        assert!(!expected.is_empty(), "{name} has findings");
        assert_eq!(codes(&diagnostics), expected, "{name}");
        let graded = lint_severities(dir.path(), name);
        for diagnostic in &diagnostics {
            let code = diagnostic["code"].as_str().unwrap();
            let rule = mesh_lifecycle::rules::find(code).unwrap().meta();
            // The severity lint gives it, its evidence weighed.
            let line = diagnostic["range"]["start"]["line"].as_u64().unwrap() + 1;
            let severity = match graded[&(code.to_owned(), line)].as_str() {
                "error" => 1,
                "warning" => 2,
                _ => 3,
            };
            assert_eq!(diagnostic["severity"], severity, "{diagnostic:#}");
            assert_eq!(diagnostic["source"], "mesh-lifecycle");
            let href = diagnostic["codeDescription"]["href"].as_str().unwrap();
            let page = format!("docs/rules/{}-{}.md", rule.id, rule.name);
            assert!(href.ends_with(&page), "{href}");
            assert!(root().join(&page).is_file(), "{page} is the rule's page");
            // A setting with no effect is drawn as unnecessary.
            let unnecessary = diagnostic["tags"] == json!([1]);
            assert_eq!(unnecessary, code == "ML205", "{diagnostic:#}");
            if code == "ML201" {
                ml201 = Some((uri.clone(), diagnostic.clone()));
            }
        }
    }
    // ML201 points at the drain and names the grace period and the preStop hook, with
    // `lint`'s message.
    let (uri, diagnostic) = ml201.expect("an ML201 finding");
    let report = common::lint_json(&dir.path().join(fixtures[1]), &["--no-config"]).0;
    let expected = &report["findings"][0];
    assert_eq!(expected["ruleId"], "ML201");
    let related: Vec<(u64, &str)> = diagnostic["relatedInformation"]
        .as_array()
        .expect("the other side of the comparison")
        .iter()
        .map(|info| {
            assert_eq!(info["location"]["uri"], uri);
            (
                info["location"]["range"]["start"]["line"].as_u64().unwrap() + 1,
                info["message"].as_str().unwrap(),
            )
        })
        .collect();
    let text = &files[1].1;
    let line_of = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() as u64 + 1;
    assert!(
        related
            .iter()
            .any(|&(line, _)| line == line_of("terminationGracePeriodSeconds")),
        "{related:?}"
    );
    assert!(
        related.iter().any(|&(line, _)| line == line_of("preStop:")),
        "{related:?}"
    );
    assert!(
        diagnostic["message"]
            .as_str()
            .unwrap()
            .starts_with(expected["message"].as_str().unwrap())
    );
    assert_eq!(server.shutdown().code(), Some(0));
}

#[test]
fn a_quick_fix_sets_the_istio_hold_as_lint_fix_does_and_the_diagnostic_clears() {
    let text = read(&testdata("rules/ml101-fire-inject-label.yaml"));
    let (dir, mut server) = workspace(&[("web.yaml", &text)]);
    let uri = server.open(&dir.path().join("web.yaml"), &text);
    let diagnostics = server.diagnostics(&uri, 1);
    let ml101 = diagnostics.iter().find(|d| d["code"] == "ML101").unwrap();
    let actions = code_actions(&mut server, &uri, &ml101["range"]);
    let titles: Vec<&str> = actions
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    let fix = actions
        .iter()
        .find(|a| a["title"].as_str().unwrap().starts_with("Fix ML101"))
        .unwrap_or_else(|| panic!("{titles:?}"));
    assert_eq!(fix["kind"], "quickfix");
    assert_eq!(fix["isPreferred"], true, "the only fix, and a safe one");
    assert!(
        titles.iter().any(|t| t.starts_with("Suppress ML101")),
        "{titles:?}"
    );
    let (edits, version) = action_edits(fix, &uri);
    assert_eq!(version, Some(1), "edits are for the version linted");
    let fixed = apply(&text, &edits);
    assert!(
        fixed.contains("holdApplicationUntilProxyStarts: true"),
        "{fixed}"
    );
    assert_eq!(fixed, lint_fix(&text), "the text `lint --fix` writes");
    // Applied, the change clears the finding.
    server.replace(&uri, 2, &fixed);
    let after = server.diagnostics(&uri, 2);
    assert!(after.iter().all(|d| d["code"] != "ML101"), "{after:#?}");
    assert!(after.iter().any(|d| d["code"] == "ML207"), "{after:#?}");
    // ML207's delay goes with the proxy's drain, and rests on assumed times: offered
    // as unsafe, with its suppression.
    let ml207 = after.iter().find(|d| d["code"] == "ML207").unwrap();
    let actions = code_actions(&mut server, &uri, &ml207["range"]);
    let titles: Vec<&str> = actions
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert!(
        titles
            .iter()
            .any(|t| t.starts_with("Fix ML207 (unsafe") && t.contains("terminationDrainDuration")),
        "{titles:?}"
    );
    let suppress = actions
        .iter()
        .find(|a| a["title"].as_str().unwrap().starts_with("Suppress ML207"))
        .unwrap();
    let (edits, version) = action_edits(suppress, &uri);
    assert_eq!(version, Some(2));
    let suppressed = apply(&fixed, &edits);
    assert!(
        suppressed.contains(
            "ignore-check.mesh-lifecycle.io/ML207: \"TODO: why this finding does not apply\""
        ),
        "{suppressed}"
    );
    server.replace(&uri, 3, &suppressed);
    let after = server.diagnostics(&uri, 3);
    assert!(after.iter().all(|d| d["code"] != "ML207"), "{after:#?}");
    assert_eq!(server.shutdown().code(), Some(0));
}

#[test]
fn fix_all_makes_every_safe_fix_and_unsafe_fixes_say_so() {
    // ML201 (safe: every time its value adds up is in the file) and ML101 (unsafe: it
    // assumes an Istio release before native sidecars) in one file.
    let text = read(&testdata("rules/ml201-fire-prestop-plus-drain.yaml"))
        .replace("          holdApplicationUntilProxyStarts: true\n", "");
    let (dir, mut server) = workspace(&[("api.yaml", &text)]);
    let uri = server.open(&dir.path().join("api.yaml"), &text);
    let diagnostics = server.diagnostics(&uri, 1);
    let expected = lint_findings(dir.path(), "api.yaml", &["--no-config"]);
    assert_eq!(codes(&diagnostics), expected);
    let everything =
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 999, "character": 0}});
    let actions = code_actions(&mut server, &uri, &everything);
    let titles: Vec<&str> = actions
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    let unsafe_fix = titles.iter().find(|t| t.starts_with("Fix ML101")).unwrap();
    assert!(
        unsafe_fix.contains("unsafe") && unsafe_fix.contains("it assumes Istio before 1.27"),
        "{unsafe_fix}"
    );
    let safe_fix = actions
        .iter()
        .find(|a| a["title"].as_str().unwrap().starts_with("Fix ML201"))
        .unwrap();
    assert_eq!(safe_fix["isPreferred"], false, "one of two fixes");
    // Only the fix-all action, when asked for it.
    let id = server.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": everything, "context": {"diagnostics": [], "only": ["source.fixAll"]}}),
    );
    let only = server.result(id);
    let only = only.as_array().unwrap();
    assert_eq!(only.len(), 1, "{only:#?}");
    assert_eq!(only[0]["kind"], "source.fixAll.mesh-lifecycle");
    let (edits, _) = action_edits(&only[0], &uri);
    let fixed = apply(&text, &edits);
    assert_eq!(fixed, lint_fix(&text), "the text `lint --fix` writes");
    assert_ne!(fixed, text);
    assert_eq!(server.shutdown().code(), Some(0));
}

/// The longest line of the drawing in a hover's first code block, in characters.
fn drawing_width(hover: &str) -> usize {
    let drawing = hover.split("```text\n").nth(1).unwrap();
    let drawing = drawing.split("```").next().unwrap();
    drawing.lines().map(|l| l.chars().count()).max().unwrap()
}

#[test]
fn the_hover_timeline_takes_the_width_the_editor_gives() {
    let text = read(&testdata("rules/ml201-fire-prestop-plus-drain.yaml"));
    let kind_line = text.lines().position(|l| l.starts_with("kind:")).unwrap() as u64;
    for (options, width) in [
        (Value::Null, 80),
        (serde_json::json!({"hoverWidth": 60}), 60),
        (serde_json::json!({"hoverWidth": 140}), 140),
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("web.yaml"), &text).unwrap();
        let mut server = Server::start(dir.path(), &[]);
        server.initialize_with(dir.path(), capabilities(), options.clone());
        let uri = server.open(&dir.path().join("web.yaml"), &text);
        server.diagnostics(&uri, 1);
        let hover = hover_text(&mut server, &uri, kind_line, 7).unwrap();
        let widest = drawing_width(&hover);
        assert!(widest <= width, "{options}: {widest} columns\n{hover}");
        assert!(
            widest + 15 >= width,
            "{options}: {widest} of {width}\n{hover}"
        );
        let explain = cli()
            .current_dir(dir.path())
            .env("COLUMNS", width.to_string())
            .args(["explain", "--no-config", "--color", "never", "web.yaml"])
            .output()
            .unwrap();
        let explain = String::from_utf8(explain.stdout).unwrap();
        assert!(hover.contains(&explain), "{options}:\n{hover}\n{explain}");
        assert_eq!(server.shutdown().code(), Some(0));
    }
}

#[test]
fn hovers_name_the_rule_and_draw_the_workloads_timeline() {
    let text = read(&testdata("rules/ml101-fire-inject-label.yaml"));
    let (dir, mut server) = workspace(&[("web.yaml", &text)]);
    let uri = server.open(&dir.path().join("web.yaml"), &text);
    let diagnostics = server.diagnostics(&uri, 1);
    let ml101 = diagnostics.iter().find(|d| d["code"] == "ML101").unwrap();
    let start = &ml101["range"]["start"];
    let hover = hover_text(
        &mut server,
        &uri,
        start["line"].as_u64().unwrap(),
        start["character"].as_u64().unwrap() + 1,
    )
    .unwrap();
    let rule = mesh_lifecycle::rules::find("ML101").unwrap().meta();
    assert!(
        hover.contains("**ML101** `app-starts-before-proxy`"),
        "{hover}"
    );
    assert!(hover.contains(rule.summary), "{hover}");
    assert!(hover.contains("**Fix:**"), "{hover}");
    assert!(hover.contains("**Automatic fix** (safe)"), "{hover}");
    // Over `kind`: the timeline `explain` draws, and the assumptions.
    let kind_line = text.lines().position(|l| l.starts_with("kind:")).unwrap() as u64;
    let timeline = hover_text(&mut server, &uri, kind_line, 7).unwrap();
    // Laid out for 80 columns, the editor having said nothing of its width.
    let explain = cli()
        .current_dir(dir.path())
        .env("COLUMNS", "80")
        .args(["explain", "--no-config", "--color", "never", "web.yaml"])
        .output()
        .unwrap();
    let explain = String::from_utf8(explain.stdout).unwrap();
    assert!(explain.contains("Start-up"), "{explain}");
    assert!(
        timeline.contains(&explain),
        "hover:\n{timeline}\nexplain:\n{explain}"
    );
    let newest = mesh_lifecycle::settings::version::KubeVersion::NEWEST_KNOWN;
    assert!(
        timeline.contains(&format!("Assumed: Kubernetes {newest} (default)")),
        "{timeline}"
    );
    // Over `metadata.name` too; elsewhere, nothing.
    let name_line = text.lines().position(|l| l.trim() == "name: web").unwrap() as u64;
    assert!(
        hover_text(&mut server, &uri, name_line, 9)
            .unwrap()
            .contains("Start-up")
    );
    assert_eq!(hover_text(&mut server, &uri, 0, 0), None);
    assert_eq!(server.shutdown().code(), Some(0));
}

#[test]
fn workspace_config_and_namespaces_are_the_context_and_the_config_is_reloaded() {
    let web = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: example/web:1.0\n        ports:\n        - containerPort: 8080\n";
    let namespace = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels:\n    istio-injection: enabled\n";
    let (dir, mut server) = workspace(&[
        (".mesh-lifecycle.yaml", "rules:\n  ML207: \"off\"\n"),
        ("ns.yaml", namespace),
        ("apps/web.yaml", web),
    ]);
    let uri = server.open(&dir.path().join("apps/web.yaml"), web);
    let diagnostics = server.diagnostics(&uri, 1);
    // As a directory run sees the file: injected through its namespace, ML207 off.
    let expected = lint_findings(dir.path(), "apps/web.yaml", &[]);
    assert_eq!(codes(&diagnostics), expected);
    assert_eq!(
        expected.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(),
        ["ML101"]
    );
    // The config changes: the editor reports it, and the document is linted again.
    std::fs::write(
        dir.path().join(".mesh-lifecycle.yaml"),
        "rules:\n  ML101: \"off\"\n",
    )
    .unwrap();
    server.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": lsp_client::uri(&dir.path().join(".mesh-lifecycle.yaml")), "type": 2}]}),
    );
    let diagnostics = server.wait_for("diagnostics after the config changed", |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == uri
            && m["params"]["diagnostics"]
                .as_array()
                .is_some_and(|d| d.iter().any(|d| d["code"] == "ML207"))
    });
    let diagnostics = diagnostics["params"]["diagnostics"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(
        codes(&diagnostics),
        lint_findings(dir.path(), "apps/web.yaml", &[])
    );
    // The namespace's buffer counts, not its file: without the label, no sidecar.
    let ns_uri = server.open(&dir.path().join("ns.yaml"), namespace);
    assert!(server.diagnostics(&ns_uri, 1).is_empty());
    server.replace(&ns_uri, 2, &namespace.replace("enabled", "disabled"));
    server.replace(&uri, 2, web);
    let diagnostics = server.diagnostics(&uri, 2);
    assert!(
        diagnostics.iter().all(|d| d["code"] != "ML101"),
        "{diagnostics:#?}"
    );
    assert_eq!(server.shutdown().code(), Some(0));
}

#[test]
fn config_exclude_and_non_manifests_get_nothing() {
    let web = read(&testdata("rules/ml101-fire-inject-label.yaml"));
    let (dir, mut server) = workspace(&[
        (".mesh-lifecycle.yaml", "exclude: [\"generated/\"]\n"),
        ("generated/web.yaml", &web),
    ]);
    let excluded = server.open(&dir.path().join("generated/web.yaml"), &web);
    assert!(server.diagnostics(&excluded, 1).is_empty());
    // A workflow, even one that does not parse, is not a manifest.
    let workflow = "name: CI\non: [push\njobs:\n  build: {runs-on: ubuntu-latest}\n";
    let uri = server.open(&dir.path().join(".github/workflows/ci.yaml"), workflow);
    assert!(server.diagnostics(&uri, 1).is_empty());
    // A manifest in the same workspace is linted.
    let uri = server.open(&dir.path().join("web.yaml"), &web);
    assert!(!server.diagnostics(&uri, 1).is_empty());
    assert_eq!(server.shutdown().code(), Some(0));
}

#[test]
fn a_half_typed_document_gets_one_error_and_keeps_its_last_findings() {
    let first = read(&testdata("rules/ml101-fire-inject-label.yaml"));
    let second = read(&testdata("rules/ml201-fire-prestop-plus-drain.yaml"));
    let text = format!("{first}---\n{second}");
    let (dir, mut server) = workspace(&[]);
    let uri = server.open(&dir.path().join("both.yaml"), &text);
    let good = server.diagnostics(&uri, 1);
    let good_codes = codes(&good);
    assert!(good_codes.iter().any(|c| c.0 == "ML201"), "{good_codes:?}");
    // A line above ML201's node is being typed: the second document no longer parses.
    let broken = text.replacen(
        "      terminationGracePeriodSeconds: 30",
        "      terminationGracePeriodSeconds: [30",
        1,
    );
    server.replace(&uri, 2, &broken);
    let diagnostics = server.diagnostics(&uri, 2);
    let errors: Vec<&Value> = diagnostics
        .iter()
        .filter(|d| d.get("code").is_none())
        .collect();
    assert_eq!(errors.len(), 1, "{diagnostics:#?}");
    assert_eq!(errors[0]["severity"], 1);
    let error_line = errors[0]["range"]["start"]["line"].as_u64().unwrap() + 1;
    assert!(
        error_line > first.lines().count() as u64,
        "in the second document: {error_line}"
    );
    assert_eq!(
        codes(&diagnostics),
        good_codes,
        "the last good findings stay where they were"
    );
    // Typed on, character by character, and through every prefix of the document:
    // the server keeps up and ends on the last version.
    let mut version = 2;
    for end in (0..text.len()).step_by(97).chain([text.len()]) {
        version += 1;
        let end = (0..=end)
            .rev()
            .find(|&at| text.is_char_boundary(at))
            .unwrap();
        server.replace(&uri, version, &text[..end]);
    }
    let last = server.diagnostics(&uri, version);
    assert_eq!(codes(&last), good_codes);
    assert!(last.iter().all(|d| d.get("code").is_some()));
    assert_eq!(server.shutdown().code(), Some(0));
}

#[test]
fn cancelled_stale_and_out_of_order_requests_are_handled() {
    // A manifest large enough that linting it takes a while.
    let one = read(&testdata("rules/ml201-fire-prestop-plus-drain.yaml"));
    let text: String = (0..60)
        .map(|i| one.replace("name: api", &format!("name: api-{i}")))
        .collect::<Vec<_>>()
        .join("---\n");
    let (dir, mut server) = workspace(&[("many.yaml", &text)]);
    let uri = server.open(&dir.path().join("many.yaml"), &text);
    let position = json!({"line": 5, "character": 9});
    // Asked before the document is linted: the hover waits for it; the code actions
    // are cancelled while they wait.
    let hover = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": position}),
    );
    let actions = server.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": position, "end": position}, "context": {"diagnostics": []}}),
    );
    server.notify("$/cancelRequest", json!({"id": actions}));
    let cancelled = server.response(actions);
    assert_eq!(cancelled["error"]["code"], -32800, "{cancelled:#}");
    let answer = server.result(hover);
    assert!(
        answer["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("api-0"),
        "{answer:#}"
    );
    let diagnostics = server.diagnostics(&uri, 1);
    assert_eq!(
        codes(&diagnostics),
        lint_findings(dir.path(), "many.yaml", &["--no-config"])
    );
    // A change with a version older than the document's is out of order: ignored.
    server.replace(&uri, 3, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: b}]\n");
    server.replace(&uri, 2, &text);
    assert!(server.diagnostics(&uri, 3).is_empty());
    // Several requests in a row are each answered under their own id, in whatever
    // order they finish; one for a document that is not open gets nothing.
    let unknown = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": lsp_client::uri(&dir.path().join("closed.yaml"))}, "position": position}),
    );
    let ids: Vec<i64> = (0..4)
        .map(|line| {
            server.request(
                "textDocument/hover",
                json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 7}}),
            )
        })
        .collect();
    assert_eq!(server.result(unknown), Value::Null);
    for id in ids.into_iter().rev() {
        server.result(id);
    }
    // A cancel for a request already answered changes nothing; an unknown method is
    // refused.
    server.notify("$/cancelRequest", json!({"id": unknown}));
    let bogus = server.request("textDocument/rename", json!({}));
    assert_eq!(server.response(bogus)["error"]["code"], -32601);
    let id = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 7}}),
    );
    assert!(
        server.result(id)["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("Start-up")
    );
    // After shutdown, requests are refused; exit ends the process with 0.
    let id = server.request("shutdown", Value::Null);
    assert_eq!(server.result(id), Value::Null);
    let late = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": position}),
    );
    assert_eq!(server.response(late)["error"]["code"], -32600);
    server.notify("exit", Value::Null);
    assert_eq!(server.wait().code(), Some(0));
}

#[test]
fn an_exit_without_shutdown_is_status_1_and_a_closed_input_ends_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path(), &[]);
    server.initialize(dir.path(), json!({}));
    server.notify("exit", Value::Null);
    assert_eq!(server.wait().code(), Some(1));
    let mut server = Server::start(dir.path(), &[]);
    server.initialize(dir.path(), json!({}));
    assert_eq!(server.wait().code(), Some(1));
}

#[test]
fn positions_are_counted_in_the_encoding_agreed_on() {
    // A non-ASCII name before the node: UTF-16 and UTF-8 columns differ.
    let text = read(&testdata("rules/ml101-fire-inject-label.yaml")).replace(
        "      labels:\n        app: web\n        sidecar.istio.io/inject: \"true\"  # expect: ML101\n",
        "      labels: {app: wéb😀, sidecar.istio.io/inject: \"true\"}\n",
    );
    assert!(text.contains("😀"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("web.yaml"), &text).unwrap();
    let lint = lint_findings(dir.path(), "web.yaml", &["--no-config"]);
    let (rule, line, column) = lint.iter().find(|f| f.0 == "ML101").unwrap().clone();
    let line_text = text.lines().nth(line as usize - 1).unwrap();
    let before: String = line_text.chars().take(column as usize - 1).collect();
    for (encoding, width) in [
        ("utf-8", before.len()),
        ("utf-16", before.encode_utf16().count()),
    ] {
        let mut server = Server::start(dir.path(), &[]);
        let result = server.initialize(
            dir.path(),
            json!({"general": {"positionEncodings": [encoding]}}),
        );
        assert_eq!(result["capabilities"]["positionEncoding"], encoding);
        let uri = server.open(&dir.path().join("web.yaml"), &text);
        let diagnostics = server.diagnostics(&uri, 1);
        let diagnostic = diagnostics
            .iter()
            .find(|d| d["code"] == rule.as_str())
            .unwrap();
        assert_eq!(diagnostic["range"]["start"]["line"], line - 1);
        assert_eq!(
            diagnostic["range"]["start"]["character"], width,
            "{encoding}"
        );
        assert_eq!(server.shutdown().code(), Some(0));
    }
    assert!(before.len() != before.encode_utf16().count(), "{before}");
}

#[test]
fn declared_workload_kinds_are_linted_and_a_config_in_error_says_so() {
    let files = |dir: &str| -> Vec<(String, String)> {
        [".mesh-lifecycle.yaml", "webapp.yaml"]
            .iter()
            .map(|name| {
                let text = read(&testdata(&format!("kinds/{dir}/{name}")));
                (name.to_string(), text)
            })
            .collect()
    };
    let good = files("declared-template");
    let borrowed: Vec<(&str, &str)> = good.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    let (dir, mut server) = workspace(&borrowed);
    let uri = server.open(&dir.path().join("webapp.yaml"), &good[1].1);
    let diagnostics = server.diagnostics(&uri, 1);
    let expected = lint_findings(dir.path(), "webapp.yaml", &[]);
    assert!(!expected.is_empty());
    assert_eq!(codes(&diagnostics), expected);
    assert_eq!(server.shutdown().code(), Some(0));
    // `lint` refuses a config it cannot use; the server lints nothing and says why.
    let bad = files("declared-bad");
    let borrowed: Vec<(&str, &str)> = bad.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    let (dir, mut server) = workspace(&borrowed);
    let uri = server.open(&dir.path().join("webapp.yaml"), &bad[1].1);
    let diagnostics = server.diagnostics(&uri, 1);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    let message = diagnostics[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("not linted: ") && message.contains(".mesh-lifecycle.yaml"),
        "{message}"
    );
    assert_eq!(diagnostics[0]["severity"], 1);
    assert_eq!(server.shutdown().code(), Some(0));
}

/// The most memory the server's process has held, from `/proc` (`None` elsewhere).
fn peak_memory_kib(server: &Server) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.pid())).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The JSON-RPC error of a response: its code and id.
fn error_of(response: &Value) -> (i64, Value) {
    (
        response["error"]["code"].as_i64().unwrap_or_default(),
        response["id"].clone(),
    )
}

/// Frames the server cannot read are answered as JSON-RPC says, and the server goes
/// on: a frame claiming 4 GB is refused without allocating it, a malformed header and
/// a body that is not JSON get a parse error (-32700), JSON that is no message an
/// invalid request (-32600). After each, the next request is answered; then a
/// document is linted and the session ends cleanly.
#[test]
fn frames_it_cannot_read_are_answered_and_the_server_goes_on() {
    let (dir, mut server) = workspace(&[]);
    let is_error = |message: &Value| message.get("error").is_some();
    let still_answers = |server: &mut Server| {
        let uri = lsp_client::uri(&dir.path().join("closed.yaml"));
        assert_eq!(hover_text(server, &uri, 0, 0), None);
    };
    // A frame larger than any document, with a short body after it.
    server.send_raw(b"Content-Length: 4000000000\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}");
    let refused = server.wait_for("the refusal of a huge frame", is_error);
    assert_eq!(error_of(&refused), (-32700, Value::Null), "{refused:#}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("4000000000 bytes is larger than 16 MiB"),
        "{refused:#}"
    );
    still_answers(&mut server);
    // A header that is not one.
    server.send_raw(b"Content-Lenght 2\r\n\r\n{}");
    let refused = server.wait_for("the refusal of a bad header", is_error);
    assert_eq!(error_of(&refused), (-32700, Value::Null), "{refused:#}");
    still_answers(&mut server);
    // A body that is not JSON, then JSON that is not a message.
    server.send_raw(b"Content-Length: 9\r\n\r\n{\"id\": 1,");
    let refused = server.wait_for("the parse error", is_error);
    assert_eq!(error_of(&refused), (-32700, Value::Null), "{refused:#}");
    server.send_raw(b"Content-Length: 10\r\n\r\n{\"id\": 41}");
    let refused = server.wait_for("the invalid request", is_error);
    assert_eq!(error_of(&refused), (-32600, json!(41)), "{refused:#}");
    still_answers(&mut server);
    // The server still lints.
    let text = read(&testdata("rules/ml101-fire-inject-label.yaml"));
    let uri = server.open(&dir.path().join("web.yaml"), &text);
    let diagnostics = server.diagnostics(&uri, 1);
    assert!(
        diagnostics.iter().any(|d| d["code"] == "ML101"),
        "{diagnostics:#?}"
    );
    if let Some(peak) = peak_memory_kib(&server) {
        assert!(peak < 512 * 1024, "the server held {peak} KiB");
    }
    assert_eq!(server.shutdown().code(), Some(0));
}
