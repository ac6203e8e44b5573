//! A document's text as miette quotes it, in time proportional to what is quoted.
//!
//! A document may hold thousands of workloads (a `List`) and so thousands of findings.
//! Finding a line by scanning the text from its start, as miette does for a `str`,
//! makes the human report quadratic in the document's size; a [`Excerpts`] indexes
//! the line starts once per document and hands miette only the lines around a label.

use std::sync::Arc;

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

use crate::escape;
use crate::load::{self, Pos, SourceText};

/// The longest line an excerpt quotes, in characters. miette pads its labels with
/// format widths, which panic past 65 535 columns, and a longer line (minified JSON, a
/// generated blob) is unreadable when quoted anyway: a diagnostic about such a line
/// names its `file:line:column` and quotes nothing.
const MAX_QUOTED_LINE: usize = 1000;

/// One document's text with the byte offset of each line, shared by every finding in
/// the document.
#[derive(Debug)]
pub struct Excerpts {
    source: SourceText,
    /// The text miette reads: `source.text` with each CR that ends a line alone made an
    /// LF (the same length, so offsets hold), since miette's renderer starts lines at
    /// LF only, and its control characters shown as escapes.
    quoted: Arc<str>,
    /// Where offsets of `source.text` land in `quoted`, when escapes made it longer.
    escapes: Option<escape::OffsetMap>,
    /// [`Excerpts::line_starts`] in `quoted`, when escapes moved them.
    escaped_starts: Option<Vec<usize>>,
}

impl Excerpts {
    /// Indexes `source`: its lines are indexed once for the document
    /// ([`SourceText::lines`]), whatever the number of excerpts taken from it.
    pub fn new(source: &SourceText) -> Self {
        let text = source.text.as_ref();
        let lines = source.lines();
        let quoted = if lines.has_lone_cr() {
            let mut quoted = String::with_capacity(text.len());
            let mut from = 0;
            let lone_crs = lines.starts()[1..]
                .iter()
                .map(|start| start - 1)
                .filter(|&end| text.as_bytes()[end] == b'\r');
            for cr in lone_crs {
                quoted.push_str(&text[from..cr]);
                quoted.push('\n');
                from = cr + 1;
            }
            quoted.push_str(&text[from..]);
            Arc::from(quoted)
        } else {
            Arc::clone(&source.text)
        };
        // A line that holds a control character is quoted with it escaped, as every
        // text report shows it; the offsets labels point at move with the escapes.
        let (quoted, escapes) = match escape::controls_mapped(&quoted) {
            Some((escaped, map)) => (Arc::from(escaped), Some(map)),
            None => (quoted, None),
        };
        let escaped_starts = escapes
            .as_ref()
            .map(|map| lines.starts().iter().map(|&start| map.map(start)).collect());
        Excerpts {
            source: source.clone(),
            quoted,
            escapes,
            escaped_starts,
        }
    }

    /// Where each line of the document starts.
    fn line_starts(&self) -> &[usize] {
        self.source.lines().starts()
    }

    /// Where each line starts in the quoted text.
    fn quoted_starts(&self) -> &[usize] {
        self.escaped_starts
            .as_deref()
            .unwrap_or_else(|| self.line_starts())
    }

    /// The offset in the quoted text of `offset` in the source text.
    fn quoted_offset(&self, offset: usize) -> usize {
        self.escapes.as_ref().map_or(offset, |map| map.map(offset))
    }

    /// Whether this indexes `source`'s text (the same document).
    pub fn indexes(&self, source: &SourceText) -> bool {
        Arc::ptr_eq(&self.source.text, &source.text)
    }

    /// The text of the 0-based `line` of the document, without its line end.
    fn line_text(&self, line: usize) -> &str {
        let text = self.source.text.as_ref();
        let start = self.line_starts()[line];
        &text[start..load::line_end(text, start)]
    }

    /// The 0-based line of `pos` in the document, if it falls inside it.
    fn line_of(&self, pos: Pos) -> Option<usize> {
        let line = pos.line.checked_sub(self.source.first_line)? as usize;
        (line < self.line_starts().len()).then_some(line)
    }

    /// The byte offset of `pos` in the text, clamped to it ([`SourceText::offset`]).
    pub fn offset(&self, pos: Pos) -> usize {
        self.source.offset(pos)
    }

    /// Whether every line at `positions` is short enough to quote.
    pub fn quotable(&self, positions: impl IntoIterator<Item = Pos>) -> bool {
        positions.into_iter().all(|pos| {
            let line = self.line_of(pos).unwrap_or(0);
            self.line_text(line).chars().nth(MAX_QUOTED_LINE).is_none()
        })
    }

