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
    /// A line of the document is longer than the limit; the document was skipped.
    LineTooLong {
        /// 1-based line that is too long.
        line: u32,
        /// The limit in bytes.
        limit: usize,
    },
    /// A line of a JSON stream is longer than the line limit. Its values may end
    /// anywhere in it, so where the next one starts is unknown: the stream is read no
    /// further.
    JsonLineTooLong {
        /// 1-based line that is too long.
        line: u32,
        /// The limit in bytes.
        limit: usize,
    },
    /// The input is longer than the limit: the document that crosses it and everything
    /// after are not read.
    InputTooLarge {
        /// 1-based line where the unread part starts.
        first_line: u32,
        /// The limit in bytes.
        limit: u64,
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
    max_line_bytes: usize,
    max_input_bytes: u64,
    /// Bytes consumed from `reader` so far.
    consumed: u64,
    /// Lines read so far.
    line: u32,
    /// The chunk being collected, its first line, and what it holds so far.
    pending: Vec<u8>,
    pending_first_line: u32,
    pending_has_content: bool,
    pending_has_start: bool,
    /// Why the chunk being collected is refused (a limit it crossed); its text is
    /// dropped until it ends.
    refused: Option<ChunkError>,
    /// Whether the chunk being collected is longer than `max_bytes`: it is kept, in case
    /// it is a `List` whose items and own keys each fit (what kubectl prints for a whole
    /// cluster), and refused at its end otherwise ([`fits_as_list`]).
    over_limit: bool,
    /// Whether kubectl keeps the pending chunk's `---` line (see [`Chunk`]).
    pending_keeps_separator: bool,
    /// Whether kubectl's splitter holds nothing yet: a `---` line read now opens its
    /// piece instead of ending one.
    kubectl_piece_empty: bool,
    done: bool,
    /// The reader has reported its end; it is not asked again (a terminal would wait
    /// for more).
    at_end: bool,
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
    /// A JSON stream's last value, held back until the stream shows what follows it:
    /// the line break and blank lines after the stream's last value are its text too,
    /// so that the chunks hold the whole input (`--fix` writes back what it read).
    held: Option<Result<Chunk, ChunkError>>,
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
    /// The line the value being scanned starts on (after the white space before it),
    /// where an error about all of it points.
    value_line: u32,
    /// Characters before the pending text on its first line (they belong to the value
    /// before).
    column_offset: usize,
}

/// What [`Splitter::read_line`] found.
enum LineRead {
    /// A line (possibly cut short: see the limits) is in `line_buf`.
    Line,
    /// The input has ended.
    End,
    /// The input went past `max_input_bytes`.
    OverLimit,
}

impl<R: BufRead> Splitter<R> {
    /// Splits `reader`, refusing documents longer than `max_bytes`. Lines and the whole
    /// input are unbounded until [`Self::max_line_bytes`] and [`Self::max_input_bytes`]
    /// bound them.
    pub fn new(reader: R, max_bytes: usize) -> Self {
        Splitter {
            reader,
            max_bytes,
            max_line_bytes: usize::MAX,
            max_input_bytes: u64::MAX,
            consumed: 0,
            line: 0,
            pending: Vec::new(),
            pending_first_line: 1,
            pending_has_content: false,
            pending_has_start: false,
            refused: None,
            over_limit: false,
            pending_keeps_separator: false,
            kubectl_piece_empty: true,
            done: false,
            at_end: false,
            line_buf: Vec::new(),
            mode: Mode::Undecided,
            blank_bytes: 0,
            had_bom: false,
            replay: VecDeque::new(),
            ready: VecDeque::new(),
            held: None,
            not_json: None,
        }
    }

    /// Refuses a document with a line longer than `limit` bytes.
    pub fn max_line_bytes(mut self, limit: usize) -> Self {
        self.max_line_bytes = limit;
        self
    }

    /// Stops reading after `limit` bytes: an endless stream (`yes | lint -`) ends there.
    pub fn max_input_bytes(mut self, limit: u64) -> Self {
        self.max_input_bytes = limit;
        self
    }

