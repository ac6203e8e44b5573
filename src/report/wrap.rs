//! Line breaking for text meant for a terminal: every report wraps at the width of its
//! [`Style`](super::human::Style), and none breaks where a reader would lose the
//! meaning.
//!
//! A line breaks only at a space, and never
//! - between a number and its unit (`25 s`, `500 ms`, `1 MiB`),
//! - inside backticks, which quote a command, a setting or a YAML snippet
//!   (`` `kubectl mesh-lifecycle rules` ``), unless the quote is wider than the line:
//!   then it breaks at its spaces like prose,
//! - at a hyphen (`kubectl mesh-lifecycle`, `app-without-prestop-delay`), or inside a
//!   word longer than the line, such as a path: it runs past the width instead.

use textwrap::core::Word;
use textwrap::{Options, WordSeparator, WordSplitter};

/// The units numbers are written with in reports.
const UNITS: [&str; 10] = ["s", "ms", "m", "h", "min", "B", "KiB", "MiB", "GiB", "%"];

/// The longest quote kept whole where the width is not known (miette wraps with
/// [`separator`]), in characters: narrower than the narrowest layout
/// ([`crate::report::style::MIN_WIDTH`]), so that such a quote always fits.
const MAX_WHOLE_QUOTE: usize = 36;

/// The options of a wrapped text at `width` columns, with `separator`.
fn options(width: usize, separator: WordSeparator) -> Options<'static> {
    Options::new(width.max(1))
        .word_separator(separator)
        .word_splitter(WordSplitter::NoHyphenation)
        .break_words(false)
}

/// The separator for renderers that wrap on their own (miette): quotes up to
/// [`MAX_WHOLE_QUOTE`] characters stay whole.
pub fn separator() -> WordSeparator {
    WordSeparator::Custom(|line| words(line, MAX_WHOLE_QUOTE))
}

/// `text` wrapped at `width`, continuation lines indented by `indent`; line breaks in
/// `text` are kept. A quote stays whole unless that makes a line too wide. Control
/// characters, which a terminal would obey, are shown as escapes
/// ([`crate::escape::controls`]).
pub fn wrap(text: &str, width: usize, first: &str, indent: &str) -> String {
    let text = &*crate::escape::controls(text);
    let first = &*crate::escape::controls(first);
    let fill = |separator| {
        let options = options(width, separator)
            .initial_indent(first)
            .subsequent_indent(indent);
        textwrap::fill(text, options)
    };
    let whole = fill(WordSeparator::Custom(|line| words(line, usize::MAX)));
    let fits = whole
        .lines()
        .all(|line| textwrap::core::display_width(line) <= width);
    if fits || !text.contains('`') {
        whole
    } else {
        fill(WordSeparator::Custom(|line| words(line, 0)))
    }
}

/// A line of code (YAML in a fix's diff) in pieces at most `width` wide, broken only
/// at spaces: a line that fits is one piece, a word wider than `width` runs past it.
/// The pieces after the first are indented as the line is, two more, so that they read
/// as its continuation.
pub fn code(line: &str, width: usize) -> Vec<String> {
    if textwrap::core::display_width(line) <= width {
        return vec![line.to_owned()];
    }
    let body = line.trim_start();
    let indent = " ".repeat(line.len() - body.len() + 2);
    let options = Options::new(width.max(1))
        .word_separator(WordSeparator::AsciiSpace)
        .word_splitter(WordSplitter::NoHyphenation)
        .break_words(false)
        .initial_indent(&line[..line.len() - body.len()])
        .subsequent_indent(&indent);
    textwrap::wrap(body, options)
        .into_iter()
        .map(|piece| piece.into_owned())
        .collect()
}

/// The width of the widest piece of `text` that [`wrap`] never breaks.
pub fn longest_word(text: &str) -> usize {
    text.lines()
        .flat_map(|line| words(line, usize::MAX))
        .map(|word| word.word.chars().count())
        .max()
        .unwrap_or(0)
}

