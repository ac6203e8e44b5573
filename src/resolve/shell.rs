//! A reader for the POSIX shell that lifecycle remedies are written in.
//!
//! preStop hooks, start gates and Job stop calls live in `sh -c` scripts. This module
//! turns a container's `command`/`args` into a small syntax tree: lists (`;`, newline,
//! `&`), and-or chains (`&&`, `||`), pipelines, simple commands, groups, `if`, `while`,
//! `until`, `for`, functions and `trap`. It never fails: text it cannot make sense of is
//! kept as plain words, and nesting is bounded.

/// A word with quotes removed; `$…` expansions are kept verbatim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word(pub String);

/// A command name with arguments, and the `NAME=value` assignments before it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimpleCommand {
    /// `NAME=value` words before the command, which set its environment (`rc=$?`).
    pub assignments: Vec<(String, String)>,
    /// The command and its arguments.
    pub words: Vec<Word>,
}

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

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Word(Word),
    /// `;`, `&&`, `||`, `|`, `&`, `(`, `)`, `;;`, newline as `\n`.
    Op(&'static str),
}

/// Nesting beyond this is read as plain words.
const MAX_DEPTH: usize = 32;

/// Parses a shell script.
pub fn parse(script: &str) -> List {
    let tokens = tokenize(script);
    let mut parser = Parser {
        tokens,
        at: 0,
        depth: 0,
    };
    parser.list(&[])
}

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
            })],
        },
        rest: Vec::new(),
        background: false,
    }])
}

const SHELLS: [&str; 6] = ["sh", "bash", "ash", "dash", "zsh", "ksh"];

/// The script of `sh -c SCRIPT` (also `busybox sh -c`, `/bin/bash -ec --`).
pub fn shell_script(argv: &[String]) -> Option<&str> {
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
    if has_c {
        rest.first().map(String::as_str)
    } else {
        None
    }
}

