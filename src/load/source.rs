//! An input's documents, read once.
//!
//! A run reads its inputs twice: once for the context they hold (Namespace objects, mesh
//! configuration), which applies to every document of the run, then to lint them. A
//! regular file can be opened again for the second pass. Anything else — standard input,
//! a pipe (`<(helm template …)`, `/dev/stdin`), a FIFO, a device — yields its bytes only
//! once, so it is cut into documents as it is read and the documents are held in memory,
//! within [`ReadLimits::input_bytes`].

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::sync::Arc;

use super::{InputError, chunk_error, split};

/// Bounds on what reading one input may cost, whatever it holds: an endless stream, a
/// line without end, a document of gigabytes. Each is named, with the flag that raises
/// it, in the diagnostic of an input that reaches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadLimits {
    /// Bytes read from one input (`--max-input-size`).
    pub input_bytes: u64,
    /// Bytes in one document (`--max-document-size`).
    pub document_bytes: usize,
    /// Bytes in one line (`--max-line-length`).
    pub line_bytes: usize,
}

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits {
            // Twice the largest real stream measured (100 MB of rendered manifests, 56 376
            // workloads: docs/reliability.md), and what a stream costs in memory at most.
            input_bytes: 256 << 20,
            // The API server refuses request bodies above 3 MiB and etcd objects above
            // 1.5 MiB, so no applicable manifest comes near this.
            document_bytes: 16 << 20,
            // Above the API server's 3 MiB request limit: any one object fits on a line,
            // minified JSON included.
            line_bytes: 4 << 20,
        }
    }
}

/// One document's text, or why a part of the input could not be read.
#[derive(Clone, Debug)]
pub enum Piece {
    /// The text of one document (or several, for the parser to tell apart).
    Text {
        /// 1-based line in the input of the text's first line.
        first_line: u32,
        /// The text, shared between the passes.
        text: Arc<str>,
        /// How kubectl reads the text (YAML or a JSON value, and how it was cut).
        framing: split::Framing,
    },
    /// What could not be read, and where.
    Failed(InputError),
}

impl Piece {
    /// The bytes of its text; none for what could not be read.
    pub fn text_bytes(&self) -> usize {
        match self {
            Piece::Text { text, .. } => text.len(),
            Piece::Failed(_) => 0,
        }
    }

    /// Whether the piece holds anything but blank space.
    fn has_content(&self) -> bool {
        match self {
            Piece::Text { text, .. } => !text.trim().is_empty(),
            Piece::Failed(_) => true,
        }
    }
}

/// The name reports give standard input that `--stdin-filename` did not name.
pub const STDIN_NAME: &str = "-";

/// An input, ready to be read as many times as the run needs.
#[derive(Clone, Debug)]
pub enum Source {
    /// A regular file, opened again for each pass.
    File {
        /// The path as the user gave it or the search found it.
        name: Arc<str>,
        /// Where to open it.
        path: PathBuf,
    },
    /// Standard input, read once.
    Stdin {
        /// [`STDIN_NAME`], or the name `--stdin-filename` gives it.
        name: Arc<str>,
        /// Everything it yielded.
        pieces: Vec<Piece>,
    },
    /// Any other stream (a pipe, a FIFO, a device) or bytes held in memory, read once.
    Stream {
        /// The name reports give it.
        name: Arc<str>,
        /// Everything it yielded.
        pieces: Vec<Piece>,
    },
}

impl Source {
    /// A regular file, read afresh by each pass.
    pub fn file(name: Arc<str>, path: PathBuf) -> Source {
        Source::File { name, path }
    }

    /// Reads a stream to its end (or to the input limit) now, keeping its documents. A
    /// stream that yields nothing is an error: `helm template` failed, and a CI job that
    /// checked nothing must not pass.
    pub fn stream(name: Arc<str>, reader: impl Read, limits: &ReadLimits) -> Source {
        let pieces = read_whole(&name, reader, limits, "is empty; nothing to lint");
        Source::Stream { name, pieces }
    }

    /// Reads standard input (or what stands for it) to its end now, named `name`, else
    /// [`STDIN_NAME`]; empty, it is an error as any stream is.
    pub fn stdin(name: Option<Arc<str>>, reader: impl Read, limits: &ReadLimits) -> Source {
        let name = name.unwrap_or_else(|| Arc::from(STDIN_NAME));
        let empty = "standard input is empty; nothing to lint";
        let pieces = read_whole(&name, reader, limits, empty);
        Source::Stdin { name, pieces }
    }

