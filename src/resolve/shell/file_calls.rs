//! Commands of a script that run another script file: `. FILE ARGS` and `source FILE
//! ARGS` in the shell itself, `sh FILE ARGS` and `bash -e FILE ARGS` in a child shell
//! (docs/lifecycle.md §2.8). A caller that holds the file's text reads it in place of
//! the call, its positional parameters bound to the call's arguments
//! ([`bind_positional`]), so that what the file does counts as if written inline.

use std::ops::Range;

use super::invocation::script_file_run;
use super::parse::parse;
use super::syntax::{Command, List, basename};

/// A command that runs a script file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileCall {
    /// Where the command is written in the script (byte offsets).
    pub span: Range<usize>,
    /// The file, as written.
    pub file: String,
    /// The positional parameters the file runs with, when the call sets them: its
    /// arguments. `None` where they are left as they were: a call without arguments,
    /// or `.` in dash, which reads only the file's name (dash `src/main.c`, `dotcmd`).
    pub arguments: Option<Vec<String>>,
    /// The child shell that runs the file, when the call starts one (`bash FILE`).
    pub child: Option<ChildShell>,
}

/// The shell a call starts to run a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChildShell {
    /// Its basename (`bash`).
    pub shell: String,
    /// Whether its options turn errexit on (`bash -e FILE`); it does not inherit the
    /// caller's.
    pub errexit: bool,
}

/// The commands of `script`, run by the shell `shell` (its basename), that run a
/// script file; each at its place in the text, in order.
///
/// `.` and `source` read the file in the shell itself; bash makes the arguments after
/// the file the positional parameters while it runs (bash `builtins/source.def`,
/// `source_builtin`: "If any ARGUMENTS are supplied, they become the positional
/// parameters"), as zsh, ksh and busybox ash do, while dash ignores them. A shell run
/// on a file takes the operands after it as `$1`… (POSIX `sh`, OPERANDS).
pub fn file_calls(script: &str, shell: &str) -> Vec<FileCall> {
    let dot_binds = !matches!(basename(shell), "sh" | "dash");
    parse(script)
        .simple_commands()
        .into_iter()
        .filter(|command| !command.span.is_empty())
        .filter_map(|command| {
            let words: Vec<String> = command.argv().iter().map(|w| w.0.clone()).collect();
            let given = |rest: &[String]| (!rest.is_empty()).then(|| rest.to_vec());
            let (file, arguments, child) = match basename(words.first()?) {
                "." | "source" => {
                    let rest = match words.get(1).map(String::as_str) {
                        Some("--") => &words[2..],
                        _ => &words[1..],
                    };
                    let (file, arguments) = rest.split_first()?;
                    let bound = (dot_binds || basename(&words[0]) == "source")
                        .then(|| given(arguments))
                        .flatten();
                    (file.clone(), bound, None)
                }
                _ => {
                    let run = script_file_run(&words)?;
                    let child = ChildShell {
                        shell: run.shell.to_owned(),
                        errexit: run.errexit,
                    };
                    let file = words[run.file].clone();
                    (file, given(&words[run.file + 1..]), Some(child))
                }
            };
            Some(FileCall {
                span: command.span.clone(),
                file,
                arguments,
                child,
            })
        })
        .collect()
}

/// `text` (a script file's) with `$1`…`$9`, `${1}`…`${9}`, `$@`, `$*` and `$#` replaced
/// by what `arguments` make them, outside single quotes and outside the bodies of the
/// functions it defines (which have parameters of their own). `None` where the script
/// changes its parameters (`shift`, `set --`): what they hold at a command is then
/// not known from the text.
pub fn bind_positional(text: &str, arguments: &[String]) -> Option<String> {
    let list = parse(text);
    let changes = list.simple_commands().iter().any(|command| {
        let argv = command.argv();
        match command.name() {
            Some("shift") => true,
            Some("set") => argv
                .get(1)
                .is_some_and(|w| w.0 == "--" || !w.0.starts_with(['-', '+'])),
            _ => false,
        }
    });
    if changes {
        return None;
    }
    let own_parameters = function_bodies(&list);
    Some(substitute(text, arguments, &own_parameters))
}

