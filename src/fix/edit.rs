//! Builds [`Edit`]s from a document's positioned tree. Each builder touches the fewest
//! bytes that make the change: a replaced scalar keeps its quoting style, its anchor and
//! its tag; an inserted key follows the indentation, sequence style and line ends the
//! file already uses; a removed key takes its lines with it and nothing else.
//!
//! Paths are [`JsonPath`]s, as findings name nodes. A path through an
//! [`Segment::Embedded`] step (the YAML or JSON held by `proxy.istio.io/config`) edits
//! inside that string in its own format, then writes the string back in the outer
//! scalar's style ([`Editor::edit_embedded`]).

use std::borrow::Cow;
use std::fmt;

use serde_json::Value as Json;

use super::Change;
use super::Edit;
use super::apply::{apply_edits, compose};
use super::render::{self, Context, Layout};
use crate::load::parse::{Limits, parse_documents};
use crate::load::path::{JsonPath, Segment};
use crate::load::tree::{Entry, Node, Pos, Style, Value};
use crate::load::{LineStarts, SourceText, line_end, next_line};

/// Why an edit could not be built: the manifest is not shaped the way the fix needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditError {
    /// One sentence for the user, naming the path.
    pub reason: String,
}

impl EditError {
    fn new(reason: impl Into<String>) -> EditError {
        EditError {
            reason: reason.into(),
        }
    }
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for EditError {}

/// Builds edits to one document of a text. The tree's positions must be positions in
/// `text`: a [`crate::load::Document`]'s root with the whole file's text, or a tree
/// parsed from a string with its first line as line 1.
pub struct Editor<'t> {
    text: &'t str,
    root: &'t Node,
    /// The line of the tree's positions that `text` starts with.
    first_line: u32,
    /// Where each line of `text` starts: the document's own index
    /// ([`SourceText::lines`]), or one built for a text edited in steps.
    line_starts: Cow<'t, [usize]>,
    layout: Layout,
    /// Whether the document decides anything of the layout (it is all flow collections
    /// otherwise, as JSON is).
    laid_out: bool,
}

/// The comments of a mapping key ([`Editor::key_comments`]): what a key moved to
/// another mapping takes with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct KeyComments {
    /// The comment lines just above the key, in order, without their indentation.
    pub leading: Vec<String>,
    /// Where the first of them starts (the key's line start without any).
    pub leading_start: usize,
    /// Where the key's line starts.
    pub key_line: usize,
    /// The comment after the key's value on its line, with the spaces before it as
    /// the user wrote them (a comment column they aligned stays aligned).
    pub trailing: Option<String>,
}

/// A node found by walking a path, with how it was reached.
struct Found<'t> {
    node: &'t Node,
    /// The mapping entry whose value `node` is, if it was reached by a key.
    entry: Option<&'t Entry>,
    /// How many segments of the path were walked.
    depth: usize,
    /// Whether `node` lies inside a flow collection (`{…}`, `[…]`).
    in_flow: bool,
}

/// What is done to each step's edits of changes made in turn, told whether its offsets
/// are still the original text's.
pub(super) type Decorate<'a> = dyn Fn(&Change, &mut Vec<Edit>, bool) + 'a;

