//! The stages keep to their part: `resolve` states facts about what will run and never
//! which rule judges them, so no file under `src/resolve` mentions a rule id or declares
//! a type named after a rule (docs/architecture.md).

mod common;

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Rule ids (`ML205`) in `text`: `ML` and three digits, not inside a longer word.
fn rule_ids(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    (0..bytes.len().saturating_sub(4))
        .filter(|&i| {
            &bytes[i..i + 2] == b"ML"
                && bytes[i + 2..i + 5].iter().all(u8::is_ascii_digit)
                && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric())
                && bytes.get(i + 5).is_none_or(|b| !b.is_ascii_alphanumeric())
        })
        .map(|i| text[i..i + 5].to_owned())
        .collect()
}

/// The names of the types a Rust file declares.
fn declared_types(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let line = line.strip_prefix("pub(crate) ").unwrap_or(line);
            let line = line.strip_prefix("pub ").unwrap_or(line);
            ["struct ", "enum ", "type ", "trait "]
                .iter()
                .find_map(|keyword| line.strip_prefix(keyword))
        })
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

/// The rules' type names, from the catalog the binary prints (`invalid-proxy-config`
/// is `InvalidProxyConfig`).
fn rule_type_names() -> Vec<String> {
    let output = assert_cmd::Command::cargo_bin("kubectl-mesh_lifecycle")
        .unwrap()
        .args(["rules", "--format", "json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let catalog: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let rules = catalog.as_array().expect("the catalog is a list of rules");
    assert!(rules.len() > 20, "{catalog}");
    rules
        .iter()
        .map(|rule| {
            rule["name"]
                .as_str()
                .unwrap()
                .split('-')
                .map(|word| word[..1].to_uppercase() + &word[1..])
                .collect()
        })
        .collect()
}

#[test]
fn rule_ids_are_found() {
    // The checker itself: it finds ids, and only whole ones.
    assert_eq!(rule_ids("reported as ML205 (and ML4xx)"), ["ML205"]);
    assert!(rule_ids("XML2050 HTML205").is_empty());
    assert_eq!(
        declared_types("pub struct DrainSettingIgnored;\nenum Moot {"),
        ["DrainSettingIgnored", "Moot"]
    );
}

#[test]
fn resolve_names_no_rule() {
    let rules = rule_type_names();
    let resolve = common::root().join("src/resolve");
    let files = rust_files(&resolve);
    assert!(files.len() > 10, "{files:?}");
    let mut offences = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for id in rule_ids(&text) {
            offences.push(format!("{}: mentions {id}", file.display()));
        }
        for name in declared_types(&text) {
            if rules.iter().any(|rule| name.contains(rule.as_str())) {
                offences.push(format!(
                    "{}: type `{name}` is named after a rule",
                    file.display()
                ));
            }
        }
    }
    assert!(offences.is_empty(), "{}", offences.join("\n"));
}

/// The fields a Rust file declares with a text type (`String`, `&str`, or an `Option`,
/// `Vec` or `Box` of one), by name: declarations only, not struct literals or comments.
fn text_fields(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim_start)
        .filter(|line| !line.starts_with("//"))
        .filter_map(|line| {
            let line = ["pub(crate) ", "pub(super) ", "pub "]
                .iter()
                .find_map(|prefix| line.strip_prefix(prefix))
                .unwrap_or(line);
            let (name, ty) = line.split_once(':')?;
            let ty = ty.trim().strip_suffix(',').unwrap_or(ty.trim());
            let is_name =
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            let is_type = !ty.is_empty()
                && ty
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "<>&' _".contains(c));
            let is_text = ty
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|word| word == "String" || word == "str");
            (is_name && is_type && is_text).then(|| name.to_owned())
        })
        .collect()
}

/// The fields a Rust file declares that hold a rule's wording: a `message`, a `help` or
/// a `fix` text.
fn worded_fields(text: &str) -> Vec<String> {
    text_fields(text)
        .into_iter()
        .filter(|name| ["message", "help", "fix"].contains(&name.as_str()))
        .collect()
}

#[test]
fn worded_fields_are_found() {
    // The checker itself: declarations with a text type, not uses or other types.
    assert_eq!(
        worded_fields("    pub message: String,\n    fix: Option<String>,\n"),
        ["message", "fix"]
    );
    assert!(worded_fields("    message: format!(\"x\"),\n    path: JsonPath,\n").is_empty());
    assert!(worded_fields("    /// message: String\n    fix: Remedy,\n").is_empty());
}

#[test]
fn resolve_holds_no_wording() {
    // Messages, help and fix texts are the rules' (each rule's violation words its
    // facts); resolve hands on facts only.
    let mut offences = Vec::new();
    for file in rust_files(&common::root().join("src/resolve")) {
        let text = std::fs::read_to_string(&file).unwrap();
        for field in worded_fields(&text) {
            offences.push(format!("{}: a `{field}` text", file.display()));
        }
    }
    assert!(offences.is_empty(), "{}", offences.join("\n"));
}

/// Names of fields that, holding text, would be a sentence for a reader: why something
/// is so, a description, a message. Resolve states such things as typed facts (a
/// `DecisionReason`, an `Assumption`, a `NotInjectedCause`) and `report` words them.
const PROSE_FIELDS: [&str; 8] = [
    "reason",
    "reasons",
    "text",
    "message",
    "help",
    "description",
    "why",
    "summary",
];

/// Text fields with one of those names that hold data, not prose, each with why it is
/// data. None today: what a manifest says as written is in fields named for it
/// (`written`, `called`, `value`), so a new entry here is a decision to review.
const DATA_FIELDS: [(&str, &str); 0] = [];

#[test]
fn prose_fields_are_found() {
    // The checker itself: text types in any wrapper, in structs and enum variants.
    assert_eq!(
        text_fields(
            "pub struct A {\n    pub reasons: Vec<String>,\n}\n    NotInjected {\n        reason: String,\n    },\n    by: &'static str,\n"
        ),
        ["reasons", "reason", "by"]
    );
    assert!(
        text_fields("    reason: Reason,\n    text: call.text,\n    why: format!(\"{x}\"),\n")
            .is_empty()
    );
}

#[test]
fn resolve_holds_no_prose() {
    // What resolve hands on to explain and the assumptions block is facts, worded in
    // `report`: a field named for a sentence holds a typed value, not text.
    let mut offences = Vec::new();
    for file in rust_files(&common::root().join("src/resolve")) {
        let text = std::fs::read_to_string(&file).unwrap();
        for field in text_fields(&text) {
            let prose = PROSE_FIELDS.contains(&field.as_str());
            let data = DATA_FIELDS.iter().any(|(name, _)| *name == field);
            if prose && !data {
                offences.push(format!("{}: a `{field}` text", file.display()));
            }
        }
    }
    assert!(offences.is_empty(), "{}", offences.join("\n"));
}
