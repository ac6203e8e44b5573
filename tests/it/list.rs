//! A large `List` parsed on several threads (`load::list`) is the tree the document
//! parses to on one: every node, key, span and style the same, for the shapes tools
//! print (kubectl's `items:\n- `, a chart's `items:\n  - `, items among the List's own
//! keys or after them, comments and blank lines between items, block scalars at an
//! item's end), and the whole parse is left to decide whenever an item does not read
//! the same on its own.

use crate::common::lists::list_of;
use mesh_lifecycle::load::json::parse_document;
use mesh_lifecycle::load::list::{PARALLEL_FROM_BYTES, parse_json_list, parse_list};
use mesh_lifecycle::load::parse::{Limits, parse_stream_chunk};
use mesh_lifecycle::load::{Node, Value};

/// Where two trees first differ, for the failure message.
fn difference(a: &Node, b: &Node, at: &str) -> Option<String> {
    if a.span != b.span || a.style != b.style {
        return Some(format!(
            "{at}: {:?} {:?} against {:?} {:?}",
            a.span, a.style, b.span, b.style
        ));
    }
    match (&a.value, &b.value) {
        (Value::Map(x), Value::Map(y)) if x.len() == y.len() => {
            x.iter().zip(y).find_map(|(x, y)| {
                if x.key != y.key || x.key_span != y.key_span {
                    return Some(format!(
                        "{at}: key {} {:?} against {} {:?}",
                        x.key, x.key_span, y.key, y.key_span
                    ));
                }
                difference(&x.value, &y.value, &format!("{at}.{}", x.key))
            })
        }
        (Value::Seq(x), Value::Seq(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (x, y))| difference(x, y, &format!("{at}[{i}]"))),
        (x, y) if x == y => None,
        (x, y) => Some(format!("{at}: {x:?} against {y:?}")),
    }
}

/// One item's lines, its dash at `dash`, in the styles real objects mix.
fn item(index: usize, dash: usize) -> String {
    let pad = " ".repeat(dash);
    let body = format!(
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-{index}   # a comment
  annotations:
    proxy.istio.io/config: |
      terminationDrainDuration: {index}s
    note: >-
      folded
      text
    quoted: \"a 'quoted' value\"
spec:
  template:
    spec:
      containers:
      - name: app
        image: example/app:{index}
        ports: [{{containerPort: 8080}}, {{containerPort: 9090}}]
        command:
          - sh
          - -c
          - |
            echo start
            exec app
      - name: side
        image: side
        env: {{A: b}}
  kept: |+
    last

"
    );
    let mut out = String::new();
    for (n, line) in body.lines().enumerate() {
        if n == 0 {
            out.push_str(&format!("{pad}- {line}\n"));
        } else if line.is_empty() {
            out.push('\n');
        } else {
            out.push_str(&format!("{pad}  {line}\n"));
        }
    }
    if index % 7 == 3 {
        out.push_str("# between items\n\n");
    }
    out
}

/// A List of enough items to be cut, `before` and `after` its `items`.
fn list(dash: usize, before: &str, after: &str) -> String {
    let mut out = String::from(before);
    out.push_str("items:\n");
    let mut index = 0;
    while out.len() < PARALLEL_FROM_BYTES + 1000 {
        out.push_str(&item(index, dash));
        index += 1;
    }
    out.push_str(after);
    out
}

fn check(name: &str, text: &str, first_line: u32, keeps_separator: bool) {
    let limits = Limits::default();
    let whole = parse_stream_chunk(text, first_line, keeps_separator, &limits)
        .unwrap_or_else(|error| panic!("{name}: {error:?}"));
    let cut = parse_list(text, first_line, keeps_separator, &limits, 3)
        .unwrap_or_else(|| panic!("{name}: not cut"));
    assert_eq!(cut.len(), whole.len(), "{name}");
    if let Some(difference) = difference(&cut[0], &whole[0], "") {
        panic!("{name}: the trees differ at {difference}");
    }
}

