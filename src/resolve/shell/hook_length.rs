//! How long a hook's commands take: `sleep` in every spelling, loops that wait for
//! connections or processes to go.

use std::collections::BTreeMap;

use super::parse::parse;
use super::syntax::{AndOr, Command, List, LoopKind, Pipeline, SimpleCommand, Word};
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
        for pipeline in item.pipelines() {
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
            kind,
            condition,
            body,
        } => {
            if waits_for_something(condition) || waits_for_something(body) {
                Length::WaitsForExit
            } else if endless(*kind, condition, body, env) {
                Length::Forever
            } else {
                Length::Unknown
            }
        }
        Command::If { .. } | Command::For { .. } | Command::Case | Command::Function { .. } => {
            Length::Unknown
        }
    }
}

/// Whether a loop never ends by itself: `while true`, `while :` or `until false`
/// around nothing but sleeps and commands that cannot fail, leave the loop or replace
/// the shell (`echo`, `:`; no `break`, `exit`, `exec`, no `$(…)` that `set -e` could
/// end the shell on). Such a hook runs until the grace period's SIGKILL, as
/// `sleep infinity` does: the kubelet signals the container only once it returns.
fn endless(kind: LoopKind, condition: &List, body: &List, env: &Env) -> bool {
    let [
        AndOr {
            first: Pipeline { negated, commands },
            rest,
            background: false,
        },
    ] = condition.0.as_slice()
    else {
        return false;
    };
    let [Command::Simple(test)] = commands.as_slice() else {
        return false;
    };
    if !rest.is_empty() || !test.assignments.is_empty() || test.words.len() != 1 {
        return false;
    }
    let succeeds = match test.words[0].0.as_str() {
        "true" | ":" => true,
        "false" => false,
        _ => return false,
    };
    // `while` goes on while the condition succeeds, `until` while it fails.
    let goes_on = succeeds != *negated;
    if goes_on != (kind == LoopKind::While) {
        return false;
    }
    body.0.iter().all(|item| {
        !item.background
            && item.pipelines().all(|pipeline| {
                pipeline.commands.iter().all(|command| match command {
                    Command::Simple(simple) => cannot_end(simple, env),
                    _ => false,
                })
            })
    })
}

/// A command that neither fails nor leaves the shell: a `sleep` of known length, or a
/// no-op with a name, written plainly (no `exec`, no command substitution).
fn cannot_end(command: &SimpleCommand, env: &Env) -> bool {
    let plain = command.assignments.is_empty()
        && command.words.first().is_some_and(|first| first.0 != "exec")
        && command
            .words
            .iter()
            .all(|word| !word.0.contains("$(") && !word.0.contains('`'));
    plain
        && (sleep_length(command, env).is_some() || (command.name().is_some() && is_noop(command)))
}

/// Commands that take no time worth counting.
pub(super) fn is_noop(command: &SimpleCommand) -> bool {
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
            .any(|inner| waits_for_something(&parse(inner)));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn length_of(script: &str) -> Length {
        let mut env = Env::new();
        env.insert("DELAY".into(), "7".into());
        length(&parse(script), &env)
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
        // Loops that nothing in them can end.
        for endless in [
            "while true; do sleep 1; done",
            "while :; do echo waiting; sleep 5; done",
            "until false; do sleep $DELAY; done",
            "echo draining; while true; do sleep 86400; done",
            "set -e; while true; do date; sleep 1; done",
        ] {
            assert_eq!(length_of(endless), Length::Forever, "{endless}");
        }
        // Loops that something in them may end, or whose end is not known.
        for ends in [
            "while true; do sleep 1; break; done",
            "while true; do sleep 1; exit 0; done",
            "while true; do exec sleep 1; done",
            "while true; do curl -f http://localhost/ready && break; sleep 1; done",
            "set -e; while true; do x=$(cat /tmp/f); sleep 1; done",
            "while true; do echo $(date); sleep 1; done",
            "while [ -f /tmp/lock ]; do sleep 1; done",
            "while true; do sleep $UNSET; done",
            "while false; do sleep 1; done",
            "until true; do sleep 1; done",
            "while true; do sleep 1 & done",
        ] {
            assert_ne!(length_of(ends), Length::Forever, "{ends}");
        }
    }

    #[test]
    fn here_document_bodies_take_no_time() {
        // `cat` is of unknown length, taken as instant; the body's sleeps are text.
        assert_eq!(
            length_of("cat <<EOF\nsleep 100\nEOF\nsleep 5"),
            Length::Known {
                total: Millis::secs(5),
                unknown_parts: 1
            }
        );
        assert_eq!(
            length_of("cat <<'EOF' >/tmp/note\nsleep infinity\nEOF\nsleep 5"),
            Length::Known {
                total: Millis::secs(5),
                unknown_parts: 1
            }
        );
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
        // A loop that waits for nothing: its length is not known (a failing command
        // under `set -e` could end it), unless nothing in it can end it (`endless`).
        assert_eq!(
            length_of("while true; do curl -s localhost; done"),
            Length::Unknown
        );
        assert_eq!(length_of("while true; do date; done"), Length::Forever);
    }
}
