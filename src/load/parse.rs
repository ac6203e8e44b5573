//! Builds the [`Node`] tree of one document from saphyr-parser events.
//!
//! The tree is built here rather than with saphyr's own loader so that every limit that
//! keeps hostile input harmless is enforced while parsing: nesting depth (the loader and
//! recursive drops overflow the stack on deep input), alias expansion (billion laughs)
//! and duplicate keys. It also reads what kubectl reads where YAML 1.2 and Kubernetes'
//! reader part ways. kubectl converts YAML to JSON with sigs.k8s.io/yaml, which parses
//! with go-yaml v2 (a libyaml port, YAML 1.1) and then marshals with Go's encoding/json
//! (sigs.k8s.io/yaml v1.4.0 `yaml.go`, `goyaml.v2/decode.go`; the same code in kubectl
//! 1.27 to 1.35):
//!
//! * `<<` merge keys are applied in document order, each overwriting what is set before
//!   it, as go-yaml's `decoder.mapping` does: a merge after an explicit key wins, of two
//!   merges the later wins, and in `<<: [*a, *b]` the earlier mapping wins;
//! * a mapping key becomes a JSON string as `convertToJSONableObject` spells it, and a
//!   null key or one above `i64::MAX` is refused, as kubectl refuses it;
//! * `.inf` and `.nan` are refused: JSON has no such numbers;
//! * a quoted scalar may continue on a line indented less than its key, which libyaml
//!   accepts and saphyr does not;
//! * and a chunk is checked the way kubectl's document splitter
//!   (k8s.io/apimachinery `pkg/util/yaml/decoder.go`, `YAMLReader.Read`) reads it.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Tag};

use super::scalar::{float_key, resolve_plain, resolve_tagged};
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
    parse_counting_aliases(text, first_line, limits).map(|(roots, _)| roots)
}

/// [`parse_documents`], with the number of nodes alias expansion added, which
/// [`Limits::max_alias_nodes`] bounds for the whole document.
pub(super) fn parse_counting_aliases(
    text: &str,
    first_line: u32,
    limits: &Limits,
) -> Result<(Vec<Node>, usize), SyntaxError> {
    check_printable(text, first_line)?;
    let mut padded = Padded::new(text);
    loop {
        match parse_padded(&padded, first_line, limits) {
            Err(Rejected::QuotedIndentation(quote)) if padded.pads < MAX_QUOTE_REPAIRS => {
                if !padded.indent_quoted_scalar(quote) {
                    return Err(quoted_indentation_error(first_line, &padded, quote));
                }
            }
            Err(Rejected::QuotedIndentation(quote)) => {
                return Err(quoted_indentation_error(first_line, &padded, quote));
            }
            Err(Rejected::Syntax(error)) => return Err(error),
            Ok(roots) => return Ok(roots),
        }
    }
}

/// Refuses a text holding a character YAML does not allow, anywhere, even in a
/// comment, as go-yaml does before it parses anything (go-yaml v2 `readerc.go`,
/// `yaml_parser_update_buffer`: "control characters are not allowed"): allowed are
/// tab, LF, CR, U+0020–U+007E, U+0085, U+00A0–U+D7FF, U+E000–U+FFFD and above; so the
/// C0 controls but those three, DEL, the C1 controls but NEL, U+FFFE and U+FFFF are
/// not. Such a character would reach a terminal as it is; kubectl refuses the file.
fn check_printable(text: &str, first_line: u32) -> Result<(), SyntaxError> {
    let bytes = text.as_bytes();
    let found = bytes.iter().enumerate().position(|(at, &byte)| match byte {
        b'\t' | b'\n' | b'\r' => false,
        0..0x20 | 0x7f => true,
        // U+0080–U+009F but U+0085.
        0xc2 => bytes
            .get(at + 1)
            .is_some_and(|next| (0x80..=0x9f).contains(next) && *next != 0x85),
        // U+FFFE, U+FFFF.
        0xef => bytes.get(at + 1) == Some(&0xbf) && matches!(bytes.get(at + 2), Some(0xbe | 0xbf)),
        _ => false,
    });
    let Some(at) = found else {
        return Ok(());
    };
    let before = &text[..at];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let character = text[at..].chars().next().unwrap_or_default();
    Err(SyntaxError {
        message: format!(
            "control characters are not allowed: U+{:04X}, which kubectl refuses in YAML (in a double-quoted string, write it as an escape: \"\\u{:04X}\")",
            u32::from(character),
            u32::from(character)
        ),
        pos: Pos {
            line: first_line + before.matches('\n').count() as u32,
            column: before[line_start..].chars().count() as u32 + 1,
        },
        related: None,
    })
}

