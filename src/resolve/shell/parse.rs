//! Builds the syntax tree from tokens, leniently: it never fails.
//!
//! Text it cannot make sense of is kept as plain words or skipped, unterminated
//! constructs end at the end of the script, and nesting deeper than [`MAX_DEPTH`] is
//! read as plain words, so hostile input costs linear time.

use std::ops::Range;

use super::lexer::{Token, tokenize};
use super::syntax::{AndOr, Command, Connector, List, LoopKind, Pipeline, SimpleCommand, Word};

/// Nesting beyond this is read as plain words.
const MAX_DEPTH: usize = 32;

/// Parses a shell script.
pub fn parse(script: &str) -> List {
    let (tokens, spans) = tokenize(script).into_iter().unzip();
    let mut parser = Parser {
        tokens,
        spans,
        end: script.len(),
        at: 0,
        depth: 0,
    };
    parser.list(&[])
}

struct Parser {
    tokens: Vec<Token>,
    /// Where each token is in the script.
    spans: Vec<Range<usize>>,
    /// The script's length.
    end: usize,
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
        let start = self.at;
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
        // To the next operator: redirections and a comment after the words are the
        // command's too.
        let end = self.spans.get(self.at).map_or(self.end, |span| span.start);
        command.span = self.spans.get(start).map_or(end, |span| span.start)..end;
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
    fn a_command_knows_where_it_is_written_with_its_redirections_and_comment() {
        let script = "./migrate > /tmp/log 2>&1; curl -X POST 'x' # stop\n  exit 0";
        let spans: Vec<&str> = parse(script)
            .simple_commands()
            .into_iter()
            .map(|command| &script[command.span.clone()])
            .collect();
        assert_eq!(
            spans,
            [
                "./migrate > /tmp/log 2>&1",
                "curl -X POST 'x' # stop",
                "exit 0"
            ]
        );
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
