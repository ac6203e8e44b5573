//! Splits a script into words and operators.
//!
//! Quotes are removed, escapes applied, `$(…)`, `${…}` and backquotes kept verbatim in
//! their word; comments and redirections (with their targets) are dropped.
//!
//! Here-document bodies are dropped too: they are the input of a command, not commands
//! (POSIX Shell Command Language, 2.7.4 "Here-Document"). A body starts after the newline that ends the
//! line of its `<<WORD` and runs to a line that is exactly `WORD` (after leading tabs for
//! `<<-WORD`); quotes in `WORD` are removed, and several bodies on one line follow each
//! other in order. A body whose delimiter never comes runs to the end of the script, as
//! shells read it.

use super::syntax::Word;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Token {
    Word(Word),
    /// `;`, `&&`, `||`, `|`, `&`, `(`, `)`, `;;`, newline as `\n`.
    Op(&'static str),
}

/// A here-document whose operator was read and whose body comes after the line.
struct PendingBody {
    delimiter: Vec<char>,
    /// `<<-`: leading tabs are stripped from the body and the delimiter line.
    strip_tabs: bool,
}

/// The tokens of `text`, each with where it is written (byte offsets in `text`).
pub(super) fn tokenize(text: &str) -> Vec<(Token, std::ops::Range<usize>)> {
    let chars: Vec<char> = text.chars().collect();
    // The byte offset of each char index, and of the end.
    let bytes: Vec<usize> = text
        .char_indices()
        .map(|(at, _)| at)
        .chain(std::iter::once(text.len()))
        .collect();
    let mut tokens = Vec::new();
    let mut pending = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\r' => i += 1,
            '\\' if chars.get(i + 1) == Some(&'\n') => i += 2,
            '\n' => {
                tokens.push((Token::Op("\n"), bytes[i]..bytes[i + 1]));
                i += 1;
                for body in pending.drain(..) {
                    i = skip_here_document(&chars, i, &body);
                }
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
                tokens.push((Token::Op(op), bytes[i]..bytes[i + len]));
                i += len;
            }
            '<' | '>' => {
                i = redirection(&chars, i, &mut pending);
            }
            _ => {
                let (word, next) = read_word(&chars, i);
                // `2>&1`, `2>/dev/null`: a file-descriptor number glued to a redirection.
                if word.0.chars().all(|c| c.is_ascii_digit())
                    && matches!(chars.get(next), Some('<' | '>'))
                {
                    i = redirection(&chars, next, &mut pending);
                    continue;
                }
                tokens.push((Token::Word(word), bytes[i]..bytes[next]));
                i = next;
            }
        }
    }
    tokens
}

/// Skips the redirection at `i` and the word it takes; a here-document operator
/// (`<<WORD`, `<<-WORD`, not the here-string `<<<`) leaves its body pending.
fn redirection(chars: &[char], i: usize, pending: &mut Vec<PendingBody>) -> usize {
    let here_document =
        chars.get(i..i + 2) == Some(&['<', '<'][..]) && chars.get(i + 2) != Some(&'<');
    if !here_document {
        return skip_redirection(chars, i);
    }
    let strip_tabs = chars.get(i + 2) == Some(&'-');
    let mut at = i + 2 + usize::from(strip_tabs);
    while at < chars.len() && matches!(chars[at], ' ' | '\t') {
        at += 1;
    }
    if at >= chars.len() || matches!(chars[at], '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>') {
        // `cat <<` with no delimiter: nothing to wait for.
        return at;
    }
    let (delimiter, next) = read_word(chars, at);
    pending.push(PendingBody {
        delimiter: delimiter.0.chars().collect(),
        strip_tabs,
    });
    next
}

/// Skips a here-document body starting at `start` (a line start) and its delimiter
/// line; returns where the script goes on. Linear in the body's length.
fn skip_here_document(chars: &[char], start: usize, body: &PendingBody) -> usize {
    let mut line_start = start;
    while line_start < chars.len() {
        let line_end = chars[line_start..]
            .iter()
            .position(|&c| c == '\n')
            .map_or(chars.len(), |at| line_start + at);
        let mut line = &chars[line_start..line_end];
        if body.strip_tabs {
            line = &line[line.iter().take_while(|&&c| c == '\t').count()..];
        }
        if line == body.delimiter.as_slice() {
            return (line_end + 1).min(chars.len());
        }
        line_start = line_end + 1;
    }
    chars.len()
}

