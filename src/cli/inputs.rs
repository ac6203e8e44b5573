//! What `lint` and `explain` read, in the order that makes each step possible: the config
//! file first (its `exclude:` decides what directory searches find), then the inputs
//! (each read once: files and standard input, or with `--cluster` the objects kubectl
//! prints), then the profile they complete — refusing at once a run that would wait on
//! a terminal or write its report over one of its inputs.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{
    InputArgs, Output, PLUGIN_NAME, ProfileArgs, ReadArgs, cluster, diagnostic, profile_errors,
    usage_error,
};
use crate::cluster::{Snapshot, Sources};
use crate::load::discover::{self, Discovery, Exclude, Input, identity};
use crate::load::{InputError, Inputs, Limits, ReadLimits};

/// Everything a run needs before its first document.
pub struct Prepared {
    /// The inputs, ready to be read.
    pub inputs: Inputs,
    /// Input errors found before the first document: paths that could not be used; with
    /// `--cluster`, the kubectl calls that failed (first, in the order of the
    /// snapshot's errors), then what is wrong in the cluster's mesh configuration.
    pub errors: Vec<InputError>,
    /// The profile in force.
    pub profile: crate::settings::layers::Profile,
    /// Bounds on parsing, as the flags set them.
    pub limits: Limits,
    /// What was read from the cluster, with `--cluster`.
    pub cluster: Option<Snapshot>,
    /// The config file in force, if any.
    pub config: Option<PathBuf>,
    /// Whether the config file makes notes that hide a workload fail the run
    /// (`strict: true`).
    pub strict: bool,
    /// The files the run reads (inputs, config, mesh config), which nothing it writes
    /// may be.
    read: Vec<identity::FileId>,
    /// What every report names about the inputs: a directory not rendered and how to
    /// render it, a file that is a kustomize patch.
    pub input_notes: Vec<InputError>,
    /// Those of the input notes that say a directory could not be rendered.
    unrendered: Vec<InputError>,
}

impl Prepared {
    /// Prints [`Prepared::errors`] on standard error: a failed kubectl call in kubectl's
    /// words, any other error as a diagnostic at its place.
    pub fn print_errors(&self, style: crate::report::human::Style) {
        let failed = self.cluster.as_ref().map_or(&[][..], |s| &s.errors[..]);
        if let Some(snapshot) = &self.cluster {
            for error in failed {
                diagnostic(&cluster::describe_failure(error, snapshot));
            }
        }
        for error in &self.errors[failed.len()..] {
            diagnostic(&crate::report::human::render_input_error(error, style));
        }
    }

    /// What the cluster read could not read and assumes instead; nothing without
    /// `--cluster`.
    pub fn notes(&self) -> Vec<String> {
        self.cluster
            .as_ref()
            .map(|snapshot| snapshot.notes.clone())
            .unwrap_or_default()
    }

    /// What may have left workloads of the cluster unlinted, as notes every report
    /// names; nothing without `--cluster`.
    pub fn hidden(&self) -> Vec<InputError> {
        self.cluster
            .as_ref()
            .map(cluster::hidden)
            .unwrap_or_default()
    }

    /// Whether `note`, one of [`Prepared::input_notes`], says a directory could not be
    /// rendered: its workloads went unlinted.
    pub fn is_unrendered(&self, note: &InputError) -> bool {
        self.unrendered
            .iter()
            .any(|u| u.file == note.file && u.message == note.message)
    }

    /// Whether `path` is, through any path or link, a file the run reads.
    pub fn reads(&self, path: &Path) -> bool {
        path.is_file() && identity::of_path(path).is_some_and(|target| self.read.contains(&target))
    }

    /// The config file in force as reports name it: relative to the working
    /// directory when it lies under it.
    pub fn config_name(&self) -> Option<String> {
        let path = self.config.as_deref()?;
        let shown = std::env::current_dir()
            .ok()
            .and_then(|cwd| path.strip_prefix(&cwd).ok().map(Path::to_path_buf))
            .unwrap_or_else(|| path.to_path_buf());
        Some(shown.to_string_lossy().into_owned())
    }

    /// The objects read from the cluster, for the reports that describe them.
    pub fn sources(&self) -> Sources {
        self.cluster
            .as_ref()
            .map(Snapshot::sources)
            .unwrap_or_default()
    }
}

impl InputArgs {
    /// The bounds on reading, as the flags set them.
    pub fn read_limits(&self) -> ReadLimits {
        ReadLimits {
            input_bytes: self.max_input_size,
            document_bytes: usize::try_from(self.max_document_size).unwrap_or(usize::MAX),
            line_bytes: usize::try_from(self.max_line_length).unwrap_or(usize::MAX),
        }
    }

