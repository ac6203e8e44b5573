//! Rewrites of a Job's script for fixes: a sidecar's stop call made an EXIT trap set
//! before the work, so that it runs on every path out of the script and the shell
//! still exits with the work's status (POSIX Shell Command Language, 2.14 "trap": the
//! EXIT action runs when the shell exits, and the value of `$?` after it is the value
//! before it; dash and bash keep it as the exit status). This is the form the Job
//! rules' docs recommend (docs/lifecycle.md §3.4, §7 F1).

use std::ops::Range;

use super::parse::parse;
use super::stop_calls::replacing_exec;

/// `script` with `trap 'CALL' EXIT` first and the call written at `call` taken out,
/// with the operator that joined it to its neighbour (`work; CALL`, `work && CALL`,
/// `CALL; work`, a line of its own). `None` when the trap could not do the call's
/// job: the script sets a trap of its own (ours would replace it, or it ours), an
/// `exec` replaces the shell (a replaced shell runs no trap), or the call is not
/// joined to the rest by an operator the rewrite knows.
/// A comment after the call moves with it: onto the trap's line, or to the end of a
/// one-line script.
pub fn trap_stop_call(script: &str, call: Range<usize>) -> Option<String> {
    let (text, comment) = split_comment(script.get(call.clone())?);
    let removal = removal(script, call)?;
    let rest = format!("{}{}", &script[..removal.start], &script[removal.end..]);
    if rest.trim().is_empty() {
        return None;
    }
    let mut fixed = with_exit_trap(&rest, text.trim());
    if let Some(comment) = comment {
        match fixed.find('\n') {
            Some(line_end) => fixed.insert_str(line_end, &format!("  {comment}")),
            None => fixed = format!("{}  {comment}", fixed.trim_end()),
        }
    }
    Some(fixed)
}

/// `script` with `trap 'CALL' EXIT` before everything it runs: on a line of its own
/// when the script has lines, else joined with `;`.
pub fn with_exit_trap(script: &str, call: &str) -> String {
    let quoted = call.replace('\'', r"'\''");
    if script.contains('\n') {
        format!("trap '{quoted}' EXIT\n{script}")
    } else {
        format!("trap '{quoted}' EXIT; {script}")
    }
}

/// `script` with `exec` written before its last command, so that the shell replaces
/// itself with it and the command becomes PID 1 (docs/lifecycle.md §2.7). `None`
/// where that would change more than who is PID 1: the last command is not a plain
/// simple command at the top level, alone or last of an `&&`/`||` chain (a loop, a
/// pipeline, a background job), it sets variables first, or a trap is set (a replaced
/// shell runs no trap).
pub fn exec_last(script: &str) -> Option<String> {
    let list = parse(script);
    if list
        .simple_commands()
        .iter()
        .any(|command| command.name() == Some("trap"))
    {
        return None;
    }
    let last = list.0.last()?;
    let pipeline = last
        .rest
        .last()
        .map_or(&last.first, |(_, pipeline)| pipeline);
    if last.background || pipeline.negated {
        return None;
    }
    let [super::syntax::Command::Simple(command)] = pipeline.commands.as_slice() else {
        return None;
    };
    if !command.assignments.is_empty() || command.span.is_empty() || command.words.is_empty() {
        return None;
    }
    let at = command.span.start;
    Some(format!("{}exec {}", &script[..at], &script[at..]))
}

/// A command's text and the comment after it (`#` at a word's start, outside quotes).
fn split_comment(text: &str) -> (&str, Option<&str>) {
    let mut quote = None;
    let mut escaped = false;
    let mut previous = ' ';
    for (at, c) in text.char_indices() {
        match (quote, c) {
            _ if escaped => escaped = false,
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('"') | None, '\\') => escaped = true,
            (None, '\'' | '"') => quote = Some(c),
            (None, '#') if previous.is_whitespace() => {
                return (text[..at].trim_end(), Some(text[at..].trim_end()));
            }
            _ => {}
        }
        previous = c;
    }
    (text, None)
}

/// Whether an EXIT trap set first in `script` runs when it exits and is not
/// replaced: it sets no trap of its own and no `exec` replaces the shell.
pub fn takes_exit_trap(script: &str) -> bool {
    let list = parse(script);
    // Every simple command, in groups, branches and function bodies too.
    let sets_trap = list
        .simple_commands()
        .iter()
        .any(|command| command.name() == Some("trap"));
    !sets_trap && replacing_exec(&list).is_none()
}

