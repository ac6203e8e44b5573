//! A large `List` parsed on several threads into the tree one thread would build.
//!
//! `kubectl get -A -o yaml` prints a whole cluster as one document, a `List`, so a run
//! over it would otherwise parse on one thread what a stream of the same objects parses
//! on all. A block `List` is cut at its items (each `- ` at the column of the first,
//! with the lines below it), each item is parsed on its own, on its own lines and where
//! the parser meets it in the document (the first item of a sequence under a key,
//! followed by the token that follows it there), so that every node, position and span
//! is the one it has in the document, and the tree is put together around them: the
//! `List`'s own keys parsed with each item's lines left blank.
//!
//! A JSON `List` as `kubectl get -o json` prints it (each item an object whose `{` and
//! closing `}` stand alone on their lines, at the same indentation) is cut the same way
//! ([`parse_json_list`]).
//!
//! Anything the cut cannot vouch for — an item that does not parse on its own (an alias
//! to an anchor elsewhere), more alias expansion than the document may hold, CR line
//! ends, a `List` whose items are not a block sequence — makes [`parse_list`] answer
//! `None`, and the document is parsed whole as before, with the same diagnostics.
//! `tests/it/list.rs` checks that the tree put together is the one the document parses to.

use super::json;
use super::parse::{
    Limits, SyntaxError, check_document_lines, parse_counting_aliases, parse_documents,
};
use super::tree::{Node, Pos, Span, Value};

/// Documents smaller than this are parsed whole: cutting them gains less than the
/// threads cost.
pub const PARALLEL_FROM_BYTES: usize = 256 * 1024;

/// The roots of `text`, a chunk of a YAML stream starting at `first_line` (see
/// [`super::parse::parse_stream_chunk`]), parsed on up to `threads` threads, when it is
/// a `List` of block items this can cut; `None` otherwise, and whenever the parse on
/// threads could differ from the whole one (an error among them is left to it).
pub fn parse_list(
    text: &str,
    first_line: u32,
    keeps_separator: bool,
    limits: &Limits,
    threads: usize,
) -> Option<Vec<Node>> {
    if threads < 2 || text.len() < PARALLEL_FROM_BYTES || text.contains('\r') {
        return None;
    }
    let cut = Cut::of(text)?;
    check_document_lines(text, first_line, keeps_separator).ok()?;
    let items = cut.parse_items(text, first_line, limits, threads)?;
    let wrapper = parse_documents(&cut.wrapper(text), first_line, limits).ok()?;
    let [root] = <[Node; 1]>::try_from(wrapper).ok()?;
    cut.assemble(root, items)
}

/// Where a block `List`'s items lie: the line ranges of each, and the column of their
/// dashes.
#[derive(Debug)]
struct Cut {
    /// Each item's lines: from its `- ` line, to before the next item or the first line
    /// after the items.
    items: Vec<std::ops::Range<usize>>,
    /// The column (from 0) of the items' dashes.
    dash: usize,
    /// The first line after the items that is not blank nor a comment, if any: the
    /// token after the last item.
    after: Option<usize>,
    /// The byte offset at which each line starts, and one past the last.
    starts: Vec<usize>,
}

