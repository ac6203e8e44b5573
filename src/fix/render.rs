//! Writes JSON values as YAML text that reads back, through the loader, as exactly
//! that value: scalars in a chosen quoting style, mappings and sequences in block or
//! flow layout with a given indentation.

use serde_json::Value as Json;

use crate::load::Value;
use crate::load::scalar::resolve_plain;
use crate::load::tree::Style;

/// How new block content is laid out, as the file around it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Layout {
    /// Spaces per nesting level of mappings.
    pub unit: usize,
    /// Spaces from a key to the `-` of its block sequence: 0 for
    /// `containers:\n- name:`, usually `unit` for `containers:\n  - name:`.
    pub sequence_offset: usize,
    /// The line break the file uses.
    pub newline: &'static str,
}

/// Where a scalar is written: flow collections give `,[]{}` a meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Context {
    Block,
    Flow,
}

/// Whether `text` can be written as a plain scalar and read back as this string.
fn plain_string(text: &str, context: Context) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    let indicator = "-?:,[]{}#&*!|>'\"%@`".contains(first);
    let flow_special = context == Context::Flow && text.contains([',', '[', ']', '{', '}']);
    !indicator
        && !flow_special
        && !text.starts_with("...")
        && text.trim() == text
        && !text.contains(": ")
        && !text.contains(" #")
        && !text.ends_with(':')
        && !text.chars().any(char::is_control)
        && resolve_plain(text) == Value::String(text.to_owned())
}

/// `text` double-quoted. JSON's escapes are all YAML escapes.
pub(super) fn double_quoted(text: &str) -> String {
    Json::String(text.to_owned()).to_string()
}

/// A scalar value in `style` where that style can hold it and keeps its type, else in
/// the nearest that can: a quoted style only holds strings, a plain one only strings
/// that do not read as another type.
pub(super) fn scalar(value: &Json, style: Style, context: Context) -> Option<String> {
    Some(match value {
        Json::Null => "null".to_owned(),
        Json::Bool(b) => b.to_string(),
        Json::Number(n) => n.to_string(),
        Json::String(text) => match style {
            Style::SingleQuoted if !text.chars().any(char::is_control) => {
                format!("'{}'", text.replace('\'', "''"))
            }
            Style::Plain if plain_string(text, context) => text.clone(),
            _ => double_quoted(text),
        },
        Json::Array(_) | Json::Object(_) => return None,
    })
}

/// A mapping key as a plain scalar where it can be one.
pub(super) fn key(text: &str, context: Context) -> String {
    if plain_string(text, context) {
        text.to_owned()
    } else {
        double_quoted(text)
    }
}

/// The lines of a literal block scalar (`|`) holding `text`, each indented by
/// `indent`, after its header (`|`, `|-` or `|+`), or `None` when a literal block
/// cannot hold it exactly (a leading space on the first line would need an
/// indentation indicator; control characters need escapes).
pub(super) fn literal_block(text: &str, indent: usize, newline: &str) -> Option<String> {
    if text.starts_with(' ') {
        return None;
    }
    let (trailing, lines) = block_lines(text, indent, newline)?;
    let header = match trailing {
        0 => "|-",
        1 => "|",
        _ => "|+",
    };
    Some(format!("{header}{lines}"))
}

/// The content lines of a block scalar holding `text` after its header line, each
/// starting with a line break and indented by `indent`, then the empty lines of a
/// kept (`+`) ending; with how many line breaks end `text`. `None` when no block
/// scalar holds it (nothing but line breaks, control characters that need escapes).
pub(super) fn block_lines(text: &str, indent: usize, newline: &str) -> Option<(usize, String)> {
    let body = text.trim_end_matches('\n');
    let trailing = text.len() - body.len();
    if body.is_empty()
        || body
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return None;
    }
    let pad = " ".repeat(indent);
    let mut out = String::new();
    for line in body.split('\n') {
        out.push_str(newline);
        if !line.is_empty() {
            out.push_str(&pad);
            out.push_str(line);
        }
    }
    for _ in 1..trailing {
        out.push_str(newline);
    }
    Some((trailing, out))
}

/// [`block_lines`] for a folded block scalar (`>`): a line break between two lines
/// that are not more indented reads as a space there, so each such break is written
/// with one empty line more.
pub(super) fn folded_lines(text: &str, indent: usize, newline: &str) -> Option<(usize, String)> {
    let body = text.trim_end_matches('\n');
    let normal = |line: &str| !line.is_empty() && !line.starts_with([' ', '\t']);
    let mut unfolded = String::with_capacity(body.len());
    let mut previous: Option<&str> = None;
    let mut empty = 0;
    for line in body.split('\n') {
        if line.is_empty() {
            empty += 1;
            continue;
        }
        let folds = previous.is_some_and(|before| normal(before) && normal(line));
        if previous.is_some() {
            unfolded.push('\n');
        }
        for _ in 0..empty + usize::from(folds) {
            unfolded.push('\n');
        }
        unfolded.push_str(line);
        previous = Some(line);
        empty = 0;
    }
    unfolded.push_str(&text[body.len()..]);
    block_lines(&unfolded, indent, newline)
}