    /// The bounds on parsing, with the document limit of the flags.
    fn parse_limits(&self) -> Limits {
        Limits {
            max_document_bytes: self.read_limits().document_bytes,
            ..Limits::default()
        }
    }

    fn discovery(&self, config_exclude: Option<Exclude>) -> Discovery {
        let mut exclude = Vec::new();
        if !self.exclude.is_empty() {
            exclude.push(Exclude {
                root: std::env::current_dir().unwrap_or_default(),
                globs: self.exclude.clone(),
                origin: Arc::from("--exclude"),
            });
        }
        exclude.extend(config_exclude);
        Discovery {
            no_ignore: self.no_ignore,
            render: !self.no_render,
            exclude,
        }
    }
}

/// Reads the config, finds and reads the inputs (or the cluster), and builds the
/// profile for `command` (`lint`, `explain`). `Err` is the exit status of a run that
/// cannot start, its reason already printed.
pub fn prepare(
    command: &str,
    read_args: &ReadArgs,
    output: &Output,
) -> std::io::Result<Result<Prepared, u8>> {
    let (input, profile) = (&read_args.input, &read_args.profile);
    // The config first: the kinds it declares are TYPEs of a cluster run.
    let (layers, config_notes) = profile.read_files(input.max_config_size);
    for note in &config_notes {
        diagnostic(&format!("note: {note}\n"));
    }
    let request = match read_args.cluster.request(
        command,
        &input.paths,
        layers.workload_kinds(),
        input.max_input_size,
    ) {
        Ok(request) => request,
        Err(message) => return usage_error(message).map(Err),
    };
    // A cluster run reads no standard input (its first kubectl call lends it to a
    // credential plugin that may ask for a password).
    if request.is_none() && input.paths.is_empty() && std::io::stdin().is_terminal() {
        return usage_error(format!(
            "no input: give a path ({PLUGIN_NAME} {command} deploy/) or pipe manifests (helm template … | {PLUGIN_NAME} {command} -)"
        ))
        .map(Err);
    }
    // The report must not overwrite what the run reads; the files of a cluster run are
    // its config files alone, checked before kubectl runs.
    let refuse = |inputs: &[Input]| {
        let path = output.output.as_deref()?;
        overwrites_an_input(path, inputs, &layers.files, &input.paths)
    };
    let (found, snapshot) = match &request {
        Some(request) => {
            if let Some(message) = refuse(&[]) {
                return usage_error(message).map(Err);
            }
            let mut snapshot = cluster::read(request, output.stderr_style().width);
            let found = discover::Discovered {
                inputs: cluster::take_inputs(&mut snapshot),
                errors: cluster::input_errors(&snapshot),
                ..discover::Discovered::default()
            };
            (found, Some(snapshot))
        }
        None => {
            let discovery = input.discovery(layers.exclude.clone());
            let mut found = discover::discover(&input.paths, &discovery);
            for note in &found.notes {
                diagnostic(&format!("note: {note}\n"));
            }
            if let Some(message) = refuse(&found.inputs) {
                return usage_error(message).map(Err);
            }
            render(&mut found, &discovery);
            (found, None)
        }
    };
    complete(input, profile, output, layers, found, snapshot, None)
}

/// The inputs `found` ready to read, and the profile they complete over `layers`, with
/// the cluster's profile (`snapshot`'s, else `cluster`) laid over the files'.
fn complete(
    input: &InputArgs,
    profile: &ProfileArgs,
    output: &Output,
    layers: crate::settings::layers::FileLayers,
    found: discover::Discovered,
    snapshot: Option<Snapshot>,
    cluster: Option<&crate::cluster::profile::Profile>,
) -> std::io::Result<Result<Prepared, u8>> {
    let read: Vec<identity::FileId> = found
        .inputs
        .iter()
        .filter_map(Input::identity)
        .chain(
            layers
                .files
                .iter()
                .filter_map(|file| identity::of_path(file)),
        )
        .collect();
    let (config, strict) = (layers.config.clone(), layers.strict);
    let inputs = Inputs::new(
        found.inputs,
        input.read_limits(),
        input.stdin_filename.as_deref(),
    );
    let limits = input.parse_limits();
    let cluster_profile = snapshot
        .as_ref()
        .map(|snapshot| &snapshot.profile)
        .or(cluster);
    match profile.load(layers, &inputs, limits, cluster_profile) {
        Ok(mut profile) => {
            let mut errors = found.errors;
            errors.append(&mut profile.cluster_errors);
            Ok(Ok(Prepared {
                inputs,
                errors,
                profile,
                limits,
                cluster: snapshot,
                config,
                strict,
                read,
                input_notes: found.input_notes,
                unrendered: found.unrendered,
            }))
        }
        Err(errors) => profile_errors(&errors, output.stderr_style()).map(Err),
    }
}

