//! Splits a script into words and operators.
//!
//! Quotes are removed, escapes applied, `$(…)`, `${…}` and backquotes kept verbatim in
//! their word; comments and redirections (with their targets) are dropped.

use super::syntax::Word;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Token {
    Word(Word),
    /// `;`, `&&`, `||`, `|`, `&`, `(`, `)`, `;;`, newline as `\n`.
    Op(&'static str),
}

pub(super) fn tokenize(text: &str) -> Vec<Token> {
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