impl<'t> Editor<'t> {
    /// An editor of the document whose tree is `root`, in `text`.
    pub fn new(text: &'t str, root: &'t Node) -> Editor<'t> {
        Editor::starting_at(text, 1, root)
    }

    /// An editor of a document whose `text` is a part of its file that starts at line
    /// `first_line` of the tree's positions (a [`crate::load::Document`]'s own source
    /// text): the edits' ranges are offsets in `text`.
    pub fn starting_at(text: &'t str, first_line: u32, root: &'t Node) -> Editor<'t> {
        let lines = LineStarts::new(text);
        let newline = if lines.has_crlf() { "\r\n" } else { "\n" };
        Editor::with_lines(
            text,
            first_line,
            root,
            Cow::Owned(lines.starts().to_vec()),
            newline,
            None,
        )
    }

    /// An editor of the document whose text is `source` and whose tree is `root`: the
    /// edits' ranges are offsets in `source.text`. It reads positions through the
    /// document's own line index, so that building the fixes of many findings in one
    /// document (a `List` of a whole cluster) never walks its text again.
    pub fn of_document(source: &'t SourceText, root: &'t Node) -> Editor<'t> {
        let lines = source.lines();
        let newline = if lines.has_crlf() { "\r\n" } else { "\n" };
        Editor::with_lines(
            &source.text,
            source.first_line,
            root,
            Cow::Borrowed(lines.starts()),
            newline,
            None,
        )
    }

    /// An editor laid out as `layout` says, else as the tree under `root` is.
    fn with_lines(
        text: &'t str,
        first_line: u32,
        root: &'t Node,
        line_starts: Cow<'t, [usize]>,
        newline: &'static str,
        layout: Option<Layout>,
    ) -> Editor<'t> {
        let mut editor = Editor {
            text,
            root,
            first_line: first_line.max(1),
            line_starts,
            layout: Layout {
                unit: 2,
                sequence_offset: 0,
                newline,
            },
            laid_out: true,
        };
        if let Some(layout) = layout {
            editor.layout = layout;
            return editor;
        }
        let (unit, sequence_offset) = editor.indentation(root, None);
        editor.laid_out = unit.is_some() || sequence_offset.is_some();
        editor.layout.unit = unit.unwrap_or(2);
        editor.layout.sequence_offset = sequence_offset.unwrap_or(0);
        editor
    }

    /// Whether the tree decides the whole layout (the indentation of mappings and of
    /// sequences), so that nothing after the entries that decide it can change it.
    pub fn layout_decided(&self) -> bool {
        let (unit, sequence) = self.indentation(self.root, None);
        unit.is_some() && sequence.is_some()
    }

    /// The edits that make `change` on their own: [`Editor::set`], [`Editor::remove`]
    /// or [`Editor::move_item`].
    pub fn change(&self, change: &Change) -> Result<Vec<Edit>, EditError> {
        match change {
            Change::Set(path, value) => self.set(path, value),
            Change::Remove(path) => self.remove(path),
            Change::Move { from, to } => self.move_item(from, to),
        }
    }

    /// The edits of `text` that make `changes` in turn, each built on an editor of the
    /// text the changes before it made, read again, then given to `decorate` (when
    /// there is one) with whether its offsets are still the original text's. Changes
    /// within one item of a `List` are made on that item's text alone, unless a
    /// `decorate` reads offsets of the whole text.
    pub(super) fn in_steps(
        &self,
        changes: &[Change],
        decorate: Option<&Decorate<'_>>,
    ) -> Result<Vec<Edit>, EditError> {
        let in_item = match decorate {
            None => self.item_in_steps(changes),
            Some(_) => None,
        };
        match in_item {
            Some(made) => made,
            None => self.document_in_steps(changes, decorate),
        }
    }

    /// [`Editor::in_steps`] on the whole document's text.
    fn document_in_steps(
        &self,
        changes: &[Change],
        decorate: Option<&Decorate<'_>>,
    ) -> Result<Vec<Edit>, EditError> {
        let limits = Limits::default();
        let unreadable = || EditError::new("the document cannot be read again between its changes");
        let roots =
            parse_documents(self.text, self.first_line, &limits).map_err(|_| unreadable())?;
        let document = roots
            .iter()
            .position(|root| root.span.start == self.root.span.start)
            .ok_or_else(unreadable)?;
        let mut edits: Vec<Edit> = Vec::new();
        let mut text = self.text.to_owned();
        for change in changes {
            let roots =
                parse_documents(&text, self.first_line, &limits).map_err(|_| unreadable())?;
            let root = roots.get(document).ok_or_else(unreadable)?;
            // Laid out as the document as read is: a change before may have left it
            // nothing to tell the layout by (`metadata: {}`).
            let lines = LineStarts::new(&text);
            let layout = self.laid_out.then_some(self.layout);
            let step_editor = Editor::with_lines(
                &text,
                self.first_line,
                root,
                Cow::Owned(lines.starts().to_vec()),
                self.layout.newline,
                layout,
            );
            let mut step = step_editor.change(change)?;
            // Offsets of the step are the original text's while no change came before.
            if let Some(decorate) = decorate {
                decorate(change, &mut step, edits.is_empty());
            }
            edits = compose(self.text, &edits, &step);
            text = apply_edits(self.text, &edits);
        }
        Ok(edits)
    }

    /// The byte offset of a position of the tree in the text.
    pub fn offset(&self, pos: Pos) -> usize {
        let Some(&start) = self
            .line_starts
            .get(pos.line.saturating_sub(self.first_line) as usize)
        else {
            return self.text.len();
        };
        let line = &self.text[start..line_end(self.text, start)];
        start
            + line
                .char_indices()
                .nth(pos.column.saturating_sub(1) as usize)
                .map_or(line.len(), |(at, _)| at)
    }

    /// The comments that belong to the block mapping key at `path`: the comment lines
    /// just above it at its column (they describe it), with the offset their first line
    /// starts at, and the comment after its value on its line. `None` when it has none,
    /// or is not a key of a block mapping written on its own line.
    pub(super) fn key_comments(&self, path: &JsonPath) -> Option<KeyComments> {
        let found = self.existing(path).ok()?;
        let entry = found.entry?;
        if found.in_flow {
            return None;
        }
        let key_line = self.line_start(entry.key_span.start);
        let key_start = self.offset(entry.key_span.start);
        if !self.text[key_line..key_start].trim().is_empty() {
            return None;
        }
        let start = self.comments_above(key_line, key_start - key_line);
        // Comment lines are never empty: the empty pieces are those of a `\r\n`.
        let leading: Vec<String> = self.text[start..key_line]
            .split(['\n', '\r'])
            .filter(|line| !line.is_empty())
            .map(|line| line.trim_start().to_owned())
            .collect();
        let value_end = self.node_end(&entry.value);
        let rest = &self.text[value_end..line_end(self.text, value_end)];
        let trailing = match entry.value.value {
            Value::Map(_) | Value::Seq(_) => None,
            _ => {
                let comment = rest.trim_start();
                comment.starts_with('#').then(|| rest.trim_end().to_owned())
            }
        };
        (!leading.is_empty() || trailing.is_some()).then_some(KeyComments {
            leading,
            leading_start: start,
            key_line,
            trailing,
        })
    }

    /// The line break the text uses.
    pub(super) fn newline(&self) -> &'static str {
        self.layout.newline
    }

    /// How many keys the block or flow mapping written at `path` has; `None` when the
    /// path leads to no mapping.
    pub(super) fn mapping_len(&self, path: &JsonPath) -> Option<usize> {
        let found = self.existing(path).ok()?;
        match &found.node.value {
            Value::Map(entries) => Some(entries.len()),
            _ => None,
        }
    }

    /// Whether the node at `path` is written in the document (through an embedded
    /// step, whether the string holding it is).
    pub fn has(&self, path: &JsonPath) -> bool {
        let path = split_embedded(path).map_or_else(|| path.clone(), |(outer, _)| outer);
        self.walk(&path)
            .is_ok_and(|found| found.depth == path.segments().len())
    }

    /// Sets the value at `path`: replaces the scalar there ([`Editor::replace_scalar`]),
    /// or inserts it with any mappings missing on the way ([`Editor::insert`]).
    pub fn set(&self, path: &JsonPath, value: &Json) -> Result<Vec<Edit>, EditError> {
        if let Some((outer, inner)) = split_embedded(path) {
            return self.edit_embedded(&outer, |editor| editor.set(&inner, value));
        }
        let found = self.walk(path)?;
        if found.depth < path.segments().len() {
            self.insert(path, value)
        } else if matches!(found.node.value, Value::Map(_) | Value::Seq(_)) {
            self.replace_node(path, value)
        } else {
            self.replace_scalar(path, value)
        }
    }

    /// Replaces the mapping or sequence at `path` whole with `value`, of the same kind:
    /// a block collection keeps its place, its indentation and the lines around it (the
    /// `key: # comment` line above, a comment after its last value); its new content is
    /// written as the file writes blocks. The comments inside the old value are kept,
    /// in their order, on lines of their own above the new content (a comment after a
    /// value moves to a line of its own). A flow collection is replaced in flow style;
    /// one with a comment inside is refused.
    pub fn replace_node(&self, path: &JsonPath, value: &Json) -> Result<Vec<Edit>, EditError> {
        let found = self.existing(path)?;
        let node = found.node;
        let end = self.node_end(node);
        if found.in_flow || self.is_flow(node) {
            let start = self.after_properties(self.offset(node.span.start), end);
            if !self.comments_within(node, start..end).is_empty() {
                return Err(EditError::new(format!(
                    "`{path}` holds comments that replacing it in flow style would lose; edit it by hand"
                )));
            }
            let json = self.text[start..].starts_with("{\"");
            return Ok(vec![Edit::replace(start..end, render::flow(value, json))]);
        }
        let nl = self.layout.newline;
        let (start, indent, lines) = match (&node.value, value) {
            (Value::Map(old), Json::Object(new)) if !old.is_empty() && !new.is_empty() => {
                let first = old[0].key_span.start;
                let indent = first.column as usize - 1;
                let lines: Vec<String> = new
                    .iter()
                    .map(|(key, value)| render::block_entry(key, value, indent, &self.layout))
                    .collect();
                (self.offset(first), indent, lines)
            }
            (Value::Seq(old), Json::Array(new)) if !old.is_empty() && !new.is_empty() => {
                let (dash, indent) = self.dash(&old[0])?;
                let lines: Vec<String> = new
                    .iter()
                    .map(|item| render::block_item(item, indent, &self.layout))
                    .collect();
                (dash, indent, lines)
            }
            _ => {
                return Err(EditError::new(format!(
                    "`{path}` is a block {}: it can be replaced by a {0} that is not empty only",
                    kind(node)
                )));
            }
        };
        let pad = " ".repeat(indent);
        let kept: Vec<String> = self
            .comments_within(node, start..end)
            .into_iter()
            .map(|comment| format!("{pad}{comment}"))
            .collect();
        let mut text =
            kept.into_iter().chain(lines).collect::<Vec<_>>().join(nl)[indent..].to_owned();
        if self.text[..end].ends_with(['\n', '\r']) {
            text.push_str(nl);
        }
        Ok(vec![Edit::replace(start..end, text)])
    }

    /// The comments (`# …` to the end of their line) written in `range` of the text,
    /// which holds `node`, in order: every `#` at the start of a line or after a space
    /// that is not inside one of the node's scalars or keys (a `#` in a quoted string
    /// or a literal block is text, not a comment).
    fn comments_within(&self, node: &Node, range: std::ops::Range<usize>) -> Vec<String> {
        let mut scalars = Vec::new();
        self.scalar_ranges(node, &mut scalars);
        let mut comments = Vec::new();
        let mut at = range.start;
        while let Some(found) = self.text[at..range.end].find('#') {
            let hash = at + found;
            let after_space = hash == 0 || self.text[..hash].ends_with([' ', '\t', '\n', '\r']);
            let in_scalar = scalars
                .iter()
                .any(|r: &std::ops::Range<usize>| r.contains(&hash));
            if after_space && !in_scalar {
                let stop = line_end(self.text, hash);
                comments.push(self.text[hash..stop].trim_end().to_owned());
                at = stop;
            } else {
                at = hash + 1;
            }
        }
        comments
    }

    /// The text ranges of the scalars and keys written in `node`.
    fn scalar_ranges(&self, node: &Node, out: &mut Vec<std::ops::Range<usize>>) {
        match &node.value {
            Value::Map(entries) => {
                for entry in entries {
                    out.push(self.offset(entry.key_span.start)..self.offset(entry.key_span.end));
                    self.scalar_ranges(&entry.value, out);
                }
            }
            Value::Seq(items) => {
                for item in items {
                    self.scalar_ranges(item, out);
                }
            }
            _ => {
                let start = self.offset(node.span.start);
                out.push(start..self.scalar_end(node).max(start));
            }
        }
    }

    /// Replaces the scalar at `path` with `value`, a scalar, written in the old
    /// value's quoting style where that style holds the new value with its type (a
    /// number replacing `"30"` is written plain). A literal or folded block stays a
    /// block scalar with its header as written (`|` or `>`, chomping, indentation
    /// indicator) when the new text reads back through it, else a literal block; its
    /// header comment and indentation are kept.
    pub fn replace_scalar(&self, path: &JsonPath, value: &Json) -> Result<Vec<Edit>, EditError> {
        if let Some((outer, inner)) = split_embedded(path) {
            return self.edit_embedded(&outer, |editor| editor.replace_scalar(&inner, value));
        }
        let found = self.existing(path)?;
        if matches!(found.node.value, Value::Map(_) | Value::Seq(_)) {
            return Err(EditError::new(format!(
                "`{path}` is a {}, not a single value",
                kind(found.node)
            )));
        }
        if matches!(value, Json::Object(_) | Json::Array(_)) {
            return Err(EditError::new(format!(
                "`{path}` can be replaced by a single value only"
            )));
        }
        if found.node.value == Value::Null && found.node.span.start == found.node.span.end {
            // `key:` with nothing after it: the value goes after the colon.
            let entry = found
                .entry
                .ok_or_else(|| EditError::new(format!("`{path}` has no value to replace")))?;
            let colon = self.colon_after(entry)?;
            let context = if found.in_flow {
                Context::Flow
            } else {
                Context::Block
            };
            let text = render::scalar(value, Style::Plain, context).unwrap_or_default();
            return Ok(vec![Edit::insert(colon + 1, format!(" {text}"))]);
        }
        self.replace_scalar_node(found.node, value, found.in_flow)
    }

    fn replace_scalar_node(
        &self,
        node: &Node,
        value: &Json,
        in_flow: bool,
    ) -> Result<Vec<Edit>, EditError> {
        let end = self.node_end(node);
        if let (Style::Literal | Style::Folded, Json::String(text)) = (node.style, value) {
            let header = self.block_header(node)?;
            let indent = node.span.start.column.saturating_sub(1) as usize;
            let content_start = self.line_start(node.span.start);
            let ends_line = self.text[..end].ends_with(['\n', '\r']);
            let header_end = header
                + self.text[header..]
                    .find(|c: char| c.is_whitespace())
                    .unwrap_or(self.text.len() - header);
            let newline = self.layout.newline;
            let ending = if ends_line { newline } else { "" };
            // The header as written (`>`, `|2`, `|+`) when the new text reads back
            // through it, else a literal block's own.
            let written = &self.text[header..header_end];
            let lines = match node.style {
                Style::Folded => render::folded_lines(text, indent, newline),
                _ => render::block_lines(text, indent, newline),
            };
            let kept = lines
                .map(|(_, lines)| lines)
                .filter(|lines| self.reads_back(header, header_end, lines, ending, text));
            let rewritten = kept.map(|lines| (written.to_owned(), lines)).or_else(|| {
                let block = render::literal_block(text, indent, newline)?;
                let (new_header, lines) = block.split_once(newline).unwrap_or((&block, ""));
                Some((new_header.to_owned(), format!("{newline}{lines}")))
            });
            if let Some((new_header, lines)) = rewritten {
                let lines = lines.strip_prefix(newline).unwrap_or(&lines);
                return Ok(vec![
                    Edit::replace(header..header_end, new_header),
                    Edit::replace(content_start..end, format!("{lines}{ending}")),
                ]);
            }
            let mut quoted = render::double_quoted(text);
            quoted.push_str(ending);
            return Ok(vec![Edit::replace(header..end, quoted)]);
        }
        let start = self.after_properties(self.offset(node.span.start), end);
        let context = if in_flow {
            Context::Flow
        } else {
            Context::Block
        };
        let style = match node.style {
            Style::Literal | Style::Folded => Style::DoubleQuoted,
            style => style,
        };
        let text = render::scalar(value, style, context).unwrap_or_default();
        Ok(vec![Edit::replace(start..end, text)])
    }

    /// Whether the block scalar whose header runs from `header` to `header_end` reads
    /// as `text` with its content `lines` (as [`render::block_lines`] writes them) and
    /// `ending`: its header line as written, then those lines, read on their own with
    /// the loader.
    fn reads_back(
        &self,
        header: usize,
        header_end: usize,
        lines: &str,
        ending: &str,
        text: &str,
    ) -> bool {
        let line = self.text[..header]
            .rfind(['\n', '\r'])
            .map_or(0, |at| at + 1);
        let alone = format!(
            "{}{lines}{ending}",
            &self.text[line..line_end(self.text, header_end)]
        );
        let Ok(roots) = parse_documents(&alone, 1, &Limits::default()) else {
            return false;
        };
        roots
            .first()
            .is_some_and(|root| first_block_scalar(root) == Some(text))
    }

    /// Inserts `value` at `path`, which must not exist yet. Mappings missing on the way
    /// are created (`metadata.annotations`, a container's `lifecycle.preStop`), indented
    /// as the file indents, sequences in its sequence style. In a block mapping the new
    /// key goes after its last key; in a flow mapping (`{…}`) before the closing brace,
    /// in JSON syntax when its keys are quoted as JSON's are. The keys of a mapping in
    /// `value` are written in `serde_json::Map` order (sorted, as the project builds
    /// serde_json without `preserve_order`).
    pub fn insert(&self, path: &JsonPath, value: &Json) -> Result<Vec<Edit>, EditError> {
        if let Some((outer, inner)) = split_embedded(path) {
            return self.edit_embedded(&outer, |editor| editor.insert(&inner, value));
        }
        let found = self.walk(path)?;
        let segments = path.segments();
        if found.depth == segments.len() {
            return Err(EditError::new(format!("`{path}` is already set")));
        }
        let mut keys = Vec::new();
        for segment in &segments[found.depth..] {
            match segment {
                Segment::Key(key) => keys.push(key.as_str()),
                _ => {
                    return Err(EditError::new(format!(
                        "`{path}` does not exist and only mappings can be created on the way"
                    )));
                }
            }
        }
        let (first, rest) = keys.split_first().expect("a segment is missing");
        let nested = rest.iter().rev().fold(value.clone(), |inner, key| {
            let mut map = serde_json::Map::new();
            map.insert((*key).to_owned(), inner);
            Json::Object(map)
        });
        let parent = JsonPath::from_segments(&segments[..found.depth]);
        match &found.node.value {
            // `{}` as the value of a block key is how block YAML writes an empty mapping
            // (`kubectl get -o yaml`, Helm's `toYaml`, a key whose last entry a fix
            // removed): what goes in it is written as a block, as kubectl writes it
            // once the mapping has keys. A `{}` inside a flow collection stays flow.
            Value::Map(entries)
                if entries.is_empty()
                    && self.is_flow(found.node)
                    && self.laid_out
                    && !found.in_flow =>
            {
                match found.entry {
                    Some(entry) => {
                        let mut map = serde_json::Map::new();
                        map.insert((*first).to_owned(), nested);
                        self.fill_null(entry, &Json::Object(map), false)
                    }
                    None => Ok(vec![self.insert_into_flow_map(found.node, first, &nested)]),
                }
            }
            Value::Map(_) if self.is_flow(found.node) => {
                Ok(vec![self.insert_into_flow_map(found.node, first, &nested)])
            }
            Value::Map(entries) => {
                let indent = entries
                    .first()
                    .map_or(0, |entry| entry.key_span.start.column as usize - 1);
                let line = render::block_entry(first, &nested, indent, &self.layout);
                Ok(vec![self.insert_line_after(found.node, &line)])
            }
            Value::Null => {
                let entry = found.entry.ok_or_else(|| {
                    EditError::new(format!("`{parent}` is empty and not a mapping's value"))
                })?;
                let mut map = serde_json::Map::new();
                map.insert((*first).to_owned(), nested);
                self.fill_null(entry, &Json::Object(map), found.in_flow)
            }
            _ => Err(EditError::new(format!(
                "`{parent}` is a {}, not a mapping",
                kind(found.node)
            ))),
        }
    }

    /// Removes the key at `path` and its value: its lines in a block mapping, the entry
    /// and one comma in a flow mapping. The last key of a mapping leaves `{}`, so the
    /// mapping stays a mapping rather than becoming null.
    pub fn remove(&self, path: &JsonPath) -> Result<Vec<Edit>, EditError> {
        if let Some((outer, inner)) = split_embedded(path) {
            return self.edit_embedded(&outer, |editor| editor.remove(&inner));
        }
        let segments = path.segments();
        if let Some((Segment::Index(_), _)) = segments.split_last() {
            return self.remove_item(path);
        }
        let Some((Segment::Key(_), parent_segments)) = segments.split_last() else {
            return Err(EditError::new(format!(
                "`{path}` does not name a mapping key or a sequence item"
            )));
        };
        let found = self.existing(path)?;
        let entry = found.entry.expect("reached by a key");
        let parent_path = JsonPath::from_segments(parent_segments);
        let parent = self.existing(&parent_path)?;
        let Value::Map(entries) = &parent.node.value else {
            unreachable!("a key's parent is a mapping");
        };
        let index = entries
            .iter()
            .position(|other| std::ptr::eq(other, entry))
            .expect("the entry is in its mapping");
        let key_start = self.offset(entry.key_span.start);
        let value_end = self.node_end(&entry.value);
        if self.is_flow(parent.node) {
            let range = if entries.len() == 1 {
                key_start..value_end
            } else if index == 0 {
                key_start..self.offset(entries[1].key_span.start)
            } else {
                self.node_end(&entries[index - 1].value)..value_end
            };
            return Ok(vec![Edit::delete(range)]);
        }
        let line_start = self.line_start(entry.key_span.start);
        let own_line = self.text[line_start..key_start].trim().is_empty();
        let through_line = self.through_line(value_end);
        match (entries.len(), own_line) {
            (1, true) => match parent.entry {
                Some(parent_entry) => {
                    let colon = self.colon_after(parent_entry)?;
                    Ok(vec![
                        Edit::insert(colon + 1, " {}"),
                        Edit::delete(line_start..through_line),
                    ])
                }
                None => Ok(vec![Edit::replace(key_start..value_end, "{}")]),
            },
            (1, false) => Ok(vec![Edit::replace(key_start..value_end, "{}")]),
            (_, true) => Ok(vec![Edit::delete(line_start..through_line)]),
            (_, false) => {
                let next = entries.get(index + 1).ok_or_else(|| {
                    EditError::new(format!("`{path}` shares its line with another key"))
                })?;
                Ok(vec![Edit::delete(
                    key_start..self.offset(next.key_span.start),
                )])
            }
        }
    }

    /// Removes the sequence item at `path`: in a block sequence its lines, with the
    /// comment lines just above it (they describe it); in a flow sequence the item and
    /// one comma. The last item leaves `[]`, so the sequence stays a sequence.
    fn remove_item(&self, path: &JsonPath) -> Result<Vec<Edit>, EditError> {
        let item = self.existing(path)?.node;
        let (parent, index) = self.parent_sequence(path)?;
        let Value::Seq(items) = &parent.node.value else {
            unreachable!("an item's parent is a sequence");
        };
        if self.is_flow(parent.node) {
            let start = self.offset(item.span.start);
            let range = if items.len() == 1 {
                start..self.node_end(item)
            } else if index == 0 {
                start..self.offset(items[1].span.start)
            } else {
                self.node_end(&items[index - 1])..self.node_end(item)
            };
            return Ok(vec![Edit::delete(range)]);
        }
        let lines = self.item_lines(item)?;
        if items.len() > 1 {
            return Ok(vec![Edit::delete(lines)]);
        }
        match parent.entry {
            Some(entry) => {
                let colon = self.colon_after(entry)?;
                Ok(vec![Edit::insert(colon + 1, " []"), Edit::delete(lines)])
            }
            None => Err(EditError::new(format!(
                "`{path}` is the only item of a sequence that is not a mapping's value"
            ))),
        }
    }

    /// Moves the block sequence item at `from` to `to`, an index in another sequence
    /// (at most its length: the item goes before the one there, or after the last).
    /// The item's text moves with its comments, re-indented to the target's `-`
    /// column. A target key that does not exist yet (`initContainers`) is created in
    /// its mapping, before the key of the sequence the item leaves when both are in
    /// that mapping, else after its last key; its `-` is placed as the file places
    /// them (indented or not). A target written in flow style gets the item in flow
    /// style, without its comments.
    pub fn move_item(&self, from: &JsonPath, to: &JsonPath) -> Result<Vec<Edit>, EditError> {
        let item = self.existing(from)?.node;
        let (source, _) = self.parent_sequence(from)?;
        if self.is_flow(source.node) {
            return Err(EditError::new(format!(
                "`{from}` is in a flow sequence; move it by hand"
            )));
        }
        let lines = self.item_lines(item)?;
        let (dash_from, _) = self.dash(item)?;
        let from_column = dash_from - self.line_start(item.span.start);
        let Some((Segment::Index(index), target_segments)) = to.segments().split_last() else {
            return Err(EditError::new(format!(
                "`{to}` does not name a sequence item"
            )));
        };
        let target_path = JsonPath::from_segments(target_segments);
        let target = self.walk(&target_path)?;
        let mut edits = self.remove(from)?;
        let nl = self.layout.newline;
        if target.depth == target_segments.len() {
            let Value::Seq(items) = &target.node.value else {
                return Err(EditError::new(format!(
                    "`{target_path}` is a {}, not a sequence",
                    kind(target.node)
                )));
            };
            if *index > items.len() {
                return Err(EditError::new(format!(
                    "`{to}` is past the end of `{target_path}`"
                )));
            }
            if target.in_flow || self.is_flow(target.node) {
                let text = render::flow(&item.to_json(), false);
                edits.push(match items.get(*index) {
                    Some(next) => Edit::insert(self.offset(next.span.start), format!("{text}, ")),
                    None => match items.last() {
                        Some(last) => Edit::insert(self.node_end(last), format!(", {text}")),
                        None => Edit::insert(self.offset(target.node.span.start) + 1, text),
                    },
                });
                return Ok(edits);
            }
            let Some(first) = items.first() else {
                return Err(EditError::new(format!(
                    "`{target_path}` is an empty block sequence; move `{from}` by hand"
                )));
            };
            let column = self.dash(first)?.1;
            let moved = reindent(&self.text[lines.clone()], from_column, column, nl);
            edits.push(match items.get(*index) {
                Some(next) => Edit::insert(self.item_lines(next)?.start, moved),
                None => self.insert_lines_after(target.node, moved),
            });
            return Ok(edits);
        }
        let [Segment::Key(key)] = &to.segments()[target.depth..to.segments().len() - 1] else {
            return Err(EditError::new(format!(
                "`{target_path}` does not exist and only its last key can be created"
            )));
        };
        let (Value::Map(entries), false) = (
            &target.node.value,
            target.in_flow || self.is_flow(target.node),
        ) else {
            return Err(EditError::new(format!(
                "`{}` is not a block mapping",
                JsonPath::from_segments(&target_segments[..target.depth])
            )));
        };
        if *index != 0 {
            return Err(EditError::new(format!(
                "`{to}` is past the end of a new sequence"
            )));
        }
        let indent = entries
            .first()
            .map_or(0, |entry| entry.key_span.start.column as usize - 1);
        let moved = reindent(
            &self.text[lines],
            from_column,
            indent + self.layout.sequence_offset,
            nl,
        );
        let header = format!(
            "{}{}:{nl}",
            " ".repeat(indent),
            render::key(key, Context::Block)
        );
        // Before the sequence the item leaves, when it is a key of the same mapping.
        let sibling = entries
            .iter()
            .find(|entry| std::ptr::eq(&entry.value, source.node));
        edits.push(match sibling {
            Some(entry) => Edit::insert(self.line_start(entry.key_span.start), header + &moved),
            None => self.insert_lines_after(target.node, header + &moved),
        });
        Ok(edits)
    }

    /// Inserts `lines` (whole lines, each ended by a line break) after the last line
    /// of the block collection `node`; at the end of a text without a last line
    /// break, the break goes before them instead.
    fn insert_lines_after(&self, node: &Node, lines: String) -> Edit {
        let end = self.through_line(self.node_end(node));
        if end == 0 || self.text[..end].ends_with(['\n', '\r']) {
            return Edit::insert(end, lines);
        }
        let nl = self.layout.newline;
        let lines = lines.strip_suffix(nl).unwrap_or(&lines);
        Edit::insert(end, format!("{nl}{lines}"))
    }

    /// The sequence an item path's parent names, and the item's index.
    fn parent_sequence(&self, path: &JsonPath) -> Result<(Found<'t>, usize), EditError> {
        let segments = path.segments();
        let Some((Segment::Index(index), parent)) = segments.split_last() else {
            return Err(EditError::new(format!(
                "`{path}` does not name a sequence item"
            )));
        };
        Ok((self.existing(&JsonPath::from_segments(parent))?, *index))
    }

    /// The offset of the `-` that starts the block sequence item `item`, and its
    /// column (0-based); the item must be the first thing on its line.
    fn dash(&self, item: &Node) -> Result<(usize, usize), EditError> {
        let line_start = self.line_start(item.span.start);
        let before = &self.text[line_start..self.offset(item.span.start)];
        let Some(dash) = before.trim_end().strip_suffix('-') else {
            return Err(EditError::new("a sequence item without its `-`"));
        };
        if !dash.trim().is_empty() {
            return Err(EditError::new(
                "a sequence item shares its line with another node",
            ));
        }
        Ok((line_start + dash.len(), dash.chars().count()))
    }

    /// The whole lines of the block sequence item `item`: from the comment lines just
    /// above its `-` (at its column) through the line break after its last value.
    fn item_lines(&self, item: &Node) -> Result<std::ops::Range<usize>, EditError> {
        let (_, column) = self.dash(item)?;
        let start = self.comments_above(self.line_start(item.span.start), column);
        Ok(start..self.through_line(self.node_end(item)))
    }

    /// Where the comment lines just above the line starting at `line` begin: those
    /// indented to `column`, which belong to the node written on that line.
    fn comments_above(&self, line: usize, column: usize) -> usize {
        let mut start = line;
        while start > 0 {
            let above = self.text[..start - 1]
                .rfind(['\n', '\r'])
                .map_or(0, |at| at + 1);
            let line = self.text[above..start].trim_end_matches(['\n', '\r']);
            let code = line.trim_start();
            if !code.starts_with('#') || line.len() - code.len() != column {
                break;
            }
            start = above;
        }
        start
    }

    /// Edits inside the YAML or JSON held by the string at `path` (an annotation such as
    /// `proxy.istio.io/config`): `edit` builds edits on an editor of that string, in its
    /// own format (a JSON object stays JSON, a block of YAML keeps its indentation), and
    /// the new string replaces the old in the outer scalar's style (a literal block
    /// stays one; a quoted string keeps its quotes).
    pub fn edit_embedded(
        &self,
        path: &JsonPath,
        edit: impl FnOnce(&Editor<'_>) -> Result<Vec<Edit>, EditError>,
    ) -> Result<Vec<Edit>, EditError> {
        let found = self.existing(path)?;
        let Value::String(inner) = &found.node.value else {
            return Err(EditError::new(format!(
                "`{path}` is a {}, not a string holding YAML or JSON",
                kind(found.node)
            )));
        };
        let roots = parse_documents(inner, 1, &Limits::default()).map_err(|error| {
            EditError::new(format!(
                "`{path}` does not hold valid YAML or JSON ({}:{}: {})",
                error.pos.line, error.pos.column, error.message
            ))
        })?;
        let [root] = roots.as_slice() else {
            return Err(EditError::new(format!(
                "`{path}` holds {} documents, not one",
                roots.len()
            )));
        };
        let editor = Editor::new(inner, root);
        let edits = edit(&editor)?;
        let changed = apply_edits(inner, &edits);
        self.replace_scalar_node(found.node, &Json::String(changed), found.in_flow)
    }

    /// The node at `path`, which must exist and be written where the path leads.
    fn existing(&self, path: &JsonPath) -> Result<Found<'t>, EditError> {
        let found = self.walk(path)?;
        if found.depth < path.segments().len() {
            return Err(EditError::new(format!("`{path}` is not set")));
        }
        Ok(found)
    }

    /// Walks `path` as far as it exists. Refuses a node that is not written where the
    /// path leads (an alias, or a key merged in with `<<`): editing its text would
    /// change every place that uses the anchor.
    fn walk(&self, path: &JsonPath) -> Result<Found<'t>, EditError> {
        let mut found = Found {
            node: self.root,
            entry: None,
            depth: 0,
            in_flow: false,
        };
        for segment in path.segments() {
            let in_flow = found.in_flow || self.is_flow(found.node);
            let parent = found.node;
            let (node, entry) = match (segment, &parent.value) {
                (Segment::Key(key), Value::Map(entries)) => {
                    let Some(entry) = parent.entry(key) else {
                        break;
                    };
                    let written = entry.key_span.start >= parent.span.start
                        && entry.value.span.start >= entry.key_span.end
                        && !entries.iter().any(|other| {
                            !std::ptr::eq(other, entry)
                                && other.value.span.start <= entry.key_span.start
                                && entry.key_span.start < other.value.span.end
                        });
                    if !written {
                        return Err(from_anchor(path));
                    }
                    (&entry.value, Some(entry))
                }
                (Segment::Index(index), Value::Seq(items)) => {
                    let Some(item) = items.get(*index) else {
                        break;
                    };
                    let after_previous = index
                        .checked_sub(1)
                        .is_none_or(|previous| items[previous].span.end <= item.span.start);
                    if item.span.start < parent.span.start || !after_previous {
                        return Err(from_anchor(path));
                    }
                    (item, None)
                }
                _ => break,
            };
            found = Found {
                node,
                entry,
                depth: found.depth + 1,
                in_flow,
            };
        }
        Ok(found)
    }

    /// Puts `key: value` into the flow mapping `map`, after its last entry.
    fn insert_into_flow_map(&self, map: &Node, key: &str, value: &Json) -> Edit {
        let Value::Map(entries) = &map.value else {
            unreachable!("called on a mapping");
        };
        let json = entries
            .first()
            .is_some_and(|entry| self.text[self.offset(entry.key_span.start)..].starts_with('"'));
        let key = if json {
            render::double_quoted(key)
        } else {
            render::key(key, Context::Flow)
        };
        let entry = format!("{key}: {}", render::flow(value, json));
        match entries.last() {
            Some(last) => Edit::insert(self.node_end(&last.value), format!(", {entry}")),
            None => Edit::insert(self.offset(map.span.start) + 1, entry),
        }
    }

    /// Inserts `line` (an indented entry, no line break) on a line of its own after
    /// the last line of the block collection `node`.
    fn insert_line_after(&self, node: &Node, line: &str) -> Edit {
        let end = self.node_end(node);
        let at_line_start = end > 0 && self.text[..end].ends_with(['\n', '\r']);
        if at_line_start {
            Edit::insert(end, format!("{line}{}", self.layout.newline))
        } else {
            Edit::insert(
                line_end(self.text, end),
                format!("{}{line}", self.layout.newline),
            )
        }
    }

    /// Gives the empty value of `entry` (`key:`, `key: ~`, `key: null`, `key: {}`) the
    /// mapping `map`.
    fn fill_null(&self, entry: &Entry, map: &Json, in_flow: bool) -> Result<Vec<Edit>, EditError> {
        let colon = self.colon_after(entry)?;
        let value_end = self.node_end(&entry.value).max(colon + 1);
        if in_flow {
            let text = format!(" {}", render::flow(map, false));
            return Ok(vec![Edit::replace(colon + 1..value_end, text)]);
        }
        let Json::Object(entries) = map else {
            unreachable!("called with a mapping");
        };
        let indent = entry.key_span.start.column as usize - 1 + self.layout.unit;
        let lines: String = entries
            .iter()
            .map(|(key, value)| {
                format!(
                    "{}{}",
                    self.layout.newline,
                    render::block_entry(key, value, indent, &self.layout)
                )
            })
            .collect();
        let mut edits = vec![Edit::insert(line_end(self.text, value_end), lines)];
        if value_end > colon + 1 {
            edits.push(Edit::delete(colon + 1..value_end));
        }
        Ok(edits)
    }

    /// The offset of the `:` after `entry`'s key.
    fn colon_after(&self, entry: &Entry) -> Result<usize, EditError> {
        let key_end = self.offset(entry.key_span.end);
        let rest = &self.text[key_end..];
        let skipped = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        if rest[skipped..].starts_with(':') {
            Ok(key_end + skipped)
        } else {
            Err(EditError::new(format!(
                "no `:` after the key `{}`",
                entry.key
            )))
        }
    }

    /// The offset just past `node`'s text. A flow collection's span stops at its last
    /// child; its closing bracket comes after.
    fn node_end(&self, node: &Node) -> usize {
        let end = match &node.value {
            Value::Map(entries) if self.is_flow(node) => {
                entries.last().map(|entry| self.node_end(&entry.value))
            }
            Value::Seq(items) if self.is_flow(node) => items.last().map(|item| self.node_end(item)),
            // A block collection ends where its last child written in it ends (a merged
            // or aliased child lies elsewhere, before it).
            Value::Map(entries) => {
                return written_last(node, entries.iter().map(|entry| &entry.value))
                    .map_or(self.offset(node.span.end), |last| self.node_end(last));
            }
            Value::Seq(items) => {
                return written_last(node, items.iter())
                    .map_or(self.offset(node.span.end), |last| self.node_end(last));
            }
            _ => return self.scalar_end(node),
        };
        let from = end.unwrap_or(self.offset(node.span.start) + 1);
        let mut in_comment = false;
        for (at, c) in self.text[from..].char_indices() {
            match c {
                '\n' | '\r' => in_comment = false,
                _ if in_comment => {}
                '#' => in_comment = true,
                '}' | ']' => return from + at + 1,
                _ => {}
            }
        }
        self.offset(node.span.end)
    }

    /// The offset just past a scalar's text. The parser's span of a quoted scalar runs
    /// on over the spaces and comment after its closing quote, and that of a block
    /// scalar to the next token, past the indentation of the line that holds it.
    fn scalar_end(&self, node: &Node) -> usize {
        let end = self.offset(node.span.end);
        let start = self.after_properties(self.offset(node.span.start), end);
        match node.style {
            Style::SingleQuoted | Style::DoubleQuoted => {
                let quote = if node.style == Style::SingleQuoted {
                    '\''
                } else {
                    '"'
                };
                let mut chars = self.text[start..end].char_indices().skip(1);
                while let Some((at, c)) = chars.next() {
                    match c {
                        '\\' if quote == '"' => {
                            chars.next();
                        }
                        '\'' if quote == '\'' && self.text[start + at + 1..].starts_with('\'') => {
                            chars.next();
                        }
                        c if c == quote => return start + at + 1,
                        _ => {}
                    }
                }
                end
            }
            Style::Literal | Style::Folded => {
                let line_start = self.line_start(node.span.end);
                if self.text[line_start..end].trim().is_empty() {
                    line_start
                } else {
                    end
                }
            }
            Style::Plain => end,
        }
    }

    /// The offset after the line break that ends the line `offset` is on (or the end
    /// of the text); `offset` itself when it is already at a line start.
    fn through_line(&self, offset: usize) -> usize {
        if offset > 0 && self.text[..offset].ends_with(['\n', '\r']) {
            return offset;
        }
        next_line(self.text, offset).unwrap_or(self.text.len())
    }

    fn line_start(&self, pos: Pos) -> usize {
        self.offset(Pos {
            line: pos.line,
            column: 1,
        })
    }

    /// Whether a collection is written in flow style.
    fn is_flow(&self, node: &Node) -> bool {
        matches!(node.value, Value::Map(_) | Value::Seq(_))
            && self.text[self.offset(node.span.start)..].starts_with(['{', '['])
    }

    /// Past the anchor (`&name`) and tag (`!!str`) that start a node's text, which a
    /// replacement keeps.
    fn after_properties(&self, mut start: usize, end: usize) -> usize {
        while start < end && self.text[start..].starts_with(['&', '!']) {
            let token = self.text[start..end]
                .find(char::is_whitespace)
                .unwrap_or(end - start);
            let rest = &self.text[start + token..end];
            start += token + (rest.len() - rest.trim_start().len());
        }
        start
    }

    /// The offset of the `|` or `>` that starts the block scalar `node`: the last
    /// thing, before any comment, on the nearest non-blank line above its content.
    fn block_header(&self, node: &Node) -> Result<usize, EditError> {
        for line in (self.first_line..node.span.start.line).rev() {
            let start = self.line_start(Pos { line, column: 1 });
            let text = &self.text[start..line_end(self.text, start)];
            let code = match text.find(" #") {
                Some(at) => &text[..at],
                None => text,
            };
            let code = code.trim_end();
            if code.is_empty() {
                continue;
            }
            let indicator =
                code.trim_end_matches(|c: char| c.is_ascii_digit() || c == '+' || c == '-');
            if indicator.ends_with(['|', '>']) {
                return Ok(start + indicator.len() - 1);
            }
            break;
        }
        Err(EditError::new("cannot find the block scalar's `|` or `>`"))
    }

    /// The file's indentation: spaces per mapping level, and from a key to the `-` of
    /// its block sequence, from the first block mapping and sequence nested in a
    /// mapping; with `until`, from the entries written before it only.
    fn indentation(&self, node: &Node, until: Option<Pos>) -> (Option<usize>, Option<usize>) {
        let mut unit = None;
        let mut sequence = None;
        self.visit_entries(node, &mut |editor, entry| {
            if until.is_some_and(|until| entry.key_span.start >= until) {
                return false;
            }
            let key_column = entry.key_span.start.column as usize;
            match &entry.value.value {
                Value::Map(children) if unit.is_none() && !editor.is_flow(&entry.value) => {
                    if let Some(child) = children.first() {
                        let column = child.key_span.start.column as usize;
                        if child.key_span.start.line > entry.key_span.start.line
                            && column > key_column
                        {
                            unit = Some(column - key_column);
                        }
                    }
                }
                Value::Seq(items) if sequence.is_none() && !editor.is_flow(&entry.value) => {
                    if let Some(item) = items.first() {
                        let start = editor.offset(item.span.start);
                        let line = &editor.text[editor.line_start(item.span.start)..start];
                        if let Some(dash) = line.trim_end().strip_suffix('-') {
                            let dash_column = dash.chars().count() + 1;
                            sequence = dash_column.checked_sub(key_column);
                        }
                    }
                }
                _ => {}
            }
            unit.is_none() || sequence.is_none()
        });
        (unit, sequence)
    }

    /// Calls `visit` on every mapping entry below `node`, depth first, while it
    /// returns true.
    fn visit_entries(&self, node: &Node, visit: &mut dyn FnMut(&Self, &Entry) -> bool) -> bool {
        match &node.value {
            Value::Map(entries) => entries
                .iter()
                .all(|entry| visit(self, entry) && self.visit_entries(&entry.value, visit)),
            Value::Seq(items) => items.iter().all(|item| self.visit_entries(item, visit)),
            _ => true,
        }
    }
}

