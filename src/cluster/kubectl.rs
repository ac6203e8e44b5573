//! Running the user's own kubectl, within bounds.
//!
//! The cluster is read through the `kubectl` the user runs (`$KUBECTL`, else the one on
//! `PATH`), with their `--context`, `--kubeconfig`, `--as` and `--as-group`, so every
//! way kubectl authenticates (exec credential plugins, OIDC, cloud providers) works
//! unchanged and no Kubernetes client is linked in. Independent reads run side by side.
//!
//! A gate must never wait forever nor fill the machine's memory on what a cluster (or
//! something posing as one) sends, so every call is bounded ([`Bounds`]): kubectl gets
//! `--request-timeout`, which bounds each request it makes; the process itself is
//! stopped when it runs twice that long (a connection kubectl does not notice is dead,
//! a credential plugin that hangs) or past the deadline of the whole read; and what it
//! prints on standard output is read up to the input limit, and no further. Each call
//! runs in a process group of its own, so that stopping it also stops what it started
//! (the Google Cloud SDK's `kubectl` is a dispatcher that runs the real one as a
//! child); the first call, which may share the user's terminal with a credential
//! plugin asking for a password, stays in the foreground group instead.

use std::ffi::OsString;
use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::load::ReadLimits;

/// How to reach the cluster: kubectl's own flags, passed through as given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Connection {
    /// `--context`.
    pub context: Option<String>,
    /// `--kubeconfig`.
    pub kubeconfig: Option<PathBuf>,
    /// `--as`: the user to impersonate.
    pub user: Option<String>,
    /// `--as-group`, repeated.
    pub groups: Vec<String>,
}

/// What bounds every kubectl call of a run.
#[derive(Clone, Debug)]
pub struct Bounds {
    /// kubectl's `--request-timeout`, as the user wrote it (`30s`, `1m`, `0`).
    pub request_timeout: Timeout,
    /// How long the whole read may take, and from when.
    pub total: Timeout,
    /// When the read started.
    pub started: Instant,
    /// The most one call may print on standard output (`--max-input-size`).
    pub max_output: u64,
}

/// A duration given on the command line, kept as written for messages and for
/// kubectl; `None` for `0`, no limit (kubectl's meaning of `--request-timeout 0`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeout {
    /// The duration, `None` for no limit.
    pub duration: Option<Duration>,
    /// The flag that gave it (`--request-timeout`).
    pub flag: &'static str,
    /// The text it was given as (`30s`).
    pub text: String,
}

impl std::fmt::Display for Timeout {
    /// `--request-timeout 30s`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.flag, self.text)
    }
}

/// The request timeout when `--request-timeout` is not given: kubectl itself has
/// none, and a list that never answers would keep a gate waiting forever.
pub const DEFAULT_REQUEST_TIMEOUT: &str = "30s";

/// The deadline of a whole read when `--cluster-timeout` is not given: room for a
/// listing of a few hundred thousand objects, page by page.
pub const DEFAULT_CLUSTER_TIMEOUT: &str = "10m";

/// The most of a call's standard error kept (and shown): kubectl's messages are a few
/// lines; beyond this it is not saying anything useful.
const MAX_STDERR: usize = 64 * 1024;

impl Timeout {
    /// Reads a duration as kubectl reads `--request-timeout`: a whole number of
    /// seconds (`30`) or a Go duration (`30s`, `1m30s`); `0` is no limit.
    pub fn parse(flag: &'static str, text: &str) -> Result<Timeout, String> {
        let text = text.trim();
        let millis = if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
            text.parse::<i64>()
                .ok()
                .and_then(|seconds| seconds.checked_mul(1000))
        } else {
            crate::time::parse_go_duration(text).map(|millis| millis.0)
        };
        let millis = millis.filter(|ms| *ms >= 0).ok_or_else(|| {
            format!("`{text}` is not a duration such as 30s, 2m or 0 (no limit) for {flag}")
        })?;
        Ok(Timeout {
            duration: (millis > 0).then(|| Duration::from_millis(millis.unsigned_abs())),
            flag,
            text: text.to_owned(),
        })
    }
}

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds::defaults()
    }
}

