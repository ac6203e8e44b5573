//! One program run to its end or stopped at its bounds: its deadline, and the most it
//! may print.
//!
//! A gate must never wait forever on a program (a kustomization's remote base that
//! never answers, a `helm` or credential plugin that hangs) nor fill the machine's
//! memory with what it prints. A call runs in a process group of its own, so that
//! stopping it also stops what it started (kustomize's `git clone`, the Google Cloud
//! SDK's `kubectl`, a dispatcher that runs the real one as a child); a call that may
//! ask for a password on the user's terminal stays in the foreground group instead,
//! which the caller says ([`Call::own_group`]).

use std::io::{Read, Write};
use std::process::{Child, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::{CommandLine, Timeout};

/// The most of a call's standard error kept (and shown): a tool's messages are a few
/// lines; beyond this it is not saying anything useful.
const MAX_STDERR: usize = 64 * 1024;

/// How long the pipes of a stopped call are still read: what its group left behind
/// closes them as it dies; a child that escaped the group may hold them open, and is
/// not waited for.
const GRACE: Duration = Duration::from_millis(500);

/// What a call reads on standard input.
#[derive(Debug)]
pub enum Stdin {
    /// Nothing.
    Null,
    /// Ours: the user's terminal, for a credential plugin's prompt.
    Inherit,
    /// These bytes, written beside the reading so that neither pipe fills while the
    /// other waits.
    Bytes(Vec<u8>),
}

/// How one call runs, and its bounds.
#[derive(Debug)]
pub struct Call {
    /// Its standard input.
    pub stdin: Stdin,
    /// Whether it runs in a process group of its own (stopped whole), rather than ours.
    pub own_group: bool,
    /// Whether its standard error is passed on to ours as it comes, its control
    /// characters escaped (a terminal: the progress line there is cleared first), as
    /// well as kept.
    pub forward_stderr: bool,
    /// When it is stopped if it has not ended; `None` for never.
    pub stop_at: Option<Instant>,
    /// The most of its standard output read: past it, it is stopped.
    pub max_stdout: u64,
}

/// What bounds a call the tool makes on local files (a render, a git read): how long
/// it may run, and the most it may print.
#[derive(Clone, Debug)]
pub struct CallBounds {
    /// How long one call may take before it is stopped (`--render-timeout`).
    pub timeout: Timeout,
    /// The most one call may print (`--max-input-size`).
    pub max_output: u64,
}

impl CallBounds {
    /// A call starting now within these bounds, in a process group of its own, with
    /// `stdin` and its standard error kept.
    pub fn call(&self, stdin: Stdin) -> Call {
        Call {
            stdin,
            own_group: true,
            forward_stderr: false,
            stop_at: self
                .timeout
                .duration
                .and_then(|timeout| Instant::now().checked_add(timeout)),
            max_stdout: self.max_output,
        }
    }
}

/// How a call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// It exited with this status.
    Exited(i32),
    /// A signal ended it (the kernel's OOM killer, a `timeout` wrapper).
    Signalled(i32),
    /// It was still running at [`Call::stop_at`], and was stopped.
    Stopped,
    /// It printed more than [`Call::max_stdout`], and was stopped.
    TooLarge,
}

/// What a call printed, and how it ended.
#[derive(Debug)]
pub struct Finished {
    /// How it ended.
    pub ended: Ended,
    /// Its standard output, at most [`Call::max_stdout`] bytes.
    pub stdout: Vec<u8>,
    /// Its standard error, at most 64 KiB of it.
    pub stderr: String,
}

impl Finished {
    /// Whether it exited with status 0.
    pub fn success(&self) -> bool {
        self.ended == Ended::Exited(0)
    }
}

