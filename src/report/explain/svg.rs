//! `explain --format svg`: the timeline as a picture for pull requests and docs.
//!
//! The canvas is as wide as its text needs: the label column fits the longest lane
//! label, the note column the longest note, so no label runs off the edge; text widths
//! are estimated generously from DejaVu Sans's advances (the first font asked for, and
//! wider than the fallbacks). Hazards are drawn inside the time axis. A legend at the
//! top shows every colour and mark the picture uses, and nothing it does not.

use std::fmt::Write;

use super::facts;
use super::lanes::{Lane, MarkKind, Panel, State, panels, tick_interval};
use crate::report::located::Analysis;
use crate::time::Millis;

/// The font size of lane labels and notes, in pixels.
const FONT: f64 = 12.0;
const TITLE_FONT: f64 = 14.0;
const LANE_HEIGHT: f64 = 22.0;
const BAR_HEIGHT: f64 = 12.0;
const MARGIN: f64 = 14.0;
/// Space between the label column, the axis and the note column.
const GAP: f64 = 12.0;
/// The time axis of a picture on its own, in pixels.
const AXIS_WIDTH: f64 = 560.0;

/// The columns shared by every panel of one picture.
#[derive(Clone, Copy, Debug)]
pub(super) struct Geometry {
    label: f64,
    axis: f64,
    note: f64,
}

