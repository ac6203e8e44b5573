//! `explain`: the timeline of each workload, drawn as lanes (text or SVG) or given as
//! JSON. The lanes are computed once ([`lanes`]) and drawn by each renderer.

mod json;
mod lanes;
mod svg;
mod text;

pub use json::json;
pub use svg::svg;
pub use text::text;