/// Runs `line` as `call` says; `Err` when it cannot be started (`NotFound`: no such
/// program; `InvalidInput`: a word of it would be read as an option, so it is not run).
pub fn run(line: &CommandLine, call: Call) -> std::io::Result<Finished> {
    if let Some(refused) = line.refused() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            refused.clone(),
        ));
    }
    if call.stop_at.is_some_and(|at| Instant::now() >= at) {
        return Ok(Finished {
            ended: Ended::Stopped,
            stdout: Vec::new(),
            stderr: String::new(),
        });
    }
    let mut command = line.command();
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let input = match call.stdin {
        Stdin::Null => {
            command.stdin(Stdio::null());
            None
        }
        Stdin::Inherit => {
            command.stdin(Stdio::inherit());
            None
        }
        Stdin::Bytes(bytes) => {
            command.stdin(Stdio::piped());
            Some(bytes)
        }
    };
    #[cfg(unix)]
    if call.own_group {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let mut child = command.spawn()?;
    if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
        std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
    }
    let (events, received) = mpsc::channel();
    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let max_stdout = call.max_stdout;
    let out_events = events.clone();
    std::thread::spawn(move || {
        let read = read_bounded(stdout, max_stdout);
        let _ = out_events.send(Event::Stdout(read));
    });
    let forward = call.forward_stderr;
    std::thread::spawn(move || {
        let _ = events.send(Event::Stderr(relay(stderr, forward)));
    });
    let mut out = None;
    let mut err = None;
    let mut stopped = None;
    while out.is_none() || err.is_none() {
        let event = match call.stop_at {
            Some(at) => received.recv_timeout(at.saturating_duration_since(Instant::now())),
            None => received
                .recv()
                .map_err(|_| mpsc::RecvTimeoutError::Disconnected),
        };
        match event {
            Ok(Event::Stdout(Output::Complete(bytes))) => out = Some(bytes),
            Ok(Event::Stdout(Output::TooLarge(bytes))) => {
                out = Some(bytes);
                stopped = Some(Ended::TooLarge);
                break;
            }
            Ok(Event::Stderr(text)) => err = Some(text),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                stopped = Some(Ended::Stopped);
                break;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    if let Some(ended) = stopped {
        kill(&mut child, call.own_group);
        let _ = child.wait();
        let grace = Instant::now() + GRACE;
        while out.is_none() || err.is_none() {
            match received.recv_timeout(grace.saturating_duration_since(Instant::now())) {
                Ok(Event::Stdout(output)) => out = Some(output.into_bytes()),
                Ok(Event::Stderr(text)) => err = Some(text),
                Err(_) => break,
            }
        }
        return Ok(Finished {
            ended,
            stdout: out.unwrap_or_default(),
            stderr: err.unwrap_or_default(),
        });
    }
    // Its pipes are closed; the process itself may still be running.
    let ended = match wait(&mut child, call.stop_at, call.own_group) {
        Some(status) => ended_by(status),
        None => Ended::Stopped,
    };
    Ok(Finished {
        ended,
        stdout: out.unwrap_or_default(),
        stderr: err.unwrap_or_default(),
    })
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

/// Waits for a child whose pipes are closed, until `stop_at`; `None` when it was
/// stopped there.
fn wait(child: &mut Child, stop_at: Option<Instant>, group: bool) -> Option<ExitStatus> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) => {}
            Err(_) => return child.wait().ok(),
        }
        if stop_at.is_some_and(|at| Instant::now() >= at) {
            kill(child, group);
            let _ = child.wait();
            return None;
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

/// How a process ended, as an [`Ended`].
fn ended_by(status: ExitStatus) -> Ended {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return Ended::Signalled(signal);
        }
    }
    Ended::Exited(status.code().unwrap_or(-1))
}

/// Reads a child's standard error to its end, keeping at most [`MAX_STDERR`] bytes, and
/// passing it on to ours when `forward` (a terminal: the progress line there is cleared
/// first), its control characters escaped.
fn relay(mut from: impl Read, forward: bool) -> String {
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
                    let _ = stderr.write_all(crate::report::escape::controls(&text).as_bytes());
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

    #[cfg(unix)]
    #[test]
    fn a_call_past_its_deadline_is_stopped_with_what_it_started() {
        let line = CommandLine::new("sh").args(
            &super::super::Args::new()
                .word("-c")
                .operand("sleep 30 & sleep 30; echo never"),
        );
        let started = Instant::now();
        let finished = run(
            &line,
            Call {
                stdin: Stdin::Null,
                own_group: true,
                forward_stderr: false,
                stop_at: Some(started + Duration::from_millis(300)),
                max_stdout: 1024,
            },
        )
        .unwrap();
        assert_eq!(finished.ended, Ended::Stopped);
        // The background `sleep` held the pipes: it died with the group.
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[cfg(unix)]
    #[test]
    fn bytes_given_are_its_standard_input() {
        let line = CommandLine::new("cat");
        let finished = run(
            &line,
            Call {
                stdin: Stdin::Bytes(b"hello".to_vec()),
                own_group: true,
                forward_stderr: false,
                stop_at: None,
                max_stdout: 1024,
            },
        )
        .unwrap();
        assert!(finished.success());
        assert_eq!(finished.stdout, b"hello");
    }
}
