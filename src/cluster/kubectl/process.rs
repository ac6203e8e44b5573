//! One kubectl call as a process, stopped at its bounds.
//!
//! kubectl gets `--request-timeout`, which bounds each request it makes; the process
//! itself is stopped when it runs twice that long (a connection kubectl does not notice
//! is dead, a credential plugin that hangs) or past the deadline of the whole read; and
//! what it prints on standard output is read up to the input limit, and no further. Each
//! call runs in a process group of its own, so that stopping it also stops what it
//! started (the Google Cloud SDK's `kubectl` is a dispatcher that runs the real one as a
//! child); the first call, which may share the user's terminal with a credential plugin
//! asking for a password, stays in the foreground group instead.

use std::io::{IsTerminal, Read};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::{End, KUBECTL_VARIABLE, Kubectl, Reply, Terminal};

/// The most of a call's standard error kept (and shown): kubectl's messages are a few
/// lines; beyond this it is not saying anything useful.
const MAX_STDERR: usize = 64 * 1024;

impl Kubectl {
    /// Why kubectl could not be started.
    fn start_error(&self, error: &std::io::Error) -> String {
        let program = self.program.to_string_lossy();
        if error.kind() == std::io::ErrorKind::NotFound {
            format!(
                "`{program}` not found: --cluster reads the cluster with kubectl, from PATH or ${KUBECTL_VARIABLE}"
            )
        } else {
            format!("cannot run `{program}`: {error}")
        }
    }