/// Changes made in turn to one item of a `List` (`kubectl get -o yaml` of a whole
/// cluster), each on the text the changes before it made: on the item's own text, read
/// again after each change, rather than on the whole document's, so that a fix costs
/// what the item does, not what the cluster does.
impl Editor<'_> {
    /// [`Editor::in_steps`] for changes that all lie in the same item of the document's
    /// `items`, on that item's text alone; `None` where the result could differ from the
    /// whole document's (an item whose layout or line ends the document decides only
    /// inside it, an item that does not read the same on its own, a change after the
    /// first that fails), which is then made on the whole document. The first change is
    /// made on the document as it is, so when it cannot be made, this editor says why.
    fn item_in_steps(&self, changes: &[Change]) -> Option<Result<Vec<Edit>, EditError>> {
        let index = common_item(changes)?;
        let Value::Seq(items) = &self.root.get("items")?.value else {
            return None;
        };
        let item = items.get(index)?;
        if !matches!(item.value, Value::Map(_)) {
            return None;
        }
        // The layout each step reads from the whole text is this editor's when the
        // entries that decide it lie before the item, which the changes leave as they
        // are, or when nothing decides it and the item is written in flow style, whose
        // changes are written in flow style too.
        let (unit, sequence) = self.indentation(self.root, Some(item.span.start));
        let decided = unit.is_some() && sequence.is_some();
        let flow = self.is_flow(item);
        if !decided && (self.laid_out || !flow) {
            return None;
        }
        let begin = self.line_start(item.span.start);
        let start = self.offset(item.span.start);
        if self.layout.newline == "\r\n" && !self.text[..begin].ends_with("\r\n") {
            return None;
        }
        // The item's text: its lines, what comes before it on the first one blanked
        // (columns kept), through the end of the last one when only a comment follows.
        let end = self.node_end(item);
        let rest = self.text[end..line_end(self.text, end)].trim_start();
        let end = if rest.is_empty() || rest.starts_with('#') {
            next_line(self.text, end).unwrap_or(self.text.len())
        } else {
            end
        };
        let mut own: String = " ".repeat(self.text[begin..start].chars().count());
        let prefix = own.len();
        own.push_str(&self.text[start..end]);
        let first_line = item.span.start.line;
        let limits = Limits::default();
        // The item alone reads as in the document: the same tree; for a flow item, which
        // the document's editor reads in JSON's reading when the document is JSON, the
        // same values from the same place (the steps, as the document's, read YAML's).
        match parse_documents(&own, first_line, &limits).ok()?.as_slice() {
            [root] if root == item => {}
            [root] if flow && root.span.start == item.span.start && same_values(root, item) => {}
            _ => return None,
        }
        let original = changes;
        let changes: Vec<Change> = changes.iter().map(|change| rebased(change, 2)).collect();
        let mut edits: Vec<Edit> = Vec::new();
        let mut text = own.clone();
        for (index, change) in changes.iter().enumerate() {
            let roots = parse_documents(&text, first_line, &limits).ok()?;
            let root = roots.first()?;
            let lines = LineStarts::new(&text);
            let editor = Editor::with_lines(
                &text,
                first_line,
                root,
                Cow::Borrowed(lines.starts()),
                self.layout.newline,
                Some(self.layout),
            );
            let step = match editor.change(change) {
                Ok(step) => step,
                // Why, in the words (and paths) of the document's own editor.
                Err(_) if index == 0 => return self.change(&original[0]).err().map(Err),
                Err(_) => return None,
            };
            edits = compose(&own, &edits, &step);
            text = apply_edits(&own, &edits);
        }
        // Back to offsets of the whole text; nothing may touch the blanked start.
        edits
            .into_iter()
            .map(|edit| {
                let from = edit.range.start.checked_sub(prefix)? + start;
                let to = edit.range.end - prefix + start;
                Some(Edit::replace(from..to, edit.replacement))
            })
            .collect::<Option<_>>()
            .map(Ok)
    }
}

