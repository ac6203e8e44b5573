//! JSON input, read as kubectl reads it.
//!
//! kubectl reads a stream whose first character (after white space, within its first
//! 4096 bytes) is `{` as a stream of JSON values, decoded with Go's `encoding/json`
//! (k8s.io/apimachinery `pkg/util/yaml/decoder.go`, `YAMLOrJSONDecoder`), so
//! `{"kind": "Pod", …}{"kind": "Pod", …}` is two objects, and numbers, escapes and
//! errors are JSON's, not YAML's. [`Scanner`] follows Go's `encoding/json` scanner byte
//! by byte, so the splitter can find where each value ends (and whether it is valid)
//! without holding more than one value; [`parse_document`] builds the tree of one value
//! with every node's position.

use std::cell::Cell;

use super::parse::{Limits, MapBuilder, SyntaxError};
use super::tree::{Node, Pos, Span, Style, Value};

/// What one more byte does to the value being scanned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// The value goes on (or has not started: white space before it).
    Continue,
    /// The value ended with this byte (`}`, `]`, `"`, the last letter of `true`).
    EndWith,
    /// The value (a number) ended just before this byte, which belongs to what follows.
    EndBefore,
    /// This byte cannot come here: Go's message (`invalid character 'a' looking for
    /// beginning of object key string`).
    Error(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    BeginValue,
    BeginValueOrEnd,
    BeginKeyOrEnd,
    BeginKey,
    Colon,
    EndValue,
    InString,
    Escape,
    Unicode(u8),
    Minus,
    Zero,
    Digits,
    Dot,
    Fraction,
    Exponent,
    ExponentSign,
    ExponentDigits,
    Literal(&'static [u8], usize),
}

/// Where in a collection the scanner is, as Go's `parseState`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Context {
    ObjectKey,
    ObjectValue,
    ArrayValue,
}

/// Go's `encoding/json` nesting limit.
const MAX_NESTING: usize = 10_000;

/// Finds the end of one top-level JSON value, byte by byte, as Go's scanner does.
#[derive(Clone, Debug)]
pub struct Scanner {
    state: State,
    stack: Vec<Context>,
    started: bool,
}

impl Default for Scanner {
    fn default() -> Self {
        Scanner {
            state: State::BeginValue,
            stack: Vec::new(),
            started: false,
        }
    }
}

impl Scanner {
    /// Whether a value has begun (anything but white space was seen).
    pub fn started(&self) -> bool {
        self.started
    }

    /// Feeds one byte.
    pub fn step(&mut self, c: u8) -> Step {
        use State::*;
        let is_space = matches!(c, b' ' | b'\t' | b'\n' | b'\r');
        match self.state {
            BeginValue | BeginValueOrEnd | BeginKey | BeginKeyOrEnd | Colon | EndValue
                if is_space =>
            {
                Step::Continue
            }
            BeginValueOrEnd if c == b']' => self.end_collection(),
            BeginValue | BeginValueOrEnd => self.begin_value(c),
            BeginKeyOrEnd if c == b'}' => self.end_collection(),
            BeginKeyOrEnd | BeginKey => {
                if c == b'"' {
                    self.state = InString;
                    Step::Continue
                } else {
                    error(c, "looking for beginning of object key string")
                }
            }
            Colon => {
                if c == b':' {
                    self.replace_context(Context::ObjectValue);
                    self.state = BeginValue;
                    Step::Continue
                } else {
                    error(c, "after object key")
                }
            }
            EndValue => self.end_value(c),
            InString => match c {
                b'"' => self.value_done(),
                b'\\' => {
                    self.state = Escape;
                    Step::Continue
                }
                0..0x20 => error(c, "in string literal"),
                _ => Step::Continue,
            },
            Escape => match c {
                b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => {
                    self.state = InString;
                    Step::Continue
                }
                b'u' => {
                    self.state = Unicode(0);
                    Step::Continue
                }
                _ => error(c, "in string escape code"),
            },
            Unicode(seen) => {
                if !c.is_ascii_hexdigit() {
                    return error(c, "in \\u hexadecimal character escape");
                }
                self.state = if seen == 3 {
                    InString
                } else {
                    Unicode(seen + 1)
                };
                Step::Continue
            }
            Minus => match c {
                b'0' => self.then(Zero),
                b'1'..=b'9' => self.then(Digits),
                _ => error(c, "in numeric literal"),
            },
            Zero | Digits => match c {
                b'0'..=b'9' if self.state == Digits => Step::Continue,
                b'.' => self.then(Dot),
                b'e' | b'E' => self.then(Exponent),
                _ => self.number_done(c),
            },
            Dot => match c {
                b'0'..=b'9' => self.then(Fraction),
                _ => error(c, "after decimal point in numeric literal"),
            },
            Fraction => match c {
                b'0'..=b'9' => Step::Continue,
                b'e' | b'E' => self.then(Exponent),
                _ => self.number_done(c),
            },
            Exponent => match c {
                b'+' | b'-' => self.then(ExponentSign),
                b'0'..=b'9' => self.then(ExponentDigits),
                _ => error(c, "in exponent of numeric literal"),
            },
            ExponentSign => match c {
                b'0'..=b'9' => self.then(ExponentDigits),
                _ => error(c, "in exponent of numeric literal"),
            },
            ExponentDigits => match c {
                b'0'..=b'9' => Step::Continue,
                _ => self.number_done(c),
            },
            Literal(word, next) => {
                if c != word[next] {
                    let word = std::str::from_utf8(word).unwrap_or_default();
                    return error(
                        c,
                        &format!(
                            "in literal {word} (expecting '{}')",
                            word.as_bytes()[next] as char
                        ),
                    );
                }
                if next + 1 == word.len() {
                    self.value_done()
                } else {
                    self.then(Literal(word, next + 1))
                }
            }
        }
    }

