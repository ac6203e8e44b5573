//! How text reports are drawn: colour or not, box-drawing characters or ASCII, and the
//! width to wrap at. The command line decides (`--color`, `NO_COLOR`, `COLUMNS`, the
//! terminal); every text renderer follows the same [`Style`].

use crate::rules::Severity;

/// How text reports are drawn.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// ANSI colours (off for NO_COLOR and when the output is not a terminal).
    pub color: bool,
    /// Box-drawing characters rather than ASCII.
    pub unicode: bool,
    /// Columns to wrap at.
    pub width: usize,
}

/// The width of a report that does not go to a terminal, when `COLUMNS` does not say.
pub const DEFAULT_WIDTH: usize = 100;

/// The narrowest width reports are laid out for: below it, lines run past the edge
/// rather than break into fragments.
pub const MIN_WIDTH: usize = 40;

/// A colour (or weight) for a stretch of text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// Errors, SIGKILL, hazards.
    Red,
    /// Warnings.
    Yellow,
    /// Infos.
    Cyan,
    /// Ready, routed.
    Green,
    /// Running.
    Blue,
    /// Hooks.
    Magenta,
    /// Headings.
    Bold,
    /// Axis ticks, secondary text.
    Dim,
}

impl Tone {
    /// The colour of a severity, as miette draws it.
    pub fn of(severity: Severity) -> Tone {
        match severity {
            Severity::Error => Tone::Red,
            Severity::Warning => Tone::Yellow,
            Severity::Info => Tone::Cyan,
        }
    }

    fn sgr(self) -> &'static str {
        match self {
            Tone::Red => "31",
            Tone::Yellow => "33",
            Tone::Cyan => "36",
            Tone::Green => "32",
            Tone::Blue => "34",
            Tone::Magenta => "35",
            Tone::Bold => "1",
            Tone::Dim => "2",
        }
    }
}

impl Tone {
    /// The same colour for a table cell.
    pub fn cell_color(self) -> comfy_table::Color {
        match self {
            Tone::Red => comfy_table::Color::Red,
            Tone::Yellow => comfy_table::Color::Yellow,
            Tone::Cyan => comfy_table::Color::Cyan,
            Tone::Green => comfy_table::Color::Green,
            Tone::Blue => comfy_table::Color::Blue,
            Tone::Magenta => comfy_table::Color::Magenta,
            Tone::Bold | Tone::Dim => comfy_table::Color::Reset,
        }
    }
}

impl Style {
    /// An empty table drawn in this style, with bold `header`. Its content is laid out
    /// by the caller (wrapped with [`crate::report::wrap`]), never by the table, which
    /// would break words anywhere.
    pub fn table(&self, header: &[&str]) -> comfy_table::Table {
        use comfy_table::{Attribute, Cell, ContentArrangement, presets};
        let mut table = comfy_table::Table::new();
        table
            .load_style(if self.unicode {
                presets::UTF8_FULL_CONDENSED
            } else {
                presets::ASCII_FULL_CONDENSED
            })
            .set_content_arrangement(ContentArrangement::Disabled);
        if self.color {
            table.enforce_styling();
        } else {
            table.force_no_tty();
        }
        table.set_header(
            header
                .iter()
                .map(|h| Cell::new(h).add_attribute(Attribute::Bold)),
        );
        table
    }

    /// Plain output for files, pipes and tests.
    pub fn plain() -> Self {
        Style {
            color: false,
            unicode: true,
            width: DEFAULT_WIDTH,
        }
    }

    /// `text` in `tone` when colour is on, else as it is; its own control characters
    /// shown as escapes either way ([`crate::escape::controls`]), so that the only
    /// escape sequences written are the colours.
    pub fn paint(&self, text: &str, tone: Tone) -> String {
        let text = crate::escape::controls(text);
        if self.color && !text.is_empty() {
            format!("\x1b[{}m{text}\x1b[0m", tone.sgr())
        } else {
            text.into_owned()
        }
    }

    /// The width to lay text out for.
    pub fn columns(&self) -> usize {
        self.width.max(MIN_WIDTH)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paints_only_with_colour_on() {
        let plain = Style::plain();
        assert_eq!(plain.paint("error", Tone::Red), "error");
        let color = Style {
            color: true,
            ..plain
        };
        assert_eq!(color.paint("error", Tone::Red), "\x1b[31merror\x1b[0m");
        assert_eq!(color.paint("", Tone::Red), "");
    }
}