/// Parses a chunk of a manifest stream: [`parse_documents`], plus what kubectl's
/// document splitter makes of it. kubectl cuts a stream at every line that starts with
/// `---` and hands each piece to go-yaml, which reads its first document only;
/// `keeps_separator` says whether the chunk's `---` line is in kubectl's piece.
pub fn parse_stream_chunk(
    text: &str,
    first_line: u32,
    keeps_separator: bool,
    limits: &Limits,
) -> Result<Vec<Node>, SyntaxError> {
    check_document_lines(text, first_line, keeps_separator)?;
    let mut roots = parse_documents(text, first_line, limits)?;
    if let Some(ignored) = roots.iter().skip(1).find(|root| root.value != Value::Null) {
        return Err(SyntaxError {
            message: "kubectl ignores this document: it reads only the first document between two `---` lines (after a `...` line, or with line ends that are CR alone, nothing else starts a document); start it with a `---` line".into(),
            pos: ignored.span.start,
            related: None,
        });
    }
    roots.truncate(1);
    Ok(roots)
}

/// kubectl's `YAMLReader` takes any line starting with `---` as a separator and refuses
/// one followed by anything but a comment (`--- {a: 1}`, `----`); a `%YAML` directive
/// ends up cut from its document, and a piece that starts with `...`, both of which
/// go-yaml then refuses.
pub(super) fn check_document_lines(
    text: &str,
    first_line: u32,
    keeps_separator: bool,
) -> Result<(), SyntaxError> {
    let mut seen_content = false;
    for (index, line) in text.split('\n').enumerate() {
        let at = |column: usize| Pos {
            line: first_line + index as u32,
            column: column as u32,
        };
        if let Some(rest) = line.strip_prefix("---") {
            let rest = rest.trim_matches(|c: char| c.is_whitespace());
            if !rest.is_empty() && !rest.starts_with('#') {
                return Err(SyntaxError {
                    message: format!(
                        "kubectl refuses a `---` line followed by content (invalid Yaml document separator: {rest}); put the content on the next line"
                    ),
                    pos: at(1),
                    related: None,
                });
            }
            // A `---` kubectl keeps starts a document; one it cuts at starts nothing.
            seen_content = keeps_separator;
            continue;
        }
        let trimmed = line.trim_start();
        let is_end_marker = line
            .strip_prefix("...")
            .is_some_and(|rest| rest.chars().next().is_none_or(char::is_whitespace));
        if is_end_marker && !seen_content {
            return Err(SyntaxError {
                message: "kubectl refuses a `...` line with no document before it (yaml: did not find expected node content); remove the line".into(),
                pos: at(1),
                related: None,
            });
        }
        if line.starts_with('%') && !seen_content {
            return Err(SyntaxError {
                message: "kubectl cannot read a YAML directive: its document splitter cuts `%` lines from the document they belong to (did not find expected <document start>); remove the directive".into(),
                pos: at(1),
                related: None,
            });
        }
        if !trimmed.is_empty() && !trimmed.starts_with('#') {
            seen_content = true;
        }
    }
    Ok(())
}

/// Continuation lines of quoted scalars are indented again at most this many times per
/// document; each repair is one more parse.
const MAX_QUOTE_REPAIRS: usize = 64;

