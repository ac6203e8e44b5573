//! The command line: `kubectl mesh-lifecycle lint | explain | rules | lsp | completions`.

mod cluster;
pub mod complete;
pub mod completions;
mod diff;
mod explain;
pub(crate) mod fix;
mod github;
mod inputs;
mod lint;
mod lsp;
mod output;
mod profile;
mod rules;
mod sides;
mod values;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum, ValueHint};

use crate::pipeline::MAX_THREADS;

pub use cluster::ClusterArgs;
pub use output::Output;
pub use profile::ProfileArgs;
pub use sides::SideArgs;

pub use crate::PLUGIN_NAME;
/// The executable's name, which makes it a kubectl plugin.
pub const BINARY_NAME: &str = "kubectl-mesh_lifecycle";

/// The environment variables the program reads, or that users may expect it to read,
/// with what each does: the ENVIRONMENT section of the man pages.
pub const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "NO_COLOR",
        "When set and not empty, no colour with --color auto (the default); --color always still colours.",
    ),
    (
        "TERM",
        "When dumb, no colour with --color auto: a terminal that understands no escape sequences gets none.",
    ),
    (
        "COLUMNS",
        "The width text reports are laid out for: human and table reports, explain's drawings, the rule catalog. Without it, the terminal's width, or 100 columns when the output is not a terminal.",
    ),
    (
        "GITHUB_WORKSPACE",
        "With --format github, file paths are written relative to this directory (the checkout), as GitHub matches annotations against them.",
    ),
    (
        "GITHUB_STEP_SUMMARY",
        "With --format github, the job summary (a table of the findings) is appended to this file; the table stops short of GitHub's 1 MiB limit and says how many rows it left out.",
    ),
    (
        "GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_SHA",
        "With --format github, link each location in the job summary to its line at the commit under test.",
    ),
    (
        "KUBECONFIG",
        "With --cluster, the kubeconfig files of the kubectl it runs, which reads them from its environment as it always does (--kubeconfig overrides them). Without --cluster, not read: linting files never contacts a cluster and needs no kubeconfig and no credentials.",
    ),
    (
        crate::cluster::kubectl::KUBECTL_VARIABLE,
        "With --cluster, the kubectl to run (a path or a name looked up on PATH; default kubectl). Without --cluster, not read: kubectl is never run.",
    ),
    (
        "PATH",
        "kubectl finds the plugin, kubectl-mesh_lifecycle, and its completion helper, kubectl_complete-mesh_lifecycle, on it; the helper runs the plugin found beside itself, or else on PATH. With --cluster, kubectl itself is found on it, unless KUBECTL names a path.",
    ),
];

/// What each exit status means: the EXIT STATUS section of the man pages.
pub const EXIT_STATUS: &[(&str, &str)] = &[
    (
        "0",
        "Nothing at or above --fail-on (default error) was found; for the other commands, success.",
    ),
    (
        "1",
        "lint found findings at or above --fail-on; diff found an added finding at or above --fail-on-new; lsp ended without the editor's shutdown request.",
    ),
    (
        "2",
        "A usage error, an input that could not be read or parsed, a kubectl call of --cluster that failed, timed out or printed too much, a workload not linted under --strict, a file --fix could not write back, or a report that could not be written (everything else is still linted, fixed and reported). These errors win over findings and over --fail-on never. A reader of the report that goes away (| head) does not change the status: every input is still checked.",
    ),
];

/// Finds traffic lost when service-mesh pods start and stop.
///
/// Simulates how the kubelet and the sidecar proxy (Istio, Linkerd, native sidecars)
/// start and stop each pod, and reports every place where requests can fail: the app
/// starting before its proxy, the proxy leaving before the app, preStop hooks and drains
/// running past the grace period, Jobs that never complete.
#[derive(Debug, Parser)]
#[command(name = BINARY_NAME, bin_name = PLUGIN_NAME, version, propagate_version = true)]
#[command(max_term_width = 100)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lint manifests and report every hazard at its YAML line, with a fix.
    ///
    /// Exit status: 0 when nothing reaches --fail-on, 1 when findings do, 2 when an
    /// input could not be read or parsed (everything else is still linted).
    ///
    /// Settings: every key of .mesh-lifecycle.yaml is listed in the README, section
    /// "Settings of .mesh-lifecycle.yaml".
    Lint(LintArgs),
    /// Show what changes between two sides of the same workloads: two profiles
    /// (--to istio=1.27), a git revision and the working tree (--base REF), two
    /// rendered trees (--base-dir), or what is deployed and the files that would
    /// replace it (--cluster).
    ///
    /// Exit status: 0 when no finding at or above --fail-on-new is added, 1 when one
    /// is, 2 when an input could not be read.
    Diff(DiffArgs),
    /// Draw the simulated start-up and shutdown timeline of each workload.
    Explain(ExplainArgs),
    /// List the rules, or print one rule's documentation.
    Rules(RulesArgs),
    /// Run the language server: findings, quick fixes and timelines in the editor.
    ///
    /// Speaks the Language Server Protocol on standard input and output. Each open
    /// manifest is linted as you type, from the editor's buffer, with the settings
    /// `lint` would use for it: the nearest .mesh-lifecycle.yaml at or above the file
    /// (read again when it changes), and the Namespaces, Services and mesh
    /// configuration of the workspace's other manifests. The README's "Editors" section
    /// sets it up in Neovim, Helix and VS Code.
    #[command(mut_arg("config", |arg| arg.help(
        "The config file for every document (default: each document's nearest .mesh-lifecycle.yaml, at or above its directory)"
    )))]
    Lsp(LspArgs),
    /// Print a shell completion script.
    Completions(CompletionsArgs),
}

