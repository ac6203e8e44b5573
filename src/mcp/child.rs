//! One tool call as a run of this program: its arguments, the text it reads on
//! standard input, and what it printed, within the call's time. The run is
//! [`crate::external`]'s, as every program the tool starts: in a process group of its
//! own, stopped whole at its deadline, its output read up to a limit.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::external::{self, Args, Call, CommandLine, Ended, Stdin};

/// The most a call's report may print: far more than any report of the inputs a
/// call can name.
const MAX_OUTPUT: u64 = 256 << 20;

/// What a run printed, and how it ended.
#[derive(Debug)]
pub struct Ran {
    /// The exit status; `None` when a signal ended it.
    pub status: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Runs `program` with `args` in `dir`, `stdin` on its standard input (nothing when
/// `None`), for at most `timeout`, on a thread of the runtime's blocking pool.
pub async fn run(
    program: &Path,
    dir: &Path,
    args: Args,
    stdin: Option<String>,
    timeout: Duration,
) -> Result<Ran, String> {
    let line = CommandLine::new(program).args(&args).current_dir(dir);
    let call = Call {
        stdin: stdin.map_or(Stdin::Null, |text| Stdin::Bytes(text.into_bytes())),
        own_group: true,
        forward_stderr: false,
        stop_at: Instant::now().checked_add(timeout),
        max_stdout: MAX_OUTPUT,
    };
    let finished = tokio::task::spawn_blocking(move || external::run(&line, call))
        .await
        .map_err(|error| format!("the call failed: {error}"))?
        .map_err(|error| format!("cannot run {}: {error}", program.display()))?;
    let status = match finished.ended {
        Ended::Exited(code) => Some(code),
        Ended::Signalled(_) => None,
        Ended::Stopped => {
            return Err(format!(
                "the call took longer than {} s and was stopped",
                timeout.as_secs()
            ));
        }
        Ended::TooLarge => {
            return Err(format!(
                "the report is larger than {} MiB; name fewer inputs",
                MAX_OUTPUT >> 20
            ));
        }
    };
    Ok(Ran {
        status,
        stdout: String::from_utf8_lossy(&finished.stdout).into_owned(),
        stderr: finished.stderr,
    })
}
