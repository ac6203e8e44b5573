//! Positions as the editor counts them. The pipeline places a node at a 1-based line
//! and a 1-based column in code points; the protocol counts 0-based lines and columns
//! in the units the client and server agreed on at initialization: UTF-16 code units
//! (the default every client supports), UTF-8 bytes or UTF-32 code points. Lines end
//! at LF, CRLF or a CR alone, for both.

use lsp_types::{Position, PositionEncodingKind};

use crate::load::{self, Pos};

/// The unit a column counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Bytes of UTF-8.
    Utf8,
    /// UTF-16 code units: the protocol's default.
    Utf16,
    /// Code points.
    Utf32,
}

impl Encoding {
    /// The encoding to use among those the client offers (its preferred first); UTF-16
    /// when it offers none, as the protocol requires.
    pub fn negotiate(offered: Option<&[PositionEncodingKind]>) -> Encoding {
        offered
            .into_iter()
            .flatten()
            .find_map(|kind| match kind.as_str() {
                "utf-8" => Some(Encoding::Utf8),
                "utf-16" => Some(Encoding::Utf16),
                "utf-32" => Some(Encoding::Utf32),
                _ => None,
            })
            .unwrap_or(Encoding::Utf16)
    }

    /// The protocol's name for it.
    pub fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
            Encoding::Utf32 => PositionEncodingKind::UTF32,
        }
    }

    fn width(self, c: char) -> u32 {
        match self {
            Encoding::Utf8 => c.len_utf8() as u32,
            Encoding::Utf16 => c.len_utf16() as u32,
            Encoding::Utf32 => 1,
        }
    }
}

/// Where each line of a text starts, to turn offsets and positions into each other.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
    encoding: Encoding,
}

impl LineIndex {
    /// The lines of `text`, columns counted in `encoding`.
    pub fn new(text: &str, encoding: Encoding) -> LineIndex {
        let mut starts = vec![0];
        let mut at = 0;
        while let Some(next) = load::next_line(text, at) {
            starts.push(next);
            at = next;
        }
        LineIndex { starts, encoding }
    }

    /// The byte offset in `text` of a protocol position, clamped to the text: a column
    /// past the line's end is its end, as the protocol asks.
    pub fn offset(&self, text: &str, position: Position) -> usize {
        let Some(&start) = self.starts.get(position.line as usize) else {
            return text.len();
        };
        let line = &text[start..load::line_end(text, start)];
        let mut units = 0;
        for (at, c) in line.char_indices() {
            if units >= position.character {
                return start + at;
            }
            units += self.encoding.width(c);
        }
        start + line.len()
    }

    /// The protocol position of a byte offset in `text`.
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let offset = offset.min(text.len());
        let line = self.starts.partition_point(|&start| start <= offset) - 1;
        let start = self.starts[line];
        // An offset inside a line break counts as the line's end.
        let end = offset.min(load::line_end(text, start));
        let character = text[start..end]
            .chars()
            .map(|c| self.encoding.width(c))
            .sum();
        Position::new(line as u32, character)
    }

    /// The protocol position of a place the pipeline reports (1-based line, 1-based
    /// column in code points).
    pub fn position_of(&self, text: &str, pos: Pos) -> Position {
        let line = pos.line.saturating_sub(1) as usize;
        let Some(&start) = self.starts.get(line) else {
            return self.position(text, text.len());
        };
        let end = load::line_end(text, start);
        let offset = text[start..end]
            .char_indices()
            .nth(pos.column.saturating_sub(1) as usize)
            .map_or(end, |(at, _)| start + at);
        self.position(text, offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "a: é\r\nb: 😀x\rc: 3\n";

    #[test]
    fn columns_count_the_agreed_units() {
        let at_x = TEXT.find('x').unwrap();
        for (encoding, character) in [
            (Encoding::Utf8, 7),
            (Encoding::Utf16, 5),
            (Encoding::Utf32, 4),
        ] {
            let index = LineIndex::new(TEXT, encoding);
            let position = index.position(TEXT, at_x);
            assert_eq!(position, Position::new(1, character), "{encoding:?}");
            assert_eq!(index.offset(TEXT, position), at_x, "{encoding:?}");
            let pos = Pos { line: 2, column: 5 };
            assert_eq!(index.position_of(TEXT, pos), position, "{encoding:?}");
        }
    }

    #[test]
    fn positions_past_a_line_end_stay_on_their_line() {
        let index = LineIndex::new(TEXT, Encoding::Utf16);
        // Inside the CRLF of the first line, and past its end.
        assert_eq!(index.position(TEXT, 6), Position::new(0, 4));
        assert_eq!(index.offset(TEXT, Position::new(0, 99)), 5);
        assert_eq!(index.offset(TEXT, Position::new(9, 0)), TEXT.len());
        // A lone CR ends a line too.
        assert_eq!(
            index.offset(TEXT, Position::new(2, 0)),
            TEXT.find("c:").unwrap()
        );
    }

    #[test]
    fn the_clients_first_supported_encoding_is_taken() {
        let offered = [
            PositionEncodingKind::new("utf-7"),
            PositionEncodingKind::UTF8,
        ];
        assert_eq!(Encoding::negotiate(Some(&offered)), Encoding::Utf8);
        assert_eq!(Encoding::negotiate(None), Encoding::Utf16);
    }
}
