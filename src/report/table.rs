//! `--format table`: one row per finding, for a terminal or a CI log where a short
//! overview matters more than the YAML excerpt.

use std::io::{self, Write};

use comfy_table::{Attribute, Cell, Table};

use super::style::{Style, Tone};
use super::{Reporter, Summary, subject, wrap};
use crate::escape;
use crate::load::InputError;
use crate::pipeline::located::Located;
use crate::rules::{RuleMeta, Severity};

/// Collects rows as documents arrive and draws the table at the end, when every
/// column's width is known.
pub struct TableReporter<W: Write> {
    out: W,
    style: Style,
    quiet: bool,
    rows: Vec<Row>,
}

/// One finding's row, before it is laid out.
struct Row {
    /// `file:line:column`, and where Helm rendered the workload from.
    location: Vec<String>,
    severity: Severity,
    rule: &'static RuleMeta,
    /// The finding as the human format heads it.
    finding: String,
}

impl<W: Write> TableReporter<W> {
    /// A reporter that collects rows and prints the table when it finishes.
    pub fn new(out: W, style: Style, quiet: bool) -> Self {
        TableReporter {
            out,
            style,
            quiet,
            rows: Vec::new(),
        }
    }
}

/// Location, severity, rule, and the finding as the human format heads it, their
/// control characters shown as escapes.
fn row(located: &Located) -> Row {
    let finding = &located.finding;
    let shown = |text: String| escape::controls(&text).into_owned();
    let mut location = vec![shown(format!(
        "{}:{}:{}",
        located.file, located.primary.start.line, located.primary.start.column
    ))];
    if let Some(origin) = &located.origin {
        location.push(shown(format!("(from {origin})")));
    }
    Row {
        location,
        severity: finding.severity,
        rule: finding.rule,
        finding: shown(format!(
            "{}: {}",
            subject(&located.workload),
            finding.message
        )),
    }
}

impl<W: Write> Reporter for TableReporter<W> {
    fn findings(&mut self, findings: &[&Located]) -> io::Result<()> {
        self.rows.extend(
            findings
                .iter()
                .filter(|f| f.suppressed.is_none())
                .map(|f| row(f)),
        );
        Ok(())
    }

    fn input_error(&mut self, _: &InputError) -> io::Result<()> {
        // Input errors go to stderr, whatever the format.
        Ok(())
    }

    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        if !self.rows.is_empty() {
            let table = draw(&self.rows, self.style);
            writeln!(self.out, "{table}")?;
            self.rows.clear();
        }
        if !self.quiet {
            let block = super::summary_text::summary_block(summary, self.style.columns());
            write!(self.out, "{block}")?;
        }
        self.out.flush()
    }
}

/// The narrowest finding column beside a location column.
const MIN_FINDING: usize = 40;

/// Which columns the table has, widest first: the narrower layouts move a column's
/// content to the top of the finding's cell.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// Location, severity, rule, finding.
    Full,
    /// Severity, rule, then location and finding.
    NoLocation,
    /// Severity, then location, rule and finding.
    SeverityOnly,
}

/// The table, laid out for the style's width. The finding column, what a reader came
/// for, gets at least [`MIN_FINDING`] columns and never less than its longest word;
/// rule ids and names, severities and numbers with their units are never broken. When
/// the locations do not fit beside it, each goes on the first line of its finding
/// instead of in a column of its own, so that no path is cut, and on a narrower
/// terminal still the rule id goes there too.
fn draw(rows: &[Row], style: Style) -> Table {
    let chars = |text: &str| text.chars().count();
    let widest = |texts: &mut dyn Iterator<Item = usize>, header: &str| {
        texts.chain([chars(header)]).max().unwrap_or(0)
    };
    let severity = widest(
        &mut rows.iter().map(|r| chars(r.severity.as_str())),
        "Severity",
    );
    let rule = widest(&mut rows.iter().map(|r| chars(r.rule.id)), "Rule");
    let location = widest(
        &mut rows
            .iter()
            .flat_map(|r| r.location.iter().map(|l| chars(l))),
        "Location",
    );
    let unbreakable = widest(
        &mut rows
            .iter()
            .flat_map(|r| [chars(r.rule.name), wrap::longest_unbreakable(&r.finding)]),
        "Finding",
    );
    // Borders and a space of padding on each side of every cell.
    let chrome = |columns: usize| columns + 1 + 2 * columns;
    let width = style.columns();
    let room = |columns: usize, taken: usize| width.saturating_sub(chrome(columns) + taken);
    let (layout, finding) = if location + unbreakable.max(MIN_FINDING) <= room(4, severity + rule) {
        (Layout::Full, room(4, severity + rule) - location)
    } else if unbreakable <= room(3, severity + rule) {
        (Layout::NoLocation, room(3, severity + rule))
    } else {
        (Layout::SeverityOnly, room(2, severity).max(unbreakable))
    };
    let mut table = match layout {
        Layout::Full => style.table(&["Location", "Severity", "Rule", "Finding"]),
        Layout::NoLocation => style.table(&["Severity", "Rule", "Location and finding"]),
        Layout::SeverityOnly => style.table(&["Severity", "Finding"]),
    };
    for row in rows {
        let severity = Cell::new(row.severity.as_str()).fg(Tone::of(row.severity).cell_color());
        let rule = Cell::new(row.rule.id).add_attribute(Attribute::Bold);
        let name = match layout {
            Layout::SeverityOnly => wrap::wrap(
                &format!("{} {}", row.rule.id, row.rule.name),
                finding,
                "",
                "",
            ),
            _ => row.rule.name.to_owned(),
        };
        let text = format!("{name}\n{}", wrap::wrap(&row.finding, finding, "", ""));
        let location = || -> String {
            let lines: Vec<String> = row
                .location
                .iter()
                .map(|line| wrap::wrap_path(line, finding))
                .collect();
            lines.join("\n")
        };
        match layout {
            Layout::Full => table.add_row([
                Cell::new(row.location.join("\n")),
                severity,
                rule,
                Cell::new(text),
            ]),
            Layout::NoLocation => {
                table.add_row([severity, rule, Cell::new(format!("{}\n{text}", location()))])
            }
            Layout::SeverityOnly => {
                table.add_row([severity, Cell::new(format!("{}\n{text}", location()))])
            }
        };
    }
    table
}
