//! How a container's `command`/`args` reach a shell: `sh -c SCRIPT` in its spellings.

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

/// The script of `sh -c SCRIPT` (also `busybox sh -c`, `/bin/bash -ec --`).
pub fn shell_script(argv: &[String]) -> Option<&str> {
    script_index(argv).map(|at| argv[at].as_str())
}

/// Where in `argv` the script of `sh -c SCRIPT` is.
pub fn script_index(argv: &[String]) -> Option<usize> {
    let mut rest = argv;
    if rest.first().is_some_and(|w| basename(w) == "busybox") {
        rest = &rest[1..];
    }
    let (shell, mut rest) = rest.split_first()?;
    if !SHELLS.contains(&basename(shell)) {
        return None;
    }
    let mut has_c = false;
    while let Some((flag, tail)) = rest.split_first() {
        if flag == "--" {
            rest = tail;
            continue;
        }
        if let Some(letters) = flag
            .strip_prefix('-')
            .filter(|l| !l.is_empty() && !l.starts_with('-'))
        {
            has_c |= letters.contains('c');
            rest = tail;
            continue;
        }
        break;
    }
    (has_c && !rest.is_empty()).then(|| argv.len() - rest.len())
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
}
