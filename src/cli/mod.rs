//! The command line: `kubectl mesh-lifecycle lint | explain | rules | lsp | completions`.
//!
//! This module parses the arguments, hands each subcommand to its own module and turns
//! what it returns into the exit status. The flags are declared in `commands` (each
//! subcommand's) and `groups` (those several share); `manual` holds what the man pages
//! add to them.

mod cluster;
mod commands;
pub mod complete;
pub mod completions;
mod diff;
mod explain;
pub(crate) mod fix;
mod github;
mod groups;
mod inputs;
mod lint;
mod lsp;
mod manual;
#[cfg(feature = "mcp")]
mod mcp;
mod output;
mod overwrite;
mod profile;
mod rules;
#[cfg(feature = "admission")]
mod serve;
mod sides;
mod values;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

pub use cluster::ClusterArgs;
pub use commands::{
    CompletionsArgs, DiffArgs, DiffFormat, ExplainArgs, ExplainFormat, FailOn, LintArgs,
    LintFormat, LspArgs, RulesArgs, RulesFormat,
};
pub use groups::{InputArgs, ReadArgs, RuleArgs};
pub use manual::{ENVIRONMENT, EXIT_STATUS};
pub use output::Output;
pub use profile::ProfileArgs;
pub use sides::SideArgs;

pub use crate::PLUGIN_NAME;
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
    ///
    /// Settings: every key of .mesh-lifecycle.yaml is listed in docs/configuration.md,
    /// section "Settings of .mesh-lifecycle.yaml".
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
    /// configuration of the workspace's other manifests. docs/usage.md, section
    /// "Editors", sets it up in Neovim, Helix and VS Code.
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
    Serve(serve::ServeArgs),
    /// Run a Model Context Protocol server on standard input and output, for
    /// assistants: tools lint, explain, rules, diff and fix.
    ///
    /// Each tool runs the matching command of this program and returns its output
    /// (`lint --format json`, `explain`, …). `fix` returns the fixed text, and writes
    /// files only with --allow-writes. docs/mcp.md configures Claude, VS Code and
    /// Cursor.
    #[cfg(feature = "mcp")]
    Mcp(mcp::McpArgs),
    /// Print a shell completion script.
    Completions(CompletionsArgs),
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
        #[cfg(feature = "admission")]
        Command::Serve(args) => serve::run(args),
        #[cfg(feature = "mcp")]
        Command::Mcp(args) => mcp::run(args),
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

/// Prints what stood in the way of reading a document: its input errors at their place,
/// then its notes (a workload not linted, and why).
fn document_problems(report: &crate::pipeline::DocumentReport, style: crate::report::human::Style) {
    for error in &report.errors {
        diagnostic(&crate::report::human::render_input_error(error, style));
    }
    for note in &report.notes {
        diagnostic(&format!(
            "note: {}\n",
            crate::report::escape::controls(&note.error.to_string())
        ));
    }
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
