//! A fix the file's author has spoken against. Where a comment in the pod spec names
//! the very field a fix would add ("# No pre-stop hook is required, a SIGTERM plus
//! some time is all that's needed"), the author weighed that field and chose without
//! it: a reviewer merges no edit that contradicts the file's own words, so the change
//! is left to the author, as help. Words are compared without case, spaces, `-` or
//! `_` (`pre-stop` names `preStop`).

use super::vocabulary::{Change, Remedy};
use crate::load::path::Segment;
use crate::load::{JsonPath, Node, Pos, SourceText};

/// Why `remedy` is left to the author of `source`: the comment within `scope` (the pod
/// spec, in the tree `root`) that names a field the remedy adds, when one does.
pub fn spoken_against(
    source: &SourceText,
    root: &Node,
    scope: &JsonPath,
    remedy: &Remedy,
) -> Option<String> {
    let fields: Vec<&str> = remedy
        .changes
        .iter()
        .flat_map(|change| match change {
            Change::Set(path, _) => added_fields(root, path),
            _ => Vec::new(),
        })
        .collect();
    if fields.is_empty() {
        return None;
    }
    // The pod spec's lines alone, through the source's line index: a finding in a
    // large `List` reads its own object, not the whole text.
    let span = root.at(scope)?.span;
    let line_start = |line: u32| source.offset(Pos { line, column: 1 });
    let text = &source.text[line_start(span.start.line)..line_start(span.end.line + 1)];
    let lines = (span.start.line..).zip(text.lines());
    for (number, line) in lines {
        let Some(comment) = comment(line) else {
            continue;
        };
        let words = folded(comment);
        if let Some(field) = fields.iter().find(|field| words.contains(&folded(field))) {
            return Some(format!(
                "the comment on line {number} (`#{comment}`) speaks of `{field}`: the change is left to the author"
            ));
        }
    }
    None
}

/// The keys `path` adds below the deepest node `root` already has, but its last one:
/// the fields a reader would see appear (`lifecycle`, `preStop` for
/// `…lifecycle.preStop.sleep.seconds`; the value's own key is its unit, not a field
/// the author would name).
fn added_fields<'p>(root: &Node, path: &'p JsonPath) -> Vec<&'p str> {
    let segments = path.segments();
    let existing = (0..=segments.len())
        .rev()
        .find(|&depth| {
            root.at(&JsonPath::from_segments(&segments[..depth]))
                .is_some()
        })
        .unwrap_or(0);
    let added = &segments[existing..];
    added[..added.len().saturating_sub(1)]
        .iter()
        .filter_map(|segment| match segment {
            Segment::Key(key) => Some(key.as_str()),
            _ => None,
        })
        .collect()
}

/// The text after a line's `#` that starts a YAML comment (at the line's start or
/// after a blank), outside quotes.
fn comment(line: &str) -> Option<&str> {
    let mut quote = None;
    let mut previous = ' ';
    for (index, c) in line.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(open), _) if c == open => quote = None,
            (None, '#') if previous.is_whitespace() => return Some(&line[index + 1..]),
            _ => {}
        }
        previous = c;
    }
    None
}

/// `text` in lower case without spaces, `-` or `_`.
fn folded(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comment_starts_after_a_blank_outside_quotes() {
        assert_eq!(comment("  # No pre-stop hook"), Some(" No pre-stop hook"));
        assert_eq!(comment("a: 1  # why"), Some(" why"));
        assert_eq!(comment("url: http://x#anchor"), None);
        assert_eq!(comment(r#"a: "x # y""#), None);
    }

    #[test]
    fn words_are_compared_without_case_or_separators() {
        assert!(folded(" No pre-stop hook is required").contains(&folded("preStop")));
        assert!(!folded(" stop the proxy first").contains(&folded("preStop")));
    }
}
