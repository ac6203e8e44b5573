//! `mcp`: the Model Context Protocol server ([`crate::mcp`]) on standard input and
//! output.

use std::io;

use clap::Args;

use super::diagnostic;

/// `mcp`: the tools an assistant calls.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Let the `fix` tool write fixed files back when a call asks it to, and only
    /// files under the working directory (by default it only returns the fixed
    /// text).
    #[arg(long)]
    pub allow_writes: bool,

    /// The directory relative paths are read from, and the only one --allow-writes
    /// writes under (default: the working directory; clients such as Claude Desktop
    /// start servers in no directory of yours).
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub root: Option<std::path::PathBuf>,

    /// The most time one tool call takes.
    #[arg(long, value_name = "DURATION", default_value = "120s", value_parser = super::profile::parse_duration)]
    pub tool_timeout: crate::time::Millis,
}

pub fn run(args: McpArgs) -> io::Result<u8> {
    let program = std::env::current_exe()?;
    let root = match args.root {
        Some(dir) => std::path::absolute(dir)?,
        None => std::env::current_dir()?,
    };
    if !root.is_dir() {
        return super::usage_error(format!("--root {}: not a directory", root.display()));
    }
    let options = crate::mcp::Options {
        program,
        root,
        allow_writes: args.allow_writes,
        tool_timeout: std::time::Duration::from_millis(
            u64::try_from(args.tool_timeout.0).unwrap_or(0),
        ),
    };
    match crate::mcp::serve(options) {
        Ok(()) => Ok(0),
        Err(message) => {
            diagnostic(&format!("error: mcp: {message}\n"));
            Ok(1)
        }
    }
}
