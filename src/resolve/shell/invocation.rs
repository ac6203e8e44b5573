//! How a container's `command`/`args` reach a shell: `sh -c SCRIPT` in its spellings,
//! and the errexit option the script runs with.

use super::parse::parse;
use super::syntax::{AndOr, Command, List, Pipeline, SimpleCommand, Word, basename};

/// Reads a container's argv: `sh -c "script"` (any shell, flags such as `-ec`, a `--`)
/// is parsed as the script; any other argv is one simple command.
pub fn parse_argv(argv: &[String]) -> List {
    if let Some(script) = shell_script(argv) {
        return parse(script);
    }
    let words: Vec<Word> = argv.iter().map(|w| Word(w.clone())).collect();
    if words.is_empty() {
        return List::default();
    }
    List(vec![AndOr {
        first: Pipeline {
            negated: false,
            commands: vec![Command::Simple(SimpleCommand {
                assignments: Vec::new(),
                words,
                span: 0..0,
            })],
        },
        rest: Vec::new(),
        background: false,
    }])
}

const SHELLS: [&str; 6] = ["sh", "bash", "ash", "dash", "zsh", "ksh"];

/// Whether `program` is a shell whose command line this module reads, or busybox,
/// which runs one (`busybox sh`).
pub fn is_shell(program: &str) -> bool {
    let name = basename(program);
    name == "busybox" || SHELLS.contains(&name)
}

/// The script of `sh -c SCRIPT` (also `busybox sh -c`, `/bin/bash -ec --`).
pub fn shell_script(argv: &[String]) -> Option<&str> {
    script_index(argv).map(|at| argv[at].as_str())
}

/// Where in `argv` the script of `sh -c SCRIPT` is.
pub fn script_index(argv: &[String]) -> Option<usize> {
    invocation(argv)
        .filter(|invocation| invocation.command_string && invocation.operand < argv.len())
        .map(|invocation| invocation.operand)
}

/// A shell started to run a script file: `[busybox] SHELL [OPTIONS] FILE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileRun<'a> {
    /// The shell, by its basename (`bash`).
    pub shell: &'a str,
    /// Where the file is in the argv.
    pub file: usize,
    /// Whether the shell's options turn errexit on (`bash -e /scripts/run.sh`).
    pub errexit: bool,
}

/// The script file `argv` has a shell run, after the shell's options (`bash -e -o
/// pipefail /scripts/run.sh`); none with `-c` (the operand is the script) or `-s`
/// (the script comes from standard input).
pub fn script_file_run(argv: &[String]) -> Option<FileRun<'_>> {
    let invocation = invocation(argv)?;
    let runs_file = !invocation.command_string && !invocation.reads_stdin;
    (runs_file && invocation.operand < argv.len()).then(|| FileRun {
        shell: basename(&argv[invocation.shell]),
        file: invocation.operand,
        errexit: invocation.errexit,
    })
}

/// Whether the shell `argv` starts stops at the first command that fails: `-e` alone
/// or among other letters (`-ec`, `-eux`), `-o errexit`.
pub fn errexit(argv: &[String]) -> bool {
    invocation(argv).is_some_and(|invocation| invocation.errexit)
}

/// A script's `#!` line, as the kernel runs the file it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shebang<'a> {
    /// The program that runs the file, by its basename: after `env` or `busybox`, the
    /// one they run (`#!/usr/bin/env sh` is `sh`).
    pub program: &'a str,
    /// Whether its options turn errexit on (`#!/bin/sh -e`, `#!/bin/bash -eu`,
    /// `#!/usr/bin/env -S bash -e`).
    pub errexit: bool,
}

/// Reads a script's `#!` line. Linux passes what follows the interpreter's path as one
/// argument (`fs/binfmt_script.c`): `#!/bin/sh -e -x` is one option word, which the
/// shell refuses; only `env -S` splits it into words.
pub fn shebang(script: &str) -> Option<Shebang<'_>> {
    let line = script.lines().next()?.strip_prefix("#!")?.trim();
    let (path, argument) = line
        .split_once(char::is_whitespace)
        .map_or((line, ""), |(path, argument)| (path, argument.trim()));
    let program = basename(path);
    if !matches!(program, "env" | "busybox") {
        let errexit =
            option_letters(argument).is_some_and(|(on, letters)| on && letters.contains('e'));
        return Some(Shebang { program, errexit });
    }
    let mut words = argument.split_whitespace().peekable();
    let split = words
        .next_if(|word| matches!(*word, "-S" | "--split-string"))
        .is_some();
    let program = basename(words.find(|word| !word.starts_with('-'))?);
    // Without `-S` the shell gets no option: `#!/usr/bin/env sh`.
    let errexit = split
        && words
            .map_while(option_letters)
            .fold(
                false,
                |errexit, (on, letters)| {
                    if letters.contains('e') { on } else { errexit }
                },
            );
    Some(Shebang { program, errexit })
}

