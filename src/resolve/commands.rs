//! What a container's commands mean for its lifecycle.
//!
//! Reads the shell of hooks and commands (see [`super::shell`]) for the three things the
//! timeline depends on: how long a hook lasts (`sleep` in every spelling, loops that wait
//! for connections or processes to go), whether an app waits for its proxy before
//! starting, and how a Job's work stops its sidecar and keeps its exit status.

use std::collections::BTreeMap;

use super::shell::{self, AndOr, Command, Connector, List, SimpleCommand, Word};
use crate::time::Millis;

/// Environment variables of a container, for `sleep $DELAY`.
pub type Env = BTreeMap<String, String>;

/// What a hook's commands add up to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Length {
    /// Sleeps adding up to this; `unknown_parts` counts commands of unknown length
    /// taken as instant.
    Known {
        /// The sum of the sleeps.
        total: Millis,
        /// Commands of unknown length, counted as 0 s.
        unknown_parts: usize,
    },
    /// A loop that waits for connections or processes to go away.
    WaitsForExit,
    /// `sleep infinity`.
    Forever,
    /// Nothing of known length.
    Unknown,
}

/// Reads how long running `list` takes.
pub fn length(list: &List, env: &Env) -> Length {
    let mut total = Millis::ZERO;
    let mut known = false;
    let mut unknown_parts = 0;
    for item in &list.0 {
        if item.background {
            continue;
        }
        for pipeline in std::iter::once(&item.first).chain(item.rest.iter().map(|(_, p)| p)) {
            for command in &pipeline.commands {
                match command_length(command, env) {
                    Length::Known {
                        total: t,
                        unknown_parts: u,
                    } => {
                        total = total + t;
                        unknown_parts += u;
                        known = true;
                    }
                    Length::Unknown => unknown_parts += 1,
                    other => return other,
                }
            }
        }
    }
    if known {
        Length::Known {
            total,
            unknown_parts,
        }
    } else {
        Length::Unknown
    }
}

fn command_length(command: &Command, env: &Env) -> Length {
    match command {
        Command::Simple(simple) => match sleep_length(simple, env) {
            Some(Sleep::For(millis)) => Length::Known {
                total: millis,
                unknown_parts: 0,
            },
            Some(Sleep::Forever) => Length::Forever,
            None if is_noop(simple) => Length::Known {
                total: Millis::ZERO,
                unknown_parts: 0,
            },
            None => Length::Unknown,
        },
        Command::Group(list) => length(list, env),
        Command::Loop {
            condition, body, ..
        } => {
            if waits_for_something(condition) || waits_for_something(body) {
                Length::WaitsForExit
            } else {
                Length::Unknown
            }
        }
        Command::If { .. } | Command::For { .. } | Command::Case | Command::Function { .. } => {
            Length::Unknown
        }
    }
}

/// Commands that take no time worth counting.
fn is_noop(command: &SimpleCommand) -> bool {
    matches!(
        command.name(),
        Some("echo" | "printf" | "true" | ":" | "set" | "export" | "date" | "logger") | None
    )
}

/// Whether a loop polls something that goes away with the app: its connections
/// (`netstat`, `ss`, Envoy's `downstream_cx_active`) or its processes (`pgrep`,
/// `pidof`, `kill -0`, `killall -0`, `ps`), also inside `$(…)`.
fn waits_for_something(list: &List) -> bool {
    list.simple_commands().iter().any(|command| {
        let substituted = command
            .words
            .iter()
            .flat_map(|word| substitutions(&word.0))
            .any(|inner| waits_for_something(&shell::parse(inner)));
        if substituted {
            return true;
        }
        let argv = command.argv();
        let has = |flag: &str| argv.iter().any(|w| w.0 == flag);
        match command.name() {
            Some("netstat" | "ss" | "lsof" | "pgrep" | "pidof" | "ps" | "fuser") => true,
            Some("kill" | "killall") => has("-0"),
            Some("curl" | "wget") => argv.iter().any(|w| w.0.contains("downstream_cx_active")),
            Some("test" | "[" | "[[") => argv.iter().any(|w| w.0.contains("/proc/")),
            _ => false,
        }
    })
}

/// The scripts of the `$(…)` command substitutions in a word.
fn substitutions(word: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = word;
    while let Some(start) = rest.find("$(") {
        let inner = &rest[start + 2..];
        let mut depth = 1usize;
        let mut end = None;
        for (at, c) in inner.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(at);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { break };
        found.push(&inner[..end]);
        rest = &inner[end + 1..];
    }
    found
}

/// A `sleep` command's length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sleep {
    /// `sleep 10`, `sleep 1m`.
    For(Millis),
    /// `sleep infinity`.
    Forever,
}

