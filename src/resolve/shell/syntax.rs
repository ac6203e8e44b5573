//! The syntax tree the reader builds: only what lifecycle questions need.
//!
//! Words keep `$…` expansions verbatim (they are read later, against a container's
//! environment); redirections and here-document bodies are not part of the tree, since
//! they are data, not commands.

/// A word with quotes removed; `$…` expansions are kept verbatim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word(pub String);

/// A command name with arguments, and the `NAME=value` assignments before it.
#[derive(Clone, Debug, Default)]
pub struct SimpleCommand {
    /// `NAME=value` words before the command, which set its environment (`rc=$?`).
    pub assignments: Vec<(String, String)>,
    /// The command and its arguments.
    pub words: Vec<Word>,
    /// Where it is written in the script, byte offsets, up to the operator after it, so
    /// with its redirections and a comment after it (empty for a command that is not
    /// read from a script).
    pub span: std::ops::Range<usize>,
}

/// Two commands are equal when they say the same, wherever they are written.
impl PartialEq for SimpleCommand {
    fn eq(&self, other: &Self) -> bool {
        self.assignments == other.assignments && self.words == other.words
    }
}

impl Eq for SimpleCommand {}

/// How two pipelines of an and-or chain are joined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Connector {
    /// `&&`: the next pipeline runs if this one succeeds.
    And,
    /// `||`: the next pipeline runs if this one fails.
    Or,
}

/// Commands separated by `;`, `&` or newlines, run in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct List(pub Vec<AndOr>);

/// `a && b || c`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AndOr {
    /// The first pipeline.
    pub first: Pipeline,
    /// The pipelines after it, each with the connector before it.
    pub rest: Vec<(Connector, Pipeline)>,
    /// Ended by `&`: runs in the background.
    pub background: bool,
}

/// `! a | b`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pipeline {
    /// Starts with `!`: the exit status is inverted.
    pub negated: bool,
    /// The commands joined by `|`.
    pub commands: Vec<Command>,
}

/// Whether a loop runs while or until its condition succeeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopKind {
    /// Loops while the condition succeeds.
    While,
    /// Loops until the condition succeeds.
    Until,
}

/// A command of any form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// A command with arguments.
    Simple(SimpleCommand),
    /// `{ …; }` or `( … )`.
    Group(List),
    /// `if … then … elif … else … fi`.
    If {
        /// Each `if`/`elif` condition with its body.
        branches: Vec<(List, List)>,
        /// The `else` body.
        otherwise: Option<List>,
    },
    /// `while`/`until … do … done`.
    Loop {
        /// `while` or `until`.
        kind: LoopKind,
        /// What is tested each round.
        condition: List,
        /// What runs each round.
        body: List,
    },
    /// `for … do … done`.
    For {
        /// What runs for each item.
        body: List,
    },
    /// `name() { … }`.
    Function {
        /// Its name, as later commands call it.
        name: String,
        /// Its body.
        body: Box<Command>,
    },
    /// `case … esac`, kept opaque.
    Case,
}

/// The last path component: `/usr/bin/curl` → `curl`.
pub fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

impl List {
    /// A list of the one command `command`.
    pub fn of(command: Command) -> List {
        List(vec![AndOr {
            first: Pipeline {
                negated: false,
                commands: vec![command],
            },
            rest: Vec::new(),
            background: false,
        }])
    }

    /// Every simple command, in order, at any depth (loop bodies, groups, traps
    /// excluded: their text is a word of the `trap` command).
    pub fn simple_commands(&self) -> Vec<&SimpleCommand> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect<'a>(&'a self, out: &mut Vec<&'a SimpleCommand>) {
        for item in &self.0 {
            for pipeline in item.pipelines() {
                for command in &pipeline.commands {
                    command.collect(out);
                }
            }
        }
    }
}

impl AndOr {
    /// The pipelines of the chain in order, whichever connector joins them.
    pub fn pipelines(&self) -> impl Iterator<Item = &Pipeline> {
        std::iter::once(&self.first).chain(self.rest.iter().map(|(_, pipeline)| pipeline))
    }
}

impl Command {
    fn collect<'a>(&'a self, out: &mut Vec<&'a SimpleCommand>) {
        match self {
            Command::Simple(simple) => out.push(simple),
            Command::Group(list) | Command::For { body: list } => list.collect(out),
            Command::If {
                branches,
                otherwise,
            } => {
                for (condition, body) in branches {
                    condition.collect(out);
                    body.collect(out);
                }
                if let Some(list) = otherwise {
                    list.collect(out);
                }
            }
            Command::Loop {
                condition, body, ..
            } => {
                condition.collect(out);
                body.collect(out);
            }
            Command::Function { body, .. } => body.collect(out),
            Command::Case => {}
        }
    }
}

impl SimpleCommand {
    /// The command's name and arguments after wrappers that run another command
    /// (`exec`, `command`, `nohup`, `env A=b`, `timeout 5`, `busybox`) are stripped.
    pub fn argv(&self) -> &[Word] {
        let mut words = self.words.as_slice();
        loop {
            let Some((first, rest)) = words.split_first() else {
                return words;
            };
            match basename(&first.0) {
                "exec" | "command" | "nohup" | "busybox" | "time" => words = rest,
                "env" => {
                    words = rest;
                    while words
                        .first()
                        .is_some_and(|w| w.0.contains('=') || w.0.starts_with('-'))
                    {
                        words = &words[1..];
                    }
                }
                "timeout" => {
                    words = rest;
                    while words.first().is_some_and(|w| w.0.starts_with('-')) {
                        words = &words[1..];
                    }
                    if !words.is_empty() {
                        words = &words[1..];
                    }
                }
                _ => return words,
            }
        }
    }

    /// The command name (basename) after wrappers.
    pub fn name(&self) -> Option<&str> {
        self.argv().first().map(|w| basename(&w.0))
    }

    /// The whole command as text, for messages.
    pub fn text(&self) -> String {
        self.words
            .iter()
            .map(|w| {
                if w.0.is_empty() {
                    "''".to_owned()
                } else if w.0.contains(char::is_whitespace) && !w.0.starts_with("$(") {
                    format!("'{}'", w.0)
                } else {
                    w.0.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use crate::resolve::shell::parse;

    #[test]
    fn strips_command_wrappers() {
        let list = parse("exec env A=1 timeout 5 /bin/sleep 10");
        let command = list.simple_commands()[0];
        assert_eq!(command.name(), Some("sleep"));
        assert_eq!(command.argv()[1].0, "10");
    }
}
