//! The measures of a picture: its type sizes, bar heights and margins, the columns
//! every panel shares, and the width text needs, so that no label runs off the edge.

use super::super::lanes::{Lane, Panel};
use super::super::scale::Scale;
use crate::time::Millis;

/// The font size of lane labels and notes, in pixels.
pub(super) const FONT: f64 = 12.0;
pub(super) const TITLE_FONT: f64 = 14.0;
pub(super) const LANE_HEIGHT: f64 = 24.0;
/// Where a lane's bar starts below the lane's top: signals are drawn above it.
pub(super) const BAR_TOP: f64 = 8.0;
pub(super) const BAR_HEIGHT: f64 = 12.0;
pub(super) const MARGIN: f64 = 14.0;
/// Space between the label column, the axis and the note column.
const GAP: f64 = 12.0;
/// The time axis of a picture on its own, in pixels.
pub(super) const AXIS_WIDTH: f64 = 560.0;
/// The width of a cut in the time axis.
pub(super) const CUT_WIDTH: f64 = 18.0;
/// The least room between two tick labels.
pub(super) const TICK_ROOM: f64 = 8.0;

/// The columns shared by every panel of one picture.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Geometry {
    label: f64,
    pub(super) axis: f64,
    note: f64,
}

impl Geometry {
    /// Columns wide enough for every label and note of `panels`, around a time axis
    /// `axis` pixels wide.
    pub(crate) fn of<'a>(panels: impl IntoIterator<Item = &'a Panel>, axis: f64) -> Geometry {
        let mut geometry = Geometry {
            label: 120.0,
            axis,
            note: 0.0,
        };
        geometry.widen(panels);
        geometry
    }

    /// Widens the columns for every label and note of `panels` too, as [`Geometry::of`]
    /// would with them after the panels already taken.
    pub(super) fn widen<'a>(&mut self, panels: impl IntoIterator<Item = &'a Panel>) {
        for panel in panels {
            for lane in &panel.lanes {
                self.label = self.label.max(text_width(&lane_label(lane), FONT));
                if let Some(note) = &lane.note {
                    self.note = self.note.max(text_width(note, FONT));
                }
            }
            for caption in panel.captions() {
                self.note = self
                    .note
                    .max(text_width(&caption, FONT) - self.label - self.axis - GAP);
            }
        }
    }

    pub(super) fn axis_start(&self) -> f64 {
        MARGIN + self.label + GAP
    }

    pub(super) fn note_start(&self) -> f64 {
        self.axis_start() + self.axis + GAP
    }

    /// The width of the lanes, margins included.
    pub(super) fn width(&self) -> f64 {
        self.note_start() + self.note + MARGIN
    }

    pub(super) fn x_of(&self, at: Millis, scale: &Scale) -> f64 {
        self.axis_start() + scale.position(at, self.axis, CUT_WIDTH)
    }
}

/// An estimate of the width of `text` in DejaVu Sans at `size` pixels, rounded up:
/// the advance of each character in em, from the font's metrics, grouped.
pub(super) fn text_width(text: &str, size: f64) -> f64 {
    let em: f64 = text
        .chars()
        .map(|c| match c {
            'i' | 'j' | 'l' | '\'' | '|' | '!' | '.' | ',' | ':' | ';' => 0.32,
            ' ' | 'f' | 't' | 'r' | '(' | ')' | '[' | ']' | '/' | '-' | '`' => 0.42,
            'm' | 'w' | 'M' | 'W' | '@' | '%' | '—' | '–' => 1.0,
            'A'..='Z' => 0.78,
            c if c.is_ascii() => 0.66,
            // Symbols, accented and other letters: as wide as the widest Latin ones.
            _ => 1.0,
        })
        .sum();
    (em * size * 1.05).ceil()
}

pub(super) fn lane_label(lane: &Lane) -> String {
    format!("{} ({})", lane.label, lane.tag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_text_is_estimated_wider() {
        assert!(text_width("mmmm", 12.0) > text_width("iiii", 12.0));
        assert!(text_width("inbound-closed-before-endpoints-removed", 12.0) > 200.0);
    }
}
