//! Turns the paths on the command line into the list of inputs to read.
//!
//! Like `kubectl apply -R` and ripgrep: directories are searched recursively for `.yaml`,
//! `.yml` and `.json` files, in a stable order, passing over hidden files and folders,
//! what `.gitignore`, `.ignore` and git's exclude files ignore (the `ignore` crate, which
//! is ripgrep's walker), and what `--exclude` and the config file's `exclude:` name;
//! `--no-ignore` reads all of it. A path named explicitly is always read, whatever its
//! extension and whatever the ignore rules say; `-` is standard input. A file named twice,
//! through any path or link, is read once, and every path is written without `./`. A
//! directory search follows symbolic links that stay inside the directory, and no
//! other.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::InputError;
use super::rendered::Renderer;

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
    /// What `kubectl kustomize` or `helm template` printed for a directory, named by the
    /// directory, with where its documents came from.
    Rendered {
        /// The directory rendered.
        name: Arc<str>,
        /// What the tool printed.
        bytes: Arc<[u8]>,
        /// Where each document came from.
        rendering: Arc<super::rendered::Rendering>,
    },
}

impl Input {
    /// The name reports use: the path as found, or `-` for stdin.
    pub fn display_name(&self) -> Arc<str> {
        match self {
            Input::Stdin => Arc::from(super::STDIN_NAME),
            Input::File(path) => Arc::from(path.to_string_lossy().as_ref()),
            Input::Memory { name, .. } | Input::Rendered { name, .. } => name.clone(),
        }
    }

    /// The file it reads, through whatever path or link it is named; `None` for bytes
    /// in memory, and for a file that cannot be identified.
    pub fn identity(&self) -> Option<identity::FileId> {
        match self {
            Input::Stdin => identity::of_stdin(),
            Input::File(path) => identity::of_path(path),
            Input::Memory { .. } | Input::Rendered { .. } => None,
        }
    }
}

/// How directories are searched.
#[derive(Clone, Debug, Default)]
pub struct Discovery {
    /// Read hidden and ignored files too (`--no-ignore`); `exclude` still applies.
    pub no_ignore: bool,
    /// Take a directory holding a kustomization or a Helm chart as one input to render,
    /// rather than search it (off with `--no-render`).
    pub render: bool,
    /// Paths to leave out of directory searches.
    pub exclude: Vec<Exclude>,
}

/// Gitignore-style globs (`charts/*/templates/`, `*.values.yaml`) of paths to leave out
/// of directory searches, relative to the directory they were written for.
#[derive(Clone, Debug)]
pub struct Exclude {
    /// The directory the globs are relative to: the working directory for `--exclude`,
    /// the config file's directory for its `exclude:`.
    pub root: PathBuf,
    /// The globs, one gitignore line each.
    pub globs: Vec<String>,
    /// Where they were written, for an error about one (`--exclude`, a config file).
    pub origin: Arc<str>,
}

/// What discovery found.
#[derive(Debug, Default)]
pub struct Discovered {
    /// The inputs to read, sorted by name, each once.
    pub inputs: Vec<Input>,
    /// Paths that cannot be used.
    pub errors: Vec<InputError>,
    /// Problems in ignore files (a bad glob in a `.gitignore`), reported and passed over
    /// as git does.
    pub notes: Vec<String>,
    /// Directories to render in place of their files, sorted.
    pub render: Vec<(PathBuf, Renderer)>,
    /// What every report names about the inputs (filled in once they are rendered).
    pub input_notes: Vec<InputError>,
    /// Those of [`Discovered::input_notes`] that say a directory could not be rendered
    /// (its tool is not installed), which hides its workloads: `lint --strict` makes
    /// them input errors.
    pub unrendered: Vec<InputError>,
}

/// The files that make a directory a kustomization, as kustomize looks for them.
pub const KUSTOMIZATION_FILES: [&str; 3] =
    ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// What renders `dir`, when it holds a kustomization or a Helm chart (`Chart.yaml`); a
/// kustomization wins, as `kubectl apply -k` would read it.
pub fn renderer(dir: &Path) -> Option<Renderer> {
    if KUSTOMIZATION_FILES
        .iter()
        .any(|file| dir.join(file).is_file())
    {
        Some(Renderer::Kustomize)
    } else if dir.join("Chart.yaml").is_file() {
        Some(Renderer::Helm)
    } else {
        None
    }
}

const EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

