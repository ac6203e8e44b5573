//! Splits a YAML stream into documents without parsing it.
//!
//! A line starting with `---` followed by a space, tab or line end is a document marker
//! wherever it appears: YAML forbids such lines inside any scalar. So the stream can be
//! cut into per-document chunks by looking at line starts alone, which keeps memory
//! bounded by the largest document and lets documents be parsed in parallel. The cut is
//! kubectl's: its `YAMLReader` (k8s.io/apimachinery `pkg/util/yaml/decoder.go`) cuts at
//! `---` lines only, not after `...`, so a chunk holds what kubectl hands to go-yaml as
//! one piece.
//!
//! A stream whose first character is `{` is a stream of JSON values, as kubectl reads it:
//! each value is a chunk of its own, wherever it ends (`{…}{…}` on one line is two), see
//! [`Splitter`].

use std::collections::VecDeque;
use std::io::{self, BufRead};

use super::json::{Scanner, Step};

/// The text of one document and where it starts in its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// 1-based line of the chunk's first line.
    pub first_line: u32,
    /// The document's text, from `first_line` on. A JSON value that starts in the
    /// middle of a line is preceded by spaces for what comes before it on that line, so
    /// that columns count from the start of the line.
    pub text: String,
    /// How kubectl reads the text.
    pub framing: Framing,
}

/// How kubectl reads a chunk, which the text alone does not say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Framing {
    /// YAML, or one value of a JSON stream.
    pub syntax: Syntax,
    /// Whether kubectl's document splitter keeps the chunk's opening `---` line in the
    /// piece it hands to go-yaml: it does only when nothing precedes the line since the
    /// last `---` it cut at (the stream's first line, or a second `---` in a row);
    /// otherwise the line only ends the piece before.
    pub keeps_separator: bool,
    /// Where a stream that started as JSON stopped being JSON, when this YAML chunk is
    /// where kubectl went on as YAML: if it is no YAML either, kubectl reports the JSON
    /// error, and so does the linter.
    pub not_json: Option<Box<InvalidJson>>,
}

impl Default for Framing {
    /// A YAML document on its own, as the YAML specification reads it.
    fn default() -> Self {
        Framing {
            syntax: Syntax::Yaml,
            keeps_separator: true,
            not_json: None,
        }
    }
}

/// A place where a JSON stream is not JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidJson {
    /// 1-based line of the offending character.
    pub line: u32,
    /// 1-based column of the offending character, in characters.
    pub column: u32,
    /// Go's `encoding/json` message, which kubectl prints.
    pub message: String,
}

/// The language of a chunk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Syntax {
    /// A YAML document (kubectl's piece of the stream between `---` lines).
    #[default]
    Yaml,
    /// One JSON value of a JSON stream.
    Json,
}

/// Why a chunk could not be read as text.
#[derive(Debug)]
pub enum ChunkError {
    /// Bytes that are not UTF-8 at `line`/`column`.
    NotUtf8 {
        /// 1-based line of the first bad byte.
        line: u32,
        /// 1-based column of the first bad byte, in characters.
        column: u32,
    },
    /// A NUL byte: this is a binary file, not YAML.
    Binary {
        /// 1-based line of the first NUL byte.
        line: u32,
    },
    /// A UTF-16 or UTF-32 byte order mark: text, but not in UTF-8.
    WideEncoding {
        /// The encoding the mark names (`UTF-16LE`, ...).
        encoding: &'static str,
    },
    /// The document is longer than the limit; it was skipped without being parsed.
    TooLarge {
        /// 1-based line where the document starts.
        first_line: u32,
        /// The limit in bytes.
        limit: usize,
    },
    /// A JSON stream breaks off after two or more values: kubectl stops reading there.
    InvalidJson(InvalidJson),
    /// The input failed while being read.
    Io(io::Error),
}