impl Cut {
    /// Finds the items of a top-level `items:` holding a block sequence of mappings.
    fn of(text: &str) -> Option<Cut> {
        // Most texts are not `List`s: no line starts with the key, so no line is indexed.
        if !(text.starts_with("items:") || text.contains("\nitems:")) {
            return None;
        }
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(at, _)| at + 1));
        if *starts.last()? != text.len() {
            starts.push(text.len());
        }
        let line = |index: usize| -> &str {
            let end = starts[index + 1];
            text[starts[index]..end]
                .strip_suffix('\n')
                .unwrap_or(&text[starts[index]..end])
        };
        let count = starts.len() - 1;
        let blank = |line: &str| {
            let content = line.trim_start_matches(' ');
            content.is_empty() || content.starts_with('#')
        };
        let header = (0..count).find(|&index| {
            line(index)
                .strip_prefix("items:")
                .is_some_and(|rest| blank(rest) && (rest.is_empty() || rest.starts_with(' ')))
        })?;
        let first = (header + 1..count).find(|&index| !blank(line(index)))?;
        let dash = line(first).len() - line(first).trim_start_matches(' ').len();
        let is_item = |text: &str| {
            text.len() > dash
                && text.as_bytes()[..dash].iter().all(|&b| b == b' ')
                && text[dash..].starts_with("- ")
        };
        if !is_item(line(first)) {
            return None;
        }
        let mut items = Vec::new();
        let mut start = first;
        let mut end = count;
        // Lines within an item are passed over by their first `dash + 1` bytes.
        let deeper =
            |text: &str| text.len() > dash && text.as_bytes()[..=dash].iter().all(|&b| b == b' ');
        for index in first + 1..count {
            let text = line(index);
            if deeper(text) || blank(text) {
                continue;
            }
            let indent = text.len() - text.trim_start_matches(' ').len();
            items.push(start..index);
            if indent == dash && is_item(text) {
                start = index;
            } else {
                end = index;
                start = count;
                break;
            }
        }
        if start < count {
            items.push(start..end);
        }
        // The blank lines and comments before the next item belong to this one, as the
        // parser reads them; an item whose lines after its first are all blank is left
        // to the whole parse.
        (items.len() >= 2).then_some(Cut {
            items,
            dash,
            after: (end < count).then_some(end),
            starts,
        })
    }

    /// Item `index` where the parser reads it as it does in the document: under a key
    /// on the line above it, as the first item of a block sequence at its dash's column,
    /// followed by the token that follows it there (the next item's dash, or the line
    /// after the items), which ends the spans of a block scalar at its end. Its first
    /// line is the line above the item's.
    fn item_text(&self, text: &str, index: usize) -> String {
        let lines = &self.items[index];
        let body = &text[self.starts[lines.start]..self.starts[lines.end]];
        let mut own = String::with_capacity(body.len() + 8 + self.dash);
        own.push_str("x:\n");
        own.push_str(body);
        if !own.ends_with('\n') {
            own.push('\n');
        }
        if index + 1 < self.items.len() {
            own.extend(std::iter::repeat_n(' ', self.dash));
            own.push_str("-\n");
        } else if let Some(after) = self.after {
            own.push_str(&text[self.starts[after]..self.starts[after + 1]]);
        }
        own
    }

    /// The document with each item reduced to its dash, its other lines left blank:
    /// the `List`'s own keys at their places, and a sequence of null items.
    fn wrapper(&self, text: &str) -> String {
        self.blanked(text, true)
    }

    /// The document with each item's lines left blank, but for its dash when `dash`
    /// says so, and all of the first item's first line, which decides where the parser
    /// starts the sequence.
    fn blanked(&self, text: &str, dash: bool) -> String {
        let mut out = String::with_capacity(text.len() / 8);
        let mut at = 0;
        for (index, lines) in self.items.iter().enumerate() {
            let start = self.starts[lines.start];
            out.push_str(&text[at..start]);
            let mut blank = lines.len();
            if dash {
                let kept = match index {
                    0 => self.starts[lines.start + 1] - 1,
                    _ => start + self.dash + 1,
                };
                out.push_str(&text[start..kept]);
                out.push('\n');
                blank -= 1;
            }
            out.extend(std::iter::repeat_n('\n', blank));
            at = self.starts[lines.end];
        }
        out.push_str(&text[at..]);
        out
    }

    /// Parses every item, on up to `threads` threads, each at the depth it has in the
    /// document; `None` when one does not parse, or when their alias expansion together
    /// passes the document's limit.
    fn parse_items(
        &self,
        text: &str,
        first_line: u32,
        limits: &Limits,
        threads: usize,
    ) -> Option<Vec<Node>> {
        let (items, aliases) = self.parse_each(text, threads, |index| {
            self.parse_item(text, index, first_line, limits).ok()?
        })?;
        (aliases <= limits.max_alias_nodes).then_some(items)
    }

    /// Block item `index` of `text`, parsed on its own at the depth it has in the
    /// document, with the alias nodes it expanded: `Err` with the parser's error when
    /// it does not parse on its own, `Ok(None)` when it reads as no item.
    pub(super) fn parse_item(
        &self,
        text: &str,
        index: usize,
        first_line: u32,
        limits: &Limits,
    ) -> Result<Option<(Node, usize)>, SyntaxError> {
        // The line above the item's, which holds the key the item text puts there.
        let line = first_line + u32::try_from(self.items[index].start - 1).unwrap_or(u32::MAX);
        let (roots, aliases) = parse_counting_aliases(&self.item_text(text, index), line, limits)?;
        let Ok([mut root]) = <[Node; 1]>::try_from(roots) else {
            return Ok(None);
        };
        let Value::Map(entries) = &mut root.value else {
            return Ok(None);
        };
        let Some(Value::Seq(items)) = entries.first_mut().map(|entry| &mut entry.value.value)
        else {
            return Ok(None);
        };
        Ok((!items.is_empty()).then(|| (items.swap_remove(0), aliases)))
    }

    /// JSON item `index` of `text`, parsed on its own within the depth left below the
    /// `List`'s `items`: `Err` with the parser's error when it does not parse.
    pub(super) fn parse_json_item(
        &self,
        text: &str,
        index: usize,
        first_line: u32,
        limits: &Limits,
    ) -> Result<Option<Node>, SyntaxError> {
        let below = Limits {
            max_depth: limits.max_depth.saturating_sub(2),
            ..*limits
        };
        let line = first_line + u32::try_from(self.items[index].start).unwrap_or(u32::MAX);
        let roots = json::parse_document(&self.json_item(text, index), line, &below)?;
        Ok(<[Node; 1]>::try_from(roots).ok().map(|[root]| root))
    }

    /// `parse` run on every item, on up to `threads` threads each taking a run of
    /// items of about equal size: the items, and the alias nodes `parse` counted in
    /// them all; `None` when it fails on one.
    fn parse_each(
        &self,
        text: &str,
        threads: usize,
        parse: impl Fn(usize) -> Option<(Node, usize)> + Sync,
    ) -> Option<(Vec<Node>, usize)> {
        let share = text.len().div_ceil(threads);
        let mut runs = Vec::new();
        let mut from = 0;
        for index in 0..self.items.len() {
            let bytes = self.starts[self.items[index].end] - self.starts[self.items[from].start];
            if bytes >= share || index + 1 == self.items.len() {
                runs.push(from..index + 1);
                from = index + 1;
            }
        }
        let parse = &parse;
        let parsed: Vec<Option<Vec<(Node, usize)>>> = std::thread::scope(|scope| {
            let workers: Vec<_> = runs
                .into_iter()
                .map(|run| {
                    std::thread::Builder::new()
                        .name("list-items".into())
                        .spawn_scoped(scope, move || run.map(parse).collect::<Option<Vec<_>>>())
                })
                .collect();
            workers
                .into_iter()
                .map(|worker| worker.ok()?.join().ok()?)
                .collect()
        });
        let mut items = Vec::with_capacity(self.items.len());
        let mut aliases = 0usize;
        for run in parsed {
            for (node, added) in run? {
                aliases = aliases.saturating_add(added);
                items.push(node);
            }
        }
        Some((items, aliases))
    }

    /// The tree of the whole `List`: the wrapper's, its null items replaced by the
    /// items.
    fn assemble(&self, mut root: Node, items: Vec<Node>) -> Option<Vec<Node>> {
        let Value::Map(entries) = &mut root.value else {
            return None;
        };
        let last_value = entries.iter().map(|entry| entry.value.span.end).max()?;
        let entry = entries.iter_mut().find(|entry| entry.key == "items")?;
        let Value::Seq(placeholders) = &entry.value.value else {
            return None;
        };
        if placeholders.len() != items.len()
            || placeholders[1..]
                .iter()
                .any(|item| item.value != Value::Null)
        {
            return None;
        }
        let seq_start = entry.value.span.start;
        let seq_end = items.last()?.span.end;
        let was_last = entry.value.span.end == last_value;
        entry.value = Node {
            span: Span {
                start: seq_start,
                end: seq_end,
            },
            value: Value::Seq(items),
            style: entry.value.style,
        };
        if was_last {
            root.span.end = root.span.end.max(seq_end);
        }
        Some(vec![root])
    }
}

