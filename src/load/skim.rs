//! Reading what a document is without building its tree: its top-level `kind`,
//! `apiVersion` and `items`, and whether it is certainly well formed.
//!
//! Most bytes of a real stream are documents no stage reads — CustomResourceDefinitions,
//! Secrets, RBAC, networking objects — and parsing each into a positioned tree costs as
//! much as parsing a workload. [`skim`] reads a document of the plain block YAML that
//! tools write (`kubectl get -o yaml`, `helm template`, kustomize) in one pass over its
//! lines, checking as it goes every rule whose breach would make [`super::parse`] refuse
//! it: indentation, keys written twice, quoting, block scalars, kubectl's document
//! separators, numbers JSON cannot hold. Anything outside that subset — flow
//! collections, anchors, tags, escapes, multi-line plain scalars, tabs, CR line ends,
//! keys that resolve to something other than their text — makes it answer `None`, and
//! the document is parsed in full, so that a document it passes is one the parser
//! accepts, and an invalid one is still reported by the parser with its own diagnostic.
//!
//! `tests/it/skim.rs` holds it to that: every document it passes, among generated and
//! mutated ones and every file of `testdata/`, parses, to the same top-level values.

/// What [`skim`] read of a well-formed document: its top-level `kind` and
/// `apiVersion`, and whether it has a top-level `items` (kubectl reads any object with
/// `items` as a list).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outline<'t> {
    /// `kind`, when the document sets it to a string.
    pub kind: Option<&'t str>,
    /// `apiVersion`, when the document sets it to a string.
    pub api_version: Option<&'t str>,
    /// Whether `kind` or `apiVersion` is set to something the outline does not read
    /// as a string (a number, a block scalar, a flow collection).
    pub unread: bool,
    /// Whether the document has a top-level `items` key.
    pub has_items: bool,
}

/// The deepest nesting followed; deeper documents are parsed in full, which enforces
/// the parser's own limit with its diagnostic.
const MAX_DEPTH: usize = 64;

/// Maps with more keys than this look keys up in a hash set.
const LINEAR_KEYS: usize = 16;

/// The outline of `text`, one YAML document (the text of a chunk as the splitter cut
/// it), when it is certainly a well-formed block mapping the parser reads without error;
/// `None` when it is anything else or when in doubt.
pub fn skim(text: &str) -> Option<Outline<'_>> {
    if !printable(text) {
        return None;
    }
    let mut reader = Reader::default();
    let mut lines = text.split('\n').peekable();
    // Before the content: blank lines, comments and one `---` line.
    let mut separators = 0;
    while let Some(line) = lines.peek() {
        let trimmed = line.trim_start_matches(' ');
        if trimmed.is_empty() || trimmed.starts_with('#') {
            lines.next();
        } else if let Some(rest) = line.strip_prefix("---") {
            // A comment after the marker needs a space before it: `---#…` is no marker
            // but the start of a plain scalar (the YAML 1.2 spec, sections 6.6 and 9.1.4).
            let comment = rest.starts_with(' ') && {
                let after = rest.trim_start_matches(' ');
                after.is_empty() || after.starts_with('#')
            };
            if separators > 0 || !(rest.is_empty() || comment) {
                return None;
            }
            separators += 1;
            lines.next();
        } else {
            break;
        }
    }
    for line in lines {
        if let Some(block) = reader.block.take()
            && block.holds(line)
        {
            reader.block = Some(block.after(line)?);
            continue;
        }
        reader.line(line)?;
    }
    reader.finish()
}

/// Whether every character is one YAML allows in a document (`c-printable`), tabs and
/// CRs aside, which the reader leaves to the parser.
fn printable(text: &str) -> bool {
    let ascii = text
        .bytes()
        .all(|b| matches!(b, b'\n' | b' '..=b'~' | 0x80..));
    ascii
        && (text.is_ascii()
            || text.chars().all(|c| match c {
                '\n' | ' '..='~' => true,
                // Not a byte order mark, nor a line or paragraph separator, which some
                // readers take for line breaks.
                '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'.. => {
                    !matches!(c, '\u{feff}' | '\u{2028}' | '\u{2029}')
                }
                _ => false,
            }))
}

