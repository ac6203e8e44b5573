//! How a Job's command stops its sidecars, and whether the work's exit status survives.
//!
//! Follows the shell's control flow: `&&`/`||` chains, `set -e`, `rc=$?; …; exit $rc`,
//! EXIT traps, functions, and an `exec` that replaces the shell before it gets to a call.

use std::collections::BTreeMap;
use std::ops::Range;

use super::invocation::{self, parse_argv, set_errexit};
use super::parse::parse;
use super::stop_targets::{HttpMethod, Known, StopTarget, classify_call};
use super::syntax::{Command, Connector, List, Pipeline, SimpleCommand, basename};
use crate::resolve::plan::ExitStatus;

/// A call in a Job's command that asks a sidecar to stop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopCall {
    /// What it addresses.
    pub target: StopTarget,
    /// The call as written.
    pub written: String,
    /// The HTTP method it uses, when it is an HTTP call.
    pub method: Option<HttpMethod>,
    /// How the work's exit status survives the call.
    pub status: ExitStatus,
    /// The `exec` that replaces the shell before it gets to the call (the call comes
    /// after it, or is an EXIT trap, which a replaced shell never runs).
    pub replaced_by: Option<String>,
    /// Where the call is written in the script (byte offsets in the `sh -c` argument),
    /// when it is a pipeline of its own at the script's top level, not in the
    /// background: the place a fix can take it from ([`super::trap_stop_call`]).
    pub span: Option<Range<usize>>,
}

/// Finds the calls in `argv` (a container's command and args) that stop sidecars,
/// with how each keeps the work's exit status. `known` holds the wrappers users
/// declared as stopping the sidecar and the sidecars' own words.
pub fn stop_calls(argv: &[String], known: Known) -> Vec<StopCall> {
    let list = parse_argv(argv);
    let mut calls = scan(argv, &list, known);
    let top_level: Vec<&Range<usize>> = list
        .0
        .iter()
        .filter(|item| !item.background)
        .flat_map(|item| std::iter::once(&item.first).chain(item.rest.iter().map(|(_, p)| p)))
        .filter_map(|pipeline| match pipeline.commands.as_slice() {
            [Command::Simple(simple)] if !pipeline.negated && !simple.span.is_empty() => {
                Some(&simple.span)
            }
            _ => None,
        })
        .collect();
    for call in &mut calls {
        if call
            .span
            .as_ref()
            .is_some_and(|span| !top_level.contains(&span))
        {
            call.span = None;
        }
    }
    calls
}

/// The stop calls of `list`, `argv` read.
fn scan(argv: &[String], list: &List, known: Known) -> Vec<StopCall> {
    let errexit = invocation::errexit(argv);
    let functions = functions(list);
    let Some((at, exec)) = replacing_exec(list) else {
        let mut calls = Vec::new();
        scan_list(list, known, &functions, errexit, None, &mut calls);
        return calls;
    };
    // `exec` replaces the shell (docs/lifecycle.md §7 F19): the calls after it are
    // never made, and the shell's EXIT traps never run.
    let reached = List(list.0[..=at].to_vec());
    let mut calls = Vec::new();
    scan_list(
        &reached,
        known,
        &functions,
        errexit,
        Some(&exec),
        &mut calls,
    );
    let mut after = Vec::new();
    let rest = List(list.0[at + 1..].to_vec());
    scan_list(&rest, known, &functions, errexit, None, &mut after);
    calls.extend(after.into_iter().map(|call| StopCall {
        replaced_by: Some(exec.clone()),
        ..call
    }));
    calls
}

/// The first top-level `exec COMMAND` that runs (not in the background, nor after `||`),
/// and its text: from there on the shell is gone. `exec` with only redirections keeps
/// the shell.
pub(super) fn replacing_exec(list: &List) -> Option<(usize, String)> {
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
                    if simple.words.first().map(|w| basename(&w.0)) == Some("exec")
                        && !simple.argv().is_empty() =>
                {
                    Some((index, simple.text()))
                }
                _ => None,
            })
    })
}

