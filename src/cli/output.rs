//! Where a report goes and how it is drawn.

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::report::style::{DEFAULT_WIDTH, Style};

/// Output destination and colour.
#[derive(Debug, Args)]
#[command(next_help_heading = "Report")]
pub struct Output {
    /// Write the report to FILE instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub output: Option<PathBuf>,

    /// When to colour the report and diagnostics.
    #[command(flatten)]
    pub color: Color,
}

/// `--color`, for every command that prints text that can be coloured.
#[derive(Debug, Args)]
#[command(next_help_heading = "Report")]
pub struct Color {
    /// When to use colour: auto colours a terminal unless NO_COLOR is set; always and
    /// never override both.
    #[arg(long = "color", value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub choice: ColorChoice,
}

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour on a terminal, unless NO_COLOR is set.
    Auto,
    /// Colour, wherever the output goes.
    Always,
    /// No colour.
    Never,
}

/// Which standard stream a style is for: its width and whether it is a terminal.
#[derive(Clone, Copy, Debug)]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

impl Stream {
    fn is_terminal(self) -> bool {
        match self {
            Stream::Stdout => io::stdout().is_terminal(),
            Stream::Stderr => io::stderr().is_terminal(),
        }
    }

    fn terminal_width(self) -> Option<usize> {
        let size = match self {
            Stream::Stdout => terminal_size::terminal_size_of(io::stdout()),
            Stream::Stderr => terminal_size::terminal_size_of(io::stderr()),
        };
        size.map(|(width, _)| usize::from(width.0))
            .filter(|w| *w > 0)
    }
}

impl Color {
    /// The style of text written to `stream`, or to a file when `stream` is `None`.
    pub fn style(&self, stream: Option<Stream>) -> Style {
        let terminal = stream.is_some_and(Stream::is_terminal);
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let color = match self.choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => terminal && !no_color,
        };
        // COLUMNS wins, as for ls and clap; then the terminal's own width.
        let width = columns()
            .or_else(|| stream.filter(|s| s.is_terminal())?.terminal_width())
            .unwrap_or(DEFAULT_WIDTH);
        Style {
            color,
            unicode: true,
            width,
        }
    }
}

/// `COLUMNS`, when it holds a width.
fn columns() -> Option<usize> {
    std::env::var("COLUMNS")
        .ok()?
        .trim()
        .parse()
        .ok()
        .filter(|w| *w > 0)
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
        let stream = self.output.is_none().then_some(Stream::Stdout);
        self.color.style(stream)
    }

    /// The style of diagnostics on stderr.
    pub fn stderr_style(&self) -> Style {
        self.color.style(Some(Stream::Stderr))
    }
}