/// Reads `sleep N` in every spelling: `5`, `5s`, `0.5`, `1m`, `1h`, `1d`, `1m 30s`
/// (summed, as GNU sleep does), `infinity`, and `$VAR`/`${VAR:-10}` from the
/// container's environment.
pub fn sleep_length(command: &SimpleCommand, env: &Env) -> Option<Sleep> {
    if command.name()? != "sleep" {
        return None;
    }
    let args = &command.argv()[1..];
    if args.is_empty() {
        return None;
    }
    let mut total = 0f64;
    for Word(arg) in args {
        let arg = expand(arg, env)?;
        if arg == "infinity" || arg == "inf" {
            return Some(Sleep::Forever);
        }
        total += parse_sleep_arg(&arg)?;
    }
    Some(Sleep::For(Millis((total * 1000.0).round() as i64)))
}

/// `5`, `5s`, `1.5m`: seconds.
fn parse_sleep_arg(arg: &str) -> Option<f64> {
    let (number, scale) = match arg.char_indices().last()? {
        (at, 's') => (&arg[..at], 1.0),
        (at, 'm') => (&arg[..at], 60.0),
        (at, 'h') => (&arg[..at], 3600.0),
        (at, 'd') => (&arg[..at], 86400.0),
        _ => (arg, 1.0),
    };
    let value: f64 = number.parse().ok()?;
    (value.is_finite() && (0.0..1e9).contains(&value)).then_some(value * scale)
}

/// Expands a word that is a lone variable reference from `env`; other words stay.
fn expand(word: &str, env: &Env) -> Option<String> {
    let Some(reference) = word.strip_prefix('$') else {
        return Some(word.to_owned());
    };
    let inner = reference
        .strip_prefix('{')
        .and_then(|r| r.strip_suffix('}'))
        .unwrap_or(reference);
    let (name, fallback) = match inner.split_once(":-").or_else(|| inner.split_once('-')) {
        Some((name, fallback)) => (name, Some(fallback)),
        None => (inner, None),
    };
    env.get(name)
        .cloned()
        .or_else(|| fallback.map(str::to_owned))
}

/// Readiness endpoints of the proxies an app may poll before starting.
const READINESS_ENDPOINTS: [&str; 5] = [
    ":15021/healthz/ready",
    ":15020/healthz/ready",
    ":15000/ready",
    ":4191/ready",
    ":15000/server_info",
];

