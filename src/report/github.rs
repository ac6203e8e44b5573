//! `--format github`: GitHub Actions workflow commands, which GitHub turns into
//! annotations on the lines of the pull request.
//!
//! `::error file=F,line=L,col=C,endLine=L,endColumn=C,title=ML201 grace-period-exceeded::message`
//! for errors, `::warning` for warnings and `::notice` for infos, with GitHub's
//! escaping (data: `%`, CR, LF; property values also `:` and `,`). Columns are given
//! only for a node on one line, as GitHub ignores them across lines. Paths are relative
//! to the base directory (the checkout, `$GITHUB_WORKSPACE`); input from standard input
//! has no file to annotate, so its annotations name the line in the message instead.
//!
//! GitHub shows at most [`ANNOTATION_LIMIT`] annotations of each level per step and
//! drops the rest. Annotations are written at the end of the run so that, when there
//! are more than that, a notice saying so comes first; the job summary
//! (`$GITHUB_STEP_SUMMARY`, when given) receives the findings as a Markdown table.
//! GitHub drops a step's whole summary when its file passes [`SUMMARY_LIMIT`], so the
//! table stops short of it, with a line saying how many rows were left out and where
//! every finding is.

use std::io::{self, Write};

use super::paths::{Artifact, PathBase};
use super::summary_text::summary_line;
use super::{Reporter, Summary, subject};
use crate::cluster::Sources;
use crate::escape;
use crate::load::InputError;
use crate::pipeline::located::Located;
use crate::rules::Severity;

/// Annotations of one level that GitHub shows per step.
const ANNOTATION_LIMIT: usize = 10;

/// The largest step summary file GitHub uploads, in bytes: a larger one is dropped
/// whole, with an error annotation (actions/runner, `src/Runner.Worker/
/// FileCommandManager.cs`, `CreateStepSummaryCommand.AttachmentSizeLimit`).
const SUMMARY_LIMIT: u64 = 1024 * 1024;

/// Bytes kept free below [`SUMMARY_LIMIT`] for the lines that close the summary.
const SUMMARY_TAIL: u64 = 4096;

/// Where the job summary goes and how it links to files.
pub struct StepSummary {
    /// The file named by `GITHUB_STEP_SUMMARY`.
    pub out: Box<dyn Write>,
    /// What the file holds already (earlier commands of the same step).
    pub existing: u64,
    /// `https://github.com/OWNER/REPO/blob/SHA/`: links locations to the commit.
    pub blob_url: Option<String>,
    /// Where every finding is when the table is cut short: "this step's log", or the
    /// `--output-file` file.
    pub full_report: String,
}

/// A writer that counts what it writes.
struct Counted<'a> {
    out: &'a mut dyn Write,
    written: u64,
}

impl Write for Counted<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let n = self.out.write(bytes)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Collects annotations and writes them, and the job summary, at the end.
pub struct GithubReporter<W: Write> {
    out: W,
    base: PathBase,
    quiet: bool,
    step_summary: Option<StepSummary>,
    annotations: Vec<Annotation>,
    suppressed: Vec<Annotation>,
    sources: Sources,
}

/// One finding or input error, ready to print.
struct Annotation {
    level: Level,
    /// Relative path, or `None` for standard input.
    file: Option<String>,
    /// The name as the user gave it.
    display: String,
    line: Option<u32>,
    column: Option<u32>,
    end: Option<(u32, u32)>,
    title: String,
    workload: String,
    message: String,
    help: String,
    suppressed: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Error,
    Warning,
    Notice,
}

impl Level {
    fn command(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Notice => "notice",
        }
    }

    fn of(severity: Severity) -> Level {
        match severity {
            Severity::Error => Level::Error,
            Severity::Warning => Level::Warning,
            Severity::Info => Level::Notice,
        }
    }
}

impl<W: Write> GithubReporter<W> {
    /// An annotation about an input, at its place.
    fn annotate(&mut self, error: &InputError, level: Level, title: &str) {
        self.annotations.push(Annotation {
            level,
            file: self.file(&error.file),
            display: error.file.to_string(),
            line: error.pos.map(|p| p.line),
            column: error.pos.map(|p| p.column),
            end: None,
            title: title.to_owned(),
            workload: String::new(),
            message: error.message.clone(),
            help: String::new(),
            suppressed: None,
        });
    }

    /// A reporter whose paths are relative to `base` (the repository checkout).
    pub fn new(out: W, base: PathBase, quiet: bool, step_summary: Option<StepSummary>) -> Self {
        GithubReporter {
            out,
            base,
            quiet,
            step_summary,
            annotations: Vec::new(),
            suppressed: Vec::new(),
            sources: Sources::default(),
        }
    }

    /// The objects of a cluster run, which are named, not attached to files.
    pub fn with_sources(mut self, sources: Sources) -> Self {
        self.sources = sources;
        self
    }