/// Where the items of a `List` lie in its text, for work on one item that must not
/// cost the whole `List`: each item is a workload of its own, which the stages read
/// apart from the others, so the `List` with that item alone ([`Items::alone`]) reads
/// as the item does in the whole one.
///
/// Found by the cuts [`parse_list`] and [`parse_json_list`] make, of a block `List` or
/// of one as `kubectl get -o json` prints it; `None` for any other text.
#[derive(Debug)]
pub struct Items {
    /// Each item's bytes: a block item's lines, a JSON item's object without the comma
    /// after it.
    ranges: Vec<std::ops::Range<usize>>,
    /// The 0-based line each item starts on.
    lines: Vec<usize>,
    /// Where the first item starts, on the first line of the items.
    head: usize,
    /// The 0-based line of `head`.
    head_line: usize,
    /// Where what follows the items starts, on a line of its own.
    tail: usize,
}

impl Items {
    /// The items of `text`, when it is a `List` the cuts can read; `None` for text with
    /// a CR (a line end the cuts do not read) or fewer than two items.
    pub fn of(text: &str) -> Option<Items> {
        if text.contains('\r') {
            return None;
        }
        let (cut, json) = match Cut::of_json(text) {
            Some(cut) => (cut, true),
            None => (Cut::of(text)?, false),
        };
        Items::cut(&cut, text, json)
    }

