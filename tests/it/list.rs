//! A large `List` parsed on several threads (`load::list`) is the tree the document
//! parses to on one: every node, key, span and style the same, for the shapes tools
//! print (kubectl's `items:\n- `, a chart's `items:\n  - `, items among the List's own
//! keys or after them, comments and blank lines between items, block scalars at an
//! item's end), and the whole parse is left to decide whenever an item does not read
//! the same on its own.

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