    /// How many of `bytes`' leading bytes [`Scanner::step`] would take without a change
    /// of state: a string's plain characters, white space between tokens, a number's
    /// digits. The splitter skips them in one pass instead of a step per byte.
    pub fn plain_run(&self, bytes: &[u8]) -> usize {
        use State::*;
        let run =
            |stops: fn(u8) -> bool| bytes.iter().position(|&b| stops(b)).unwrap_or(bytes.len());
        match self.state {
            InString => run(|b| b == b'"' || b == b'\\' || b < 0x20),
            BeginValue | BeginValueOrEnd | BeginKey | BeginKeyOrEnd | Colon | EndValue => {
                run(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            }
            Digits | Fraction | ExponentDigits => run(|b| !b.is_ascii_digit()),
            _ => 0,
        }
    }

    /// The end of the input: a top-level number ends there; anything else unfinished is
    /// cut short.
    pub fn finish(&mut self) -> Step {
        match self.state {
            State::Zero | State::Digits | State::Fraction | State::ExponentDigits
                if self.stack.is_empty() =>
            {
                *self = Scanner::default();
                Step::EndBefore
            }
            State::BeginValue if !self.started => Step::Continue,
            _ => Step::Error("unexpected end of JSON input".into()),
        }
    }

    fn then(&mut self, state: State) -> Step {
        self.state = state;
        Step::Continue
    }

    fn begin_value(&mut self, c: u8) -> Step {
        self.started = true;
        match c {
            b'{' | b'[' => {
                if self.stack.len() >= MAX_NESTING {
                    return Step::Error("exceeded max depth".into());
                }
                if c == b'{' {
                    self.stack.push(Context::ObjectKey);
                    self.then(State::BeginKeyOrEnd)
                } else {
                    self.stack.push(Context::ArrayValue);
                    self.then(State::BeginValueOrEnd)
                }
            }
            b'"' => self.then(State::InString),
            b'-' => self.then(State::Minus),
            b'0' => self.then(State::Zero),
            b'1'..=b'9' => self.then(State::Digits),
            b't' => self.then(State::Literal(b"true", 1)),
            b'f' => self.then(State::Literal(b"false", 1)),
            b'n' => self.then(State::Literal(b"null", 1)),
            _ => error(c, "looking for beginning of value"),
        }
    }

    fn replace_context(&mut self, context: Context) {
        if let Some(top) = self.stack.last_mut() {
            *top = context;
        }
    }

    /// A scalar or collection value is complete.
    fn value_done(&mut self) -> Step {
        if self.state == State::InString && self.stack.last() == Some(&Context::ObjectKey) {
            self.state = State::Colon;
            return Step::Continue;
        }
        if self.stack.is_empty() {
            *self = Scanner::default();
            return Step::EndWith;
        }
        self.then(State::EndValue)
    }

    fn number_done(&mut self, c: u8) -> Step {
        if self.stack.is_empty() {
            *self = Scanner::default();
            return Step::EndBefore;
        }
        self.state = State::EndValue;
        self.end_value(c)
    }

    fn end_collection(&mut self) -> Step {
        self.stack.pop();
        if self.stack.is_empty() {
            *self = Scanner::default();
            return Step::EndWith;
        }
        self.then(State::EndValue)
    }

    fn end_value(&mut self, c: u8) -> Step {
        if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
            return Step::Continue;
        }
        match self.stack.last() {
            Some(Context::ObjectValue) => match c {
                b',' => {
                    self.replace_context(Context::ObjectKey);
                    self.then(State::BeginKey)
                }
                b'}' => self.end_collection(),
                _ => error(c, "after object key:value pair"),
            },
            Some(Context::ArrayValue) => match c {
                b',' => self.then(State::BeginValue),
                b']' => self.end_collection(),
                _ => error(c, "after array element"),
            },
            Some(Context::ObjectKey) => error(c, "after object key"),
            None => Step::EndBefore,
        }
    }
}

