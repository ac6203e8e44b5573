//! What users keep in their repositories, rendered before it is linted: a directory
//! holding a kustomization is what `kubectl kustomize` prints for it, a Helm chart what
//! `helm template` prints ([`kustomize`], [`helm`]). The directory search hands these
//! directories over whole ([`crate::load::discover`]); each becomes one input, named by
//! its directory, that knows where its documents came from
//! ([`crate::load::rendered`]). A tool that fails is an input error in its own words;
//! a missing `helm` is a note saying how to render the chart. A file linted on its own
//! that a kustomization uses as a patch gets a note naming the kustomization.
//!
//! Each tool runs within [`Bounds`] ([`crate::external::run`]): a render still running
//! at `--render-timeout` (a kustomization whose remote base never answers, a `helm`
//! that hangs) is stopped with every process it started, and is an input error of its
//! directory; the other inputs are linted and reported.

pub mod helm;
pub mod kustomize;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use crate::external::CallBounds as Bounds;
use crate::external::{self, CommandLine, Ended, Finished, Stdin, Timeout};
use crate::load::discover::KUSTOMIZATION_FILES;
use crate::load::rendered::Renderer;
use crate::load::{Input, InputError};

/// How long one call of a renderer may take when neither `--render-timeout` nor the
/// config's `renderTimeout` says: room for a chart with dependencies or a
/// kustomization with a few remote bases, not for one that never answers.
pub const DEFAULT_RENDER_TIMEOUT: &str = "60s";

/// The bounds of each call of a renderer (and of git, for `diff --base`) without
/// flags or config: [`DEFAULT_RENDER_TIMEOUT`] and the default input limit.
pub fn default_bounds() -> Bounds {
    Bounds {
        timeout: Timeout::parse("--render-timeout", DEFAULT_RENDER_TIMEOUT)
            .expect("the default is a duration"),
        max_output: crate::load::ReadLimits::default().input_bytes,
    }
}

/// What rendering the directories of a run gave.
#[derive(Debug, Default)]
pub struct Rendered {
    /// One input per directory rendered.
    pub inputs: Vec<Input>,
    /// The directories whose tool failed, in its words.
    pub errors: Vec<InputError>,
    /// What could not be rendered, and how to.
    pub notes: Vec<InputError>,
    /// Directories left to be searched as files (no kubectl to render a kustomization).
    pub unrendered: Vec<PathBuf>,
}

/// Renders each directory of `targets`, each call within `bounds`.
pub fn render(targets: &[(PathBuf, Renderer)], bounds: &Bounds) -> Rendered {
    let mut rendered = Rendered::default();
    for (dir, renderer) in targets {
        let name: Arc<str> = Arc::from(dir.to_string_lossy().as_ref());
        let result = match renderer {
            Renderer::Kustomize => kustomize::render(dir, bounds),
            Renderer::Helm => helm::render(dir, bounds),
        };
        match result {
            Ok((bytes, rendering)) => rendered.inputs.push(Input::Rendered {
                name,
                bytes: Arc::from(bytes),
                rendering: Arc::new(rendering),
            }),
            Err(Failure::Failed(message)) => {
                rendered.errors.push(InputError::whole(name, message));
            }
            Err(Failure::Missing(note)) => {
                rendered.notes.push(InputError::whole(name, note));
                if *renderer == Renderer::Kustomize {
                    rendered.unrendered.push(dir.clone());
                }
            }
        }
    }
    rendered
}

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
fn run(line: &CommandLine, bounds: &Bounds) -> std::io::Result<Finished> {
    external::run(line, bounds.call(Stdin::Null))
}

/// Why a tool's call did not render, for an input error: what it printed on standard
/// error, trimmed, with the tool's own prefixes kept; or how it was stopped. `None`
/// when it succeeded.
fn tool_failure(line: &CommandLine, finished: &Finished, bounds: &Bounds) -> Option<String> {
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
fn start_failure(line: &CommandLine, error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::InvalidInput => format!("`{}` not run: {error}", line.shown()),
        _ => format!("cannot run `{}`: {error}", line.shown()),
    }
}

/// `path` as reports write paths: relative to the working directory when it is below
/// it, else absolute.
fn display(path: &Path) -> PathBuf {
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
fn normalize(path: &Path) -> PathBuf {
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

/// Notes for the files of `inputs` that a kustomization of their directory, or of one
/// above it, applies as a patch: linted alone, a patch is a fragment, and the
/// kustomization's directory is what to lint.
pub fn patch_notes(inputs: &[Input]) -> Vec<InputError> {
    let mut notes = Vec::new();
    for input in inputs {
        let Input::File(path) = input else { continue };
        let Ok(file) = path.canonicalize() else {
            continue;
        };
        let Some(kustomization) = kustomize::applying_patch(&file) else {
            continue;
        };
        let dir = kustomization.parent().map(display).unwrap_or_default();
        notes.push(InputError::whole(
            path.to_string_lossy().as_ref(),
            format!(
                "a kustomize patch, applied by {}: linted alone it is a fragment; lint the kustomization's directory ({}) to check what it renders",
                display(&kustomization).display(),
                dir.display()
            ),
        ));
    }
    notes
}

/// The kustomization file of `dir`, when it holds one.
fn kustomization_file(dir: &Path) -> Option<PathBuf> {
    KUSTOMIZATION_FILES
        .iter()
        .map(|name| dir.join(name))
        .find(|file| file.is_file())
}
