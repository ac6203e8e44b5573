//! What `lint` and `explain` read, in the order that makes each step possible: the config
//! file first (its `exclude:` decides what directory searches find), then the inputs
//! (each read once: files and standard input, or with `--cluster` the objects kubectl
//! prints), then the profile they complete — refusing at once a run that would wait on
//! a terminal or write its report, its baseline or its job summary over a file it
//! reads ([`super::overwrite`]).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::overwrite::{ReadFiles, Writer};
use super::{
    InputArgs, Output, PLUGIN_NAME, ProfileArgs, ReadArgs, cluster, diagnostic, profile_errors,
    usage_error,
};
use crate::cluster::{Snapshot, Sources};
use crate::external::CallBounds;
use crate::load::discover::{self, Discovery, Exclude, Input};
use crate::load::{InputError, Inputs, Limits, ReadLimits};
use crate::settings::layers::FileLayers;

/// The files a command writes besides its report, and the baseline it reads, which
/// nothing it writes may be either.
#[derive(Clone, Debug, Default)]
pub struct OtherFiles<'a> {
    /// `--write-baseline`.
    pub write_baseline: Option<&'a Path>,
    /// The GitHub job summary, when the report is the github format.
    pub job_summary: Option<PathBuf>,
    /// `--baseline`.
    pub baseline: Option<&'a Path>,
}

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
    /// The files the run reads (inputs, config, mesh configs, the baseline), which
    /// nothing it writes may be.
    pub guard: ReadFiles,
    /// What bounds each call of a renderer, and of git.
    pub render_bounds: CallBounds,
    /// What every report names about the inputs: a directory not rendered and how to
    /// render it, a file that is a kustomize patch.
    pub input_notes: Vec<InputError>,
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

    /// What bounds each call of a renderer (and of git): `--render-timeout`, else the
    /// config's `renderTimeout`, else the default; and `--max-input-size`.
    pub fn render_bounds(&self, layers: &FileLayers) -> CallBounds {
        let default = crate::render::default_bounds();
        CallBounds {
            timeout: self
                .render_timeout
                .clone()
                .or_else(|| layers.render_timeout.clone())
                .unwrap_or(default.timeout),
            max_output: self.max_input_size,
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
/// cannot start, its reason already printed: among them, a run that would write its
/// report or one of `other` over a file it reads.
pub fn prepare(
    command: &str,
    read_args: &ReadArgs,
    output: &Output,
    other: &OtherFiles,
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
    let render_bounds = input.render_bounds(&layers);
    let (found, snapshot, guard) = match &request {
        Some(request) => {
            // The files of a cluster run are its config files alone, checked before
            // kubectl runs.
            let guard = match guard(&[], &input.paths, &layers, output, other) {
                Ok(guard) => guard,
                Err(message) => return usage_error(message).map(Err),
            };
            let mut snapshot = cluster::read(request, output.stderr_style().width);
            let found = discover::Discovered {
                inputs: cluster::take_inputs(&mut snapshot),
                errors: cluster::input_errors(&snapshot),
                ..discover::Discovered::default()
            };
            (found, Some(snapshot), guard)
        }
        None => {
            let discovery = input.discovery(layers.exclude.clone());
            let mut found = discover::discover(&input.paths, &discovery);
            for note in &found.notes {
                diagnostic(&format!("note: {note}\n"));
            }
            // Checked before the renderers run, and again after: a kustomization left
            // unrendered is searched as files, which are inputs too.
            if let Err(message) = guard(&found.inputs, &input.paths, &layers, output, other) {
                return usage_error(message).map(Err);
            }
            render(&mut found, &discovery, &render_bounds);
            let guard = match guard(&found.inputs, &input.paths, &layers, output, other) {
                Ok(guard) => guard,
                Err(message) => return usage_error(message).map(Err),
            };
            (found, None, guard)
        }
    };
    complete(
        input,
        profile,
        output,
        layers,
        found,
        snapshot,
        None,
        guard,
        render_bounds,
    )
}

/// The files the run reads, once none of what it writes (`output`'s report, `other`'s
/// files) is one of them; `Err` is the refusal of the first that is.
fn guard(
    inputs: &[Input],
    named: &[String],
    layers: &FileLayers,
    output: &Output,
    other: &OtherFiles,
) -> Result<ReadFiles, String> {
    let guard = ReadFiles::new(
        inputs,
        named,
        &layers.files,
        layers.config.as_deref(),
        other.baseline,
    );
    let writes = [
        (Writer::Output, output.output.as_deref()),
        (Writer::WriteBaseline, other.write_baseline),
        (Writer::JobSummary, other.job_summary.as_deref()),
    ];
    for (writer, path) in writes {
        if let Some(refusal) = path.and_then(|path| guard.refuse(writer, path)) {
            return Err(refusal.to_string());
        }
    }
    Ok(guard)
}

/// The inputs `found` ready to read, and the profile they complete over `layers`, with
/// the cluster's profile (`snapshot`'s, else `cluster`) laid over the files'.
#[allow(clippy::too_many_arguments)]
fn complete(
    input: &InputArgs,
    profile: &ProfileArgs,
    output: &Output,
    layers: FileLayers,
    found: discover::Discovered,
    snapshot: Option<Snapshot>,
    cluster: Option<&crate::cluster::profile::Profile>,
    guard: ReadFiles,
    render_bounds: CallBounds,
) -> std::io::Result<Result<Prepared, u8>> {
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
                guard,
                render_bounds,
                input_notes: found.input_notes,
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
    let render_bounds = input.render_bounds(&layers);
    let (found, named) = match inputs {
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
            if let Err(message) = guard(
                &found.inputs,
                paths,
                &layers,
                output,
                &OtherFiles::default(),
            ) {
                return usage_error(message).map(Err);
            }
            render(&mut found, &discovery, &render_bounds);
            (found, paths)
        }
        SideInputs::Given(inputs) => (
            discover::Discovered {
                inputs,
                ..discover::Discovered::default()
            },
            &[][..],
        ),
    };
    let guard = match guard(
        &found.inputs,
        named,
        &layers,
        output,
        &OtherFiles::default(),
    ) {
        Ok(guard) => guard,
        Err(message) => return usage_error(message).map(Err),
    };
    complete(
        input,
        profile,
        output,
        layers,
        found,
        None,
        cluster,
        guard,
        render_bounds,
    )
}

/// Renders the directories the search handed over whole (kustomizations, Helm charts)
/// into inputs of their own, among the others in name order; a kustomization that
/// cannot be rendered is searched as files. Files that a kustomization applies as
/// patches are noted.
pub(super) fn render(found: &mut discover::Discovered, discovery: &Discovery, bounds: &CallBounds) {
    let targets = std::mem::take(&mut found.render);
    let rendered = crate::render::render(&targets, bounds);
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