/// Go's `invalid character 'x' <context>`, the byte quoted as `quoteChar` does.
fn error(c: u8, context: &str) -> Step {
    let quoted = match c {
        b'\'' => "'\\''".to_owned(),
        b'"' => "'\"'".to_owned(),
        // strconv.Quote's escapes: `\x1b`, not Rust's `\u{1b}`.
        0x07 => "'\\a'".to_owned(),
        0x08 => "'\\b'".to_owned(),
        0x0c => "'\\f'".to_owned(),
        0x0b => "'\\v'".to_owned(),
        b'\t' => "'\\t'".to_owned(),
        b'\n' => "'\\n'".to_owned(),
        b'\r' => "'\\r'".to_owned(),
        0..0x20 | 0x7f => format!("'\\x{c:02x}'"),
        _ => {
            let text: String = char::from(c).escape_debug().collect();
            format!("'{text}'")
        }
    };
    Step::Error(format!("invalid character {quoted} {context}"))
}

/// Builds the tree of the one JSON value in `text` (a chunk the splitter found to be
/// JSON; white space around the value is allowed). `first_line` is the line of the
/// text's first line in its file.
pub fn parse_document(
    text: &str,
    first_line: u32,
    limits: &Limits,
) -> Result<Vec<Node>, SyntaxError> {
    let mut reader = Reader {
        text: text.as_bytes(),
        at: 0,
        line: first_line,
        line_start: 0,
        counted: Cell::new((0, 0)),
        limits,
        depth: 0,
    };
    reader.skip_space();
    if reader.at == reader.text.len() {
        return Ok(Vec::new());
    }
    let root = reader.value()?;
    reader.skip_space();
    if reader.at < reader.text.len() {
        return Err(reader.error(format!(
            "invalid JSON: {} after top-level value",
            describe(reader.text[reader.at])
        )));
    }
    // `null` is skipped by kubectl (StreamVisitor); the caller drops null roots.
    Ok(vec![root])
}

struct Reader<'t> {
    text: &'t [u8],
    at: usize,
    line: u32,
    line_start: usize,
    /// How far into the current line the characters have been counted, and how many
    /// there are up to there: positions are asked for in order, so a line is counted
    /// once however many values it holds (minified JSON is one line).
    counted: Cell<(usize, u32)>,
    limits: &'t Limits,
    depth: usize,
}

