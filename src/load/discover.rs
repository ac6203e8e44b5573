//! Turns the paths on the command line into the list of inputs to read.
//!
//! Like `kubectl apply -R`: directories are searched recursively for `.yaml`, `.yml` and
//! `.json` files, in a stable order; a file named explicitly is read whatever its
//! extension; `-` is standard input. Hidden directories (`.git`, `.github`) are skipped.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::InputError;

/// Where an input's bytes come from.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Input {
    /// Standard input (`-`): `helm template ... | kubectl mesh-lifecycle lint -`.
    Stdin,
    /// A file, named on the command line or found in a directory.
    File(PathBuf),
    /// Bytes held in memory, named as reports name them: an object read from a cluster
    /// (`Deployment/shop/web`).
    Memory {
        /// The name reports give the input.
        name: Arc<str>,
        /// Its content.
        bytes: Arc<[u8]>,
    },
}

impl Input {
    /// The name reports use: the path as found, or `-` for stdin.
    pub fn display_name(&self) -> Arc<str> {
        match self {
            Input::Stdin => Arc::from("-"),
            Input::File(path) => Arc::from(path.to_string_lossy().as_ref()),
            Input::Memory { name, .. } => name.clone(),
        }
    }
}

const EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

/// Expands `paths` into inputs sorted by name, plus an error for each path that cannot
/// be used. No paths at all means stdin.
pub fn discover(paths: &[String]) -> (Vec<Input>, Vec<InputError>) {
    let mut inputs = Vec::new();
    let mut errors = Vec::new();
    if paths.is_empty() {
        inputs.push(Input::Stdin);
    }
    for arg in paths {
        if arg == "-" {
            inputs.push(Input::Stdin);
            continue;
        }
        let path = Path::new(arg);
        match std::fs::metadata(path) {
            Err(error) => errors.push(InputError::whole(
                arg.as_str(),
                describe_path_error(path, &error),
            )),
            Ok(meta) if meta.is_dir() => walk(path, arg, &mut inputs, &mut errors),
            Ok(_) => inputs.push(Input::File(path.to_path_buf())),
        }
    }
    inputs.sort_by_key(Input::display_name);
    inputs.dedup();
    (inputs, errors)
}

fn walk(dir: &Path, arg: &str, inputs: &mut Vec<Input>, errors: &mut Vec<InputError>) {
    let before = inputs.len();
    let walker = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| entry.depth() == 0 || !is_hidden(entry.file_name()));
    for entry in walker {
        match entry {
            Ok(entry) if entry.file_type().is_file() && has_manifest_extension(entry.path()) => {
                inputs.push(Input::File(entry.into_path()));
            }
            Ok(_) => {}
            Err(error) => errors.push(walk_error(arg, &error)),
        }
    }
    if inputs.len() == before && !errors.iter().any(|e| e.file.starts_with(arg)) {
        errors.push(InputError::whole(
            arg,
            "directory contains no .yaml, .yml or .json files",
        ));
    }
}

fn is_hidden(name: &std::ffi::OsStr) -> bool {
    name.to_str()
        .is_some_and(|name| name.starts_with('.') && name != "." && name != "..")
}

fn has_manifest_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|ext| ext.to_str())
        .is_some_and(|ext| {
            EXTENSIONS
                .iter()
                .any(|known| ext.eq_ignore_ascii_case(known))
        })
}

fn walk_error(arg: &str, error: &walkdir::Error) -> InputError {
    let file = error
        .path()
        .map_or_else(|| arg.to_owned(), |p| p.to_string_lossy().into_owned());
    let message = if let Some(ancestor) = error.loop_ancestor() {
        format!(
            "symbolic link loop back to {}; not followed",
            ancestor.display()
        )
    } else if let (Some(io), Some(path)) = (error.io_error(), error.path()) {
        describe_path_error(path, io)
    } else if let Some(io) = error.io_error() {
        describe_io(io)
    } else {
        error.to_string()
    };
    InputError::whole(file, message)
}

/// Why `path` cannot be used: a symbolic link whose target is missing says so, as
/// "no such file or directory" would point at a file the user can see.
fn describe_path_error(path: &Path, error: &std::io::Error) -> String {
    match std::fs::read_link(path) {
        Ok(target) if error.kind() == std::io::ErrorKind::NotFound => {
            format!("broken symbolic link to {}", target.display())
        }
        _ => describe_io(error),
    }
}

/// A short, lower-case reason for an I/O failure.
pub fn describe_io(error: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match error.kind() {
        ErrorKind::NotFound => "no such file or directory".into(),
        ErrorKind::PermissionDenied => "permission denied".into(),
        _ => {
            let text = error.to_string();
            // Drop the " (os error N)" suffix the standard library adds.
            match text.find(" (os error") {
                Some(at) => text[..at].to_lowercase(),
                None => text.to_lowercase(),
            }
        }
    }
}