/// Why one parse of the (padded) text failed.
enum Rejected {
    Syntax(SyntaxError),
    /// saphyr's "invalid indentation in quoted scalar", at the opening quote (a
    /// position in the padded text).
    QuotedIndentation(Pos),
}

fn parse_padded(
    padded: &Padded,
    first_line: u32,
    limits: &Limits,
) -> Result<(Vec<Node>, usize), Rejected> {
    let text = padded.text.as_ref();
    let mut builder = Builder {
        first_line,
        padded,
        limits,
        stack: Vec::new(),
        anchors: HashMap::new(),
        alias_nodes: 0,
        roots: Vec::new(),
    };
    let mut parser = Parser::new_from_str(text);
    while let Some(event) = parser.next_event() {
        let (event, span) = event.map_err(|error| {
            let marker = *error.marker();
            if error.info() == "invalid indentation in quoted scalar" {
                return Rejected::QuotedIndentation(Pos {
                    line: marker.line() as u32,
                    column: marker.col() as u32 + 1,
                });
            }
            let raw = Pos {
                line: first_line + marker.line() as u32 - 1,
                column: marker.col() as u32 + 1,
            };
            let pos = clamp_to_content(text, raw, first_line);
            let pos = at_offending_tab(text, first_line, pos, error.info());
            Rejected::Syntax(SyntaxError {
                message: describe_scan_error(error.info()),
                pos: padded.original(pos, first_line),
                related: None,
            })
        })?;
        let span = Span {
            start: builder.pos(span.start),
            end: builder.pos(span.end),
        };
        builder.on_event(event, span).map_err(Rejected::Syntax)?;
    }
    Ok((builder.roots, builder.alias_nodes))
}

fn quoted_indentation_error(first_line: u32, padded: &Padded, quote: Pos) -> SyntaxError {
    let quote = Pos {
        line: first_line + quote.line - 1,
        column: quote.column,
    };
    SyntaxError {
        message: "invalid YAML: invalid indentation in quoted scalar".into(),
        pos: padded.original(quote, first_line),
        related: None,
    }
}

/// The text saphyr parses: the chunk, with the continuation lines of quoted scalars that
/// libyaml accepts at any indentation indented past their key. Leading spaces of a
/// continuation line are not part of the scalar's value (YAML folds them away), so the
/// value is unchanged; positions on those lines are shifted back by [`Padded::original`].
struct Padded<'t> {
    /// The chunk itself until a line needs indenting.
    text: std::borrow::Cow<'t, str>,
    /// Spaces added at the start of each line (0-based line of the chunk).
    added: HashMap<u32, u32>,
    pads: usize,
}

