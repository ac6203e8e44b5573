//! What the renderers share: running a tool, its failure in its own words, and the
//! paths it reads and reports.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::load::discover::KUSTOMIZATION_FILES;

/// Why a directory was not rendered.
#[derive(Debug)]
pub enum Failure {
    /// The tool ran and failed: its message.
    Failed(String),
    /// The tool is not installed: a note saying how to render the directory.
    Missing(String),
}

/// Runs `program` with `args`; `Err` when it cannot be started, `NotFound` included.
pub(super) fn run(program: &std::ffi::OsStr, args: &[&std::ffi::OsStr]) -> std::io::Result<Output> {
    Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
}

/// What a tool printed on standard error, for an input error: trimmed, and the tool's
/// own prefixes kept.
pub(super) fn tool_message(command: &str, output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stderr = stderr.trim();
    if stderr.is_empty() {
        format!("`{command}` failed ({})", output.status)
    } else {
        format!("`{command}` failed: {stderr}")
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
