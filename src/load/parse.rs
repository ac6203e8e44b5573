//! Builds the [`Node`] tree of one document from saphyr-parser events.
//!
//! The tree is built here rather than with saphyr's own loader so that every limit that
//! keeps hostile input harmless is enforced while parsing: nesting depth (the loader and
//! recursive drops overflow the stack on deep input), alias expansion (billion laughs),
//! duplicate keys (the API server rejects them), and merge keys (`<<`, which YAML 1.2
//! loaders leave alone but Kubernetes' YAML 1.1 reader applies).

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Tag};

use super::scalar::{resolve_plain, resolve_tagged};
use super::tree::{Entry, Node, Pos, Span, Style, Value};

/// Limits that bound the time and memory one document can cost.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Deepest nesting of collections accepted. Kubernetes objects stay far below it.
    pub max_depth: usize,
    /// Nodes that alias expansion may add to one document.
    pub max_alias_nodes: usize,
    /// Largest document, in bytes, that is parsed at all.
    pub max_document_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 100,
            max_alias_nodes: 100_000,
            // The API server refuses request bodies above 3 MiB and etcd objects above
            // 1.5 MiB, so no applicable manifest comes near this.
            max_document_bytes: 16 * 1024 * 1024,
        }
    }
}

/// Why a document could not be turned into a tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// The parser's message, reworded where it would mislead.
    pub message: String,
    /// The character to fix.
    pub pos: Pos,
    /// A second position that explains the first (the earlier of two duplicate keys).
    pub related: Option<Box<(Pos, String)>>,
}

/// Parses the YAML text of one document chunk whose first line is line `first_line` of
/// its file. Returns the document roots found (normally one; none for an empty chunk).
pub fn parse_documents(
    text: &str,
    first_line: u32,
    limits: &Limits,
) -> Result<Vec<Node>, SyntaxError> {
    let mut builder = Builder {
        first_line,
        limits,
        stack: Vec::new(),
        anchors: HashMap::new(),
        alias_nodes: 0,
        roots: Vec::new(),
    };
    let mut parser = Parser::new_from_str(text);
    while let Some(event) = parser.next_event() {
        let (event, span) = event.map_err(|error| {
            let pos = clamp_to_content(text, builder.pos(*error.marker()), first_line);
            SyntaxError {
                message: describe_scan_error(error.info()),
                pos: at_offending_tab(text, first_line, pos, error.info()),
                related: None,
            }
        })?;
        let span = Span {
            start: builder.pos(span.start),
            end: builder.pos(span.end),
        };
        builder.on_event(event, span)?;
    }
    Ok(builder.roots)
}

/// An error found at the end of the input (an unclosed bracket) is reported at the
/// last character of content, which is where the user has to look.
fn clamp_to_content(text: &str, pos: Pos, first_line: u32) -> Pos {
    let content = text.trim_end();
    let last_line = first_line + content.matches('\n').count() as u32;
    if pos.line <= last_line {
        return pos;
    }
    let line_start = content.rfind('\n').map_or(0, |at| at + 1);
    Pos {
        line: last_line,
        column: content[line_start..].chars().count().max(1) as u32,
    }
}

/// The scanner reports a misplaced tab at a token next to it; point at the tab, which
/// is what the user has to replace (it is invisible in most editors). A plain scalar
/// meets the tab in the indentation of a later line; other tab errors are reported
/// just after the tab, or just before it.
fn at_offending_tab(text: &str, first_line: u32, pos: Pos, info: &str) -> Pos {
    if !info.contains("tab") {
        return pos;
    }
    let index = pos.line.saturating_sub(first_line) as usize;
    let Some(line_text) = text.split('\n').nth(index) else {
        return pos;
    };
    let line_start = line_text.as_ptr() as usize - text.as_ptr() as usize;
    let before: Vec<char> = line_text
        .chars()
        .take(pos.column.saturating_sub(1) as usize)
        .collect();
    let offset = line_start + before.iter().map(|c| c.len_utf8()).sum::<usize>();
    // Forward: through whitespace, and for a scalar through its content lines.
    let through_content = info.contains("plain scalar") || info.contains("block scalar");
    let mut at = pos;
    let mut in_content = false;
    for c in text[offset..].chars() {
        match c {
            '\t' if !in_content => return at,
            '\n' => {
                at.line += 1;
                at.column = 1;
                in_content = false;
                continue;
            }
            ' ' | '\r' | '\t' => {}
            _ if through_content => in_content = true,
            _ => break,
        }
        at.column += 1;
    }
    match before.iter().rposition(|&c| c == '\t') {
        Some(index) => Pos {
            line: pos.line,
            column: index as u32 + 1,
        },
        None => pos,
    }
}