impl<'t> Padded<'t> {
    fn new(text: &'t str) -> Padded<'t> {
        Padded {
            text: std::borrow::Cow::Borrowed(text),
            added: HashMap::new(),
            pads: 0,
        }
    }

    /// The position in the chunk's text of a position in the padded text.
    fn original(&self, pos: Pos, first_line: u32) -> Pos {
        match self.added.get(&(pos.line - first_line)) {
            Some(&added) => Pos {
                line: pos.line,
                column: pos.column.saturating_sub(added).max(1),
            },
            None => pos,
        }
    }

    /// Indents the lines after the quote at `quote` (1-based line and column of the
    /// padded text) up to its closing quote so that each starts after the quote's
    /// column. False when there is nothing to indent (the error has another cause).
    fn indent_quoted_scalar(&mut self, quote: Pos) -> bool {
        let lines: Vec<&str> = self.text.split_inclusive('\n').collect();
        let Some(first) = lines.get(quote.line as usize - 1) else {
            return false;
        };
        let opening: Vec<char> = first.chars().collect();
        let Some(&delimiter) = opening.get(quote.column as usize - 1) else {
            return false;
        };
        if !matches!(delimiter, '"' | '\'') {
            return false;
        }
        let want = quote.column as usize;
        let mut closed = scan_quoted(&opening[quote.column as usize..], delimiter);
        let mut changed = false;
        let mut out: String = lines[..quote.line as usize].concat();
        for (offset, line) in lines[quote.line as usize..].iter().enumerate() {
            if closed {
                out.push_str(line);
                continue;
            }
            let chars: Vec<char> = line.chars().collect();
            let indent = chars.iter().take_while(|&&c| c == ' ').count();
            let blank = chars[indent..].iter().all(|c| c.is_whitespace());
            let is_marker = indent == 0
                && (line.starts_with("---") || line.starts_with("..."))
                && chars.get(3).is_none_or(|c| c.is_whitespace());
            closed = scan_quoted(&chars, delimiter);
            if blank || is_marker || indent >= want {
                out.push_str(line);
                continue;
            }
            let add = (want - indent) as u32;
            let index = quote.line + offset as u32;
            *self.added.entry(index).or_insert(0) += add;
            out.extend(std::iter::repeat_n(' ', add as usize));
            out.push_str(line);
            changed = true;
        }
        self.text = std::borrow::Cow::Owned(out);
        self.pads += 1;
        changed
    }
}

/// Whether the quoted scalar whose content continues in `chars` closes there.
fn scan_quoted(chars: &[char], delimiter: char) -> bool {
    let mut index = 0;
    while index < chars.len() {
        match chars[index] {
            '\\' if delimiter == '"' => index += 1,
            '\'' if delimiter == '\'' && chars.get(index + 1) == Some(&'\'') => index += 1,
            c if c == delimiter => return true,
            _ => {}
        }
        index += 1;
    }
    false
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
        map: MapBuilder,
        pending_key: Option<PendingKey>,
    },
}

enum PendingKey {
    Key { text: String, span: Span },
    Merge,
}

struct Builder<'l> {
    first_line: u32,
    padded: &'l Padded<'l>,
    limits: &'l Limits,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Node>,
    alias_nodes: usize,
    roots: Vec<Node>,
}

impl Builder<'_> {
    /// The position in the chunk's text of a parser marker (which counts in the padded
    /// text).
    fn pos(&self, marker: saphyr_parser::Marker) -> Pos {
        let raw = Pos {
            line: self.first_line + marker.line() as u32 - 1,
            column: marker.col() as u32 + 1,
        };
        self.padded.original(raw, self.first_line)
    }

    fn on_event(&mut self, event: Event<'_>, span: Span) -> Result<(), SyntaxError> {
        match event {
            Event::Nothing
            | Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart(_)
            | Event::DocumentEnd => Ok(()),
            Event::Scalar(text, style, anchor, tag) => {
                let tag = tag.as_deref();
                // go-yaml's `isMerge`: a plain `<<`, or one tagged `!!merge`.
                let is_merge_key = style == ScalarStyle::Plain
                    && text == "<<"
                    && tag.is_none_or(|tag| core_tag_name(tag) == Some("merge"));
                let value = scalar_value(&text, style, tag)
                    .ok_or_else(|| self.error(span.start, bad_tag_message(&text, tag)))?;
                if tag.is_some() && text.is_empty() {
                    self.check_tag_end(span)?;
                }
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
                    map: MapBuilder::default(),
                    pending_key: None,
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
                    anchor, start, map, ..
                }) => {
                    let span = collection_span(start, span, map.last_span);
                    self.finish(
                        anchor,
                        Node {
                            span,
                            value: Value::Map(map.entries),
                            style: Style::Plain,
                        },
                    )
                }
                _ => unreachable!("the parser balances mapping events"),
            },
        }
    }

    /// libyaml scans a tag up to white space, so a `,`, `[`, `]`, `{` or `}` right after
    /// it (`{a: !!str}`) becomes part of the tag and the document fails; saphyr ends the
    /// tag there, as YAML 1.2 says. An empty tagged scalar's span is its tag.
    fn check_tag_end(&self, span: Span) -> Result<(), SyntaxError> {
        let line = (span.end.line - self.first_line) as usize;
        let next = self
            .padded
            .text
            .split('\n')
            .nth(line)
            .and_then(|text| text.chars().nth(span.end.column as usize - 1));
        match next {
            Some(c @ (',' | '[' | ']' | '{' | '}')) => Err(self.error(
                span.start,
                format!(
                    "`{c}` right after a tag: kubectl's YAML reader takes it into the tag and refuses the document (did not find expected whitespace or line break); put a space after the tag"
                ),
            )),
            _ => Ok(()),
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
        let is_key = self.expects_key();
        if !is_key {
            check_json_number(&node)?;
        }
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
                map, pending_key, ..
            } => match pending_key.take() {
                None => {
                    let text = key_text(&node).map_err(|message| SyntaxError {
                        message,
                        pos: node.span.start,
                        related: None,
                    })?;
                    *pending_key = Some(PendingKey::Key {
                        text,
                        span: node.span,
                    });
                    Ok(())
                }
                Some(PendingKey::Merge) => map.merge(node),
                Some(PendingKey::Key { text, span }) => map.insert(text, span, node),
            },
        }
    }
}