/// Reads documents from `reader` one at a time.
pub struct Splitter<R> {
    reader: R,
    max_bytes: usize,
    /// Lines read so far.
    line: u32,
    /// The chunk being collected, its first line, and what it holds so far.
    pending: Vec<u8>,
    pending_first_line: u32,
    pending_has_content: bool,
    pending_has_start: bool,
    /// Whether kubectl keeps the pending chunk's `---` line (see [`Chunk`]).
    pending_keeps_separator: bool,
    /// Whether kubectl's splitter holds nothing yet: a `---` line read now opens its
    /// piece instead of ending one.
    kubectl_piece_empty: bool,
    /// The chunk grew past `max_bytes`; its text is dropped until it ends.
    oversized: bool,
    done: bool,
    line_buf: Vec<u8>,
    /// JSON or YAML, once the first character has been seen.
    mode: Mode,
    /// Bytes of white space seen before the mode was decided.
    blank_bytes: usize,
    /// The stream started with a UTF-8 byte order mark (then it is not JSON to kubectl).
    had_bom: bool,
    /// Lines to read again before the reader's (a JSON stream that turned out to be
    /// YAML).
    replay: VecDeque<Vec<u8>>,
    /// Chunks found but not yet handed out (several JSON values can end on one line).
    ready: VecDeque<Result<Chunk, ChunkError>>,
    /// Why a JSON stream went on as YAML, for the first YAML chunk.
    not_json: Option<Box<InvalidJson>>,
}

/// How kubectl reads the stream (`YAMLOrJSONDecoder`, see [`Splitter`]).
#[derive(Clone, Debug)]
enum Mode {
    Undecided,
    Yaml,
    Json(JsonStream),
}

/// A JSON stream being split.
#[derive(Clone, Debug, Default)]
struct JsonStream {
    scanner: Scanner,
    /// Values read so far.
    values: usize,
    /// The line the pending text starts on.
    first_line: u32,
    /// Characters before the pending text on its first line (they belong to the value
    /// before).
    column_offset: usize,
}

impl<R: BufRead> Splitter<R> {
    /// Splits `reader`, refusing documents longer than `max_bytes`.
    pub fn new(reader: R, max_bytes: usize) -> Self {
        Splitter {
            reader,
            max_bytes,
            line: 0,
            pending: Vec::new(),
            pending_first_line: 1,
            pending_has_content: false,
            pending_has_start: false,
            pending_keeps_separator: false,
            kubectl_piece_empty: true,
            oversized: false,
            done: false,
            line_buf: Vec::new(),
            mode: Mode::Undecided,
            blank_bytes: 0,
            had_bom: false,
            replay: VecDeque::new(),
            ready: VecDeque::new(),
            not_json: None,
        }
    }