    /// The `file=` of an input: its path relative to the checkout; `None` for
    /// standard input and for what was read from a cluster, which is no file of the
    /// repository (an object's name could be anything, `../../etc/passwd` too).
    fn file(&self, file: &str) -> Option<String> {
        if self.sources.object(file).is_some() || self.sources.is_command(file) {
            return None;
        }
        match self.base.artifact(file) {
            Artifact::Stdin => None,
            Artifact::Relative(path) => Some(path),
            Artifact::Absolute(path) => Some(path.to_string_lossy().into_owned()),
        }
    }

    fn write_annotations(&mut self) -> io::Result<()> {
        let count = |level| self.annotations.iter().filter(|a| a.level == level).count();
        let counts = [
            (count(Level::Error), "error"),
            (count(Level::Warning), "warning"),
            (count(Level::Notice), "notice"),
        ];
        if counts.iter().any(|(n, _)| *n > ANNOTATION_LIMIT) {
            let found: Vec<String> = counts
                .iter()
                .filter(|(n, _)| *n > 0)
                .map(|(n, word)| format!("{n} {word}{}", if *n == 1 { "" } else { "s" }))
                .collect();
            let rest = if self.step_summary.is_some() {
                "every finding is in this log and, up to GitHub's 1 MiB limit, in the job summary"
            } else {
                "every finding is in this log"
            };
            writeln!(
                self.out,
                "::notice title={}::{}",
                escape_property("kubectl mesh-lifecycle: more findings than annotations"),
                escape_data(&format!(
                    "{}; GitHub shows at most {ANNOTATION_LIMIT} annotations of each level per step, {rest}",
                    found.join(", ")
                ))
            )?;
        }
        for annotation in &self.annotations {
            writeln!(self.out, "{}", command(annotation))?;
        }
        Ok(())
    }

    fn write_step_summary(&mut self, summary: &Summary) -> io::Result<()> {
        let Some(step) = self.step_summary.as_mut() else {
            return Ok(());
        };
        let budget = SUMMARY_LIMIT.saturating_sub(step.existing + SUMMARY_TAIL);
        let blob_url = step.blob_url.as_deref();
        let mut out = Counted {
            out: &mut step.out,
            written: 0,
        };
        writeln!(out, "### kubectl mesh-lifecycle\n")?;
        writeln!(out, "{}\n", markdown_cell(&summary_line(summary)))?;
        let mut left_out = 0;
        if !self.annotations.is_empty() {
            writeln!(out, "| Level | Rule | Location | Workload | Finding |")?;
            writeln!(out, "|---|---|---|---|---|")?;
            left_out += table_rows(&mut out, &self.annotations, blob_url, budget, false)?;
            writeln!(out)?;
        }
        if !self.suppressed.is_empty() {
            writeln!(out, "<details><summary>Suppressed findings</summary>\n")?;
            writeln!(out, "| Rule | Location | Workload | Finding | Reason |")?;
            writeln!(out, "|---|---|---|---|---|")?;
            left_out += table_rows(&mut out, &self.suppressed, blob_url, budget, true)?;
            writeln!(out, "\n</details>\n")?;
        }
        if left_out > 0 {
            writeln!(
                out,
                "**{left_out} more {} not shown here**: GitHub accepts at most 1 MiB of job summary per step. Every finding is in {}.\n",
                if left_out == 1 { "row is" } else { "rows are" },
                markdown_cell(&step.full_report)
            )?;
        }
        out.flush()
    }
}

/// Writes the rows of a summary table while the summary stays within `budget` bytes;
/// returns how many were left out.
fn table_rows(
    out: &mut Counted<'_>,
    rows: &[Annotation],
    blob_url: Option<&str>,
    budget: u64,
    suppressed: bool,
) -> io::Result<usize> {
    for (index, row) in rows.iter().enumerate() {
        let location = location_link(row, blob_url);
        let finding = if row.help.is_empty() {
            markdown_cell(&row.message)
        } else {
            format!(
                "{}<br>**Fix:** {}",
                markdown_cell(&row.message),
                markdown_cell(&row.help)
            )
        };
        let line = if suppressed {
            format!(
                "| {} | {location} | {} | {finding} | {} |\n",
                markdown_cell(&row.title),
                markdown_cell(&row.workload),
                markdown_cell(row.suppressed.as_deref().unwrap_or_default())
            )
        } else {
            format!(
                "| {} | {} | {location} | {} | {finding} |\n",
                row.level.command(),
                markdown_cell(&row.title),
                markdown_cell(&row.workload)
            )
        };
        if out.written + line.len() as u64 > budget {
            return Ok(rows.len() - index);
        }
        out.write_all(line.as_bytes())?;
    }
    Ok(0)
}

/// `file:line:column`, linked to the line at the commit when a blob URL is known.
fn location_link(row: &Annotation, blob_url: Option<&str>) -> String {
    let mut text = row.display.clone();
    if let Some(line) = row.line {
        text.push_str(&format!(":{line}"));
        if let Some(column) = row.column {
            text.push_str(&format!(":{column}"));
        }
    }
    let text = format!("`{}`", escape::controls(&text).replace('`', "'"));
    match (blob_url, &row.file, row.line) {
        (Some(url), Some(file), Some(line)) if !file.starts_with('/') => {
            format!("[{text}]({url}{}#L{line})", super::paths::encode_path(file))
        }
        _ => text,
    }
}

