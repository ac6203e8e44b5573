//! How the MCP server runs its tools: what `mcp`'s flags become.

use std::path::PathBuf;
use std::time::Duration;

/// How the server runs its tools.
#[derive(Clone, Debug)]
pub struct Options {
    /// The program each tool runs: this one.
    pub program: PathBuf,
    /// The directory paths are read from, and the only one `fix` may write under.
    pub root: PathBuf,
    /// Whether `fix` may write files.
    pub allow_writes: bool,
    /// The most time one tool call takes.
    pub tool_timeout: Duration,
}