    /// Reads one line into `line_buf`, keeping at most one byte more than the limits
    /// allow, so a single enormous line cannot exhaust memory: the line limit, and in
    /// YAML the document limit too. A line of a JSON stream is kept whole up to the line
    /// limit, since values may end anywhere in it (`{…}{…}`) and the scanner must see
    /// every byte to find where. A NUL byte ends the line at once: the input is binary
    /// and will not be read further (without that, `/dev/zero` would be read up to the
    /// input limit).
    ///
    /// Lines to read again come first: they count once towards the input limit, and
    /// are checked against the document and line limits as they are collected, like
    /// any other line.
    fn read_line(&mut self) -> io::Result<LineRead> {
        self.line_buf.clear();
        if let Some(line) = self.replay.pop_front() {
            self.line_buf = line;
            return Ok(LineRead::Line);
        }
        if self.at_end {
            return Ok(LineRead::End);
        }
        let keep = match self.mode {
            Mode::Yaml => self.max_bytes.min(self.max_line_bytes),
            // The first line that is not blank decides the mode; it may be JSON.
            Mode::Undecided | Mode::Json(_) => self.max_line_bytes,
        }
        .saturating_add(1);
        let mut any = false;
        loop {
            let available = match self.reader.fill_buf() {
                Ok(buf) => buf,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            if available.is_empty() {
                self.at_end = true;
                return Ok(if any { LineRead::Line } else { LineRead::End });
            }
            any = true;
            let (take, found_newline) = match available.iter().position(|&b| b == b'\n') {
                Some(at) => (at + 1, true),
                None => (available.len(), false),
            };
            let room = keep.saturating_sub(self.line_buf.len());
            let kept = &available[..take.min(room)];
            let binary = kept.contains(&0);
            self.line_buf.extend_from_slice(kept);
            self.reader.consume(take);
            self.consumed = self.consumed.saturating_add(take as u64);
            if self.consumed > self.max_input_bytes {
                return Ok(LineRead::OverLimit);
            }
            if found_newline || binary {
                return Ok(LineRead::Line);
            }
        }
    }

    /// Ends the pending chunk; `None` when there is nothing to hand out.
    fn take_chunk(&mut self) -> Option<Result<Chunk, ChunkError>> {
        let first_line = self.pending_first_line;
        self.pending_has_content = false;
        self.pending_has_start = false;
        let keeps_separator = std::mem::take(&mut self.pending_keeps_separator);
        // Only the chunk where a JSON stream went on as YAML: not the next one, when
        // this one is refused.
        let not_json = self.not_json.take();
        let over_limit = std::mem::take(&mut self.over_limit);
        if let Some(refused) = self.refused.take() {
            self.pending.clear();
            return Some(Err(refused));
        }
        let bytes = std::mem::take(&mut self.pending);
        if bytes.is_empty() {
            return None;
        }
        let framing = Framing {
            syntax: Syntax::Yaml,
            keeps_separator,
            not_json,
        };
        Some(to_chunk(
            bytes,
            first_line,
            framing,
            over_limit,
            self.max_bytes,
            first_line,
        ))
    }

    fn append_line(&mut self) {
        if self.pending.is_empty() && self.refused.is_none() {
            self.pending_first_line = self.line;
        }
        if self.refused.is_some() {
            return;
        }
        if self.line_buf.len() > self.max_line_bytes {
            self.refused = Some(ChunkError::LineTooLong {
                line: self.line,
                limit: self.max_line_bytes,
            });
        } else {
            self.over_limit |= self.pending.len() + self.line_buf.len() > self.max_bytes;
            self.pending.extend_from_slice(&self.line_buf);
            return;
        }
        self.pending = Vec::new();
    }

    /// Where what the input limit leaves unread starts: the document or JSON value
    /// being read, which the line being read belongs to, or else that line.
    fn unread_from(&self) -> u32 {
        let reading = match &self.mode {
            Mode::Json(json) => json.scanner.started() || self.refused.is_some(),
            Mode::Yaml | Mode::Undecided => !self.pending.is_empty() || self.refused.is_some(),
        };
        match &self.mode {
            Mode::Json(json) if reading => json.value_line,
            _ if reading => self.pending_first_line,
            _ => self.line + 1,
        }
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
                Ok(LineRead::End) if matches!(self.mode, Mode::Json(_)) => {
                    // The stream may end inside its first value, which is then read
                    // again as YAML.
                    self.json_end();
                    self.done = matches!(self.mode, Mode::Json(_));
                    continue;
                }
                Ok(LineRead::End) => {
                    self.done = true;
                    return self.take_chunk();
                }
                Ok(LineRead::OverLimit) => {
                    self.done = true;
                    let first_line = self.unread_from();
                    self.pending = Vec::new();
                    self.refused = None;
                    self.over_limit = false;
                    self.over_limit = false;
                    return Some(Err(ChunkError::InputTooLarge {
                        first_line,
                        limit: self.max_input_bytes,
                    }));
                }
                Ok(LineRead::Line) => {}
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

    /// Scans one line of a JSON stream; each value that ends on it becomes a chunk. A
    /// line over the line limit was cut short: the values that end in what was kept
    /// are read, and the stream ends there.
    fn json_line(&mut self) {
        let line = std::mem::take(&mut self.line_buf);
        let cut = line.len() > self.max_line_bytes;
        let mut from = 0;
        let mut at = 0;
        while at < line.len() {
            let Mode::Json(json) = &mut self.mode else {
                return;
            };
            let run = json.scanner.plain_run(&line[at..]);
            if run > 0 {
                at += run;
                continue;
            }
            let between_values = !json.scanner.started();
            let step = json.scanner.step(line[at]);
            let starts_value = between_values && json.scanner.started();
            if starts_value {
                json.value_line = self.line;
                self.release_held();
            }
            match step {
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
                    let at = (self.line, column as u32 + 1);
                    self.json_error(at, message, &line[from..]);
                    return;
                }
            }
        }
        if cut {
            self.release_held();
            self.pending = Vec::new();
            self.refused = None;
            self.over_limit = false;
            self.ready.push_back(Err(ChunkError::JsonLineTooLong {
                line: self.line,
                limit: self.max_line_bytes,
            }));
            self.done = true;
            return;
        }
        self.json_append(&line[from..]);
        self.line_buf = line;
    }

    /// The end of a JSON stream: a number may end there, anything else open is cut
    /// short. What follows the last value (its final line break) joins its text.
    fn json_end(&mut self) {
        let Mode::Json(json) = &mut self.mode else {
            return;
        };
        match json.scanner.finish() {
            Step::Error(_) => {
                // Reported at the value's last character, where the user has to look.
                let content = self.pending.trim_ascii_end();
                let breaks = content.iter().filter(|&&b| b == b'\n').count();
                let last_line = content.rsplit(|&b| b == b'\n').next().unwrap_or(&[]);
                let mut column = String::from_utf8_lossy(last_line).chars().count();
                if breaks == 0 {
                    column += json.column_offset;
                }
                let line = json.first_line + breaks as u32;
                // encoding/json's `Decoder`, which kubectl reads the stream with, reports
                // a value cut short by the end as `io.ErrUnexpectedEOF` (stream.go,
                // `Decoder.readValue`): kubectl 1.27 to 1.33 print "unexpected EOF".
                self.json_error((line, column.max(1) as u32), "unexpected EOF".into(), &[]);
            }
            Step::EndBefore => self.json_value(&[], 0, 0),
            _ => {
                let tail = std::mem::take(&mut self.pending);
                if let Some(Ok(last)) = &mut self.held
                    && let Ok(tail) = std::str::from_utf8(&tail)
                {
                    last.text.push_str(tail);
                }
            }
        }
        self.release_held();
    }

    /// Hands out the value held back (`held`): what comes next is another
    /// value, an error or the end.
    fn release_held(&mut self) {
        if let Some(chunk) = self.held.take() {
            self.ready.push_back(chunk);
        }
    }

    /// Adds to the pending value's text, noting when it is over the document limit (a
    /// `List` may be, [`fits_as_list`]).
    fn json_append(&mut self, bytes: &[u8]) {
        if self.refused.is_some() {
            return;
        }
        self.over_limit |= self.pending.len() + bytes.len() > self.max_bytes;
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
        let value_line = json.value_line;
        let over_limit = std::mem::take(&mut self.over_limit);
        let max_bytes = self.max_bytes;
        let chunk = if let Some(refused) = self.refused.take() {
            Err(refused)
        } else {
            let mut bytes = vec![b' '; padding];
            bytes.append(&mut self.pending);
            let framing = Framing {
                syntax: Syntax::Json,
                keeps_separator: false,
                not_json: None,
            };
            to_chunk(
                bytes, first_line, framing, over_limit, max_bytes, value_line,
            )
        };
        self.pending.clear();
        self.release_held();
        self.held = Some(chunk);
    }

    /// The JSON stream cannot go on at `(line, column)`; `rest` is the rest of the
    /// current line from where the pending text stopped.
    fn json_error(&mut self, (line, column): (u32, u32), message: String, rest: &[u8]) {
        self.release_held();
        let Mode::Json(json) = &mut self.mode else {
            return;
        };
        let invalid = InvalidJson {
            line,
            column,
            message,
        };
        if json.values >= 2 {
            // kubectl's error, even for a value too large to hold: it is why nothing
            // after it is read.
            self.refused = None;
            self.over_limit = false;
            self.pending = Vec::new();
            self.ready.push_back(Err(ChunkError::InvalidJson(invalid)));
            self.done = true;
            return;
        }
        let first_line = json.first_line;
        let padding = json.column_offset;
        self.mode = Mode::Yaml;
        self.pending_first_line = first_line;
        if self.refused.is_some() {
            // The value was over the document limit, so its text is gone: the YAML
            // document it starts is refused as well, and only the rest of this line
            // (all of it: a refused value began on a line before) is read again, so
            // that the document ends where YAML ends it.
            self.pending_has_content = true;
            if !rest.is_empty() {
                self.line -= 1;
                self.replay.push_back(rest.to_vec());
            }
            return;
        }
        self.not_json = Some(Box::new(invalid));
        // Its lines are counted again as they are read again.
        self.over_limit = false;
        // Read again as YAML from where the value began: the pending text and the rest
        // of this line, its first line indented back to its column.
        let mut again = vec![b' '; padding];
        again.append(&mut self.pending);
        again.extend_from_slice(rest);
        self.line = first_line.saturating_sub(1);
        for piece in again.split_inclusive(|&b| b == b'\n') {
            self.replay.push_back(piece.to_vec());
        }
    }
}

/// Whether `text`, a document longer than the document limit `max_bytes`, is a `List`
/// whose items and own keys each fit in it, as kubectl prints a whole cluster (`kubectl
/// get -A -o yaml`, `-o json`): such a document is read item by item, so the limit holds
/// for each item; the input limit bounds the whole.
fn fits_as_list(text: &str, max_bytes: usize) -> bool {
    super::list::Items::of(text).is_some_and(|items| {
        items.own_bytes(text) <= max_bytes
            && (0..items.len()).all(|index| items.range(index).len() <= max_bytes)
    })
}

/// The chunk of `bytes` from `first_line`, read as `framing` says, unless its bytes are
/// not UTF-8 or it is `over_limit` and no `List` whose items fit ([`within_limit`]): then
/// the error, a `TooLarge` one naming `limit_line`.
fn to_chunk(
    bytes: Vec<u8>,
    first_line: u32,
    framing: Framing,
    over_limit: bool,
    max_bytes: usize,
    limit_line: u32,
) -> Result<Chunk, ChunkError> {
    to_text(bytes, first_line)
        .and_then(|text| within_limit(text, over_limit, max_bytes, limit_line))
        .map(|text| Chunk {
            first_line,
            text,
            framing,
        })
}

/// `text`, a chunk starting at `first_line`, unless it is `over_limit` (longer than
/// `max_bytes`) and no `List` whose items fit ([`fits_as_list`]): then the error.
fn within_limit(
    text: String,
    over_limit: bool,
    max_bytes: usize,
    first_line: u32,
) -> Result<String, ChunkError> {
    if over_limit && !fits_as_list(&text, max_bytes) {
        return Err(ChunkError::TooLarge {
            first_line,
            limit: max_bytes,
        });
    }
    Ok(text)
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

    /// Where kubectl cuts a stream into pieces, and the line each piece starts on.
    #[test]
    fn pieces_and_their_first_lines() {
        let cases: [(&str, &[(u32, &str)]); 5] = [
            // A `---` line, with trailing blanks or not, starts the next document.
            (
                "a: 1\n---\nb: 2\n--- \nc: 3\n",
                &[(1, "a: 1\n"), (2, "---\nb: 2\n"), (4, "--- \nc: 3\n")],
            ),
            // Leading comments join the first document.
            (
                "# Source: x\n---\na: 1\n",
                &[(1, "# Source: x\n---\na: 1\n")],
            ),
            // kubectl cuts at `---` only: what follows `...` is in the same piece, which
            // go-yaml reads no further than its first document.
            (
                "a: 1\n...\nb: 2\n---\nc: 3\n",
                &[(1, "a: 1\n...\nb: 2\n"), (4, "---\nc: 3\n")],
            ),
            // Empty documents are kept as chunks.
            ("---\n---\na: 1\n", &[(1, "---\n"), (2, "---\na: 1\n")]),
            // A byte order mark is dropped.
            ("\u{feff}a: 1\n", &[(1, "a: 1\n")]),
        ];
        for (text, pieces) in cases {
            let pieces: Vec<(u32, String)> = pieces
                .iter()
                .map(|&(line, piece)| (line, piece.to_owned()))
                .collect();
            assert_eq!(chunks(text), pieces, "{text:?}");
        }
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
    fn markers_need_a_separator() {
        let got = chunks("a: |\n  x\n---x: 1\n");
        assert_eq!(got.len(), 1);
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
    fn documents_with_a_line_over_the_limit_are_skipped() {
        let text = format!("a: 1\n---\nb: {}\nc: 2\n---\nd: 3\n", "x".repeat(100));
        let got: Vec<_> = Splitter::new(text.as_bytes(), 1 << 20)
            .max_line_bytes(50)
            .collect();
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].as_ref().unwrap().text, "a: 1\n");
        assert!(matches!(
            got[1],
            Err(ChunkError::LineTooLong { line: 3, limit: 50 })
        ));
        assert_eq!(got[2].as_ref().unwrap().text, "---\nd: 3\n");
    }

    #[test]
    fn reading_stops_at_the_input_limit() {
        // 12 bytes of whole documents, then a document the limit cuts.
        let text = "a: 1\n---\nb: 2\nc: 3\n";
        let got: Vec<_> = Splitter::new(text.as_bytes(), 1 << 20)
            .max_input_bytes(12)
            .collect();
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0].as_ref().unwrap().text, "a: 1\n");
        assert!(matches!(
            got[1],
            Err(ChunkError::InputTooLarge {
                first_line: 2,
                limit: 12
            })
        ));
        let exact: Vec<_> = Splitter::new(text.as_bytes(), 1 << 20)
            .max_input_bytes(text.len() as u64)
            .collect();
        assert!(exact.iter().all(Result::is_ok), "at the limit is within it");
    }

    #[test]
    fn an_endless_line_ends_at_the_input_limit() {
        let endless = std::io::BufReader::new(std::io::repeat(b'x'));
        let mut splitter = Splitter::new(endless, 1 << 20).max_input_bytes(1 << 22);
        assert!(matches!(
            splitter.next(),
            Some(Err(ChunkError::InputTooLarge { first_line: 1, .. }))
        ));
        assert!(splitter.next().is_none());
        let zeros = std::io::BufReader::new(std::io::repeat(0));
        let mut splitter = Splitter::new(zeros, 1 << 20);
        assert!(
            matches!(splitter.next(), Some(Err(ChunkError::Binary { line: 1 }))),
            "NUL bytes end even an unbounded read at once"
        );
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

    /// The chunks of `text` split with a document and a line limit, each as its first
    /// line and syntax, or its error.
    fn limited(text: &str, document: usize, line: usize) -> Vec<Result<(u32, Syntax), String>> {
        Splitter::new(text.as_bytes(), document)
            .max_line_bytes(line)
            .map(|chunk| {
                chunk
                    .map(|chunk| (chunk.first_line, chunk.framing.syntax))
                    .map_err(|error| format!("{error:?}"))
            })
            .collect()
    }

    #[test]
    fn json_values_over_the_document_limit_are_skipped_and_reading_goes_on() {
        let big = "x".repeat(100);
        let text = format!("{{\n\"a\": \"{big}\"\n}}\n{{\"b\": 1}}\n");
        assert_eq!(
            limited(&text, 50, 1 << 20),
            [
                Err("TooLarge { first_line: 1, limit: 50 }".into()),
                // From the end of the value before, so that columns count from the
                // line's start.
                Ok((3, Syntax::Json))
            ]
        );
        // On one line, longer than a document but within the line limit: the line is
        // held whole, so the values after the large one are found.
        let text = format!("{{\"a\": 1}}{{\"b\": \"{big}\"}}{{\"c\": 3}}\n");
        assert_eq!(
            limited(&text, 50, 1 << 20),
            [
                Ok((1, Syntax::Json)),
                Err("TooLarge { first_line: 1, limit: 50 }".into()),
                Ok((1, Syntax::Json))
            ]
        );
    }

    #[test]
    fn a_json_line_over_the_line_limit_ends_the_stream() {
        // The values that end before the cut are read; where the one cut short ends,
        // and so where the next begins, is not known.
        let text = format!(
            "{{\"a\": 1}}{{\"b\": 2}}{{\"c\": \"{}\"}}{{\"d\": 4}}\n{{\"e\": 5}}\n",
            "x".repeat(100)
        );
        assert_eq!(
            limited(&text, 1 << 20, 60),
            [
                Ok((1, Syntax::Json)),
                Ok((1, Syntax::Json)),
                Err("JsonLineTooLong { line: 1, limit: 60 }".into())
            ]
        );
    }

    #[test]
    fn the_input_limit_ends_a_json_stream_at_the_value_it_cuts() {
        let text = "{\"a\": 1}\n{\n\"b\": 2\n}\n";
        let got: Vec<_> = Splitter::new(text.as_bytes(), 1 << 20)
            .max_input_bytes(12)
            .map(|chunk| chunk.map(|chunk| chunk.framing.syntax))
            .collect();
        assert!(matches!(got[0], Ok(Syntax::Json)), "{got:?}");
        assert!(
            matches!(
                got[1],
                Err(ChunkError::InputTooLarge {
                    first_line: 2,
                    limit: 12
                })
            ),
            "{got:?}"
        );
        assert_eq!(got.len(), 2);
    }

    #[test]
    fn json_read_again_as_yaml_keeps_the_limits() {
        // Not JSON (`b` is no key string): kubectl reads it again as YAML, from line 1.
        let text = "{\"a\": 1,\nb: 2}\n---\nc: 3\n";
        let got = split_all(text.as_bytes(), 1 << 20);
        let first = got[0].as_ref().unwrap();
        assert_eq!(
            (first.first_line, first.text.as_str()),
            (1, "{\"a\": 1,\nb: 2}\n")
        );
        assert_eq!(first.framing.syntax, Syntax::Yaml);
        assert!(first.framing.not_json.is_some());
        // Read again, the lines are over the document limit: refused, and the next
        // document is not taken for the one where JSON failed.
        let got = split_all(text.as_bytes(), 12);
        assert!(matches!(
            got[0],
            Err(ChunkError::TooLarge { first_line: 1, .. })
        ));
        let next = got[1].as_ref().unwrap();
        assert_eq!(next.first_line, 3);
        assert_eq!(next.framing.not_json, None);
        // A value already over the limit when JSON fails: its YAML document is refused
        // from the same line and ends at the next `---`.
        let text = format!("{{\n\"a\": \"{}\",\nb: 2}}\n---\nc: 3\n", "x".repeat(60));
        assert_eq!(
            limited(&text, 50, 1 << 20),
            [
                Err("TooLarge { first_line: 1, limit: 50 }".into()),
                Ok((4, Syntax::Yaml))
            ]
        );
    }

    #[test]
    fn a_json_stream_that_ends_in_its_first_value_is_read_as_yaml() {
        // kubectl goes on as YAML, which fails too; the chunk says where JSON did.
        let text = "{\"kind\": \"Pod\",\n  \"metadata\": {\"name\": \"é\"}\n\n";
        let got = split_all(text.as_bytes(), 1 << 20);
        assert_eq!(got.len(), 1, "{got:?}");
        let chunk = got[0].as_ref().unwrap();
        assert_eq!(chunk.text, text);
        assert_eq!(chunk.framing.syntax, Syntax::Yaml);
        // At the last character, as the real kubectl words it.
        let invalid = chunk.framing.not_json.as_deref().unwrap();
        assert_eq!(
            (invalid.line, invalid.column, invalid.message.as_str()),
            (2, 27, "unexpected EOF")
        );
        // A value on the line of the one before it counts its columns from the line's
        // start.
        let got = split_all(&b"{\"a\": 1}  {\"b\""[..], 1 << 20);
        let invalid = got[1]
            .as_ref()
            .unwrap()
            .framing
            .not_json
            .as_deref()
            .unwrap();
        assert_eq!((invalid.line, invalid.column), (1, 14));
    }
}