    /// The items `cut` found in `text`, a JSON `List` when `json` says so.
    fn cut(cut: &Cut, text: &str, json: bool) -> Option<Items> {
        let ranges = (0..cut.items.len())
            .map(|index| {
                let start = cut.starts[cut.items[index].start];
                let end = if json {
                    start + cut.json_item(text, index).len()
                } else {
                    cut.starts[cut.items[index].end]
                };
                start..end
            })
            .collect();
        let first = cut.items.first()?.start;
        Some(Items {
            ranges,
            lines: cut.items.iter().map(|lines| lines.start).collect(),
            head: cut.starts[first],
            head_line: first,
            tail: cut.starts[cut.items.last()?.end],
        })
    }

    /// How many items there are.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Whether there are none (never, for a cut `List`).
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The bytes of item `index`.
    pub fn range(&self, index: usize) -> std::ops::Range<usize> {
        self.ranges[index].clone()
    }

    /// The item whose bytes hold every range of `ranges`; `None` when no one item does.
    /// An insertion where one block item ends and the next begins is at the end of the
    /// first: text put before the next item's dash belongs to the item above it.
    pub fn holding<'r>(
        &self,
        ranges: impl IntoIterator<Item = &'r std::ops::Range<usize>> + Clone,
    ) -> Option<usize> {
        let first = ranges.clone().into_iter().map(|range| range.start).min()?;
        let within = |index: usize| {
            let item = &self.ranges[index];
            ranges
                .clone()
                .into_iter()
                .all(|range| item.start <= range.start && range.end <= item.end)
        };
        let after = self.ranges.partition_point(|item| item.start <= first);
        [after.checked_sub(2), after.checked_sub(1)]
            .into_iter()
            .flatten()
            .find(|&index| within(index))
    }

    /// `text` with item `index` alone among the items, the `List`'s own keys around it
    /// as they are, and the number of lines before the item that the text left out:
    /// item `index`'s line `n` of `text` is line `n - lines` of the result.
    pub fn alone(&self, text: &str, index: usize) -> (String, usize) {
        let item = &text[self.ranges[index].clone()];
        let mut out = String::with_capacity(self.head + item.len() + 1 + text.len() - self.tail);
        out.push_str(&text[..self.head]);
        out.push_str(item);
        if !item.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&text[self.tail..]);
        (out, self.lines[index] - self.head_line)
    }

    /// The bytes of `text` outside the items: the `List`'s own keys.
    pub fn own_bytes(&self, text: &str) -> usize {
        self.head + (text.len() - self.tail)
    }

    /// Where item `index` starts in the text [`Items::alone`] makes of it.
    pub fn alone_start(&self) -> usize {
        self.head
    }
}