/// Expands `paths` into inputs sorted by name, plus an error for each path that cannot
/// be used. No paths at all means stdin.
pub fn discover(paths: &[String], discovery: &Discovery) -> Discovered {
    let mut found = Discovered::default();
    let excludes = match compile(&discovery.exclude) {
        Ok(excludes) => Arc::new(excludes),
        Err(error) => {
            found.errors.push(error);
            return found;
        }
    };
    if paths.is_empty() {
        found.inputs.push(Input::Stdin);
    }
    for arg in paths {
        if arg == "-" {
            found.inputs.push(Input::Stdin);
            continue;
        }
        let path = clean(Path::new(arg));
        match std::fs::metadata(&path) {
            Err(error) => found.errors.push(InputError::whole(
                arg.as_str(),
                describe_path_error(&path, &error),
            )),
            Ok(meta) if meta.is_dir() => match renderer(&path).filter(|_| discovery.render) {
                Some(renderer) => found.render.push((path, renderer)),
                None => walk(&path, discovery, &excludes, &mut found),
            },
            Ok(_) => found.inputs.push(Input::File(path)),
        }
    }
    found.inputs.sort_by_key(Input::display_name);
    found.render.sort();
    found.render.dedup();
    let mut seen = std::collections::HashSet::new();
    found.inputs.retain(|input| {
        let id = input.identity();
        // An input that cannot be identified is kept: reading it says what is wrong.
        id.is_none_or(|id| seen.insert(id))
    });
    found
}

/// The exclude globs as matchers; a glob that does not compile is an error of its origin.
fn compile(excludes: &[Exclude]) -> Result<Vec<Gitignore>, InputError> {
    excludes
        .iter()
        .map(|exclude| {
            let mut builder = GitignoreBuilder::new(&exclude.root);
            for glob in &exclude.globs {
                builder.add_line(None, glob).map_err(|error| {
                    InputError::whole(
                        exclude.origin.clone(),
                        format!("exclude `{glob}` is not a valid glob: {error}"),
                    )
                })?;
            }
            builder.build().map_err(|error| {
                InputError::whole(exclude.origin.clone(), format!("exclude: {error}"))
            })
        })
        .collect()
}

fn walk(dir: &Path, discovery: &Discovery, excludes: &Arc<Vec<Gitignore>>, found: &mut Discovered) {
    let before = found.inputs.len() + found.render.len();
    let errors_before = found.errors.len();
    let cwd = std::env::current_dir().unwrap_or_default();
    let excludes = Arc::clone(excludes);
    // Directories to render are taken whole: the walk does not enter them.
    let rendered = Arc::new(std::sync::Mutex::new(Vec::new()));
    let taken = Arc::clone(&rendered);
    let render = discovery.render;
    // Links are followed within the tree searched, never out of it (ripgrep follows
    // none without --follow): a search must not read, and `--fix` must not write,
    // files the tree only points at. A link whose target is missing is kept, for the
    // walk to report.
    let root = dir.canonicalize().ok();
    let outside = Arc::new(std::sync::Mutex::new(Vec::new()));
    let left_out = Arc::clone(&outside);
    let walker = ignore::WalkBuilder::new(dir)
        .standard_filters(!discovery.no_ignore)
        .follow_links(true)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(move |entry| {
            if entry.depth() == 0 {
                return true;
            }
            if entry.path_is_symlink()
                && let (Some(root), Ok(target)) = (&root, entry.path().canonicalize())
                && !target.starts_with(root)
            {
                if let Ok(mut outside) = left_out.lock() {
                    outside.push(clean(entry.path()));
                }
                return false;
            }
            let is_dir = entry.file_type().is_some_and(|kind| kind.is_dir());
            let path = cwd.join(clean(entry.path()));
            let excluded = excludes
                .iter()
                .any(|exclude| exclude.matched(&path, is_dir).is_ignore());
            if !excluded
                && is_dir
                && render
                && let Some(renderer) = renderer(entry.path())
            {
                if let Ok(mut taken) = taken.lock() {
                    taken.push((clean(entry.path()), renderer));
                }
                return false;
            }
            !excluded
        })
        .build();
    for entry in walker {
        match entry {
            Ok(entry) => {
                if let Some(error) = entry.error() {
                    found
                        .notes
                        .push(format!("{error}; the rest of the ignore rules apply"));
                }
                let is_file = entry.file_type().is_some_and(|kind| kind.is_file());
                if is_file && has_manifest_extension(entry.path()) {
                    found.inputs.push(Input::File(clean(entry.path())));
                }
            }
            Err(error) => found.errors.push(walk_error(dir, &error)),
        }
    }
    if let Ok(mut taken) = rendered.lock() {
        found.render.append(&mut taken);
    }
    for link in outside
        .lock()
        .map(|links| links.clone())
        .unwrap_or_default()
    {
        found.notes.push(format!(
            "{}: a symbolic link out of {}; not followed (name it to read it)",
            link.display(),
            dir.display()
        ));
    }
    if found.inputs.len() + found.render.len() == before && found.errors.len() == errors_before {
        let name = dir.to_string_lossy();
        let message = if discovery.no_ignore {
            "directory contains no .yaml, .yml or .json files".to_owned()
        } else {
            "directory contains no .yaml, .yml or .json files that are not hidden or ignored (--no-ignore reads those too)".to_owned()
        };
        found.errors.push(InputError::whole(name.as_ref(), message));
    }
}

