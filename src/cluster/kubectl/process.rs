//! One kubectl call as a process, stopped at its bounds.
//!
//! kubectl gets `--request-timeout`, which bounds each request it makes; the process
//! itself is stopped when it runs twice that long (a connection kubectl does not notice
//! is dead, a credential plugin that hangs) or past the deadline of the whole read; and
//! what it prints on standard output is read up to the input limit, and no further
//! ([`crate::external::run`], which stops the call's whole process group). The first
//! call, which may share the user's terminal with a credential plugin asking for a
//! password, stays in the foreground group instead.

use std::io::IsTerminal;
use std::time::Instant;

use super::{End, KUBECTL_VARIABLE, Kubectl, Reply};
use crate::external::{self, Args, Call, CommandLine, Ended, Stdin};

/// Whether a call shares the user's terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Terminal {
    /// Standard input is kubectl's, and standard error is passed on as it comes.
    Shared { forward: bool },
    /// No standard input; standard error is kept for the caller.
    Detached,
}

impl Kubectl {
    /// Why kubectl could not be started.
    fn start_error(&self, error: &std::io::Error) -> String {
        let program = self.program.to_string_lossy();
        match error.kind() {
            std::io::ErrorKind::NotFound => format!(
                "`{program}` not found: --cluster reads the cluster with kubectl, from PATH or ${KUBECTL_VARIABLE}"
            ),
            std::io::ErrorKind::InvalidInput => format!("not run: {error}"),
            _ => format!("cannot run `{program}`: {error}"),
        }
    }

    /// Runs one call, sharing the terminal or not, and stops it at its bounds.
    pub(super) fn run(&self, args: &Args, terminal: Terminal) -> Result<Reply, String> {
        let command_line = self.command_line(args);
        let reply = |end, stdout, stderr, shown| Reply {
            command: command_line.clone(),
            end,
            stdout,
            stderr,
            shown,
            bounds: self.bounds.clone(),
        };
        if self.bounds.expired() {
            return Ok(reply(End::Deadline, Vec::new(), String::new(), false));
        }
        let line = CommandLine::new(&self.program)
            .args(&self.global)
            .args(args);
        let (stdin, forward, own_group) = match terminal {
            // A process outside the terminal's foreground group is stopped when it
            // reads from it: a password prompt needs the group we are in.
            Terminal::Shared { forward } => {
                (Stdin::Inherit, forward, !std::io::stdin().is_terminal())
            }
            Terminal::Detached => (Stdin::Null, false, true),
        };
        let stop = self.bounds.stop_at(Instant::now());
        let finished = external::run(
            &line,
            Call {
                stdin,
                own_group,
                forward_stderr: forward,
                stop_at: stop.map(|(at, _)| at),
                max_stdout: self.bounds.max_output,
            },
        )
        .map_err(|error| self.start_error(&error))?;
        let end = match finished.ended {
            Ended::Exited(code) => End::Exited(code),
            Ended::Signalled(signal) => End::Signalled(signal),
            Ended::TooLarge => End::TooLarge,
            Ended::Stopped => stop.map_or(End::TimedOut, |(_, why)| why),
        };
        Ok(reply(end, finished.stdout, finished.stderr, forward))
    }
}