/// Skips `>`, `>>`, `<`, `<<<`, `>&2` and the word they take.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The tokens of `script` as text: words as they read, operators as written.
    fn tokens(script: &str) -> Vec<String> {
        tokenize(script)
            .into_iter()
            .map(|(token, _)| match token {
                Token::Word(word) => word.0,
                Token::Op(op) => op.to_owned(),
            })
            .collect()
    }

    #[test]
    fn tokens_know_where_they_are_written() {
        let script = "é=1 curl -X POST 'http://x'  # stop\n";
        let spans: Vec<&str> = tokenize(script)
            .into_iter()
            .map(|(_, span)| &script[span])
            .collect();
        assert_eq!(spans, ["é=1", "curl", "-X", "POST", "'http://x'", "\n"]);
    }

    #[test]
    fn here_document_bodies_are_not_commands() {
        assert_eq!(
            tokens("cat <<EOF\nsleep 100\nEOF\nsleep 5"),
            ["cat", "\n", "sleep", "5"]
        );
        // The body starts after the line, which goes on after the operator.
        assert_eq!(
            tokens("cat <<EOF > /tmp/x; sleep 5\nsleep 100\nEOF\necho done"),
            ["cat", ";", "sleep", "5", "\n", "echo", "done"]
        );
        // Only a line that is exactly the delimiter ends the body.
        assert_eq!(
            tokens("cat <<EOF\n EOF\nEOF x\nEOFX\nEOF\ntrue"),
            ["cat", "\n", "true"]
        );
    }

    #[test]
    fn tabs_are_stripped_only_for_dash() {
        assert_eq!(
            tokens("cat <<-EOF\n\tsleep 100\n\t\tEOF\nsleep 5"),
            ["cat", "\n", "sleep", "5"]
        );
        // Without `-`, a tab-indented delimiter does not end the body.
        assert_eq!(tokens("cat <<EOF\n\tEOF\nsleep 5"), ["cat", "\n"]);
        // Spaces are never stripped.
        assert_eq!(tokens("cat <<-EOF\n  EOF\nsleep 5"), ["cat", "\n"]);
    }

    #[test]
    fn quoted_delimiters_lose_their_quotes() {
        for operator in [
            "<<'EOF'",
            "<<\"EOF\"",
            "<<\\EOF",
            "<<E'O'F",
            "<< EOF",
            "<<-'EOF'",
        ] {
            assert_eq!(
                tokens(&format!("cat {operator}\n$(sleep 100)\nEOF\nsleep 5")),
                ["cat", "\n", "sleep", "5"],
                "{operator}"
            );
        }
    }

    #[test]
    fn several_here_documents_follow_each_other() {
        assert_eq!(
            tokens("cat <<A - <<-B && echo ok\nsleep 1\nA\n\tsleep 2\n\tB\nsleep 3"),
            ["cat", "-", "&&", "echo", "ok", "\n", "sleep", "3"]
        );
        assert_eq!(
            tokens("cat <<A\na\nA\ncat 3<<B\nb\nB\nsleep 3"),
            ["cat", "\n", "cat", "\n", "sleep", "3"]
        );
    }

    #[test]
    fn an_unterminated_here_document_runs_to_the_end() {
        assert_eq!(tokens("cat <<EOF\nsleep 100\nsleep 200"), ["cat", "\n"]);
        assert_eq!(tokens("cat <<EOF"), ["cat"]);
        assert_eq!(tokens("cat <<EOF\n"), ["cat", "\n"]);
        assert_eq!(tokens("cat <<\nsleep 5"), ["cat", "\n", "sleep", "5"]);
        assert_eq!(tokens("cat <<'EOF\nsleep 5"), ["cat"]);
    }

    #[test]
    fn here_strings_and_continued_lines_are_not_here_documents() {
        assert_eq!(
            tokens("cat <<< 'sleep 100'; sleep 6"),
            ["cat", ";", "sleep", "6"]
        );
        // A continued line is one line: the body starts after it.
        assert_eq!(
            tokens("cat <<EOF \\\n -n\nsleep 100\nEOF\nsleep 5"),
            ["cat", "-n", "\n", "sleep", "5"]
        );
    }

    #[test]
    fn a_long_here_document_is_read_in_linear_time() {
        let body = "sleep 100 <<EOF\n".repeat(200_000);
        let script = format!("cat <<EOF\n{body}EOF\nsleep 5");
        assert_eq!(tokens(&script), ["cat", "\n", "sleep", "5"]);
    }
}
