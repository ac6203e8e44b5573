//! A program's command line, built so that nothing taken from an input can be read
//! as an option: the words and option names are the tool's own (`&'static str`: a
//! literal of its source), an option's value is glued to its name (`--name=value`),
//! and operands come last, after `--` where the program reads it as the end of its
//! options (every Cobra program: kubectl, helm), each path written `./name` when it is
//! relative, so that a directory named `--enable-alpha-plugins` is `./--enable-alpha-plugins`
//! even for a program that does not read `--`.

use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

/// The arguments of one call, past the program's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Args {
    list: Vec<OsString>,
    /// Whether an operand was written: no option may follow it.
    operands: bool,
    /// Whether the program reads `--` as the end of its options.
    end_marker: bool,
    /// The first word from outside that would have been read as an option: a call
    /// holding one is refused, never run.
    refused: Option<OptionLike>,
}

/// A word from outside the tool, given where no `--` can precede it, that begins with
/// `-`: the program would read it as an option, so the call is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionLike {
    /// The word, as it was given.
    pub word: String,
}

impl std::fmt::Display for OptionLike {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` begins with `-`, so it would be read as an option",
            self.word
        )
    }
}

impl std::error::Error for OptionLike {}

impl Default for Args {
    fn default() -> Args {
        Args::new()
    }
}

impl Args {
    /// The arguments of a program that reads `--` as the end of its options.
    pub fn new() -> Args {
        Args {
            list: Vec::new(),
            operands: false,
            end_marker: true,
            refused: None,
        }
    }

    /// The arguments of a program, or of a place in its command line, where `--` does
    /// not end the options (`git rev-parse --verify REV`: there `--` starts the paths).
    pub fn without_end_marker() -> Args {
        Args {
            end_marker: false,
            ..Args::new()
        }
    }

    /// A subcommand or option as the tool's source spells it (`template`, `-o`,
    /// `--ignore-not-found`).
    pub fn word(mut self, word: &'static str) -> Args {
        assert!(!self.operands, "`{word}` after the operands");
        self.list.push(word.into());
        self
    }

    /// Several [`Args::word`]s.
    pub fn words(self, words: &[&'static str]) -> Args {
        words.iter().fold(self, |args, word| args.word(word))
    }

    /// An option and its value in one argument, `--name=value`: whatever the value
    /// holds, it is never an option of its own.
    pub fn option(mut self, name: &'static str, value: impl AsRef<OsStr>) -> Args {
        assert!(
            name.starts_with("--") && !self.operands,
            "`{name}` is a long option, before the operands"
        );
        let mut argument = OsString::from(name);
        argument.push("=");
        argument.push(value.as_ref());
        self.list.push(argument);
        self
    }

    /// An operand of a program that reads `--`: the first one is preceded by `--`.
    pub fn operand(mut self, word: impl AsRef<OsStr>) -> Args {
        assert!(self.end_marker, "an operand without `--` is `checked`");
        self.start_operands();
        self.list.push(word.as_ref().to_owned());
        self
    }

    /// A word from outside the tool where `--` cannot precede it (a git revision, a
    /// namespace among kubectl's words): one that begins with `-` makes the whole call
    /// refused (see [`Args::refused`]). Words and options may follow it.
    pub fn checked(mut self, word: &str) -> Args {
        assert!(!self.operands, "`{word}` after the operands");
        if word.starts_with('-') && self.refused.is_none() {
            self.refused = Some(OptionLike {
                word: word.to_owned(),
            });
        }
        self.list.push(word.into());
        self
    }

    /// The word that makes this call refused, when one does.
    pub fn refused(&self) -> Option<&OptionLike> {
        self.refused.as_ref()
    }

    /// A path operand, written `./path` when it is relative, so that it cannot begin
    /// with `-` whether or not the program reads `--`.
    pub fn path(mut self, path: &Path) -> Args {
        self.start_operands();
        self.list.push(explicit(path).into_os_string());
        self
    }

    fn start_operands(&mut self) {
        if !self.operands && self.end_marker {
            self.list.push("--".into());
        }
        self.operands = true;
    }

    /// The arguments, in order.
    pub fn iter(&self) -> impl Iterator<Item = &OsStr> {
        self.list.iter().map(OsString::as_os_str)
    }

    /// The arguments as a shell would read them back: quoted where a shell would split
    /// or expand them.
    pub fn shown(&self) -> String {
        self.list
            .iter()
            .map(|arg| quoted(&arg.to_string_lossy()))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A relative path that starts with a name written `./name`; others as they are.
fn explicit(path: &Path) -> PathBuf {
    match path.components().next() {
        Some(Component::Normal(_)) => Path::new(".").join(path),
        _ if path.as_os_str().is_empty() => PathBuf::from("."),
        _ => path.to_path_buf(),
    }
}

/// `word` as a shell reads it back: as it is when it holds nothing a shell treats
/// specially, else in single quotes.
fn quoted(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=,:@%+".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// A program and its arguments, with the directory it runs in.
#[derive(Clone, Debug)]
pub struct CommandLine {
    program: OsString,
    args: Vec<OsString>,
    /// Whether the arguments so far end with operands.
    operands: bool,
    /// Why it must not run, when a word of it would be read as an option.
    refused: Option<OptionLike>,
    dir: Option<PathBuf>,
}

impl CommandLine {
    /// `program` (a name looked for on `PATH`, or a path), without arguments yet.
    pub fn new(program: impl Into<OsString>) -> CommandLine {
        CommandLine {
            program: program.into(),
            args: Vec::new(),
            operands: false,
            refused: None,
            dir: None,
        }
    }

    /// Appends `args`: options common to every call (kubectl's `--context=…`) first,
    /// then the call's own.
    pub fn args(mut self, args: &Args) -> CommandLine {
        assert!(!self.operands, "arguments after the operands");
        self.args.extend(args.list.iter().cloned());
        self.operands = args.operands;
        if self.refused.is_none() {
            self.refused = args.refused.clone();
        }
        self
    }

    /// Runs the program in `dir` rather than the working directory (git's `-C`,
    /// without a path in the arguments).
    pub fn current_dir(mut self, dir: &Path) -> CommandLine {
        self.dir = Some(dir.to_path_buf());
        self
    }

    /// The program.
    pub fn program(&self) -> &OsStr {
        &self.program
    }

    /// The word that makes this line refused, when one does: [`super::run`] does not
    /// start it.
    pub fn refused(&self) -> Option<&OptionLike> {
        self.refused.as_ref()
    }

    /// The whole line as a shell would read it back, for messages.
    pub fn shown(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|arg| quoted(&arg.to_string_lossy()))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The process to start: the one place a `Command` is made.
    pub(super) fn command(&self) -> std::process::Command {
        let mut command = std::process::Command::new(&self.program);
        command.args(&self.args);
        if let Some(dir) = &self.dir {
            command.current_dir(dir);
        }
        command
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &Args) -> Vec<String> {
        args.iter()
            .map(|arg| arg.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn operands_come_after_the_end_of_the_options() {
        let args = Args::new()
            .word("template")
            .option("--namespace", "--kubeconfig=/x")
            .operand("--post-renderer=evil.sh")
            .path(Path::new("--enable-alpha-plugins"));
        assert_eq!(
            strings(&args),
            [
                "template",
                "--namespace=--kubeconfig=/x",
                "--",
                "--post-renderer=evil.sh",
                "./--enable-alpha-plugins"
            ]
        );
    }

    #[test]
    fn paths_are_explicit_and_words_that_cannot_follow_an_end_marker_are_checked() {
        let args = Args::without_end_marker()
            .path(Path::new("-x/k"))
            .path(Path::new("/abs"))
            .path(Path::new("../up"))
            .path(Path::new(""));
        assert_eq!(strings(&args), ["./-x/k", "/abs", "../up", "."]);
        let refused = Args::without_end_marker()
            .words(&["rev-parse", "--verify"])
            .checked("--output=x")
            .word("--quiet");
        assert_eq!(
            refused.refused(),
            Some(&OptionLike {
                word: "--output=x".into()
            })
        );
        let line = CommandLine::new("git").args(&refused);
        assert!(line.refused().is_some());
        assert_eq!(Args::without_end_marker().checked("HEAD~1").refused(), None);
    }

    #[test]
    #[should_panic(expected = "after the operands")]
    fn no_option_follows_an_operand() {
        let _ = Args::new().operand("a").word("-o");
    }

    #[test]
    fn a_line_is_shown_as_a_shell_reads_it() {
        let line = CommandLine::new("kubectl").args(
            &Args::new()
                .words(&["get", "nodes"])
                .option("--output", "jsonpath={.items[*]}")
                .operand("it's"),
        );
        assert_eq!(
            line.shown(),
            r"kubectl get nodes '--output=jsonpath={.items[*]}' -- 'it'\''s'"
        );
    }
}