/// JSON has no infinite or not-a-number values: Go's encoder fails, and kubectl refuses
/// the document.
fn check_json_number(node: &Node) -> Result<(), SyntaxError> {
    let Value::Float(f) = node.value else {
        return Ok(());
    };
    let go_name = match f {
        f64::INFINITY => "+Inf",
        f64::NEG_INFINITY => "-Inf",
        f if f.is_nan() => "NaN",
        _ => return Ok(()),
    };
    Err(SyntaxError {
        message: format!(
            "`{}` is not a number JSON can hold: kubectl refuses the document (error converting YAML to JSON: json: unsupported value: {go_name}); quote it if a string is meant",
            float_key(f)
        ),
        pos: node.span.start,
        related: None,
    })
}

/// The entries of a mapping being built, and which keys were written in it rather than
/// merged in (the same key written twice is an error; merged keys may be overwritten).
#[derive(Default)]
pub(super) struct MapBuilder {
    entries: Vec<Entry>,
    explicit: Vec<bool>,
    index: Option<HashMap<String, usize>>,
    /// The span of the last value written in the mapping, which ends the mapping's
    /// span (merged values lie elsewhere).
    last_span: Option<Span>,
}

/// Maps above this size get a hash index for key lookups.
const LINEAR_SCAN_ENTRIES: usize = 16;

impl MapBuilder {
    /// The entries, in the order first written.
    pub(super) fn into_entries(self) -> Vec<Entry> {
        self.entries
    }

