//! Turns a Timeline into lanes: one per container, one for the endpoints, one per
//! hazard, for each phase, on a time axis that fits them all.
//!
//! `parts` holds what a lane is made of — states, swatches, marks, segments — for every
//! renderer to draw; `phases` builds each phase's panel from a timeline.

mod parts;
mod phases;

pub use parts::{Hazard, Lane, Mark, MarkKind, Panel, Segment, State, Swatch};
pub use phases::panels;