#[test]
fn a_list_cut_at_its_items_parses_to_the_whole_documents_tree() {
    let kubectl = list(
        0,
        "apiVersion: v1\n",
        "kind: List\nmetadata:\n  resourceVersion: \"\"\n",
    );
    check("kubectl", &kubectl, 1, false);
    check("kubectl, later in its file", &kubectl, 41, false);
    let chart = list(2, "---\n# Source: x\nkind: List\napiVersion: v1\n", "");
    check("items last, indented", &chart, 1, true);
    let mixed = list(0, "kind: List\n", "").replacen(
        "- apiVersion: apps/v1",
        "- {a: 1}\n- [x, y]\n- plain\n- \"quoted\"\n- apiVersion: apps/v1",
        1,
    );
    check("items of every kind", &mixed, 1, false);
}

#[test]
fn what_the_cut_cannot_vouch_for_is_parsed_whole() {
    let limits = Limits::default();
    let base = list(0, "apiVersion: v1\n", "kind: List\n");
    // An alias in one item to an anchor in another: each alone does not parse.
    let aliased = base
        .replacen("image: side", "image: &side side", 1)
        .replacen("image: side", "image: *side", 1);
    assert!(parse_stream_chunk(&aliased, 1, false, &limits).is_ok());
    assert!(parse_list(&aliased, 1, false, &limits, 3).is_none());
    // A tab where indentation goes: the whole parse says where.
    let tab = base.replacen("  kind: Deployment", "\tkind: Deployment", 1);
    assert!(parse_list(&tab, 1, false, &limits, 3).is_none());
    // CR line ends, a small List, one thread: not cut.
    assert!(parse_list(&base.replace('\n', "\r\n"), 1, false, &limits, 3).is_none());
    assert!(parse_list(&base, 1, false, &limits, 1).is_none());
    let small = "kind: List\nitems:\n- a: 1\n- b: 2\n";
    assert!(parse_list(small, 1, false, &limits, 3).is_none());
    // Alias expansion is bounded for the document, not for each item.
    let tight = Limits {
        max_alias_nodes: 3,
        ..limits
    };
    let expanding = base.replacen(
        "  kind: Deployment",
        "  kind: &k Deployment\n  again: *k\n  more: *k",
        2,
    );
    let expanding = expanding.replacen("again: *k\n  more: *k", "again: *k", 0);
    assert_eq!(
        parse_list(&expanding, 1, false, &tight, 3).is_some(),
        parse_stream_chunk(&expanding, 1, false, &tight).is_ok()
    );
}

#[test]
fn a_json_list_cut_at_its_items_parses_to_the_whole_documents_tree() {
    let limits = Limits::default();
    let item = |index: usize| {
        serde_json::json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": format!("web-{index}"), "labels": {"app": "web", "tier": "é"}},
            "spec": {"replicas": index, "template": {"spec": {"containers": [
                {"name": "app", "image": format!("app:{index}"), "args": ["--port", 8080, null, true, 1.5]},
                {"name": "side", "image": "side", "env": []},
            ]}}},
        })
    };
    let mut items = Vec::new();
    let mut size = 0;
    while size < PARALLEL_FROM_BYTES {
        items.push(item(items.len()));
        size += 700;
    }
    // kubectl indents by four spaces, serde_json by two: both are cut.
    let list = serde_json::json!({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}});
    let two = serde_json::to_string_pretty(&list).unwrap() + "\n";
    let four = {
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
        let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
        serde::Serialize::serialize(&list, &mut serializer).unwrap();
        String::from_utf8(out).unwrap() + "\n"
    };
    for (name, text, first_line) in [("two spaces", &two, 1), ("four spaces", &four, 12)] {
        let whole = parse_document(text, first_line, &limits).unwrap();
        let cut = parse_json_list(text, first_line, &limits, 3)
            .unwrap_or_else(|| panic!("{name}: not cut"));
        if let Some(difference) = difference(&cut[0], &whole[0], "") {
            panic!("{name}: the trees differ at {difference}");
        }
    }
    // Minified JSON, or items on shared lines, are parsed whole.
    let minified = serde_json::to_string(&list).unwrap();
    assert!(parse_json_list(&minified, 1, &limits, 3).is_none());
    // An item that does not parse leaves the error to the whole parse.
    let broken = four.replacen("\"kind\": \"Deployment\",", "\"kind\": Deployment,", 1);
    assert!(parse_document(&broken, 1, &limits).is_err());
    assert!(parse_json_list(&broken, 1, &limits, 3).is_none());
}