/// Whether two trees hold the same values under the same keys, wherever and however
/// they are written.
/// The text of the first literal or folded block scalar under `node`.
fn first_block_scalar(node: &Node) -> Option<&str> {
    match (&node.value, node.style) {
        (Value::String(text), Style::Literal | Style::Folded) => Some(text),
        (Value::Map(entries), _) => entries
            .iter()
            .find_map(|entry| first_block_scalar(&entry.value)),
        (Value::Seq(items), _) => items.iter().find_map(first_block_scalar),
        _ => None,
    }
}

fn same_values(a: &Node, b: &Node) -> bool {
    match (&a.value, &b.value) {
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(x, y)| x.key == y.key && same_values(&x.value, &y.value))
        }
        (Value::Seq(x), Value::Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_values(x, y))
        }
        (x, y) => x == y,
    }
}

/// The index `i` of `items[i]` when every path of `changes` lies below it.
fn common_item(changes: &[Change]) -> Option<usize> {
    let item = |path: &JsonPath| match path.segments() {
        [Segment::Key(items), Segment::Index(index), _, ..] if items == "items" => Some(*index),
        _ => None,
    };
    let mut found = None;
    for path in changes.iter().flat_map(paths) {
        let index = item(path)?;
        if found.is_some_and(|found| found != index) {
            return None;
        }
        found = Some(index);
    }
    found
}

