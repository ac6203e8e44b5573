//! The two sides `diff` and `explain --compare` compare, and one run of the pipeline
//! over each: two profiles of the same manifests (`--from`, `--to`), the manifests at a
//! git revision or in another tree and those given (`--base`, `--base-dir`), or what a
//! cluster runs and the files that would replace it (`--cluster`). The kinds combine: a
//! side can differ in its manifests and its profile at once.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, ValueHint};

use super::inputs::{self, Prepared, SideInputs};
use super::{InputArgs, Output, ProfileArgs, ReadArgs, RuleArgs, cluster, diagnostic, usage_error};
use crate::cluster::Sources;
use crate::escape;
use crate::load::InputError;
use crate::load::discover::{self, Discovery, Input};
use crate::load::revision::{Change, Revision};
use crate::load::source::Source;
use crate::pipeline::{self, Analysis, DocumentReport, FixMode, RunOptions};
use crate::report::human::render_input_error;
use crate::settings::Settings;
use crate::settings::overlay::Overlay;

/// What the two sides are.
#[derive(Debug, Args, Default)]
#[command(next_help_heading = "Sides")]
pub struct SideArgs {
    /// Change today's profile for the first side: KEY=VALUE, repeatable (kubernetes,
    /// nodes, istio, linkerd, preset, mesh-config, or any setting of the config file by
    /// its dotted path: istio.nativeSidecars=auto, scenario.appShutdown=20s).
    #[arg(long, value_name = "KEY=VALUE")]
    pub from: Vec<String>,

    /// Change today's profile for the second side: KEY=VALUE, repeatable (as --from).
    #[arg(long, value_name = "KEY=VALUE")]
    pub to: Vec<String>,

    /// The first side is the manifests at git revision REF (HEAD~1, origin/main), read
    /// with git; renamed files are followed and deleted ones compared too.
    #[arg(long, value_name = "REF", conflicts_with = "base_dir")]
    pub base: Option<String>,

    /// The first side is the manifests under PATH (a directory or file: `helm template`
    /// output of the other chart version), matched to the one PATH given by their
    /// paths below it.
    #[arg(long, value_name = "PATH", value_hint = ValueHint::AnyPath)]
    pub base_dir: Option<PathBuf>,
}

/// One side, run through the pipeline.
pub struct SideRun {
    /// What the side is, for the reports: `HEAD~1`, `--to istio=1.27`.
    pub label: String,
    /// Its workloads, in input order.
    pub analyses: Vec<Analysis>,
    /// Its inputs that could not be read (already printed on standard error).
    pub errors: Vec<InputError>,
    /// Its notes: objects not linted, versions beyond the model, what a cluster could
    /// not say (already printed on standard error).
    pub notes: Vec<InputError>,
    /// Its profile.
    pub settings: Settings,
    /// The objects read from a cluster, for reports that describe them.
    pub sources: Sources,
}

/// Both sides, and where objects that name no namespace go (`diff --cluster`).
pub struct Runs {
    /// The first side.
    pub before: SideRun,
    /// The second side.
    pub after: SideRun,
    /// The namespace of objects that name none.
    pub namespace: Option<String>,
}

impl Runs {
    /// Input errors of both sides.
    pub fn input_errors(&self) -> usize {
        self.before.errors.len() + self.after.errors.len()
    }
}