/// How an app's own command waits for its proxy, if it does: a loop polling a proxy's
/// readiness endpoint before the real process, a retrying `curl`, or a wrapper
/// (`linkerd-await`, `cloud-sql-proxy wait`, `pilot-agent wait`).
pub fn start_gate(list: &List) -> Option<String> {
    for item in &list.0 {
        for pipeline in std::iter::once(&item.first).chain(item.rest.iter().map(|(_, p)| p)) {
            for command in &pipeline.commands {
                match command {
                    Command::Loop {
                        condition, body, ..
                    } => {
                        if let Some(endpoint) =
                            polls_readiness(condition).or_else(|| polls_readiness(body))
                        {
                            return Some(format!("waits for {endpoint} before starting"));
                        }
                    }
                    Command::Simple(simple) => {
                        if let Some(gate) = wrapper_gate(simple) {
                            return Some(gate);
                        }
                        if is_retrying_fetch(simple)
                            && let Some(endpoint) = readiness_endpoint(simple)
                        {
                            return Some(format!("waits for {endpoint} before starting"));
                        }
                        if !is_noop(simple) && simple.name() != Some("sleep") {
                            // The real work started before any wait.
                            return None;
                        }
                    }
                    Command::Group(inner) => {
                        if let Some(gate) = start_gate(inner) {
                            return Some(gate);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    None
}

fn wrapper_gate(command: &SimpleCommand) -> Option<String> {
    let argv = command.argv();
    let second = argv.get(1).map(|w| w.0.as_str());
    match command.name()? {
        "linkerd-await" => Some("runs under linkerd-await".to_owned()),
        "cloud-sql-proxy" if second == Some("wait") => {
            Some("runs cloud-sql-proxy wait first".to_owned())
        }
        "pilot-agent" if second == Some("wait") => Some("runs pilot-agent wait first".to_owned()),
        _ => None,
    }
}

fn polls_readiness(list: &List) -> Option<String> {
    list.simple_commands()
        .into_iter()
        .find_map(readiness_endpoint)
}

fn readiness_endpoint(command: &SimpleCommand) -> Option<String> {
    if !matches!(command.name(), Some("curl" | "wget" | "nc" | "http")) {
        return None;
    }
    command.argv().iter().find_map(|word| {
        READINESS_ENDPOINTS
            .iter()
            .find(|endpoint| word.0.contains(*endpoint))
            .map(|_| word.0.clone())
    })
}

fn is_retrying_fetch(command: &SimpleCommand) -> bool {
    command
        .argv()
        .iter()
        .any(|w| w.0.starts_with("--retry") || w.0.starts_with("--tries") || w.0 == "-t")
}

/// A call in a Job's command that asks a sidecar to stop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopCall {
    /// What it addresses.
    pub target: StopTarget,
    /// The call as written.
    pub text: String,
    /// The HTTP method it uses, when it is an HTTP call.
    pub method: Option<HttpMethod>,
    /// How the work's exit status survives the call.
    pub status: super::plan::ExitStatus,
    /// The `exec` that replaces the shell before it gets to the call (the call comes
    /// after it, or is an EXIT trap, which a replaced shell never runs).
    pub replaced_by: Option<String>,
}

/// HTTP methods that matter to stop endpoints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HttpMethod {
    /// curl's and wget's default.
    Get,
    /// `curl -X POST`, `curl -d`, `wget --post-data`.
    Post,
}

/// What a stop call addresses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopTarget {
    /// An HTTP endpoint on localhost.
    Http {
        /// The port.
        port: u16,
        /// The request path (`/quitquitquit`).
        path: String,
    },
    /// `linkerd-await --shutdown`.
    LinkerdAwait,
    /// `cloud-sql-proxy shutdown`.
    CloudSqlShutdown,

    /// A signal to a process.
    Signal {
        /// The process name `pkill`/`killall` match, or what `kill` targets.
        process: String,
    },
    /// A declared wrapper command.
    Wrapper {
        /// The wrapper's name.
        command: String,
    },
}

/// Finds the calls in `argv` (a container's command and args) that stop sidecars,
/// with how each keeps the work's exit status. `wrappers` are commands users declared as
/// stopping the sidecar.
pub fn stop_calls(argv: &[String], wrappers: &[String]) -> Vec<StopCall> {
    let errexit = shell_errexit(argv);
    let list = shell::parse_argv(argv);
    let functions = functions(&list);
    let Some((at, exec)) = replacing_exec(&list) else {
        let mut calls = Vec::new();
        scan_list(&list, wrappers, &functions, errexit, None, &mut calls);
        return calls;
    };
    // `exec` replaces the shell (docs/lifecycle.md §7 F19): the calls after it are
    // never made, and the shell's EXIT traps never run.
    let reached = List(list.0[..=at].to_vec());
    let mut calls = Vec::new();
    scan_list(
        &reached,
        wrappers,
        &functions,
        errexit,
        Some(&exec),
        &mut calls,
    );
    let mut after = Vec::new();
    let rest = List(list.0[at + 1..].to_vec());
    scan_list(&rest, wrappers, &functions, errexit, None, &mut after);
    calls.extend(after.into_iter().map(|call| StopCall {
        replaced_by: Some(exec.clone()),
        ..call
    }));
    calls
}

/// The first top-level `exec COMMAND` that runs (not in the background, nor after `||`),
/// and its text: from there on the shell is gone. `exec` with only redirections keeps
/// the shell.
fn replacing_exec(list: &List) -> Option<(usize, String)> {
    list.0.iter().enumerate().find_map(|(index, item)| {
        if item.background {
            return None;
        }
        let reached = std::iter::once(&item.first).chain(
            item.rest
                .iter()
                .take_while(|(connector, _)| *connector == Connector::And)
                .map(|(_, pipeline)| pipeline),
        );
        reached
            .flat_map(|pipeline| pipeline.commands.first())
            .find_map(|command| match command {
                Command::Simple(simple)
                    if simple.words.first().map(|w| shell::basename(&w.0)) == Some("exec")
                        && !simple.argv().is_empty() =>
                {
                    Some((index, simple.text()))
                }
                _ => None,
            })
    })
}

/// `sh -e`/`-ec`/`bash -euo pipefail -c`: the script stops at the first failure.
fn shell_errexit(argv: &[String]) -> bool {
    shell::shell_script(argv).is_some()
        && argv
            .iter()
            .skip(1)
            .take_while(|w| w.starts_with('-'))
            .any(|flag| !flag.starts_with("--") && flag.contains('e'))
}

fn functions(list: &List) -> BTreeMap<String, List> {
    let mut found = BTreeMap::new();
    for item in &list.0 {
        for command in &item.first.commands {
            if let Command::Function { name, body } = command {
                let body = match body.as_ref() {
                    Command::Group(list) => list.clone(),
                    other => List(vec![AndOr {
                        first: shell::Pipeline {
                            negated: false,
                            commands: vec![other.clone()],
                        },
                        rest: Vec::new(),
                        background: false,
                    }]),
                };
                found.insert(name.clone(), body);
            }
        }
    }
    found
}

/// Finds the stop calls of `list`. `exec`: the `exec` that will replace this shell,
/// which its traps then never run.
fn scan_list(
    list: &List,
    wrappers: &[String],
    functions: &BTreeMap<String, List>,
    mut errexit: bool,
    exec: Option<&String>,
    calls: &mut Vec<StopCall>,
) {
    use super::plan::ExitStatus;
    for (index, item) in list.0.iter().enumerate() {
        let chain: Vec<(Option<Connector>, &shell::Pipeline)> =
            std::iter::once((None, &item.first))
                .chain(item.rest.iter().map(|(c, p)| (Some(*c), p)))
                .collect();
        for (position, (connector, pipeline)) in chain.iter().enumerate() {
            for command in &pipeline.commands {
                let Command::Simple(simple) = command else {
                    if let Command::Group(inner) = command {
                        scan_list(inner, wrappers, functions, errexit, exec, calls);
                    }
                    continue;
                };
                if simple.name() == Some("set")
                    && simple
                        .argv()
                        .iter()
                        .any(|w| w.0.starts_with('-') && w.0.contains('e'))
                {
                    errexit = true;
                }
                if simple.name() == Some("trap") {
                    for handler in trap_handlers(simple, functions) {
                        let mut inner = Vec::new();
                        scan_list(&handler, wrappers, functions, false, None, &mut inner);
                        calls.extend(inner.into_iter().map(|call| StopCall {
                            status: ExitStatus::Kept,
                            replaced_by: exec.cloned(),
                            ..call
                        }));
                    }
                    continue;
                }
                let mut found = classify_call(simple, wrappers);
                if found.is_none()
                    && let Some(body) = simple.name().and_then(|name| functions.get(name))
                {
                    // A function that stops the sidecar, called here.
                    let mut inner = Vec::new();
                    scan_list(body, wrappers, functions, false, None, &mut inner);
                    found = inner
                        .into_iter()
                        .next()
                        .map(|call| (call.target, call.method));
                }
                let Some((target, method)) = found else {
                    continue;
                };
                let status = if matches!(
                    target,
                    StopTarget::LinkerdAwait | StopTarget::Wrapper { .. }
                ) && simple.argv().len() > 1
                {
                    // The wrapper runs the work as its child and returns its status.
                    ExitStatus::Kept
                } else {
                    status_at(list, index, &chain, position, *connector, errexit)
                };
                calls.push(StopCall {
                    target,
                    text: simple.text(),
                    method,
                    status,
                    replaced_by: None,
                });
            }
        }
    }
}

/// How the work's status fares when the stop call sits at `position` of the and-or
/// chain of item `index`.
fn status_at(
    list: &List,
    index: usize,
    chain: &[(Option<Connector>, &shell::Pipeline)],
    position: usize,
    connector: Option<Connector>,
    errexit: bool,
) -> super::plan::ExitStatus {
    use super::plan::ExitStatus;
    match connector {
        Some(Connector::And) => {
            // `work && stop || (stop; exit 1)` stops on both paths.
            let also_on_failure = chain[position + 1..]
                .iter()
                .any(|(c, _)| *c == Some(Connector::Or));
            if also_on_failure {
                ExitStatus::Kept
            } else {
                ExitStatus::HangsOnFailure
            }
        }
        Some(Connector::Or) => ExitStatus::SkippedOnSuccess,
        None => {
            if index == 0 {
                // Stopping the sidecar first leaves any work after it without the proxy.
                return if does_work_after(list, index) {
                    ExitStatus::BeforeWork
                } else {
                    ExitStatus::Kept
                };
            }
            // Under `set -e` a failing work exits before its status can be saved.
            if errexit {
                ExitStatus::HangsOnFailure
            } else if saves_status_and_exits_with_it(list, index) {
                ExitStatus::Kept
            } else {
                ExitStatus::LostOnFailure
            }
        }
    }
}

/// Whether real work follows item `index` (anything but `exit`, `echo` and the like).
fn does_work_after(list: &List, index: usize) -> bool {
    list.0[index + 1..].iter().any(|item| {
        item.first.commands.iter().any(|command| match command {
            Command::Simple(simple) => !matches!(
                simple.name(),
                Some("exit" | "echo" | "printf" | "true" | ":") | None
            ),
            _ => true,
        })
    })
}

/// `work; rc=$?; stop; exit $rc`.
fn saves_status_and_exits_with_it(list: &List, stop_index: usize) -> bool {
    let saved: Vec<String> = list.0[..stop_index]
        .iter()
        .flat_map(|item| item.first.commands.iter())
        .filter_map(|command| match command {
            Command::Simple(simple) => Some(simple),
            _ => None,
        })
        .flat_map(|simple| {
            let mut names: Vec<String> = simple
                .assignments
                .iter()
                .filter(|(_, value)| value == "$?")
                .map(|(name, _)| name.clone())
                .collect();
            // `export rc=$?`, `local rc=$?`, `readonly rc=$?`.
            if matches!(
                simple.name(),
                Some("export" | "local" | "readonly" | "declare")
            ) {
                names.extend(
                    simple.argv()[1..]
                        .iter()
                        .filter_map(|w| w.0.strip_suffix("=$?").map(str::to_owned)),
                );
            }
            names
        })
        .collect();
    if saved.is_empty() {
        return false;
    }
    list.0[stop_index..].iter().any(|item| {
        item.first.commands.iter().any(|command| match command {
            Command::Simple(simple) if simple.name() == Some("exit") => {
                simple.argv().get(1).is_some_and(|arg| {
                    saved
                        .iter()
                        .any(|name| arg.0 == format!("${name}") || arg.0 == format!("${{{name}}}"))
                })
            }
            _ => false,
        })
    })
}

/// The scripts a `trap` runs on exit (`trap 'curl …' EXIT`, `trap quit EXIT TERM`).
fn trap_handlers(trap: &SimpleCommand, functions: &BTreeMap<String, List>) -> Vec<List> {
    let argv = trap.argv();
    let Some(handler) = argv.get(1) else {
        return Vec::new();
    };
    let on_exit = argv[2..].iter().any(|signal| {
        matches!(
            signal.0.as_str(),
            "EXIT" | "0" | "SIGEXIT" | "TERM" | "SIGTERM" | "INT"
        )
    });
    if !on_exit {
        return Vec::new();
    }
    match functions.get(handler.0.trim()) {
        Some(body) => vec![body.clone()],
        None => vec![shell::parse(&handler.0)],
    }
}

/// Recognises one command as a stop call.
fn classify_call(
    command: &SimpleCommand,
    wrappers: &[String],
) -> Option<(StopTarget, Option<HttpMethod>)> {
    let name = command.name()?;
    let argv = command.argv();
    if wrappers.iter().any(|w| shell::basename(w) == name) {
        return Some((
            StopTarget::Wrapper {
                command: name.to_owned(),
            },
            None,
        ));
    }
    match name {
        "curl" | "wget" | "http" => {
            let (port, path) = argv.iter().find_map(|w| localhost_url(&w.0))?;
            if !is_stop_path(&path) {
                return None;
            }
            Some((StopTarget::Http { port, path }, Some(http_method(command))))
        }
        "linkerd-await" if argv.iter().any(|w| w.0 == "--shutdown" || w.0 == "-S") => {
            Some((StopTarget::LinkerdAwait, None))
        }
        "cloud-sql-proxy" if argv.get(1).is_some_and(|w| w.0 == "shutdown") => {
            Some((StopTarget::CloudSqlShutdown, None))
        }
        "pilot-agent"
            if argv.iter().any(|w| w.0 == "request")
                && argv.iter().any(|w| w.0.contains("quitquitquit")) =>
        {
            // `pilot-agent request` talks to Envoy's admin port unless told otherwise.
            let port = argv
                .iter()
                .enumerate()
                .find_map(|(i, w)| {
                    w.0.strip_prefix("--debug-port=")
                        .map(str::to_owned)
                        .or_else(|| {
                            (w.0 == "--debug-port")
                                .then(|| argv.get(i + 1).map(|p| p.0.clone()))
                                .flatten()
                        })
                })
                .and_then(|p| p.parse().ok())
                .unwrap_or(15000);
            Some((
                StopTarget::Http {
                    port,
                    path: "/quitquitquit".into(),
                },
                Some(HttpMethod::Post),
            ))
        }
        "kill" | "pkill" | "killall" => {
            let target = argv[1..]
                .iter()
                .filter(|w| !w.0.starts_with('-'))
                .map(|w| w.0.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            let lower = target.to_lowercase();
            const PROXIES: [&str; 6] = [
                "envoy",
                "pilot-agent",
                "linkerd",
                "cloud-sql-proxy",
                "cloud_sql_proxy",
                "proxy",
            ];
            PROXIES
                .iter()
                .any(|p| lower.contains(p))
                .then_some((StopTarget::Signal { process: target }, None))
        }
        _ => None,
    }
}

fn is_stop_path(path: &str) -> bool {
    let path = path.split('?').next().unwrap_or(path);
    path.ends_with("/quitquitquit")
        || path.ends_with("/shutdown")
        || path.ends_with("/agent/v1/quit")
}

/// `http://localhost:15020/quitquitquit`, `127.0.0.1:4191/shutdown` → port and path.
fn localhost_url(word: &str) -> Option<(u16, String)> {
    let rest = word
        .strip_prefix("http://")
        .or_else(|| word.strip_prefix("https://"))
        .unwrap_or(word);
    let (host_port, path) = rest.split_once('/')?;
    let (host, port) = host_port.rsplit_once(':')?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if !matches!(host, "localhost" | "127.0.0.1" | "::1" | "0.0.0.0" | "") {
        return None;
    }
    Some((port.parse().ok()?, format!("/{path}")))
}

fn http_method(command: &SimpleCommand) -> HttpMethod {
    let argv = command.argv();
    let mut words = argv.iter().map(|w| w.0.as_str()).peekable();
    let mut method = HttpMethod::Get;
    while let Some(word) = words.next() {
        let explicit = match word {
            "-X" | "--request" | "--method" => words.peek().copied(),
            _ => word
                .strip_prefix("-X")
                .filter(|m| !m.is_empty())
                .or_else(|| word.strip_prefix("--request="))
                .or_else(|| word.strip_prefix("--method=")),
        };
        if let Some(explicit) = explicit {
            return if explicit.eq_ignore_ascii_case("POST") {
                HttpMethod::Post
            } else {
                HttpMethod::Get
            };
        }
        if word == "-d"
            || word.starts_with("--data")
            || word.starts_with("--post-data")
            || word.starts_with("--post-file")
            || word.starts_with("-F")
            || word == "--form"
            || word == "--json"
            || word == "POST"
        {
            method = HttpMethod::Post;
        }
    }
    method
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::plan::ExitStatus;

    fn argv(script: &str) -> Vec<String> {
        vec!["/bin/sh".into(), "-c".into(), script.into()]
    }

    fn length_of(script: &str) -> Length {
        let mut env = Env::new();
        env.insert("DELAY".into(), "7".into());
        length(&shell::parse(script), &env)
    }

    #[test]
    fn sleep_spellings() {
        let known = |secs: f64| Length::Known {
            total: Millis((secs * 1000.0) as i64),
            unknown_parts: 0,
        };
        assert_eq!(length_of("sleep 5"), known(5.0));
        assert_eq!(length_of("sleep 5s"), known(5.0));
        assert_eq!(length_of("sleep 0.5"), known(0.5));
        assert_eq!(length_of("sleep 1m"), known(60.0));
        assert_eq!(length_of("sleep 1m 30s"), known(90.0));
        assert_eq!(length_of("/bin/sleep 3 && sleep 2"), known(5.0));
        assert_eq!(length_of("exec sleep $DELAY"), known(7.0));
        assert_eq!(length_of("sleep ${GRACE:-12}"), known(12.0));
        assert_eq!(length_of("echo bye; sleep 4"), known(4.0));
        assert_eq!(length_of("sleep infinity"), Length::Forever);
    }

    #[test]
    fn unknown_commands_are_counted() {
        assert_eq!(
            length_of("sleep 5; /app/drain"),
            Length::Known {
                total: Millis::secs(5),
                unknown_parts: 1
            }
        );
        assert_eq!(length_of("/app/drain"), Length::Unknown);
        assert_eq!(length_of("sleep $UNSET"), Length::Unknown);
    }

    #[test]
    fn loops_that_wait_for_connections_or_processes() {
        assert_eq!(
            length_of(
                "while [ $(netstat -plunt | grep tcp | grep -v envoy | wc -l) -ne 0 ]; do sleep 1; done"
            ),
            Length::WaitsForExit
        );
        assert_eq!(
            length_of("nginx -s quit; while killall -0 nginx; do sleep 1; done"),
            Length::WaitsForExit
        );
        assert_eq!(length_of("while true; do date; done"), Length::Unknown);
    }

    #[test]
    fn start_gates_in_app_commands() {
        let gate = |script: &str| start_gate(&shell::parse(script));
        assert!(
            gate(
                "until curl -fsI http://localhost:15021/healthz/ready; do sleep 1; done; exec /app"
            )
            .is_some()
        );
        assert!(
            gate("while ! wget -q -O- localhost:15000/ready; do sleep 1; done\n/app").is_some()
        );
        assert!(gate("linkerd-await -- /app").is_some());
        assert!(gate("curl --retry 30 --retry-connrefused http://127.0.0.1:15020/healthz/ready && exec /app").is_some());
        assert!(gate("/app; until curl localhost:15021/healthz/ready; do sleep 1; done").is_none());
        assert!(gate("exec /app").is_none());
    }

    #[test]
    fn stop_calls_and_exit_status() {
        let status = |script: &str| {
            let calls = stop_calls(&argv(script), &[]);
            assert_eq!(calls.len(), 1, "{script}: {calls:?}");
            calls[0].status
        };
        assert_eq!(
            status("./work; curl -X POST localhost:15020/quitquitquit"),
            ExitStatus::LostOnFailure
        );
        assert_eq!(
            status("./work && curl -X POST localhost:15020/quitquitquit"),
            ExitStatus::HangsOnFailure
        );
        assert_eq!(
            status("./work || curl -X POST localhost:15020/quitquitquit"),
            ExitStatus::SkippedOnSuccess
        );
        assert_eq!(
            status(
                "./work; rc=$?; curl -fsI -X POST http://localhost:15020/quitquitquit; exit $rc"
            ),
            ExitStatus::Kept
        );
        assert_eq!(
            status("trap 'curl -X POST localhost:15020/quitquitquit' EXIT\n./work"),
            ExitStatus::Kept
        );
        assert_eq!(
            status("set -e\n./work\ncurl -X POST localhost:15020/quitquitquit"),
            ExitStatus::HangsOnFailure
        );
        let calls = stop_calls(
            &[
                "linkerd-await".into(),
                "--shutdown".into(),
                "--".into(),
                "./work".into(),
            ],
            &[],
        );
        assert_eq!(calls[0].target, StopTarget::LinkerdAwait);
        assert_eq!(calls[0].status, ExitStatus::Kept);
    }

    #[test]
    fn stop_calls_through_functions_and_both_branches() {
        let calls = stop_calls(
            &argv(
                "quit() { curl -sf -XPOST http://127.0.0.1:15020/quitquitquit; }\ntrap quit EXIT\n./work",
            ),
            &[],
        );
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].status, ExitStatus::Kept);
        let calls = stop_calls(
            &argv(
                "./work && curl -X POST localhost:15020/quitquitquit || (curl -X POST localhost:15020/quitquitquit; exit 1)",
            ),
            &[],
        );
        assert_eq!(calls[0].status, ExitStatus::Kept);
    }

    #[test]
    fn http_methods() {
        let method = |script: &str| stop_calls(&argv(script), &[])[0].method;
        assert_eq!(
            method("curl localhost:15020/quitquitquit"),
            Some(HttpMethod::Get)
        );
        assert_eq!(
            method("curl -fsI -X POST localhost:15020/quitquitquit"),
            Some(HttpMethod::Post)
        );
        assert_eq!(
            method("wget --post-data '' -O- http://localhost:15020/quitquitquit"),
            Some(HttpMethod::Post)
        );
        assert_eq!(
            method("curl -d '' http://localhost:4191/shutdown"),
            Some(HttpMethod::Post)
        );
    }

    #[test]
    fn signals_and_wrappers() {
        let calls = stop_calls(&argv("./work; pkill -INT envoy"), &[]);
        assert!(matches!(calls[0].target, StopTarget::Signal { .. }));
        let calls = stop_calls(
            &["wait-and-quit-envoy".into(), "./work".into()],
            &["wait-and-quit-envoy".into()],
        );
        assert_eq!(calls[0].status, ExitStatus::Kept);
        assert!(stop_calls(&argv("./work; curl https://example.com/shutdown"), &[]).is_empty());
    }
}

/// Commands that talk to the network: HTTP clients, database and queue clients,
/// migration tools, DNS and socket probes.
const NETWORK_CLIENTS: [&str; 38] = [
    "curl",
    "wget",
    "nc",
    "ncat",
    "netcat",
    "telnet",
    "socat",
    "http",
    "grpcurl",
    "psql",
    "pg_isready",
    "pg_dump",
    "pg_restore",
    "mysql",
    "mysqladmin",
    "mysqldump",
    "mongo",
    "mongosh",
    "mongodump",
    "redis-cli",
    "cqlsh",
    "nslookup",
    "dig",
    "host",
    "ping",
    "git",
    "migrate",
    "flyway",
    "liquibase",
    "alembic",
    "gsutil",
    "aws",
    "gcloud",
    "az",
    "vault",
    "etcdctl",
    "kafka-topics.sh",
    "wait-for-it",
];

/// URL schemes and service ports that show a command reaches the network.
const NETWORK_MARKERS: [&str; 11] = [
    "http://",
    "https://",
    "jdbc:",
    "postgres://",
    "postgresql://",
    "mysql://",
    "mongodb://",
    "redis://",
    "amqp://",
    "nats://",
    "grpc://",
];

/// The first command in `argv` that uses the network, as written, with the ports it
/// shows.
pub fn network_use(argv: &[String]) -> Option<(String, Vec<u16>)> {
    let list = shell::parse_argv(argv);
    list.simple_commands().into_iter().find_map(|command| {
        let name = command.name()?;
        let words = command.argv();
        let is_client = (NETWORK_CLIENTS.contains(&name) && name != "git")
            || (name == "git"
                && words
                    .get(1)
                    .is_some_and(|w| matches!(w.0.as_str(), "clone" | "fetch" | "pull")))
            || (matches!(name, "python" | "python3") && words.iter().any(|w| w.0 == "migrate"))
            || (matches!(name, "rake" | "rails" | "bundle")
                && words.iter().any(|w| w.0.starts_with("db:")));
        let has_marker = words
            .iter()
            .any(|w| NETWORK_MARKERS.iter().any(|marker| w.0.contains(marker)));
        (is_client || has_marker).then(|| (command.text(), ports_of(name, words)))
    })
}

/// The destination ports a network command shows: URL and `host:port` ports, the
/// scheme's default port, a client's port flag or default, `nc host port`.
fn ports_of(name: &str, words: &[Word]) -> Vec<u16> {
    let mut ports: Vec<u16> = words.iter().filter_map(|w| url_port(&w.0)).collect();
    let flag = match name {
        "psql" | "pg_isready" | "pg_dump" | "redis-cli" => Some("-p"),
        "mysql" | "mysqladmin" => Some("-P"),
        _ => None,
    };
    if let Some(flag) = flag {
        let given = words.windows(2).find_map(|pair| {
            (pair[0].0 == flag)
                .then(|| pair[1].0.parse().ok())
                .flatten()
        });
        let default = match name {
            "redis-cli" => 6379,
            "mysql" | "mysqladmin" => 3306,
            _ => 5432,
        };
        ports.push(given.unwrap_or(default));
    }
    if matches!(name, "nc" | "ncat" | "netcat" | "telnet") {
        // `nc [options] host port`: option values (`-w 5`) are not ports.
        ports.extend(words.last().and_then(|w| w.0.parse::<u16>().ok()));
    }
    ports.sort_unstable();
    ports.dedup();
    ports
}

/// The port of a URL (`https://host/…` is 443) or of `host:port`.
fn url_port(word: &str) -> Option<u16> {
    let (scheme, rest) = match word.split_once("://") {
        // `-database=postgres://…`, `jdbc:postgresql://…`: the scheme is the last word.
        Some((before, rest)) => (
            before.rsplit(|c: char| !c.is_ascii_alphanumeric()).next(),
            rest,
        ),
        None => (None, word),
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    let explicit = host_port
        .rsplit_once(':')
        .filter(|(host, _)| !host.is_empty() && !host.ends_with('['))
        .and_then(|(_, port)| port.parse().ok());
    explicit.or(match scheme? {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        "postgres" | "postgresql" => Some(5432),
        "mysql" => Some(3306),
        "mongodb" => Some(27017),
        "redis" => Some(6379),
        "amqp" => Some(5672),
        "nats" => Some(4222),
        _ => None,
    })
}

#[cfg(test)]
mod network_tests {
    use super::*;

    fn uses(script: &str) -> Option<String> {
        network_use(&["sh".into(), "-c".into(), script.into()]).map(|(call, _)| call)
    }

    fn ports(script: &str) -> Vec<u16> {
        network_use(&["sh".into(), "-c".into(), script.into()])
            .map(|(_, ports)| ports)
            .unwrap_or_default()
    }

    #[test]
    fn finds_the_ports_a_call_uses() {
        assert_eq!(ports("until nc -z db 5432; do sleep 1; done"), [5432]);
        assert_eq!(ports("psql -h db -c 'select 1'"), [5432]);
        assert_eq!(ports("mysql -h db -P 3307 -e 'select 1'"), [3307]);
        assert_eq!(
            ports("curl -fsS https://config.example.com/app.json"),
            [443]
        );
        assert_eq!(ports("curl http://user@svc.ns:8080/x"), [8080]);
        assert_eq!(
            ports("migrate -database postgres://u:p@db:6432/app up"),
            [6432]
        );
        assert_eq!(ports("./migrate --jdbc jdbc:postgresql://db/app"), [5432]);
        assert_eq!(ports("migrate -database=postgres://db/app up"), [5432]);
        assert!(ports("aws s3 cp s3://bucket/x /data/x").is_empty());
    }

    #[test]
    fn recognises_network_clients_and_urls() {
        assert!(uses("until nc -z db 5432; do sleep 1; done").is_some());
        assert!(uses("psql -h db -c 'select 1'").is_some());
        assert!(uses("./bin/fetch --from https://config.example.com/app.json").is_some());
        assert!(uses("bundle exec rake db:migrate").is_some());
        assert!(uses("cp /config/a /etc/b; chmod 600 /etc/b").is_none());
        assert!(uses("true").is_none());
        assert!(uses("git config --global x y").is_none());
    }
}
