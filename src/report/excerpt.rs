//! A document's text as miette quotes it, in time proportional to what is quoted.
//!
//! A document may hold thousands of workloads (a `List`) and so thousands of findings.
//! Finding a line by scanning the text from its start, as miette does for a `str`,
//! makes the human report quadratic in the document's size; a [`Excerpts`] indexes
//! the line starts once per document and hands miette only the lines around a label.

use std::sync::Arc;

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

use crate::load::{Pos, SourceText};

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
    /// Byte offset of the start of each line of `source.text`, first line first. Lines
    /// end at `\n`, as in [`SourceText::offset`].
    line_starts: Vec<usize>,
}

impl Excerpts {
    /// Indexes `source`.
    pub fn new(source: &SourceText) -> Self {
        let text = source.text.as_ref();
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        Excerpts {
            source: source.clone(),
            line_starts,
        }
    }

    /// Whether this indexes `source`'s text (the same document).
    pub fn indexes(&self, source: &SourceText) -> bool {
        Arc::ptr_eq(&self.source.text, &source.text)
    }

    /// The text of the 0-based `line` of the document, without its line end.
    fn line_text(&self, line: usize) -> &str {
        let text = self.source.text.as_ref();
        let start = self.line_starts[line];
        let end = self
            .line_starts
            .get(line + 1)
            .map_or(text.len(), |next| next - 1);
        &text[start..end]
    }

    /// The 0-based line of `pos` in the document, if it falls inside it.
    fn line_of(&self, pos: Pos) -> Option<usize> {
        let line = pos.line.checked_sub(self.source.first_line)? as usize;
        (line < self.line_starts.len()).then_some(line)
    }

    /// The byte offset of `pos` in the text, clamped to it: what
    /// [`SourceText::offset`] computes, without scanning the lines before.
    pub fn offset(&self, pos: Pos) -> usize {
        let text = self.source.text.as_ref();
        let line = match pos.line.checked_sub(self.source.first_line) {
            None => 0,
            Some(line) if line as usize >= self.line_starts.len() => return text.len(),
            Some(line) => line as usize,
        };
        let content = self.line_text(line);
        let column = content
            .char_indices()
            .nth(pos.column.saturating_sub(1) as usize)
            .map_or(content.len(), |(at, _)| at);
        self.line_starts[line] + column
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
            let last = text.trim_end().len().saturating_sub(1);
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
        SourceSpan::from((from, to.saturating_sub(from).max(1)))
    }

    /// The document as miette source, named `name` (the file, and where Helm rendered
    /// it from).
    pub fn code(self: &Arc<Self>, name: String) -> DocumentCode {
        DocumentCode {
            name,
            excerpts: Arc::clone(self),
        }
    }

    /// The 0-based line holding byte `offset`.
    fn line_at(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|start| *start <= offset) - 1
    }
}

/// A document's text as miette source: line numbers continue from the document's
/// first line in its file.
#[derive(Debug)]
pub struct DocumentCode {
    name: String,
    excerpts: Arc<Excerpts>,
}

impl SourceCode for DocumentCode {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_before: usize,
        context_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let excerpts = &self.excerpts;
        let text = excerpts.source.text.as_ref();
        // The lines miette reads for this span: its own and the context around them,
        // and one more at each end so that miette finds the same line breaks it would
        // in the whole text.
        let first = excerpts.line_at(span.offset().min(text.len()));
        let last = excerpts.line_at((span.offset() + span.len()).min(text.len()));
        let window_line = first.saturating_sub(context_before + 1);
        let window_start = excerpts.line_starts[window_line];
        let window_end = excerpts
            .line_starts
            .get(last + context_after + 2)
            .copied()
            .unwrap_or(text.len());
        let window = &text[window_start..window_end];
        let local = SourceSpan::from((span.offset() - window_start, span.len()));
        let inner = window.read_span(&local, context_before, context_after)?;
        let lines_before = excerpts.source.first_line as usize - 1 + window_line;
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            SourceSpan::from((inner.span().offset() + window_start, inner.span().len())),
            inner.line() + lines_before,
            inner.column(),
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
        SourceText {
            file: Arc::from("f.yaml"),
            first_line,
            text: Arc::from(text),
        }
    }

    #[test]
    fn offsets_match_the_source_text() {
        let text = "a: 1\nbé: [x, y]\n\nlast";
        let source = source(text, 7);
        let excerpts = Excerpts::new(&source);
        for line in 5..13 {
            for column in 0..14 {
                let pos = Pos { line, column };
                assert_eq!(excerpts.offset(pos), source.offset(pos), "{pos:?}");
            }
        }
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
