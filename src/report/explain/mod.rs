//! `explain`: the timeline of each workload, drawn as lanes (text, SVG, an HTML page)
//! or given as JSON. The lanes are computed once ([`lanes`]) and drawn by each renderer.

mod facts;
mod html;
mod json;
mod lanes;
mod reasons;
mod scale;
mod svg;
mod text;

pub use html::html;
pub use json::json;
pub use svg::svg;
pub use text::text;
