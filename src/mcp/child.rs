//! One tool call as a run of this program: its arguments, the text it reads on
//! standard input, and what it printed, within the call's time.

use std::ffi::OsString;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncWriteExt;

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
/// `None`), for at most `timeout`.
pub async fn run(
    program: &Path,
    dir: &Path,
    args: Vec<OsString>,
    stdin: Option<String>,
    timeout: Duration,
) -> Result<Ran, String> {
    let mut command = tokio::process::Command::new(program);
    command
        .args(&args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut process = command
        .spawn()
        .map_err(|error| format!("cannot run {}: {error}", program.display()))?;
    if let (Some(text), Some(mut input)) = (stdin, process.stdin.take()) {
        // Written while the output is read, so that neither side waits on the other.
        tokio::spawn(async move {
            let _ = input.write_all(text.as_bytes()).await;
        });
    }
    let output = tokio::time::timeout(timeout, process.wait_with_output())
        .await
        .map_err(|_| {
            format!(
                "the call took longer than {} s and was stopped",
                timeout.as_secs()
            )
        })?
        .map_err(|error| format!("cannot read the run's output: {error}"))?;
    Ok(Ran {
        status: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    })
}
