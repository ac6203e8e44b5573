//! `explain --format svg`: the timeline as a picture for pull requests and docs.
//!
//! The canvas is as wide as its text needs: the label column fits the longest lane
//! label, the note column the longest note, so no label runs off the edge; text widths
//! are estimated generously from DejaVu Sans's advances (the first font asked for, and
//! wider than the fallbacks). Hazards are drawn inside the time axis. A legend at the
//! top shows every colour and mark the picture uses, and nothing it does not.

use std::fmt::Write;

use super::facts;
use super::lanes::{Lane, MarkKind, Panel, Swatch, panels};
use super::scale::Scale;
use crate::report::located::Analysis;
use crate::time::Millis;

/// The font size of lane labels and notes, in pixels.
const FONT: f64 = 12.0;
const TITLE_FONT: f64 = 14.0;
const LANE_HEIGHT: f64 = 24.0;
/// Where a lane's bar starts below the lane's top: signals are drawn above it.
const BAR_TOP: f64 = 8.0;
const BAR_HEIGHT: f64 = 12.0;
const MARGIN: f64 = 14.0;
/// Space between the label column, the axis and the note column.
const GAP: f64 = 12.0;
/// The time axis of a picture on its own, in pixels.
const AXIS_WIDTH: f64 = 560.0;
/// The width of a cut in the time axis.
pub(super) const CUT_WIDTH: f64 = 18.0;
/// The least room between two tick labels.
const TICK_ROOM: f64 = 8.0;

/// The columns shared by every panel of one picture.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Geometry {
    label: f64,
    axis: f64,
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
    fn widen<'a>(&mut self, panels: impl IntoIterator<Item = &'a Panel>) {
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

    fn x_of(&self, at: Millis, scale: &Scale) -> f64 {
        self.axis_start() + scale.position(at, self.axis, CUT_WIDTH)
    }
}