impl Bounds {
    /// The bounds of the defaults, started now: for tests and callers without flags.
    pub fn defaults() -> Bounds {
        Bounds {
            request_timeout: Timeout::parse("--request-timeout", DEFAULT_REQUEST_TIMEOUT)
                .expect("the default is a duration"),
            total: Timeout::parse("--cluster-timeout", DEFAULT_CLUSTER_TIMEOUT)
                .expect("the default is a duration"),
            started: Instant::now(),
            max_output: ReadLimits::default().input_bytes,
        }
    }

    /// When the whole read must be over; `None` without a limit.
    fn deadline(&self) -> Option<Instant> {
        self.started.checked_add(self.total.duration?)
    }

    /// When a call started at `start` is stopped, and why.
    fn stop_at(&self, start: Instant) -> Option<(Instant, End)> {
        let call = self
            .request_timeout
            .duration
            .and_then(|timeout| start.checked_add(timeout.saturating_mul(2)))
            .map(|at| (at, End::TimedOut));
        let run = self.deadline().map(|at| (at, End::Deadline));
        match (call, run) {
            (Some(call), Some(run)) => Some(if run.0 <= call.0 { run } else { call }),
            (one, other) => one.or(other),
        }
    }

    /// Whether the read's deadline has passed.
    pub fn expired(&self) -> bool {
        self.deadline().is_some_and(|at| Instant::now() >= at)
    }
}

/// The kubectl to run, the flags every call carries, and the bounds on each call.
#[derive(Clone, Debug)]
pub struct Kubectl {
    program: OsString,
    global: Vec<OsString>,
    bounds: Bounds,
}

/// How a kubectl call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// It exited with this status.
    Exited(i32),
    /// A signal ended it (the kernel's OOM killer, a `timeout` wrapper).
    Signalled(i32),
    /// It ran twice its request timeout and was stopped.
    TimedOut,
    /// The read's deadline passed while it ran, or before it could start; stopped.
    Deadline,
    /// It printed more than the input limit and was stopped.
    TooLarge,
}

/// What one kubectl call printed, and how it ended.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The command as the user could type it, for messages.
    pub command: String,
    /// How it ended.
    pub end: End,
    /// Its standard output (at most the input limit).
    pub stdout: Vec<u8>,
    /// Its standard error, as it printed it (at most 64 KiB).
    pub stderr: String,
    /// Whether `stderr` was already passed on to the user as it came.
    pub shown: bool,
    /// The bounds it ran under, for messages.
    bounds: Bounds,
}

impl Reply {
    /// A reply that ended as `end` having printed `stdout` and `stderr`, under the
    /// default bounds: for tests of what reads replies.
    #[cfg(test)]
    pub(crate) fn printed(end: End, stdout: Vec<u8>, stderr: &str) -> Reply {
        Reply {
            command: "kubectl".into(),
            end,
            stdout,
            stderr: stderr.into(),
            shown: false,
            bounds: Bounds::defaults(),
        }
    }

    /// Whether kubectl exited with status 0.
    pub fn success(&self) -> bool {
        self.end == End::Exited(0)
    }

    /// Why the call failed, in kubectl's words when it gave any; `None` when it did
    /// not. A failure is never silent: a kubectl that exits 1 or is killed without a
    /// word still fails, said in ours.
    pub fn failure(&self) -> Option<String> {
        let said = self.stderr.trim_end();
        let ours = match self.end {
            End::Exited(0) => return None,
            End::Exited(_) if !said.is_empty() => return Some(said.to_owned()),
            End::Exited(code) => {
                format!("kubectl exited with status {code} without saying why")
            }
            End::Signalled(signal) => {
                format!(
                    "kubectl was killed by signal {signal}{}",
                    signal_name(signal)
                )
            }
            End::TimedOut => format!(
                "kubectl was stopped after running twice its request timeout ({}) without finishing",
                self.bounds.request_timeout
            ),
            End::Deadline => format!(
                "kubectl was stopped: the cluster read ran out of time ({})",
                self.bounds.total
            ),
            End::TooLarge => format!(
                "kubectl was stopped: it printed more than {} (--max-input-size raises the limit)",
                crate::load::size(self.bounds.max_output)
            ),
        };
        Some(if said.is_empty() {
            ours
        } else {
            format!("{said}\n{ours}")
        })
    }
}