/// `path` without `.` components, as every report writes it: `./k8s/a.yaml` and
/// `k8s//a.yaml` are `k8s/a.yaml`. `..` is kept (a symbolic link makes it mean another
/// directory than the one lexically above). A file named `-` stays `./-`, which is not
/// standard input.
pub fn clean(path: &Path) -> PathBuf {
    let cleaned: PathBuf = path
        .components()
        .filter(|component| *component != Component::CurDir)
        .collect();
    if cleaned.as_os_str().is_empty() {
        PathBuf::from(".")
    } else if cleaned.as_os_str() == "-" {
        PathBuf::from("./-")
    } else {
        cleaned
    }
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

fn walk_error(dir: &Path, error: &ignore::Error) -> InputError {
    use ignore::Error;
    let mut path = None;
    let mut error = error;
    loop {
        match error {
            Error::WithPath { path: at, err } => {
                path = Some(at.as_path());
                error = err;
            }
            Error::WithDepth { err, .. } | Error::WithLineNumber { err, .. } => error = err,
            _ => break,
        }
    }
    let file = clean(path.unwrap_or(dir)).to_string_lossy().into_owned();
    let message = match (error, path) {
        (Error::Loop { ancestor, child }, _) => {
            return InputError::whole(
                clean(child).to_string_lossy().as_ref(),
                format!(
                    "symbolic link loop back to {}; not followed",
                    clean(ancestor).display()
                ),
            );
        }
        (Error::Io(io), Some(path)) => describe_path_error(path, io),
        (Error::Io(io), None) => describe_io(io),
        (other, _) => other.to_string(),
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

/// Which file a path or standard input is, whatever the path it is reached by: the
/// same file through two paths, a hard link or a symbolic link is one file.
pub mod identity {
    use std::path::Path;

    /// A file's identity: device and inode on Unix, the canonical path elsewhere.
    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    pub struct FileId(Inner);

    #[cfg(unix)]
    type Inner = (u64, u64);
    #[cfg(not(unix))]
    type Inner = std::path::PathBuf;

    /// The file `path` names, following symbolic links; `None` when it cannot be
    /// reached.
    pub fn of_path(path: &Path) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let meta = std::fs::metadata(path).ok()?;
            Some(FileId((meta.dev(), meta.ino())))
        }
        #[cfg(not(unix))]
        {
            path.canonicalize().ok().map(FileId)
        }
    }

    /// The file an open `file` is; `None` where that cannot be told.
    pub fn of_file(file: &std::fs::File) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let meta = file.metadata().ok()?;
            Some(FileId((meta.dev(), meta.ino())))
        }
        #[cfg(not(unix))]
        {
            let _ = file;
            None
        }
    }

    /// The file (or pipe, or terminal) standard input is.
    pub fn of_stdin() -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::fd::AsFd;
            use std::os::unix::fs::MetadataExt;
            let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
            let meta = std::fs::File::from(fd).metadata().ok()?;
            Some(FileId((meta.dev(), meta.ino())))
        }
        #[cfg(not(unix))]
        {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_written_without_dot_components() {
        assert_eq!(clean(Path::new("./k8s/./a.yaml")), Path::new("k8s/a.yaml"));
        assert_eq!(clean(Path::new("k8s//a.yaml")), Path::new("k8s/a.yaml"));
        assert_eq!(clean(Path::new("../up/a.yaml")), Path::new("../up/a.yaml"));
        assert_eq!(clean(Path::new("./")), Path::new("."));
        assert_eq!(clean(Path::new("./-")), Path::new("./-"));
        assert_eq!(clean(Path::new("/abs/./a.yaml")), Path::new("/abs/a.yaml"));
    }

    #[test]
    fn a_bad_exclude_glob_is_an_error_of_where_it_was_written() {
        let discovery = Discovery {
            exclude: vec![Exclude {
                root: PathBuf::from("/"),
                globs: vec!["{a,b".into()],
                origin: Arc::from("--exclude"),
            }],
            ..Discovery::default()
        };
        let found = discover(&["x".into()], &discovery);
        assert_eq!(found.errors.len(), 1);
        assert_eq!(&*found.errors[0].file, "--exclude");
        assert!(found.inputs.is_empty());
    }
}
