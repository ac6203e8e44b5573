//! The legend of a picture: every colour and mark it draws, each once, and nothing it
//! does not.

use std::fmt::Write;

use super::super::lanes::{MarkKind, Panel, Swatch};
use super::geometry::{BAR_HEIGHT, BAR_TOP, FONT, LANE_HEIGHT, MARGIN, text_width};
use super::markup::escape;
use super::shapes::{cut_shape, mark_shape};

/// One entry of a legend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entry {
    Swatch(Swatch),
    Mark(MarkKind),
    Deadline,
    Cut,
}

impl Entry {
    fn meaning(self) -> &'static str {
        match self {
            Entry::Swatch(swatch) => swatch.meaning(),
            Entry::Mark(kind) => kind.meaning(),
            Entry::Deadline => "grace period ends: SIGKILL",
            Entry::Cut => "axis cut",
        }
    }
}

/// The colours and marks a picture draws, each once, in legend order.
#[derive(Clone, Debug, Default)]
pub(crate) struct Legend {
    entries: Vec<Entry>,
}

impl Legend {
    /// Adds what `panel` draws.
    pub(crate) fn add(&mut self, panel: &Panel) {
        let mut add = |entry: Entry| {
            if !self.entries.contains(&entry) {
                self.entries.push(entry);
            }
        };
        panel
            .swatches()
            .into_iter()
            .for_each(|swatch| add(Entry::Swatch(swatch)));
        panel
            .marks()
            .into_iter()
            .for_each(|kind| add(Entry::Mark(kind)));
        if panel.deadline.is_some() {
            add(Entry::Deadline);
        }
        if panel.scale.cuts().next().is_some() {
            add(Entry::Cut);
        }
    }

    /// The entries in legend order: colours, then marks, then the lines.
    fn sorted(&self) -> Vec<Entry> {
        let order = |entry: &Entry| match entry {
            Entry::Swatch(swatch) => Swatch::ALL.iter().position(|s| s == swatch).unwrap_or(0),
            Entry::Mark(kind) => 20 + MarkKind::ALL.iter().position(|k| k == kind).unwrap_or(0),
            Entry::Deadline => 40,
            Entry::Cut => 41,
        };
        let mut entries = self.entries.clone();
        entries.sort_by_key(order);
        entries
    }

    /// The legend drawn in rows across `width` from `y`; returns the y below it.
    pub(crate) fn draw(&self, out: &mut String, width: f64, y: f64) -> f64 {
        let entries = self.sorted();
        if entries.is_empty() {
            return y;
        }
        let mut x = MARGIN;
        let mut row = y;
        let _ = writeln!(out, r#"<g class="legend">"#);
        for entry in entries {
            let meaning = entry.meaning();
            let advance = 16.0 + 6.0 + text_width(meaning, FONT) + 18.0;
            if x > MARGIN && x + advance > width - MARGIN {
                x = MARGIN;
                row += LANE_HEIGHT;
            }
            let top = row;
            let middle = top + BAR_TOP + BAR_HEIGHT / 2.0;
            let shape = match entry {
                Entry::Swatch(swatch) => format!(
                    r#"<rect x="{x:.1}" y="{:.1}" width="16" height="{BAR_HEIGHT}" class="bar {}" data-swatch="{}"/>"#,
                    top + BAR_TOP,
                    swatch.class(),
                    swatch.class()
                ),
                // Marks drawn above a bar are centred on the text here.
                Entry::Mark(MarkKind::Sigterm) => {
                    mark_shape(MarkKind::Sigterm, x + 8.0, top + 6.0, None)
                }
                Entry::Mark(MarkKind::UnknownLength) => {
                    mark_shape(MarkKind::UnknownLength, x, top + 6.0, None)
                }
                Entry::Mark(kind) => mark_shape(kind, x + 8.0, top, None),
                Entry::Deadline => format!(
                    r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" class="deadline"/>"#,
                    x + 8.0,
                    top + 2.0,
                    x + 8.0,
                    top + LANE_HEIGHT - 2.0
                ),
                Entry::Cut => cut_shape(x + 1.0, x + 15.0, top + 2.0, top + LANE_HEIGHT - 2.0),
            };
            let _ = writeln!(
                out,
                r#"{shape}<text x="{:.1}" y="{:.1}">{}</text>"#,
                x + 22.0,
                middle + FONT * 0.35,
                escape(meaning)
            );
            x += advance;
        }
        let _ = writeln!(out, "</g>");
        row + LANE_HEIGHT
    }
}
