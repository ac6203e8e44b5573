//! `explain`: the timeline of each workload, drawn as lanes (text, SVG, an HTML page)
//! or given as JSON. The lanes are computed once ([`lanes`]) and drawn by each renderer.

mod facts;
mod html;
mod json;
mod lanes;
mod reasons;
mod svg;
mod text;

pub use html::{HtmlIndex, html};
pub use json::{JsonStream, json};
pub use svg::{SvgIndex, svg};
pub use text::text;
