//! What the renderers share: running a tool within its bounds, its failure in its own
//! words, and the paths it reads and reports.

use std::path::{Path, PathBuf};

use super::Bounds;
use crate::external::{self, CommandLine, Ended, Finished, Stdin};
use crate::load::discover::KUSTOMIZATION_FILES;

/// Why a directory was not rendered.
#[derive(Debug)]
pub enum Failure {
    /// The tool ran and failed: its message.
    Failed(String),
    /// The tool is not installed: a note saying how to render the directory.
    Missing(String),
}

/// Runs `line` within `bounds`, with no standard input; `Err` when it cannot be
/// started (`NotFound`: the tool is not installed).
pub(super) fn run(line: &CommandLine, bounds: &Bounds) -> std::io::Result<Finished> {
    external::run(line, bounds.call(Stdin::Null))
}

/// Why a tool's call did not render, for an input error: what it printed on standard
/// error, trimmed, with the tool's own prefixes kept; or how it was stopped. `None`
/// when it succeeded.
pub(super) fn tool_failure(
    line: &CommandLine,
    finished: &Finished,
    bounds: &Bounds,
) -> Option<String> {
    let command = line.shown();
    let stderr = finished.stderr.trim();
    let said = |ours: String| {
        if stderr.is_empty() {
            ours
        } else {
            format!("{ours}: {stderr}")
        }
    };
    Some(match finished.ended {
        Ended::Exited(0) => return None,
        Ended::Exited(_) | Ended::Signalled(_) if !stderr.is_empty() => {
            format!("`{command}` failed: {stderr}")
        }
        Ended::Exited(code) => format!("`{command}` failed (exit status {code})"),
        Ended::Signalled(signal) => format!("`{command}` was killed by signal {signal}"),
        Ended::Stopped => said(format!(
            "`{command}` did not finish within {} and was stopped, with every process it started (a remote base or chart repository that does not answer?); raise the limit with --render-timeout or renderTimeout",
            bounds.timeout
        )),
        Ended::TooLarge => said(format!(
            "`{command}` printed more than {} and was stopped (--max-input-size raises the limit)",
            crate::load::size(bounds.max_output)
        )),
    })
}

/// Why a tool could not be started, other than its absence.
pub(super) fn start_failure(line: &CommandLine, error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::InvalidInput => format!("`{}` not run: {error}", line.shown()),
        _ => format!("cannot run `{}`: {error}", line.shown()),
    }
}

/// `path` as reports write paths: relative to the working directory when it is below
/// it, else absolute.
pub(super) fn display(path: &Path) -> PathBuf {
    let cwd = std::env::current_dir()
        .and_then(|dir| dir.canonicalize())
        .unwrap_or_default();
    match path.strip_prefix(&cwd) {
        Ok(relative) if !relative.as_os_str().is_empty() => relative.to_path_buf(),
        _ => path.to_path_buf(),
    }
}

/// `path` with `.` and `..` resolved lexically (its directories exist: kustomize read
/// them).
pub(super) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The kustomization file of `dir`, when it holds one.
pub(super) fn kustomization_file(dir: &Path) -> Option<PathBuf> {
    KUSTOMIZATION_FILES
        .iter()
        .map(|name| dir.join(name))
        .find(|file| file.is_file())
}