/// The width of the widest piece of `text` that [`wrap`] cannot break even at the
/// narrowest width: a quote breaks at its spaces when it must.
pub fn longest_unbreakable(text: &str) -> usize {
    text.lines()
        .flat_map(|line| words(line, 0))
        .map(|word| word.word.chars().count())
        .max()
        .unwrap_or(0)
}

/// A path (`dir/file.yaml:12:3`, possibly with words around it) at `width`: lines
/// break after a `/` or a space, and inside a name only when one is wider than a line.
/// For a table cell that cannot be as wide as its paths.
pub fn wrap_path(text: &str, width: usize) -> String {
    let width = width.max(1);
    let mut lines: Vec<String> = vec![String::new()];
    for piece in text.split_inclusive(['/', ' ']) {
        let line = lines.last_mut().expect("there is a line");
        if line.chars().count() + piece.trim_end().chars().count() <= width {
            line.push_str(piece);
            continue;
        }
        let mut rest: Vec<char> = piece.chars().collect();
        if !line.is_empty() {
            lines.push(String::new());
        }
        while rest.len() > width {
            let head: String = rest.drain(..width).collect();
            *lines.last_mut().expect("there is a line") = head;
            lines.push(String::new());
        }
        lines.last_mut().expect("there is a line").extend(rest);
    }
    let lines: Vec<&str> = lines.iter().map(|line| line.trim_end()).collect();
    lines.join("\n")
}

/// Splits a line into the units line breaking may not cut (see the module doc); a
/// quote longer than `whole_quote` characters is split at its spaces.
fn words(line: &str, whole_quote: usize) -> Box<dyn Iterator<Item = Word<'_>> + '_> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    let bytes = line.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            // A backtick opens a quote only when another closes it on this line.
            b'`' if quoted || line[at + 1..].contains('`') => quoted = !quoted,
            b' ' if !quoted => {
                let mut end = at;
                while end < bytes.len() && bytes[end] == b' ' {
                    end += 1;
                }
                pieces.push(&line[start..end]);
                start = end;
                at = end;
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    if start < line.len() {
        pieces.push(&line[start..]);
    }
    // A long quote breaks at its spaces after all.
    let pieces: Vec<&str> = pieces
        .into_iter()
        .flat_map(|piece| {
            if piece.contains('`') && piece.trim_end().chars().count() > whole_quote {
                piece.split_inclusive(' ').collect::<Vec<_>>()
            } else {
                vec![piece]
            }
        })
        .collect();
    // Glue each number to the unit after it.
    let mut glued: Vec<&str> = Vec::with_capacity(pieces.len());
    let mut offset = 0;
    let mut joined_start: Option<usize> = None;
    for (index, piece) in pieces.iter().enumerate() {
        let begin = joined_start.take().unwrap_or(offset);
        offset += piece.len();
        let unit_follows = pieces
            .get(index + 1)
            .is_some_and(|next| is_number(piece.trim_end()) && is_unit(next.trim_end()));
        if unit_follows {
            joined_start = Some(begin);
        } else {
            glued.push(&line[begin..offset]);
        }
    }
    Box::new(glued.into_iter().map(Word::from))
}

/// `25`, `2.5`, `(10`, `-3`: a number, possibly after an opening bracket or a sign.
fn is_number(piece: &str) -> bool {
    let digits = piece.trim_start_matches(['(', '[', '-', '+', '~', '≈']);
    !digits.is_empty()
        && digits.starts_with(|c: char| c.is_ascii_digit())
        && digits
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
}