/// `svg` with every `.0` dropped from the numbers of its attributes (`x="155.0"` is
/// `x="155"`): the coordinates are written with one decimal, mostly zero, and a page
/// holds thousands of them. Text between tags is left as it is.
fn whole_numbers(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len());
    let mut rest = svg;
    while let Some(at) = rest.find("=\"") {
        out.push_str(&rest[..at + 2]);
        rest = &rest[at + 2..];
        let end = rest.find('"').unwrap_or(rest.len());
        let value = &rest[..end];
        if value
            .chars()
            .all(|c| c.is_ascii_digit() || " .,-MLVH".contains(c))
        {
            let bytes = value.as_bytes();
            let mut i = 0;
            while i < bytes.len() {
                let zero = bytes[i] == b'.'
                    && bytes.get(i + 1) == Some(&b'0')
                    && !bytes.get(i + 2).is_some_and(u8::is_ascii_digit)
                    && i > 0
                    && bytes[i - 1].is_ascii_digit();
                if zero {
                    i += 2;
                } else {
                    out.push(char::from(bytes[i]));
                    i += 1;
                }
            }
        } else {
            out.push_str(value);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
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
pub(crate) fn escape(text: &str) -> String {
    crate::report::escape::controls(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn lane_label(lane: &Lane) -> String {
    format!("{} ({})", lane.label, lane.tag)
}

/// The stylesheet of every picture: one class per colour, named by its meaning. The
/// colours differ in lightness as well as hue where they meet in a lane, so that they
/// stay apart in greyscale and for colour-blind readers (tests/browser.rs checks both);
/// light fills get a darker outline that stands out from the white page.
pub(crate) const STYLE: &str = concat!(
    ".title{font-weight:bold;font-size:14px}.panel{font-weight:bold}.tick,.caption{fill:#4d4d4d}",
    ".tick{text-anchor:middle}.grid{stroke:#e3e3e3;stroke-width:1;fill:none}.axis,.timeline{stroke:#333;stroke-width:1}",
    "rect.bar{stroke-width:1}",
    ".starting{fill:#f5df4d;stroke:#9d8f31}.running{fill:#1b5e9e;stroke:#1b5e9e}",
    ".hook{fill:#c46fb0;stroke:#a35b92}.draining{fill:#6cb8e6;stroke:#5693b8}",
    ".stopping{fill:#d2e4f3;stroke:#828d97}.routed{fill:#2f9e4f;stroke:#2f9e4f}",
    ".stuck{fill:#9a9a9a;stroke:#7a7a7a}",
    ".hazard.error{fill:#c2300a;stroke:#c2300a}.hazard.warning{fill:#e69f00;stroke:#bd8200}",
    ".hazard.info{fill:#7e7ec0;stroke:#6a6aa6}",
    ".mark{fill:#1a1a1a;stroke:#fff;stroke-width:1}.ready{fill:#14622a}",
    ".removed{fill:#fff;stroke:#1a1a1a;stroke-width:1.5}",
    ".kill{stroke:#b3261e;stroke-width:2.4;fill:none}",
    ".exit{stroke:#1a1a1a;stroke-width:2.5}.halo{stroke:#fff;stroke-width:5}",
    ".unknown{fill:#8a4b00;font-weight:bold;stroke:none}",
    ".deadline{stroke:#8b1a1a;stroke-width:1.5;stroke-dasharray:5 3}",
    ".cut{fill:#fff}.cut-edge{stroke:#4d4d4d;stroke-width:1.2}",
);

/// One SVG document with every analysis stacked under one legend.
pub fn svg(analyses: &[Analysis]) -> String {
    let mut index = SvgIndex::default();
    for analysis in analyses {
        index.add(analysis);
    }
    let mut out = index.start();
    for analysis in analyses {
        out.push_str(&index.workload(analysis));
    }
    out.push_str(&index.end());
    out
}

/// What the head of the picture needs to know of every workload drawn under it — the
/// columns, the legend's entries, the height — taken one workload at a time
/// ([`SvgIndex::add`]), so that the picture can then be written one workload at a
/// time ([`SvgIndex::start`], [`SvgIndex::workload`], [`SvgIndex::end`]) without
/// holding the run.
#[derive(Debug)]
pub struct SvgIndex {
    geometry: Geometry,
    /// The width the widest title needs.
    titles: f64,
    legend: Legend,
    /// The height of the drawings, each with the space above and below it.
    drawings: f64,
    workloads: usize,
    /// Where the next drawing goes, once the head is written.
    y: f64,
}

impl Default for SvgIndex {
    fn default() -> Self {
        SvgIndex {
            geometry: Geometry::of(std::iter::empty(), AXIS_WIDTH),
            titles: 0.0,
            legend: Legend::default(),
            drawings: 0.0,
            workloads: 0,
            y: MARGIN,
        }
    }
}

impl SvgIndex {
    /// Takes the measure of one workload's drawing.
    pub fn add(&mut self, analysis: &Analysis) {
        let panels = panels(analysis);
        self.geometry.widen(&panels);
        self.titles = self
            .titles
            .max(text_width(&facts::title(analysis), TITLE_FONT) + 2.0 * MARGIN);
        panels.iter().for_each(|panel| self.legend.add(panel));
        // A drawing's height does not depend on the columns or on where it starts (every
        // step down is a whole number of pixels): drawn once here to be measured.
        let below = draw_analysis(&mut String::new(), analysis, &panels, &self.geometry, 6.0);
        self.drawings += below + MARGIN;
        self.workloads += 1;
    }

    /// The picture's head: the `<svg>` element's start, the style and the legend.
    pub fn start(&mut self) -> String {
        let width = self.geometry.width().max(self.titles);
        let mut key = String::new();
        self.y = self.legend.draw(&mut key, width, MARGIN);
        let mut height = self.y + self.drawings;
        if self.workloads == 0 {
            height += 24.0;
        }
        let mut head = document(width, height, "");
        head.truncate(head.len() - "</svg>\n".len());
        head + &whole_numbers(&key)
    }

    /// The next workload's drawing, in the order [`SvgIndex::add`] took them.
    pub fn workload(&mut self, analysis: &Analysis) -> String {
        let mut body = String::new();
        self.y = draw_analysis(
            &mut body,
            analysis,
            &panels(analysis),
            &self.geometry,
            self.y + 6.0,
        ) + MARGIN;
        whole_numbers(&body)
    }

    /// What closes the picture.
    pub fn end(&self) -> String {
        let mut out = String::new();
        if self.workloads == 0 {
            let _ = writeln!(
                out,
                r#"<text x="{MARGIN}" y="{}" class="title">no workloads</text>"#,
                self.y + 14.0
            );
        }
        let mut out = whole_numbers(&out);
        out.push_str("</svg>\n");
        out
    }
}

/// The `<svg>` element around `body`, with its stylesheet.
pub(crate) fn document(width: f64, height: f64, body: &str) -> String {
    element(width, height, &format!("<style>{STYLE}</style>\n{body}"))
}

/// The `<svg>` element around `body`, for a page whose stylesheet holds [`STYLE`]: a
/// page of many drawings states it once.
pub(crate) fn element(width: f64, height: f64, body: &str) -> String {
    let body = whole_numbers(body);
    format!(
        concat!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="{font}">"#,
            "\n",
            r#"<rect width="100%" height="100%" fill="white"/>"#,
            "\n{body}</svg>\n"
        ),
        w = width.ceil(),
        h = height.ceil(),
        font = FONT,
        body = body
    )
}

/// One panel of a workload drawn on its own, for the HTML pages, without the title,
/// the legend or the workload header, which the page shows as text, nor the stylesheet,
/// which the page holds: the elements inside `<svg>`, its width and its height. With
/// `ids`, each hazard lane gets the id `{ids}{finding index}`.
pub(crate) fn panel_drawing(panel: &Panel, geometry: &Geometry, ids: Option<&str>) -> Drawing {
    let mut body = String::new();
    let y = draw_panel(&mut body, panel, geometry, 0.0, ids);
    Drawing {
        body: whole_numbers(&body),
        width: geometry.width().ceil(),
        height: (y + 8.0).ceil(),
    }
}

/// The elements of a drawing, and the size of the `<svg>` that holds them.
pub(crate) struct Drawing {
    pub body: String,
    pub width: f64,
    pub height: f64,
}

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

/// The shape of a mark at `x` on a lane whose top is `top`. Signals sit above the
/// bar, pointing at it, so that an exit at the same moment stays visible on the bar.
fn mark_shape(kind: MarkKind, x: f64, top: f64, at: Option<Millis>) -> String {
    let middle = top + BAR_TOP + BAR_HEIGHT / 2.0;
    let data = at
        .map(|at| format!(r#" data-at="{}""#, at.0))
        .unwrap_or_default();
    match kind {
        MarkKind::Start => {
            format!(r#"<circle cx="{x:.1}" cy="{middle:.1}" r="4" class="mark start"{data}/>"#)
        }
        MarkKind::Ready => format!(
            r#"<polygon points="{:.1},{middle:.1} {x:.1},{:.1} {:.1},{middle:.1} {x:.1},{:.1}" class="mark ready"{data}/>"#,
            x - 5.5,
            middle - 5.5,
            x + 5.5,
            middle + 5.5
        ),
        MarkKind::Removed => format!(
            r#"<polygon points="{:.1},{middle:.1} {x:.1},{:.1} {:.1},{middle:.1} {x:.1},{:.1}" class="mark removed"{data}/>"#,
            x - 5.0,
            middle - 5.0,
            x + 5.0,
            middle + 5.0
        ),
        MarkKind::Sigterm => format!(
            r#"<polygon points="{:.1},{:.1} {:.1},{:.1} {x:.1},{:.1}" class="mark sigterm"{data}/>"#,
            x - 5.0,
            top,
            x + 5.0,
            top,
            top + BAR_TOP
        ),
        MarkKind::Sigkill => format!(
            r#"<path d="M{:.1} {:.1}L{:.1} {:.1}M{:.1} {:.1}L{:.1} {:.1}" class="kill"{data}/>"#,
            x - 4.5,
            middle - 4.5,
            x + 4.5,
            middle + 4.5,
            x - 4.5,
            middle + 4.5,
            x + 4.5,
            middle - 4.5
        ),
        MarkKind::Exit => {
            let (y1, y2) = (top + BAR_TOP - 3.0, top + BAR_TOP + BAR_HEIGHT + 3.0);
            format!(
                r#"<line x1="{x:.1}" y1="{y1:.1}" x2="{x:.1}" y2="{y2:.1}" class="halo"/><line x1="{x:.1}" y1="{y1:.1}" x2="{x:.1}" y2="{y2:.1}" class="exit"{data}/>"#
            )
        }
        MarkKind::UnknownLength => format!(
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" class="unknown"{data}>?</text>"#,
            x + 8.0,
            top + BAR_TOP + 1.0
        ),
    }
}

/// The break of a cut axis between `x0` and `x1`, from `y0` down to `y1`: a white band
/// between two slanted edges.
fn cut_shape(x0: f64, x1: f64, y0: f64, y1: f64) -> String {
    let slant = 4.0;
    format!(
        concat!(
            r#"<polygon points="{a:.1},{y0:.1} {b:.1},{y0:.1} {c:.1},{y1:.1} {d:.1},{y1:.1}" class="cut"/>"#,
            r#"<line x1="{a:.1}" y1="{y0:.1}" x2="{d:.1}" y2="{y1:.1}" class="cut-edge"/>"#,
            r#"<line x1="{b:.1}" y1="{y0:.1}" x2="{c:.1}" y2="{y1:.1}" class="cut-edge"/>"#,
        ),
        a = x0 + slant,
        b = x1 + slant,
        c = x1 - slant,
        d = x0 - slant,
        y0 = y0,
        y1 = y1,
    )
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
        r#"<g class="workload"><text x="{MARGIN}" y="{y}" class="title">{}</text>"#,
        escape(&facts::title(analysis))
    );
    if let Some(rejection) = &analysis.plan.rejection() {
        y += 18.0;
        let _ = writeln!(
            out,
            r#"<text x="{MARGIN}" y="{y}" class="caption">Not admitted: {} rejects the pod ({}), so it never starts</text>"#,
            escape(&crate::rules::rejection::rejector(rejection.by)),
            escape(&crate::rules::rejection::reason(&rejection.cause))
        );
    }
    for panel in panels {
        y = draw_panel(out, panel, geometry, y + 6.0, None);
    }
    let _ = writeln!(out, "</g>");
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
    let scale = &panel.scale;
    y += 16.0;
    let _ = writeln!(
        out,
        r#"<g class="timeline-panel"><text x="{MARGIN}" y="{y}" class="panel">{}</text>"#,
        escape(&panel.title)
    );
    for caption in panel.captions() {
        y += 16.0;
        let _ = writeln!(
            out,
            r#"<text x="{MARGIN}" y="{y}" class="caption">{}</text>"#,
            escape(&caption)
        );
    }
    y += 16.0;
    let top = y + 4.0;
    let bottom = top + LANE_HEIGHT * panel.lanes.len() as f64;
    let _ = writeln!(out, r#"<g class="ticks">"#);
    // Tick labels where they do not crowd each other: a piece of a cut axis is labelled
    // even when it is short.
    let mut right = f64::NEG_INFINITY;
    let mut grid = String::new();
    for tick in scale.ticks(8) {
        let x = geometry.x_of(tick, scale);
        let label = tick.to_string();
        let half = text_width(&label, FONT) / 2.0;
        if x - half < right + TICK_ROOM {
            continue;
        }
        right = x + half;
        let _ = writeln!(
            out,
            r#"<text x="{x:.1}" y="{y}" class="tick" data-at="{}">{}</text>"#,
            tick.0,
            escape(&label)
        );
        let _ = write!(grid, "M{x:.1} {top:.1}V{bottom:.1}");
    }
    let _ = writeln!(out, r#"<path d="{grid}" class="grid"/></g>"#);
    // The time axis itself, from 0 to the panel's end, one line per piece of a cut
    // axis: every bar lies along it.
    for piece in scale.pieces() {
        let _ = writeln!(
            out,
            r#"<line x1="{:.1}" y1="{top:.1}" x2="{:.1}" y2="{top:.1}" class="timeline" data-from="{}" data-to="{}"/>"#,
            geometry.x_of(piece.from, scale),
            geometry.x_of(piece.to, scale),
            piece.from.0,
            piece.to.0
        );
    }
    if let Some(deadline) = panel.deadline {
        let x = geometry.x_of(deadline, scale);
        let _ = writeln!(
            out,
            r#"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{bottom:.1}" class="deadline" data-at="{}"><title>grace period ends at {deadline}: SIGKILL</title></line>"#,
            top - 6.0,
            deadline.0
        );
    }
    y = top;
    for lane in &panel.lanes {
        draw_lane(out, lane, scale, geometry, y, ids);
        y += LANE_HEIGHT;
    }
    for (index, (from, to)) in scale.cuts().enumerate() {
        let (x0, x1) = scale.break_at(index, geometry.axis, CUT_WIDTH);
        let x0 = geometry.axis_start() + x0;
        let x1 = geometry.axis_start() + x1;
        let _ = writeln!(
            out,
            r#"<g class="cut-mark" data-from="{}" data-to="{}"><title>axis cut: {from}–{to} not drawn, no event falls there</title>{}<text x="{:.1}" y="{:.1}" class="tick">≈</text></g>"#,
            from.0,
            to.0,
            cut_shape(x0 + 3.0, x1 - 3.0, top - 6.0, y),
            (x0 + x1) / 2.0,
            top - 8.0,
        );
    }
    let axis = geometry.axis_start();
    let _ = writeln!(
        out,
        r#"<line x1="{axis:.1}" y1="{top:.1}" x2="{axis:.1}" y2="{y:.1}" class="axis"/></g>"#
    );
    y
}

fn draw_lane(
    out: &mut String,
    lane: &Lane,
    scale: &Scale,
    geometry: &Geometry,
    top: f64,
    ids: Option<&str>,
) {
    let baseline = top + BAR_TOP + BAR_HEIGHT / 2.0 + FONT * 0.35;
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
        let x0 = geometry.x_of(segment.from, scale);
        let x1 = geometry.x_of(segment.to, scale).max(x0 + 1.0);
        let _ = writeln!(
            out,
            r#"<rect x="{x0:.1}" y="{:.1}" width="{:.1}" height="{BAR_HEIGHT}" class="bar {}" data-from="{}" data-to="{}"><title>{} {}: {}–{}</title></rect>"#,
            top + BAR_TOP,
            x1 - x0,
            lane.swatch(segment).class(),
            segment.from.0,
            segment.to.0,
            escape(&lane.label),
            segment.state.meaning(),
            segment.from,
            segment.to
        );
    }
    for mark in &lane.marks {
        let x = geometry.x_of(mark.at, scale);
        let _ = writeln!(out, "{}", mark_shape(mark.kind, x, top, Some(mark.at)));
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
    fn whole_numbers_lose_their_decimal_in_attributes_only() {
        assert_eq!(
            whole_numbers(r#"<line x1="155.0" y1="36.5" d="M1.0 2.0V30.0"/><text>v1.0</text>"#),
            r#"<line x1="155" y1="36.5" d="M1 2V30"/><text>v1.0</text>"#
        );
        assert_eq!(
            whole_numbers(r#"<a b="10.05" c="x.0">"#),
            r#"<a b="10.05" c="x.0">"#
        );
    }

    #[test]
    fn wide_text_is_estimated_wider() {
        assert!(text_width("mmmm", 12.0) > text_width("iiii", 12.0));
        assert!(text_width("inbound-closed-before-endpoints-removed", 12.0) > 200.0);
    }
}