/// An open block collection.
#[derive(Debug)]
enum Frame<'t> {
    /// A mapping whose keys start at `indent`, with the keys seen so far.
    Map { indent: usize, keys: Keys<'t> },
    /// A sequence whose `-` are at `indent`.
    Seq { indent: usize },
}

impl Frame<'_> {
    fn indent(&self) -> usize {
        match self {
            Frame::Map { indent, .. } | Frame::Seq { indent } => *indent,
        }
    }
}

/// The keys of one mapping, to find one written twice.
#[derive(Debug, Default)]
struct Keys<'t> {
    few: Vec<&'t str>,
    many: Option<std::collections::HashSet<&'t str>>,
}

impl<'t> Keys<'t> {
    /// Adds `key`; false when it is there already.
    fn insert(&mut self, key: &'t str) -> bool {
        if let Some(many) = &mut self.many {
            return many.insert(key);
        }
        if self.few.contains(&key) {
            return false;
        }
        self.few.push(key);
        if self.few.len() > LINEAR_KEYS {
            self.many = Some(self.few.drain(..).collect());
        }
        true
    }
}

/// What the line before left open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pending {
    /// Nothing: the last value was complete on its line.
    Nothing,
    /// `key:` with its value on the lines below, the key at this column: a block
    /// mapping or sequence indented more, or a sequence at the key's own column.
    KeyValue(usize),
    /// `-` with its value on the lines below: a block collection indented more.
    ItemValue(usize),
}

/// A block scalar being read: its lines are passed over.
#[derive(Clone, Copy, Debug)]
struct Block {
    /// The indentation of the collection holding it: content must be indented more.
    parent: usize,
    /// The content's indentation, once its first non-blank line has set it.
    content: Option<usize>,
    /// The most spaces on a blank line before the first content line.
    leading_blank: usize,
}

impl Block {
    /// Whether `line` belongs to the scalar.
    fn holds(&self, line: &str) -> bool {
        let indent = indentation(line);
        if indent == line.len() {
            return true;
        }
        match self.content {
            Some(content) => indent >= content,
            None => indent > self.parent,
        }
    }

    /// The scalar after one of its lines; `None` where the parser could refuse it.
    fn after(mut self, line: &str) -> Option<Block> {
        let indent = indentation(line);
        if indent == line.len() {
            if self.content.is_none() {
                self.leading_blank = self.leading_blank.max(indent);
            }
            return Some(self);
        }
        if self.content.is_none() {
            // A blank line before the first content line may not be indented more.
            if self.leading_blank > indent {
                return None;
            }
            self.content = Some(indent);
        }
        Some(self)
    }
}

/// The number of leading spaces of `line`.
fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

#[derive(Debug)]
struct Reader<'t> {
    stack: Vec<Frame<'t>>,
    pending: Pending,
    block: Option<Block>,
    outline: Outline<'t>,
    /// Whether a content line has been read.
    started: bool,
}

impl Default for Reader<'_> {
    fn default() -> Self {
        Reader {
            stack: Vec::new(),
            pending: Pending::Nothing,
            block: None,
            outline: Outline::default(),
            started: false,
        }
    }
}