/// The last path component: `/usr/bin/curl` → `curl`.
pub fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn peek_word(&self) -> Option<&str> {
        match self.peek() {
            Some(Token::Word(Word(w))) => Some(w),
            _ => None,
        }
    }

    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Some(Token::Op(o)) if *o == op)
    }

    fn skip_newlines(&mut self) {
        while self.is_op("\n") {
            self.at += 1;
        }
    }

    fn eat_word(&mut self, word: &str) -> bool {
        if self.peek_word() == Some(word) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// A list, up to EOF, `)`, or one of `terminators` in command position.
    fn list(&mut self, terminators: &[&str]) -> List {
        let mut items = Vec::new();
        loop {
            while self.is_op("\n") || self.is_op(";") || self.is_op(";;") {
                self.at += 1;
            }
            match self.peek() {
                None => break,
                Some(Token::Op(")")) => break,
                Some(Token::Word(Word(w))) if terminators.contains(&w.as_str()) => break,
                _ => {}
            }
            let before = self.at;
            let Some(mut item) = self.and_or(terminators) else {
                if self.at == before {
                    self.at += 1;
                }
                continue;
            };
            if self.is_op("&") {
                self.at += 1;
                item.background = true;
            }
            items.push(item);
        }
        List(items)
    }

    fn and_or(&mut self, terminators: &[&str]) -> Option<AndOr> {
        let first = self.pipeline(terminators)?;
        let mut rest = Vec::new();
        loop {
            let connector = if self.is_op("&&") {
                Connector::And
            } else if self.is_op("||") {
                Connector::Or
            } else {
                break;
            };
            self.at += 1;
            self.skip_newlines();
            match self.pipeline(terminators) {
                Some(next) => rest.push((connector, next)),
                None => break,
            }
        }
        Some(AndOr {
            first,
            rest,
            background: false,
        })
    }

    fn pipeline(&mut self, terminators: &[&str]) -> Option<Pipeline> {
        let negated = self.eat_word("!");
        let mut commands = vec![self.command(terminators)?];
        while self.is_op("|") {
            self.at += 1;
            self.skip_newlines();
            match self.command(terminators) {
                Some(command) => commands.push(command),
                None => break,
            }
        }
        Some(Pipeline { negated, commands })
    }

    fn command(&mut self, terminators: &[&str]) -> Option<Command> {
        if self.depth >= MAX_DEPTH {
            return self.simple(terminators).map(Command::Simple);
        }
        self.depth += 1;
        let command = self.compound(terminators);
        self.depth -= 1;
        command
    }

    fn compound(&mut self, terminators: &[&str]) -> Option<Command> {
        if self.is_op("(") {
            self.at += 1;
            let body = self.list(&[]);
            if self.is_op(")") {
                self.at += 1;
            }
            return Some(Command::Group(body));
        }
        match self.peek_word()? {
            "{" => {
                self.at += 1;
                let body = self.list(&["}"]);
                self.eat_word("}");
                Some(Command::Group(body))
            }
            "if" => {
                self.at += 1;
                let mut branches = Vec::new();
                let mut otherwise = None;
                loop {
                    let condition = self.list(&["then"]);
                    self.eat_word("then");
                    let body = self.list(&["elif", "else", "fi"]);
                    branches.push((condition, body));
                    if self.eat_word("elif") {
                        continue;
                    }
                    if self.eat_word("else") {
                        otherwise = Some(self.list(&["fi"]));
                    }
                    self.eat_word("fi");
                    break;
                }
                Some(Command::If {
                    branches,
                    otherwise,
                })
            }
            "while" | "until" => {
                let kind = if self.peek_word() == Some("while") {
                    LoopKind::While
                } else {
                    LoopKind::Until
                };
                self.at += 1;
                let condition = self.list(&["do"]);
                self.eat_word("do");
                let body = self.list(&["done"]);
                self.eat_word("done");
                Some(Command::Loop {
                    kind,
                    condition,
                    body,
                })
            }
            "for" => {
                self.at += 1;
                while !self.eat_word("do") && self.peek().is_some() {
                    self.at += 1;
                }
                let body = self.list(&["done"]);
                self.eat_word("done");
                Some(Command::For { body })
            }
            "case" => {
                while !self.eat_word("esac") && self.peek().is_some() {
                    self.at += 1;
                }
                Some(Command::Case)
            }
            _ => {
                let simple = self.simple(terminators)?;
                if simple.words.len() == 1
                    && self.is_op("(")
                    && let Some(Token::Op(")")) = self.tokens.get(self.at + 1)
                {
                    self.at += 2;
                    self.skip_newlines();
                    let body = self.command(terminators)?;
                    return Some(Command::Function {
                        name: simple.words[0].0.clone(),
                        body: Box::new(body),
                    });
                }
                Some(Command::Simple(simple))
            }
        }
    }

    fn simple(&mut self, terminators: &[&str]) -> Option<SimpleCommand> {
        let mut command = SimpleCommand::default();
        while let Some(Token::Word(Word(word))) = self.peek() {
            if command.words.is_empty()
                && command.assignments.is_empty()
                && terminators.contains(&word.as_str())
            {
                break;
            }
            if command.words.is_empty()
                && let Some((name, value)) = assignment(word)
            {
                command.assignments.push((name, value));
                self.at += 1;
                continue;
            }
            command.words.push(Word(word.clone()));
            self.at += 1;
        }
        (!command.words.is_empty() || !command.assignments.is_empty()).then_some(command)
    }
}

fn assignment(word: &str) -> Option<(String, String)> {
    let (name, value) = word.split_once('=')?;
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then(|| (name.to_owned(), value.to_owned()))
}

