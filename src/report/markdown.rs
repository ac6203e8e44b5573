//! Markdown for a terminal, as a man page lays text out: headings flush left, their
//! text indented under them and wrapped at the style's width, code blocks indented
//! further and never wrapped, emphasis in bold or italics. Without colour, inline code
//! keeps its backticks, the one mark that carries meaning; with colour it is coloured
//! instead. Parsed with pulldown-cmark, the CommonMark parser of rustdoc and mdBook.

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use super::style::{Style, Tone};
use super::wrap;

/// Where text under a heading starts.
const BODY: &str = "  ";
/// Where a code block's lines start.
const CODE: &str = "    ";

/// How a character of a paragraph is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mark {
    Plain,
    Strong,
    Emphasis,
    /// Inside an inline code span.
    Code,
    /// A backtick around an inline code span: shown without colour only.
    Tick,
}

/// Text of a paragraph, heading or list item as it is being read: the characters with
/// how each is drawn.
#[derive(Default)]
struct Inline {
    chars: Vec<(char, Mark)>,
}

impl Inline {
    fn push(&mut self, text: &str, mark: Mark) {
        self.chars.extend(text.chars().map(|c| (c, mark)));
    }

    fn is_empty(&self) -> bool {
        self.chars.is_empty()
    }

    /// The text wrapped at `width` (backticks counted, so that a line fits with or
    /// without them), then painted: each character of the wrapped text is the next one
    /// of the paragraph, or a space or line break the wrapping put in.
    fn render(&self, style: Style, width: usize, first: &str, indent: &str) -> String {
        let text: String = self.chars.iter().map(|(c, _)| *c).collect();
        let wrapped = wrap::wrap(&text, width, first, indent);
        let mut source = self.chars.iter().filter(|(c, _)| !c.is_whitespace());
        let mut out = String::new();
        let mut run = String::new();
        let mut current = Mark::Plain;
        let flush = |run: &mut String, mark: Mark, out: &mut String| {
            out.push_str(&paint(run, mark, style));
            run.clear();
        };
        for c in wrapped.chars() {
            let mark = if c.is_whitespace() {
                // A space goes with the text around it, never with a backtick.
                if current == Mark::Tick {
                    Mark::Plain
                } else {
                    current
                }
            } else {
                source.next().map_or(Mark::Plain, |(_, mark)| *mark)
            };
            if c == '\n' {
                flush(&mut run, current, &mut out);
                out.push('\n');
                continue;
            }
            if mark != current {
                flush(&mut run, current, &mut out);
                current = mark;
            }
            if !(mark == Mark::Tick && style.color) {
                run.push(c);
            }
        }
        flush(&mut run, current, &mut out);
        out
    }
}

/// `text` drawn as `mark` says.
fn paint(text: &str, mark: Mark, style: Style) -> String {
    if !style.color || text.trim().is_empty() {
        return text.to_owned();
    }
    match mark {
        Mark::Plain | Mark::Tick => text.to_owned(),
        Mark::Strong => style.paint(text, Tone::Bold),
        Mark::Emphasis => format!("\x1b[3m{text}\x1b[0m"),
        Mark::Code => style.paint(text, Tone::Cyan),
    }
}