/// A table cell: pipes escaped, HTML neutralised, control characters shown as
/// escapes, line breaks as `<br>` with each line's indentation kept (fixes carry YAML
/// snippets).
fn markdown_cell(text: &str) -> String {
    let lines: Vec<String> = escape::controls(text)
        .lines()
        .map(|line| {
            let body = line.trim_start_matches(' ');
            let indent = "&nbsp;".repeat(line.len() - body.len());
            let body = body
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('|', "\\|");
            indent + &body
        })
        .collect();
    lines.join("<br>")
}

/// The workflow command of one annotation.
fn command(annotation: &Annotation) -> String {
    let mut properties = Vec::new();
    let mut message = String::new();
    match &annotation.file {
        Some(file) => {
            properties.push(("file", file.clone()));
            if let Some(line) = annotation.line {
                properties.push(("line", line.to_string()));
                if let Some((end_line, end_column)) = annotation.end {
                    // GitHub takes columns only for an annotation on one line.
                    if end_line == line {
                        if let Some(column) = annotation.column {
                            properties.push(("col", column.to_string()));
                        }
                        properties.push(("endColumn", end_column.to_string()));
                    } else {
                        properties.push(("endLine", end_line.to_string()));
                    }
                } else if let Some(column) = annotation.column {
                    properties.push(("col", column.to_string()));
                }
            }
        }
        None => {
            // Nothing to attach the annotation to: say where in the message.
            message.push_str(&annotation.display);
            if let Some(line) = annotation.line {
                message.push_str(&format!(":{line}"));
                if let Some(column) = annotation.column {
                    message.push_str(&format!(":{column}"));
                }
            }
            message.push_str(": ");
        }
    }
    properties.push(("title", annotation.title.clone()));
    if !annotation.workload.is_empty() {
        message.push_str(&annotation.workload);
        message.push_str(": ");
    }
    message.push_str(&annotation.message);
    if !annotation.help.is_empty() {
        message.push_str("\n\nFix: ");
        message.push_str(&annotation.help);
    }
    let properties: Vec<String> = properties
        .into_iter()
        .map(|(key, value)| format!("{key}={}", escape_property(&value)))
        .collect();
    format!(
        "::{} {}::{}",
        annotation.level.command(),
        properties.join(","),
        escape_data(&message)
    )
}

/// Escapes a command's message (GitHub's `escapeData`), its control characters
/// shown as escapes first: the runner would act on them as a terminal does.
fn escape_data(text: &str) -> String {
    let encoded = text
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    escape::controls(&encoded).into_owned()
}

/// Escapes a property value (GitHub's `escapeProperty`).
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

impl<W: Write> Reporter for GithubReporter<W> {
    fn findings(&mut self, findings: &[&Located]) -> io::Result<()> {
        for located in findings {
            let finding = &located.finding;
            let mut workload = subject(&located.workload);
            if let Some(origin) = &located.origin {
                workload.push_str(&format!(" (from {origin})"));
            }
            let annotation = Annotation {
                level: Level::of(finding.severity),
                file: self.file(&located.file),
                display: located.file.to_string(),
                line: Some(located.primary.start.line),
                column: Some(located.primary.start.column),
                end: (located.primary.end > located.primary.start)
                    .then_some((located.primary.end.line, located.primary.end.column)),
                title: format!("{} {}", finding.rule.id, finding.rule.name),
                workload,
                message: finding.message.clone(),
                help: finding.help.clone(),
                suppressed: located.suppressed.clone(),
            };
            if annotation.suppressed.is_some() {
                self.suppressed.push(annotation);
            } else {
                self.annotations.push(annotation);
            }
        }
        Ok(())
    }

    fn input_error(&mut self, error: &InputError) -> io::Result<()> {
        self.annotate(error, Level::Error, "input error");
        Ok(())
    }

    fn note(&mut self, note: &InputError) -> io::Result<()> {
        self.annotate(note, Level::Warning, "not linted");
        Ok(())
    }

    fn run_note(&mut self, note: &InputError) -> io::Result<()> {
        self.annotate(note, Level::Notice, crate::PLUGIN_NAME);
        Ok(())
    }

    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        self.write_annotations()?;
        if !self.quiet {
            writeln!(self.out, "{}", summary_line(summary))?;
        }
        self.write_step_summary(summary)?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_github_does() {
        assert_eq!(escape_data("100% done\r\nnext"), "100%25 done%0D%0Anext");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }

    #[test]
    fn markdown_cells_cannot_break_the_table() {
        assert_eq!(
            markdown_cell("a | b\n<script>\n  x: 1"),
            "a \\| b<br>&lt;script&gt;<br>&nbsp;&nbsp;x: 1"
        );
    }
}