    fn find(&self, key: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(key).copied(),
            None => self.entries.iter().position(|entry| entry.key == key),
        }
    }

    /// Sets `entry`, replacing any value of the same key, as go-yaml's map assignment.
    fn set(&mut self, entry: Entry, explicit: bool) {
        if let Some(at) = self.find(&entry.key) {
            self.entries[at] = entry;
            self.explicit[at] = explicit;
            return;
        }
        if let Some(index) = &mut self.index {
            index.insert(entry.key.clone(), self.entries.len());
        } else if self.entries.len() >= LINEAR_SCAN_ENTRIES {
            let mut built: HashMap<String, usize> = self
                .entries
                .iter()
                .enumerate()
                .map(|(i, e)| (e.key.clone(), i))
                .collect();
            built.insert(entry.key.clone(), self.entries.len());
            self.index = Some(built);
        }
        self.entries.push(entry);
        self.explicit.push(explicit);
    }

    /// A `key: value` written in the mapping.
    pub(super) fn insert(
        &mut self,
        key: String,
        key_span: Span,
        value: Node,
    ) -> Result<(), SyntaxError> {
        if let Some(first) = self.find(&key).filter(|&at| self.explicit[at]) {
            let first = self.entries[first].key_span.start;
            return Err(SyntaxError {
                message: format!(
                    "duplicate key `{key}`: a key must be unique in its mapping (kustomize refuses the file) while kubectl apply -f silently keeps the later value; remove one"
                ),
                pos: key_span.start,
                related: Some(Box::new((first, "first defined here".into()))),
            });
        }
        self.last_span = Some(value.span);
        self.set(
            Entry {
                key,
                key_span,
                value,
            },
            true,
        );
        Ok(())
    }

    /// `<<: value`: the keys of a mapping, or of a list of mappings where the earlier
    /// wins, overwrite what the mapping holds so far (go-yaml's `decoder.merge`).
    fn merge(&mut self, value: Node) -> Result<(), SyntaxError> {
        let refused = |pos: Pos| {
            SyntaxError {
            message: "a merge key (`<<`) needs a mapping or a list of mappings: kubectl refuses the document (map merge requires map or sequence of maps as the value)".into(),
            pos,
            related: None,
        }
        };
        let sources = match value.value {
            Value::Map(entries) => vec![entries],
            Value::Seq(items) => items
                .into_iter()
                .map(|item| match item.value {
                    Value::Map(entries) => Ok(entries),
                    _ => Err(refused(item.span.start)),
                })
                .collect::<Result<_, _>>()?,
            _ => return Err(refused(value.span.start)),
        };
        for source in sources.into_iter().rev() {
            for entry in source {
                self.set(entry, false);
            }
        }
        Ok(())
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

/// go-yaml resolves a plain scalar, or one with a core tag; any other scalar (quoted,
/// block, or with a tag go-yaml does not know, such as `!custom`) is its text.
fn scalar_value(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> Option<Value> {
    match (tag, tag.and_then(core_tag_name)) {
        (_, Some(name)) => resolve_tagged(name, text),
        (None, None) if style == ScalarStyle::Plain => Some(resolve_plain(text)),
        _ => Some(Value::String(text.to_owned())),
    }
}

/// `int` for `!!int` or `tag:yaml.org,2002:int`.
fn core_tag_name(tag: &Tag) -> Option<&str> {
    (tag.is_yaml_core_schema() || tag.handle == "!!").then_some(tag.suffix.as_str())
}

fn bad_tag_message(text: &str, tag: Option<&Tag>) -> String {
    match tag.and_then(core_tag_name) {
        Some("binary") => "`!!binary` value is not base64: kubectl refuses the document (!!binary value contains invalid base64 data)".to_owned(),
        Some(name) => format!(
            "`{text}` is not a valid !!{name}: kubectl refuses the document (cannot decode `{text}` as a !!{name})"
        ),
        None => format!("`{text}` cannot be read"),
    }
}

/// The string form of a scalar key, as sigs.k8s.io/yaml's `convertToJSONableObject`
/// spells keys for JSON; the keys it refuses are errors with its reason.
fn key_text(node: &Node) -> Result<String, String> {
    match &node.value {
        Value::String(s) => Ok(s.clone()),
        Value::Int(i) => Ok(i.to_string()),
        Value::Float(f) => Ok(float_key(*f)),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Null => Err("a null mapping key: kubectl refuses the document (unsupported map key of type: <nil>); quote it if the string is meant".into()),
        Value::UInt(u) => Err(format!(
            "mapping key `{u}` is above the largest 64-bit signed integer: kubectl refuses the document (unsupported map key of type: uint64); quote it"
        )),
        Value::Seq(_) | Value::Map(_) => Err(
            "a mapping key must be a scalar; Kubernetes cannot read collection keys".into(),
        ),
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
    use crate::load::tree::EntryPart;

    fn locate(text: &str, inner: &str) -> Pos {
        let root = parse_documents(text, 1, &Limits::default())
            .unwrap()
            .remove(0);
        let path = JsonPath::parse("config").embedded().key(inner);
        root.locate(&path, EntryPart::Key).span.start
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
            .locate(&JsonPath::parse("script").line(line), EntryPart::Value)
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