    /// Reads one line into `line_buf`, keeping at most `max_bytes + 1` bytes of it so a
    /// single enormous line cannot exhaust memory. Returns false at end of input.
    fn read_line(&mut self) -> io::Result<bool> {
        self.line_buf.clear();
        if let Some(line) = self.replay.pop_front() {
            self.line_buf = line;
            return Ok(true);
        }
        let mut any = false;
        loop {
            let available = match self.reader.fill_buf() {
                Ok(buf) => buf,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            if available.is_empty() {
                return Ok(any);
            }
            any = true;
            let (take, found_newline) = match available.iter().position(|&b| b == b'\n') {
                Some(at) => (at + 1, true),
                None => (available.len(), false),
            };
            let room = (self.max_bytes + 1).saturating_sub(self.line_buf.len());
            self.line_buf
                .extend_from_slice(&available[..take.min(room)]);
            self.reader.consume(take);
            if found_newline {
                return Ok(true);
            }
        }
    }

    /// Ends the pending chunk; `None` when there is nothing to hand out.
    fn take_chunk(&mut self) -> Option<Result<Chunk, ChunkError>> {
        let first_line = self.pending_first_line;
        self.pending_has_content = false;
        self.pending_has_start = false;
        if std::mem::take(&mut self.oversized) {
            self.pending.clear();
            return Some(Err(ChunkError::TooLarge {
                first_line,
                limit: self.max_bytes,
            }));
        }
        let bytes = std::mem::take(&mut self.pending);
        if bytes.is_empty() {
            return None;
        }
        let not_json = self.not_json.take();
        let keeps_separator = std::mem::take(&mut self.pending_keeps_separator);
        Some(to_text(bytes, first_line).map(|text| Chunk {
            first_line,
            text,
            framing: Framing {
                syntax: Syntax::Yaml,
                keeps_separator,
                not_json,
            },
        }))
    }

    fn append_line(&mut self) {
        if self.pending.is_empty() && !self.oversized {
            self.pending_first_line = self.line;
        }
        if self.oversized {
            return;
        }
        if self.pending.len() + self.line_buf.len() > self.max_bytes {
            self.oversized = true;
            self.pending = Vec::new();
            return;
        }
        self.pending.extend_from_slice(&self.line_buf);
    }
}

fn to_text(bytes: Vec<u8>, first_line: u32) -> Result<String, ChunkError> {
    String::from_utf8(bytes).map_err(|error| {
        let bytes = error.as_bytes();
        let valid = error.utf8_error().valid_up_to();
        let before = &bytes[..valid];
        let line = first_line + before.iter().filter(|&&b| b == b'\n').count() as u32;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |at| at + 1);
        // Everything before `valid` is UTF-8, so the column counts code points like
        // every other position.
        let column = std::str::from_utf8(&before[line_start..]).map_or(0, |s| s.chars().count());
        ChunkError::NotUtf8 {
            line,
            column: column as u32 + 1,
        }
    })
}

/// The encoding a UTF-16 or UTF-32 byte order mark announces. YAML allows these
/// encodings, but Kubernetes tooling expects UTF-8; files saved by Windows PowerShell's
/// `>` are UTF-16.
fn wide_encoding(start: &[u8]) -> Option<&'static str> {
    match start {
        [0xFF, 0xFE, 0, 0, ..] => Some("UTF-32LE"),
        [0, 0, 0xFE, 0xFF, ..] => Some("UTF-32BE"),
        [0xFF, 0xFE, ..] => Some("UTF-16LE"),
        [0xFE, 0xFF, ..] => Some("UTF-16BE"),
        _ => None,
    }
}

/// What a line means to the splitter.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LineKind {
    /// `---`: starts a document (the line belongs to the new document).
    Start,
    /// Blank, comment, directive or `...`: not content on its own.
    Trivia,
    Content,
}

fn classify(line: &[u8]) -> LineKind {
    let is_marker = |marker: &[u8]| {
        line.strip_prefix(marker)
            .is_some_and(|rest| matches!(rest.first(), None | Some(b' ' | b'\t' | b'\r' | b'\n')))
    };
    if is_marker(b"---") {
        return LineKind::Start;
    }
    let trimmed = line.trim_ascii_start();
    if trimmed.is_empty() || trimmed[0] == b'#' || line[0] == b'%' || is_marker(b"...") {
        LineKind::Trivia
    } else {
        LineKind::Content
    }
}