/// The root of `text`, one JSON value starting at `first_line` (see
/// [`json::parse_document`]), parsed on up to `threads` threads when it is an object
/// whose `items` array holds objects printed one per block of lines, as kubectl prints
/// them; `None` otherwise, and whenever the parse on threads could differ from the
/// whole one.
pub fn parse_json_list(
    text: &str,
    first_line: u32,
    limits: &Limits,
    threads: usize,
) -> Option<Vec<Node>> {
    if threads < 2 || text.len() < PARALLEL_FROM_BYTES || text.contains('\r') {
        return None;
    }
    let cut = Cut::of_json(text)?;
    limits.max_depth.checked_sub(2)?;
    let (items, _) = cut.parse_each(text, threads, |index| {
        let root = cut
            .parse_json_item(text, index, first_line, limits)
            .ok()??;
        Some((root, 0))
    })?;
    let wrapper = json::parse_document(&cut.blanked(text, false), first_line, limits).ok()?;
    let [mut root] = <[Node; 1]>::try_from(wrapper).ok()?;
    let Value::Map(entries) = &mut root.value else {
        return None;
    };
    let entry = entries.iter_mut().find(|entry| entry.key == "items")?;
    match &entry.value.value {
        Value::Seq(none) if none.is_empty() => entry.value.value = Value::Seq(items),
        _ => return None,
    }
    Some(vec![root])
}

/// A `List` cut at its items for reading them one at a time: each item's tree is
/// parsed on its own, where the parser meets it in the document, so that it is the
/// node the whole document's tree holds ([`parse_list`], [`parse_json_list`]), and is
/// put in [`ListCut::root`], the `List`'s own keys with a null in each item's place.
#[derive(Debug)]
pub struct ListCut {
    cut: Cut,
    json: bool,
    items: Items,
    first_line: u32,
    limits: Limits,
    /// The `List`'s own keys, its items null but for those [`ListCut::keep`] put there.
    root: Node,
}

impl ListCut {
    /// The cut of `text`, a document starting at `first_line` read as YAML, or as JSON
    /// when `json` says so, when it is a `List` the cuts can read and whose own keys
    /// parse: `None` otherwise, and for a text with a CR line end.
    pub fn of(
        text: &str,
        first_line: u32,
        keeps_separator: bool,
        json: bool,
        limits: &Limits,
    ) -> Option<ListCut> {
        if text.contains('\r') {
            return None;
        }
        let (cut, root) = if json {
            limits.max_depth.checked_sub(2)?;
            let cut = Cut::of_json(text)?;
            let wrapper =
                json::parse_document(&cut.blanked(text, false), first_line, limits).ok()?;
            let [mut root] = <[Node; 1]>::try_from(wrapper).ok()?;
            let Value::Map(entries) = &mut root.value else {
                return None;
            };
            let entry = entries.iter_mut().find(|entry| entry.key == "items")?;
            match &entry.value.value {
                Value::Seq(none) if none.is_empty() => {
                    let null = Node {
                        span: Span::default(),
                        value: Value::Null,
                        style: Default::default(),
                    };
                    entry.value.value = Value::Seq(vec![null; cut.items.len()]);
                }
                _ => return None,
            }
            (cut, root)
        } else {
            let cut = Cut::of(text)?;
            check_document_lines(text, first_line, keeps_separator).ok()?;
            let wrapper = parse_documents(&cut.wrapper(text), first_line, limits).ok()?;
            let [root] = <[Node; 1]>::try_from(wrapper).ok()?;
            // The tree put together with a null in each item's place, the last item's
            // end deciding where the items end.
            let Value::Map(entries) = &root.value else {
                return None;
            };
            let Value::Seq(placeholders) = &entries.iter().find(|e| e.key == "items")?.value.value
            else {
                return None;
            };
            let mut items = placeholders.clone();
            let last = items.len() - 1;
            let (node, _) = cut.parse_item(text, last, first_line, limits).ok()??;
            items[last] = node;
            let mut root = cut.assemble(root, items)?.pop()?;
            let items = items_mut(&mut root)?;
            items[0].value = Value::Null;
            items[last].value = Value::Null;
            (cut, root)
        };
        Some(ListCut {
            items: Items::cut(&cut, text, json)?,
            cut,
            json,
            first_line,
            limits: *limits,
            root,
        })
    }

