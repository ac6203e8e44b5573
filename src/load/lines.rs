//! Where each line of a document's text starts: indexed once per text, so that placing
//! a finding, quoting its lines or turning a fix's byte ranges into positions costs in
//! proportion to what is shown, not to the document around it.
//!
//! A `List` read from `kubectl get -A -o yaml` is one document holding every workload,
//! and so every finding: anything that walked the text from its start for each
//! finding made a report quadratic in the size of the cluster. Every position ↔ offset
//! mapping of a document goes through one [`LineStarts`], built the first time it is
//! asked for ([`super::SourceText::lines`]) and shared by every finding of the
//! document. [`indexed_bytes`] counts what was indexed, so that a test can hold the
//! whole run to one index per document.

use std::sync::atomic::{AtomicU64, Ordering};

use super::Pos;

/// Bytes of text indexed by [`LineStarts::new`] since the process started.
static INDEXED_BYTES: AtomicU64 = AtomicU64::new(0);

/// How many bytes of text have been indexed so far in this process: once per document
/// with something to place, whatever the number of findings in it.
pub fn indexed_bytes() -> u64 {
    INDEXED_BYTES.load(Ordering::Relaxed)
}

/// The line starts of one text, and what the reports need to know about its line ends.
#[derive(Debug)]
pub struct LineStarts {
    /// Byte offset of the start of each line, first line first. Lines end at LF, CRLF or
    /// a CR alone, as the YAML parser counts them ([`super::next_line`]).
    starts: Vec<usize>,
    /// Whether some line ends with CRLF: an edit's new lines end the same way.
    crlf: bool,
    /// Whether some line ends with a CR alone.
    lone_cr: bool,
}

impl LineStarts {
    /// Indexes `text` in one pass.
    pub fn new(text: &str) -> LineStarts {
        INDEXED_BYTES.fetch_add(text.len() as u64, Ordering::Relaxed);
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        let (mut crlf, mut lone_cr) = (false, false);
        let mut at = 0;
        while let Some(found) = bytes[at..].iter().position(|&b| b == b'\n' || b == b'\r') {
            let end = at + found;
            let next = if bytes[end] == b'\r' && bytes.get(end + 1) == Some(&b'\n') {
                crlf = true;
                end + 2
            } else {
                lone_cr |= bytes[end] == b'\r';
                end + 1
            };
            // A text that ends with a line break has an empty last line after it.
            starts.push(next);
            at = next;
        }
        LineStarts {
            starts,
            crlf,
            lone_cr,
        }
    }

    /// The offsets at which lines start, first line first.
    pub fn starts(&self) -> &[usize] {
        &self.starts
    }

    /// How many lines the text has.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Whether the text has no line at all (it never is: an empty text is one line).
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The offset of the start of the 0-based `line`, if the text has it.
    pub fn start(&self, line: usize) -> Option<usize> {
        self.starts.get(line).copied()
    }

    /// The 0-based line that holds byte `offset` (the last line for an offset past the
    /// end).
    pub fn line_at(&self, offset: usize) -> usize {
        self.starts.partition_point(|&start| start <= offset) - 1
    }

    /// Whether some line ends with CRLF.
    pub fn has_crlf(&self) -> bool {
        self.crlf
    }

    /// Whether some line ends with a CR alone.
    pub fn has_lone_cr(&self) -> bool {
        self.lone_cr
    }

    /// The byte offset in `text` of `pos`, for a text whose first line is line
    /// `first_line` of its file, clamped to the text: a line before the first is the
    /// first, a line after the last is the end, a column past the line's end is its end.
    pub fn offset(&self, text: &str, first_line: u32, pos: Pos) -> usize {
        let line = match pos.line.checked_sub(first_line) {
            None => 0,
            Some(line) => match self.start(line as usize) {
                Some(_) => line as usize,
                None => return text.len(),
            },
        };
        let start = self.starts[line];
        let content = &text[start..super::line_end(text, start)];
        let column = content
            .char_indices()
            .nth(pos.column.saturating_sub(1) as usize)
            .map_or(content.len(), |(at, _)| at);
        start + column
    }

    /// The position of byte `offset` of `text` (clamped to it), for a text whose first
    /// line is line `first_line` of its file: 1-based line and code-point column. An
    /// offset at a line break is the column after the line's last character.
    pub fn pos(&self, text: &str, first_line: u32, offset: usize) -> Pos {
        let offset = offset.min(text.len());
        let line = self.line_at(offset);
        let column = text[self.starts[line]..offset].chars().count() as u32 + 1;
        Pos {
            line: first_line + line as u32,
            column,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line starts as `next_line` finds them, one call after another.
    fn by_next_line(text: &str) -> Vec<usize> {
        std::iter::successors(Some(0), |&start| super::super::next_line(text, start)).collect()
    }

    #[test]
    fn lines_start_where_the_parser_starts_them() {
        for text in [
            "",
            "a",
            "a\n",
            "a\nb",
            "a\r\nb\r\n",
            "a\rb\r",
            "a\r\rb\r\n\nc",
            "\n\n",
            "é: 1\r\nb: [x]\rc\n",
        ] {
            let lines = LineStarts::new(text);
            assert_eq!(lines.starts(), by_next_line(text), "{text:?}");
            assert_eq!(lines.has_crlf(), text.contains("\r\n"), "{text:?}");
            let lone = text
                .match_indices('\r')
                .any(|(at, _)| !text[at + 1..].starts_with('\n'));
            assert_eq!(lines.has_lone_cr(), lone, "{text:?}");
        }
    }

    #[test]
    fn offsets_and_positions_are_inverse() {
        let text = "a: é\r\nbé: [x, y]\rlast";
        let lines = LineStarts::new(text);
        for offset in 0..=text.len() {
            // Between the CR and the LF of a line end is no position.
            if !text.is_char_boundary(offset)
                || text[..offset].ends_with('\r') && text[offset..].starts_with('\n')
            {
                continue;
            }
            let pos = lines.pos(text, 4, offset);
            assert_eq!(lines.offset(text, 4, pos), offset, "{offset} at {pos:?}");
        }
        assert_eq!(lines.offset(text, 4, Pos { line: 1, column: 3 }), 2);
        assert_eq!(
            lines.offset(text, 4, Pos { line: 9, column: 1 }),
            text.len()
        );
        assert_eq!(lines.pos(text, 4, 999), Pos { line: 6, column: 5 });
    }
}