/// `value` in flow style (`{a: 1, b: [x, y]}`); `json` writes JSON itself, for a
/// mapping whose keys are double-quoted.
pub(super) fn flow(value: &Json, json: bool) -> String {
    match value {
        Json::Array(items) if json => {
            let items: Vec<String> = items.iter().map(|item| flow(item, true)).collect();
            format!("[{}]", items.join(", "))
        }
        Json::Object(entries) if json => {
            let entries: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{}: {}", double_quoted(k), flow(v, true)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        scalar_value if json => scalar_value.to_string(),
        Json::Array(items) => {
            let items: Vec<String> = items.iter().map(|item| flow(item, false)).collect();
            format!("[{}]", items.join(", "))
        }
        Json::Object(entries) => {
            let entries: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{}: {}", key(k, Context::Flow), flow(v, false)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        scalar_value => scalar(scalar_value, Style::Plain, Context::Flow).unwrap_or_default(),
    }
}

/// A block mapping entry `key: value` whose key starts at column `indent` (0-based),
/// as lines joined by the layout's line break, without a leading or trailing break.
pub(super) fn block_entry(name: &str, value: &Json, indent: usize, layout: &Layout) -> String {
    let mut out = " ".repeat(indent);
    out.push_str(&key(name, Context::Block));
    out.push(':');
    out.push_str(&block_value(value, indent, layout));
    out
}

/// What follows `key:` for `value` when the key is at column `indent`.
fn block_value(value: &Json, indent: usize, layout: &Layout) -> String {
    let nl = layout.newline;
    match value {
        Json::Object(entries) if !entries.is_empty() => entries
            .iter()
            .map(|(k, v)| format!("{nl}{}", block_entry(k, v, indent + layout.unit, layout)))
            .collect(),
        Json::Array(items) if !items.is_empty() => {
            let dash = indent + layout.sequence_offset;
            items
                .iter()
                .map(|item| format!("{nl}{}", block_item(item, dash, layout)))
                .collect()
        }
        Json::Object(_) | Json::Array(_) => format!(" {}", flow(value, false)),
        Json::String(text) if text.contains('\n') => {
            match literal_block(text, indent + layout.unit, nl) {
                Some(block) => format!(" {block}"),
                None => format!(" {}", double_quoted(text)),
            }
        }
        scalar_value => format!(
            " {}",
            scalar(scalar_value, Style::Plain, Context::Block).unwrap_or_default()
        ),
    }
}

/// A block sequence item whose `-` is at column `dash`. A mapping item starts on the
/// dash's line (`- name: app`), its other keys aligned under the first.
pub(super) fn block_item(item: &Json, dash: usize, layout: &Layout) -> String {
    let nl = layout.newline;
    let pad = " ".repeat(dash);
    match item {
        Json::Object(entries) if !entries.is_empty() => {
            let mut lines = entries
                .iter()
                .map(|(k, v)| block_entry(k, v, dash + 2, layout));
            let first = lines.next().unwrap_or_default();
            let mut out = format!("{pad}- {}", &first[dash + 2..]);
            for line in lines {
                out.push_str(nl);
                out.push_str(&line);
            }
            out
        }
        Json::Array(items) if !items.is_empty() => {
            let nested: Vec<String> = items
                .iter()
                .map(|i| block_item(i, dash + 2, layout))
                .collect();
            format!("{pad}- {}", nested.join(nl).trim_start())
        }
        Json::String(text) if text.contains('\n') => match literal_block(text, dash + 2, nl) {
            Some(block) => format!("{pad}- {block}"),
            None => format!("{pad}- {}", double_quoted(text)),
        },
        Json::Object(_) | Json::Array(_) => format!("{pad}- {}", flow(item, false)),
        scalar_value => format!(
            "{pad}- {}",
            scalar(scalar_value, Style::Plain, Context::Block).unwrap_or_default()
        ),
    }
}

/// A mapping as a YAML document of block entries, two-space indented, each line ended
/// by `\n`: the text a new annotation holding YAML starts with.
pub(super) fn block_document(entries: &serde_json::Map<String, Json>) -> String {
    let layout = Layout {
        unit: 2,
        sequence_offset: 0,
        newline: "\n",
    };
    entries
        .iter()
        .map(|(name, value)| block_entry(name, value, 0, &layout) + "\n")
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const TWO: Layout = Layout {
        unit: 2,
        sequence_offset: 0,
        newline: "\n",
    };

    #[test]
    fn strings_that_would_read_as_another_type_are_quoted() {
        for (text, written) in [
            ("web", "web"),
            ("true", "\"true\""),
            ("yes", "\"yes\""),
            ("0755", "\"0755\""),
            ("10", "\"10\""),
            ("", "\"\""),
            ("a: b", "\"a: b\""),
            ("- x", "\"- x\""),
            ("x #y", "\"x #y\""),
            ("~", "\"~\""),
            ("null", "\"null\""),
        ] {
            assert_eq!(
                scalar(&json!(text), Style::Plain, Context::Block).unwrap(),
                written
            );
        }
        assert_eq!(
            scalar(&json!("a,b"), Style::Plain, Context::Flow).unwrap(),
            "\"a,b\""
        );
        assert_eq!(
            scalar(&json!("it's"), Style::SingleQuoted, Context::Block).unwrap(),
            "'it''s'"
        );
        assert_eq!(
            scalar(&json!(45), Style::DoubleQuoted, Context::Block).unwrap(),
            "45"
        );
    }

    #[test]
    fn blocks_follow_the_layout() {
        let value = json!({"preStop": {"exec": {"command": ["sleep", "5"]}}});
        assert_eq!(
            block_entry("lifecycle", &value, 2, &TWO),
            "  lifecycle:\n    preStop:\n      exec:\n        command:\n        - sleep\n        - \"5\""
        );
        let four = Layout {
            unit: 4,
            sequence_offset: 4,
            newline: "\r\n",
        };
        assert_eq!(
            block_entry("c", &json!([{"image": "b", "name": "a"}, []]), 0, &four),
            "c:\r\n    - image: b\r\n      name: a\r\n    - []"
        );
        assert_eq!(
            block_entry("script", &json!("echo\nsleep 5\n"), 0, &TWO),
            "script: |\n  echo\n  sleep 5"
        );
    }
}
