//! Whether a Job's sidecar stops itself: its own script waits for a signal the work
//! leaves (a file appearing, a process ending) and then exits.
//!
//! The shapes read are the ones real Jobs use: a loop on a file test
//! (`while [ ! -f /shared/done ]; do sleep 1; done`, `until test -e …`), an endless loop
//! that leaves or kills once the file is there (`while true; do [ -f … ] && break; …`,
//! also in the background before `wait`), `inotifywait` on the file or its directory,
//! and a loop on the work's process (`while pgrep -f migrate; do sleep 1; done`). The
//! wait counts only when the script gets to it: whatever runs before it in the
//! foreground must end by itself (the proxy itself runs in the background, `proxy &`).

use super::hook_length::is_noop;
use super::syntax::{AndOr, Command, Connector, List, LoopKind, SimpleCommand};

/// What a sidecar's script waits for before it exits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Awaited {
    /// A path appearing: a file, or for `inotifywait` a file or a directory, as written.
    File(String),
    /// No process matching this name or pattern any more (`pgrep`, `pidof`).
    ProcessGone(String),
}

/// A sidecar's wait for the work's signal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelfStopWait {
    /// What it waits for.
    pub awaited: Awaited,
    /// The waiting command as written, shortened to what waits (`until … /done`).
    pub written: String,
}

/// The signal `list` (a sidecar's script) waits for before it ends, if it does.
pub fn awaited_signal(list: &List) -> Option<SelfStopWait> {
    for (index, item) in list.0.iter().enumerate() {
        if item.background {
            // `( while true; do [ -f F ] && kill $PID; sleep 1; done ) & wait $PID`.
            let waits_after = list.0[index + 1..]
                .iter()
                .any(|later| !later.background && first_name(later) == Some("wait"));
            if waits_after && let Some(found) = wait_in(item, true) {
                return Some(found);
            }
            continue;
        }
        if let Some(found) = wait_in(item, false) {
            return Some(found);
        }
        if !ends_by_itself(item) {
            return None;
        }
    }
    None
}

/// The wait of one top-level item. `killing`: an endless loop that kills (the proxy it
/// started) counts as the end too, as in a background watcher.
fn wait_in(item: &AndOr, killing: bool) -> Option<SelfStopWait> {
    item.pipelines()
        .flat_map(|pipeline| &pipeline.commands)
        .find_map(|command| match command {
            Command::Loop {
                kind,
                condition,
                body,
            } => loop_wait(*kind, condition, body, killing),
            Command::Group(inner) => inner.0.iter().find_map(|item| wait_in(item, killing)),
            Command::Simple(simple) if simple.name() == Some("inotifywait") => {
                let path = simple.argv()[1..]
                    .iter()
                    .rev()
                    .find(|w| !w.0.starts_with('-') && w.0.starts_with('/'))?;
                Some(SelfStopWait {
                    awaited: Awaited::File(path.0.clone()),
                    written: simple.text(),
                })
            }
            _ => None,
        })
}

/// `while [ ! -f F ]`, `until [ -f F ]`, `while pgrep X`: the condition holds the loop
/// until the signal; `while true; do [ -f F ] && break; done`: the body leaves on it.
fn loop_wait(kind: LoopKind, condition: &List, body: &List, killing: bool) -> Option<SelfStopWait> {
    let written = |awaited: &str| match kind {
        LoopKind::While => format!("while … {awaited}"),
        LoopKind::Until => format!("until … {awaited}"),
    };
    if let Some((present, path)) = file_test(condition) {
        // The loop runs while the condition holds: `while` absent, `until` present.
        if present == (kind == LoopKind::Until) {
            return Some(SelfStopWait {
                written: written(&path),
                awaited: Awaited::File(path),
            });
        }
        return None;
    }
    if let Some((running, process)) = process_test(condition) {
        if running == (kind == LoopKind::While) {
            return Some(SelfStopWait {
                written: written(&process),
                awaited: Awaited::ProcessGone(process),
            });
        }
        return None;
    }
    let endless = kind == LoopKind::While
        && condition
            .simple_commands()
            .iter()
            .all(|c| matches!(c.name(), Some("true" | ":")));
    if !endless {
        return None;
    }
    leaves_on_file(body, killing).map(|path| SelfStopWait {
        written: format!("while true … [ -f {path} ]"),
        awaited: Awaited::File(path),
    })
}