fn functions(list: &List) -> BTreeMap<String, List> {
    let mut found = BTreeMap::new();
    for item in &list.0 {
        for command in &item.first.commands {
            if let Command::Function { name, body } = command {
                let body = match body.as_ref() {
                    Command::Group(list) => list.clone(),
                    other => List::of(other.clone()),
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
    known: Known,
    functions: &BTreeMap<String, List>,
    mut errexit: bool,
    exec: Option<&String>,
    calls: &mut Vec<StopCall>,
) {
    // The errexit in force when the last command before a stop call ran: the work's
    // failure ends the shell there, whatever a later `set +e` says.
    let mut work_errexit = errexit;
    for (index, item) in list.0.iter().enumerate() {
        let chain: Vec<(Option<Connector>, &Pipeline)> = std::iter::once((None, &item.first))
            .chain(item.rest.iter().map(|(c, p)| (Some(*c), p)))
            .collect();
        for (position, (connector, pipeline)) in chain.iter().enumerate() {
            for command in &pipeline.commands {
                let Command::Simple(simple) = command else {
                    if let Command::Group(inner) = command {
                        scan_list(inner, known, functions, errexit, exec, calls);
                    }
                    continue;
                };
                if let Some(on) = set_errexit(simple) {
                    errexit = on;
                    continue;
                }
                if simple.name() == Some("trap") {
                    for handler in trap_handlers(simple, functions) {
                        let mut inner = Vec::new();
                        scan_list(&handler, known, functions, false, None, &mut inner);
                        calls.extend(inner.into_iter().map(|call| StopCall {
                            status: ExitStatus::Kept,
                            replaced_by: exec.cloned(),
                            // Written in the trap's argument, not in the script.
                            span: None,
                            ..call
                        }));
                    }
                    continue;
                }
                let mut found = classify_call(simple, known);
                if found.is_none()
                    && let Some(body) = simple.name().and_then(|name| functions.get(name))
                {
                    // A function that stops the sidecar, called here.
                    let mut inner = Vec::new();
                    scan_list(body, known, functions, false, None, &mut inner);
                    found = inner
                        .into_iter()
                        .next()
                        .map(|call| (call.target, call.method));
                }
                let Some((target, method)) = found else {
                    work_errexit = errexit;
                    continue;
                };
                let status = if matches!(
                    target,
                    StopTarget::Command {
                        runs_work: true,
                        ..
                    } | StopTarget::Wrapper { .. }
                ) && simple.argv().len() > 1
                {
                    // The wrapper runs the work as its child and returns its status.
                    ExitStatus::Kept
                } else {
                    status_at(list, index, &chain, position, *connector, work_errexit)
                };
                calls.push(StopCall {
                    target,
                    written: simple.text(),
                    method,
                    status,
                    replaced_by: None,
                    span: Some(simple.span.clone()),
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
    chain: &[(Option<Connector>, &Pipeline)],
    position: usize,
    connector: Option<Connector>,
    errexit: bool,
) -> ExitStatus {
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
        None => vec![parse(&handler.0)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The standard sidecars' words and `wrappers`.
    fn known(wrappers: &[String]) -> Known<'_> {
        Known {
            wrappers,
            lexicon: &crate::resolve::Registry::standard().lexicon,
        }
    }

    fn argv(script: &str) -> Vec<String> {
        vec!["/bin/sh".into(), "-c".into(), script.into()]
    }

    #[test]
    fn stop_calls_and_exit_status() {
        let status = |script: &str| {
            let calls = stop_calls(&argv(script), known(&[]));
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
        assert_eq!(
            status("set -o errexit\n./work\ncurl -X POST localhost:15020/quitquitquit"),
            ExitStatus::HangsOnFailure
        );
        // `set +e` before the work lets a failing work reach the call; after it, the
        // shell has already exited.
        assert_eq!(
            status("set -e\nsetup\nset +e\n./work\ncurl -X POST localhost:15020/quitquitquit"),
            ExitStatus::LostOnFailure
        );
        assert_eq!(
            status("set -e\n./work\nset +e\ncurl -X POST localhost:15020/quitquitquit"),
            ExitStatus::HangsOnFailure
        );
        assert_eq!(
            status(
                "set -e; ./work; rc=$?; set +e; curl -X POST localhost:15020/quitquitquit; exit $rc"
            ),
            ExitStatus::HangsOnFailure
        );
        // The shell's own flags, `-o` with its option among them, read the same way.
        let started = |flags: &[&str], script: &str| {
            let argv: Vec<String> = std::iter::once("bash")
                .chain(flags.iter().copied())
                .chain(["-c", script])
                .map(String::from)
                .collect();
            let calls = stop_calls(&argv, known(&[]));
            assert_eq!(calls.len(), 1, "{flags:?} {script}: {calls:?}");
            calls[0].status
        };
        assert_eq!(
            started(
                &["-euo", "pipefail"],
                "./work\ncurl -X POST localhost:15020/quitquitquit"
            ),
            ExitStatus::HangsOnFailure
        );
        assert_eq!(
            started(
                &["-euo", "pipefail"],
                "trap 'curl -X POST localhost:15020/quitquitquit' EXIT\n./work"
            ),
            ExitStatus::Kept
        );
        assert_eq!(
            started(
                &["-o", "pipefail"],
                "./work\ncurl -X POST localhost:15020/quitquitquit"
            ),
            ExitStatus::LostOnFailure
        );
        let calls = stop_calls(
            &[
                "linkerd-await".into(),
                "--shutdown".into(),
                "--".into(),
                "./work".into(),
            ],
            known(&[]),
        );
        assert_eq!(
            calls[0].target,
            StopTarget::Command {
                program: "linkerd-await",
                runs_work: true
            }
        );
        assert_eq!(calls[0].status, ExitStatus::Kept);
    }

    #[test]
    fn stop_calls_through_functions_and_both_branches() {
        let calls = stop_calls(
            &argv(
                "quit() { curl -sf -XPOST http://127.0.0.1:15020/quitquitquit; }\ntrap quit EXIT\n./work",
            ),
            known(&[]),
        );
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].status, ExitStatus::Kept);
        let calls = stop_calls(
            &argv(
                "./work && curl -X POST localhost:15020/quitquitquit || (curl -X POST localhost:15020/quitquitquit; exit 1)",
            ),
            known(&[]),
        );
        assert_eq!(calls[0].status, ExitStatus::Kept);
    }

    #[test]
    fn signals_and_wrappers() {
        let calls = stop_calls(&argv("./work; pkill -INT envoy"), known(&[]));
        assert!(matches!(calls[0].target, StopTarget::Signal { .. }));
        let calls = stop_calls(
            &["wait-and-quit-envoy".into(), "./work".into()],
            known(&["wait-and-quit-envoy".into()]),
        );
        assert_eq!(calls[0].status, ExitStatus::Kept);
        assert!(
            stop_calls(
                &argv("./work; curl https://example.com/shutdown"),
                known(&[])
            )
            .is_empty()
        );
    }
}
