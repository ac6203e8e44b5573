//! The timeline drawings of the page, each distinct one written once: a run of one
//! chart's pods draws the same pictures thousands of times.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::hash::{BuildHasher, RandomState};

use super::super::explain::lanes::Panel;
use super::super::explain::{self, Geometry, escape, panel_drawing};

/// Each distinct drawing is written once, as the background image of a class, where it
/// first appears; every panel that draws it is an element of that class. A background
/// costs the browser nothing until its section is opened, where thousands of inline
/// drawings (or `<use>` references to one) would each be built when the page loads.
#[derive(Default)]
pub(super) struct Drawings {
    hashers: (RandomState, RandomState),
    defined: HashMap<(u64, u64), usize>,
}

impl Drawings {
    /// Draws `panel` into `page`: an element of the class `d{n}` whose background is
    /// the picture, the class defined the first time the picture is seen. The element
    /// keeps the picture's proportions, so that in a window narrower than the picture
    /// it is scaled down whole rather than cut at the right (where hazard labels are).
    pub(super) fn draw(&mut self, page: &mut String, panel: &Panel, geometry: &Geometry) {
        let drawing = panel_drawing(panel, geometry, None);
        let key = (
            self.hashers.0.hash_one(&drawing.body),
            self.hashers.1.hash_one(&drawing.body),
        );
        let next = self.defined.len();
        let number = *self.defined.entry(key).or_insert(next);
        if number == next {
            // An SVG `<style>` is a conforming place in a body for a rule of the whole
            // page; in SVG content its text is markup, so the URL escapes `<`, `>`, `&`.
            let picture = explain::svg_document(drawing.width, drawing.height, &drawing.body);
            let _ = write!(
                page,
                "<svg class=\"defs\" width=\"0\" height=\"0\" aria-hidden=\"true\"><style>.d{number}{{background-image:url(\"data:image/svg+xml,{}\")}}</style></svg>",
                data_url(&picture)
            );
        }
        let _ = writeln!(
            page,
            "<div class=\"picture d{number}\" style=\"width:{}px;aspect-ratio:{}/{}\" role=\"img\" aria-label=\"{}\"></div>",
            drawing.width,
            drawing.width,
            drawing.height,
            escape(&panel.title)
        );
    }
}

/// `svg` as the data of a `data:` URL in a CSS string inside HTML: every character
/// that would end the string or the URL, or begin markup, percent-encoded.
fn data_url(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len() + svg.len() / 8);
    for c in svg.chars() {
        match c {
            '%' | '#' | '"' | '<' | '>' | '&' | '\'' | '\\' | '\n' | '\r' => {
                let _ = write!(out, "%{:02X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}
