//! The default format: each finding as a diagnostic with the YAML excerpt, a label on
//! the exact node, the other side of a comparison, and a help line with the fix.

use std::fmt;
use std::io::{self, Write};

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};

use super::{Reporter, Summary};
use crate::load::{InputError, Pos, SourceText};
use crate::pipeline::{Located, Place};
use crate::rules::Severity;

/// How diagnostics are drawn.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// ANSI colours (off for NO_COLOR and when the output is not a terminal).
    pub color: bool,
    /// Box-drawing characters rather than ASCII.
    pub unicode: bool,
    /// Columns to wrap at.
    pub width: usize,
}

impl Style {
    /// Plain output for files, pipes and tests.
    pub fn plain() -> Self {
        Style {
            color: false,
            unicode: true,
            width: 100,
        }
    }

    fn handler(self) -> GraphicalReportHandler {
        let theme = match (self.unicode, self.color) {
            (true, true) => GraphicalTheme::unicode(),
            (true, false) => GraphicalTheme::unicode_nocolor(),
            (false, true) => GraphicalTheme::ascii(),
            (false, false) => GraphicalTheme::none(),
        };
        GraphicalReportHandler::new_themed(theme)
            .with_links(false)
            .with_width(self.width)
            .with_context_lines(2)
    }
}

/// Renders findings as miette diagnostics.
pub struct HumanReporter<W: Write> {
    out: W,
    style: Style,
    quiet: bool,
    /// The assumptions in force, printed once after the summary.
    assumptions: String,
}

impl<W: Write> HumanReporter<W> {
    /// A reporter writing to `out`; unless `quiet`, the summary line and then the
    /// `assumptions` line close the report.
    pub fn new(out: W, style: Style, quiet: bool, assumptions: String) -> Self {
        HumanReporter {
            out,
            style,
            quiet,
            assumptions,
        }
    }
}

impl<W: Write> Reporter for HumanReporter<W> {
    fn findings(&mut self, findings: &[&Located]) -> io::Result<()> {
        for located in findings.iter().filter(|f| f.suppressed.is_none()) {
            let text = render_finding(located, self.style);
            self.out.write_all(text.as_bytes())?;
        }
        Ok(())
    }

    fn input_error(&mut self, _: &InputError) -> io::Result<()> {
        // Input errors go to stderr, whatever the format.
        Ok(())
    }

    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        if !self.quiet {
            writeln!(self.out, "{}", summary_line(summary))?;
            writeln!(self.out, "{}", self.assumptions)?;
        }
        self.out.flush()
    }
}

/// "2 errors, 1 warning in 3 workloads (4 files)".
pub fn summary_line(summary: &Summary) -> String {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let mut counts = Vec::new();
    for (n, word) in [
        (summary.errors, "error"),
        (summary.warnings, "warning"),
        (summary.infos, "info"),
    ] {
        if n > 0 {
            counts.push(plural(n, word));
        }
    }
    let found = if counts.is_empty() {
        "no findings".to_owned()
    } else {
        counts.join(", ")
    };
    let mut line = format!(
        "{found} in {} ({} checked)",
        plural(summary.workloads, "workload"),
        plural(
            summary.files,
            if summary.from_cluster {
                "object"
            } else {
                "file"
            }
        )
    );
    if summary.suppressed > 0 {
        line.push_str(&format!("; {} suppressed", summary.suppressed));
    }
    if summary.input_errors > 0 {
        line.push_str(&format!(
            "; {} could not be read",
            plural(summary.input_errors, "input")
        ));
    }
    line
}

/// One finding, rendered.
pub fn render_finding(located: &Located, style: Style) -> String {
    let diagnostic = FindingDiagnostic::new(located);
    let mut out = String::new();
    let _ = style.handler().render_report(&mut out, &diagnostic);
    out.push('\n');
    out
}

/// One input error, rendered.
pub fn render_input_error(error: &InputError, style: Style) -> String {
    let diagnostic = InputDiagnostic::new(error);
    let mut out = String::new();
    let _ = style.handler().render_report(&mut out, &diagnostic);
    out
}

/// The longest line an excerpt quotes, in characters. miette pads its labels with
/// format widths, which panic past 65 535 columns, and a longer line (minified JSON, a
/// generated blob) is unreadable when quoted anyway: a diagnostic about such a line
/// names its `file:line:column` and quotes nothing.
const MAX_QUOTED_LINE: usize = 1000;

/// Whether every line at `positions` is short enough to quote.
fn quotable(source: &SourceText, positions: impl IntoIterator<Item = Pos>) -> bool {
    positions.into_iter().all(|pos| {
        let start = source.offset(Pos {
            line: pos.line,
            column: 1,
        });
        let rest = &source.text[start..];
        let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
        line.chars().nth(MAX_QUOTED_LINE).is_none()
    })
}

/// A document's text as miette source: line numbers continue from the document's
/// first line in its file.
#[derive(Debug)]
struct DocumentCode {
    name: String,
    source: SourceText,
}