/// The rule fixtures of one object each (no `---`, no CR), without the comments above
/// their first key: the objects of a `List` gathered from them.
fn fixture_objects() -> Vec<String> {
    crate::common::rule_fixtures()
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            if text.lines().any(|line| line.starts_with("---")) || text.contains('\r') {
                return None;
            }
            let body: Vec<&str> = text
                .lines()
                .skip_while(|line| line.starts_with('#') || line.trim().is_empty())
                .collect();
            (!body.is_empty()).then(|| body.join("\n") + "\n")
        })
        .collect()
}

/// `objects` as one JSON `List`, as `kubectl get -o json` prints it.
fn json_list_of(objects: &[String]) -> String {
    let items: Vec<serde_json::Value> = objects
        .iter()
        .map(|text| parse_stream_chunk(text, 1, false, &Limits::default()).unwrap()[0].to_json())
        .collect();
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
    serde_json::to_string_pretty(&list).unwrap() + "\n"
}

/// What a lint of `text` (standard input) reports, on `threads` threads, reading a
/// `List` item by item from `by_item_from` bytes: the JSON and SARIF reports, and each
/// finding's rule, line, column and fix (its edits at file positions, or why not).
struct Linted {
    json: String,
    sarif: String,
    findings: Vec<(String, u32, u32, String)>,
    errors: Vec<String>,
}

fn linted(text: &str, threads: usize, by_item_from: usize) -> Linted {
    use mesh_lifecycle::load::Inputs;
    use mesh_lifecycle::pipeline::{self, RunOptions};
    use mesh_lifecycle::report::json::JsonReporter;
    use mesh_lifecycle::report::paths::PathBase;
    use mesh_lifecycle::report::sarif::SarifReporter;
    use mesh_lifecycle::report::{Reporter, Summary};
    use mesh_lifecycle::settings::Settings;
    let inputs = Inputs::from_bytes(text.as_bytes().to_vec());
    let options = RunOptions {
        threads,
        lists_by_item_from: by_item_from,
        ..RunOptions::default()
    };
    let mut settings = Settings::default();
    mesh_lifecycle::settings::layers::gather_context(&inputs, options.limits, &mut settings);
    let (mut json, mut sarif) = (Vec::new(), Vec::new());
    let mut json_reporter = JsonReporter::new(&mut json);
    let mut sarif_reporter = SarifReporter::new(&mut sarif, PathBase::new("/"));
    let mut summary = Summary::default();
    let mut findings = Vec::new();
    let mut errors = Vec::new();
    pipeline::run(&inputs, &settings, &options, |report| {
        summary.add(&report);
        for reporter in [
            &mut json_reporter as &mut dyn Reporter,
            &mut sarif_reporter as &mut dyn Reporter,
        ] {
            for error in &report.errors {
                reporter.input_error(error).unwrap();
            }
            for note in &report.notes {
                reporter.note(&note.error).unwrap();
            }
            reporter.document(&report.analyses).unwrap();
        }
        errors.extend(report.errors.iter().map(ToString::to_string));
        for located in report.analyses.iter().flat_map(|a| &a.findings) {
            let fix = match (&located.fix, located.fix_edits()) {
                (_, Some((_, edits))) => format!("{edits:?}"),
                (Some(Err(reason)), None) => reason.clone(),
                (None, None) => String::new(),
                (Some(Ok(_)), None) => unreachable!("a built fix has edits"),
            };
            findings.push((
                located.finding.rule.id.to_owned(),
                located.primary.start.line,
                located.primary.start.column,
                fix,
            ));
        }
    });
    json_reporter.finish(&summary).unwrap();
    sarif_reporter.finish(&summary).unwrap();
    drop((json_reporter, sarif_reporter));
    Linted {
        json: String::from_utf8(json).unwrap(),
        sarif: String::from_utf8(sarif).unwrap(),
        findings,
        errors,
    }
}