/// Whether `set …` turns the shell's errexit option on (`set -e`, `set -eu`, `set -o
/// errexit`), off (`set +e`, `set +o errexit`), or leaves it alone: the last word that
/// names it decides, as the shell reads them in order.
pub fn set_errexit(command: &SimpleCommand) -> Option<bool> {
    if command.name() != Some("set") {
        return None;
    }
    let mut words = command.argv()[1..].iter().map(|word| word.0.as_str());
    let mut errexit = None;
    while let Some(word) = words.next() {
        let Some((on, letters)) = option_letters(word) else {
            // `--`, `-` or a positional parameter: no options follow.
            break;
        };
        if letters.contains('e') {
            errexit = Some(on);
        }
        if letters.contains('o') && words.next() == Some("errexit") {
            errexit = Some(on);
        }
    }
    errexit
}

/// How a shell is started.
struct Invocation {
    /// Where the shell is in the argv (after `busybox`).
    shell: usize,
    /// Where its first operand is in the argv (the argv's length when it has none).
    operand: usize,
    /// Whether that operand is the script itself (`-c`), not a file.
    command_string: bool,
    /// Whether the script comes from standard input (`-s`).
    reads_stdin: bool,
    /// The errexit option among the shell's flags.
    errexit: bool,
}

/// Reads `[busybox] SHELL OPTIONS… [-c] OPERAND…` as bash, dash and zsh do: options
/// alone or together (`-ec`, `-euo pipefail`), `+` turning them off, each `o` (and bash's
/// `O`) of a cluster with the option it names in the next word, bash's long options
/// (`--norc`, `--rcfile FILE`), a `--` or `-` that ends them. zsh also takes the rest of
/// a cluster after `o` as the name (`-oerrexit`), and any option as a long one
/// (`--errexit`, `--no-errexit`).
fn invocation(argv: &[String]) -> Option<Invocation> {
    let shell = usize::from(argv.first().is_some_and(|w| basename(w) == "busybox"));
    let name = basename(argv.get(shell)?);
    if !SHELLS.contains(&name) {
        return None;
    }
    let zsh = name == "zsh";
    let (mut command_string, mut reads_stdin, mut errexit) = (false, false, false);
    let mut at = shell + 1;
    while let Some(word) = argv.get(at) {
        at += 1;
        match word.as_str() {
            "--" | "-" => break,
            "--rcfile" | "--init-file" => at += 1,
            long if long.starts_with("--") => {
                if let Some(sets) = errexit_option(&long[2..], zsh).filter(|_| zsh) {
                    errexit = sets;
                }
            }
            cluster => {
                let Some((on, letters)) = option_letters(cluster) else {
                    at -= 1;
                    break;
                };
                let (letters, attached) = match letters.split_once('o') {
                    Some((letters, name)) if zsh && !name.is_empty() => (letters, Some(name)),
                    _ => (letters, None),
                };
                command_string |= letters.contains('c');
                reads_stdin |= on && letters.contains('s');
                if letters.contains('e') {
                    errexit = on;
                }
                for letter in letters.chars().filter(|c| matches!(c, 'o' | 'O')) {
                    let name = argv.get(at)?;
                    at += 1;
                    if let Some(sets) = errexit_option(name, zsh).filter(|_| letter == 'o') {
                        errexit = on == sets;
                    }
                }
                if let Some(sets) = attached.and_then(|name| errexit_option(name, zsh)) {
                    errexit = on == sets;
                }
            }
        }
    }
    Some(Invocation {
        shell,
        operand: at,
        command_string,
        reads_stdin,
        errexit,
    })
}

/// What naming `name` as an option does to errexit: `Some(true)` for `errexit`,
/// `Some(false)` for zsh's `noerrexit`. zsh ignores case, `_` and `-` in option names
/// (`ERR_EXIT`, `no-errexit`); bash and dash take the name as written.
fn errexit_option(name: &str, zsh: bool) -> Option<bool> {
    if !zsh {
        return (name == "errexit").then_some(true);
    }
    let name: String = name
        .chars()
        .filter(|c| !matches!(c, '_' | '-'))
        .map(|c| c.to_ascii_lowercase())
        .collect();
    match name.as_str() {
        "errexit" => Some(true),
        "noerrexit" => Some(false),
        _ => None,
    }
}

