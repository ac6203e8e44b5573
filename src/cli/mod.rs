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
mod examples;
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
mod stderr;
mod values;
mod watch;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::CommandFactory;

pub use cluster::ClusterArgs;
pub use commands::{
    Cli, Command, CompletionsArgs, DiffArgs, DiffFormat, ExplainArgs, ExplainFormat, FailOn,
    LintArgs, LintFormat, LspArgs, RulesArgs, RulesFormat,
};
pub use groups::{InputArgs, ReadArgs, RuleArgs};
pub use manual::{ENVIRONMENT, EXIT_STATUS};
pub use output::Output;
pub use profile::ProfileArgs;
pub use sides::SideArgs;

pub use crate::{BINARY_NAME, PLUGIN_NAME};

use stderr::{diagnostic, document_problems, profile_errors, usage_error};

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
    let (mut cli, matches) = match Cli::command().try_get_matches_from(args) {
        Ok(matches) => match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
            Ok(cli) => (cli, matches),
            Err(error) => error.exit(),
        },
        Err(error) => error.exit(),
    };
    if let Some((_, sub)) = matches.subcommand() {
        let refused = match &mut cli.command {
            Command::Lint(args) => args.read.input.gather(sub, args.read.cluster.cluster),
            Command::Explain(args) => args
                .read
                .input
                .gather(sub, args.read.cluster.cluster && !args.compare),
            // The files of `diff --cluster` are the side that would replace it.
            Command::Diff(args) => args.read.input.gather(sub, false),
            _ => None,
        };
        if let Some(message) = refused {
            return finish(usage_error(message));
        }
    }
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
                crate::escape::controls(&error.to_string())
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