/// Runs both sides of `command` (`diff`, `explain --compare`). `Err` is the exit
/// status of a run that cannot start, its reason already printed.
pub fn run(
    command: &str,
    read_args: &ReadArgs,
    sides: &SideArgs,
    output: &Output,
    rules: &RuleArgs,
) -> std::io::Result<Result<Runs, u8>> {
    let ReadArgs {
        input,
        cluster: cluster_args,
        profile,
    } = read_args;
    let live = cluster_args.cluster;
    let revision = sides.base.is_some() || sides.base_dir.is_some();
    if !live && !revision && sides.from.is_empty() && sides.to.is_empty() {
        return usage_error(format!(
            "{command} compares two sides: give --to KEY=VALUE (and --from), --base REF, --base-dir PATH or --cluster"
        ))
        .map(Err);
    }
    if !live && let Err(message) = cluster_args.request(command, &[], &[], input.max_input_size) {
        // A flag of --cluster (-n, -l, --context) given without it.
        return usage_error(message).map(Err);
    }
    if live && revision {
        return usage_error("--cluster compares what is deployed with the files given; it does not take --base or --base-dir").map(Err);
    }
    let (from, to) = match (
        Overlay::parse("--from", &sides.from),
        Overlay::parse("--to", &sides.to),
    ) {
        (Ok(from), Ok(to)) => (from, to),
        (Err(message), _) | (_, Err(message)) => return usage_error(message).map(Err),
    };
    let mut paths = input.paths.clone();
    if (revision || live) && paths.iter().any(|p| p == crate::load::STDIN_NAME) {
        return usage_error("standard input has no other side: give files or directories").map(Err);
    }
    if paths.is_empty() && live {
        return usage_error(format!(
            "{command} --cluster compares what is deployed with files: give the files that would replace it"
        ))
        .map(Err);
    }
    if paths.is_empty() && revision {
        paths.push(".".to_owned());
    }
    if sides.base_dir.is_some() && paths.len() != 1 {
        return usage_error("--base-dir PATH is compared with one PATH: give exactly one").map(Err);
    }
    let max_config = input.max_config_size;
    let stderr_style = output.stderr_style();
    // The second side: the files given, in the cluster's environment with --cluster.
    let mut snapshot = None;
    let after = if live {
        let (layers, _) = profile.read_files(max_config);
        let request =
            match cluster_args.request(command, &[], layers.workload_kinds(), input.max_input_size)
            {
                Ok(Some(request)) => request,
                Ok(None) => unreachable!("--cluster makes a request"),
                Err(message) => return usage_error(message).map(Err),
            };
        let read = cluster::read(&request, stderr_style.width);
        let prepared = inputs::prepare_side(
            input,
            profile,
            output,
            SideInputs::Paths(&paths),
            Some(&read.profile),
        )?;
        snapshot = Some(read);
        prepared
    } else {
        inputs::prepare_side(input, profile, output, SideInputs::Paths(&paths), None)?
    };
    let after = match after {
        Ok(prepared) => prepared,
        Err(status) => return Ok(Err(status)),
    };
    let policy = match rules.policy() {
        Ok(policy) => policy,
        Err(message) => return usage_error(message).map(Err),
    };
    let policy = match policy
        .with_config_rules(&after.profile.rules)
        .map(|policy| policy.with_assumed_losses(after.profile.assumed_losses))
    {
        Ok(policy) => policy,
        Err(errors) => return super::profile_errors(&errors, stderr_style).map(Err),
    };
    let options = RunOptions {
        threads: input.threads,
        policy,
        limits: after.limits,
        // A diff never shows fixes: building them is enough, checking them is wasted work.
        fixes: FixMode::Unchecked,
        ..RunOptions::default()
    };
    // The first side's inputs and profile, when they are not the second's.
    let mut before_label = Vec::new();
    let mut before: Option<Prepared> = None;
    let mut owners = None;
    let mut before_sources = Sources::default();
    let mut namespace = None;
    // kubectl calls that failed: printed in kubectl's words, counted with the side.
    let mut kubectl_errors = Vec::new();
    if let Some(name) = &sides.base {
        let given = match revision_inputs(name, &after, &paths) {
            Ok(given) => given,
            Err(message) => {
                diagnostic(&format!("error: {message}\n"));
                return Ok(Err(2));
            }
        };
        before_label.push(name.clone());
        match side(input, profile, output, given, None)? {
            Ok(prepared) => before = Some(prepared),
            Err(status) => return Ok(Err(status)),
        }
    } else if let Some(dir) = &sides.base_dir {
        let given = base_dir_inputs(dir, Path::new(&paths[0]), &after, input);
        before_label.push(dir.display().to_string());
        match side(input, profile, output, given, None)? {
            Ok(prepared) => before = Some(prepared),
            Err(status) => return Ok(Err(status)),
        }
    } else if let Some(read) = &mut snapshot {
        namespace = read.namespace.clone();
        let given = cluster::take_inputs(read);
        let prepared = match side(input, profile, output, given, Some(&read.profile))? {
            Ok(prepared) => prepared,
            Err(status) => return Ok(Err(status)),
        };
        kubectl_errors = cluster::input_errors(read);
        owners = Some(read.owners());
        before_sources = read.sources();
        for error in &read.errors {
            diagnostic(&cluster::describe_failure(error, read));
        }
        let hidden = read.hidden.iter().map(|hidden| &hidden.message);
        for note in read.notes.iter().chain(hidden) {
            diagnostic(&format!("note: {}\n", escape::controls(note)));
        }
        let context = read
            .identity
            .context
            .as_deref()
            .unwrap_or("the current context");
        before_label.push(format!("deployed ({context})"));
        before = Some(prepared);
    }
    let files = if sides.base.is_some() {
        "the working tree".to_owned()
    } else if sides.base_dir.is_some() {
        paths[0].clone()
    } else {
        "the files".to_owned()
    };
    let after_label = match (revision || live, to.is_empty()) {
        (true, true) => files,
        (true, false) => format!("{files} with --to {}", to.describe()),
        (false, false) => format!("--to {}", to.describe()),
        (false, true) => "today's profile".to_owned(),
    };
    if !from.is_empty() {
        before_label.push(format!("--from {}", from.describe()));
    }
    let before_label = if before_label.is_empty() {
        "today's profile".to_owned()
    } else {
        before_label.join(" with ")
    };
    // Each side's profile, with its changes laid last.
    let mut after_settings = after.profile.settings.clone();
    let mut before_settings = before.as_ref().map_or_else(
        || after.profile.settings.clone(),
        |b| b.profile.settings.clone(),
    );
    let mut errors = Vec::new();
    if let Err(found) = from.apply(&mut before_settings, max_config) {
        errors.extend(found);
    }
    if let Err(found) = to.apply(&mut after_settings, max_config) {
        errors.extend(found);
    }
    if !errors.is_empty() {
        return super::profile_errors(&errors, stderr_style).map(Err);
    }
    let before_prepared = before.as_ref().unwrap_or(&after);
    after.print_errors(stderr_style);
    if let Some(prepared) = &before {
        for error in &prepared.errors {
            diagnostic(&render_input_error(error, stderr_style));
        }
    }
    let mut before_run = one_side(
        before_label,
        before_prepared,
        before_settings,
        &options,
        owners.as_ref(),
        stderr_style,
        before.is_some(),
    );
    before_run.sources = before_sources;
    kubectl_errors.append(&mut before_run.errors);
    before_run.errors = kubectl_errors;
    let after_run = one_side(
        after_label,
        &after,
        after_settings,
        &options,
        None,
        stderr_style,
        true,
    );
    // What is deployed is compared only where the files would replace it, as `kubectl
    // diff` compares the objects of its files.
    if live {
        let identity = |analysis: &Analysis| {
            let w = &analysis.plan.workload;
            let ns = w.namespace.clone().or_else(|| namespace.clone());
            (w.kind, ns, w.name.clone())
        };
        let replaced: std::collections::HashSet<_> =
            after_run.analyses.iter().map(identity).collect();
        before_run
            .analyses
            .retain(|analysis| replaced.contains(&identity(analysis)));
    }
    Ok(Ok(Runs {
        before: before_run,
        after: after_run,
        namespace,
    }))
}

