//! What a document is linted with, as `lint` would lint it in a directory run over its
//! workspace: the profile of the nearest `.mesh-lifecycle.yaml` (read again for every
//! lint, so an edit to it counts at once), its rule levels and `workloadKinds`, and the
//! context the workspace's other manifests give (Namespaces whose labels decide
//! injection, Services, mesh configuration), found as a directory search finds them:
//! hidden and ignored files passed over, the config's `exclude:` applied. Open
//! documents count with their buffers' text, not the files on disk.
//!
//! The workspace's files are read once and kept; a file is read again when its size or
//! modification time changes, checked at most every [`RESCAN`] and at once after the
//! editor reports a change to a watched file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use crate::load::discover::{self, Discovery, Exclude, Input};
use crate::load::{InputError, Inputs, Limits, ReadLimits};
use crate::pipeline::RunOptions;
use crate::rules::selector::Policy;
use crate::settings::Settings;
use crate::settings::config;
use crate::settings::layers::{FileLayers, Flags, Layer, gather_context};

/// How long a scan of a workspace's files is trusted without a change reported.
pub const RESCAN: Duration = Duration::from_secs(2);

/// The most a workspace's context may read: past it, the rest of the files are passed
/// over (a home directory opened as a workspace must not be read whole).
const MAX_CONTEXT_BYTES: u64 = 64 << 20;

/// Which config file applies.
#[derive(Clone, Debug)]
pub enum ConfigChoice {
    /// The nearest `.mesh-lifecycle.yaml` at or above the document's directory.
    Nearest,
    /// This one, for every document (`--config`).
    File(PathBuf),
    /// None (`--no-config`).
    Without,
}

/// What the command line that started the server sets, for every document.
#[derive(Clone, Debug)]
pub struct Overrides {
    /// The config file.
    pub config: ConfigChoice,
    /// Mesh config files (`--mesh-config`).
    pub mesh_configs: Vec<PathBuf>,
    /// The preset and flags, the last layers of the profile.
    pub flags: Flags,
    /// `--select`.
    pub select: Vec<String>,
    /// `--ignore`.
    pub ignore: Vec<String>,
    /// Bounds on reading a document.
    pub limits: ReadLimits,
    /// The largest config or mesh-config file read.
    pub max_config_size: u64,
}

impl Default for Overrides {
    fn default() -> Self {
        Overrides {
            config: ConfigChoice::Nearest,
            mesh_configs: Vec::new(),
            flags: Flags::default(),
            select: Vec::new(),
            ignore: Vec::new(),
            limits: ReadLimits::default(),
            max_config_size: 4 << 20,
        }
    }
}

/// The workspace: its folders, and what was read of them.
pub struct Workspace {
    folders: Mutex<Vec<PathBuf>>,
    overrides: Overrides,
    scans: Mutex<HashMap<PathBuf, Scan>>,
}

/// A document's lint settings.
#[derive(Clone)]
pub struct Context {
    /// The profile in force.
    pub settings: Arc<Settings>,
    /// The rule policy and limits, as `lint` has them.
    pub options: RunOptions,
    /// Bounds on reading the buffer.
    pub limits: ReadLimits,
    /// The name the buffer's findings and errors give it: its path relative to its
    /// workspace folder.
    pub name: Arc<str>,
    /// The inputs the buffer is read from, its own context already gathered from them.
    pub inputs: Arc<Inputs>,
}

/// Whether and how a document is linted.
pub enum Prepared {
    /// Lint it with this.
    Lint(Context),
    /// The config's `exclude:` leaves it out, as a directory run would.
    Excluded,
    /// The config file, or a mesh config it names, is wrong: `lint` refuses to run.
    Unusable {
        /// The config file.
        config: Option<PathBuf>,
        /// What is wrong, each at its place.
        errors: Vec<InputError>,
    },
}

/// The files of one workspace folder, as last read.
struct Scan {
    taken: Instant,
    stale: bool,
    /// The `exclude:` globs the scan applied.
    exclude: Option<(PathBuf, Vec<String>)>,
    files: Vec<(PathBuf, Stamp, Arc<[u8]>)>,
}

/// What tells a file changed without reading it.
type Stamp = (Option<SystemTime>, u64);

fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok(), meta.len()))
}

impl Workspace {
    /// A workspace of `folders`, with the command line's `overrides`.
    pub fn new(folders: Vec<PathBuf>, overrides: Overrides) -> Workspace {
        Workspace {
            folders: Mutex::new(folders),
            overrides,
            scans: Mutex::default(),
        }
    }