impl Geometry {
    /// Columns wide enough for every label and note of `panels`, around a time axis
    /// `axis` pixels wide.
    pub(super) fn of<'a>(panels: impl IntoIterator<Item = &'a Panel>, axis: f64) -> Geometry {
        let mut geometry = Geometry {
            label: 120.0,
            axis,
            note: 0.0,
        };
        for panel in panels {
            for lane in &panel.lanes {
                geometry.label = geometry.label.max(text_width(&lane_label(lane), FONT));
                if let Some(note) = &lane.note {
                    geometry.note = geometry.note.max(text_width(note, FONT));
                }
            }
        }
        geometry
    }

    fn axis_start(&self) -> f64 {
        MARGIN + self.label + GAP
    }

    fn note_start(&self) -> f64 {
        self.axis_start() + self.axis + GAP
    }

    /// The width of the lanes, margins included.
    pub(super) fn width(&self) -> f64 {
        self.note_start() + self.note + MARGIN
    }

    fn x_of(&self, at: Millis, end: Millis) -> f64 {
        let fraction = (at.0.clamp(0, end.0.max(1)) as f64) / (end.0.max(1) as f64);
        self.axis_start() + self.axis * fraction
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

/// `text` for SVG and HTML character data and attribute values: markup escaped, and
/// control characters, which XML cannot hold even as references, shown as escapes.
pub(super) fn escape(text: &str) -> String {
    crate::report::escape::controls(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn lane_label(lane: &Lane) -> String {
    format!("{} ({})", lane.label, lane.tag)
}

/// The stylesheet of every picture: one class per state, named by its meaning.
pub(super) const STYLE: &str = concat!(
    ".title{font-weight:bold;font-size:14px}.panel{font-weight:bold}.tick{fill:#555}",
    ".grid{stroke:#e3e3e3;stroke-width:1}.axis,.timeline{stroke:#333;stroke-width:1}",
    ".starting{fill:#f2c14e}.running{fill:#4f86c6}.hook{fill:#9b7fd1}",
    ".draining{fill:#7fb0d9}.stopping{fill:#a7c4e5}.routed{fill:#58b368}",
    ".hazard{fill:#d64545;fill-opacity:0.85}.stuck{fill:#999}",
    ".mark{fill:#222;stroke:none}.ready{fill:#1b7a2e}.kill{stroke:#c62828;stroke-width:2.2}",
    ".exit{stroke:#222;stroke-width:2}.unknown{fill:#a15c00;font-weight:bold}",
);

/// One SVG document with every analysis stacked under one legend.
pub fn svg(analyses: &[Analysis]) -> String {
    let drawn: Vec<(&Analysis, Vec<Panel>)> = analyses.iter().map(|a| (a, panels(a))).collect();
    let geometry = Geometry::of(drawn.iter().flat_map(|(_, panels)| panels), AXIS_WIDTH);
    let titles = drawn
        .iter()
        .map(|(analysis, _)| text_width(&facts::title(analysis), TITLE_FONT) + 2.0 * MARGIN)
        .fold(0.0, f64::max);
    let width = geometry.width().max(titles);
    let mut body = String::new();
    let mut y = MARGIN;
    y = legend(&mut body, drawn.iter().flat_map(|(_, p)| p), width, y);
    for (analysis, panels) in &drawn {
        y = draw_analysis(&mut body, analysis, panels, &geometry, y + 6.0) + MARGIN;
    }
    if analyses.is_empty() {
        let _ = writeln!(
            body,
            r#"<text x="{MARGIN}" y="{}" class="title">no workloads</text>"#,
            y + 14.0
        );
        y += 24.0;
    }
    document(width, y, &body)
}

/// The `<svg>` element around `body`.
pub(super) fn document(width: f64, height: f64, body: &str) -> String {
    format!(
        concat!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="{font}">"#,
            "\n<style>{style}</style>\n",
            r#"<rect width="100%" height="100%" fill="white"/>"#,
            "\n{body}</svg>\n"
        ),
        w = width.ceil(),
        h = height.ceil(),
        font = FONT,
        style = STYLE,
        body = body
    )
}

/// One workload's drawing on its own, for the HTML page: the panels without the
/// title, the legend or the workload header, which the page shows as text. Each
/// hazard lane gets the id `{ids}{finding index}`.
pub(super) fn workload_svg(panels: &[Panel], geometry: &Geometry, ids: &str) -> String {
    let mut body = String::new();
    let mut y = 0.0;
    for panel in panels {
        y = draw_panel(&mut body, panel, geometry, y, Some(ids));
    }
    document(geometry.width(), y + 8.0, &body)
}

/// The legend of every state and mark drawn in `panels`, in rows across `width`;
/// returns the y below it.
pub(super) fn legend<'a>(
    out: &mut String,
    panels: impl Iterator<Item = &'a Panel>,
    width: f64,
    y: f64,
) -> f64 {
    let mut states: Vec<State> = Vec::new();
    let mut marks: Vec<MarkKind> = Vec::new();
    for panel in panels {
        states.extend(panel.states());
        marks.extend(panel.marks());
    }
    let entries: Vec<(Option<State>, Option<MarkKind>, &str)> = State::ALL
        .into_iter()
        .filter(|s| states.contains(s))
        .map(|s| (Some(s), None, s.meaning()))
        .chain(
            MarkKind::ALL
                .into_iter()
                .filter(|k| marks.contains(k))
                .map(|k| (None, Some(k), k.meaning())),
        )
        .collect();
    if entries.is_empty() {
        return y;
    }
    let mut x = MARGIN;
    let mut row = y;
    let _ = writeln!(out, r#"<g class="legend">"#);
    for (state, mark, meaning) in entries {
        let entry = 16.0 + 6.0 + text_width(meaning, FONT) + 18.0;
        if x > MARGIN && x + entry > width - MARGIN {
            x = MARGIN;
            row += LANE_HEIGHT;
        }
        let middle = row + LANE_HEIGHT / 2.0;
        let shape = match (state, mark) {
            (Some(state), _) => format!(
                r#"<rect x="{x:.1}" y="{:.1}" width="16" height="{BAR_HEIGHT}" class="{}"/>"#,
                middle - BAR_HEIGHT / 2.0,
                state.meaning()
            ),
            (None, Some(kind)) => mark_shape(kind, x + 8.0, middle),
            (None, None) => String::new(),
        };
        let _ = writeln!(
            out,
            r#"{shape}<text x="{:.1}" y="{:.1}">{}</text>"#,
            x + 22.0,
            row + LANE_HEIGHT * 0.68,
            escape(meaning)
        );
        x += entry;
    }
    let _ = writeln!(out, "</g>");
    row + LANE_HEIGHT
}

/// The shape of a mark centred on (`x`, `y`).
fn mark_shape(kind: MarkKind, x: f64, y: f64) -> String {
    match kind {
        MarkKind::Start => format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="4" class="mark"/>"#),
        MarkKind::Ready => format!(
            r#"<polygon points="{:.1},{y:.1} {x:.1},{:.1} {:.1},{y:.1} {x:.1},{:.1}" class="mark ready"/>"#,
            x - 5.0,
            y - 5.0,
            x + 5.0,
            y + 5.0
        ),
        MarkKind::Sigterm => format!(
            r#"<polygon points="{:.1},{:.1} {:.1},{:.1} {x:.1},{:.1}" class="mark"/>"#,
            x - 5.0,
            y - 5.0,
            x + 5.0,
            y - 5.0,
            y + 4.0
        ),
        MarkKind::Sigkill => format!(
            r#"<path d="M{:.1} {:.1}L{:.1} {:.1}M{:.1} {:.1}L{:.1} {:.1}" class="kill"/>"#,
            x - 4.5,
            y - 4.5,
            x + 4.5,
            y + 4.5,
            x - 4.5,
            y + 4.5,
            x + 4.5,
            y - 4.5
        ),
        MarkKind::Exit | MarkKind::Removed => format!(
            r#"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" class="exit"/>"#,
            y - 7.0,
            y + 7.0
        ),
        MarkKind::UnknownLength => format!(
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle" class="unknown">?</text>"#,
            y + 4.5
        ),
    }
}

fn draw_analysis(
    out: &mut String,
    analysis: &Analysis,
    panels: &[Panel],
    geometry: &Geometry,
    mut y: f64,
) -> f64 {
    y += TITLE_FONT;
    let _ = writeln!(
        out,
        r#"<text x="{MARGIN}" y="{y}" class="title">{}</text>"#,
        escape(&facts::title(analysis))
    );
    if let Some(rejection) = &analysis.plan.rejection() {
        y += 18.0;
        let _ = writeln!(
            out,
            r#"<text x="{MARGIN}" y="{y}" class="tick">Not admitted: {} rejects the pod ({}), so it never starts</text>"#,
            escape(&crate::rules::rejection::rejector(rejection.by)),
            escape(&crate::rules::rejection::reason(&rejection.cause))
        );
    }
    for panel in panels {
        y = draw_panel(out, panel, geometry, y + 6.0, None);
    }
    y
}

/// One panel from `y` down, hazard lanes with ids after `ids`; returns the y below it.
fn draw_panel(
    out: &mut String,
    panel: &Panel,
    geometry: &Geometry,
    mut y: f64,
    ids: Option<&str>,
) -> f64 {
    y += 16.0;
    let _ = writeln!(
        out,
        r#"<text x="{MARGIN}" y="{y}" class="panel">{}</text>"#,
        escape(&panel.title)
    );
    y += 16.0;
    let interval = tick_interval(panel.end, 8);
    let top = y + 4.0;
    let bottom = top + LANE_HEIGHT * panel.lanes.len() as f64;
    let mut tick = Millis::ZERO;
    // Where the last label drawn ends: a label that would touch it is left out (the
    // ticks of an absurd grace period are long numbers), its grid line kept.
    let mut free = f64::NEG_INFINITY;
    while tick <= panel.end {
        let x = geometry.x_of(tick, panel.end);
        let label = tick.to_string();
        let half = text_width(&label, FONT) / 2.0;
        let text = if x - half >= free {
            free = x + half + FONT / 2.0;
            format!(
                r#"<text x="{x:.1}" y="{y}" text-anchor="middle" class="tick">{}</text>"#,
                escape(&label)
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            r#"<line x1="{x:.1}" y1="{top:.1}" x2="{x:.1}" y2="{bottom:.1}" class="grid"/>{text}"#,
        );
        tick = tick + interval;
    }
    // The time axis itself, from 0 to the panel's end: every bar lies along it.
    let _ = writeln!(
        out,
        r#"<line x1="{:.1}" y1="{top:.1}" x2="{:.1}" y2="{top:.1}" class="timeline"/>"#,
        geometry.axis_start(),
        geometry.axis_start() + geometry.axis
    );
    y = top;
    for lane in &panel.lanes {
        draw_lane(out, lane, panel.end, geometry, y, ids);
        y += LANE_HEIGHT;
    }
    let axis = geometry.axis_start();
    let _ = writeln!(
        out,
        r#"<line x1="{axis:.1}" y1="{top:.1}" x2="{axis:.1}" y2="{y:.1}" class="axis"/>"#
    );
    y
}

fn draw_lane(
    out: &mut String,
    lane: &Lane,
    end: Millis,
    geometry: &Geometry,
    y: f64,
    ids: Option<&str>,
) {
    let middle = y + LANE_HEIGHT / 2.0;
    let baseline = y + LANE_HEIGHT * 0.68;
    match lane.hazard {
        Some(hazard) => {
            let id = ids
                .map(|prefix| format!(r#" id="{prefix}{}""#, hazard.finding))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                r#"<g class="lane hazard-lane sev-{}{}"{id}>"#,
                hazard.severity,
                if hazard.suppressed { " suppressed" } else { "" }
            );
        }
        None => {
            let _ = writeln!(out, r#"<g class="lane">"#);
        }
    }
    let _ = writeln!(
        out,
        r#"<text x="{MARGIN}" y="{baseline:.1}">{}</text>"#,
        escape(&lane_label(lane))
    );
    for segment in &lane.segments {
        let x0 = geometry.x_of(segment.from, end);
        let x1 = geometry.x_of(segment.to, end).max(x0 + 1.0);
        let _ = writeln!(
            out,
            r#"<rect x="{x0:.1}" y="{:.1}" width="{:.1}" height="{BAR_HEIGHT}" class="{}"><title>{} {}: {}–{}</title></rect>"#,
            middle - BAR_HEIGHT / 2.0,
            x1 - x0,
            segment.state.meaning(),
            escape(&lane.label),
            segment.state.meaning(),
            segment.from,
            segment.to
        );
    }
    for mark in &lane.marks {
        let x = geometry.x_of(mark.at, end);
        let _ = writeln!(out, "{}", mark_shape(mark.kind, x, middle));
    }
    if let Some(note) = &lane.note {
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{baseline:.1}">{}</text>"#,
            geometry.note_start(),
            escape(note)
        );
    }
    let _ = writeln!(out, "</g>");
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