fn tokenize(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\r' => i += 1,
            '\\' if chars.get(i + 1) == Some(&'\n') => i += 2,
            '\n' => {
                tokens.push(Token::Op("\n"));
                i += 1;
            }
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ';' | '&' | '|' | '(' | ')' => {
                let next = chars.get(i + 1).copied();
                let (op, len) = match (c, next) {
                    (';', Some(';')) => (";;", 2),
                    ('&', Some('&')) => ("&&", 2),
                    ('|', Some('|')) => ("||", 2),
                    ('&', Some('>')) => {
                        // `&> file` redirection: skip it and its target.
                        i = skip_redirect_target(&chars, i + 2);
                        continue;
                    }
                    (';', _) => (";", 1),
                    ('&', _) => ("&", 1),
                    ('|', _) => ("|", 1),
                    ('(', _) => ("(", 1),
                    _ => (")", 1),
                };
                tokens.push(Token::Op(op));
                i += len;
            }
            '<' | '>' => {
                i = skip_redirection(&chars, i);
            }
            _ => {
                let (word, next) = read_word(&chars, i);
                // `2>&1`, `2>/dev/null`: a file-descriptor number glued to a redirection.
                if word.0.chars().all(|c| c.is_ascii_digit())
                    && matches!(chars.get(next), Some('<' | '>'))
                {
                    i = skip_redirection(&chars, next);
                    continue;
                }
                tokens.push(Token::Word(word));
                i = next;
            }
        }
    }
    tokens
}

/// Skips `>`, `>>`, `<`, `<<`, `>&2`, `<<-` and the word they take.
fn skip_redirection(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() && matches!(chars[i], '<' | '>' | '-') {
        i += 1;
    }
    if chars.get(i) == Some(&'&') {
        i += 1;
    }
    skip_redirect_target(chars, i)
}

fn skip_redirect_target(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() && matches!(chars[i], ' ' | '\t') {
        i += 1;
    }
    if i < chars.len() && !matches!(chars[i], '\n' | ';' | '&' | '|' | '(' | ')') {
        i = read_word(chars, i).1;
    }
    i
}

/// Reads one word from `start`: quotes removed, escapes applied, `$(…)`, `${…}` and
/// backquotes kept verbatim.
fn read_word(chars: &[char], start: usize) -> (Word, usize) {
    let mut text = String::new();
    let mut i = start;
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\r' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>' => break,
            '\'' => {
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    text.push(chars[i]);
                    i += 1;
                }
                i += 1;
            }
            '"' => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    match chars[i] {
                        '\\' if matches!(chars.get(i + 1), Some('"' | '\\' | '$' | '`')) => {
                            text.push(chars[i + 1]);
                            i += 2;
                        }
                        '\\' if chars.get(i + 1) == Some(&'\n') => i += 2,
                        '$' if chars.get(i + 1) == Some(&'(') => {
                            i = copy_balanced(chars, i, &mut text);
                        }
                        other => {
                            text.push(other);
                            i += 1;
                        }
                    }
                }
                i += 1;
            }
            '\\' => {
                if let Some(&next) = chars.get(i + 1)
                    && next != '\n'
                {
                    text.push(next);
                }
                i += 2;
            }
            '$' if matches!(chars.get(i + 1), Some('(' | '{')) => {
                i = copy_balanced(chars, i, &mut text);
            }
            '`' => {
                text.push('`');
                i += 1;
                while i < chars.len() && chars[i] != '`' {
                    text.push(chars[i]);
                    i += 1;
                }
                text.push('`');
                i += 1;
            }
            other => {
                text.push(other);
                i += 1;
            }
        }
    }
    (Word(text), i.min(chars.len()).max(start + 1))
}

/// Copies `$(…)`, `$((…))` or `${…}` starting at `start` (the `$`), honouring nesting
/// and quotes. Returns the index after it.
fn copy_balanced(chars: &[char], start: usize, out: &mut String) -> usize {
    let (open, close) = if chars.get(start + 1) == Some(&'{') {
        ('{', '}')
    } else {
        ('(', ')')
    };
    out.push('$');
    let mut depth = 0usize;
    let mut i = start + 1;
    let mut quote: Option<char> = None;
    while i < chars.len() {
        let c = chars[i];
        out.push(c);
        i += 1;
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == open => depth += 1,
            None if c == close => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            None => {}
        }
    }
    i
}

