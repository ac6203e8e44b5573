//! `lint --watch`: lint, then lint again each time a file the run reads changes, as
//! ruff's `--watch` does, until Ctrl-C ends the process.
//!
//! What is watched: each path given (a directory with everything under it), the config
//! file `.mesh-lifecycle.yaml` at or above the working directory (found again at each
//! run, so one created later counts) and the files `--config` and `--mesh-config`
//! name. The platform's file events say what changed (`notify`); what the run itself
//! writes (`--output-file`, standard output or error redirected to a file) and what
//! lies in a `.git` directory never start a run.
//! Events that come together (an editor's save, a `git checkout`) start one run, once
//! they have been quiet for [`SETTLE`]. On a terminal the screen is cleared before each
//! report, so it shows the latest one alone.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use notify::{EventKind, RecursiveMode, Watcher};

use super::{LintArgs, diagnostic, usage_error};
use crate::load::discover::identity;
use crate::settings::config::FILE_NAME;

/// How long the events of one change must be quiet before the next run starts.
const SETTLE: Duration = Duration::from_millis(150);

/// Runs `lint` (`once`) now and after every change, until the process is interrupted.
pub fn run(args: &LintArgs, once: fn(&LintArgs) -> io::Result<u8>) -> io::Result<u8> {
    let paths = &args.read.input.paths;
    if paths.is_empty() || paths.iter().any(|path| path == "-") {
        return usage_error(
            "--watch lints files again when they change: give the files or directories to watch (standard input is read once)",
        );
    }
    let scope = match Scope::new(args) {
        Ok(scope) => scope,
        Err(message) => return usage_error(message),
    };
    let (sender, events) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |event| {
        let _ = sender.send(event);
    })
    .map_err(|error| io::Error::other(format!("cannot watch for changes: {error}")))?;
    for (path, mode) in scope.watches() {
        if let Err(error) = watcher.watch(&path, mode) {
            return usage_error(format!("--watch cannot watch {}: {error}", path.display()));
        }
    }
    let clear = io::stdout().is_terminal() && args.output.output.is_none();
    loop {
        if clear {
            // Erase the screen and its scrollback, then home the cursor.
            let mut out = io::stdout().lock();
            let _ = out.write_all(b"\x1b[2J\x1b[3J\x1b[H");
            let _ = out.flush();
        }
        once(args)?;
        diagnostic(&format!(
            "watching {} for changes (Ctrl-C ends)\n",
            paths.join(", ")
        ));
        let changed = loop {
            match events.recv() {
                Ok(Ok(event)) => {
                    if let Some(path) = scope.relevant(&event) {
                        break path;
                    }
                }
                Ok(Err(error)) => diagnostic(&format!("note: watching: {error}\n")),
                Err(_) => return Err(io::Error::other("the file watcher stopped")),
            }
        };
        // The rest of the same change: wait until the events stop coming.
        while events.recv_timeout(SETTLE).is_ok() {}
        let shown = changed.strip_prefix(&scope.cwd).unwrap_or(&changed);
        diagnostic(&format!(
            "{} changed: linting again\n",
            crate::escape::controls(&shown.display().to_string())
        ));
    }
}

/// What the watch covers, as absolute paths.
struct Scope {
    /// The paths given, a directory standing for everything under it.
    inputs: Vec<PathBuf>,
    /// The directories where a `.mesh-lifecycle.yaml` would be found: the working
    /// directory and those above it.
    config_dirs: Vec<PathBuf>,
    /// `--config`, `--mesh-config`.
    named: Vec<PathBuf>,
    /// What each run writes: `--output-file`, and standard output and error when
    /// they are files (`lint --watch . > report.txt`).
    written: Vec<identity::FileId>,
    /// The working directory, which changed paths are named from.
    cwd: PathBuf,
}

impl Scope {
    fn new(args: &LintArgs) -> Result<Scope, String> {
        let existing = |path: &Path| {
            path.canonicalize()
                .map_err(|error| format!("--watch cannot watch {}: {error}", path.display()))
        };
        let inputs = args
            .read
            .input
            .paths
            .iter()
            .map(|path| existing(Path::new(path)))
            .collect::<Result<Vec<_>, _>>()?;
        let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
        let cwd = cwd.canonicalize().unwrap_or(cwd);
        let profile = &args.read.profile;
        let named = profile
            .config
            .iter()
            .chain(&profile.mesh_config)
            .map(|path| existing(path))
            .collect::<Result<Vec<_>, _>>()?;
        let written = args
            .output
            .output
            .as_deref()
            .and_then(identity::of_path)
            .into_iter()
            .chain(standard_streams())
            .collect();
        Ok(Scope {
            inputs,
            config_dirs: if profile.no_config || profile.config.is_some() {
                Vec::new()
            } else {
                cwd.ancestors().map(Path::to_path_buf).collect()
            },
            named,
            written,
            cwd,
        })
    }

    /// Each path to watch and how: the inputs recursively; the config directories and
    /// the named files' directories alone (an editor that saves by renaming a new file
    /// over the old one ends a watch on the file itself).
    fn watches(&self) -> Vec<(PathBuf, RecursiveMode)> {
        let mut watches: Vec<(PathBuf, RecursiveMode)> = self
            .inputs
            .iter()
            .map(|path| (path.clone(), RecursiveMode::Recursive))
            .collect();
        let parents = self.named.iter().filter_map(|path| path.parent());
        for dir in self.config_dirs.iter().map(PathBuf::as_path).chain(parents) {
            if !watches.iter().any(|(path, _)| path == dir) {
                watches.push((dir.to_path_buf(), RecursiveMode::NonRecursive));
            }
        }
        watches
    }

    /// The first path of `event` that should start a run: a change (not a read) to a
    /// file the run reads.
    fn relevant(&self, event: &notify::Event) -> Option<PathBuf> {
        if !matches!(
            event.kind,
            EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) | EventKind::Any
        ) {
            return None;
        }
        event.paths.iter().find(|path| self.covers(path)).cloned()
    }

    fn covers(&self, path: &Path) -> bool {
        if !self.written.is_empty()
            && identity::of_path(path).is_some_and(|file| self.written.contains(&file))
        {
            return false;
        }
        if self.named.iter().any(|named| named == path) {
            return true;
        }
        if path.file_name().is_some_and(|name| name == FILE_NAME)
            && path
                .parent()
                .is_some_and(|dir| self.config_dirs.iter().any(|d| d == dir))
        {
            return true;
        }
        self.inputs.iter().any(|input| {
            path.strip_prefix(input).is_ok_and(|rest| {
                !rest
                    .components()
                    .any(|component| component.as_os_str() == ".git")
            })
        })
    }
}

/// The files standard output and standard error are, where they are files.
fn standard_streams() -> Vec<identity::FileId> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let stdout = io::stdout();
        let stderr = io::stderr();
        [stdout.as_fd(), stderr.as_fd()]
            .into_iter()
            .filter_map(|fd| fd.try_clone_to_owned().ok())
            .map(std::fs::File::from)
            .filter(|file| file.metadata().is_ok_and(|meta| meta.is_file()))
            .filter_map(|file| identity::of_file(&file))
            .collect()
    }
    #[cfg(not(unix))]
    {
        Vec::new()
    }
}