    /// The span of a node for a label: from `start` to `end` on one line; a node on
    /// several lines is marked by its first token.
    pub fn span(&self, start: Pos, end: Pos) -> SourceSpan {
        let text = self.source.text.as_ref();
        let from = self.offset(start);
        if from >= text.len() {
            // A position at the end of the input (an unclosed bracket): mark the last token.
            let last = self.quoted_offset(text.trim_end().len().saturating_sub(1));
            return SourceSpan::from((last, 1));
        }
        let to = if end.line == start.line {
            self.offset(end).max(from)
        } else {
            from
        };
        let to = if to == from {
            let rest = &text[from..];
            from + rest.find(|c: char| c.is_whitespace()).unwrap_or(rest.len())
        } else {
            to
        };
        let (from, to) = (self.quoted_offset(from), self.quoted_offset(to));
        SourceSpan::from((from, to.saturating_sub(from).max(1)))
    }

    /// The document as miette source, named `name` (the file, and where Helm rendered
    /// it from).
    pub fn code(self: &Arc<Self>, name: String) -> DocumentCode {
        DocumentCode {
            name,
            excerpts: Arc::clone(self),
            seam: None,
        }
    }

    /// [`Excerpts::code`], its excerpts in an order that starts at `line` (a line of
    /// the document, 1-based as positions count): miette quotes excerpts in the order
    /// of their offsets, so the offsets it is given start there, then run from the
    /// document's start up to that line. A diagnostic whose primary label lies below a
    /// related one thus opens where the finding is, as every other report places it.
    pub fn code_from(self: &Arc<Self>, name: String, line: u32) -> DocumentCode {
        let seam = self
            .line_of(Pos { line, column: 1 })
            .filter(|&line| line > 0)
            .map(|line| self.quoted_starts()[line]);
        DocumentCode {
            name,
            excerpts: Arc::clone(self),
            seam,
        }
    }

    /// The 0-based line holding byte `offset` of the quoted text.
    fn line_at(&self, offset: usize) -> usize {
        self.quoted_starts()
            .partition_point(|start| *start <= offset)
            - 1
    }
}

/// A document's text as miette source: line numbers continue from the document's
/// first line in its file.
///
/// With a seam ([`Excerpts::code_from`]), the offsets miette sees are those of the
/// text from the seam to its end, then from its start to the seam: two pieces, each
/// quoted as if it were the whole text, so that no excerpt runs across the seam.
#[derive(Debug)]
pub struct DocumentCode {
    name: String,
    excerpts: Arc<Excerpts>,
    /// Where the offsets miette sees start, in the quoted text (a line's start).
    seam: Option<usize>,
}

impl DocumentCode {
    /// The span for a label from `start` to `end` ([`Excerpts::span`]), in the offsets
    /// miette sees.
    pub fn span(&self, start: Pos, end: Pos) -> SourceSpan {
        let span = self.excerpts.span(start, end);
        SourceSpan::from((self.seen(span.offset()), span.len()))
    }

    /// The offset miette sees for `offset` of the quoted text.
    fn seen(&self, offset: usize) -> usize {
        let length = self.excerpts.quoted.len();
        match self.seam {
            Some(seam) if offset >= seam => offset - seam,
            Some(seam) => offset + (length - seam),
            None => offset,
        }
    }

    /// The offset of the quoted text that miette's `offset` stands for, and the piece
    /// of the quoted text it lies in.
    fn quoted(&self, offset: usize) -> (usize, std::ops::Range<usize>) {
        let length = self.excerpts.quoted.len();
        match self.seam {
            Some(seam) if offset < length - seam => (offset + seam, seam..length),
            Some(seam) => (offset - (length - seam), 0..seam),
            None => (offset, 0..length),
        }
    }
}

impl SourceCode for DocumentCode {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_before: usize,
        context_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let excerpts = &self.excerpts;
        let text = excerpts.quoted.as_ref();
        let (offset, piece) = self.quoted(span.offset().min(text.len()));
        // A span across the seam is two excerpts: miette, told so, quotes them apart.
        if self.seam.is_some() && offset + span.len() > piece.end {
            return Err(MietteError::OutOfBounds);
        }
        let span = &SourceSpan::from((offset, span.len()));
        let (piece_first, piece_end) = (excerpts.line_at(piece.start), piece.end);
        // The lines miette reads for this span: its own and the context around them,
        // and one more at each end so that miette finds the same line breaks it would
        // in the whole text; within the piece of the text the span lies in.
        let first = excerpts.line_at(span.offset().min(text.len()));
        let last = excerpts.line_at((span.offset() + span.len()).min(text.len()));
        let window_line = first.saturating_sub(context_before + 1).max(piece_first);
        let window_start = excerpts.quoted_starts()[window_line];
        let window_end = excerpts
            .quoted_starts()
            .get(last + context_after + 2)
            .copied()
            .unwrap_or(text.len())
            .min(piece_end);
        let window = &text[window_start..window_end];
        let local = SourceSpan::from((span.offset() - window_start, span.len()));
        let inner = window.read_span(&local, context_before, context_after)?;
        let lines_before = excerpts.source.first_line as usize - 1 + window_line;
        // miette counts the column of the span's start (what the headline shows) in
        // bytes; every other report counts characters, so this one must too.
        let column = if context_before == 0 {
            let offset = span.offset().min(text.len());
            text.get(excerpts.quoted_starts()[first]..offset)
                .map_or(0, |before| before.chars().count())
        } else {
            inner.column()
        };
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            SourceSpan::from((
                self.seen(inner.span().offset() + window_start),
                inner.span().len(),
            )),
            inner.line() + lines_before,
            column,
            // miette compares line counts with lines to merge nearby labels into one
            // excerpt; count from the document's start, as it would over the whole text.
            inner.line_count() + window_line,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(text: &str, first_line: u32) -> SourceText {
        SourceText::new(Arc::from("f.yaml"), first_line, Arc::from(text))
    }