impl List {
    /// Every simple command, in order, at any depth (loop bodies, groups, traps
    /// excluded: their text is a word of the `trap` command).
    pub fn simple_commands(&self) -> Vec<&SimpleCommand> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect<'a>(&'a self, out: &mut Vec<&'a SimpleCommand>) {
        for item in &self.0 {
            for pipeline in std::iter::once(&item.first).chain(item.rest.iter().map(|(_, p)| p)) {
                for command in &pipeline.commands {
                    command.collect(out);
                }
            }
        }
    }

    /// Whether the list has no commands.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
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
    use super::*;

    fn names(list: &List) -> Vec<String> {
        list.simple_commands()
            .iter()
            .filter_map(|c| c.name().map(str::to_owned))
            .collect()
    }

    #[test]
    fn reads_lists_and_connectors() {
        let list = parse("run-job && curl -X POST localhost:15020/quitquitquit; exit $?");
        assert_eq!(list.0.len(), 2);
        assert_eq!(list.0[0].rest[0].0, Connector::And);
        assert_eq!(names(&list), ["run-job", "curl", "exit"]);
    }

    #[test]
    fn reads_quotes_and_expansions() {
        let list = parse(r#"echo "a b" 'c d' $(pidof "pilot agent") x\ y"#);
        let command = list.simple_commands()[0];
        let words: Vec<&str> = command.words.iter().map(|w| w.0.as_str()).collect();
        assert_eq!(
            words,
            ["echo", "a b", "c d", "$(pidof \"pilot agent\")", "x y"]
        );
    }

    #[test]
    fn reads_loops_and_conditionals() {
        let list = parse(
            "until curl -fsI http://localhost:15021/healthz/ready; do echo waiting; sleep 1; done\nexec /app",
        );
        assert!(matches!(
            list.0[0].first.commands[0],
            Command::Loop {
                kind: LoopKind::Until,
                ..
            }
        ));
        assert_eq!(names(&list), ["curl", "echo", "sleep", "app"]);
        let list = parse("if [ -f x ]; then sleep 5; else sleep 2; fi");
        assert_eq!(names(&list), ["[", "sleep", "sleep"]);
    }

    #[test]
    fn skips_redirections() {
        let list = parse("curl -s localhost:15000 > /dev/null 2>&1; sleep 3 &> /dev/null");
        assert_eq!(list.simple_commands()[0].words.len(), 3);
        assert_eq!(list.simple_commands()[1].words.len(), 2);
    }

    #[test]
    fn strips_command_wrappers() {
        let list = parse("exec env A=1 timeout 5 /bin/sleep 10");
        let command = list.simple_commands()[0];
        assert_eq!(command.name(), Some("sleep"));
        assert_eq!(command.argv()[1].0, "10");
    }

    #[test]
    fn finds_the_script_of_a_shell_invocation() {
        let argv: Vec<String> = ["/bin/bash", "-ec", "--", "sleep 5"]
            .map(String::from)
            .to_vec();
        assert_eq!(shell_script(&argv), Some("sleep 5"));
        let argv: Vec<String> = ["sleep", "5"].map(String::from).to_vec();
        assert_eq!(shell_script(&argv), None);
        assert_eq!(names(&parse_argv(&argv)), ["sleep"]);
    }

    #[test]
    fn functions_and_traps_parse() {
        let list =
            parse("quit() { curl -X POST localhost:15020/quitquitquit; }\ntrap quit EXIT\n./work");
        assert!(matches!(
            list.0[0].first.commands[0],
            Command::Function { .. }
        ));
        assert_eq!(names(&list), ["curl", "trap", "work"]);
    }

    #[test]
    fn hostile_nesting_is_bounded() {
        let script = "(".repeat(10_000) + "true" + &")".repeat(10_000);
        let _ = parse(&script);
        let script = "if true; then ".repeat(5_000);
        let _ = parse(&script);
    }

    #[test]
    fn unterminated_quotes_do_not_panic() {
        let _ = parse("echo \"unterminated $(foo");
        let _ = parse("echo 'x");
        let _ = parse("${");
    }
}
