//! Where a report goes and how it is drawn.

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use std::ffi::OsStr;
use std::marker::PhantomData;

use clap::builder::{EnumValueParser, PossibleValue, TypedValueParser};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Args, ValueEnum};

use crate::report::style::{DEFAULT_WIDTH, Style};

/// Output destination and colour.
#[derive(Debug, Args)]
#[command(next_help_heading = "Report")]
pub struct Output {
    /// Write the report to FILE instead of standard output (-o picks the format).
    #[arg(id = "output_file", long = "output-file", value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub output: Option<PathBuf>,

    /// When to colour the report and diagnostics.
    #[command(flatten)]
    pub color: Color,
}

/// The parser of `-o`/`--output`, the format: kubectl's `-o json`. A value that is no
/// format of the command is refused with a tip where it reads as something else: a
/// path (the report file, once `--output FILE`, is `--output-file`), or `yaml` where
/// the machine form is JSON.
#[derive(Clone, Debug)]
pub struct Format<E>(PhantomData<E>);

impl<E> Format<E> {
    /// The parser of `E`'s values.
    pub fn new() -> Self {
        Format(PhantomData)
    }
}

impl<E> Default for Format<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: ValueEnum + Clone + Send + Sync + 'static> TypedValueParser for Format<E> {
    type Value = E;

    fn parse_ref(
        &self,
        command: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<E, clap::Error> {
        let mut error = match EnumValueParser::<E>::new().parse_ref(command, arg, value) {
            Ok(format) => return Ok(format),
            Err(error) => error,
        };
        if error.kind() != ErrorKind::InvalidValue {
            return Err(error);
        }
        let text = value.to_string_lossy();
        let json = E::value_variants().iter().any(|v| {
            v.to_possible_value()
                .is_some_and(|p| p.matches("json", true))
        });
        let tip = if text.eq_ignore_ascii_case("yaml") && json {
            Some("the machine form of this report is JSON: -o json".to_owned())
        } else if text.contains(['.', '/', std::path::MAIN_SEPARATOR]) || text.is_empty() {
            Some(format!(
                "-o/--output is the format; to write the report to a file, use --output-file {text}"
            ))
        } else {
            None
        };
        if let Some(tip) = tip {
            error.insert(
                ContextKind::Suggested,
                ContextValue::StyledStrs(vec![tip.into()]),
            );
        }
        Err(error)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            E::value_variants()
                .iter()
                .filter_map(ValueEnum::to_possible_value),
        ))
    }
}

/// `--color`, for every command that prints text that can be coloured.
#[derive(Debug, Args)]
#[command(next_help_heading = "Report")]
pub struct Color {
    /// When to use colour: auto colours a terminal unless NO_COLOR is set or TERM is
    /// dumb; always and never override them.
    #[arg(long = "color", value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub choice: ColorChoice,
}

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour on a terminal, unless NO_COLOR is set or TERM is dumb.
    Auto,
    /// Colour, wherever the output goes.
    Always,
    /// No colour.
    Never,
}

/// Whether the reader of the report went away (`… | head`), as the writer saw it: a
/// serializer that wraps the write error (serde_json, quick-junit) may hide its kind.
#[derive(Clone, Debug, Default)]
pub struct Closed(Arc<AtomicBool>);

impl Closed {
    /// True once a write failed with a broken pipe.
    pub fn get(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// A writer that records in [`Closed`] a write failing with a broken pipe.
struct Watched<W> {
    inner: W,
    closed: Closed,
}

impl<W: Write> Watched<W> {
    fn watch<T>(&self, result: io::Result<T>) -> io::Result<T> {
        if let Err(error) = &result
            && error.kind() == io::ErrorKind::BrokenPipe
        {
            self.closed.0.store(true, Ordering::Relaxed);
        }
        result
    }
}

impl<W: Write> Write for Watched<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let result = self.inner.write(buf);
        self.watch(result)
    }

    fn flush(&mut self) -> io::Result<()> {
        let result = self.inner.flush();
        self.watch(result)
    }
}

/// `cannot write FILE: why`, of the same kind as `error`.
fn cannot_write(path: &std::path::Path, error: io::Error) -> io::Error {
    io::Error::new(
        error.kind(),
        format!("cannot write {}: {error}", path.display()),
    )
}

/// A writer to the report file whose errors name it: a full disk (`--output-file
/// /dev/full`) fails at the first flush, long after the file was opened.
struct Named<W> {
    inner: W,
    path: PathBuf,
}

impl<W: Write> Write for Named<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner
            .write(buf)
            .map_err(|error| cannot_write(&self.path, error))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner
            .flush()
            .map_err(|error| cannot_write(&self.path, error))
    }
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
        // A terminal that says it understands no escape sequences gets none.
        let dumb = std::env::var_os("TERM").is_some_and(|term| term == "dumb");
        let color = match self.choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => terminal && !no_color && !dumb,
        };
        let width = width(stream);
        Style {
            color,
            unicode: true,
            width,
        }
    }
}

/// The width of text written to `stream` (`None`: a file): `COLUMNS` wins, as for ls
/// and clap; then the terminal's own width.
pub fn width(stream: Option<Stream>) -> usize {
    columns()
        .or_else(|| stream.filter(|s| s.is_terminal())?.terminal_width())
        .unwrap_or(DEFAULT_WIDTH)
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
    /// The writer for the report, and whether its reader went away.
    pub fn writer(&self) -> io::Result<(Box<dyn Write>, Closed)> {
        let closed = Closed::default();
        let inner: Box<dyn Write> = match &self.output {
            Some(path) => {
                let file = File::create(path).map_err(|error| cannot_write(path, error))?;
                Box::new(Named {
                    inner: BufWriter::new(file),
                    path: path.clone(),
                })
            }
            None => Box::new(BufWriter::new(io::stdout().lock())),
        };
        let watched = Watched {
            inner,
            closed: closed.clone(),
        };
        Ok((Box::new(watched), closed))
    }

    /// A writer to standard error, for the report when standard output holds the fixed
    /// standard input.
    pub fn stderr_writer(&self) -> (Box<dyn Write>, Closed) {
        let closed = Closed::default();
        let watched = Watched {
            inner: BufWriter::new(io::stderr().lock()),
            closed: closed.clone(),
        };
        (Box::new(watched), closed)
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