/// `s`, `ms),`, `MiB;`: a unit, possibly before closing punctuation.
fn is_unit(piece: &str) -> bool {
    let unit = piece.trim_end_matches([')', ']', ',', '.', ';', ':', '!', '?']);
    UNITS.contains(&unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_breaks_at_spaces_and_keeps_its_indentation() {
        let line = "    command: [\"/bin/sh\", \"-c\", \"sleep 5 && curl -X POST localhost:15020/quitquitquit\"]";
        assert_eq!(code(line, 200), [line]);
        let pieces = code(line, 40);
        assert!(pieces.len() > 1, "{pieces:?}");
        assert!(pieces[0].starts_with("    command:"), "{pieces:?}");
        for piece in &pieces[1..] {
            assert!(piece.starts_with("      "), "{pieces:?}");
        }
        let words = |text: &str| {
            text.split_whitespace()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert_eq!(words(&pieces.join(" ")), words(line), "no word is broken");
        assert!(
            pieces
                .iter()
                .all(|p| p.chars().count() <= 40 || !p.trim().contains(' '))
        );
    }

    fn lines(text: &str, width: usize) -> Vec<String> {
        wrap(text, width, "", "")
            .lines()
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn a_number_stays_with_its_unit() {
        let text = "the proxy drains for 25 s (from the annotation) and exits at 35 s.";
        for width in 10..text.len() {
            for line in lines(text, width) {
                assert!(
                    !line.ends_with(" 25") && !line.ends_with(" 35") && !line.starts_with("s "),
                    "width {width}: {line:?}"
                );
            }
        }
        assert_eq!(
            lines("until 35 s, then (10 s) more", 8),
            ["until", "35 s,", "then", "(10 s)", "more"]
        );
    }

    #[test]
    fn quoted_commands_and_hyphenated_names_stay_whole() {
        let text = "see `kubectl mesh-lifecycle rules ML207` for app-without-prestop-delay";
        assert_eq!(
            lines(text, 39),
            [
                "see",
                "`kubectl mesh-lifecycle rules ML207`",
                "for app-without-prestop-delay"
            ]
        );
        // Wider than the line, the quote breaks at its spaces, not inside a word.
        assert_eq!(
            lines(text, 20),
            [
                "see `kubectl",
                "mesh-lifecycle rules",
                "ML207` for",
                "app-without-prestop-delay"
            ]
        );
    }

    #[test]
    fn a_long_quote_breaks_at_its_spaces() {
        let text = "the constraint `preStop + terminationDrainDuration < terminationGracePeriodSeconds` holds";
        let lines = lines(text, 40);
        assert!(lines.iter().all(|l| l.chars().count() <= 40), "{lines:?}");
        assert_eq!(lines.join(" "), text);
    }

    #[test]
    fn a_path_longer_than_the_line_is_not_cut() {
        let path = "testdata/corpus/istio-inject/istio-1.24.0/job.yaml.injected:107:15";
        assert_eq!(lines(&format!("at {path} here"), 30), ["at", path, "here"]);
    }

    #[test]
    fn an_unmatched_backtick_is_an_ordinary_character() {
        assert_eq!(lines("a `b c d", 4), ["a `b", "c d"]);
    }

    #[test]
    fn paths_break_after_a_slash() {
        assert_eq!(
            wrap_path("testdata/rules/ml201-fire.yaml:11:9", 20),
            "testdata/rules/\nml201-fire.yaml:11:9"
        );
        assert_eq!(
            wrap_path("testdata/rules/ml101-fire-job.yaml:11:9", 20),
            "testdata/rules/\nml101-fire-job.yaml:\n11:9"
        );
        assert_eq!(wrap_path("a/b/c.yaml:1:1", 30), "a/b/c.yaml:1:1");
        assert_eq!(
            wrap_path("(from chart/templates/x.yaml)", 16),
            "(from chart/\ntemplates/\nx.yaml)"
        );
        assert_eq!(wrap_path("abcdefghij", 4), "abcd\nefgh\nij");
    }

    #[test]
    fn continuation_lines_are_indented() {
        assert_eq!(
            wrap("one two three four", 10, "* ", "  "),
            "* one two\n  three\n  four"
        );
    }
}