impl Reader<'_> {
    fn pos(&self) -> Pos {
        let (mut from, mut column) = self.counted.get();
        if from < self.line_start || from > self.at {
            (from, column) = (self.line_start, 0);
        }
        // The text is UTF-8: each character has one byte that is no continuation byte.
        column += self.text[from..self.at]
            .iter()
            .filter(|&&b| b & 0xC0 != 0x80)
            .count() as u32;
        self.counted.set((self.at, column));
        Pos {
            line: self.line,
            column: column + 1,
        }
    }

    fn error(&self, message: String) -> SyntaxError {
        SyntaxError {
            message,
            pos: self.pos(),
            related: None,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' => self.at += 1,
                b'\n' => self.new_line(1),
                // A CR alone ends a line too, as it does for YAML and in the reports.
                b'\r' if self.text.get(self.at + 1) == Some(&b'\n') => self.new_line(2),
                b'\r' => self.new_line(1),
                _ => return,
            }
        }
    }

    fn new_line(&mut self, width: usize) {
        self.at += width;
        self.line += 1;
        self.line_start = self.at;
    }

    fn expect(&mut self, c: u8, context: &str) -> Result<(), SyntaxError> {
        self.skip_space();
        if self.peek() == Some(c) {
            self.at += 1;
            return Ok(());
        }
        Err(self.unexpected(context))
    }

    fn unexpected(&self, context: &str) -> SyntaxError {
        match self.peek() {
            Some(c) => self.error(format!("invalid JSON: {} {context}", describe(c))),
            None => self.error("invalid JSON: unexpected end of JSON input".into()),
        }
    }

    fn value(&mut self) -> Result<Node, SyntaxError> {
        self.skip_space();
        let start = self.pos();
        let (value, style) = match self.peek() {
            Some(b'{') => (self.object()?, Style::Plain),
            Some(b'[') => (self.array()?, Style::Plain),
            Some(b'"') => (Value::String(self.string()?), Style::DoubleQuoted),
            Some(b'-' | b'0'..=b'9') => (self.number()?, Style::Plain),
            Some(b't') => (self.literal("true", Value::Bool(true))?, Style::Plain),
            Some(b'f') => (self.literal("false", Value::Bool(false))?, Style::Plain),
            Some(b'n') => (self.literal("null", Value::Null)?, Style::Plain),
            _ => return Err(self.unexpected("looking for beginning of value")),
        };
        Ok(Node {
            span: Span {
                start,
                end: self.pos(),
            },
            value,
            style,
        })
    }

    fn enter(&mut self) -> Result<(), SyntaxError> {
        self.depth += 1;
        if self.depth > self.limits.max_depth {
            return Err(self.error(format!(
                "nesting deeper than {} levels; the document is skipped",
                self.limits.max_depth
            )));
        }
        self.at += 1;
        Ok(())
    }

    fn object(&mut self) -> Result<Value, SyntaxError> {
        self.enter()?;
        let mut map = MapBuilder::default();
        self.skip_space();
        if self.peek() == Some(b'}') {
            self.at += 1;
            self.depth -= 1;
            return Ok(Value::Map(map.into_entries()));
        }
        loop {
            self.skip_space();
            if self.peek() != Some(b'"') {
                return Err(self.unexpected("looking for beginning of object key string"));
            }
            let key_start = self.pos();
            let key = self.string()?;
            let key_span = Span {
                start: key_start,
                end: self.pos(),
            };
            self.expect(b':', "after object key")?;
            let value = self.value()?;
            map.insert(key, key_span, value)?;
            self.skip_space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    self.depth -= 1;
                    return Ok(Value::Map(map.into_entries()));
                }
                _ => return Err(self.unexpected("after object key:value pair")),
            }
        }
    }

    fn array(&mut self) -> Result<Value, SyntaxError> {
        self.enter()?;
        let mut items = Vec::new();
        self.skip_space();
        if self.peek() == Some(b']') {
            self.at += 1;
            self.depth -= 1;
            return Ok(Value::Seq(items));
        }
        loop {
            items.push(self.value()?);
            self.skip_space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    self.depth -= 1;
                    return Ok(Value::Seq(items));
                }
                _ => return Err(self.unexpected("after array element")),
            }
        }
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Value, SyntaxError> {
        for expected in word.bytes() {
            if self.peek() != Some(expected) {
                return Err(self.unexpected(&format!(
                    "in literal {word} (expecting '{}')",
                    expected as char
                )));
            }
            self.at += 1;
        }
        Ok(value)
    }

    /// A string token, its escapes decoded as Go decodes them (a lone surrogate becomes
    /// U+FFFD).
    fn string(&mut self) -> Result<String, SyntaxError> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let start = self.at;
            while let Some(c) = self.peek() {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.at += 1;
            }
            out.push_str(&String::from_utf8_lossy(&self.text[start..self.at]));
            match self.peek() {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.at += 1;
                    self.escape(&mut out)?;
                }
                _ => return Err(self.unexpected("in string literal")),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), SyntaxError> {
        let c = self.peek();
        self.at += 1;
        match c {
            Some(b'"') => out.push('"'),
            Some(b'\\') => out.push('\\'),
            Some(b'/') => out.push('/'),
            Some(b'b') => out.push('\u{8}'),
            Some(b'f') => out.push('\u{c}'),
            Some(b'n') => out.push('\n'),
            Some(b'r') => out.push('\r'),
            Some(b't') => out.push('\t'),
            Some(b'u') => {
                let high = self.hex4()?;
                if (0xD800..0xDC00).contains(&high) && self.text[self.at..].starts_with(b"\\u") {
                    let save = self.at;
                    self.at += 2;
                    let low = self.hex4()?;
                    if (0xDC00..0xE000).contains(&low) {
                        let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                        out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                        return Ok(());
                    }
                    self.at = save;
                }
                out.push(char::from_u32(high).unwrap_or('\u{FFFD}'));
            }
            _ => {
                self.at -= 1;
                return Err(self.unexpected("in string escape code"));
            }
        }
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let mut code = 0;
        for _ in 0..4 {
            match self.peek().and_then(|c| (c as char).to_digit(16)) {
                Some(digit) => code = code * 16 + digit,
                None => return Err(self.unexpected("in \\u hexadecimal character escape")),
            }
            self.at += 1;
        }
        Ok(code)
    }

    /// A number as kubectl decodes it (`UseNumber`, then `ConvertMapNumbers`): an
    /// integer when it reads as a 64-bit one, else a float; a float beyond its range is
    /// an error.
    fn number(&mut self) -> Result<Value, SyntaxError> {
        let start = self.at;
        let start_pos = self.pos();
        let mut scanner = Scanner::default();
        while let Some(c) = self.peek() {
            match scanner.step(c) {
                Step::Continue => self.at += 1,
                Step::Error(message) => return Err(self.error(format!("invalid JSON: {message}"))),
                Step::EndWith | Step::EndBefore => break,
            }
        }
        if let Step::Error(message) = scanner.finish() {
            return Err(self.error(format!("invalid JSON: {message}")));
        }
        let text = std::str::from_utf8(&self.text[start..self.at]).unwrap_or_default();
        if let Ok(int) = text.parse::<i64>() {
            return Ok(Value::Int(int));
        }
        match text.parse::<f64>() {
            Ok(float) if float.is_finite() => Ok(Value::Float(float)),
            _ => Err(SyntaxError {
                message: format!(
                    "JSON number `{text}` is beyond the range of a 64-bit float: kubectl refuses the document (json: cannot unmarshal number {text} into Go value of type float64)"
                ),
                pos: start_pos,
                related: None,
            }),
        }
    }
}