    /// A stream that could not be read at all.
    pub fn failed(error: InputError) -> Source {
        Source::Stream {
            name: error.file.clone(),
            pieces: vec![Piece::Failed(error)],
        }
    }

    /// Opens `path`: a regular file is left to be read by each pass, anything else is
    /// read now.
    pub fn open(name: Arc<str>, path: PathBuf, limits: &ReadLimits) -> Source {
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_file() => Source::file(name, path),
            Ok(meta) if meta.is_dir() => Source::failed(InputError::whole(name, "is a directory")),
            // A named pipe with no writer is refused after a while, not waited on.
            _ => match super::open::open(&path, super::open::WRITER_WAIT) {
                Ok(opened) => Source::stream(name, opened, limits),
                Err(error) => Source::failed(InputError::whole(name, error.describe())),
            },
        }
    }

    /// The input's name in reports.
    pub fn name(&self) -> &Arc<str> {
        match self {
            Source::File { name, .. }
            | Source::Stdin { name, .. }
            | Source::Stream { name, .. } => name,
        }
    }

    /// Its size in bytes, as far as it is known without reading it (`None`: unknown).
    pub fn size(&self) -> Option<u64> {
        match self {
            Source::File { path, .. } => std::fs::metadata(path).ok().map(|meta| meta.len()),
            Source::Stdin { pieces, .. } | Source::Stream { pieces, .. } => Some(
                pieces
                    .iter()
                    .map(|piece| match piece {
                        Piece::Text { text, .. } => text.len() as u64,
                        Piece::Failed(_) => 0,
                    })
                    .sum(),
            ),
        }
    }

    /// How many pieces it holds, when they were read already (a stream, standard input);
    /// `None` for a file, which is read when its pieces are asked for.
    pub fn piece_count(&self) -> Option<usize> {
        match self {
            Source::Stdin { pieces, .. } | Source::Stream { pieces, .. } => Some(pieces.len()),
            Source::File { .. } => None,
        }
    }

    /// The input's documents, in order.
    pub fn pieces(&self, limits: &ReadLimits) -> Box<dyn Iterator<Item = Piece> + '_> {
        let path = match self {
            Source::Stdin { pieces, .. } | Source::Stream { pieces, .. } => {
                return Box::new(pieces.iter().cloned());
            }
            Source::File { path, .. } => path,
        };
        let failed = |message: String| {
            Box::new(std::iter::once(Piece::Failed(InputError::whole(
                self.name().clone(),
                message,
            ))))
        };
        // Opened as a stream is: the file may have become a named pipe since.
        match super::open::open(path, super::open::WRITER_WAIT) {
            Err(error) => failed(error.describe()),
            // Refused before reading: a file larger than the limit would be read up to
            // it only to be refused.
            Ok(file)
                if file
                    .file()
                    .metadata()
                    .is_ok_and(|m| m.len() > limits.input_bytes) =>
            {
                failed(format!(
                    "larger than {}, the limit on one input; not read (raise it with --max-input-size)",
                    super::size(limits.input_bytes)
                ))
            }
            Ok(file) => Box::new(read(
                self.name(),
                BufReader::with_capacity(1 << 16, file),
                limits,
            )),
        }
    }
}

/// Everything `reader` yields, cut into pieces within `limits`; `empty` is the error
/// when it yields nothing but blank space.
fn read_whole(name: &Arc<str>, reader: impl Read, limits: &ReadLimits, empty: &str) -> Vec<Piece> {
    let reader = BufReader::with_capacity(1 << 16, reader);
    let mut pieces: Vec<Piece> = read(name, reader, limits).collect();
    if !pieces.iter().any(Piece::has_content) {
        pieces.push(Piece::Failed(InputError::whole(name.clone(), empty)));
    }
    pieces
}

/// Cuts what `reader` yields into pieces, within `limits`.
fn read<'a>(
    name: &Arc<str>,
    reader: impl BufRead + 'a,
    limits: &ReadLimits,
) -> impl Iterator<Item = Piece> + 'a {
    let name = name.clone();
    split::Splitter::new(reader, limits.document_bytes)
        .max_line_bytes(limits.line_bytes)
        .max_input_bytes(limits.input_bytes)
        .map(move |chunk| match chunk {
            Ok(chunk) => Piece::Text {
                first_line: chunk.first_line,
                text: Arc::from(chunk.text),
                framing: chunk.framing,
            },
            Err(split::ChunkError::Io(error))
                if error.kind() == std::io::ErrorKind::IsADirectory =>
            {
                Piece::Failed(InputError::whole(name.clone(), "is a directory"))
            }
            Err(error) => Piece::Failed(chunk_error(&name, error)),
        })
}