/// Prepares a side from inputs already read.
fn side(
    input: &InputArgs,
    profile: &ProfileArgs,
    output: &Output,
    given: Vec<Input>,
    cluster: Option<&crate::cluster::profile::Profile>,
) -> std::io::Result<Result<Prepared, u8>> {
    inputs::prepare_side(input, profile, output, SideInputs::Given(given), cluster)
}

/// Runs the pipeline over one side. `owners` attributes the findings of running pods
/// to their workloads (a cluster's side); `own_errors` is false when the side shares
/// its inputs with the other, whose errors are counted there.
fn one_side(
    label: String,
    prepared: &Prepared,
    settings: Settings,
    options: &RunOptions,
    owners: Option<&std::collections::HashMap<Arc<str>, crate::workload::WorkloadRef>>,
    stderr_style: crate::report::human::Style,
    own_errors: bool,
) -> SideRun {
    let mut documents: Vec<DocumentReport> = Vec::new();
    let workers = pipeline::run(&prepared.inputs, &settings, options, |d| documents.push(d));
    if let Some(shortfall) = workers.shortfall() {
        diagnostic(&format!("note: {shortfall}\n"));
    }
    if let Some(owners) = owners {
        documents = pipeline::attribute(documents, owners);
    }
    let mut run = SideRun {
        label,
        analyses: Vec::new(),
        errors: if own_errors {
            prepared.errors.clone()
        } else {
            Vec::new()
        },
        notes: crate::report::assumptions::beyond_model(&settings),
        settings,
        sources: Sources::default(),
    };
    for note in &run.notes {
        diagnostic(&format!("note: {} ({})\n", note.message, run.label));
    }
    if own_errors {
        // What rendering said of the side's inputs: a directory not rendered, a patch.
        for note in &prepared.input_notes {
            diagnostic(&format!("note: {note}\n"));
        }
        run.notes.extend(prepared.input_notes.iter().cloned());
    }
    for document in documents {
        if own_errors {
            for error in &document.errors {
                diagnostic(&render_input_error(error, stderr_style));
            }
            run.errors.extend(document.errors);
            run.notes
                .extend(document.notes.into_iter().map(|note| note.error));
        }
        run.analyses.extend(document.analyses);
    }
    run
}