    /// Replaces the workspace folders (`workspace/didChangeWorkspaceFolders`).
    pub fn set_folders(&self, folders: Vec<PathBuf>) {
        if let Ok(mut current) = self.folders.lock() {
            *current = folders;
        }
    }

    /// The workspace folders.
    pub fn folders(&self) -> Vec<PathBuf> {
        self.folders.lock().map(|f| f.clone()).unwrap_or_default()
    }

    /// Forgets what was read of the workspace's files: the editor reported a change.
    pub fn invalidate(&self) {
        if let Ok(mut scans) = self.scans.lock() {
            for scan in scans.values_mut() {
                scan.stale = true;
            }
        }
    }

    /// How to lint the document at `path` (`None` for one that is not a file) whose
    /// buffer holds `text`, with `open` the other open documents' buffers.
    pub fn prepare(
        &self,
        path: Option<&Path>,
        text: &Arc<str>,
        open: &[(PathBuf, Arc<str>)],
    ) -> Prepared {
        let overrides = &self.overrides;
        // A buffer that is not a file yet belongs to the first folder.
        let folder = match path {
            Some(path) => self.folder_of(path),
            None => self.folders().into_iter().next(),
        };
        let config = match &overrides.config {
            ConfigChoice::Without => None,
            ConfigChoice::File(file) => Some(file.clone()),
            ConfigChoice::Nearest => path
                .and_then(Path::parent)
                .or(folder.as_deref())
                .and_then(|dir| config::find_upward(dir).path),
        };
        let layers = FileLayers::read(
            config.as_deref(),
            &overrides.mesh_configs,
            overrides.max_config_size,
        );
        if let (Some(path), Some(exclude)) = (path, &layers.exclude)
            && excluded(path, exclude)
        {
            return Prepared::Excluded;
        }
        let root = folder
            .or_else(|| {
                config
                    .as_deref()
                    .and_then(Path::parent)
                    .map(Path::to_path_buf)
            })
            .or_else(|| path.and_then(Path::parent).map(Path::to_path_buf));
        let name: Arc<str> = match (path, &root) {
            (Some(path), Some(root)) => Arc::from(
                path.strip_prefix(root)
                    .unwrap_or(path)
                    .to_string_lossy()
                    .as_ref(),
            ),
            (Some(path), None) => Arc::from(path.to_string_lossy().as_ref()),
            (None, _) => Arc::from(crate::load::STDIN_NAME),
        };
        let others = match &root {
            Some(root) => self.others(root, layers.exclude.as_ref(), path, open),
            None => Vec::new(),
        };
        let inputs = Arc::new(Inputs::new(
            vec![Input::Memory {
                name: name.clone(),
                bytes: Arc::from(text.as_bytes()),
            }],
            overrides.limits,
            None,
        ));
        let limits = parse_limits(overrides.limits);
        let workspace = WorkspaceContext {
            inputs: Inputs::new(others, overrides.limits, None),
            limits,
        };
        let profile = match layers.complete(&inputs, limits, Some(&workspace), &overrides.flags) {
            Ok(profile) => profile,
            Err(errors) => return Prepared::Unusable { config, errors },
        };
        let policy = Policy::from_flags(&overrides.select, &overrides.ignore)
            .unwrap_or_default()
            .with_config_rules(&profile.rules)
            .map(|policy| policy.with_assumed_losses(profile.assumed_losses));
        let policy = match policy {
            Ok(policy) => policy,
            Err(errors) => return Prepared::Unusable { config, errors },
        };
        Prepared::Lint(Context {
            settings: Arc::new(profile.settings),
            options: RunOptions {
                limits,
                policy,
                ..RunOptions::default()
            },
            limits: overrides.limits,
            name,
            inputs,
        })
    }

    /// The workspace folder `path` lies in, the deepest when folders nest.
    fn folder_of(&self, path: &Path) -> Option<PathBuf> {
        self.folders()
            .into_iter()
            .filter(|folder| path.starts_with(folder))
            .max_by_key(|folder| folder.components().count())
    }