impl<R: BufRead> Iterator for Splitter<R> {
    type Item = Result<Chunk, ChunkError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(ready) = self.ready.pop_front() {
                return Some(ready);
            }
            if self.done {
                return None;
            }
            match self.read_line() {
                Err(error) => {
                    self.done = true;
                    return Some(Err(ChunkError::Io(error)));
                }
                Ok(false) => {
                    self.done = true;
                    if matches!(self.mode, Mode::Json(_)) {
                        self.json_end();
                        continue;
                    }
                    return self.take_chunk();
                }
                Ok(true) => {}
            }
            self.line += 1;
            if self.line == 1 && self.replay.is_empty() && matches!(self.mode, Mode::Undecided) {
                if self.line_buf.starts_with(b"\xEF\xBB\xBF") {
                    self.line_buf.drain(..3);
                    self.had_bom = true;
                } else if let Some(encoding) = wide_encoding(&self.line_buf) {
                    self.done = true;
                    return Some(Err(ChunkError::WideEncoding { encoding }));
                }
            }
            if self.line_buf.contains(&0) {
                self.done = true;
                return Some(Err(ChunkError::Binary { line: self.line }));
            }
            if matches!(self.mode, Mode::Undecided) {
                self.decide_mode();
            }
            if matches!(self.mode, Mode::Json(_)) {
                self.json_line();
                continue;
            }
            let kind = classify(&self.line_buf);
            // Blank lines, comments and directives before a `---` belong to the document
            // it opens; anything else before it is a document of its own.
            let emitted = if kind == LineKind::Start
                && (self.pending_has_content || self.pending_has_start)
            {
                self.take_chunk()
            } else {
                None
            };
            self.append_line();
            // kubectl's YAMLReader: a line starting with `---` ends the piece it holds,
            // or opens the next one when it holds nothing; any other line is kept.
            let keeps_separator = self.kubectl_piece_empty;
            self.kubectl_piece_empty = self.line_buf.starts_with(b"---") && !keeps_separator;
            match kind {
                LineKind::Start => {
                    self.pending_has_start = true;
                    self.pending_keeps_separator = keeps_separator;
                }
                LineKind::Content => self.pending_has_content = true,
                LineKind::Trivia => {}
            }
            if emitted.is_some() {
                return emitted;
            }
        }
    }
}

/// kubectl's reader for `-f` (k8s.io/apimachinery `pkg/util/yaml/decoder.go`,
/// `YAMLOrJSONDecoder`, v0.33 to v0.35, kubectl 1.33 to 1.35): a stream whose first
/// character, after white space and within its first 4096 bytes, is `{` is read as JSON
/// values one after another; if the first or the second value is not valid JSON, the
/// rest from where it starts is read as YAML instead, and after two values a JSON error
/// ends the stream. kubectl 1.32 and older read such a stream as JSON to its end.
impl<R: BufRead> Splitter<R> {
    /// `GuessJSONStream`: JSON when the first character that is not white space (Go's
    /// `unicode.IsSpace`, as Rust's `char::is_whitespace`) is `{`.
    fn decide_mode(&mut self) {
        const PEEK: usize = 4096;
        let text = String::from_utf8_lossy(&self.line_buf);
        let first = text
            .char_indices()
            .find(|(_, c)| !c.is_whitespace())
            .map(|(at, c)| (text[..at].len(), c));
        self.mode = match first {
            None if self.blank_bytes + self.line_buf.len() < PEEK => {
                self.blank_bytes += self.line_buf.len();
                return;
            }
            Some((at, '{')) if !self.had_bom && self.blank_bytes + at < PEEK => {
                Mode::Json(JsonStream {
                    first_line: if self.pending.is_empty() {
                        self.line
                    } else {
                        self.pending_first_line
                    },
                    ..JsonStream::default()
                })
            }
            _ => Mode::Yaml,
        };
    }

    /// Scans one line of a JSON stream; each value that ends on it becomes a chunk.
    fn json_line(&mut self) {
        let line = std::mem::take(&mut self.line_buf);
        let mut from = 0;
        let mut at = 0;
        while at < line.len() {
            let Mode::Json(json) = &mut self.mode else {
                return;
            };
            match json.scanner.step(line[at]) {
                Step::Continue => at += 1,
                Step::EndWith => {
                    at += 1;
                    self.json_value(&line, from, at);
                    from = at;
                }
                Step::EndBefore => {
                    self.json_value(&line, from, at);
                    from = at;
                }
                Step::Error(message) => {
                    let column = String::from_utf8_lossy(&line[..at]).chars().count();
                    self.json_error(column as u32 + 1, message, &line[from..]);
                    return;
                }
            }
        }
        self.json_append(&line[from..]);
        self.line_buf = line;
    }