/// The bytes that take the call at `call` out of `script`.
fn removal(script: &str, call: Range<usize>) -> Option<Range<usize>> {
    if !takes_exit_trap(script) {
        return None;
    }
    let blank = [' ', '\t'];
    let before = script[..call.start].trim_end_matches(blank);
    let after = &script[call.end..];
    for operator in ["&&", "||", ";"] {
        if let Some(joined) = before.strip_suffix(operator)
            && !joined.ends_with(';')
        {
            return Some(joined.trim_end_matches(blank).len()..call.end);
        }
    }
    if !before.is_empty() && !before.ends_with('\n') {
        return None;
    }
    // The call starts the script or its line: it goes with what joins it to the next.
    let next = after.trim_start_matches(blank);
    let skipped = after.len() - next.len();
    for operator in ["&&", "||", ";", "\n"] {
        if next.starts_with(operator) && !next.starts_with(";;") {
            let tail = &next[operator.len()..];
            let spaces = if operator == "\n" {
                0
            } else {
                tail.len() - tail.trim_start_matches(blank).len()
            };
            return Some(before.len()..call.end + skipped + operator.len() + spaces);
        }
    }
    next.trim().is_empty().then_some(before.len()..script.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moved(script: &str, call: &str) -> Option<String> {
        let start = script.find(call).unwrap();
        trap_stop_call(script, start..start + call.len())
    }

    const QUIT: &str = "curl -fsS -X POST localhost:15020/quitquitquit";

    #[test]
    fn the_call_becomes_the_exit_trap_with_its_operator_taken_out() {
        for (script, expected) in [
            (
                format!("./migrate; {QUIT}"),
                format!("trap '{QUIT}' EXIT; ./migrate"),
            ),
            (
                format!("./migrate && {QUIT} && echo done"),
                format!("trap '{QUIT}' EXIT; ./migrate && echo done"),
            ),
            (
                format!("{QUIT}; ./migrate"),
                format!("trap '{QUIT}' EXIT; ./migrate"),
            ),
            (
                format!("set -e\n./migrate\n  {QUIT} # stop the proxy\necho done\n"),
                format!("trap '{QUIT}' EXIT  # stop the proxy\nset -e\n./migrate\necho done\n"),
            ),
            (
                format!("./migrate\n{QUIT}\n"),
                format!("trap '{QUIT}' EXIT\n./migrate\n"),
            ),
        ] {
            let call = if script.contains("# stop") {
                format!("{QUIT} # stop the proxy")
            } else {
                QUIT.to_owned()
            };
            assert_eq!(moved(&script, &call), Some(expected), "{script}");
        }
        // A quote in the call is closed and reopened around an escaped one; a `#`
        // in quotes is no comment, one after a word is.
        assert_eq!(
            moved(
                "./work; echo 'a #b' > /dev/null # bye",
                "echo 'a #b' > /dev/null # bye"
            ),
            Some(r"trap 'echo '\''a #b'\'' > /dev/null' EXIT; ./work  # bye".to_owned())
        );
    }

    #[test]
    fn no_rewrite_where_the_trap_would_not_run_or_not_alone() {
        let quit = QUIT;
        for script in [
            format!("trap 'rm -f /tmp/x' EXIT; ./migrate; {quit}"),
            format!("{quit}; exec ./migrate"),
            format!("./migrate | {quit}"),
            quit.to_owned(),
        ] {
            assert_eq!(moved(&script, quit), None, "{script}");
        }
    }

    #[test]
    fn exec_goes_before_the_last_command() {
        assert_eq!(
            exec_last("cd /app && ./prepare\n./serve --port 8080\n").as_deref(),
            Some("cd /app && ./prepare\nexec ./serve --port 8080\n")
        );
        assert_eq!(
            exec_last("proxy & ./serve").as_deref(),
            Some("proxy & exec ./serve")
        );
        assert_eq!(
            exec_last("./prepare && ./serve").as_deref(),
            Some("./prepare && exec ./serve")
        );
        assert_eq!(exec_last("while true; do sleep 1; done"), None);
        assert_eq!(exec_last("trap 'rm -f /tmp/x' EXIT; ./serve"), None);
        assert_eq!(exec_last("PORT=1 ./serve"), None);
    }
}
