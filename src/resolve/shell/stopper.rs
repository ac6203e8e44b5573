//! Whether a script's only job is to stop other containers' processes: it waits for
//! the work to end (a loop on `pgrep` or on a file, `sleep`), logs, and stops the
//! sidecars (`pkill envoy`, a quit call), and does no work of its own — the
//! `wait-to-complete.sh` of a Job whose sidecars it stops. Such a command makes no call
//! out through a proxy either, whatever process it stops ([`only_stops_processes`]).

use super::hook_length::is_noop;
use super::stop_targets::{Known, classify_call};
use super::syntax::{List, SimpleCommand};

/// What a stopping script may do besides its stop calls: wait, test and log.
const WAITING: [&str; 22] = [
    "sleep",
    "break",
    "continue",
    "pgrep",
    "pidof",
    "ps",
    "grep",
    "test",
    "[",
    "[[",
    "false",
    "wait",
    "trap",
    "exit",
    "cat",
    "ls",
    "stat",
    "inotifywait",
    "tail",
    "head",
    "wc",
    "awk",
];

/// Whether `list` stops another container's process or tells a sidecar to quit, and
/// does nothing else but wait and log.
pub fn only_stops_others(list: &List, known: Known) -> bool {
    let stop = |command: &SimpleCommand| classify_call(command, known).is_some();
    only_waits_and(list, stop)
}

/// Whether `list` only inspects, waits for and stops processes: `ps`, `pgrep`, `sleep`,
/// `kill`, `pkill`, `killall` of any process, a sidecar's quit call on localhost
/// (`curl -X POST localhost:9091/quitquitquit`), with at least one stop. It calls
/// nothing out, so no proxy carries a call of its.
pub fn only_stops_processes(list: &List, known: Known) -> bool {
    let stop = |command: &SimpleCommand| {
        let argv = command.argv();
        // `kill -0` only tests that the process is there.
        matches!(command.name(), Some("kill" | "pkill" | "killall"))
            && argv[1..].iter().any(|w| !w.0.starts_with('-'))
            && !argv.iter().any(|w| w.0 == "-0")
            || classify_call(command, known).is_some()
    };
    only_waits_and(list, stop)
}

/// Whether `list` makes at least one call that `stop` accepts, and otherwise only waits,
/// tests and logs.
fn only_waits_and(list: &List, stop: impl Fn(&SimpleCommand) -> bool) -> bool {
    let commands = list.simple_commands();
    // A program named by its path (`/app/export`) is no builtin, whatever its name.
    let by_name = |command: &SimpleCommand| {
        command
            .argv()
            .first()
            .is_none_or(|word| !word.0.contains('/'))
    };
    commands.iter().any(|command| stop(command))
        && commands.iter().all(|command| {
            stop(command)
                || by_name(command)
                    && (is_noop(command)
                        || command.name().is_some_and(|name| WAITING.contains(&name))
                        || command.name() == Some("kill")
                            && command.argv().iter().any(|w| w.0 == "-0"))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::shell::parse;

    fn known() -> Known<'static> {
        Known {
            wrappers: &[],
            lexicon: &crate::resolve::Registry::standard().lexicon,
        }
    }

    #[test]
    fn a_script_that_waits_and_stops() {
        let wait_and_kill = "while pgrep -f main-process > /dev/null; do sleep 1; done\necho done\npkill -f cloud_sql_proxy\n";
        assert!(only_stops_others(&parse(wait_and_kill), known()));
        assert!(only_stops_others(
            &parse(
                "until [ -f /shared/done ]; do sleep 1; done; curl -fsS -X POST localhost:15020/quitquitquit"
            ),
            known()
        ));
        // Work of its own, even with a builtin's name.
        assert!(!only_stops_others(
            &parse("/app/export --db-host 127.0.0.1 && touch /shared/done"),
            known()
        ));
        assert!(!only_stops_others(
            &parse("./migrate; curl -X POST localhost:15020/quitquitquit"),
            known()
        ));
        assert!(!only_stops_others(
            &parse("curl -fsS http://api/trigger && curl -X POST localhost:15020/quitquitquit"),
            known()
        ));
        // Nothing stopped.
        assert!(!only_stops_others(&parse("sleep 3600"), known()));
    }

    #[test]
    fn a_script_that_only_stops_processes() {
        let waits_and_kills = "sleep 30\nwhile ps | grep -v grep | grep -q psql; do sleep 5; done\nkillall cloud_sql_proxy";
        assert!(only_stops_processes(&parse(waits_and_kills), known()));
        // Any process, not only a sidecar's.
        assert!(only_stops_processes(
            &parse(
                "while true; do if ! pgrep -f report; then kill -TERM $(pidof worker); break; fi; sleep 2; done"
            ),
            known()
        ));
        assert!(!only_stops_others(
            &parse("sleep 5; killall worker"),
            known()
        ));
        assert!(only_stops_processes(
            &parse("sleep 60; curl -fsS -X POST localhost:9091/quitquitquit"),
            known()
        ));
        // A call out, or work of its own.
        assert!(!only_stops_processes(
            &parse("sleep 5; curl -fsS http://api:8080/report; killall cloud_sql_proxy"),
            known()
        ));
        assert!(!only_stops_processes(
            &parse("psql -h 127.0.0.1 -c 'select 1'; killall cloud_sql_proxy"),
            known()
        ));
        // `kill -0` only tests; nothing is stopped.
        assert!(!only_stops_processes(
            &parse("while kill -0 1; do sleep 1; done"),
            known()
        ));
        assert!(!only_stops_processes(&parse("ps aux; sleep 3600"), known()));
    }
}
