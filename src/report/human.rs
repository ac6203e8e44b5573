//! The default format: each finding as a diagnostic with the YAML excerpt, a label on
//! the exact node, the other side of a comparison, and a help line with the fix.
//!
//! Infos are worth knowing but rarely a reason to act, and one rule can make most of a
//! large repository's findings: unless asked for in full (`--show-infos`, or a gate at
//! `--fail-on info`), they are grouped at the end, one line per rule with its count and
//! workloads, so that errors and warnings stay in view. Machine formats list every one.

use std::fmt;
use std::io::{self, Write};
use std::sync::Arc;

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceCode};

use super::excerpt::{DocumentCode, Excerpts};
pub use super::style::Style;
use super::style::Tone;
use super::{Reporter, Summary, subject, wrap};
use crate::load::{InputError, Pos};
use crate::report::located::{Located, Place};
use crate::rules::{RuleMeta, Severity};

impl Style {
    fn handler(self) -> GraphicalReportHandler {
        let theme = match (self.unicode, self.color) {
            (true, true) => GraphicalTheme::unicode(),
            (true, false) => GraphicalTheme::unicode_nocolor(),
            (false, true) => GraphicalTheme::ascii(),
            (false, false) => GraphicalTheme::none(),
        };
        GraphicalReportHandler::new_themed(theme)
            .with_links(false)
            .with_width(self.columns())
            .with_word_separator(wrap::separator())
            .with_word_splitter(textwrap::WordSplitter::NoHyphenation)
            .with_break_words(false)
            .with_context_lines(2)
    }
}

/// Workloads named in an info group's line before "and N more".
const GROUP_NAMES: usize = 3;

/// Renders findings as miette diagnostics.
pub struct HumanReporter<W: Write> {
    out: W,
    style: Style,
    quiet: bool,
    /// The assumptions in force, printed once after the summary.
    assumptions: Vec<String>,
    /// Print infos in full rather than grouped by rule.
    show_infos: bool,
    /// The index of the document being reported.
    excerpts: Option<Arc<Excerpts>>,
    /// Infos not printed in full, by rule in the order first seen.
    infos: Vec<InfoGroup>,
    /// The renderer, made once for the whole report.
    handler: GraphicalReportHandler,
    /// The text of the finding being written, its buffer kept between findings.
    rendered: String,
}

/// The infos of one rule, for its line at the end of the report.
struct InfoGroup {
    rule: &'static RuleMeta,
    findings: usize,
    workloads: usize,
    /// The first few workloads, as reports name them.
    names: Vec<String>,
    /// The last workload counted (file, document, workload), to count each once.
    last: (Arc<str>, usize, String),
}

impl<W: Write> HumanReporter<W> {
    /// A reporter writing to `out`; unless `quiet`, the summary line and then the
    /// `assumptions` close the report.
    pub fn new(out: W, style: Style, quiet: bool, assumptions: Vec<String>) -> Self {
        HumanReporter {
            out,
            style,
            quiet,
            assumptions,
            show_infos: false,
            excerpts: None,
            infos: Vec::new(),
            handler: style.handler(),
            rendered: String::new(),
        }
    }

    /// Prints every info in full, as errors and warnings are, instead of one line per
    /// rule.
    pub fn show_infos(mut self, show: bool) -> Self {
        self.show_infos = show;
        self
    }

    /// The index of `located`'s document, built once per document.
    fn excerpts(&mut self, located: &Located) -> Arc<Excerpts> {
        match &self.excerpts {
            Some(excerpts) if excerpts.indexes(&located.source) => Arc::clone(excerpts),
            _ => {
                let excerpts = Arc::new(Excerpts::new(&located.source));
                self.excerpts = Some(Arc::clone(&excerpts));
                excerpts
            }
        }
    }

    fn group(&mut self, located: &Located) {
        let rule = located.finding.rule;
        let name = subject(&located.workload);
        let key = (Arc::clone(&located.file), located.document, name);
        match self.infos.iter_mut().find(|g| g.rule.id == rule.id) {
            Some(group) => {
                group.findings += 1;
                if group.last != key {
                    group.workloads += 1;
                    if group.names.len() < GROUP_NAMES {
                        group.names.push(key.2.clone());
                    }
                    group.last = key;
                }
            }
            None => self.infos.push(InfoGroup {
                rule,
                findings: 1,
                workloads: 1,
                names: vec![key.2.clone()],
                last: key,
            }),
        }
    }

    fn write_info_groups(&mut self) -> io::Result<()> {
        if self.infos.is_empty() {
            return Ok(());
        }
        let heading = "Infos, one line per rule (--show-infos prints each in full):";
        writeln!(self.out, "{}", self.style.paint(heading, Tone::Cyan))?;
        let width = self.style.columns();
        for group in &self.infos {
            let line = group.line();
            writeln!(self.out, "{}", wrap::wrap(&line, width, "  ", "    "))?;
        }
        writeln!(self.out)
    }
}

impl InfoGroup {
    /// `ML207 app-without-prestop-delay: 12 in 9 workloads (Deployment web, … and 6
    /// more)`.
    fn line(&self) -> String {
        let names = self.names.join(", ");
        let workloads = match self.workloads {
            1 => names,
            n if n <= self.names.len() => format!("{n} workloads ({names})"),
            n => format!("{n} workloads ({names} and {} more)", n - self.names.len()),
        };
        format!(
            "{} {}: {} in {workloads}",
            self.rule.id, self.rule.name, self.findings
        )
    }
}

