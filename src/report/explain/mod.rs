//! `explain`: the timeline of each workload, drawn as lanes (text, SVG, an HTML page)
//! or given as JSON. The lanes are computed once ([`lanes`]) and drawn by each renderer.

mod facts;
mod html;
mod json;
pub(crate) mod lanes;
mod reasons;
mod scale;
mod svg;
mod text;

pub(crate) use facts::place;
pub use html::{HtmlIndex, html};
pub(crate) use html::{ROOT_STYLE, WORKLOAD_STYLE, workload_body};
pub use json::{JsonStream, json};
pub(crate) use lanes::panels;
pub(crate) use svg::{
    Geometry, Legend, STYLE as DRAWING_STYLE, document as svg_document, element as svg_element,
    escape, panel_drawing,
};
pub use svg::{SvgIndex, svg};
pub use text::text;

use crate::pipeline::located::Analysis;
use crate::settings::Settings;

/// A drawing of a whole run that says first what it holds (the SVG picture's size, the
/// HTML page's counts): built from an index of every workload ([`Indexed::add`]), then
/// written one workload at a time, so that the run is never held.
pub trait Indexed {
    /// Takes one workload into the index.
    fn add(&mut self, analysis: &Analysis);
    /// What comes before the first workload.
    fn start(&mut self, settings: &Settings) -> String;
    /// The next workload, in the order they were added.
    fn workload(&mut self, analysis: &Analysis) -> String;
    /// What comes after the last.
    fn end(&self) -> String;
}

impl Indexed for SvgIndex {
    fn add(&mut self, analysis: &Analysis) {
        SvgIndex::add(self, analysis);
    }
    fn start(&mut self, _: &Settings) -> String {
        SvgIndex::start(self)
    }
    fn workload(&mut self, analysis: &Analysis) -> String {
        SvgIndex::workload(self, analysis)
    }
    fn end(&self) -> String {
        SvgIndex::end(self)
    }
}

impl Indexed for HtmlIndex {
    fn add(&mut self, analysis: &Analysis) {
        HtmlIndex::add(self, analysis);
    }
    fn start(&mut self, settings: &Settings) -> String {
        HtmlIndex::start(self, settings)
    }
    fn workload(&mut self, analysis: &Analysis) -> String {
        HtmlIndex::workload(self, analysis)
    }
    fn end(&self) -> String {
        HtmlIndex::end(self).to_owned()
    }
}