/// Inputs shared by `lint` and `explain`.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// Files or directories to read (directories recursively: *.yaml, *.yml, *.json,
    /// except hidden and ignored files); `-` or nothing reads standard input. With
    /// --cluster: TYPE or TYPE/NAME (deploy/web, job/export), or nothing for every
    /// workload.
    #[arg(value_name = "PATH", value_hint = ValueHint::AnyPath)]
    pub paths: Vec<String>,

    /// Worker threads (0: one per core; at most 1024). Reports are the same whatever
    /// the count: documents are analysed in parallel and reported in input order.
    #[arg(
        short = 'j',
        long,
        value_name = "N",
        default_value_t = 0,
        value_parser = parse_threads,
        hide_short_help = true
    )]
    pub threads: usize,

    /// Leave paths matching GLOB out of directory searches (gitignore syntax, relative
    /// to the working directory; repeatable). Paths named on the command line are read.
    #[arg(long, value_name = "GLOB", value_hint = ValueHint::Other, help_heading = "Inputs")]
    pub exclude: Vec<String>,

    /// Search directories without ignoring anything: hidden files, .gitignore, .ignore
    /// and git's exclude files (--exclude still applies).
    #[arg(long, help_heading = "Inputs")]
    pub no_ignore: bool,

    /// Read a directory holding a kustomization or a Helm chart as files, rather than
    /// lint what kubectl kustomize or helm template renders for it.
    #[arg(long, help_heading = "Inputs")]
    pub no_render: bool,

    /// The path that standard input stands for, to name it in every report (SARIF,
    /// GitHub annotations, JUnit, JSON, human).
    #[arg(long, value_name = "PATH", value_hint = ValueHint::FilePath, help_heading = "Inputs")]
    pub stdin_filename: Option<String>,

    /// The most read from one input: a file, standard input, a pipe, an object read
    /// with --cluster.
    #[arg(long, value_name = "SIZE", default_value = "256MiB", value_parser = parse_size, hide_short_help = true, help_heading = "Limits")]
    pub max_input_size: u64,

    /// The largest document parsed.
    #[arg(long, value_name = "SIZE", default_value = "16MiB", value_parser = parse_size, hide_short_help = true, help_heading = "Limits")]
    pub max_document_size: u64,

    /// The longest line read.
    #[arg(long, value_name = "SIZE", default_value = "4MiB", value_parser = parse_size, hide_short_help = true, help_heading = "Limits")]
    pub max_line_length: u64,

    /// The largest config or mesh-config file read.
    #[arg(long, value_name = "SIZE", default_value = "4MiB", value_parser = parse_size, hide_short_help = true, help_heading = "Limits")]
    pub max_config_size: u64,
}

/// A `-j` count: 0 (one per core) to [`MAX_THREADS`].
fn parse_threads(text: &str) -> Result<usize, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if n <= MAX_THREADS as u64 => Ok(n as usize),
        Ok(_) => Err(format!(
            "at most {MAX_THREADS} worker threads (0 runs one per core)"
        )),
        Err(_) => Err(format!(
            "`{text}` is not a number of threads from 0 to {MAX_THREADS}"
        )),
    }
}

