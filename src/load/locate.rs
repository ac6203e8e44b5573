//! Looking a manifest path up in the tree: the span a finding points at, inside a
//! string that holds YAML or JSON too (an annotation such as
//! `proxy.istio.io/config`), which is parsed again to find it. Apart from the tree it
//! reads, since it calls the parser that builds trees.

use super::SourceText;
use super::path::{JsonPath, Segment};
use super::tree::{EntryPart, Node, Pos, Span, Style, Value};

/// The result of looking a path up: the span found and whether it is the node asked for
/// or its deepest existing ancestor (the path names a field the manifest leaves unset).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Located {
    /// The span found.
    pub span: Span,
    /// Whether it is the node the path names, not an ancestor.
    pub exact: bool,
}

impl Node {
    /// Finds the span to report for `path`. A missing tail falls back to the deepest
    /// node that exists, so a defaulted field still points somewhere useful. An
    /// [`Segment::Embedded`] step looks inside a string that holds YAML or JSON (an
    /// annotation such as `proxy.istio.io/config`).
    pub fn locate(&self, path: &JsonPath, part: EntryPart) -> Located {
        self.locate_in(path, part, None)
    }

    /// [`Node::locate`] with the text the tree was parsed from, which maps positions
    /// inside a quoted scalar that holds escapes (`"{\"drain\": 5}"`) exactly.
    pub fn locate_in(
        &self,
        path: &JsonPath,
        part: EntryPart,
        source: Option<&SourceText>,
    ) -> Located {
        let segments = path.segments();
        let mut node = self;
        let mut span = self.span;
        for (depth, segment) in segments.iter().enumerate() {
            let is_last = depth + 1 == segments.len();
            let next = match (segment, &node.value) {
                (Segment::Key(key), Value::Map(_)) => node.entry(key).map(|entry| {
                    let span = if is_last && part == EntryPart::Value {
                        entry.value.span
                    } else {
                        entry.key_span
                    };
                    (&entry.value, span)
                }),
                (Segment::Index(index), Value::Seq(items)) => {
                    items.get(*index).map(|item| (item, item.span))
                }
                (Segment::Line(line), Value::String(text)) => {
                    return node.locate_line(text, *line);
                }
                (Segment::Embedded, Value::String(text)) => {
                    let rest = JsonPath::from_segments(&segments[depth + 1..]);
                    return match node.locate_embedded(text, &rest, part, source) {
                        Some(located) => located,
                        None => Located { span, exact: false },
                    };
                }
                _ => None,
            };
            match next {
                Some((child, child_span)) => {
                    node = child;
                    span = child_span;
                }
                None => return Located { span, exact: false },
            }
        }
        Located { span, exact: true }
    }

    /// Locates one line of this string node's text. Only a literal block scalar keeps
    /// its lines as file lines; any other style points at the whole scalar.
    fn locate_line(&self, text: &str, line: usize) -> Located {
        let content = text.lines().nth(line);
        match (self.style, content) {
            (Style::Literal, Some(content)) => {
                let start = Pos {
                    line: (self.span.start.line)
                        .saturating_add(u32::try_from(line).unwrap_or(u32::MAX)),
                    column: self.span.start.column,
                };
                let end = Pos {
                    line: start.line,
                    column: (start.column)
                        .saturating_add(u32::try_from(content.chars().count()).unwrap_or(0)),
                };
                Located {
                    span: Span { start, end },
                    exact: true,
                }
            }
            _ => Located {
                span: self.span,
                exact: content.is_some(),
            },
        }
    }

    /// Locates `path` inside the YAML held by this string node, mapped back to file
    /// positions where the scalar's style allows it.
    fn locate_embedded(
        &self,
        text: &str,
        path: &JsonPath,
        part: EntryPart,
        source: Option<&SourceText>,
    ) -> Option<Located> {
        let single_line = self.span.start.line == self.span.end.line;
        let roots =
            super::parse::parse_documents(text, 1, &super::parse::Limits::default()).ok()?;
        let inner = roots.first()?.locate(path, part);
        if self.style != Style::Literal && inner.span.start.line > 1 {
            return None;
        }
        let start = self.span.start;
        let map: Box<dyn Fn(Pos) -> Pos> = match self.style {
            Style::Literal => Box::new(move |pos: Pos| Pos {
                line: start.line + pos.line - 1,
                column: start.column + pos.column - 1,
            }),
            Style::Plain if single_line => Box::new(move |pos: Pos| Pos {
                line: start.line,
                column: start.column + pos.column - 1,
            }),
            Style::SingleQuoted | Style::DoubleQuoted if single_line => {
                let columns = self.quoted_columns(text, source)?;
                Box::new(move |pos: Pos| Pos {
                    line: start.line,
                    column: columns[(pos.column as usize - 1).min(columns.len() - 1)],
                })
            }
            _ => return None,
        };
        Some(Located {
            span: Span {
                start: map(inner.span.start),
                end: map(inner.span.end),
            },
            exact: inner.exact,
        })
    }

    /// The file column of each character of a one-line quoted scalar's value, and of the
    /// position after the last: `\"` and `''` take two columns for one character, `\u00e9`
    /// six. Without the file's text this is known only when nothing is escaped.
    fn quoted_columns(&self, value: &str, source: Option<&SourceText>) -> Option<Vec<u32>> {
        let first = self.span.start.column + 1;
        let count = value.chars().count() as u32;
        if self.span.end.column == first + count + 1 {
            return Some((0..=count).map(|index| first + index).collect());
        }
        let raw = &source?.text[source?.offset(self.span.start)..];
        let mut chars = raw.chars().skip(1);
        let mut columns = Vec::new();
        let mut column = first;
        while let Some(c) = chars.next() {
            let width = match (self.style, c) {
                (Style::SingleQuoted, '\'') if chars.clone().next() == Some('\'') => {
                    chars.next();
                    2
                }
                (Style::SingleQuoted, '\'') | (Style::DoubleQuoted, '"') => break,
                (Style::DoubleQuoted, '\\') => {
                    let digits: u32 = match chars.next() {
                        Some('x') => 2,
                        Some('u') => 4,
                        Some('U') => 8,
                        _ => 0,
                    };
                    chars.by_ref().take(digits as usize).for_each(drop);
                    2 + digits
                }
                (_, '\n' | '\r') => return None,
                _ => 1,
            };
            columns.push(column);
            column += width;
        }
        columns.push(column);
        (columns.len() == count as usize + 1).then_some(columns)
    }
}