impl<'t> Reader<'t> {
    /// Reads one line outside a block scalar.
    fn line(&mut self, line: &'t str) -> Option<()> {
        let indent = indentation(line);
        let content = &line[indent..];
        if content.is_empty() || content.starts_with('#') {
            return Some(());
        }
        if indent == 0 && (content.starts_with("---") || content.starts_with("...")) {
            // A second document, or an end marker: the parser says what kubectl does.
            return None;
        }
        if !self.started {
            // The document is a block mapping starting at column 1.
            if indent != 0 {
                return None;
            }
            self.started = true;
            self.stack.push(Frame::Map {
                indent: 0,
                keys: Keys::default(),
            });
            return self.entry(line, 0, 0);
        }
        let is_item = content == "-" || content.starts_with("- ");
        // Close what the line is not inside of: anything indented more, and a
        // sequence at its column when it is no item (`key:\n- a\nnext: b`).
        while self.stack.last().is_some_and(|frame| {
            frame.indent() > indent
                || (frame.indent() == indent && !is_item && matches!(frame, Frame::Seq { .. }))
        }) {
            self.stack.pop();
        }
        let top = self.stack.last()?;
        let top_indent = top.indent();
        let opens = match (self.pending, is_item) {
            // A sequence at the column of its key (`key:\n- a`), or a collection
            // indented more than its key or dash.
            (Pending::KeyValue(key), true) if indent >= key => true,
            (Pending::KeyValue(key), false) => indent > key,
            (Pending::ItemValue(dash), _) => indent > dash,
            _ => false,
        };
        self.pending = Pending::Nothing;
        if opens {
            if self.stack.len() >= MAX_DEPTH {
                return None;
            }
            if is_item {
                // `key:\n- a` at the key's column closes nothing: the sequence is
                // the key's value, and the mapping goes on after it.
                self.stack.push(Frame::Seq { indent });
                return self.item(line, indent);
            }
            self.stack.push(Frame::Map {
                indent,
                keys: Keys::default(),
            });
            return self.entry(line, indent, indent);
        }
        if top_indent != indent {
            // Indented more than a value that ended on its line (a multi-line plain
            // scalar), or less than the collection it should close into.
            return None;
        }
        match (top, is_item) {
            (Frame::Map { .. }, false) => self.entry(line, indent, indent),
            (Frame::Seq { .. }, true) => self.item(line, indent),
            _ => None,
        }
    }

    /// A sequence item `- …` whose dash is at `dash`.
    fn item(&mut self, line: &'t str, dash: usize) -> Option<()> {
        let rest = &line[dash + 1..];
        let spaces = indentation(rest);
        let value = &rest[spaces..];
        if value.is_empty() || value.starts_with('#') {
            self.pending = Pending::ItemValue(dash);
            return Some(());
        }
        if value.starts_with("- ") || value == "-" {
            // A sequence in a sequence on one line: left to the parser.
            return None;
        }
        let column = dash + 1 + spaces;
        if let Some((key, after)) = key_of(value) {
            // A compact mapping: `- name: web` starts a mapping at the key's column.
            if self.stack.len() >= MAX_DEPTH {
                return None;
            }
            let mut keys = Keys::default();
            keys.insert(key);
            self.stack.push(Frame::Map {
                indent: column,
                keys,
            });
            return self.value(after, column, Pending::KeyValue(column));
        }
        self.value(rest, dash, Pending::ItemValue(dash))
    }

    /// A mapping entry `key: value` whose key is at `column`, in the mapping at
    /// `indent`.
    fn entry(&mut self, line: &'t str, column: usize, indent: usize) -> Option<()> {
        let (key, after) = key_of(&line[column..])?;
        let Some(Frame::Map { keys, .. }) = self.stack.last_mut() else {
            return None;
        };
        if !keys.insert(key) {
            return None;
        }
        if self.stack.len() == 1 {
            let field = match key {
                "kind" => Some(&mut self.outline.kind),
                "apiVersion" => Some(&mut self.outline.api_version),
                _ => None,
            };
            if let Some(field) = field {
                *field = string_value(after);
                self.outline.unread |= field.is_none();
            }
            self.outline.has_items |= key == "items";
        }
        self.value(after, indent, Pending::KeyValue(column))
    }