/// A size in bytes: `1048576`, `512KiB`, `16MiB`, `1GiB` (or `K`, `M`, `G`: powers of
/// 1024, as in ripgrep's `--max-filesize`).
fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let digits = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(digits);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kib" => 10,
        "m" | "mib" => 20,
        "g" | "gib" => 30,
        _ => {
            return Err(format!(
                "`{text}` is not a size such as 4096, 512KiB or 16MiB"
            ));
        }
    };
    number
        .parse::<u64>()
        .ok()
        .filter(|n| *n > 0)
        .and_then(|n| n.checked_mul(1 << shift))
        .ok_or_else(|| format!("`{text}` is not a size such as 4096, 512KiB or 16MiB"))
}

/// `lint`: findings, in a format for people or machines, and an exit status for CI.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// What to read.
    #[command(flatten)]
    pub input: InputArgs,

    /// What to read from a live cluster instead.
    #[command(flatten)]
    pub cluster: ClusterArgs,

    /// The cluster and mesh the manifests run on.
    #[command(flatten)]
    pub profile: ProfileArgs,

    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = LintFormat::Human, help_heading = "Report")]
    pub format: LintFormat,

    /// Lowest severity that makes the exit status 1.
    #[arg(long, value_enum, default_value_t = FailOn::Error, value_name = "SEVERITY", help_heading = "Rules")]
    pub fail_on: FailOn,

    /// The rules that run.
    #[command(flatten)]
    pub rules: RuleArgs,

    /// Print findings only: no summary line, and no notes but those that say a workload
    /// was not linted.
    #[arg(long, short = 'q', help_heading = "Report")]
    pub quiet: bool,

    /// Fail (exit 2) when a workload may have gone unlinted: a kind without containers
    /// at its pod's path, an object of a kind the linter does not read that holds a
    /// pod, a Rollout whose template is elsewhere, a kind the cluster does not let it
    /// list, no workload at all. Also `strict: true` in .mesh-lifecycle.yaml.
    #[arg(long, help_heading = "Rules")]
    pub strict: bool,

    /// Print each info in full, like errors and warnings (the human format otherwise
    /// gives one line per rule; --fail-on info implies it).
    #[arg(long, help_heading = "Report")]
    pub show_infos: bool,

    /// Apply the safe fixes in place, then report what remains (standard input: print
    /// the fixed stream, and report on stderr or to --output).
    #[arg(long, help_heading = "Fixes")]
    pub fix: bool,

    /// Also apply the unsafe fixes (a longer grace period, a different stop command):
    /// review them. Without --fix, marks them fixable ([*]).
    #[arg(long, help_heading = "Fixes")]
    pub unsafe_fixes: bool,

    /// Print a unified diff of what --fix would change (to standard output, or
    /// --output), write nothing; exit 1 when there is something to change.
    #[arg(long, help_heading = "Fixes")]
    pub diff: bool,

    /// Report only the findings the baseline FILE does not hold: the ones it holds are
    /// counted in the summary and never fail the run, and its entries that match no
    /// finding any more are named.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, conflicts_with_all = ["write_baseline", "fix", "fix_only", "diff"], help_heading = "Baseline")]
    pub baseline: Option<std::path::PathBuf>,

    /// Record every finding of this run in FILE as the baseline (sorted, one per line,
    /// by line-independent fingerprint) and exit 0; 2 without writing when an input
    /// could not be read.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, conflicts_with_all = ["fix", "fix_only", "diff"], help_heading = "Baseline")]
    pub write_baseline: Option<std::path::PathBuf>,

    /// List the findings the baseline holds too, marked as such (human, JSON and SARIF
    /// reports).
    #[arg(long, requires = "baseline", help_heading = "Baseline")]
    pub show_baselined: bool,
    /// Apply the fixes as --fix does, but report nothing of what remains: exit 0,
    /// unless an input could not be read or written (2) or --exit-non-zero-on-fix.
    #[arg(long, help_heading = "Fixes")]
    pub fix_only: bool,

    /// With --fix, list the fixes made by file and rule; without it, show each
    /// finding's fix as a diff under it (human format).
    #[arg(long, help_heading = "Fixes")]
    pub show_fixes: bool,

    /// Exit 1 when --fix made a fix, even if no finding remains.
    #[arg(long, help_heading = "Fixes")]
    pub exit_non_zero_on_fix: bool,

    /// Where the report goes.
    #[command(flatten)]
    pub output: Output,
}

/// Formats of `lint`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LintFormat {
    /// Diagnostics with the YAML excerpt and the fix.
    Human,
    /// One row per finding.
    Table,
    /// The JSON output contract (schemaVersion 1).
    Json,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
    /// JUnit XML, for GitLab and other CI test reports.
    Junit,
    /// GitHub Actions annotations (workflow commands), and the job summary.
    Github,
    /// One self-contained page for the whole run: an overview worst first, then each
    /// workload's timeline with its findings, to publish from CI.
    Html,
}

