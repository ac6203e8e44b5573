//! Shell completion scripts, generated from the command line definition.
//!
//! The scripts in `completions/` are this output, checked for staleness by
//! `tests/completions.rs`. They complete the binary's own name,
//! `kubectl-mesh_lifecycle`; `kubectl mesh-lifecycle …` is completed by kubectl itself
//! through `kubectl_complete-mesh_lifecycle` (see [`super::complete`]).

use std::io::{self, Write};

use clap::CommandFactory;
use clap_complete::{Generator, Shell};

use super::{BINARY_NAME, Cli};

/// The completion script for `shell`.
pub fn script(shell: Shell) -> Vec<u8> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, BINARY_NAME, &mut script);
    if shell == Shell::Bash {
        script = fix_bash_state_labels(&script);
    }
    script
}

/// clap_complete's bash script tracks the subcommand typed so far in a state named
/// after the binary with `-` spelled `__`, but labels the branches for each state with
/// `-` spelled `__subcmd__`, so for a binary name with a hyphen no subcommand's flags
/// or values ever complete (clap-rs/clap#6421). Spell the labels like the states.
fn fix_bash_state_labels(script: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(script);
    let state = BINARY_NAME.replace('-', "__");
    let label = BINARY_NAME.replace('-', "__subcmd__");
    text.replace(&format!("{label}__subcmd__"), &format!("{state}__subcmd__"))
        .into_bytes()
}

/// The file name a shell looks for (`_kubectl-mesh_lifecycle` for zsh).
pub fn file_name(shell: Shell) -> String {
    shell.file_name(BINARY_NAME)
}

/// `completions SHELL`: the script on standard output.
pub fn run(shell: Shell) -> io::Result<u8> {
    let mut out = io::stdout().lock();
    out.write_all(&script(shell))?;
    out.flush()?;
    Ok(0)
}