/// Where the simple commands of the functions `list` defines are written.
fn function_bodies(list: &List) -> Vec<Range<usize>> {
    fn walk(command: &Command, inside: bool, out: &mut Vec<Range<usize>>) {
        match command {
            Command::Simple(simple) if inside => out.push(simple.span.clone()),
            Command::Simple(_) | Command::Case => {}
            Command::Function { body, .. } => walk(body, true, out),
            Command::Group(list) | Command::For { body: list } => walk_list(list, inside, out),
            Command::If {
                branches,
                otherwise,
            } => {
                for (condition, body) in branches {
                    walk_list(condition, inside, out);
                    walk_list(body, inside, out);
                }
                if let Some(list) = otherwise {
                    walk_list(list, inside, out);
                }
            }
            Command::Loop {
                condition, body, ..
            } => {
                walk_list(condition, inside, out);
                walk_list(body, inside, out);
            }
        }
    }
    fn walk_list(list: &List, inside: bool, out: &mut Vec<Range<usize>>) {
        for item in &list.0 {
            for pipeline in item.pipelines() {
                for command in &pipeline.commands {
                    walk(command, inside, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk_list(list, false, &mut out);
    out
}

/// What the scanner of [`substitute`] is inside.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// `"…"`.
    Double,
    /// `$(…)`, with how many plain parentheses are open in it.
    Substitution(usize),
    /// `` `…` ``.
    Backquote,
}

/// The substitution of [`bind_positional`]: a scan that follows quotes, `$(…)` and
/// backquotes, so that a value goes in quoted as its place needs.
fn substitute(text: &str, arguments: &[String], skipped: &[Range<usize>]) -> String {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = String::with_capacity(text.len());
    let mut frames: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        let top = frames.last().copied();
        let in_double = top == Some(Frame::Double);
        let next = chars.get(i + 1).map(|(_, c)| *c);
        match c {
            '\\' => {
                out.push(c);
                if let Some(next) = next {
                    out.push(next);
                }
                i += 2;
                continue;
            }
            '\'' if !in_double => {
                // To the closing quote, untouched.
                out.push(c);
                i += 1;
                while i < chars.len() {
                    out.push(chars[i].1);
                    i += 1;
                    if chars[i - 1].1 == '\'' {
                        break;
                    }
                }
                continue;
            }
            '#' if !in_double && (i == 0 || chars[i - 1].1.is_whitespace()) => {
                while i < chars.len() && chars[i].1 != '\n' {
                    out.push(chars[i].1);
                    i += 1;
                }
                continue;
            }
            '"' => {
                if in_double {
                    frames.pop();
                } else {
                    frames.push(Frame::Double);
                }
            }
            '`' => {
                if top == Some(Frame::Backquote) {
                    frames.pop();
                } else {
                    frames.push(Frame::Backquote);
                }
            }
            '(' => {
                if let Some(Frame::Substitution(open)) = frames.last_mut() {
                    *open += 1;
                }
            }
            ')' => match frames.last_mut() {
                Some(Frame::Substitution(0)) => {
                    frames.pop();
                }
                Some(Frame::Substitution(open)) => *open -= 1,
                _ => {}
            },
            '$' if next == Some('(') => {
                frames.push(Frame::Substitution(0));
                out.push_str("$(");
                i += 2;
                continue;
            }
            '$' if !skipped.iter().any(|span| span.contains(&at)) => {
                if let Some((value, taken)) = parameter(&chars[i + 1..], arguments, in_double) {
                    out.push_str(&value);
                    i += 1 + taken;
                    continue;
                }
            }
            _ => {}
        }
        out.push(c);
        i += 1;
    }
    out
}

/// The positional parameter named right after a `$` (`1`, `{1}`, `@`, `*`, `#`) and how
/// many characters name it, with the text that replaces it, quoted for its place:
/// inside double quotes as their content, elsewhere as a word of its own.
fn parameter(
    after: &[(usize, char)],
    arguments: &[String],
    in_double: bool,
) -> Option<(String, usize)> {
    let c = |at: usize| after.get(at).map(|(_, c)| *c);
    let (name, taken) = match (c(0)?, c(1), c(2)) {
        ('{', Some(digit @ '1'..='9'), Some('}')) => (digit, 3),
        (digit @ '1'..='9', ..) => (digit, 1),
        (special @ ('@' | '*' | '#'), ..) => (special, 1),
        _ => return None,
    };
    let quoted = |value: &str| {
        let escaped: String = value
            .chars()
            .flat_map(|c| {
                let escape = matches!(c, '"' | '\\' | '`').then_some('\\');
                escape.into_iter().chain(std::iter::once(c))
            })
            .collect();
        let plain = !value.is_empty()
            && value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_./:=@%+-,".contains(c));
        if in_double || plain {
            escaped
        } else {
            format!("\"{escaped}\"")
        }
    };
    let value = match name {
        '#' => arguments.len().to_string(),
        '@' if in_double => arguments
            .iter()
            .map(|a| quoted(a))
            .collect::<Vec<_>>()
            .join("\" \""),
        '@' | '*' if !in_double => arguments
            .iter()
            .map(|a| quoted(a))
            .collect::<Vec<_>>()
            .join(" "),
        '*' => quoted(&arguments.join(" ")),
        digit => {
            let index = digit.to_digit(10)? as usize;
            quoted(arguments.get(index - 1).map_or("", String::as_str))
        }
    };
    Some((value, taken))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn finds_the_files_a_script_runs() {
        let script = ". /scripts/wait.sh \"job.sh\" cloud_sql_proxy\nsource /scripts/env.sh\nbash -e /scripts/run.sh a && sh /scripts/plain.sh\necho done";
        let calls = file_calls(script, "bash");
        let found: Vec<_> = calls
            .iter()
            .map(|call| {
                (
                    call.file.as_str(),
                    call.arguments.clone(),
                    call.child.as_ref().map(|c| (c.shell.as_str(), c.errexit)),
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                (
                    "/scripts/wait.sh",
                    Some(words(&["job.sh", "cloud_sql_proxy"])),
                    None
                ),
                ("/scripts/env.sh", None, None),
                ("/scripts/run.sh", Some(words(&["a"])), Some(("bash", true))),
                ("/scripts/plain.sh", None, Some(("sh", false))),
            ]
        );
        assert_eq!(
            &script[calls[0].span.clone()],
            ". /scripts/wait.sh \"job.sh\" cloud_sql_proxy"
        );
        // dash's `.` reads only the file's name; `source` is no dash builtin.
        let dash = file_calls(". /scripts/wait.sh job.sh proxy", "sh");
        assert_eq!(dash[0].arguments, None);
        let source = file_calls("source /scripts/wait.sh job.sh", "sh");
        assert_eq!(source[0].arguments, Some(words(&["job.sh"])));
    }

    #[test]
    fn binds_the_positional_parameters() {
        let args = words(&["job.sh", "cloud sql"]);
        let bind = |text: &str| bind_positional(text, &args);
        assert_eq!(
            bind("bash \"/scripts/$1\"; pkill -f \"$2\"").as_deref(),
            Some("bash \"/scripts/job.sh\"; pkill -f \"cloud sql\"")
        );
        assert_eq!(
            bind("pkill -f $2 ${1}").as_deref(),
            Some("pkill -f \"cloud sql\" job.sh")
        );
        assert_eq!(
            bind("kill $(pgrep -f \"$2\") # stops $1").as_deref(),
            Some("kill $(pgrep -f \"cloud sql\") # stops $1")
        );
        assert_eq!(
            bind("echo \"$#: $@\" $*").as_deref(),
            Some("echo \"2: job.sh\" \"cloud sql\" job.sh \"cloud sql\"")
        );
        // Single quotes, a function's own parameters and `\$` are left as written.
        assert_eq!(
            bind("trap 'pkill -f \"$2\"' EXIT; stop() { pkill \"$1\"; }; stop \"$2\" \\$1")
                .as_deref(),
            Some("trap 'pkill -f \"$2\"' EXIT; stop() { pkill \"$1\"; }; stop \"cloud sql\" \\$1")
        );
        // Parameters that change as the script runs are not bound.
        assert_eq!(bind("shift; pkill -f \"$1\""), None);
        assert_eq!(bind("set -- a b; pkill -f \"$1\""), None);
        assert!(bind("set -e; pkill -f \"$1\"").is_some());
    }
}