/// The file whose presence makes the loop body leave (`break`, `exit`, or with
/// `killing` a `kill`): `[ -f F ] && break`, `if [ -f F ]; then exit 0; fi`.
fn leaves_on_file(body: &List, killing: bool) -> Option<String> {
    let leaves = |list: &List| {
        list.simple_commands().iter().any(|c| {
            matches!(c.name(), Some("break" | "exit" | "return"))
                || (killing && matches!(c.name(), Some("kill" | "pkill" | "killall")))
        })
    };
    body.0.iter().find_map(|item| {
        if let Some((Connector::And, then)) = item.rest.first() {
            let condition = List(vec![AndOr {
                first: item.first.clone(),
                rest: Vec::new(),
                background: false,
            }]);
            let then = List(vec![AndOr {
                first: then.clone(),
                rest: item.rest[1..].to_vec(),
                background: false,
            }]);
            if let Some((true, path)) = file_test(&condition)
                && leaves(&then)
            {
                return Some(path);
            }
        }
        item.first
            .commands
            .iter()
            .find_map(|command| match command {
                Command::If { branches, .. } => {
                    branches
                        .iter()
                        .find_map(|(condition, then)| match file_test(condition) {
                            Some((true, path)) if leaves(then) => Some(path),
                            _ => None,
                        })
                }
                _ => None,
            })
    })
}

/// A condition that tests a path: whether it holds when the path exists, and the path
/// (`[ -f F ]`, `[[ -e F ]]`, `test -s F`, `! [ -f F ]`, `[ ! -f F ]`).
fn file_test(condition: &List) -> Option<(bool, String)> {
    let (negated, command) = single_command(condition)?;
    if !matches!(command.name(), Some("[" | "[[" | "test")) {
        return None;
    }
    let mut words: Vec<&str> = command.argv()[1..]
        .iter()
        .map(|w| w.0.as_str())
        .filter(|w| !matches!(*w, "]" | "]]"))
        .collect();
    let mut present = !negated;
    if words.first() == Some(&"!") {
        present = !present;
        words.remove(0);
    }
    match words.as_slice() {
        [flag, path] if matches!(*flag, "-f" | "-e" | "-s" | "-r" | "-d") => {
            Some((present, (*path).to_owned()))
        }
        _ => None,
    }
}

/// A condition that finds a process: whether it holds while the process runs, and the
/// name or pattern looked for (`pgrep -f migrate`, `pidof app`, `! pgrep app`).
fn process_test(condition: &List) -> Option<(bool, String)> {
    let (negated, command) = single_command(condition)?;
    let argv = command.argv();
    let probe = match command.name()? {
        "pgrep" | "pidof" => true,
        "pkill" | "killall" => argv.iter().any(|w| w.0 == "-0"),
        _ => false,
    };
    if !probe {
        return None;
    }
    let target = argv[1..].iter().rev().find(|w| !w.0.starts_with('-'))?;
    Some((!negated, target.0.clone()))
}

/// The one simple command of a condition, and whether it is negated (`! cmd`).
fn single_command(condition: &List) -> Option<(bool, &SimpleCommand)> {
    let [item] = condition.0.as_slice() else {
        return None;
    };
    if !item.rest.is_empty() {
        return None;
    }
    match item.first.commands.as_slice() {
        [Command::Simple(simple)] => Some((item.first.negated, simple)),
        _ => None,
    }
}

fn first_name(item: &AndOr) -> Option<&str> {
    match item.first.commands.first()? {
        Command::Simple(simple) => simple.name(),
        _ => None,
    }
}