/// ` (SIGKILL)` for the signals a killed kubectl usually got.
fn signal_name(signal: i32) -> &'static str {
    match signal {
        1 => " (SIGHUP)",
        2 => " (SIGINT)",
        6 => " (SIGABRT)",
        9 => " (SIGKILL: out of memory, or killed by a supervisor)",
        11 => " (SIGSEGV)",
        13 => " (SIGPIPE)",
        15 => " (SIGTERM)",
        _ => "",
    }
}

/// The most kubectl calls run at once: each is a process of some 50 MB that spends
/// most of its life waiting on the API server.
const SIDE_BY_SIDE: usize = 6;

/// The environment variable naming the kubectl to run.
pub const KUBECTL_VARIABLE: &str = "KUBECTL";

/// Whether a call shares the user's terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Terminal {
    /// Standard input is kubectl's, and standard error is passed on as it comes.
    Shared { forward: bool },
    /// No standard input; standard error is kept for the caller.
    Detached,
}

impl Kubectl {
    /// The kubectl of `$KUBECTL`, else `kubectl` from `PATH`, with `connection`'s flags
    /// and the request timeout of `bounds`.
    pub fn new(connection: &Connection, bounds: Bounds) -> Kubectl {
        let program = std::env::var_os(KUBECTL_VARIABLE)
            .filter(|program| !program.is_empty())
            .unwrap_or_else(|| OsString::from("kubectl"));
        let mut global: Vec<OsString> = Vec::new();
        if let Some(context) = &connection.context {
            global.extend(["--context".into(), context.into()]);
        }
        if let Some(kubeconfig) = &connection.kubeconfig {
            global.extend(["--kubeconfig".into(), kubeconfig.into()]);
        }
        if let Some(user) = &connection.user {
            global.extend(["--as".into(), user.into()]);
        }
        for group in &connection.groups {
            global.extend(["--as-group".into(), group.into()]);
        }
        global.push(format!("--request-timeout={}", bounds.request_timeout.text).into());
        Kubectl {
            program,
            global,
            bounds,
        }
    }

    /// The bounds every call runs under.
    pub fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    /// `kubectl get … -o json`, as the user could type it (global flags left out).
    fn command_line(&self, args: &[String]) -> String {
        let mut line = String::from("kubectl");
        for arg in args {
            line.push(' ');
            let plain = arg
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=,:@%+".contains(c));
            if plain {
                line.push_str(arg);
            } else {
                line.push('\'');
                line.push_str(&arg.replace('\'', r"'\''"));
                line.push('\'');
            }
        }
        line
    }

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

    /// Runs the first call of a run with the user's terminal: standard input is kubectl's,
    /// so an exec credential plugin can ask for a password, and with `forward` its
    /// standard error reaches the user as it comes (a plugin's "open this URL to log
    /// in"), as well as being kept.
    pub fn run_first(&self, args: &[String], forward: bool) -> Result<Reply, String> {
        self.run(args, Terminal::Shared { forward })
    }

    /// Runs one call with no standard input.
    pub fn run_one(&self, args: &[String]) -> Result<Reply, String> {
        self.run(args, Terminal::Detached)
    }

    /// Runs independent calls side by side, at most [`SIDE_BY_SIDE`] at a time, with no
    /// standard input; the replies are in the order of `calls`.
    pub fn run_all(&self, calls: &[Vec<String>]) -> Vec<Result<Reply, String>> {
        let next = std::sync::atomic::AtomicUsize::new(0);
        let replies: Vec<std::sync::Mutex<Option<Result<Reply, String>>>> =
            calls.iter().map(|_| std::sync::Mutex::new(None)).collect();
        std::thread::scope(|scope| {
            for _ in 0..SIDE_BY_SIDE.min(calls.len()) {
                scope.spawn(|| {
                    loop {
                        let at = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(args) = calls.get(at) else { break };
                        let reply = self.run_one(args);
                        if let Ok(mut slot) = replies[at].lock() {
                            *slot = Some(reply);
                        }
                    }
                });
            }
        });
        replies
            .into_iter()
            .map(|slot| {
                slot.into_inner()
                    .ok()
                    .flatten()
                    .unwrap_or_else(|| Err("kubectl's call was not made".to_owned()))
            })
            .collect()
    }