    /// The end of a JSON stream: a number may end there, anything else open is cut short.
    fn json_end(&mut self) {
        let Mode::Json(json) = &mut self.mode else {
            return;
        };
        match json.scanner.finish() {
            Step::Error(message) => {
                let last_line = self.pending.rsplit(|&b| b == b'\n').next().unwrap_or(&[]);
                let column = String::from_utf8_lossy(last_line).chars().count();
                self.json_error(column as u32 + 1, message, &[]);
            }
            Step::EndBefore => self.json_value(&[], 0, 0),
            _ => {}
        }
    }

    fn json_append(&mut self, bytes: &[u8]) {
        if self.oversized {
            return;
        }
        if self.pending.len() + bytes.len() > self.max_bytes {
            self.oversized = true;
            self.pending = Vec::new();
            return;
        }
        self.pending.extend_from_slice(bytes);
    }

    /// A JSON value ends at `line[..end]`: hand out the pending text as a chunk, and
    /// start the next one after it on the same line.
    fn json_value(&mut self, line: &[u8], from: usize, end: usize) {
        self.json_append(&line[from..end]);
        let Mode::Json(json) = &mut self.mode else {
            return;
        };
        json.values += 1;
        let padding = std::mem::replace(
            &mut json.column_offset,
            String::from_utf8_lossy(&line[..end]).chars().count(),
        );
        let first_line = std::mem::replace(&mut json.first_line, self.line);
        let chunk = if std::mem::take(&mut self.oversized) {
            Err(ChunkError::TooLarge {
                first_line,
                limit: self.max_bytes,
            })
        } else {
            let mut bytes = vec![b' '; padding];
            bytes.append(&mut self.pending);
            to_text(bytes, first_line).map(|text| Chunk {
                first_line,
                text,
                framing: Framing {
                    syntax: Syntax::Json,
                    keeps_separator: false,
                    not_json: None,
                },
            })
        };
        self.pending.clear();
        self.ready.push_back(chunk);
    }

    /// The JSON stream cannot go on at `column` of the current line; `rest` is the rest
    /// of that line from where the pending text stopped.
    fn json_error(&mut self, column: u32, message: String, rest: &[u8]) {
        let Mode::Json(json) = &mut self.mode else {
            return;
        };
        let invalid = InvalidJson {
            line: self.line,
            column,
            message,
        };
        if json.values >= 2 || self.oversized {
            let error = if self.oversized {
                ChunkError::TooLarge {
                    first_line: json.first_line,
                    limit: self.max_bytes,
                }
            } else {
                ChunkError::InvalidJson(invalid)
            };
            self.ready.push_back(Err(error));
            self.done = true;
            return;
        }
        self.not_json = Some(Box::new(invalid));
        // Read again as YAML from where the value began: the pending text and the rest
        // of this line, its first line indented back to its column.
        let mut again = vec![b' '; json.column_offset];
        self.line = json.first_line.saturating_sub(1);
        self.mode = Mode::Yaml;
        again.append(&mut self.pending);
        again.extend_from_slice(rest);
        self.pending_first_line = self.line + 1;
        for piece in again.split_inclusive(|&b| b == b'\n') {
            self.replay.push_back(piece.to_vec());
        }
    }
}