fn describe_scan_error(info: &str) -> String {
    if info == "recursion limit exceeded" {
        // saphyr's own guard against deep flow nesting (`[[[[…`), met before ours.
        return "invalid YAML: nested too deeply (recursion limit exceeded); the document is skipped".into();
    }
    format!("invalid YAML: {info}")
}

enum Frame {
    Seq {
        anchor: usize,
        start: Span,
        items: Vec<Node>,
    },
    Map {
        anchor: usize,
        start: Span,
        entries: Vec<Entry>,
        index: Option<HashMap<String, usize>>,
        pending_key: Option<PendingKey>,
        merges: Vec<Node>,
    },
}

enum PendingKey {
    Key { text: String, span: Span },
    Merge,
}

struct Builder<'l> {
    first_line: u32,
    limits: &'l Limits,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Node>,
    alias_nodes: usize,
    roots: Vec<Node>,
}

/// Maps above this size get a hash index for the duplicate-key check.
const LINEAR_SCAN_ENTRIES: usize = 16;

impl Builder<'_> {
    fn pos(&self, marker: saphyr_parser::Marker) -> Pos {
        Pos {
            line: self.first_line + marker.line() as u32 - 1,
            column: marker.col() as u32 + 1,
        }
    }

    fn on_event(&mut self, event: Event<'_>, span: Span) -> Result<(), SyntaxError> {
        match event {
            Event::Nothing
            | Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart(_)
            | Event::DocumentEnd => Ok(()),
            Event::Scalar(text, style, anchor, tag) => {
                let is_merge_key = style == ScalarStyle::Plain && tag.is_none() && text == "<<";
                let value = scalar_value(&text, style, tag.as_deref()).ok_or_else(|| {
                    self.error(span.start, bad_tag_message(&text, tag.as_deref()))
                })?;
                let node = Node {
                    span,
                    value,
                    style: style_of(style),
                };
                if anchor != 0 {
                    self.anchors.insert(anchor, node.clone());
                }
                if is_merge_key && self.expects_key() {
                    self.set_merge_key();
                    return Ok(());
                }
                self.push(node)
            }
            Event::Alias(anchor) => {
                let node = self
                    .anchors
                    .get(&anchor)
                    .ok_or_else(|| self.error(span.start, "alias to an unknown anchor".into()))?;
                let size = count_nodes(node, self.limits.max_alias_nodes + 1);
                self.alias_nodes = self.alias_nodes.saturating_add(size);
                if self.alias_nodes > self.limits.max_alias_nodes {
                    return Err(self.error(
                        span.start,
                        format!(
                            "alias expansion exceeds {} nodes (an alias bomb?); the document is skipped",
                            self.limits.max_alias_nodes
                        ),
                    ));
                }
                let node = node.clone();
                self.push(node)
            }
            Event::SequenceStart(anchor, _) => {
                self.enter(span)?;
                self.stack.push(Frame::Seq {
                    anchor,
                    start: span,
                    items: Vec::new(),
                });
                Ok(())
            }
            Event::MappingStart(anchor, _) => {
                self.enter(span)?;
                self.stack.push(Frame::Map {
                    anchor,
                    start: span,
                    entries: Vec::new(),
                    index: None,
                    pending_key: None,
                    merges: Vec::new(),
                });
                Ok(())
            }
            Event::SequenceEnd => match self.stack.pop() {
                Some(Frame::Seq {
                    anchor,
                    start,
                    items,
                }) => {
                    let span = collection_span(start, span, items.last().map(|n| n.span));
                    self.finish(
                        anchor,
                        Node {
                            span,
                            value: Value::Seq(items),
                            style: Style::Plain,
                        },
                    )
                }
                _ => unreachable!("the parser balances sequence events"),
            },
            Event::MappingEnd => match self.stack.pop() {
                Some(Frame::Map {
                    anchor,
                    start,
                    mut entries,
                    merges,
                    ..
                }) => {
                    let last = entries.last().map(|e| e.value.span);
                    apply_merges(&mut entries, merges)
                        .map_err(|message| self.error(start.start, message))?;
                    let span = collection_span(start, span, last);
                    self.finish(
                        anchor,
                        Node {
                            span,
                            value: Value::Map(entries),
                            style: Style::Plain,
                        },
                    )
                }
                _ => unreachable!("the parser balances mapping events"),
            },
        }
    }

    fn error(&self, pos: Pos, message: String) -> SyntaxError {
        SyntaxError {
            message,
            pos,
            related: None,
        }
    }

    fn enter(&self, span: Span) -> Result<(), SyntaxError> {
        if self.stack.len() >= self.limits.max_depth {
            return Err(self.error(
                span.start,
                format!(
                    "nesting deeper than {} levels; the document is skipped",
                    self.limits.max_depth
                ),
            ));
        }
        Ok(())
    }

    fn expects_key(&self) -> bool {
        matches!(
            self.stack.last(),
            Some(Frame::Map {
                pending_key: None,
                ..
            })
        )
    }

    fn set_merge_key(&mut self) {
        if let Some(Frame::Map { pending_key, .. }) = self.stack.last_mut() {
            *pending_key = Some(PendingKey::Merge);
        }
    }

    fn finish(&mut self, anchor: usize, node: Node) -> Result<(), SyntaxError> {
        if anchor != 0 {
            self.anchors.insert(anchor, node.clone());
        }
        self.push(node)
    }

    /// Hands a finished node to its parent: a sequence item, a mapping key, or the
    /// value of the pending key.
    fn push(&mut self, node: Node) -> Result<(), SyntaxError> {
        let Some(frame) = self.stack.last_mut() else {
            self.roots.push(node);
            return Ok(());
        };
        match frame {
            Frame::Seq { items, .. } => {
                items.push(node);
                Ok(())
            }
            Frame::Map {
                entries,
                index,
                pending_key,
                merges,
                ..
            } => match pending_key.take() {
                None => {
                    let text = key_text(&node).ok_or_else(|| SyntaxError {
                        message:
                            "a mapping key must be a scalar; Kubernetes cannot read collection keys"
                                .into(),
                        pos: node.span.start,
                        related: None,
                    })?;
                    *pending_key = Some(PendingKey::Key {
                        text,
                        span: node.span,
                    });
                    Ok(())
                }
                Some(PendingKey::Merge) => {
                    merges.push(node);
                    Ok(())
                }
                Some(PendingKey::Key { text, span }) => {
                    if let Some(first) = find_key(entries, index, &text) {
                        let first = entries[first].key_span.start;
                        return Err(SyntaxError {
                            message: format!(
                                "duplicate key `{text}`; the API server rejects it (kubectl --validate=strict)"
                            ),
                            pos: span.start,
                            related: Some(Box::new((first, "first defined here".into()))),
                        });
                    }
                    if let Some(index) = index {
                        index.insert(text.clone(), entries.len());
                    } else if entries.len() >= LINEAR_SCAN_ENTRIES {
                        let mut built: HashMap<String, usize> = entries
                            .iter()
                            .enumerate()
                            .map(|(i, e)| (e.key.clone(), i))
                            .collect();
                        built.insert(text.clone(), entries.len());
                        *index = Some(built);
                    }
                    entries.push(Entry {
                        key: text,
                        key_span: span,
                        value: node,
                    });
                    Ok(())
                }
            },
        }
    }
}

