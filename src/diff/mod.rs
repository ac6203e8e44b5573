//! After the pipeline, for `diff` and `explain --compare`: what changes between two
//! *sides* of the same workloads — two profiles, two revisions of the manifests, or
//! what is deployed and the files that would replace it.
//!
//! Each side is a run of the whole pipeline; this module compares their analyses and
//! derives nothing of its own: findings are matched by their line-independent
//! fingerprint ([`crate::report::fingerprint`]), the timeline's moves are read from the
//! simulator's two timelines ([`moves`]), and the settings that become moot or start
//! to apply from the two plans. The report words what it finds.

mod compare;
mod comparison;
pub mod moves;

pub use compare::{compare, pair_up};
pub use comparison::{
    Comparison, FindingChange, FindingMove, Presence, Tally, WorkloadChange, severity_index,
};
pub use moves::{Gate, Moment, Move, RoleKind, SettingChange, StopOrder};
