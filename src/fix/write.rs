//! Writes a fixed file back so that no byte can be lost: whatever happens (a full disk,
//! an edit made while the run went on, a signal), the file on disk is either the one
//! that was read or the fixed one, never a mix, and nothing else is left behind.
//!
//! The new text goes to a temporary file in the same directory (`tempfile`, so the name
//! is unique and a failure removes it), which is flushed and synced to disk and given
//! the original's permission bits and, where the process may, its owner and group. Just
//! before the rename over the original, the file on disk is checked to be still the
//! bytes that were fixed: compared whole with the text the run read (it is in memory,
//! so no hash is needed), then its size and modification time are read again to close
//! the window to the rename. A symbolic link is followed: its target is replaced and
//! the link kept. The directory is synced after the rename, so the new name survives a
//! crash.
//!
//! A signal that ends the run (SIGINT, SIGTERM, SIGHUP, SIGQUIT) removes the temporary
//! file in flight before the process ends as the signal says; removing it at any point
//! leaves the original in place, or the rename has already put the new file there.
//! Only SIGKILL can leave a temporary file, named `.NAME.mesh-lifecycle-*.tmp` beside
//! the file, hidden from directory searches.
//!
//! The rename gives the file a new inode: another hard link to the original keeps the
//! old text, and extended attributes (ACLs, SELinux labels) are not copied.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Why a file was not written; the original is unchanged.
#[derive(Debug)]
pub struct WriteError {
    /// One sentence for the user.
    pub reason: String,
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for WriteError {}

fn failed(what: &str, error: &io::Error) -> WriteError {
    WriteError {
        reason: format!("{what}: {}", crate::load::discover::describe_io(error)),
    }
}

fn removed() -> WriteError {
    WriteError {
        reason: "it was removed or renamed since it was read".into(),
    }
}

/// The temporary file being written, for the signal handler to remove.
static IN_FLIGHT: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Replaces the file at `path`, whose content was `original` when it was read, with
/// `fixed`, as the module says.
pub fn replace(path: &Path, original: &str, fixed: &str) -> Result<(), WriteError> {
    guard_signals();
    let target = fs::canonicalize(path).map_err(|error| match error.kind() {
        io::ErrorKind::NotFound => removed(),
        _ => failed("cannot resolve it", &error),
    })?;
    let before = fs::metadata(&target).map_err(|error| failed("cannot read it", &error))?;
    if !before.is_file() {
        return Err(WriteError {
            reason: "it is no longer a regular file".into(),
        });
    }
    // Refused as writing in place would be: a read-only file stays as it is.
    fs::OpenOptions::new()
        .write(true)
        .open(&target)
        .map_err(|error| failed("cannot open it for writing", &error))?;
    let dir = target.parent().unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
    // Created and registered under the lock the signal handler takes: a signal finds
    // either no file yet or its name.
    let (_registered, mut temp) = {
        let mut in_flight = IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner());
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{name}.mesh-lifecycle-"))
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(|error| failed("cannot create a temporary file beside it", &error))?;
        *in_flight = Some(temp.path().to_path_buf());
        (Registered, temp)
    };
    keep_owner_and_mode(temp.as_file(), &before);
    temp.write_all(fixed.as_bytes())
        .and_then(|()| temp.as_file().sync_all())
        .map_err(|error| failed("cannot write it", &error))?;
    before_write_hook(path);
    still_as_read(&target, original, &before)?;
    // On failure the temporary file comes back in the error, and dropping it removes it.
    temp.persist(&target)
        .map_err(|error| failed("cannot replace it", &error.error))?;
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Unregisters the temporary file in flight when the write is over, whatever its end.
struct Registered;

impl Drop for Registered {
    fn drop(&mut self) {
        if let Ok(mut in_flight) = IN_FLIGHT.lock() {
            *in_flight = None;
        }
    }
}

/// Gives `file` the permission bits of `original` and, where the process may, its
/// owner and group (else its group alone, which a member may set).
fn keep_owner_and_mode(file: &File, original: &fs::Metadata) {
    let _ = file.set_permissions(original.permissions());
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if std::os::unix::fs::fchown(file, Some(original.uid()), Some(original.gid())).is_err() {
            let _ = std::os::unix::fs::fchown(file, None, Some(original.gid()));
        }
    }
}

/// Checks that `target` still holds `original`, as it did when `before` was read.
fn still_as_read(target: &Path, original: &str, before: &fs::Metadata) -> Result<(), WriteError> {
    let changed = || WriteError {
        reason:
            "it changed on disk since it was read, and those changes are kept (run --fix again)"
                .into(),
    };
    let mut now = Vec::with_capacity(original.len());
    File::open(target)
        .and_then(|mut file| file.read_to_end(&mut now))
        .map_err(|error| match error.kind() {
            io::ErrorKind::NotFound => removed(),
            _ => failed("cannot read it again", &error),
        })?;
    if now != original.as_bytes() {
        return Err(changed());
    }
    let after = fs::metadata(target).map_err(|error| failed("cannot read it again", &error))?;
    let stamp = |meta: &fs::Metadata| (meta.len(), meta.modified().ok());
    if stamp(&after) != stamp(before) {
        return Err(changed());
    }
    Ok(())
}

/// Fault injection for the test suite: a shell command run, with the file's path as
/// `$1`, after the new text is on disk and before the original is checked and replaced
/// (`tests/it/fix_writes.rs` changes the file there). Unset in any real run.
fn before_write_hook(path: &Path) {
    let Some(command) = std::env::var_os("MESH_LIFECYCLE_TEST_BEFORE_WRITE") else {
        return;
    };
    use crate::external::{Args, Call, CommandLine, Stdin};
    let line = CommandLine::new("sh").args(
        &Args::new()
            .word("-c")
            .operand(command)
            .operand("sh")
            .path(path),
    );
    let _ = crate::external::run(
        &line,
        Call {
            stdin: Stdin::Null,
            own_group: false,
            forward_stderr: true,
            stop_at: None,
            max_stdout: 1 << 20,
        },
    );
}

/// Installs, once, the handler that removes the temporary file in flight when a signal
/// ends the run, then ends it as the signal's default action would. Where no thread
/// can be started for it, signals keep their default action.
fn guard_signals() {
    #[cfg(unix)]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            use signal_hook::consts::signal::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
            let (ready, registered) = std::sync::mpsc::sync_channel(1);
            let spawned = std::thread::Builder::new()
                .name("signals".into())
                .spawn(move || {
                    let signals =
                        signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP, SIGQUIT]);
                    let _ = ready.send(());
                    let Ok(mut signals) = signals else {
                        return;
                    };
                    if let Some(signal) = signals.forever().next() {
                        let in_flight = IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner());
                        if let Some(temp) = in_flight.as_ref() {
                            let _ = fs::remove_file(temp);
                        }
                        let _ = signal_hook::low_level::emulate_default_handler(signal);
                        std::process::exit(128 + signal);
                    }
                });
            if spawned.is_ok() {
                let _ = registered.recv();
            }
        });
    }
}