impl<W: Write> Reporter for HumanReporter<W> {
    fn findings(&mut self, findings: &[&Located]) -> io::Result<()> {
        for located in findings.iter().filter(|f| f.suppressed.is_none()) {
            if located.finding.severity == Severity::Info && !self.show_infos {
                self.group(located);
                continue;
            }
            let excerpts = self.excerpts(located);
            let diagnostic = FindingDiagnostic::new(located, &excerpts);
            self.rendered.clear();
            let _ = self.handler.render_report(&mut self.rendered, &diagnostic);
            self.rendered.push('\n');
            self.out.write_all(self.rendered.as_bytes())?;
        }
        Ok(())
    }

    fn input_error(&mut self, _: &InputError) -> io::Result<()> {
        // Input errors go to stderr, whatever the format.
        Ok(())
    }

    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        self.write_info_groups()?;
        if !self.quiet {
            writeln!(self.out, "{}", summary_line(summary))?;
            // What the verdict rests on, when there is a verdict.
            if summary.workloads > 0 && !self.assumptions.is_empty() {
                writeln!(
                    self.out,
                    "{}",
                    assumptions_block(&self.assumptions, self.style.columns())
                )?;
            }
        }
        self.out.flush()
    }
}

/// `Assumed: A · B · C`, wrapped at `width` between the assumptions (one wider than a
/// line wraps inside), continuation lines aligned after `Assumed: `.
fn assumptions_block(items: &[String], width: usize) -> String {
    const LEAD: &str = "Assumed: ";
    let indent = " ".repeat(LEAD.len());
    let mut lines = vec![LEAD.to_owned()];
    for (index, item) in items.iter().enumerate() {
        let piece = if index + 1 == items.len() {
            item.clone()
        } else {
            format!("{item} ·")
        };
        let length = piece.chars().count();
        let line = lines.last_mut().expect("there is a line");
        let used = line.chars().count();
        let empty = used == LEAD.len();
        if used + usize::from(!empty) + length <= width {
            if !empty {
                line.push(' ');
            }
            line.push_str(&piece);
        } else if indent.len() + length <= width {
            lines.push(format!("{indent}{piece}"));
        } else {
            let first = if empty {
                lines.pop().unwrap_or_default()
            } else {
                indent.clone()
            };
            lines.extend(
                wrap::wrap(&piece, width, &first, &indent)
                    .lines()
                    .map(str::to_owned),
            );
        }
    }
    lines.join("\n")
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
    if summary.unknown_kinds > 0 {
        line.push_str(&format!(
            "; {} holding a pod not linted (a kind the linter does not read: declare it in `workloadKinds`)",
            plural(summary.unknown_kinds, "object")
        ));
    }
    if summary.unfollowed_references > 0 {
        line.push_str(&format!(
            "; {} not linted (`spec.workloadRef` names no pod template among the inputs: see the {})",
            plural(summary.unfollowed_references, "Rollout"),
            if summary.unfollowed_references == 1 { "note" } else { "notes" }
        ));
    }
    line
}

/// One input error, rendered.
pub fn render_input_error(error: &InputError, style: Style) -> String {
    let diagnostic = InputDiagnostic::new(error);
    let mut out = String::new();
    let _ = style.handler().render_report(&mut out, &diagnostic);
    out
}

struct FindingDiagnostic<'a> {
    located: &'a Located,
    headline: String,
    excerpts: &'a Excerpts,
    /// `None` when a line to quote is too long: the headline says where instead.
    code: Option<DocumentCode>,
}

impl<'a> FindingDiagnostic<'a> {
    fn new(located: &'a Located, excerpts: &'a Arc<Excerpts>) -> Self {
        let subject = subject(&located.workload);
        let name = match &located.origin {
            Some(origin) => format!("{} (from {origin})", located.file),
            None => located.file.to_string(),
        };
        let places = std::iter::once(&located.primary).chain(&located.related);
        if !excerpts.quotable(places.map(|place| place.start)) {
            let start = located.primary.start;
            return FindingDiagnostic {
                headline: format!(
                    "{name}:{}:{}: {subject}: {}",
                    start.line, start.column, located.finding.message
                ),
                excerpts,
                code: None,
                located,
            };
        }
        FindingDiagnostic {
            headline: format!("{subject}: {}", located.finding.message),
            excerpts,
            code: Some(excerpts.code(name)),
            located,
        }
    }

    fn label(&self, place: &Place, primary: bool) -> LabeledSpan {
        let span = self.excerpts.span(place.start, place.end);
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
    /// The document's index and its text as miette source, when it can be quoted.
    code: Option<(Arc<Excerpts>, DocumentCode)>,
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
                .as_ref()
                .map(|source| Arc::new(Excerpts::new(source)))
                .filter(|excerpts| excerpts.quotable(positions))
                .map(|excerpts| {
                    let code = excerpts.code(error.file.to_string());
                    (excerpts, code)
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
        self.code.as_ref().map(|(_, c)| c as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let (excerpts, _) = self.code.as_ref()?;
        let pos: Pos = self.error.pos?;
        let mut labels = vec![LabeledSpan::new_primary_with_span(
            Some("here".into()),
            excerpts.span(pos, pos),
        )];
        if let Some((related, text)) = self.error.related.as_deref() {
            labels.push(LabeledSpan::new_with_span(
                Some(text.clone()),
                excerpts.span(*related, *related),
            ));
        }
        Some(Box::new(labels.into_iter()))
    }
}