/// The `--fail-on` threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Errors only.
    Error,
    /// Warnings and errors.
    Warning,
    /// Any finding.
    Info,
    /// Exit 0 whatever is found (input errors still exit 2).
    Never,
}

/// `diff`: what changes between two sides of the same workloads.
#[derive(Debug, Args)]
#[command(mut_arg("paths", |arg| arg.help(
    "The second side's files or directories (directories recursively: *.yaml, *.yml, *.json, except hidden and ignored files); with --base, the current directory when none is given; `-` reads standard input (profiles only)"
)))]
#[command(mut_arg("cluster", |arg| arg.help(
    "Compare what is deployed (the workloads, their running pods and the environment, read with kubectl from the current context) with the files given, which would replace it"
)))]
pub struct DiffArgs {
    /// What to read: the second side's files (with --base, --base-dir and --cluster;
    /// default the current directory with --base).
    #[command(flatten)]
    pub input: InputArgs,

    /// The first side is what a live cluster runs.
    #[command(flatten)]
    pub cluster: ClusterArgs,

    /// The cluster and mesh the manifests run on: today's profile, which --from and
    /// --to change.
    #[command(flatten)]
    pub profile: ProfileArgs,

    /// The two sides.
    #[command(flatten)]
    pub sides: SideArgs,

    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = DiffFormat::Human, help_heading = "Report")]
    pub format: DiffFormat,

    /// Lowest severity of an added finding that makes the exit status 1 (removed
    /// findings never do).
    #[arg(long, value_enum, default_value_t = FailOn::Error, value_name = "SEVERITY", help_heading = "Rules")]
    pub fail_on_new: FailOn,

    /// The rules that run.
    #[command(flatten)]
    pub rules: RuleArgs,

    /// Print the workloads only: no heading, no summary line, no notes.
    #[arg(long, short = 'q', help_heading = "Report")]
    pub quiet: bool,

    /// Where the report goes.
    #[command(flatten)]
    pub output: Output,
}

/// Formats of `diff`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    /// Grouped by workload: findings added and removed, timeline moves, settings.
    Human,
    /// The JSON contract of docs/diff-output.schema.json.
    Json,
    /// A pull-request comment, within GitHub's 65,536 characters.
    Markdown,
    /// SARIF 2.1.0 with the added findings only.
    Sarif,
}

impl FailOn {
    /// The lowest severity that fails the run; `None` for `never`.
    pub fn threshold(self) -> Option<crate::rules::Severity> {
        use crate::rules::Severity;
        match self {
            FailOn::Error => Some(Severity::Error),
            FailOn::Warning => Some(Severity::Warning),
            FailOn::Info => Some(Severity::Info),
            FailOn::Never => None,
        }
    }
}

/// `explain`: the simulated timelines.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// What to read.
    #[command(flatten)]
    pub input: InputArgs,

    /// What to read from a live cluster instead.
    #[command(flatten)]
    pub cluster: ClusterArgs,

    /// The cluster and mesh the manifests run on.
    #[command(flatten)]
    pub profile: ProfileArgs,

    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = ExplainFormat::Text, help_heading = "Report")]
    pub format: ExplainFormat,

    /// Draw each workload's two timelines one above the other: the sides are given as
    /// for `diff` (--to, --from, --base, --base-dir, --cluster with files).
    #[arg(long, help_heading = "Compare")]
    pub compare: bool,

    /// The two sides of --compare.
    #[command(flatten)]
    pub sides: SideArgs,

    /// Only workloads with this name.
    #[arg(long, value_name = "NAME", help_heading = "Workloads")]
    pub workload: Option<String>,

    /// Only workloads of this kind (Deployment, Job, ...).
    #[arg(long, value_name = "KIND", value_parser = values::KIND, hide_possible_values = true, help_heading = "Workloads")]
    pub kind: Option<String>,

    /// Where the timelines go.
    #[command(flatten)]
    pub output: Output,
}

/// Formats of `explain`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExplainFormat {
    /// The timeline drawn in the terminal.
    Text,
    /// Plan, assumptions and events.
    Json,
    /// A picture of the timeline.
    Svg,
    /// One self-contained page: every drawing, its findings beside it, the
    /// assumptions, and a filter by severity.
    Html,
}

/// `rules`: the catalog.
#[derive(Debug, Args)]
pub struct RulesArgs {
    /// A rule id (ML201) or name (grace-period-exceeded) to print in full.
    #[arg(value_name = "RULE", value_parser = values::RULE, hide_possible_values = true)]
    pub rule: Option<String>,

    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = RulesFormat::Table)]
    pub format: RulesFormat,

    /// When to colour the catalog.
    #[command(flatten)]
    pub color: output::Color,
}

