//! Opening a file to read it without waiting on it forever.
//!
//! `open(2)` of a named pipe (FIFO) for reading blocks until some process opens it for
//! writing: `lint FIFO good.yaml` with no writer would hang the whole gate before the
//! good file is read. So every file is opened with `O_NONBLOCK`, which never waits.
//! For anything but a FIFO the flag is then cleared and the file read as usual. A FIFO
//! is tried at once: a writer is there (the read would block, or gives bytes, kept for
//! the reader), or none has come yet, and then the pipe is waited on for at most
//! [`WRITER_WAIT`], after which it is an input error; a writer that came and went
//! without a word leaves it empty, as a stream that is empty is. A writer that is
//! there is waited for as standard input is: it is alive, and the input limit bounds
//! what it may send.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::time::Duration;

/// How long a named pipe nobody writes to is waited on before it is refused.
pub const WRITER_WAIT: Duration = Duration::from_secs(10);

/// Why a file could not be opened.
#[derive(Debug)]
pub enum OpenError {
    /// The system's reason.
    Io(io::Error),
    /// A named pipe that no process opened for writing within this long.
    NoWriter(Duration),
}

impl OpenError {
    /// A short, lower-case reason, as input errors give it.
    pub fn describe(&self) -> String {
        match self {
            OpenError::Io(error) => super::discover::describe_io(error),
            OpenError::NoWriter(waited) => format!(
                "a named pipe that no process opened for writing within {} s; not read",
                waited.as_secs()
            ),
        }
    }
}

impl From<io::Error> for OpenError {
    fn from(error: io::Error) -> OpenError {
        OpenError::Io(error)
    }
}

/// A file opened for reading, with what a named pipe gave while it was tried.
#[derive(Debug)]
pub struct Opened {
    first: io::Cursor<Vec<u8>>,
    file: File,
}

impl Opened {
    /// The file itself (for its metadata).
    pub fn file(&self) -> &File {
        &self.file
    }
}

impl Read for Opened {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.first.read(buf)?;
        if n > 0 {
            return Ok(n);
        }
        self.file.read(buf)
    }
}

/// Opens `path` for reading, waiting at most `wait` for a named pipe's writer.
pub fn open(path: &Path, wait: Duration) -> Result<Opened, OpenError> {
    #[cfg(unix)]
    {
        unix::open(path, wait)
    }
    #[cfg(not(unix))]
    {
        let _ = wait;
        Ok(Opened {
            first: io::Cursor::new(Vec::new()),
            file: File::open(path)?,
        })
    }
}

/// Reads `path` whole, at most `max` bytes and one more (to tell that it is larger),
/// opened as [`open`] opens it with [`WRITER_WAIT`].
pub fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>, OpenError> {
    let mut bytes = Vec::new();
    open(path, WRITER_WAIT)?
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(unix)]
mod unix {
    use std::fs::File;
    use std::io::{self, Read};
    use std::os::unix::fs::FileTypeExt;
    use std::path::Path;
    use std::time::{Duration, Instant};

    use rustix::event::{PollFd, PollFlags, Timespec};
    use rustix::fs::{Mode, OFlags};

    use super::{OpenError, Opened};

    pub(super) fn open(path: &Path, wait: Duration) -> Result<Opened, OpenError> {
        let fd = rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(io::Error::from)?;
        let file = File::from(fd);
        let opened = |first: Vec<u8>, file: File| -> Result<Opened, OpenError> {
            let flags = rustix::fs::fcntl_getfl(&file).map_err(io::Error::from)?;
            rustix::fs::fcntl_setfl(&file, flags - OFlags::NONBLOCK).map_err(io::Error::from)?;
            Ok(Opened {
                first: io::Cursor::new(first),
                file,
            })
        };
        if !file.metadata()?.file_type().is_fifo() {
            return opened(Vec::new(), file);
        }
        let deadline = Instant::now() + wait;
        // Whether a writer has come (and perhaps gone): from then on, nothing to read
        // is the pipe's end.
        let mut writer_seen = false;
        let mut buffer = vec![0; 64 * 1024];
        loop {
            match (&file).read(&mut buffer) {
                Ok(0) if writer_seen => return opened(Vec::new(), file),
                Ok(0) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() || !wait_for_writer(&file, left)? {
                        return Err(OpenError::NoWriter(wait));
                    }
                    writer_seen = true;
                }
                Ok(n) => {
                    buffer.truncate(n);
                    return opened(buffer, file);
                }
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                    return opened(Vec::new(), file);
                }
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error.into()),
            }
        }
    }

    /// Waits at most `left` for a writer to write to, or close, the pipe `file`; `false`
    /// when none did. Until a writer has opened a FIFO, poll reports nothing on it.
    fn wait_for_writer(file: &File, left: Duration) -> io::Result<bool> {
        let timeout = Timespec {
            tv_sec: i64::try_from(left.as_secs()).unwrap_or(i64::MAX),
            tv_nsec: i64::from(left.subsec_nanos()),
        };
        let mut fds = [PollFd::new(file, PollFlags::IN)];
        loop {
            match rustix::event::poll(&mut fds, Some(&timeout)) {
                Ok(ready) => return Ok(ready > 0),
                Err(rustix::io::Errno::INTR) => {}
                Err(error) => return Err(error.into()),
            }
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use rustix::fs::Mode;

    fn fifo(dir: &Path) -> std::path::PathBuf {
        let path = dir.join("pipe");
        rustix::fs::mkfifoat(rustix::fs::CWD, &path, Mode::from_raw_mode(0o600)).unwrap();
        path
    }

    #[test]
    fn a_named_pipe_nobody_writes_to_is_refused_in_bounded_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = fifo(dir.path());
        let started = std::time::Instant::now();
        match open(&path, Duration::from_millis(200)) {
            Err(OpenError::NoWriter(_)) => {}
            other => panic!("{other:?}"),
        }
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_named_pipe_is_read_from_a_writer_that_comes_later() {
        let dir = tempfile::tempdir().unwrap();
        let path = fifo(dir.path());
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(100));
                std::fs::write(path, "kind: Pod\n").unwrap();
            })
        };
        let mut text = String::new();
        open(&path, Duration::from_secs(5))
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        writer.join().unwrap();
        assert_eq!(text, "kind: Pod\n");
    }

    #[test]
    fn a_regular_file_reads_as_usual() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.yaml");
        std::fs::write(&path, "a: b\n").unwrap();
        assert_eq!(read_bounded(&path, 100).unwrap(), b"a: b\n");
    }
}