    /// The value after `key:` or `- ` (`rest`, spaces before it included), in a
    /// collection whose lines start at `parent`; `empty` is what a value on the lines
    /// below would fill.
    fn value(&mut self, rest: &'t str, parent: usize, empty: Pending) -> Option<()> {
        let value = rest.trim_start_matches(' ');
        if value.is_empty() || value.starts_with('#') {
            self.pending = empty;
            return Some(());
        }
        if !rest.is_empty() && !rest.starts_with(' ') {
            return None;
        }
        let tail = match value.as_bytes()[0] {
            b'|' | b'>' => {
                let header = value[1..].strip_prefix(['-', '+']).unwrap_or(&value[1..]);
                self.block = Some(Block {
                    parent,
                    content: None,
                    leading_blank: 0,
                });
                header
            }
            b'"' => quoted(value, '"')?,
            b'\'' => quoted(value, '\'')?,
            b'{' | b'[' => {
                let close = if value.as_bytes()[0] == b'{' {
                    '}'
                } else {
                    ']'
                };
                value[1..].trim_start_matches(' ').strip_prefix(close)?
            }
            _ => {
                let end = value.find(" #").unwrap_or(value.len());
                plain(value[..end].trim_end_matches(' '))?;
                &value[end..]
            }
        };
        comment_or_nothing(tail)
    }

    fn finish(self) -> Option<Outline<'t>> {
        self.started.then_some(self.outline)
    }
}

/// What may follow a complete value on its line: spaces, then a comment.
fn comment_or_nothing(tail: &str) -> Option<()> {
    let rest = tail.trim_start_matches(' ');
    (rest.is_empty() || (rest.starts_with('#') && rest.len() < tail.len())).then_some(())
}

/// A key the parser reads as the string it is written as, and what follows its `:`:
/// a plain key of letters, digits, `_`, `-`, `.` and `/` starting with a letter or
/// `_` that YAML 1.1 does not read as a boolean or null, or a one-line quoted key
/// without escapes.
fn key_of(text: &str) -> Option<(&str, &str)> {
    let (key, after) = match text.as_bytes().first()? {
        quote @ (b'"' | b'\'') => {
            let inner = &text[1..];
            let end = inner.find([*quote as char, '\\'])?;
            if inner.as_bytes()[end] != *quote {
                return None;
            }
            let after = &inner[end + 1..];
            if after.starts_with(*quote as char) {
                // `''` in a single-quoted key: left to the parser.
                return None;
            }
            (&inner[..end], after)
        }
        b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
            let end = text
                .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/')))
                .unwrap_or(text.len());
            let key = &text[..end];
            if is_special_word(key) {
                return None;
            }
            (key, &text[end..])
        }
        _ => return None,
    };
    let after = after.strip_prefix(':')?;
    (after.is_empty() || after.starts_with(' ')).then_some((key, after))
}

/// Plain words YAML 1.1 reads as something other than a string.
fn is_special_word(word: &str) -> bool {
    matches!(
        word,
        "y" | "Y"
            | "yes"
            | "Yes"
            | "YES"
            | "n"
            | "N"
            | "no"
            | "No"
            | "NO"
            | "true"
            | "True"
            | "TRUE"
            | "false"
            | "False"
            | "FALSE"
            | "on"
            | "On"
            | "ON"
            | "off"
            | "Off"
            | "OFF"
            | "null"
            | "Null"
            | "NULL"
    )
}

/// What follows a one-line quoted scalar starting at `text`: `None` when it does not
/// close on its line or holds an escape (`\`) or a doubled quote.
fn quoted(text: &str, quote: char) -> Option<&str> {
    let inner = &text[1..];
    let end = inner.find([quote, '\\'])?;
    if !inner[end..].starts_with(quote) {
        return None;
    }
    let after = &inner[end + 1..];
    if after.starts_with(quote) {
        return None;
    }
    Some(after)
}

/// A one-line plain scalar the parser reads without error: it does not start with an
/// indicator, holds no `: ` (a mapping where a value should be), does not end with `:`
/// and is not one of the words for an infinity or a not-a-number, which JSON cannot
/// hold (a number out of range is a string, as for go-yaml).
fn plain(text: &str) -> Option<()> {
    let first = *text.as_bytes().first()?;
    if matches!(
        first,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    ) && !(first == b'-' && text.len() > 1 && text.as_bytes()[1] != b' ')
    {
        return None;
    }
    if text.contains(": ") || text.ends_with(':') || text.contains('\t') {
        return None;
    }
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    if matches!(
        unsigned,
        ".inf" | ".Inf" | ".INF" | ".nan" | ".NaN" | ".NAN"
    ) {
        return None;
    }
    Some(())
}

