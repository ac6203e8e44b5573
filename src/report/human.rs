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
use super::summary_text::summary_block;
use super::{Reporter, Summary, subject, wrap};
use crate::escape;
use crate::load::{InputError, Pos};
use crate::pipeline::located::{Located, Place};
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
            .with_context_lines(CONTEXT_LINES)
    }
}

/// The lines quoted above and below a label.
const CONTEXT_LINES: usize = 2;

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
    /// Findings the baseline holds (`--show-baselined`), one line each, for the end.
    baselined: Vec<String>,
    /// How fixes are shown.
    fixes: FixView,
}

/// How the report shows fixes.
#[derive(Clone, Debug, Default)]
pub struct FixView {
    /// `--unsafe-fixes`: `--fix` makes the unsafe fixes too, so they are marked `[*]`.
    pub unsafe_fixes: bool,
    /// `--show-fixes`: each finding's fix as a diff under it.
    pub show_diffs: bool,
    /// `--fix --show-fixes`: the fixes made, by file and rule, listed before the
    /// summary.
    pub made: Vec<(String, Vec<(&'static RuleMeta, usize)>)>,
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
            baselined: Vec::new(),
            fixes: FixView::default(),
        }
    }

    /// Shows fixes as `view` says.
    pub fn fixes(mut self, view: FixView) -> Self {
        self.fixes = view;
        self
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
            let line = escape::controls(&group.line()).into_owned();
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
            if located.baselined {
                self.baselined.push(baselined_line(located));
                continue;
            }
            if located.finding.severity == Severity::Info && !self.show_infos {
                self.group(located);
                continue;
            }
            let excerpts = self.excerpts(located);
            let marked = located.fixable(self.fixes.unsafe_fixes);
            let diagnostic = FindingDiagnostic::new(located, &excerpts, marked);
            self.rendered.clear();
            let _ = self.handler.render_report(&mut self.rendered, &diagnostic);
            if self.fixes.show_diffs
                && let Some(block) = fix_diff(located, self.style)
            {
                self.rendered.push_str(&block);
            }
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
        if !self.baselined.is_empty() {
            let heading = format!("Baselined ({}, not failing):", self.baselined.len());
            writeln!(self.out, "{}", self.style.paint(&heading, Tone::Dim))?;
            for line in &self.baselined {
                writeln!(self.out, "  {line}")?;
            }
            writeln!(self.out)?;
        }
        if !self.quiet {
            if let Some(list) = made_list(&self.fixes.made) {
                writeln!(self.out, "{list}")?;
            }
            write!(self.out, "{}", summary_block(summary, self.style.columns()))?;
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
        let item = escape::controls(item);
        let piece = if index + 1 == items.len() {
            item.into_owned()
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

/// `ML201 grace-period-exceeded error: Deployment web (istio-proxy) at web.yaml:18:37`.
fn baselined_line(located: &Located) -> String {
    let finding = &located.finding;
    let container = finding
        .container
        .as_ref()
        .map(|c| format!(" (`{c}`)"))
        .unwrap_or_default();
    format!(
        "{} {} {}: {}{container} at {}:{}:{}",
        finding.rule.id,
        finding.rule.name,
        finding.severity,
        subject(&located.workload),
        located.file,
        located.primary.start.line,
        located.primary.start.column
    )
}

/// `--fix --show-fixes`: "Fixed 3 findings:", then each file and its fixes by rule.
fn made_list(made: &[(String, Vec<(&'static RuleMeta, usize)>)]) -> Option<String> {
    let total: usize = made
        .iter()
        .flat_map(|(_, rules)| rules)
        .map(|(_, n)| n)
        .sum();
    if total == 0 {
        return None;
    }
    let mut text = format!(
        "Fixed {total} finding{}:\n",
        if total == 1 { "" } else { "s" }
    );
    for (file, rules) in made {
        text.push_str(&format!("- {file}:\n"));
        for (rule, n) in rules {
            text.push_str(&format!("    {n} × {} ({})\n", rule.id, rule.name));
        }
    }
    Some(text)
}

/// `--show-fixes`: the finding's checked fix as the lines it changes, with their line
/// numbers before and after, under its diagnostic.
fn fix_diff(located: &Located, style: Style) -> Option<String> {
    let fix = located.checked_fix()?;
    let text = located.source.text.as_ref();
    let fixed = crate::fix::apply_fixes(text, std::slice::from_ref(fix), true).text;
    let diff = similar::TextDiff::from_lines(text, fixed.as_str());
    let first = located.source.first_line as usize;
    let width = style.columns();
    let heading = format!(
        "{} fix: {}",
        match fix.applicability {
            crate::fix::Applicability::Safe => "Safe",
            crate::fix::Applicability::Unsafe => "Unsafe",
            crate::fix::Applicability::DisplayOnly => "Display-only",
        },
        fix.description
    );
    // The heading wraps as prose after its mark; the mark is painted once it fits.
    let heading = wrap::wrap(&heading, width, "  ℹ ", "    ");
    let mut out = match heading.strip_prefix("  ℹ") {
        Some(rest) => format!("  {}{rest}\n", style.paint("ℹ", Tone::Cyan)),
        None => format!("{heading}\n"),
    };
    // The gutter: two old and new line numbers and the bar, 16 columns.
    const GUTTER: usize = 16;
    for group in diff.grouped_ops(1) {
        for op in group {
            for change in diff.iter_changes(&op) {
                let number = |index: Option<usize>| {
                    index.map_or_else(|| " ".repeat(5), |i| format!("{:>5}", first + i))
                };
                let (sign, tone) = match change.tag() {
                    similar::ChangeTag::Delete => ("-", Some(Tone::Red)),
                    similar::ChangeTag::Insert => ("+", Some(Tone::Green)),
                    similar::ChangeTag::Equal => (" ", None),
                };
                let code = change.value().trim_end_matches(['\n', '\r']);
                // A line wider than the terminal continues under itself, the gutter
                // left blank, rather than where the terminal would cut it.
                let pieces = wrap::code(code, width.saturating_sub(GUTTER + 2));
                for (index, piece) in pieces.iter().enumerate() {
                    let (old, new, sign) = if index == 0 {
                        (number(change.old_index()), number(change.new_index()), sign)
                    } else {
                        (number(None), number(None), " ")
                    };
                    let line = format!("{sign} {piece}");
                    out.push_str(&format!(
                        "  {old} {new} │ {}\n",
                        match tone {
                            Some(tone) => style.paint(&line, tone),
                            None => escape::controls(&line).into_owned(),
                        }
                    ));
                }
            }
        }
    }
    Some(out)
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
    /// Whether `--fix` makes its fix: `[*]` after the rule.
    marked: bool,
    headline: String,
    excerpts: &'a Excerpts,
    /// `None` when a line to quote is too long: the headline says where instead.
    code: Option<DocumentCode>,
}

impl<'a> FindingDiagnostic<'a> {
    fn new(located: &'a Located, excerpts: &'a Arc<Excerpts>, marked: bool) -> Self {
        let subject = subject(&located.workload);
        let name = match &located.origin {
            Some(origin) => format!("{} (from {origin})", located.file),
            None => located.file.to_string(),
        };
        let places = std::iter::once(&located.primary).chain(&located.related);
        if !excerpts.quotable(places.map(|place| place.start)) {
            let start = located.primary.start;
            return FindingDiagnostic {
                headline: escape::controls(&format!(
                    "{name}:{}:{}: {subject}: {}",
                    start.line, start.column, located.finding.message
                ))
                .into_owned(),
                excerpts,
                code: None,
                located,
                marked,
            };
        }
        let name = escape::controls(&name).into_owned();
        let code = match opening_line(located) {
            Some(line) => excerpts.code_from(name, line),
            None => excerpts.code(name),
        };
        FindingDiagnostic {
            headline: escape::controls(&format!("{subject}: {}", located.finding.message))
                .into_owned(),
            excerpts,
            code: Some(code),
            located,
            marked,
        }
    }

    fn label(&self, place: &Place, primary: bool) -> LabeledSpan {
        let span = match &self.code {
            Some(code) => code.span(place.start, place.end),
            None => self.excerpts.span(place.start, place.end),
        };
        let text = Some(escape::controls(&place.text).into_owned()).filter(|t| !t.is_empty());
        if primary {
            LabeledSpan::new_primary_with_span(text, span)
        } else {
            LabeledSpan::new_with_span(text, span)
        }
    }
}

/// Where the excerpts of `located` must start for the first to quote its primary
/// place, when a related place lies above it, out of reach of its excerpt: the first
/// line quoted with the primary place (the related places near enough to share its
/// excerpt among it). miette quotes excerpts top to bottom, so without this a Job's
/// finding at its proxy (line 107) would open at its work container (line 31) while
/// every machine format says 107. `None` when the primary place comes first anyway.
fn opening_line(located: &Located) -> Option<u32> {
    let primary = located.primary.start.line;
    let mut above: Vec<u32> = located
        .related
        .iter()
        .map(|place| place.start.line)
        .filter(|&line| line < primary)
        .collect();
    above.sort_unstable_by(|a, b| b.cmp(a));
    // Two excerpts share their lines, and so are one, when their labels are at most
    // this far apart (each quotes CONTEXT_LINES around its label).
    let reach = 2 * CONTEXT_LINES as u32 + 1;
    let mut start = primary;
    for line in &above {
        if start - line <= reach {
            start = *line;
        }
    }
    above
        .iter()
        .any(|&line| line < start)
        .then(|| start.saturating_sub(CONTEXT_LINES as u32).max(1))
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
        let mark = if self.marked { " [*]" } else { "" };
        Some(Box::new(format!("{}({}){mark}", rule.id, rule.name)))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.located.finding.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        })
    }

    /// The help, and the premises the finding rests on with how to settle them.
    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        let finding = &self.located.finding;
        match crate::report::evidence::brief(&finding.evidence) {
            None => Some(Box::new(escape::controls(&finding.help))),
            Some(brief) => Some(Box::new(
                escape::controls(&format!("{}\n{brief}", finding.help)).into_owned(),
            )),
        }
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
        let headline = escape::controls(&headline).into_owned();
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
                    let code = excerpts.code(escape::controls(&error.file).into_owned());
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
                Some(escape::controls(text).into_owned()),
                excerpts.span(*related, *related),
            ));
        }
        Some(Box::new(labels.into_iter()))
    }
}
