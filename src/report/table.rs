//! `--format table`: one row per finding, for a terminal or a CI log where a short
//! overview matters more than the YAML excerpt.

use std::io::{self, Write};

use comfy_table::{ColumnConstraint, ContentArrangement, Table, Width, presets};

use super::human::{Style, summary_line};
use super::{Reporter, Summary, subject};
use crate::load::InputError;
use crate::pipeline::Located;

/// Collects rows as documents arrive and draws the table at the end, when every
/// column's width is known.
pub struct TableReporter<W: Write> {
    out: W,
    style: Style,
    quiet: bool,
    rows: Vec<[String; 4]>,
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

/// Location, severity, rule, and the finding as the human format heads it.
fn row(located: &Located) -> [String; 4] {
    let finding = &located.finding;
    let mut location = format!(
        "{}:{}:{}",
        located.file, located.primary.start.line, located.primary.start.column
    );
    if let Some(origin) = &located.origin {
        location.push_str(&format!("\n(from {origin})"));
    }
    [
        location,
        finding.severity.to_string(),
        format!("{}\n{}", finding.rule.id, finding.rule.name),
        format!("{}: {}", subject(&located.workload), finding.message),
    ]
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
            let mut table = Table::new();
            table
                .load_style(if self.style.unicode {
                    presets::UTF8_FULL_CONDENSED
                } else {
                    presets::ASCII_FULL_CONDENSED
                })
                .set_content_arrangement(ContentArrangement::Dynamic)
                .set_width(u16::try_from(self.style.width).unwrap_or(u16::MAX))
                .set_header(["Location", "Severity", "Rule", "Finding"]);
            // Rule names are what `--select`, `--ignore` and suppressions take: never
            // break them.
            let name_width = self
                .rows
                .iter()
                .filter_map(|row| row[2].lines().map(str::len).max())
                .max()
                .unwrap_or(0);
            // Paths wrap well; the finding is what a reader came for.
            if let Some(column) = table.column_mut(0) {
                column.set_constraint(ColumnConstraint::UpperBoundary(Width::Percentage(25)));
            }
            if let Some(column) = table.column_mut(2) {
                // The width includes the cell's padding of one space on each side.
                column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(
                    u16::try_from(name_width + 2).unwrap_or(u16::MAX),
                )));
            }
            for row in self.rows.drain(..) {
                table.add_row(row);
            }
            writeln!(self.out, "{table}")?;
        }
        if !self.quiet {
            writeln!(self.out, "{}", summary_line(summary))?;
        }
        self.out.flush()
    }
}