    fn run(&self, args: &[String], terminal: Terminal) -> Result<Reply, String> {
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

    fn bounds() -> Bounds {
        Bounds::defaults()
    }

    #[test]
    fn command_lines_quote_what_a_shell_would_split() {
        let kubectl = Kubectl::new(&Connection::default(), bounds());
        let args: Vec<String> = ["get", "nodes", "-o", "jsonpath={.items[*].metadata.name}"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            kubectl.command_line(&args),
            "kubectl get nodes -o 'jsonpath={.items[*].metadata.name}'"
        );
    }

    #[test]
    fn connection_flags_come_first_then_the_request_timeout() {
        let kubectl = Kubectl::new(
            &Connection {
                context: Some("prod".into()),
                kubeconfig: Some("/tmp/kc".into()),
                user: Some("jane".into()),
                groups: vec!["dev".into(), "ops".into()],
            },
            bounds(),
        );
        let flags: Vec<&str> = kubectl.global.iter().map(|f| f.to_str().unwrap()).collect();
        assert_eq!(
            flags,
            [
                "--context",
                "prod",
                "--kubeconfig",
                "/tmp/kc",
                "--as",
                "jane",
                "--as-group",
                "dev",
                "--as-group",
                "ops",
                "--request-timeout=30s"
            ]
        );
    }

    #[test]
    fn timeouts_read_as_kubectl_reads_them() {
        let parse = |text| Timeout::parse("--request-timeout", text).map(|t| t.duration);
        assert_eq!(parse("30"), Ok(Some(Duration::from_secs(30))));
        assert_eq!(parse("1m30s"), Ok(Some(Duration::from_secs(90))));
        assert_eq!(parse("250ms"), Ok(Some(Duration::from_millis(250))));
        assert_eq!(parse("0"), Ok(None));
        assert!(parse("soon").is_err());
        assert!(parse("-5s").is_err());
        assert!(parse("").is_err());
    }

    #[test]
    fn a_call_stops_at_twice_its_timeout_or_the_deadline_whichever_is_first() {
        let mut bounds = bounds();
        let start = bounds.started;
        let (at, why) = bounds.stop_at(start).unwrap();
        assert_eq!((at - start, why), (Duration::from_secs(60), End::TimedOut));
        bounds.total = Timeout::parse("--cluster-timeout", "45s").unwrap();
        let (at, why) = bounds.stop_at(start).unwrap();
        assert_eq!((at - start, why), (Duration::from_secs(45), End::Deadline));
        bounds.request_timeout = Timeout::parse("--request-timeout", "0").unwrap();
        bounds.total = Timeout::parse("--cluster-timeout", "0").unwrap();
        assert_eq!(bounds.stop_at(start), None);
    }

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

    #[test]
    fn a_silent_failure_is_still_a_failure() {
        let reply = |end, stderr: &str| Reply {
            command: "kubectl get pods".into(),
            end,
            stdout: Vec::new(),
            stderr: stderr.into(),
            shown: false,
            bounds: bounds(),
        };
        assert_eq!(reply(End::Exited(0), "").failure(), None);
        assert_eq!(
            reply(End::Exited(1), "").failure().as_deref(),
            Some("kubectl exited with status 1 without saying why")
        );
        assert_eq!(
            reply(End::Exited(1), "error: boom\n").failure().as_deref(),
            Some("error: boom")
        );
        let killed = reply(End::Signalled(9), "").failure().unwrap();
        assert!(killed.contains("signal 9 (SIGKILL"), "{killed}");
        let late = reply(End::TimedOut, "").failure().unwrap();
        assert!(late.contains("--request-timeout 30s"), "{late}");
        let big = reply(End::TooLarge, "").failure().unwrap();
        assert!(
            big.contains("256 MiB") && big.contains("--max-input-size"),
            "{big}"
        );
    }
}