/// The paths a change names.
fn paths(change: &Change) -> Vec<&JsonPath> {
    match change {
        Change::Set(path, _) | Change::Remove(path) => vec![path],
        Change::Move { from, to } => vec![from, to],
    }
}

/// `change` with the first `depth` segments of its paths taken off.
fn rebased(change: &Change, depth: usize) -> Change {
    let rebase = |path: &JsonPath| JsonPath::from_segments(&path.segments()[depth..]);
    match change {
        Change::Set(path, value) => Change::Set(rebase(path), value.clone()),
        Change::Remove(path) => Change::Remove(rebase(path)),
        Change::Move { from, to } => Change::Move {
            from: rebase(from),
            to: rebase(to),
        },
    }
}

/// The lines of `text` (each ended by a line break, the last one given one if it has
/// none) moved from column `from` to column `to`: spaces added or taken from the
/// start of each line that is not blank.
fn reindent(text: &str, from: usize, to: usize, newline: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if !line.trim().is_empty() {
            if to > from {
                out.push_str(&" ".repeat(to - from));
                out.push_str(line);
            } else {
                let spaces = line.len() - line.trim_start_matches(' ').len();
                out.push_str(&line[spaces.min(from - to)..]);
            }
        }
        out.push_str(newline);
    }
    out
}

