//! Each subcommand's flags, from which `--help`, the man pages and the completion
//! scripts are generated; the groups several of them share are in `groups`.

use clap::{Args, Parser, Subcommand, ValueEnum, ValueHint};

use super::groups::{ReadArgs, RuleArgs};
use super::output::Format;
use super::{Output, ProfileArgs, SideArgs, output, values};
use crate::{BINARY_NAME, PLUGIN_NAME};

/// `lint`: findings, in a format for people or machines, and an exit status for CI.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// What to read, and the cluster and mesh it runs on.
    #[command(flatten)]
    pub read: ReadArgs,

    /// Output format, as kubectl's -o and ruff's --output-format (the report file is
    /// --output-file).
    #[arg(short = 'o', long = "output", visible_aliases = ["output-format", "format"], value_name = "FORMAT", value_parser = Format::<LintFormat>::new(), default_value = "human", help_heading = "Report")]
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
    /// list, no workload at all, a Helm chart or kustomization whose tool is not
    /// installed. Also `strict: true` in .mesh-lifecycle.yaml.
    #[arg(long, help_heading = "Rules")]
    pub strict: bool,

    /// Print each info in full, like errors and warnings (the human format otherwise
    /// gives one line per rule; --fail-on info implies it).
    #[arg(long, help_heading = "Report")]
    pub show_infos: bool,

    /// Apply the safe fixes in place, then report what remains (standard input: print
    /// the fixed stream, and report on stderr or to --output-file).
    #[arg(long, help_heading = "Fixes")]
    pub fix: bool,

    /// Also apply the unsafe fixes (a longer grace period, a different stop command):
    /// review them. Without --fix, marks them fixable ([*]).
    #[arg(long, help_heading = "Fixes")]
    pub unsafe_fixes: bool,

    /// Print a unified diff of what --fix would change (to standard output, or
    /// --output-file), write nothing; exit 1 when there is something to change.
    #[arg(long, help_heading = "Fixes")]
    pub diff: bool,

    /// With --diff, name the files in the headers without git's a/ and b/ prefixes, so
    /// that `patch -p0` applies the diff (without it: `patch -p1` or `git apply`).
    #[arg(long, requires = "diff", help_heading = "Fixes")]
    pub no_prefix: bool,

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

    /// Print how many findings each rule made, and how many of them --fix fixes
    /// ([*] all, [-] some, [ ] none), instead of the findings (-o json: the same as
    /// JSON).
    #[arg(long, help_heading = "Report")]
    pub statistics: bool,

    /// Exit 0 whatever is found, as --fail-on never does (an input that could not be
    /// read, or a workload --strict refuses, still exits 2).
    #[arg(long, conflicts_with = "fail_on", help_heading = "Rules")]
    pub exit_zero: bool,

    /// Lint again whenever a file or directory given, or a config file in force,
    /// changes: the terminal is cleared and the report printed anew, until Ctrl-C.
    #[arg(long, conflicts_with_all = ["fix", "fix_only", "diff", "write_baseline", "cluster", "stdin_filename"], help_heading = "Inputs")]
    pub watch: bool,

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
    /// What to read, and the cluster and mesh it runs on.
    #[command(flatten)]
    pub read: ReadArgs,

    /// The two sides.
    #[command(flatten)]
    pub sides: SideArgs,

    /// Output format, as kubectl's -o and ruff's --output-format (the report file is
    /// --output-file).
    #[arg(short = 'o', long = "output", visible_aliases = ["output-format", "format"], value_name = "FORMAT", value_parser = Format::<DiffFormat>::new(), default_value = "human", help_heading = "Report")]
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
    /// What to read, and the cluster and mesh it runs on.
    #[command(flatten)]
    pub read: ReadArgs,

    /// Output format, as kubectl's -o and ruff's --output-format (the report file is
    /// --output-file).
    #[arg(short = 'o', long = "output", visible_aliases = ["output-format", "format"], value_name = "FORMAT", value_parser = Format::<ExplainFormat>::new(), default_value = "text", help_heading = "Report")]
    pub format: ExplainFormat,

    /// Draw each workload's two timelines one above the other: the sides are given as
    /// for `diff` (--to, --from, --base, --base-dir, --cluster with files).
    #[arg(long, help_heading = "Compare")]
    pub compare: bool,

    /// The two sides of --compare.
    #[command(flatten)]
    pub sides: SideArgs,

    /// Only workloads with this name (exit 2 when none has it).
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

    /// Output format, as kubectl's -o and ruff's --output-format.
    #[arg(short = 'o', long = "output", visible_aliases = ["output-format", "format"], value_name = "FORMAT", value_parser = Format::<RulesFormat>::new(), default_value = "table")]
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
    /// Settings: every key of .mesh-lifecycle.yaml is listed in docs/configuration.md,
    /// section "Settings of .mesh-lifecycle.yaml".
    #[command(after_help = super::examples::LINT)]
    Lint(LintArgs),
    /// Show what changes between two sides of the same workloads: two profiles
    /// (--to istio=1.27), a git revision and the working tree (--base REF), two
    /// rendered trees (--base-dir), or what is deployed and the files that would
    /// replace it (--cluster).
    ///
    /// Exit status: 0 when no finding at or above --fail-on-new is added, 1 when one
    /// is, 2 when an input could not be read.
    #[command(after_help = super::examples::DIFF)]
    Diff(DiffArgs),
    /// Draw the simulated start-up and shutdown timeline of each workload.
    #[command(after_help = super::examples::EXPLAIN)]
    Explain(ExplainArgs),
    /// List the rules, or print one rule's documentation.
    #[command(after_help = super::examples::RULES)]
    Rules(RulesArgs),
    /// Run the language server: findings, quick fixes and timelines in the editor.
    ///
    /// Speaks the Language Server Protocol on standard input and output. Each open
    /// manifest is linted as you type, from the editor's buffer, with the settings
    /// `lint` would use for it: the nearest .mesh-lifecycle.yaml at or above the file
    /// (read again when it changes), and the Namespaces, Services and mesh
    /// configuration of the workspace's other manifests. docs/usage.md, section
    /// "Editors", sets it up in Neovim, Helix and VS Code.
    #[command(after_help = super::examples::LSP)]
    #[command(mut_arg("config", |arg| arg.help(
        "The config file for every document (default: each document's nearest .mesh-lifecycle.yaml, at or above its directory)"
    )))]
    Lsp(LspArgs),
    /// Run a server where manifests land: with --admission, a validating admission
    /// webhook that lints every Pod and workload the API server admits.
    ///
    /// Findings are warnings by default (`kubectl apply` prints `Warning: ML201 …`);
    /// --deny-on denies. Each review is linted as `lint` would lint the object, with
    /// the profile of --config (mesh versions, namespace labels) and answered within
    /// --review-timeout, admitted unchecked past it. deploy/admission/ and
    /// docs/admission.md install it with cert-manager.
    #[cfg(feature = "admission")]
    #[command(after_help = super::examples::SERVE)]
    Serve(super::serve::ServeArgs),
    /// Run a Model Context Protocol server on standard input and output, for
    /// assistants: tools lint, explain, rules, diff and fix.
    ///
    /// Each tool runs the matching command of this program and returns its output
    /// (`lint --format json`, `explain`, …). `fix` returns the fixed text, and writes
    /// files only with --allow-writes. docs/mcp.md configures Claude, VS Code and
    /// Cursor.
    #[cfg(feature = "mcp")]
    #[command(after_help = super::examples::MCP)]
    Mcp(super::mcp::McpArgs),
    /// Print a shell completion script.
    #[command(after_help = super::examples::COMPLETIONS)]
    Completions(CompletionsArgs),
}