    /// Runs one call, sharing the terminal or not, and stops it at its bounds.
    pub(super) fn run(&self, args: &[String], terminal: Terminal) -> Result<Reply, String> {
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
        let mut command = Command::new(&self.program);
        command
            .args(&self.global)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let (forward, group) = match terminal {
            Terminal::Shared { forward } => {
                command.stdin(Stdio::inherit());
                // A process outside the terminal's foreground group is stopped when it
                // reads from it: a password prompt needs the group we are in.
                (forward, !std::io::stdin().is_terminal())
            }
            Terminal::Detached => {
                command.stdin(Stdio::null());
                (false, true)
            }
        };
        #[cfg(unix)]
        if group {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let start = Instant::now();
        let mut child = command.spawn().map_err(|error| self.start_error(&error))?;
        let (events, received) = mpsc::channel();
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let max_output = self.bounds.max_output;
        let out_events = events.clone();
        std::thread::spawn(move || {
            let read = read_bounded(stdout, max_output);
            let _ = out_events.send(Event::Stdout(read));
        });
        std::thread::spawn(move || {
            let _ = events.send(Event::Stderr(relay(stderr, forward)));
        });
        let stop = self.bounds.stop_at(start);
        let mut out = None;
        let mut err = None;
        let mut stopped = None;
        while out.is_none() || err.is_none() {
            let event = match stop {
                Some((at, _)) => {
                    received.recv_timeout(at.saturating_duration_since(Instant::now()))
                }
                None => received
                    .recv()
                    .map_err(|_| mpsc::RecvTimeoutError::Disconnected),
            };
            match event {
                Ok(Event::Stdout(Output::Complete(bytes))) => out = Some(bytes),
                Ok(Event::Stdout(Output::TooLarge(bytes))) => {
                    out = Some(bytes);
                    stopped = Some(End::TooLarge);
                    break;
                }
                Ok(Event::Stderr(text)) => err = Some(text),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    stopped = stop.map(|(_, why)| why);
                    break;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        if let Some(why) = stopped {
            kill(&mut child, group);
            let _ = child.wait();
            // What the group left behind closes its pipes as it dies; a child that
            // escaped the group may hold them open, and is not waited for.
            let grace = Instant::now() + Duration::from_millis(500);
            while out.is_none() || err.is_none() {
                match received.recv_timeout(grace.saturating_duration_since(Instant::now())) {
                    Ok(Event::Stdout(output)) => out = Some(output.into_bytes()),
                    Ok(Event::Stderr(text)) => err = Some(text),
                    Err(_) => break,
                }
            }
            return Ok(reply(
                why,
                out.unwrap_or_default(),
                err.unwrap_or_default(),
                forward,
            ));
        }
        // Its pipes are closed; the process itself may still be running.
        let status = wait(&mut child, stop, group);
        let end = match status {
            Ok(status) => end_of(status),
            Err(why) => why,
        };
        Ok(reply(
            end,
            out.unwrap_or_default(),
            err.unwrap_or_default(),
            forward,
        ))
    }
}

/// What the threads reading a call's pipes report.
enum Event {
    Stdout(Output),
    Stderr(String),
}

/// Standard output, read to its end or to the limit.
enum Output {
    Complete(Vec<u8>),
    TooLarge(Vec<u8>),
}

impl Output {
    fn into_bytes(self) -> Vec<u8> {
        match self {
            Output::Complete(bytes) | Output::TooLarge(bytes) => bytes,
        }
    }
}

/// Reads `from` to its end, or until it has given more than `limit` bytes.
fn read_bounded(from: impl Read, limit: u64) -> Output {
    let mut bytes = Vec::new();
    match from.take(limit.saturating_add(1)).read_to_end(&mut bytes) {
        Ok(_) | Err(_) if bytes.len() as u64 > limit => {
            bytes.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
            Output::TooLarge(bytes)
        }
        _ => Output::Complete(bytes),
    }
}

/// Waits for a child whose pipes are closed, until the call's stop.
fn wait(child: &mut Child, stop: Option<(Instant, End)>, group: bool) -> Result<ExitStatus, End> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) => {}
            Err(_) => return child.wait().map_err(|_| End::Exited(-1)),
        }
        if let Some((at, why)) = stop
            && Instant::now() >= at
        {
            kill(child, group);
            let _ = child.wait();
            return Err(why);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Stops a call: its whole process group, where it has one of its own.
fn kill(child: &mut Child, group: bool) {
    #[cfg(unix)]
    if group {
        if let Some(pid) = rustix::process::Pid::from_raw(child.id() as i32) {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
        return;
    }
    let _ = group;
    let _ = child.kill();
}

/// How a process ended, as an [`End`].
fn end_of(status: ExitStatus) -> End {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return End::Signalled(signal);
        }
    }
    End::Exited(status.code().unwrap_or(-1))
}

/// Reads a child's standard error to its end, keeping at most [`MAX_STDERR`] bytes, and
/// passing it on to ours when `forward` (a terminal: the progress line there is cleared
/// first), its control characters escaped.
fn relay(mut from: impl Read, forward: bool) -> String {
    use std::io::Write;
    let mut kept = Vec::new();
    let mut buffer = [0u8; 4096];
    let mut cleared = false;
    loop {
        match from.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if forward {
                    let mut stderr = std::io::stderr().lock();
                    if !cleared {
                        let _ = stderr.write_all(b"\r\x1b[2K");
                        cleared = true;
                    }
                    let text = String::from_utf8_lossy(&buffer[..n]);
                    let _ = stderr.write_all(crate::escape::controls(&text).as_bytes());
                    let _ = stderr.flush();
                }
                let room = MAX_STDERR.saturating_sub(kept.len());
                kept.extend_from_slice(&buffer[..n.min(room)]);
            }
        }
    }
    String::from_utf8_lossy(&kept).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_read_to_the_limit_and_no_further() {
        let endless = std::io::repeat(b'x');
        match read_bounded(endless, 1000) {
            Output::TooLarge(bytes) => assert_eq!(bytes.len(), 1000),
            Output::Complete(_) => panic!("an endless stream is never complete"),
        }
        match read_bounded(&b"{}"[..], 2) {
            Output::Complete(bytes) => assert_eq!(bytes, b"{}"),
            Output::TooLarge(_) => panic!("two bytes fit in two"),
        }
    }
}
