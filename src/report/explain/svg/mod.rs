//! `explain --format svg`: the timeline as a picture for pull requests and docs.
//!
//! The canvas is as wide as its text needs: the label column fits the longest lane
//! label, the note column the longest note, so no label runs off the edge; text widths
//! are estimated generously from DejaVu Sans's advances (the first font asked for, and
//! wider than the fallbacks). Hazards are drawn inside the time axis. A legend at the
//! top shows every colour and mark the picture uses, and nothing it does not.
//!
//! The picture is written in parts: its columns and type sizes (`geometry`), the
//! escaping and number form of its markup (`markup`), the shapes of its marks
//! (`shapes`), its legend (`legend`) and its panels and lanes (`panel`); this module
//! puts them into a document.

use std::fmt::Write;

use super::facts;
use super::lanes::{Panel, panels};
use crate::pipeline::located::Analysis;

mod geometry;
mod legend;
mod markup;
mod panel;
mod shapes;

pub(crate) use geometry::Geometry;
use geometry::{AXIS_WIDTH, FONT, MARGIN, TITLE_FONT, text_width};
pub(crate) use legend::Legend;
pub(crate) use markup::escape;
use markup::whole_numbers;
use panel::{draw_analysis, draw_panel};

/// The stylesheet of every picture: one class per colour, named by its meaning. The
/// colours differ in lightness as well as hue where they meet in a lane, so that they
/// stay apart in greyscale and for colour-blind readers (tests/it/browser.rs checks both);
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