/// What one side of a comparison reads.
pub enum SideInputs<'a> {
    /// Files and directories, found as `lint` finds them.
    Paths(&'a [String]),
    /// Inputs already read (a git revision, objects read from a cluster).
    Given(Vec<Input>),
}

/// Prepares one side of a comparison: the config, `inputs`, and the profile they
/// complete, with `cluster` the profile a live cluster states (both sides of `diff
/// --cluster` run in the cluster's environment). `Err` is the exit status of a run that
/// cannot start, its reason already printed.
pub fn prepare_side(
    input: &InputArgs,
    profile: &ProfileArgs,
    output: &Output,
    inputs: SideInputs,
    cluster: Option<&crate::cluster::profile::Profile>,
) -> std::io::Result<Result<Prepared, u8>> {
    let (layers, config_notes) = profile.read_files(input.max_config_size);
    let found = match inputs {
        SideInputs::Paths(paths) => {
            // Said once, by the side read from the paths given.
            for note in &config_notes {
                diagnostic(&format!("note: {note}\n"));
            }
            let discovery = input.discovery(layers.exclude.clone());
            let mut found = discover::discover(paths, &discovery);
            for note in &found.notes {
                diagnostic(&format!("note: {note}\n"));
            }
            if let Some(path) = output.output.as_deref()
                && let Some(message) =
                    overwrites_an_input(path, &found.inputs, &layers.files, paths)
            {
                return usage_error(message).map(Err);
            }
            render(&mut found, &discovery);
            found
        }
        SideInputs::Given(inputs) => discover::Discovered {
            inputs,
            ..discover::Discovered::default()
        },
    };
    complete(input, profile, output, layers, found, None, cluster)
}

/// Renders the directories the search handed over whole (kustomizations, Helm charts)
/// into inputs of their own, among the others in name order; a kustomization that
/// cannot be rendered is searched as files. Files that a kustomization applies as
/// patches are noted.
pub(super) fn render(found: &mut discover::Discovered, discovery: &Discovery) {
    let targets = std::mem::take(&mut found.render);
    let rendered = crate::render::render(&targets);
    found.unrendered.extend(rendered.notes.iter().cloned());
    found.input_notes.extend(rendered.notes);
    found
        .input_notes
        .extend(crate::render::patch_notes(&found.inputs));
    found.errors.extend(rendered.errors);
    found.inputs.extend(rendered.inputs);
    if !rendered.unrendered.is_empty() {
        let as_files = Discovery {
            render: false,
            ..discovery.clone()
        };
        let paths: Vec<String> = rendered
            .unrendered
            .iter()
            .map(|dir| dir.to_string_lossy().into_owned())
            .collect();
        let files = discover::discover(&paths, &as_files);
        found.errors.extend(files.errors);
        found
            .input_notes
            .extend(crate::render::patch_notes(&files.inputs));
        found.inputs.extend(files.inputs);
    }
    found.inputs.sort_by_key(Input::display_name);
}

/// Why writing the report to `output` would destroy an input (a manifest, standard input
/// redirected from a file, the config or a mesh config), through whatever path or link
/// it is named; `None` when it would not.
fn overwrites_an_input(
    output: &Path,
    inputs: &[Input],
    files: &[PathBuf],
    named: &[String],
) -> Option<String> {
    // Only a regular file can be overwritten: `-o /dev/stdout` on the terminal that is
    // also standard input is fine.
    if !output.is_file() {
        return None;
    }
    let target = identity::of_path(output)?;
    let same = |input: &str| {
        format!(
            "--output-file {} is the same file as the input {input}; writing the report there would overwrite it",
            output.display()
        )
    };
    for input in inputs {
        if input.identity().as_ref() == Some(&target) {
            let mut message = same(&match input {
                Input::Stdin => "- (standard input)".to_owned(),
                Input::File(_) | Input::Memory { .. } | Input::Rendered { .. } => {
                    input.display_name().to_string()
                }
            });
            // A report from an earlier run, found again by a directory search: say how
            // to keep the two apart rather than leave the user guessing.
            let named_itself = named
                .iter()
                .any(|name| identity::of_path(Path::new(name)).as_ref() == Some(&target));
            if !named_itself {
                message.push_str(&format!(
                    " (a directory search found it): write the report outside the searched directories, or leave it out with --exclude '{}'",
                    output.file_name().map_or_else(
                        || output.display().to_string(),
                        |name| name.to_string_lossy().into_owned()
                    )
                ));
            }
            return Some(message);
        }
    }
    files
        .iter()
        .find(|file| identity::of_path(file).as_ref() == Some(&target))
        .map(|file| same(&file.display().to_string()))
}