/// `invalid character 'x'`, for a byte where the tree builder stopped.
fn describe(c: u8) -> String {
    match error(c, "") {
        Step::Error(message) => message.trim_end().to_owned(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `text` and returns the index after each value's end, or the error.
    fn ends(text: &str) -> Result<Vec<usize>, String> {
        let mut scanner = Scanner::default();
        let mut found = Vec::new();
        let bytes = text.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            match scanner.step(bytes[at]) {
                Step::Continue => at += 1,
                Step::EndWith => {
                    at += 1;
                    found.push(at);
                }
                Step::EndBefore => found.push(at),
                Step::Error(message) => return Err(message),
            }
        }
        match scanner.finish() {
            Step::EndBefore => found.push(at),
            Step::Error(message) => return Err(message),
            _ => {}
        }
        Ok(found)
    }

    #[test]
    fn finds_each_value_of_a_stream() {
        assert_eq!(ends(r#"{"a": [1, {"b": "}"}]}{}"#), Ok(vec![22, 24]));
        assert_eq!(ends("{}\n  {\"x\": true}\n"), Ok(vec![2, 16]));
        assert_eq!(ends("12 \"s\" null"), Ok(vec![2, 6, 11]));
    }

    #[test]
    fn a_plain_run_is_what_stepping_would_take_without_a_change() {
        let texts = [
            r#"{"a": [1, -2.50e+3, {"b": "}\"\u00e9\\"}], "c": true, "d": null}"#,
            "{\n  \"items\": [\n    {\"k\":   \"v w\"},\n    12345 ]\n}\n  \"s\" 7",
            "[\"\t\"]",
            "  0.125 1e9 \"caf\u{e9}\"",
        ];
        for text in texts {
            let bytes = text.as_bytes();
            let mut scanner = Scanner::default();
            for at in 0..bytes.len() {
                let run = scanner.plain_run(&bytes[at..]);
                let mut skipping = scanner.clone();
                for &byte in &bytes[at..at + run] {
                    assert_eq!(skipping.step(byte), Step::Continue, "{text:?} at {at}");
                    assert_eq!(skipping.state, scanner.state, "{text:?} at {at}");
                    assert_eq!(skipping.started, scanner.started, "{text:?} at {at}");
                }
                if matches!(scanner.step(bytes[at]), Step::Error(_)) {
                    break;
                }
            }
        }
        let mut in_string = Scanner::default();
        in_string.step(b'"');
        assert_eq!(in_string.plain_run(b"abc\"def"), 3);
        assert_eq!(in_string.plain_run(b"ab\\n"), 2);
        assert_eq!(
            in_string.plain_run(b"a\tb"),
            1,
            "a control character is an error to step on"
        );
    }

    #[test]
    fn errors_are_go_s() {
        // encoding/json's scanner.go messages, which kubectl prints.
        assert_eq!(
            ends("{apiVersion: v1}"),
            Err("invalid character 'a' looking for beginning of object key string".into())
        );
        assert_eq!(
            ends("{\"a\": tru}"),
            Err("invalid character '}' in literal true (expecting 'e')".into())
        );
        assert_eq!(
            ends("{\"a\" 1}"),
            Err("invalid character '1' after object key".into())
        );
        assert_eq!(
            ends("[1 2]"),
            Err("invalid character '2' after array element".into())
        );
        assert_eq!(
            ends("{\"a\": 1"),
            Err("unexpected end of JSON input".into())
        );
    }

    fn parse(text: &str) -> Node {
        parse_document(text, 1, &Limits::default())
            .expect("valid JSON")
            .remove(0)
    }

    #[test]
    fn builds_the_tree_with_positions() {
        let root = parse("{\n  \"a\": {\"b\": [1, 2.5, \"x\"]},\n  \"c\": null\n}\n");
        let a = root.entry("a").unwrap();
        assert_eq!(a.key_span.start, Pos { line: 2, column: 3 });
        let b = a.value.entry("b").unwrap();
        assert_eq!(
            b.value.span.start,
            Pos {
                line: 2,
                column: 14
            }
        );
        let Value::Seq(items) = &b.value.value else {
            panic!("a list")
        };
        assert_eq!(items[0].value, Value::Int(1));
        assert_eq!(items[1].value, Value::Float(2.5));
        assert_eq!(items[2].value, Value::String("x".into()));
        assert_eq!(root.get("c").unwrap().value, Value::Null);
    }

    #[test]
    fn strings_decode_like_go() {
        let root = parse(r#"{"e": "\ud83d\ude00 \u00e9\/\n", "lone": "\ud800x"}"#);
        assert_eq!(root.get("e").unwrap().as_str(), Some("😀 é/\n"));
        assert_eq!(root.get("lone").unwrap().as_str(), Some("\u{FFFD}x"));
    }

    #[test]
    fn numbers_read_as_kubectl_reads_them() {
        let root = parse(r#"{"a": 12, "b": 12.0, "c": 18446744073709551615, "d": -0}"#);
        assert_eq!(root.get("a").unwrap().value, Value::Int(12));
        assert_eq!(root.get("b").unwrap().value, Value::Float(12.0));
        // Above int64: kubectl's ConvertMapNumbers falls back to float64.
        assert_eq!(
            root.get("c").unwrap().value,
            Value::Float(18446744073709551615.0)
        );
        assert_eq!(root.get("d").unwrap().value, Value::Int(0));
        let error = parse_document(r#"{"x": 1e400}"#, 1, &Limits::default()).unwrap_err();
        assert!(
            error.message.contains("cannot unmarshal number 1e400"),
            "{error:?}"
        );
        assert_eq!(error.pos, Pos { line: 1, column: 7 });
    }

    #[test]
    fn duplicate_keys_are_errors() {
        let error = parse_document(r#"{"a": 1, "a": 2}"#, 1, &Limits::default()).unwrap_err();
        assert!(error.message.contains("duplicate key `a`"), "{error:?}");
        assert_eq!(
            error.pos,
            Pos {
                line: 1,
                column: 10
            }
        );
    }
}