/// The string a value after `key:` reads as, when it is a quoted scalar or a plain
/// one that resolves to a string, on its line.
fn string_value(rest: &str) -> Option<&str> {
    let value = rest.trim_start_matches(' ');
    if value.starts_with('#') {
        // `kind: #Deployment`: a comment, and the value is null.
        return None;
    }
    let value = value[..value.find(" #").unwrap_or(value.len())].trim_end_matches(' ');
    match value.as_bytes().first()? {
        quote @ (b'"' | b'\'') if value.len() > 1 && value.ends_with(*quote as char) => {
            Some(&value[1..value.len() - 1])
        }
        b'"' | b'\'' | b'|' | b'>' | b'{' | b'[' => None,
        _ => {
            matches!(super::scalar::resolve_plain(value), super::Value::String(_)).then_some(value)
        }
    }
}

/// The value of the first top-level `kind:` line of `text`, as written: a hint that
/// spares [`skim`] the documents a stage reads anyway (it is not checked to be the
/// document's kind; [`skim`]'s [`Outline`] is).
pub fn kind_hint(text: &str) -> Option<&str> {
    let line = text
        .split('\n')
        .find_map(|line| line.strip_prefix("kind:"))?;
    let value = line.trim_start_matches(' ');
    let value = value[..value.find(" #").unwrap_or(value.len())].trim_end_matches([' ', '\r']);
    Some(value.trim_matches(['"', '\'']))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_outline_of_plain_block_yaml() {
        let text = "---\n# Source: chart/templates/crd.yaml\napiVersion: apiextensions.k8s.io/v1\nkind: \"CustomResourceDefinition\"\nmetadata:\n  name: x   # the name\n  labels: {}\nspec:\n  versions:\n  - name: v1\n    schema:\n      description: |\n        Text: with colons\n\n        # and a line like a comment\n      items: []\n  - name: v2\n";
        assert_eq!(
            skim(text),
            Some(Outline {
                kind: Some("CustomResourceDefinition"),
                api_version: Some("apiextensions.k8s.io/v1"),
                unread: false,
                has_items: false,
            })
        );
        assert!(skim("kind: List\nitems:\n- a\n").unwrap().has_items);
        let odd = skim("kind: 12\napiVersion: |\n  v1\n").unwrap();
        assert_eq!((odd.kind, odd.api_version, odd.unread), (None, None, true));
        assert_eq!(
            kind_hint("apiVersion: v1\nkind: 'Secret' # x\n"),
            Some("Secret")
        );
    }

    #[test]
    fn leaves_anything_in_doubt_to_the_parser() {
        for text in [
            "a: 1\na: 2\n",          // a key written twice
            "a:\n  b: 1\n c: 2\n",   // a bad dedent
            "a: b\n  c\n",           // a plain scalar on two lines
            "a: b: c\n",             // a mapping where a value goes
            "a: [1, 2]\n",           // a flow sequence
            "a: &x 1\nb: *x\n",      // anchors
            "a: \"x\\ty\"\n",        // an escape
            "a: .inf\n",             // no JSON number
            "yes: 1\n",              // a key that is a boolean
            "a:\tb\n",               // a tab
            "a: 1\r\n",              // CR line ends
            "a: 1\n---\nb: 2\n",     // a second document
            "---#\na: 1\n",          // no marker: a comment needs a space before it
            "- a\n",                 // not a mapping
            "  a: 1\n",              // indented first line
            "a: |\n    x\n  y\n",    // a block scalar's line indented less
            "a: |\n      \n    x\n", // a blank line indented more than content
            "a: 'x\n  y'\n",         // a quoted scalar on two lines
            "a:\n- b\n- - c\n",      // a sequence in a sequence
            "a: x #c\nb: \"q\"x\n",  // content after a closing quote
            "a: 1\n...\n",           // an end marker
            "\u{feff}a: 1\n",        // a byte order mark
            "a: \u{7f}\n",           // a control character
            "",                      // nothing
        ] {
            assert_eq!(skim(text), None, "{text:?}");
        }
    }
}
