//! The command line: `kubectl mesh-lifecycle lint | explain | rules | completions`.

mod cluster;
pub mod complete;
pub mod completions;
mod explain;
mod github;
mod lint;
mod output;
mod profile;
mod rules;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum, ValueHint};

pub use cluster::ClusterArgs;
pub use output::Output;
pub use profile::ProfileArgs;

/// The name kubectl users type.
pub const PLUGIN_NAME: &str = "kubectl mesh-lifecycle";
/// The executable's name, which makes it a kubectl plugin.
pub const BINARY_NAME: &str = "kubectl-mesh_lifecycle";

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
    Lint(LintArgs),
    /// Draw the simulated start-up and shutdown timeline of each workload.
    Explain(ExplainArgs),
    /// List the rules, or print one rule's documentation.
    Rules(RulesArgs),
    /// Print a shell completion script.
    Completions(CompletionsArgs),
}

/// Inputs shared by `lint` and `explain`.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// Files or directories to read (directories recursively: *.yaml, *.yml, *.json);
    /// `-` or nothing reads standard input. With --cluster: TYPE or TYPE/NAME
    /// (deploy/web, job/export), or nothing for every workload.
    #[arg(value_name = "PATH", value_hint = ValueHint::AnyPath)]
    pub paths: Vec<String>,

    /// Worker threads (0: one per core).
    #[arg(
        short = 'j',
        long,
        value_name = "N",
        default_value_t = 0,
        hide_short_help = true
    )]
    pub threads: usize,
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

    /// Run only these rules (ids or names, comma-separated or repeated).
    #[arg(long, value_delimiter = ',', value_name = "RULE", value_hint = ValueHint::Other, help_heading = "Rules")]
    pub select: Vec<String>,

    /// Skip these rules (ids or names, comma-separated or repeated).
    #[arg(long, value_delimiter = ',', value_name = "RULE", value_hint = ValueHint::Other, help_heading = "Rules")]
    pub ignore: Vec<String>,

    /// Print findings only: no summary line, no notes.
    #[arg(long, short = 'q', help_heading = "Report")]
    pub quiet: bool,

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

    /// Only workloads with this name.
    #[arg(long, value_name = "NAME", help_heading = "Workloads")]
    pub workload: Option<String>,

    /// Only workloads of this kind (Deployment, Job, ...).
    #[arg(long, value_name = "KIND", help_heading = "Workloads")]
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
}

/// `rules`: the catalog.
#[derive(Debug, Args)]
pub struct RulesArgs {
    /// A rule id (ML201) or name (grace-period-exceeded) to print in full.
    #[arg(value_name = "RULE", value_hint = ValueHint::Other)]
    pub rule: Option<String>,

    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = RulesFormat::Table)]
    pub format: RulesFormat,
}

/// Formats of `rules`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    /// One row per rule, or the rule's doc as text.
    Table,
    /// Ids, names, severities, groups and docs.
    Json,
    /// The docs as Markdown, as in docs/rules.
    Markdown,
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
        return finish(complete::run(&words, first == complete::COMPLETE));
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
        Command::Explain(args) => explain::run(args),
        Command::Rules(args) => rules::run(args),
        Command::Completions(args) => completions::run(args.shell),
    };
    finish(status)
}

/// The exit status of a command's result; a closed pipe (`… | head`) is not an error.
fn finish(status: std::io::Result<u8>) -> ExitCode {
    match status {
        Ok(code) => ExitCode::from(code),
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}

/// Errors in the profile (config file, mesh config, flags): printed at their place, exit 2.
fn profile_errors(
    errors: &[crate::load::InputError],
    style: crate::report::human::Style,
) -> std::io::Result<u8> {
    for error in errors {
        eprint!("{}", crate::report::human::render_input_error(error, style));
    }
    Ok(2)
}

/// A usage error in an argument clap could not check: printed like clap's, exit 2.
fn usage_error(message: impl std::fmt::Display) -> std::io::Result<u8> {
    eprintln!("error: {message}\n\nFor more information, try '--help'.");
    Ok(2)
}
