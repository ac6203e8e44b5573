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