impl SourceCode for DocumentCode {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_before: usize,
        context_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self
            .source
            .text
            .as_ref()
            .read_span(span, context_before, context_after)?;
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            *inner.span(),
            inner.line() + self.source.first_line as usize - 1,
            inner.column(),
            inner.line_count(),
        )))
    }
}

fn span_of(source: &SourceText, start: Pos, end: Pos) -> SourceSpan {
    let text = source.text.as_ref();
    let mut from = source.offset(start);
    if from >= text.len() {
        // A position at the end of the input (an unclosed bracket): mark the last token.
        from = text.trim_end().len().saturating_sub(1);
        return SourceSpan::from((from, 1));
    }
    let to = if end.line == start.line {
        source.offset(end).max(from)
    } else {
        from
    };
    // A label on a multi-line node marks its first token.
    let to = if to == from {
        let rest = &source.text[from..];
        from + rest.find(|c: char| c.is_whitespace()).unwrap_or(rest.len())
    } else {
        to
    };
    SourceSpan::from((from, to.saturating_sub(from).max(1)))
}

struct FindingDiagnostic<'a> {
    located: &'a Located,
    headline: String,
    /// `None` when a line to quote is too long: the headline says where instead.
    code: Option<DocumentCode>,
}

impl<'a> FindingDiagnostic<'a> {
    fn new(located: &'a Located) -> Self {
        let subject = super::subject(&located.workload);
        let name = match &located.origin {
            Some(origin) => format!("{} (from {origin})", located.file),
            None => located.file.to_string(),
        };
        let places = std::iter::once(&located.primary).chain(&located.related);
        if !quotable(&located.source, places.map(|place| place.start)) {
            let start = located.primary.start;
            return FindingDiagnostic {
                headline: format!(
                    "{name}:{}:{}: {subject}: {}",
                    start.line, start.column, located.finding.message
                ),
                code: None,
                located,
            };
        }
        FindingDiagnostic {
            headline: format!("{subject}: {}", located.finding.message),
            code: Some(DocumentCode {
                name,
                source: located.source.clone(),
            }),
            located,
        }
    }

    fn label(&self, place: &Place, primary: bool) -> LabeledSpan {
        let span = span_of(&self.located.source, place.start, place.end);
        let text = Some(place.text.clone()).filter(|t| !t.is_empty());
        if primary {
            LabeledSpan::new_primary_with_span(text, span)
        } else {
            LabeledSpan::new_with_span(text, span)
        }
    }
}

impl fmt::Debug for FindingDiagnostic<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.headline)
    }
}

impl fmt::Display for FindingDiagnostic<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.headline)
    }
}

impl std::error::Error for FindingDiagnostic<'_> {}

impl Diagnostic for FindingDiagnostic<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        let rule = self.located.finding.rule;
        Some(Box::new(format!("{}({})", rule.id, rule.name)))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.located.finding.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        })
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        Some(Box::new(&self.located.finding.help))
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.code.as_ref().map(|c| c as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.code.as_ref()?;
        let primary = std::iter::once(self.label(&self.located.primary, true));
        let related = self
            .located
            .related
            .iter()
            .filter(|place| place.start != self.located.primary.start)
            .map(|place| self.label(place, false));
        Some(Box::new(primary.chain(related)))
    }
}

struct InputDiagnostic<'a> {
    error: &'a InputError,
    headline: String,
    code: Option<DocumentCode>,
}

impl<'a> InputDiagnostic<'a> {
    fn new(error: &'a InputError) -> Self {
        let headline = match error.pos {
            Some(pos) => format!(
                "{}:{}:{}: {}",
                error.file, pos.line, pos.column, error.message
            ),
            None => format!("{}: {}", error.file, error.message),
        };
        let positions = error
            .pos
            .into_iter()
            .chain(error.related.as_deref().map(|r| r.0));
        InputDiagnostic {
            code: error
                .source
                .clone()
                .filter(|source| quotable(source, positions))
                .map(|source| DocumentCode {
                    name: error.file.to_string(),
                    source,
                }),
            headline,
            error,
        }
    }
}

impl fmt::Debug for InputDiagnostic<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.headline)
    }
}

impl fmt::Display for InputDiagnostic<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.headline)
    }
}

impl std::error::Error for InputDiagnostic<'_> {}

impl Diagnostic for InputDiagnostic<'_> {
    fn severity(&self) -> Option<miette::Severity> {
        Some(miette::Severity::Error)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.code.as_ref().map(|c| c as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let code = self.code.as_ref()?;
        let pos = self.error.pos?;
        let mut labels = vec![LabeledSpan::new_primary_with_span(
            Some("here".into()),
            span_of(&code.source, pos, pos),
        )];
        if let Some((related, text)) = self.error.related.as_deref() {
            labels.push(LabeledSpan::new_with_span(
                Some(text.clone()),
                span_of(&code.source, *related, *related),
            ));
        }
        Some(Box::new(labels.into_iter()))
    }
}
