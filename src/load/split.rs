//! Splits a YAML stream into documents without parsing it.
//!
//! A line starting with `---` or `...` followed by a space, tab or line end is a
//! document marker wherever it appears: YAML forbids such lines inside any scalar. So the
//! stream can be cut into per-document chunks by looking at line starts alone, which
//! keeps memory bounded by the largest document and lets documents be parsed in
//! parallel.

use std::io::{self, BufRead};

/// The text of one document and where it starts in its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// 1-based line of the chunk's first line.
    pub first_line: u32,
    /// The document's text, from `first_line` on.
    pub text: String,
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
    /// The input is longer than the limit: the document that crosses it and everything
    /// after are not read.
    InputTooLarge {
        /// 1-based line where the unread part starts.
        first_line: u32,
        /// The limit in bytes.
        limit: u64,
    },
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
    done: bool,
    line_buf: Vec<u8>,
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
            done: false,
            line_buf: Vec::new(),
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

    /// Reads one line into `line_buf`, keeping at most one byte more than the document
    /// and line limits allow, so a single enormous line cannot exhaust memory. A NUL byte
    /// ends the line at once: the input is binary and will not be read further (without
    /// that, `/dev/zero` would be read up to the input limit).
    fn read_line(&mut self) -> io::Result<LineRead> {
        self.line_buf.clear();
        let keep = self.max_bytes.min(self.max_line_bytes).saturating_add(1);
        let mut any = false;
        loop {
            let available = match self.reader.fill_buf() {
                Ok(buf) => buf,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            if available.is_empty() {
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
        if let Some(refused) = self.refused.take() {
            self.pending.clear();
            return Some(Err(refused));
        }
        let bytes = std::mem::take(&mut self.pending);
        if bytes.is_empty() {
            return None;
        }
        Some(to_text(bytes, first_line).map(|text| Chunk { first_line, text }))
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
        } else if self.pending.len() + self.line_buf.len() > self.max_bytes {
            self.refused = Some(ChunkError::TooLarge {
                first_line: self.pending_first_line,
                limit: self.max_bytes,
            });
        } else {
            self.pending.extend_from_slice(&self.line_buf);
            return;
        }
        self.pending = Vec::new();
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
    /// `...`: ends a document (the line belongs to the ending document).
    End,
    /// Blank, comment or directive: not content on its own.
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
    if is_marker(b"...") {
        return LineKind::End;
    }
    let trimmed = line.trim_ascii_start();
    if trimmed.is_empty() || trimmed[0] == b'#' || line[0] == b'%' {
        LineKind::Trivia
    } else {
        LineKind::Content
    }
}

impl<R: BufRead> Iterator for Splitter<R> {
    type Item = Result<Chunk, ChunkError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            match self.read_line() {
                Err(error) => {
                    self.done = true;
                    return Some(Err(ChunkError::Io(error)));
                }
                Ok(LineRead::End) => {
                    self.done = true;
                    return self.take_chunk();
                }
                Ok(LineRead::OverLimit) => {
                    self.done = true;
                    // The line being read belongs to the pending document, if any.
                    let first_line = if self.pending.is_empty() && self.refused.is_none() {
                        self.line + 1
                    } else {
                        self.pending_first_line
                    };
                    self.pending = Vec::new();
                    self.refused = None;
                    return Some(Err(ChunkError::InputTooLarge {
                        first_line,
                        limit: self.max_input_bytes,
                    }));
                }
                Ok(LineRead::Line) => {}
            }
            self.line += 1;
            if self.line == 1 {
                if self.line_buf.starts_with(b"\xEF\xBB\xBF") {
                    self.line_buf.drain(..3);
                } else if let Some(encoding) = wide_encoding(&self.line_buf) {
                    self.done = true;
                    return Some(Err(ChunkError::WideEncoding { encoding }));
                }
            }
            if self.line_buf.contains(&0) {
                self.done = true;
                return Some(Err(ChunkError::Binary { line: self.line }));
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
            match kind {
                LineKind::Start => self.pending_has_start = true,
                LineKind::Content => self.pending_has_content = true,
                LineKind::Trivia => {}
                LineKind::End => {
                    if emitted.is_none() {
                        return self.take_chunk();
                    }
                }
            }
            if emitted.is_some() {
                return emitted;
            }
        }
        None
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
    fn end_markers_close_documents() {
        let got = chunks("a: 1\n...\nb: 2\n");
        assert_eq!(got, vec![(1, "a: 1\n...\n".into()), (3, "b: 2\n".into())]);
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
}