#[test]
fn a_list_read_item_by_item_reports_what_the_whole_parse_does() {
    let objects = fixture_objects();
    assert!(objects.len() > 100, "{} fixtures", objects.len());
    for (shape, text) in [
        ("YAML", list_of(&objects)),
        ("JSON", json_list_of(&objects)),
    ] {
        let whole = linted(&text, 1, usize::MAX);
        assert!(whole.errors.is_empty(), "{shape}: {:?}", whole.errors);
        assert!(
            whole.findings.len() > 100 && whole.findings.iter().any(|f| f.3.starts_with('[')),
            "{shape}: {} findings, some with fixes",
            whole.findings.len()
        );
        for threads in [1, 3] {
            let by_item = linted(&text, threads, 0);
            assert_eq!(by_item.findings, whole.findings, "{shape}, -j {threads}");
            assert_eq!(by_item.errors, whole.errors, "{shape}, -j {threads}");
            assert_eq!(by_item.json, whole.json, "{shape}, -j {threads}");
            assert_eq!(by_item.sarif, whole.sarif, "{shape}, -j {threads}");
        }
    }
}

#[test]
fn an_item_that_does_not_parse_is_an_error_and_the_others_are_read() {
    let objects = fixture_objects();
    let yaml = {
        let mut with_bad = objects.clone();
        with_bad.insert(
            3,
            "apiVersion: v1\nkind: Pod\nmetadata: {name: [broken}\n".into(),
        );
        list_of(&with_bad)
    };
    let json = {
        // A broken object on lines of its own, where the fourth item starts.
        let text = json_list_of(&objects);
        let fourth = text.match_indices("\n    {\n").nth(3).unwrap().0 + 1;
        let bad =
            "    {\n      \"kind\": \"Pod\",\n      \"metadata\": {\"name\": [broken}\n    },\n";
        format!("{}{bad}{}", &text[..fourth], &text[fourth..])
    };
    for (shape, text, good) in [
        ("YAML", yaml, list_of(&objects)),
        ("JSON", json, json_list_of(&objects)),
    ] {
        let line = text[..text.find("[broken").unwrap()].lines().count();
        let by_item = linted(&text, 2, 0);
        let [error] = by_item.errors.as_slice() else {
            panic!("{shape}: one error expected: {:?}", by_item.errors)
        };
        assert!(error.starts_with(&format!("-:{line}:")), "{shape}: {error}");
        let whole = linted(&text, 2, usize::MAX);
        assert_eq!(whole.errors.len(), 1, "{shape}: {:?}", whole.errors);
        assert!(whole.findings.is_empty(), "{shape}");
        if shape == "JSON" {
            // Invalid JSON ends the stream where it is, before any item is parsed, as
            // kubectl stops there: read item by item or whole, the same error.
            assert_eq!(by_item.errors, whole.errors);
            assert!(by_item.findings.is_empty());
            continue;
        }
        // Every other item is read: as many findings as the List without the bad one,
        // where the List read whole is one error and no finding.
        let good = linted(&good, 2, 0);
        assert!(!good.findings.is_empty(), "{shape}");
        assert_eq!(by_item.findings.len(), good.findings.len(), "{shape}");
    }
}
