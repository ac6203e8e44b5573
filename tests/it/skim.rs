//! `load::skim` passes only documents the parser reads without error, and reads their
//! `kind`, `apiVersion` and `items` as the parser does: a document the pipeline does
//! not parse because of it is one that would have parsed, so an invalid document is
//! always reported, with the parser's diagnostic.
//!
//! Checked on every document of `testdata/` (real manifests, the bad-input catalogue),
//! on each of them mutated the ways files break (a character dropped, doubled or
//! replaced by one YAML gives a meaning, a line indented differently, lines swapped),
//! and on documents generated from the constructs the skim reads.

use crate::common;

use std::path::Path;
use std::sync::Arc;

use mesh_lifecycle::load::parse::Limits;
use mesh_lifecycle::load::skim::{kind_hint, skim};
use mesh_lifecycle::load::split::{Syntax, split_all};
use mesh_lifecycle::load::{Node, Value, parse_chunk};
use mesh_lifecycle::workload::is_workload_kind;
use proptest::prelude::*;

/// Every YAML document of every file under `dir`, as the splitter cuts them.
fn documents(dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            documents(&path, out);
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        for chunk in split_all(&bytes[..], 16 << 20).into_iter().flatten() {
            if chunk.framing.syntax == Syntax::Yaml {
                out.push((path.display().to_string(), chunk.text));
            }
        }
    }
}

fn testdata_documents() -> Vec<(String, String)> {
    let mut out = Vec::new();
    documents(&common::testdata(""), &mut out);
    out
}

/// The value of a top-level key, when it is a string.
fn top_string<'n>(root: &'n Node, key: &str) -> Option<&'n str> {
    root.get(key).and_then(Node::as_str)
}

/// Checks that each document of `text` the skim passes parses as the pipeline parses
/// it, to what the outline says; returns how many it passed.
fn agrees(name: &str, text: &str) -> usize {
    let file: Arc<str> = Arc::from(name);
    let mut passed = 0;
    for chunk in split_all(text.as_bytes(), 16 << 20).into_iter().flatten() {
        if chunk.framing.syntax != Syntax::Yaml {
            continue;
        }
        let shown = chunk.text.clone();
        let Some(outline) = skim(&shown) else {
            continue;
        };
        passed += 1;
        let documents = parse_chunk(&file, chunk, 0, &Limits::default()).unwrap_or_else(|error| {
            panic!("{name}: skimmed, but the parser refuses it: {error}\n{shown}")
        });
        let [document] = documents.as_slice() else {
            panic!(
                "{name}: skimmed, but {} documents parsed\n{shown}",
                documents.len()
            );
        };
        let root = &document.root;
        assert!(
            matches!(root.value, Value::Map(_)),
            "{name}: skimmed, but not a mapping\n{shown}"
        );
        for (field, read) in [("kind", outline.kind), ("apiVersion", outline.api_version)] {
            match read {
                Some(value) => {
                    assert_eq!(
                        top_string(root, field),
                        Some(value),
                        "{name}: {field}\n{shown}"
                    )
                }
                None if !outline.unread => {
                    assert!(root.get(field).is_none(), "{name}: {field}\n{shown}")
                }
                // Set to something the skim does not read as a one-line string, and
                // the pipeline parses the document in full (`workload::reads`): a
                // number, a collection, or a block scalar, which the parser reads as
                // a string.
                None => {
                    if top_string(root, field).is_some() {
                        let block = shown.lines().any(|line| {
                            line.strip_prefix(field)
                                .and_then(|rest| rest.strip_prefix(':'))
                                .is_some_and(|value| value.trim_start().starts_with(['|', '>']))
                        });
                        assert!(block, "{name}: {field}\n{shown}");
                    }
                }
            }
        }
        assert_eq!(
            outline.has_items,
            root.get("items").is_some(),
            "{name}: items\n{shown}"
        );
    }
    passed
}

#[test]
fn every_document_it_passes_in_testdata_parses_to_its_outline() {
    let documents = testdata_documents();
    let (mut passed, mut others, mut others_passed) = (0, 0, 0);
    for (name, text) in &documents {
        let skimmed = agrees(name, text);
        passed += skimmed;
        // The documents the pipeline would skim: of kinds no stage reads.
        if kind_hint(text).is_some_and(|kind| kind != "List" && !is_workload_kind(kind, &[])) {
            others += 1;
            others_passed += skimmed;
        }
    }
    // It reads most manifests of the kinds it is there for: the fast path is not dead.
    assert!(
        others_passed * 3 > others * 2,
        "skimmed {others_passed} of {others} documents of other kinds ({passed} of {} in all)",
        documents.len()
    );
}

#[test]
fn it_passes_the_plain_objects_no_stage_reads() {
    let secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\n  labels:\n    app.kubernetes.io/name: web\ntype: kubernetes.io/tls\ndata:\n  tls.crt: LS0tLS1CRUdJTg==\n  tls.key: \"\"\n";
    let role = "---\n# Source: chart/templates/rbac.yaml\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: reader\nrules:\n- apiGroups: [\"\"]\n  resources:\n  - pods\n  verbs: [\"get\", \"list\"]\n";
    assert_eq!(agrees("secret", secret), 1);
    // A flow sequence with items is left to the parser.
    assert!(skim(role).is_none());
    let role = role
        .replace("[\"\"]", "\n  - \"\"")
        .replace("[\"get\", \"list\"]", "\n  - get\n  - list");
    assert_eq!(agrees("role", &role), 1);
}