/// Whether a foreground item before the wait ends by itself: set-up commands
/// (`echo`, `mkdir`, `PID=$!`, a finite `sleep`), not the proxy run in the foreground.
fn ends_by_itself(item: &AndOr) -> bool {
    item.pipelines()
        .flat_map(|pipeline| &pipeline.commands)
        .all(|command| match command {
            Command::Simple(simple) => {
                is_noop(simple)
                    || matches!(
                        simple.name(),
                        Some(
                            "trap"
                                | "mkdir"
                                | "rm"
                                | "cd"
                                | "touch"
                                | "chmod"
                                | "cp"
                                | "ln"
                                | "test"
                                | "["
                                | "sleep"
                        )
                    ) && !simple.argv().iter().any(|w| w.0 == "infinity")
            }
            Command::Function { .. } => true,
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::shell::parse;

    fn awaited(script: &str) -> Option<Awaited> {
        awaited_signal(&parse(script)).map(|wait| wait.awaited)
    }

    fn file(path: &str) -> Option<Awaited> {
        Some(Awaited::File(path.into()))
    }

    #[test]
    fn loops_on_a_file_test() {
        assert_eq!(
            awaited(
                "/cloud_sql_proxy -instances=x & while [ ! -f /shared/done ]; do sleep 1; done; kill %1"
            ),
            file("/shared/done")
        );
        assert_eq!(
            awaited("envoy -c /etc/envoy.yaml &\nuntil [ -f /shared/done ]; do sleep 1; done"),
            file("/shared/done")
        );
        assert_eq!(
            awaited("proxy & while ! test -e /signal/exit; do sleep 2; done"),
            file("/signal/exit")
        );
        assert_eq!(
            awaited("proxy & until [[ -f /tmp/pod/main-terminated ]]; do sleep 1; done; exit 0"),
            file("/tmp/pod/main-terminated")
        );
        // The loop runs while the file is there: it does not wait for it.
        assert_eq!(
            awaited("proxy & while [ -f /shared/done ]; do sleep 1; done"),
            None
        );
    }

    #[test]
    fn endless_loops_that_leave_on_a_file() {
        assert_eq!(
            awaited("proxy & while true; do [ -f /shared/done ] && break; sleep 1; done"),
            file("/shared/done")
        );
        assert_eq!(
            awaited(
                "proxy &\nwhile true; do\n  if [ -f /shared/done ]; then exit 0; fi\n  sleep 1\ndone"
            ),
            file("/shared/done")
        );
        // The watcher in the background kills the proxy the script then waits for.
        assert_eq!(
            awaited(
                "/cloud_sql_proxy -instances=x & CHILD_PID=$!\n(while true; do if [[ -f /tmp/pod/terminated ]]; then kill $CHILD_PID; fi; sleep 1; done) &\nwait $CHILD_PID"
            ),
            file("/tmp/pod/terminated")
        );
        // A loop that only reports the file never leaves.
        assert_eq!(
            awaited("proxy & while true; do [ -f /shared/done ] && echo done; sleep 1; done"),
            None
        );
        // In the foreground, a kill alone does not end the script's loop.
        assert_eq!(
            awaited("proxy & while true; do [ -f /shared/done ] && kill %1; sleep 1; done"),
            None
        );
    }

    #[test]
    fn inotifywait_and_processes() {
        assert_eq!(
            awaited("proxy & inotifywait -e create /shared; kill %1"),
            file("/shared")
        );
        assert_eq!(
            awaited("proxy & while pgrep -f migrate > /dev/null; do sleep 1; done"),
            Some(Awaited::ProcessGone("migrate".into()))
        );
        assert_eq!(
            awaited("proxy & until ! pidof app; do sleep 1; done"),
            Some(Awaited::ProcessGone("app".into()))
        );
    }

    #[test]
    fn the_wait_counts_only_when_the_script_gets_to_it() {
        // The proxy in the foreground never ends: the loop after it never runs.
        assert_eq!(
            awaited("/cloud_sql_proxy -instances=x; while [ ! -f /shared/done ]; do sleep 1; done"),
            None
        );
        assert_eq!(
            awaited(
                "mkdir -p /shared; echo start; sleep 2; proxy & until [ -f /shared/done ]; do sleep 1; done"
            ),
            file("/shared/done")
        );
        assert_eq!(awaited("exec envoy -c /etc/envoy.yaml"), None);
    }
}
