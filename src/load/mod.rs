//! Stage 1 of the pipeline: inputs in, documents with positions out.
//!
//! Files, directories and stdin are discovered ([`mod@discover`]), each input is read
//! once and cut into documents without parsing, within [`ReadLimits`] ([`source`],
//! [`split`]), and each document is parsed into a tree that keeps every node's line and
//! column ([`parse`], [`tree`]). Nothing here knows about Kubernetes kinds.

pub mod de;
pub mod discover;
pub mod inputs;
pub mod items;
pub mod json;
pub mod lines;
pub mod list;
pub mod locate;
pub mod open;
pub mod parse;
pub mod path;
pub mod rendered;
pub mod revision;
pub mod scalar;
pub mod skim;
pub mod source;
pub mod split;
pub mod tree;

use std::fmt;
use std::sync::{Arc, OnceLock};

pub use discover::{Input, discover};
pub use inputs::Inputs;
pub use lines::LineStarts;
pub use parse::Limits;
pub use path::JsonPath;
pub use source::{Piece, ReadLimits, STDIN_NAME, Source};
pub use tree::{EntryPart, Node, Pos, Span, Value};

/// The text of one document, kept so a report can show the lines a finding is about.
/// Clones share the text and its line index.
#[derive(Clone, Debug)]
pub struct SourceText {
    /// The input's name as the user gave it (`-` for stdin).
    pub file: Arc<str>,
    /// 1-based line in `file` of the first line of `text`.
    pub first_line: u32,
    /// The document's text, shared by every finding that quotes it.
    pub text: Arc<str>,
    /// Where its lines start, indexed the first time a position is mapped.
    lines: Arc<OnceLock<LineStarts>>,
}

impl SourceText {
    /// The text of a document of `file` whose first line is line `first_line` there.
    pub fn new(file: Arc<str>, first_line: u32, text: Arc<str>) -> SourceText {
        SourceText {
            file,
            first_line,
            text,
            lines: Arc::default(),
        }
    }

    /// Where each line of the text starts: built on first use, once for the document
    /// and every clone of it.
    pub fn lines(&self) -> &LineStarts {
        self.lines.get_or_init(|| LineStarts::new(&self.text))
    }

    /// The byte offset in `text` of a position in the file, clamped to the text. Lines
    /// end at LF, CRLF or a CR alone, as the YAML parser counts them.
    pub fn offset(&self, pos: Pos) -> usize {
        self.lines().offset(&self.text, self.first_line, pos)
    }

    /// The position in the file of a byte offset in `text` (the inverse of
    /// [`SourceText::offset`]): 1-based line and code-point column. An offset at a line
    /// break is the column after the line's last character.
    pub fn pos(&self, offset: usize) -> Pos {
        self.lines().pos(&self.text, self.first_line, offset)
    }
}

/// The offset of the end of the line `from` is on, before its line break. Lines end at
/// LF, CRLF or a CR alone, as the YAML parser counts them; every position and excerpt
/// follows this one rule.
pub fn line_end(text: &str, from: usize) -> usize {
    from + text[from..].find(['\n', '\r']).unwrap_or(text.len() - from)
}

/// The offset of the line after the one `from` is on, or `None` on the last line.
pub fn next_line(text: &str, from: usize) -> Option<usize> {
    let at = line_end(text, from);
    let rest = &text[at..];
    if rest.starts_with("\r\n") {
        Some(at + 2)
    } else {
        (!rest.is_empty()).then_some(at + 1)
    }
}

/// One parsed document of an input.
#[derive(Debug)]
pub struct Document {
    /// 0-based index of the document in its file.
    pub index: usize,
    /// How many documents its input holds, when the run knows it (reports number a
    /// document only when there are several: `document 2 of 5`).
    pub count: Option<usize>,
    /// The text the tree was parsed from, for excerpts.
    pub source: SourceText,
    /// The document's tree, every node with its position.
    pub root: Node,
    /// The template a Helm-rendered document came from (`# Source: chart/templates/x.yaml`).
    pub origin: Option<String>,
    /// Where its input was rendered from, when the run rendered it (a kustomization, a
    /// Helm chart).
    pub rendered: Option<Arc<rendered::Rendering>>,
}

impl Document {
    /// The position of the node at `path` (see [`Node::locate`]), mapped exactly even
    /// inside quoted scalars that hold escapes, since the document's text is at hand.
    pub fn locate(&self, path: &JsonPath, part: EntryPart) -> locate::Located {
        self.root.locate_in(path, part, Some(&self.source))
    }
}

