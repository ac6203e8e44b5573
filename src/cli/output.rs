//! Where a report goes and how it is drawn.

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::report::human::Style;

/// Output destination and colour.
#[derive(Debug, Args)]
#[command(next_help_heading = "Report")]
pub struct Output {
    /// Write the report to FILE instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub output: Option<PathBuf>,

    /// When to use colour (NO_COLOR is honoured).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
}

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl Output {
    /// The writer for the report.
    pub fn writer(&self) -> io::Result<Box<dyn Write>> {
        Ok(match &self.output {
            Some(path) => Box::new(BufWriter::new(File::create(path).map_err(|error| {
                io::Error::new(
                    error.kind(),
                    format!("cannot write {}: {error}", path.display()),
                )
            })?)),
            None => Box::new(BufWriter::new(io::stdout().lock())),
        })
    }

    /// The style of the report itself: colour only on a terminal.
    pub fn style(&self) -> Style {
        let terminal = self.output.is_none() && io::stdout().is_terminal();
        style_for(self.color, terminal)
    }

    /// The style of diagnostics on stderr.
    pub fn stderr_style(&self) -> Style {
        style_for(self.color, io::stderr().is_terminal())
    }
}

fn style_for(choice: ColorChoice, terminal: bool) -> Style {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let color = match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && !no_color,
    };
    let width = if terminal {
        terminal_width().unwrap_or(100)
    } else {
        100
    };
    Style {
        color,
        unicode: true,
        width,
    }
}

pub(super) fn terminal_width() -> Option<usize> {
    std::env::var("COLUMNS").ok()?.parse().ok()
}