/// The child of `node` written last in its text.
fn written_last<'n>(node: &Node, children: impl Iterator<Item = &'n Node>) -> Option<&'n Node> {
    children
        .filter(|child| child.span.start >= node.span.start)
        .max_by_key(|child| child.span.end)
}

/// `path` cut at its first [`Segment::Embedded`]: the string's path and the path inside.
fn split_embedded(path: &JsonPath) -> Option<(JsonPath, JsonPath)> {
    let segments = path.segments();
    let at = segments.iter().position(|s| *s == Segment::Embedded)?;
    Some((
        JsonPath::from_segments(&segments[..at]),
        JsonPath::from_segments(&segments[at + 1..]),
    ))
}

fn from_anchor(path: &JsonPath) -> EditError {
    EditError::new(format!(
        "`{path}` comes from an anchor (an `*alias` or a `<<` merge): changing it here would change every place that uses the anchor; edit it by hand"
    ))
}

fn kind(node: &Node) -> &'static str {
    match node.value {
        Value::Map(_) => "mapping",
        Value::Seq(_) => "sequence",
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Int(_) | Value::UInt(_) | Value::Float(_) => "number",
        Value::String(_) => "string",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `List` of `n` Jobs, each with a sidecar after its work container, written the
    /// way `kubectl get -o yaml` writes it (`newline` ends every line).
    fn yaml_list(n: usize, newline: &str) -> String {
        let mut lines = vec!["apiVersion: v1".to_owned(), "items:".to_owned()];
        for i in 0..n {
            lines.extend([
                "- apiVersion: batch/v1".to_owned(),
                "  kind: Job".to_owned(),
                "  metadata:".to_owned(),
                format!("    name: job-{i}"),
                "  spec:".to_owned(),
                "    template:".to_owned(),
                "      spec:".to_owned(),
                "        containers:".to_owned(),
                "        - name: work".to_owned(),
                "          image: work".to_owned(),
                "        - name: side   # stays up".to_owned(),
                "          image: side".to_owned(),
                "        restartPolicy: Never".to_owned(),
            ]);
        }
        lines.extend(["kind: List".to_owned(), "metadata:".to_owned()]);
        lines.push("  resourceVersion: \"\"".to_owned());
        lines.join(newline) + newline
    }

    /// The same Jobs as `kubectl get -o json` writes them.
    fn json_list(n: usize) -> String {
        let items: Vec<Json> = (0..n)
            .map(|i| {
                serde_json::json!({
                    "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": format!("job-{i}")},
                    "spec": {"template": {"spec": {"containers": [
                        {"name": "work", "image": "work"}, {"name": "side", "image": "side"}
                    ], "restartPolicy": "Never"}}},
                })
            })
            .collect();
        let list = serde_json::json!({"apiVersion": "v1", "items": items, "kind": "List"});
        serde_json::to_string_pretty(&list).unwrap() + "\n"
    }

    /// The fix that makes item `i`'s sidecar a native one: two changes in turn.
    fn native_sidecar(i: usize) -> Vec<Change> {
        let spec = JsonPath::root()
            .key("items")
            .index(i)
            .join(&JsonPath::parse("spec.template.spec"));
        let to = spec.key("initContainers").index(0);
        vec![
            Change::Move {
                from: spec.key("containers").index(1),
                to: to.clone(),
            },
            Change::Set(to.key("restartPolicy"), Json::String("Always".into())),
        ]
    }

    /// Item `i`'s sidecar removed, then its work's image changed: a flow sequence's
    /// item is not moved.
    fn without_sidecar(i: usize) -> Vec<Change> {
        let containers = JsonPath::root()
            .key("items")
            .index(i)
            .join(&JsonPath::parse("spec.template.spec.containers"));
        vec![
            Change::Remove(containers.index(1)),
            Change::Set(containers.index(0).key("image"), Json::String("w:2".into())),
        ]
    }

    #[test]
    fn an_item_changed_in_steps_on_its_own_reads_as_in_its_document() {
        type Changes = fn(usize) -> Vec<Change>;
        let cases: [(&str, String, Changes); 4] = [
            ("yaml", yaml_list(4, "\n"), native_sidecar),
            ("yaml with CRLF", yaml_list(4, "\r\n"), native_sidecar),
            ("yaml, an item removed", yaml_list(4, "\n"), without_sidecar),
            ("json", json_list(4), without_sidecar),
        ];
        for (name, text, changes) in cases {
            let root = parse_documents(&text, 1, &Limits::default())
                .unwrap()
                .remove(0);
            let editor = Editor::new(&text, &root);
            for i in 0..4 {
                let changes = changes(i);
                let whole = editor.document_in_steps(&changes, None).unwrap();
                assert!(!whole.is_empty());
                let own = editor.item_in_steps(&changes);
                // The first item of a YAML List decides its layout, so its changes are
                // made on the whole document; every other item's on its own.
                if i > 0 || name == "json" {
                    assert_eq!(own, Some(Ok(whole.clone())), "{name}, item {i}");
                } else {
                    assert_eq!(own, None, "{name}, item {i}");
                }
                assert_eq!(
                    editor.in_steps(&changes, None).unwrap(),
                    whole,
                    "{name}, item {i}"
                );
            }
        }
    }

    #[test]
    fn an_item_that_does_not_read_the_same_alone_is_changed_in_its_document() {
        // An alias to an anchor outside the item: alone, the item cannot be read.
        let text = yaml_list(2, "\n").replace(
            "apiVersion: v1\nitems:\n",
            "apiVersion: v1\nx-image: &side side\nitems:\n",
        );
        let text = text.replacen("          image: side\n", "          image: *side\n", 2);
        let root = parse_documents(&text, 1, &Limits::default())
            .unwrap()
            .remove(0);
        let editor = Editor::new(&text, &root);
        let changes = native_sidecar(1);
        assert_eq!(editor.item_in_steps(&changes), None);
        // A first change that cannot be made is refused as the document's editor
        // refuses it: a flow sequence's item is not moved.
        let json = json_list(4);
        let root = parse_documents(&json, 1, &Limits::default())
            .unwrap()
            .remove(0);
        let json_editor = Editor::new(&json, &root);
        let refused = json_editor.item_in_steps(&native_sidecar(2));
        assert!(
            matches!(&refused, Some(Err(error)) if error.reason.contains("items[2]")),
            "{refused:?}"
        );
        assert_eq!(
            refused,
            Some(json_editor.document_in_steps(&native_sidecar(2), None))
        );
        assert_eq!(
            editor.in_steps(&changes, None),
            editor.document_in_steps(&changes, None)
        );
        // Changes in two items, or of the List itself, are made on the whole document.
        let mut both = native_sidecar(1);
        both.extend(native_sidecar(0));
        assert_eq!(common_item(&both), None);
        assert_eq!(
            common_item(&[Change::Remove(JsonPath::parse("items[1]"))]),
            None
        );
    }
}