/// Splits everything `reader` yields, for callers that want all chunks at once.
pub fn split_all<R: BufRead>(reader: R, max_bytes: usize) -> Vec<Result<Chunk, ChunkError>> {
    Splitter::new(reader, max_bytes).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(text: &str) -> Vec<(u32, String)> {
        split_all(text.as_bytes(), 1 << 20)
            .into_iter()
            .map(|chunk| {
                let chunk = chunk.expect("text chunk");
                (chunk.first_line, chunk.text)
            })
            .collect()
    }

    #[test]
    fn splits_on_document_markers() {
        let got = chunks("a: 1\n---\nb: 2\n--- \nc: 3\n");
        assert_eq!(
            got,
            vec![
                (1, "a: 1\n".into()),
                (2, "---\nb: 2\n".into()),
                (4, "--- \nc: 3\n".into())
            ]
        );
    }

    #[test]
    fn a_separator_opens_kubectl_s_piece_only_when_nothing_precedes_it() {
        // YAMLReader.Read writes a `---` line into an empty buffer, and returns the
        // buffer at a `---` line otherwise (the line is then consumed).
        let keeps = |text: &str| -> Vec<bool> {
            split_all(text.as_bytes(), 1 << 20)
                .into_iter()
                .map(|chunk| chunk.unwrap().framing.keeps_separator)
                .collect()
        };
        assert_eq!(keeps("---\na: 1\n---\nb: 2\n"), [true, false]);
        assert_eq!(keeps("a: 1\n---\n---\nb: 2\n"), [false, false, true]);
        assert_eq!(keeps("# c\n---\na: 1\n"), [false]);
    }

    #[test]
    fn leading_comments_join_the_first_document() {
        let got = chunks("# Source: x\n---\na: 1\n");
        assert_eq!(got, vec![(1, "# Source: x\n---\na: 1\n".into())]);
    }

    #[test]
    fn markers_need_a_separator() {
        let got = chunks("a: |\n  x\n---x: 1\n");
        assert_eq!(got.len(), 1);
    }

    #[test]
    fn end_markers_do_not_cut_the_stream() {
        // kubectl cuts at `---` only: what follows `...` is in the same piece, which
        // go-yaml reads no further than its first document.
        let got = chunks("a: 1\n...\nb: 2\n---\nc: 3\n");
        assert_eq!(
            got,
            vec![(1, "a: 1\n...\nb: 2\n".into()), (4, "---\nc: 3\n".into())]
        );
    }

    #[test]
    fn empty_documents_are_kept_as_chunks() {
        let got = chunks("---\n---\na: 1\n");
        assert_eq!(got, vec![(1, "---\n".into()), (2, "---\na: 1\n".into())]);
    }

    #[test]
    fn byte_order_mark_is_dropped() {
        let got = chunks("\u{feff}a: 1\n");
        assert_eq!(got, vec![(1, "a: 1\n".into())]);
    }

    #[test]
    fn oversized_documents_are_skipped_and_reading_goes_on() {
        let text = format!("a: {}\n---\nb: 1\n", "x".repeat(100));
        let got = split_all(text.as_bytes(), 50);
        assert!(matches!(
            got[0],
            Err(ChunkError::TooLarge { first_line: 1, .. })
        ));
        assert_eq!(got[1].as_ref().unwrap().text, "---\nb: 1\n");
    }

    #[test]
    fn invalid_utf8_is_located() {
        let got = split_all(&b"a: 1\nb: \xff\n"[..], 1 << 20);
        assert!(matches!(
            got[0],
            Err(ChunkError::NotUtf8 { line: 2, column: 4 })
        ));
        let got = split_all(
            "a: 1\nb: é\u{2014}"
                .as_bytes()
                .iter()
                .copied()
                .chain([0xff])
                .collect::<Vec<_>>()
                .as_slice(),
            1 << 20,
        );
        assert!(matches!(
            got[0],
            Err(ChunkError::NotUtf8 { line: 2, column: 6 })
        ));
    }

    #[test]
    fn wide_encodings_are_named() {
        let got = split_all(&b"\xFF\xFEa\x00:\x00"[..], 1 << 20);
        assert!(matches!(
            got[..],
            [Err(ChunkError::WideEncoding {
                encoding: "UTF-16LE"
            })]
        ));
        let got = split_all(&b"\x00\x00\xFE\xFF\x00\x00\x00a"[..], 1 << 20);
        assert!(matches!(
            got[..],
            [Err(ChunkError::WideEncoding {
                encoding: "UTF-32BE"
            })]
        ));
    }

    #[test]
    fn nul_bytes_mean_binary() {
        let got = split_all(&b"\x7fELF\x00\x01"[..], 1 << 20);
        assert!(matches!(got[0], Err(ChunkError::Binary { line: 1 })));
    }
}