    /// Item `index` of `text` (the text the cut was made of), parsed on its own: `Err`
    /// with the parser's error when it does not parse so, or reads as no item.
    pub fn parse(&self, text: &str, index: usize) -> Result<Node, SyntaxError> {
        let at = Pos {
            line: self.first_line + self.cut.items[index].start as u32,
            column: 1,
        };
        let none = || SyntaxError {
            message: "the item does not read as one on its own".to_owned(),
            pos: at,
            related: None,
        };
        if self.json {
            self.cut
                .parse_json_item(text, index, self.first_line, &self.limits)?
                .ok_or_else(none)
        } else {
            let (node, _) = self
                .cut
                .parse_item(text, index, self.first_line, &self.limits)?
                .ok_or_else(none)?;
            Ok(node)
        }
    }

    /// The `List`'s own keys, with a null in the place of each item not kept.
    pub fn root(&self) -> &Node {
        &self.root
    }

    /// Puts item `index`'s tree in [`ListCut::root`] for good: an item whose layout
    /// every item's fixes read.
    pub fn keep(&mut self, index: usize, node: Node) {
        if let Some(items) = items_mut(&mut self.root) {
            items[index] = node;
        }
    }

    /// Where the items lie, for the checks of their fixes.
    pub fn items(&self) -> &Items {
        &self.items
    }
}

/// The items of the `List` whose tree is `root`.
pub(super) fn items_mut(root: &mut Node) -> Option<&mut Vec<Node>> {
    let Value::Map(entries) = &mut root.value else {
        return None;
    };
    match &mut entries
        .iter_mut()
        .find(|entry| entry.key == "items")?
        .value
        .value
    {
        Value::Seq(items) => Some(items),
        _ => None,
    }
}

impl Cut {
    /// Finds the items of a top-level `"items": [` whose objects each start with a
    /// line holding only `{` and end with one holding only `}` (or `},`), at the
    /// indentation of the first.
    fn of_json<'t>(text: &'t str) -> Option<Cut> {
        if !(text.starts_with('{') && text.contains("\"items\": [")) {
            return None;
        }
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(at, _)| at + 1));
        if *starts.last()? != text.len() {
            starts.push(text.len());
        }
        let count = starts.len() - 1;
        let line = |index: usize| -> &str {
            let end = starts[index + 1];
            text[starts[index]..end]
                .strip_suffix('\n')
                .unwrap_or(&text[starts[index]..end])
        };
        let indent = |line: &str| line.len() - line.trim_start_matches(' ').len();
        if line(0).trim_end_matches(' ') != "{" {
            return None;
        }
        let keys = indent(line(1));
        let header = (1..count).find(|&index| {
            let text = line(index);
            indent(text) == keys && text[keys..].trim_end_matches(' ') == "\"items\": ["
        })?;
        let first = header + 1;
        let dash = indent(line(first));
        // `byte` after exactly `dash` spaces, and what follows it on the line; most
        // lines are told apart by the one byte at `dash`.
        let at_dash = |text: &'t str, byte: u8| -> Option<&'t str> {
            let bytes = text.as_bytes();
            (bytes.get(dash) == Some(&byte) && bytes[..dash].iter().all(|&b| b == b' '))
                .then(|| text[dash + 1..].trim_end_matches(' '))
        };
        let opens = |text: &'t str| at_dash(text, b'{') == Some("");
        let closes = |text: &'t str| matches!(at_dash(text, b'}'), Some("" | ","));
        if dash <= keys || !opens(line(first)) {
            return None;
        }
        let mut items = Vec::new();
        let mut index = first;
        loop {
            let start = index;
            let end = (start + 1..count).find(|&index| closes(line(index)))? + 1;
            items.push(start..end);
            if line(end - 1).trim_end_matches(' ').ends_with("},") {
                if !opens(line(end)) {
                    return None;
                }
                index = end;
            } else {
                break;
            }
        }
        // The array closes on the line after the last item.
        let after = line(items.last()?.end);
        if indent(after) != keys || !after[keys..].trim_end_matches(' ').starts_with(']') {
            return None;
        }
        (items.len() >= 2).then_some(Cut {
            items,
            dash,
            after: None,
            starts,
        })
    }

    /// The text of JSON item `index`: its lines, without the comma after its `}`.
    fn json_item(&self, text: &str, index: usize) -> String {
        let lines = &self.items[index];
        let body = &text[self.starts[lines.start]..self.starts[lines.end]];
        let body = body.trim_end_matches(['\n', ' ']);
        body.strip_suffix(',').unwrap_or(body).to_owned()
    }
}