    /// The other manifests of the workspace at `root`, as inputs: the files a directory
    /// search finds, the open documents' buffers in place of their files, without the
    /// document at `path` itself.
    fn others(
        &self,
        root: &Path,
        exclude: Option<&Exclude>,
        path: Option<&Path>,
        open: &[(PathBuf, Arc<str>)],
    ) -> Vec<Input> {
        let files = self.files(root, exclude);
        let memory = |name: &Path, bytes: Arc<[u8]>| Input::Memory {
            name: Arc::from(
                name.strip_prefix(root)
                    .unwrap_or(name)
                    .to_string_lossy()
                    .as_ref(),
            ),
            bytes,
        };
        let mut inputs: Vec<Input> = files
            .into_iter()
            .filter(|(file, _)| Some(file.as_path()) != path)
            .filter(|(file, _)| !open.iter().any(|(open, _)| open == file))
            .map(|(file, bytes)| memory(&file, bytes))
            .collect();
        inputs.extend(
            open.iter()
                .filter(|(file, _)| file.starts_with(root) && Some(file.as_path()) != path)
                .filter(|(file, _)| exclude.is_none_or(|exclude| !excluded(file, exclude)))
                .map(|(file, text)| memory(file, Arc::from(text.as_bytes()))),
        );
        inputs
    }

    /// The manifest files under `root` and their bytes, from the last scan when it
    /// still holds.
    fn files(&self, root: &Path, exclude: Option<&Exclude>) -> Vec<(PathBuf, Arc<[u8]>)> {
        let Ok(mut scans) = self.scans.lock() else {
            return Vec::new();
        };
        let wanted = exclude.map(|exclude| (exclude.root.clone(), exclude.globs.clone()));
        let fresh = scans.get(root).is_some_and(|scan| {
            !scan.stale && scan.exclude == wanted && scan.taken.elapsed() < RESCAN
        });
        if !fresh {
            let before = scans.remove(root);
            scans.insert(root.to_path_buf(), scan(root, exclude, before));
        }
        scans[root]
            .files
            .iter()
            .map(|(path, _, bytes)| (path.clone(), bytes.clone()))
            .collect()
    }
}

/// Reads the manifest files under `root` a directory run would read, reusing the bytes
/// of `before` for every file whose stamp has not changed.
fn scan(root: &Path, exclude: Option<&Exclude>, before: Option<Scan>) -> Scan {
    // The files as they stand, kustomizations' and charts' too: what an editor has open
    // is a file, and rendering on every scan would run kustomize or Helm per keystroke.
    let discovery = Discovery {
        no_ignore: false,
        render: false,
        exclude: exclude.cloned().into_iter().collect(),
    };
    let found = discover::discover(&[root.to_string_lossy().into_owned()], &discovery);
    let mut known: HashMap<PathBuf, (Stamp, Arc<[u8]>)> = before
        .map(|scan| {
            scan.files
                .into_iter()
                .map(|(path, stamp, bytes)| (path, (stamp, bytes)))
                .collect()
        })
        .unwrap_or_default();
    let mut files = Vec::new();
    let mut total = 0u64;
    for input in found.inputs {
        let Input::File(path) = input else { continue };
        let Some(now) = stamp(&path) else { continue };
        if total.saturating_add(now.1) > MAX_CONTEXT_BYTES {
            break;
        }
        let bytes = match known.remove(&path) {
            Some((then, bytes)) if then == now => bytes,
            _ => match std::fs::read(&path) {
                Ok(bytes) => Arc::from(bytes),
                Err(_) => continue,
            },
        };
        total += bytes.len() as u64;
        files.push((path, now, bytes));
    }
    Scan {
        taken: Instant::now(),
        stale: false,
        exclude: exclude.map(|exclude| (exclude.root.clone(), exclude.globs.clone())),
        files,
    }
}

/// Whether the config's `exclude:` globs leave `path` out of a directory search: it, or
/// a directory above it, matches.
pub fn excluded(path: &Path, exclude: &Exclude) -> bool {
    if !path.starts_with(&exclude.root) {
        return false;
    }
    let mut builder = ignore::gitignore::GitignoreBuilder::new(&exclude.root);
    for glob in &exclude.globs {
        // A glob that does not compile is the config's error, reported by `lint`.
        let _ = builder.add_line(None, glob);
    }
    builder
        .build()
        .is_ok_and(|globs| globs.matched_path_or_any_parents(path, false).is_ignore())
}

/// The bounds on parsing, with the document limit of the reading limits.
fn parse_limits(limits: ReadLimits) -> Limits {
    Limits {
        max_document_bytes: limits.document_bytes,
        ..Limits::default()
    }
}

/// The context the workspace's other manifests give, laid after the buffer's own as a
/// layer of the profile: the Namespaces, Services and mesh configuration among them.
struct WorkspaceContext {
    inputs: Inputs,
    limits: Limits,
}

impl Layer for WorkspaceContext {
    fn apply(&self, settings: &mut Settings) -> Vec<InputError> {
        // What is wrong in another file's mesh configuration is that file's to report.
        gather_context(&self.inputs, self.limits, settings);
        Vec::new()
    }
}