/// `markdown` laid out for a terminal of `style`'s width.
pub fn render(markdown: &str, style: Style) -> String {
    let width = style.columns();
    let mut out = String::new();
    let mut inline = Inline::default();
    let mut marks: Vec<Mark> = Vec::new();
    let mut code: Option<String> = None;
    // The bullet of the list item being read, and its nesting.
    let mut lists: Vec<Option<u64>> = Vec::new();
    let mut item: Option<String> = None;
    let mut link: Option<String> = None;
    let blank = |out: &mut String| {
        if !out.is_empty() && !out.ends_with("\n\n") {
            out.push('\n');
        }
    };
    let flush = |out: &mut String, inline: &mut Inline, first: &str, indent: &str| {
        if !inline.is_empty() {
            out.push_str(&inline.render(style, width, first, indent));
            out.push('\n');
            *inline = Inline::default();
        }
    };
    for event in Parser::new(markdown) {
        let mark = marks.last().copied().unwrap_or(Mark::Plain);
        match event {
            Event::Start(Tag::Heading { .. }) => {
                blank(&mut out);
                marks.push(Mark::Strong);
            }
            Event::End(TagEnd::Heading(_)) => {
                marks.pop();
                out.push_str(&inline.render(style, width, "", ""));
                out.push('\n');
                inline = Inline::default();
            }
            Event::Start(Tag::Paragraph) if item.is_none() => blank(&mut out),
            Event::End(TagEnd::Paragraph) => match &item {
                Some(bullet) => {
                    let indent = format!("{BODY}{}", " ".repeat(bullet.chars().count()));
                    flush(&mut out, &mut inline, &format!("{BODY}{bullet}"), &indent);
                    item = Some(" ".repeat(bullet.chars().count()));
                }
                None => flush(&mut out, &mut inline, BODY, BODY),
            },
            Event::Start(Tag::List(start)) => {
                if lists.is_empty() {
                    blank(&mut out);
                }
                lists.push(start);
            }
            Event::End(TagEnd::List(_)) => {
                lists.pop();
            }
            Event::Start(Tag::Item) => {
                let bullet = match lists.last_mut() {
                    Some(Some(number)) => {
                        *number += 1;
                        format!("{}. ", *number - 1)
                    }
                    _ => if style.unicode { "• " } else { "- " }.to_owned(),
                };
                let nesting = "  ".repeat(lists.len().saturating_sub(1));
                item = Some(format!("{nesting}{bullet}"));
            }
            Event::End(TagEnd::Item) => {
                if let Some(bullet) = item.take() {
                    let indent = format!("{BODY}{}", " ".repeat(bullet.chars().count()));
                    flush(&mut out, &mut inline, &format!("{BODY}{bullet}"), &indent);
                }
            }
            Event::Start(Tag::CodeBlock(_)) => {
                blank(&mut out);
                code = Some(String::new());
            }
            Event::End(TagEnd::CodeBlock) => {
                for line in code.take().unwrap_or_default().lines() {
                    out.push_str(CODE);
                    out.push_str(line);
                    out.push('\n');
                }
            }
            Event::Start(Tag::Emphasis) => marks.push(Mark::Emphasis),
            Event::Start(Tag::Strong) => marks.push(Mark::Strong),
            Event::End(TagEnd::Emphasis | TagEnd::Strong) => {
                marks.pop();
            }
            Event::Start(Tag::Link { dest_url, .. }) => link = Some(dest_url.to_string()),
            Event::End(TagEnd::Link) => {
                if let Some(url) = link.take() {
                    inline.push(&format!(" ({url})"), Mark::Plain);
                }
            }
            Event::Text(text) => match &mut code {
                Some(block) => block.push_str(&text),
                None => inline.push(&text, mark),
            },
            Event::Code(text) => {
                inline.push("`", Mark::Tick);
                inline.push(&text, Mark::Code);
                inline.push("`", Mark::Tick);
            }
            Event::SoftBreak => inline.push(" ", mark),
            Event::HardBreak => flush(&mut out, &mut inline, BODY, BODY),
            Event::Rule => {
                blank(&mut out);
                out.push_str(&"─".repeat(width.min(40)));
                out.push('\n');
            }
            Event::Html(html) | Event::InlineHtml(html) => inline.push(&html, mark),
            _ => {}
        }
    }
    flush(&mut out, &mut inline, BODY, BODY);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(width: usize) -> Style {
        Style {
            color: false,
            unicode: true,
            width,
        }
    }

    #[test]
    fn headings_are_flush_left_and_text_is_indented_under_them() {
        let text = render(
            "# ML201 `grace`\n\nSome **bold** and *em* text.\n\n## Fix\n- one item\n- two\n\n```yaml\na: 1\n```\n",
            plain(80),
        );
        assert_eq!(
            text,
            "ML201 `grace`\n\n  Some bold and em text.\n\nFix\n\n  • one item\n  • two\n\n    a: 1\n"
        );
    }

    #[test]
    fn colour_replaces_the_backticks_and_marks_emphasis() {
        let style = Style {
            color: true,
            ..plain(80)
        };
        let text = render("Set `terminationGracePeriodSeconds` **now**.", style);
        assert_eq!(
            text,
            "  Set \x1b[36mterminationGracePeriodSeconds\x1b[0m \x1b[1mnow\x1b[0m.\n"
        );
    }

    #[test]
    fn paragraphs_wrap_at_the_width_and_code_does_not() {
        let long = "word ".repeat(30);
        let text = render(
            &format!("{long}\n\n```\n{}\n```\n", "x".repeat(90)),
            plain(40),
        );
        for line in text.lines() {
            assert!(
                line.chars().count() <= 40 || line.trim() == "x".repeat(90),
                "{line}"
            );
        }
    }
}