/// The first side of `--base REF`: each file of the second side at the revision (under
/// its name before a rename), and the files the working tree no longer has under the
/// paths searched, each named as the second side names the file it became.
fn revision_inputs(name: &str, after: &Prepared, paths: &[String]) -> Result<Vec<Input>, String> {
    let cwd = std::env::current_dir().map_err(|error| error.to_string())?;
    let revision = Revision::open(&cwd, name, after.render_bounds.clone())?;
    let changes = revision.changes()?;
    let renamed_from = |path: &str| {
        changes.iter().find_map(|change| match change {
            Change::Renamed { from, to } if to == path => Some(from.clone()),
            _ => None,
        })
    };
    let added = |path: &str| {
        changes
            .iter()
            .any(|change| matches!(change, Change::Added(added) if added == path))
    };
    // The second side's files, by their path from the top of the repository.
    let mut wanted: Vec<(Arc<str>, String)> = Vec::new();
    let mut searched: Vec<String> = Vec::new();
    for (index, source) in after.inputs.sources().iter().enumerate() {
        if after.inputs.rendering(index).is_some() {
            // The revision's tree is not written out to render it there.
            diagnostic(&format!(
                "note: {}: rendered from the working tree only, so its workloads have no side at {name}; to compare renderings, check {name} out into another directory and give it with --base-dir\n",
                source.name()
            ));
            continue;
        }
        let Source::File { name, path } = source else {
            continue;
        };
        let Some(relative) = revision.relative(path) else {
            continue;
        };
        searched.push(relative.clone());
        if added(&relative) {
            continue;
        }
        let at = renamed_from(&relative).unwrap_or(relative);
        wanted.push((name.clone(), at));
    }
    // Deleted files (and files renamed away) under the paths the second side searched;
    // `None` is the whole repository.
    let scopes: Vec<Option<String>> = paths
        .iter()
        .map(|path| revision.relative(Path::new(path)))
        .collect();
    for change in &changes {
        let gone = match change {
            Change::Deleted(path) => path,
            Change::Renamed { from, to } if !searched.contains(to) => from,
            _ => continue,
        };
        let manifest = ["yaml", "yml", "json"]
            .iter()
            .any(|ext| gone.ends_with(&format!(".{ext}")));
        let under = scopes.iter().flatten().any(|scope| {
            scope.is_empty() || gone == scope || gone.starts_with(&format!("{scope}/"))
        });
        if manifest && under {
            let display = revision.root.join(gone);
            let display = display
                .strip_prefix(&cwd)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_else(|_| gone.clone());
            wanted.push((Arc::from(display.as_str()), gone.clone()));
        }
    }
    let paths: Vec<String> = wanted.iter().map(|(_, at)| at.clone()).collect();
    let texts = revision.show(&paths)?;
    Ok(wanted
        .into_iter()
        .zip(texts)
        .filter_map(|((name, _), text)| {
            Some(Input::Memory {
                name,
                bytes: Arc::from(text?),
            })
        })
        .collect())
}

/// The first side of `--base-dir BASE`: the files under `base`, each named as the file
/// at the same path under `head` is (or would be).
/// Kustomizations and charts under `base` are rendered as they are on the second side,
/// each named as the directory at the same path under `head`.
fn base_dir_inputs(base: &Path, head: &Path, after: &Prepared, input: &InputArgs) -> Vec<Input> {
    let discovery = Discovery {
        no_ignore: input.no_ignore,
        render: !input.no_render,
        exclude: Vec::new(),
    };
    let mut found = discover::discover(&[base.to_string_lossy().into_owned()], &discovery);
    inputs::render(&mut found, &discovery, &after.render_bounds);
    for error in &found.errors {
        diagnostic(&format!("error: {error}\n"));
    }
    for note in &found.input_notes {
        diagnostic(&format!("note: {note}\n"));
    }
    let head_names: Vec<Arc<str>> = after
        .inputs
        .sources()
        .iter()
        .map(|s| s.name().clone())
        .collect();
    found
        .inputs
        .into_iter()
        .filter_map(|input| {
            let name_at = |path: &Path| -> Option<Arc<str>> {
                if base.is_file() {
                    return Some(Arc::from(head.to_string_lossy().as_ref()));
                }
                let below = path.strip_prefix(base).ok()?;
                let joined = head.join(below);
                let joined = joined.to_string_lossy();
                Some(
                    head_names
                        .iter()
                        .find(|name| Path::new(name.as_ref()) == Path::new(joined.as_ref()))
                        .cloned()
                        .unwrap_or_else(|| Arc::from(joined.as_ref())),
                )
            };
            match input {
                Input::File(path) => Some(Input::Memory {
                    name: name_at(&path)?,
                    bytes: Arc::from(std::fs::read(&path).ok()?),
                }),
                Input::Rendered {
                    name,
                    bytes,
                    rendering,
                } => Some(Input::Rendered {
                    name: name_at(Path::new(name.as_ref())).unwrap_or(name),
                    bytes,
                    rendering,
                }),
                Input::Stdin | Input::Memory { .. } => None,
            }
        })
        .collect()
}