/// The ways a file breaks, each at a place chosen by `at` (a fraction of the text).
#[derive(Clone, Debug)]
enum Mutation {
    Delete(f64),
    Double(f64),
    Insert(f64, char),
    Indent(f64, usize),
    Dedent(f64),
    SwapLines(f64),
    DuplicateLine(f64),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = 0.0..1.0f64;
    let special = prop::sample::select(vec![
        ' ', ':', '-', '#', '"', '\'', '|', '>', '\t', '\n', '{', '[', '&', '*', '!', '%', '?',
        '\\', ',', '@', '`', '\r',
    ]);
    prop_oneof![
        at.clone().prop_map(Mutation::Delete),
        at.clone().prop_map(Mutation::Double),
        (at.clone(), special).prop_map(|(at, c)| Mutation::Insert(at, c)),
        (at.clone(), 1..4usize).prop_map(|(at, n)| Mutation::Indent(at, n)),
        at.clone().prop_map(Mutation::Dedent),
        at.clone().prop_map(Mutation::SwapLines),
        at.prop_map(Mutation::DuplicateLine),
    ]
}

fn mutate(text: &str, mutation: &Mutation) -> String {
    let chars: Vec<char> = text.chars().collect();
    let lines: Vec<&str> = text.split('\n').collect();
    let char_at = |at: f64| ((at * chars.len() as f64) as usize).min(chars.len().saturating_sub(1));
    let line_at = |at: f64| ((at * lines.len() as f64) as usize).min(lines.len() - 1);
    let mut chars = chars.clone();
    let mut lines: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    match *mutation {
        Mutation::Delete(at) if !chars.is_empty() => {
            chars.remove(char_at(at));
        }
        Mutation::Double(at) if !chars.is_empty() => {
            let i = char_at(at);
            chars.insert(i, chars[i]);
        }
        Mutation::Insert(at, c) => chars.insert(char_at(at), c),
        Mutation::Indent(at, n) => {
            let i = line_at(at);
            lines[i] = " ".repeat(n) + &lines[i];
            return lines.join("\n");
        }
        Mutation::Dedent(at) => {
            let i = line_at(at);
            lines[i] = lines[i].strip_prefix(' ').unwrap_or(&lines[i]).to_owned();
            return lines.join("\n");
        }
        Mutation::SwapLines(at) if lines.len() > 1 => {
            let i = line_at(at).min(lines.len() - 2);
            lines.swap(i, i + 1);
            return lines.join("\n");
        }
        Mutation::DuplicateLine(at) => {
            let i = line_at(at);
            let line = lines[i].clone();
            lines.insert(i, line);
            return lines.join("\n");
        }
        _ => {}
    }
    chars.into_iter().collect()
}

/// A document built from what the skim reads (and a little it does not), with
/// mistakes the generator makes on purpose.
fn generated() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "kind",
        "apiVersion",
        "items",
        "name",
        "a",
        "b",
        "metadata",
        "labels",
        "x.y/z",
        "\"q\"",
        "'s'",
        "_u",
        "yes",
        "a b",
    ]);
    let scalar = prop::sample::select(vec![
        "v1",
        "Secret",
        "1",
        "-1",
        "1e999",
        ".inf",
        "~",
        "null",
        "\"x: y\"",
        "'it''s'",
        "a:b",
        "a: b",
        "x #c",
        "|",
        "|-",
        ">",
        "{}",
        "[]",
        "[a]",
        "&x a",
        "*x",
        "!!str s",
        "- a",
        "-",
        "\"unterminated",
        "2001-12-14",
        "0x1F",
        "a #",
        "\"\\u00e9\"",
    ]);
    let line = (
        0..8usize,
        prop::bool::weighted(0.3),
        key,
        prop::option::of(scalar),
    );
    prop::collection::vec(line, 1..24).prop_map(|lines| {
        let mut out = String::new();
        for (indent, item, key, value) in lines {
            out.push_str(&" ".repeat(indent));
            if item {
                out.push_str("- ");
            }
            out.push_str(key);
            out.push(':');
            if let Some(value) = value {
                out.push(' ');
                out.push_str(value);
                if value.starts_with(['|', '>']) {
                    out.push('\n');
                    out.push_str(&" ".repeat(indent + 2));
                    out.push_str("text: in a block");
                }
            }
            out.push('\n');
        }
        out
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn a_mutated_document_it_passes_parses(index in 0..10_000usize, mutations in prop::collection::vec(mutation(), 1..4)) {
        thread_local! {
            static DOCUMENTS: Vec<(String, String)> = testdata_documents();
        }
        DOCUMENTS.with(|documents| {
            let (name, text) = &documents[index % documents.len()];
            let mut text = text.clone();
            for mutation in &mutations {
                text = mutate(&text, mutation);
            }
            agrees(&format!("{name} after {mutations:?}"), &text);
        });
    }

    #[test]
    fn a_generated_document_it_passes_parses(text in generated()) {
        agrees("generated", &text);
    }
}

#[test]
fn a_kind_written_as_a_block_scalar_is_left_to_the_parser() {
    // Found by the generator: a block scalar is a string to the parser, unread here.
    let text = "apiVersion:\nkind: |\n  text: in a block\n";
    let outline = skim(text).expect("well formed");
    assert_eq!((outline.kind, outline.unread), (None, true));
    assert_eq!(agrees("generated", text), 1);
}

#[test]
fn a_comment_where_the_kind_would_be_is_no_kind() {
    // Found by the mutations: `#` after the colon starts a comment, the value is null.
    let text = "apiVersion: #apps/v1\nkind: Deployment\nmetadata:\n  name: web\n";
    let outline = skim(text).expect("well formed");
    assert_eq!((outline.api_version, outline.unread), (None, true));
    assert_eq!(agrees("mutated", text), 1);
}