    #[test]
    fn offsets_match_the_source_text() {
        // Every line end the parser knows: LF, CRLF and a CR alone.
        for text in ["a: 1\nbé: [x, y]\n\nlast", "a: 1\r\nbé: [x, y]\r\rlast\r\n"] {
            let source = source(text, 7);
            let excerpts = Excerpts::new(&source);
            for line in 5..13 {
                for column in 0..14 {
                    let pos = Pos { line, column };
                    assert_eq!(
                        excerpts.offset(pos),
                        source.offset(pos),
                        "{pos:?} in {text:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn lines_ended_by_a_cr_alone_are_quoted_as_lines() {
        for text in [
            "a: 1\nb: é2\nc: 3\n",
            "a: 1\rb: é2\rc: 3\r",
            "a: 1\r\nb: é2\rc: 3\n",
        ] {
            let excerpts = Arc::new(Excerpts::new(&source(text, 1)));
            let code = excerpts.code("f.yaml".into());
            // At the `2`, after a two-byte character.
            let span = excerpts.span(Pos { line: 2, column: 5 }, Pos { line: 2, column: 6 });
            let headline = code.read_span(&span, 0, 0).unwrap();
            assert_eq!(
                (headline.line(), headline.column()),
                (1, 4),
                "0-based line, column in characters, in {text:?}"
            );
            let quoted = code.read_span(&span, 1, 1).unwrap();
            let quoted = std::str::from_utf8(quoted.data()).unwrap();
            assert_eq!(
                quoted.lines().collect::<Vec<_>>(),
                ["a: 1", "b: é2", "c: 3"],
                "in {text:?}"
            );
        }
    }

    #[test]
    fn control_characters_are_quoted_as_escapes_and_labels_follow() {
        let text = "a: 1\nb: \"\x1b]0;x\x07\" # c\nc: 3\n";
        let excerpts = Arc::new(Excerpts::new(&source(text, 1)));
        let code = excerpts.code("f.yaml".into());
        // The `#` after the escaped characters, in characters of the line as written.
        let span = excerpts.span(
            Pos {
                line: 2,
                column: 13,
            },
            Pos {
                line: 2,
                column: 14,
            },
        );
        let quoted = code.read_span(&span, 1, 1).unwrap();
        let quoted = std::str::from_utf8(quoted.data()).unwrap();
        assert_eq!(
            quoted.lines().collect::<Vec<_>>(),
            ["a: 1", "b: \"\\x1b]0;x\\x07\" # c", "c: 3"]
        );
        let whole = excerpts.quoted.as_ref();
        assert_eq!(&whole[span.offset()..span.offset() + span.len()], "#");
    }

    #[test]
    fn the_window_reads_as_the_whole_text_does() {
        let text: String = (1..=40).map(|n| format!("line{n}: {n}\n")).collect();
        let source = source(&text, 3);
        let excerpts = Arc::new(Excerpts::new(&source));
        let code = excerpts.code("f.yaml".into());
        for (line, context) in [(3, 2), (4, 2), (20, 2), (41, 2), (42, 2), (25, 0)] {
            let span = excerpts.span(Pos { line, column: 1 }, Pos { line, column: 5 });
            let ours = code.read_span(&span, context, context).unwrap();
            let whole = text.as_str().read_span(&span, context, context).unwrap();
            assert_eq!(ours.data(), whole.data(), "line {line}");
            assert_eq!(ours.span(), whole.span(), "line {line}");
            assert_eq!(ours.line(), whole.line() + 2, "line {line}");
            assert_eq!(ours.column(), whole.column(), "line {line}");
            assert_eq!(ours.line_count(), whole.line_count(), "line {line}");
        }
    }
}
