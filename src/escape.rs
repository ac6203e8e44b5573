//! Text from the input made safe to show: every renderer that writes text for a
//! terminal or for XML passes what it quotes from manifests, cluster objects or
//! kubectl's messages through [`controls`].
//!
//! A manifest, an object name or an API server's error message may hold control
//! characters (a JSON `"\u001b"`, a YAML `"\e"`): written raw to a terminal they set
//! its title, clear the screen, move the cursor or hide text, so a report could show a
//! fake "no findings"; GitHub writes workflow commands to its log, where they act the
//! same; and XML 1.0 (SVG, HTML, JUnit) cannot hold them at all, not even as character
//! references. So they are written as escapes a reader sees: `\x1b`, `\x07`, `\x7f`,
//! and `\u{9b}` for the C1 controls (which some terminals also obey) and for the
//! Unicode bidirectional overrides, which reorder what is shown (CVE-2021-42574).
//! Line feeds and tabs, which lay text out, are kept.

use std::borrow::Cow;

/// `text` with every control character written as an escape; borrowed
/// when there is none.
pub fn controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push(&mut out, c);
    }
    Cow::Owned(out)
}

/// Whether `c` must not reach a terminal or an XML document as it is.
pub fn is_unsafe(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        // Bidirectional embeddings, overrides and isolates.
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

/// Appends `c` as it is shown: itself, or its escape.
fn push(out: &mut String, c: char) {
    use std::fmt::Write;
    let _ = match u32::from(c) {
        _ if !is_unsafe(c) => {
            out.push(c);
            Ok(())
        }
        code @ 0..=0x7f => write!(out, "\\x{code:02x}"),
        code => write!(out, "\\u{{{code:x}}}"),
    };
}

/// `text` escaped as [`controls`] does, with a map from byte offsets in `text` to
/// offsets in the result: for quoting a source whose positions point into the
/// original. A CR that ends a line before its LF is kept: it is the line's end. `None`
/// when nothing needed escaping.
pub fn controls_mapped(text: &str) -> Option<(String, OffsetMap)> {
    let line_end = |at: usize, c: char| c == '\r' && text[at + 1..].starts_with('\n');
    if !text
        .char_indices()
        .any(|(at, c)| is_unsafe(c) && !line_end(at, c))
    {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut shifts = Vec::new();
    for (at, c) in text.char_indices() {
        if is_unsafe(c) && !line_end(at, c) {
            let before = out.len();
            push(&mut out, c);
            let grown = out.len() - before - c.len_utf8();
            let total = shifts.last().map_or(0, |&(_, total)| total) + grown;
            shifts.push((at + c.len_utf8(), total));
        } else {
            out.push(c);
        }
    }
    Some((out, OffsetMap { shifts }))
}

/// Where byte offsets of a text land once its control characters are escaped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OffsetMap {
    /// For each escaped character, the offset just after it in the original, and how
    /// many bytes the escapes up to it added.
    shifts: Vec<(usize, usize)>,
}

impl OffsetMap {
    /// The offset in the escaped text of `offset` in the original.
    pub fn map(&self, offset: usize) -> usize {
        let escaped_before = self.shifts.partition_point(|&(end, _)| end <= offset);
        offset
            + escaped_before
                .checked_sub(1)
                .map_or(0, |last| self.shifts[last].1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_as_escapes() {
        assert_eq!(controls("plain text\n\tindented"), "plain text\n\tindented");
        assert!(matches!(controls("plain"), Cow::Borrowed(_)));
        assert_eq!(
            controls("web\x1b]0;owned\x07\x1b[2J"),
            "web\\x1b]0;owned\\x07\\x1b[2J"
        );
        assert_eq!(controls("a\rb\x7f"), "a\\x0db\\x7f");
        assert_eq!(controls("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(controls("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(controls("é ✓"), "é ✓");
    }

    #[test]
    fn escaping_twice_changes_nothing() {
        let once = controls("\x1b[31m\u{202e}");
        assert_eq!(controls(&once), once);
    }

    #[test]
    fn offsets_follow_the_escapes() {
        let text = "a\x1bbc\u{85}d";
        let (escaped, map) = controls_mapped(text).unwrap();
        assert_eq!(escaped, "a\\x1bbc\\u{85}d");
        for (original, expected) in [(0, 0), (1, 1), (2, 5), (3, 6), (4, 7), (6, 13), (7, 14)] {
            assert_eq!(map.map(original), expected, "offset {original}");
            assert_eq!(&escaped[map.map(original)..], {
                let rest = &text[original..];
                controls(rest).into_owned()
            });
        }
        assert!(controls_mapped("nothing to do").is_none());
        assert!(
            controls_mapped("a\r\nb\r\n").is_none(),
            "CRLF line ends are kept"
        );
        assert_eq!(controls_mapped("a\rb\r\n").unwrap().0, "a\\x0db\r\n");
    }
}