fn find_key(entries: &[Entry], index: &Option<HashMap<String, usize>>, key: &str) -> Option<usize> {
    match index {
        Some(index) => index.get(key).copied(),
        None => entries.iter().position(|entry| entry.key == key),
    }
}

/// A collection's span runs from its start event to the end of its last child; the end
/// event's own position is the next token, often on a later line.
fn collection_span(start: Span, end_event: Span, last_child: Option<Span>) -> Span {
    let end = match last_child {
        Some(child) => child.end.max(start.end),
        None => end_event.end.max(start.end),
    };
    Span {
        start: start.start,
        end,
    }
}

fn style_of(style: ScalarStyle) -> Style {
    match style {
        ScalarStyle::Plain => Style::Plain,
        ScalarStyle::SingleQuoted => Style::SingleQuoted,
        ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
        ScalarStyle::Literal => Style::Literal,
        ScalarStyle::Folded => Style::Folded,
    }
}

fn scalar_value(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> Option<Value> {
    match tag.and_then(core_tag_name) {
        Some(name) => resolve_tagged(name, text),
        None if style == ScalarStyle::Plain => Some(resolve_plain(text)),
        None => Some(Value::String(text.to_owned())),
    }
}

/// `int` for `!!int` or `tag:yaml.org,2002:int`; custom tags are ignored, as Kubernetes
/// ignores them.
fn core_tag_name(tag: &Tag) -> Option<&str> {
    (tag.is_yaml_core_schema() || tag.handle == "!!").then_some(tag.suffix.as_str())
}

fn bad_tag_message(text: &str, tag: Option<&Tag>) -> String {
    match tag.and_then(core_tag_name) {
        Some(name) => format!("`{text}` is not a valid !!{name}"),
        None => format!("`{text}` cannot be read"),
    }
}

/// The string form of a scalar key, as sigs.k8s.io/yaml converts keys for JSON.
fn key_text(node: &Node) -> Option<String> {
    match &node.value {
        Value::String(s) => Some(s.clone()),
        Value::Int(i) => Some(i.to_string()),
        Value::UInt(u) => Some(u.to_string()),
        Value::Float(f) => Some(f.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => Some("null".into()),
        Value::Seq(_) | Value::Map(_) => None,
    }
}

/// Counts the nodes of a subtree, stopping early once `cap` is reached.
fn count_nodes(node: &Node, cap: usize) -> usize {
    let mut count = 0;
    let mut pending = vec![node];
    while let Some(node) = pending.pop() {
        count += 1;
        if count >= cap {
            return count;
        }
        match &node.value {
            Value::Seq(items) => pending.extend(items),
            Value::Map(entries) => pending.extend(entries.iter().map(|e| &e.value)),
            _ => {}
        }
    }
    count
}

/// Applies `<<` merge keys: keys of the merged mappings are added unless the mapping
/// already has them; with a list of mappings, earlier ones win.
fn apply_merges(entries: &mut Vec<Entry>, merges: Vec<Node>) -> Result<(), String> {
    for merge in merges {
        let sources = match merge.value {
            Value::Map(source) => vec![source],
            Value::Seq(items) => items
                .into_iter()
                .map(|item| match item.value {
                    Value::Map(source) => Ok(source),
                    _ => Err("a merge key (`<<`) list may only hold mappings".to_owned()),
                })
                .collect::<Result<_, _>>()?,
            _ => return Err("a merge key (`<<`) needs a mapping or a list of mappings".into()),
        };
        for source in sources {
            for entry in source {
                if !entries.iter().any(|existing| existing.key == entry.key) {
                    entries.push(entry);
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Node {
        let mut roots = parse_documents(text, 1, &Limits::default()).expect("valid YAML");
        assert_eq!(roots.len(), 1);
        roots.remove(0)
    }

    fn parse_err(text: &str) -> SyntaxError {
        parse_documents(text, 1, &Limits::default()).expect_err("invalid YAML")
    }

    #[test]
    fn keeps_key_and_value_positions() {
        let root = parse("a:\n  b: 30\n");
        let a = root.entry("a").unwrap();
        assert_eq!(a.key_span.start, Pos { line: 1, column: 1 });
        let b = a.value.entry("b").unwrap();
        assert_eq!(b.key_span.start, Pos { line: 2, column: 3 });
        assert_eq!(b.value.span.start, Pos { line: 2, column: 6 });
        assert_eq!(b.value.value, Value::Int(30));
    }

    #[test]
    fn offsets_lines_by_the_chunk_start() {
        let roots = parse_documents("a: 1\n", 40, &Limits::default()).unwrap();
        assert_eq!(roots[0].entry("a").unwrap().key_span.start.line, 40);
    }

    #[test]
    fn quoted_scalars_stay_strings() {
        let root = parse("a: \"30\"\nb: 'yes'\nc: yes\n");
        assert_eq!(root.get("a").unwrap().value, Value::String("30".into()));
        assert_eq!(root.get("b").unwrap().value, Value::String("yes".into()));
        assert_eq!(root.get("c").unwrap().value, Value::Bool(true));
    }

    #[test]
    fn merge_keys_apply_and_explicit_keys_win() {
        let root = parse("base: &b {a: 1, b: 2}\nitem:\n  <<: *b\n  b: 3\n");
        let item = root.get("item").unwrap();
        assert_eq!(item.get("a").unwrap().value, Value::Int(1));
        assert_eq!(item.get("b").unwrap().value, Value::Int(3));
    }

    #[test]
    fn keys_resolve_like_kubernetes() {
        // YAML 1.1: the key `y` is the boolean true, which JSON spells "true".
        let root = parse("y: 1\n80: http\n");
        assert!(root.get("true").is_some());
        assert!(root.get("80").is_some());
    }

    #[test]
    fn duplicate_keys_are_errors_with_both_positions() {
        let error = parse_err("a: 1\nb: 2\na: 3\n");
        assert_eq!(error.pos, Pos { line: 3, column: 1 });
        assert_eq!(error.related.unwrap().0, Pos { line: 1, column: 1 });
        assert!(error.message.contains("duplicate key `a`"));
    }

    #[test]
    fn duplicate_keys_are_found_in_large_maps() {
        let mut text: String = (0..40).map(|i| format!("k{i}: {i}\n")).collect();
        text.push_str("k7: again\n");
        assert_eq!(parse_err(&text).pos.line, 41);
    }

    #[test]
    fn deep_nesting_is_refused_without_overflowing() {
        let text = "- ".repeat(20_000) + "x\n";
        let error = parse_err(&text);
        assert!(
            error.message.contains("nesting deeper than 100"),
            "{error:?}"
        );
    }

    #[test]
    fn alias_bombs_are_refused() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
        for level in 1..9 {
            let prev = format!("*a{}", level - 1);
            let items = [prev.as_str(); 9].join(", ");
            text.push_str(&format!("a{level}: &a{level} [{items}]\n"));
        }
        let error = parse_err(&text);
        assert!(error.message.contains("alias expansion"), "{error:?}");
    }

    #[test]
    fn tab_errors_point_at_the_tab() {
        let error = parse_err("a:\n\tb: 1\n");
        assert_eq!(error.pos, Pos { line: 2, column: 1 });
        // The scanner stops at the end of `x`; the tab opens the next line.
        let error = parse_err("- a: x\n\tb: 1\n");
        assert_eq!(error.pos, Pos { line: 2, column: 1 }, "{error:?}");
    }

    #[test]
    fn syntax_errors_carry_a_position() {
        let error = parse_err("a: [1, 2\nb: 3\n");
        assert!(error.message.starts_with("invalid YAML"));
        assert!(error.pos.line >= 1);
    }
}

#[cfg(test)]
mod embedded_tests {
    use super::*;
    use crate::load::path::JsonPath;
    use crate::load::tree::Anchor;

    fn locate(text: &str, inner: &str) -> Pos {
        let root = parse_documents(text, 1, &Limits::default())
            .unwrap()
            .remove(0);
        let path = JsonPath::parse("config").embedded().key(inner);
        root.locate(&path, Anchor::Key).span.start
    }

    #[test]
    fn finds_keys_inside_literal_blocks() {
        let text = "config: |\n  hold: true\n  drain: 25s\n";
        assert_eq!(locate(text, "drain"), Pos { line: 3, column: 3 });
    }

    #[test]
    fn finds_keys_inside_quoted_json() {
        let text = "config: '{\"hold\": true, \"drain\": \"25s\"}'\n";
        assert_eq!(
            locate(text, "drain"),
            Pos {
                line: 1,
                column: 25
            }
        );
    }

    #[test]
    fn folded_blocks_fall_back_to_the_annotation() {
        let text = "config: >\n  hold: true\n";
        assert_eq!(locate(text, "hold"), Pos { line: 1, column: 1 });
    }

    fn locate_line(text: &str, line: usize) -> (Pos, Pos) {
        let root = parse_documents(text, 1, &Limits::default())
            .unwrap()
            .remove(0);
        let span = root
            .locate(&JsonPath::parse("script").line(line), Anchor::Value)
            .span;
        (span.start, span.end)
    }

    #[test]
    fn finds_script_lines_inside_literal_blocks() {
        let text = "script: |\n  set -e\n  curl -X POST x\n";
        assert_eq!(
            locate_line(text, 1),
            (
                Pos { line: 3, column: 3 },
                Pos {
                    line: 3,
                    column: 17
                }
            )
        );
    }

    #[test]
    fn script_lines_of_other_styles_fall_back_to_the_scalar() {
        let text = "script: \"set -e\\ncurl -X POST x\"\n";
        assert_eq!(locate_line(text, 1).0, Pos { line: 1, column: 9 });
    }
}