/// The letters of a cluster of one-letter options, `-eux` (turned on) or `+e` (off).
fn option_letters(word: &str) -> Option<(bool, &str)> {
    let (on, letters) = match word.split_at_checked(1)? {
        ("-", letters) => (true, letters),
        ("+", letters) => (false, letters),
        _ => return None,
    };
    (!letters.is_empty() && letters.chars().all(|c| c.is_ascii_alphabetic()))
        .then_some((on, letters))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_script_of_a_shell_invocation() {
        let argv: Vec<String> = ["/bin/bash", "-ec", "--", "sleep 5"]
            .map(String::from)
            .to_vec();
        assert_eq!(shell_script(&argv), Some("sleep 5"));
        let argv: Vec<String> = ["sleep", "5"].map(String::from).to_vec();
        assert_eq!(shell_script(&argv), None);
        assert_eq!(parse_argv(&argv).simple_commands()[0].name(), Some("sleep"));
    }

    fn words(argv: &[&str]) -> Vec<String> {
        argv.iter().map(|word| (*word).to_owned()).collect()
    }

    #[test]
    fn reads_the_options_a_shell_is_started_with() {
        for (argv, stops_at_failure) in [
            (&["sh", "-c", "true"][..], false),
            (&["sh", "-ec", "true"], true),
            (&["/bin/bash", "-e", "-c", "true"], true),
            (&["bash", "-euo", "pipefail", "-c", "true"], true),
            (&["bash", "-o", "errexit", "-c", "true"], true),
            (&["bash", "-o", "pipefail", "-c", "true"], false),
            (&["bash", "--norc", "-xc", "true"], false),
            (&["busybox", "sh", "-ec", "true"], true),
            (&["sh", "-e", "+e", "-c", "true"], false),
            (&["bash", "-O", "extglob", "-c", "true"], false),
            (&["bash", "--init-file", "/etc/x.sh", "-ec", "true"], true),
            (&["bash", "-oo", "errexit", "nounset", "-c", "true"], true),
            (&["sh", "+c", "true"], false),
            (&["sh", "-ec", "-", "true"], true),
        ] {
            let argv = words(argv);
            assert_eq!(shell_script(&argv), Some("true"), "{argv:?}");
            assert_eq!(errexit(&argv), stops_at_failure, "{argv:?}");
        }
        // No script on the command line: a script file, nothing, not a shell.
        for (argv, file, stops_at_failure) in [
            (&["sh", "-e", "/scripts/run.sh"][..], Some(2), true),
            (
                &["bash", "-o", "pipefail", "/scripts/run.sh"],
                Some(3),
                false,
            ),
            (&["sh", "-", "/scripts/run.sh"], Some(2), false),
            (&["bash", "-o", "errexit"], None, true),
            (&["sleep", "-c", "5"], None, false),
        ] {
            let argv = words(argv);
            assert_eq!(shell_script(&argv), None, "{argv:?}");
            assert_eq!(script_file_run(&argv).map(|run| run.file), file, "{argv:?}");
            assert_eq!(errexit(&argv), stops_at_failure, "{argv:?}");
        }
        for argv in [
            &["sh", "-c", "true"][..],
            &["bash", "-s", "/scripts/run.sh"],
        ] {
            assert_eq!(script_file_run(&words(argv)), None, "{argv:?}");
        }
    }

    #[test]
    fn reads_what_set_does_to_errexit() {
        let set = |script: &str| set_errexit(parse(script).simple_commands()[0]);
        assert_eq!(set("set -e"), Some(true));
        assert_eq!(set("set -euo pipefail"), Some(true));
        assert_eq!(set("set -o errexit"), Some(true));
        assert_eq!(set("set -o nounset -o errexit"), Some(true));
        assert_eq!(set("set +e"), Some(false));
        assert_eq!(set("set -e +o errexit"), Some(false));
        assert_eq!(set("set -x"), None);
        assert_eq!(set("set -o pipefail"), None);
        assert_eq!(set("set -- -e"), None);
        assert_eq!(set("set foo -e"), None);
        assert_eq!(set("echo -e"), None);
    }
}