/// An input that could not be read or understood, with where and why.
#[derive(Clone, Debug)]
pub struct InputError {
    /// The input's name as the user gave it (`-` for stdin).
    pub file: Arc<str>,
    /// Where in the file; `None` when the whole input is at fault (missing, unreadable).
    pub pos: Option<Pos>,
    /// What is wrong, as one sentence for the user.
    pub message: String,
    /// A second location that explains the first.
    pub related: Option<Box<(Pos, String)>>,
    /// The document's text, when there is one to show.
    pub source: Option<SourceText>,
}

impl InputError {
    /// An error about a whole input, such as a path that does not exist.
    pub fn whole(file: impl Into<Arc<str>>, message: impl Into<String>) -> Self {
        InputError {
            file: file.into(),
            pos: None,
            message: message.into(),
            related: None,
            source: None,
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pos {
            Some(pos) => write!(
                f,
                "{}:{}:{}: {}",
                self.file, pos.line, pos.column, self.message
            ),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// Parses one chunk of `file` into its documents. `first_index` is the document index of
/// the chunk's first document.
pub fn parse_chunk(
    file: &Arc<str>,
    chunk: split::Chunk,
    first_index: usize,
    limits: &Limits,
) -> Result<Vec<Document>, InputError> {
    parse_text(
        file,
        chunk.first_line,
        Arc::from(chunk.text),
        &chunk.framing,
        first_index,
        limits,
        1,
    )
}

/// Parses the text of one or more documents of `file`, starting at `first_line`, the way
/// `framing` says kubectl reads it: a large `List` on up to `threads` threads ([`list`]).
pub fn parse_text(
    file: &Arc<str>,
    first_line: u32,
    text: Arc<str>,
    framing: &split::Framing,
    first_index: usize,
    limits: &Limits,
    threads: usize,
) -> Result<Vec<Document>, InputError> {
    let source = SourceText::new(file.clone(), first_line, text);
    let keeps_separator = framing.keeps_separator;
    let parsed = match framing.syntax {
        split::Syntax::Yaml => {
            match list::parse_list(&source.text, first_line, keeps_separator, limits, threads) {
                Some(roots) => Ok(roots),
                None => parse::parse_stream_chunk(
                    &source.text,
                    source.first_line,
                    keeps_separator,
                    limits,
                ),
            }
        }
        split::Syntax::Json => {
            match list::parse_json_list(&source.text, first_line, limits, threads) {
                Some(roots) => Ok(roots),
                None => json::parse_document(&source.text, source.first_line, limits),
            }
        }
    };
    let roots = parsed.map_err(|error| {
        let (pos, message, related) = if let Some(pos) =
            template_directive(&source, error.pos.line)
        {
            // Checked first: a chart template often starts with `{{-`, which kubectl
            // takes for a JSON stream. What the parser's message relates to is moot.
            (
                pos,
                "a Helm template, not a manifest: `{{` starts a template directive; render the chart first (helm template RELEASE CHART | kubectl mesh-lifecycle lint -)".to_owned(),
                None,
            )
        } else if let Some(json) = &framing.not_json {
            // A stream that started as JSON and is no YAML either: kubectl reports the
            // JSON error (`YAMLOrJSONDecoder.Decode`), the more useful one for a JSON file.
            (
                Pos {
                    line: json.line,
                    column: json.column,
                },
                format!(
                    "invalid JSON: {} (kubectl reads a stream that starts with `{{` as JSON; as YAML it fails too: {})",
                    json.message, error.message
                ),
                error.related,
            )
        } else {
            (error.pos, error.message, error.related)
        };
        InputError {
            file: file.clone(),
            pos: Some(pos),
            message,
            related,
            source: Some(source.clone()),
        }
    })?;
    let origin = helm_origin(&source.text);
    Ok(roots
        .into_iter()
        .filter(|root| root.value != Value::Null)
        .enumerate()
        .map(|(offset, root)| Document {
            index: first_index + offset,
            count: None,
            rendered: None,
            source: source.clone(),
            root,
            origin: origin.clone(),
        })
        .collect())
}

/// The first Go template directive (`{{`) of a document that failed to parse, when it is
/// on a line at or before the error (`until`) and not in a comment: a chart template
/// given as a manifest (the pre-commit hook matching `templates/`, `lint charts/`). The
/// parser's own message ("a mapping key must be a scalar") would not say so. A rendered
/// manifest may hold `{{` in strings (alerting rules, Argo parameters); it parses, so it
/// never gets here.
fn template_directive(source: &SourceText, until: u32) -> Option<Pos> {
    source
        .text
        .lines()
        .zip(source.first_line..=until)
        .filter(|(line, _)| !line.trim_start().starts_with('#'))
        .find_map(|(line, number)| {
            let at = line.find("{{")?;
            Some(Pos {
                line: number,
                column: line[..at].chars().count() as u32 + 1,
            })
        })
}

/// What passes each limit on the input, and what becomes of it; `{limit}` stands for the
/// limit's size.
const LARGE_DOCUMENT: &str = "document larger than {limit}; skipped without parsing (the API server accepts at most 3 MiB per object; --max-document-size raises the limit)";
const LONG_LINE: &str = "line longer than {limit}; its document is skipped without parsing (--max-line-length raises the limit)";
const LONG_JSON_LINE: &str = "line longer than {limit} in a JSON stream; not read from this line on: where the values on it end is known only by reading all of it (--max-line-length raises the limit)";
const LARGE_INPUT: &str = "input larger than {limit}, the limit on one input; not read from this line on (--max-input-size raises the limit)";

/// Describes a chunk that could not be read as text.
pub fn chunk_error(file: &Arc<str>, error: split::ChunkError) -> InputError {
    use split::ChunkError;
    let at = |line: u32, column: u32| Some(Pos { line, column });
    // A limit passed at `line`: its words, with the limit's size in them.
    let over =
        |line: u32, limit: u64, words: &str| (at(line, 1), words.replace("{limit}", &size(limit)));
    let (pos, message) = match error {
        ChunkError::NotUtf8 { line, column } => (
            at(line, column),
            "not valid UTF-8; Kubernetes manifests must be UTF-8 text".to_owned(),
        ),
        ChunkError::Binary { line } => (
            at(line, 1),
            "contains NUL bytes: a binary file, not YAML; the rest of the file is skipped"
                .to_owned(),
        ),
        ChunkError::TooLarge { first_line, limit } => {
            over(first_line, limit as u64, LARGE_DOCUMENT)
        }
        ChunkError::LineTooLong { line, limit } => over(line, limit as u64, LONG_LINE),
        ChunkError::JsonLineTooLong { line, limit } => over(line, limit as u64, LONG_JSON_LINE),
        ChunkError::InputTooLarge { first_line, limit } => over(first_line, limit, LARGE_INPUT),
        ChunkError::WideEncoding { encoding } => (
            None,
            format!(
                "encoded in {encoding}, not UTF-8; Kubernetes manifests must be UTF-8 text (convert it: iconv -f {encoding} -t UTF-8)"
            ),
        ),
        ChunkError::InvalidJson(invalid) => (
            at(invalid.line, invalid.column),
            format!(
                "invalid JSON: {}; kubectl stops reading this JSON stream here (after two objects it no longer tries YAML)",
                invalid.message
            ),
        ),
        ChunkError::Io(error) => (
            None,
            format!("cannot read: {}", discover::describe_io(&error)),
        ),
    };
    InputError {
        file: file.clone(),
        pos,
        message,
        related: None,
        source: None,
    }
}

/// A byte count as people write it: `16 MiB`, `4 KiB`, `1000 bytes`.
pub fn size(bytes: u64) -> String {
    for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] {
        let scale = 1u64 << shift;
        if bytes >= scale && bytes.is_multiple_of(scale) {
            return format!("{} {unit}", bytes / scale);
        }
    }
    format!("{bytes} bytes")
}

/// Every document of a small file read whole (a kustomization, a patch, a
/// `Chart.yaml`), as far as it parses; `None` when it cannot be read as text.
pub fn parse_file(file: &std::path::Path) -> Option<Vec<Document>> {
    let limit = ReadLimits::default().document_bytes as u64;
    let bytes = open::read_bounded(file, limit)
        .ok()
        .filter(|bytes| bytes.len() as u64 <= limit)?;
    let name: Arc<str> = Arc::from(file.to_string_lossy().as_ref());
    let mut documents = Vec::new();
    for (index, chunk) in split::split_all(&bytes[..], usize::MAX)
        .into_iter()
        .enumerate()
    {
        let parsed = chunk
            .ok()
            .and_then(|chunk| parse_chunk(&name, chunk, index, &Limits::default()).ok());
        documents.extend(parsed.into_iter().flatten());
    }
    Some(documents)
}

/// Helm marks each rendered document with `# Source: <template>` before its content.
fn helm_origin(text: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .take_while(|line| line.is_empty() || line.starts_with('#') || line.starts_with("---"))
        .find_map(|line| line.strip_prefix("# Source:"))
        .map(|source| source.trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_helm_template_a_document_came_from() {
        let text = "---\n# Source: web/templates/deploy.yaml\napiVersion: v1\n";
        assert_eq!(
            helm_origin(text).as_deref(),
            Some("web/templates/deploy.yaml")
        );
        assert_eq!(helm_origin("a: 1\n# Source: late\n"), None);
    }

    #[test]
    fn a_chart_template_is_named_as_one() {
        let file: Arc<str> = Arc::from("templates/deploy.yaml");
        // The first chunk of `text`, cut and framed as the pipeline cuts it.
        let parse = |text: &str| {
            let chunk = split::split_all(text.as_bytes(), 1 << 20)
                .remove(0)
                .unwrap();
            parse_chunk(&file, chunk, 0, &Limits::default())
        };
        let text = "# {{ not this }}\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    {{- include \"web.labels\" . | nindent 4 }}\n";
        let error = parse(text).unwrap_err();
        assert!(
            error.message.contains("a Helm template"),
            "{}",
            error.message
        );
        assert_eq!(error.pos, Some(Pos { line: 6, column: 5 }));
        // A syntax error before any directive is the parser's.
        let error = parse("a: b: c\nd: \"{{ x }}\"\n").unwrap_err();
        assert!(!error.message.contains("Helm"), "{}", error.message);
        // A template that starts with a directive is taken for JSON by kubectl, and
        // is still named a template, not invalid JSON.
        let text = "{{- if .Values.enabled }}\napiVersion: v1\nkind: Pod\n{{- end }}\n";
        let chunks = split::split_all(text.as_bytes(), 1 << 20);
        assert!(chunks[0].as_ref().unwrap().framing.not_json.is_some());
        let error = parse(text).unwrap_err();
        assert!(
            error.message.starts_with("a Helm template"),
            "{}",
            error.message
        );
        assert_eq!(error.pos, Some(Pos { line: 1, column: 1 }));
        // Rendered text may hold `{{` in a string: it parses.
        let text = "kind: ConfigMap\ndata:\n  rule: |\n    {{ $labels.instance }} is down\n";
        assert!(parse(text).is_ok());
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(size(16 << 20), "16 MiB");
        assert_eq!(size(4096), "4 KiB");
        assert_eq!(size(1 << 30), "1 GiB");
        assert_eq!(size(1000), "1000 bytes");
        assert_eq!(size(1536 << 10), "1536 KiB");
    }

    #[test]
    fn offsets_count_characters_within_lines() {
        let source = SourceText::new(Arc::from("x.yaml"), 10, Arc::from("a: é\nbé: 2\n"));
        assert_eq!(
            source.offset(Pos {
                line: 10,
                column: 1
            }),
            0
        );
        assert_eq!(
            source.offset(Pos {
                line: 11,
                column: 1
            }),
            6
        );
        assert_eq!(
            source.offset(Pos {
                line: 11,
                column: 3
            }),
            9
        );
        assert_eq!(
            source.offset(Pos {
                line: 99,
                column: 1
            }),
            source.text.len()
        );
    }

    #[test]
    fn offsets_count_lines_ended_by_a_lone_cr() {
        let source = SourceText::new(Arc::from("x.yaml"), 1, Arc::from("a: 1\rb: é\r\nc: 3\n"));
        assert_eq!(source.offset(Pos { line: 2, column: 4 }), 8);
        assert_eq!(source.offset(Pos { line: 3, column: 1 }), 12);
    }

    #[test]
    fn empty_documents_yield_nothing() {
        let file: Arc<str> = Arc::from("x.yaml");
        let chunk = split::Chunk {
            first_line: 1,
            text: "---\n# only a comment\n".into(),
            framing: split::Framing::default(),
        };
        assert!(
            parse_chunk(&file, chunk, 0, &Limits::default())
                .unwrap()
                .is_empty()
        );
    }
}