/// Formats of `rules`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    /// One row per rule, or the rule's doc as text, wrapped for the terminal.
    Table,
    /// Ids, names, severities, groups and docs.
    Json,
    /// The docs as Markdown, as in docs/rules.
    Markdown,
}

/// `--select` and `--ignore`, as `lint`, `diff` and `lsp` take them (`explain --compare`:
/// none, every rule).
#[derive(Debug, Default, Args)]
pub struct RuleArgs {
    /// Run only these rules (ids or names, comma-separated or repeated).
    #[arg(long, value_delimiter = ',', value_name = "RULE", value_parser = values::RULE, hide_possible_values = true, help_heading = "Rules")]
    pub select: Vec<String>,

    /// Skip these rules (ids or names, comma-separated or repeated).
    #[arg(long, value_delimiter = ',', value_name = "RULE", value_parser = values::RULE, hide_possible_values = true, help_heading = "Rules")]
    pub ignore: Vec<String>,
}

impl RuleArgs {
    /// The rules these flags run, or why a name is not one.
    pub fn policy(&self) -> Result<crate::rules::selector::Policy, String> {
        crate::rules::selector::Policy::from_flags(&self.select, &self.ignore)
    }
}

/// `lsp`: the language server.
#[derive(Debug, Args)]
pub struct LspArgs {
    /// Talk over standard input and output, the only transport (accepted because
    /// some clients pass it).
    #[arg(long)]
    pub stdio: bool,

    /// The rules that run.
    #[command(flatten)]
    pub rules: RuleArgs,

    /// The cluster and mesh the manifests run on.
    #[command(flatten)]
    pub profile: ProfileArgs,
}

/// `completions`: a script for the shell.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Parses `args` and runs the command; the return value is the process exit status.
pub fn run(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let args: Vec<OsString> = args.into_iter().collect();
    // Cobra's completion protocol, for kubectl: not a subcommand users see.
    if let Some(first) = args.get(1).and_then(|a| a.to_str())
        && (first == complete::COMPLETE || first == complete::COMPLETE_NO_DESC)
    {
        let words: Vec<String> = args[2..]
            .iter()
            .map(|word| word.to_string_lossy().into_owned())
            .collect();
        return finish(printed(complete::run(&words, first == complete::COMPLETE)));
    }
    let cli = match Cli::command().try_get_matches_from(args) {
        Ok(matches) => match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
            Ok(cli) => cli,
            Err(error) => error.exit(),
        },
        Err(error) => error.exit(),
    };
    let status = match cli.command {
        Command::Lint(args) => lint::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Explain(args) => explain::run(args),
        Command::Rules(args) => printed(rules::run(args)),
        Command::Lsp(args) => lsp::run(args),
        Command::Completions(args) => printed(completions::run(args.shell)),
    };
    finish(status)
}

/// The exit status of a command's result. A command whose output can be cut short
/// (`… | head`) decides what that means itself: `lint` and `explain` still exit with
/// the whole run's status, `rules` and `completions` with 0. Any error left, a closed
/// pipe included, is a report that could not be written: exit 2, never a pass.
fn finish(status: std::io::Result<u8>) -> ExitCode {
    match status {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            diagnostic(&format!(
                "error: {}\n",
                crate::report::escape::controls(&error.to_string())
            ));
            ExitCode::from(2)
        }
    }
}

/// The status of a command that only prints (`rules`, `completions`): a reader that
/// went away (`| head`) has what it wanted, and there is nothing to gate.
fn printed(status: std::io::Result<u8>) -> std::io::Result<u8> {
    match status {
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(0),
        other => other,
    }
}

/// Writes to standard error. A closed standard error (`lint … 2>&1 | head -1`) loses the
/// text but never the exit status (`eprint!` would panic).
fn diagnostic(text: &str) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// Errors in the profile (config file, mesh config, flags): printed at their place, exit 2.
fn profile_errors(
    errors: &[crate::load::InputError],
    style: crate::report::human::Style,
) -> std::io::Result<u8> {
    for error in errors {
        diagnostic(&crate::report::human::render_input_error(error, style));
    }
    Ok(2)
}

/// A usage error in an argument clap could not check: printed like clap's, exit 2.
fn usage_error(message: impl std::fmt::Display) -> std::io::Result<u8> {
    diagnostic(&format!(
        "error: {message}\n\nFor more information, try '--help'.\n"
    ));
    Ok(2)
}
