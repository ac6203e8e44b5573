//! Whether a script's only job is to stop other containers' processes: it waits for
//! the work to end (a loop on `pgrep` or on a file, `sleep`), logs, and stops the
//! sidecars (`pkill envoy`, a quit call), and does no work of its own — the
//! `wait-to-complete.sh` of a Job whose sidecars it stops.

use super::hook_length::is_noop;
use super::stop_targets::{Known, classify_call};
use super::syntax::{List, SimpleCommand};

/// What a stopping script may do besides its stop calls: wait, test and log.
const WAITING: [&str; 20] = [
    "sleep",
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
    let commands = list.simple_commands();
    let stop = |command| classify_call(command, known).is_some();
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
}
