//! What the fix loop made of a piece: the fixes made and those refused, and the text
//! they came to. A document's report carries it ([`DocumentReport::fixed`]) to the
//! front end that writes, prints or shows it.
//!
//! [`DocumentReport::fixed`]: crate::pipeline::located::DocumentReport::fixed

use std::sync::Arc;

use crate::fix::Applicability;
use crate::rules::RuleMeta;
use crate::workload::WorkloadRef;

/// One fix made.
#[derive(Clone, Debug)]
pub struct Made {
    /// The rule whose finding it fixed.
    pub rule: &'static RuleMeta,
    /// What it did.
    pub description: String,
    /// How safe it was.
    pub applicability: Applicability,
    /// The document it changed (0-based, in its input).
    pub document: usize,
    /// The workload the finding was about.
    pub workload: WorkloadRef,
    /// The container, when the finding names one.
    pub container: Option<String>,
}

/// A fix selected but not made, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The rule whose finding it was for.
    pub rule: &'static str,
    /// The finding's line in the text as read.
    pub line: u32,
    /// Why, in one sentence.
    pub reason: String,
}

/// What fixing a piece came to.
#[derive(Clone, Debug)]
pub struct FixedPiece {
    /// The piece's text as read.
    pub original: Arc<str>,
    /// Its text with every fix made.
    pub text: Arc<str>,
    /// Its first line in the input.
    pub first_line: u32,
    /// The fixes made, in the order they were made.
    pub made: Vec<Made>,
    /// Findings the fixes cleared beyond those whose fix was made: a finding gone
    /// because another finding's fix removed its cause (ruff counts them as fixed).
    pub also_cleared: usize,
    /// Findings left with an unsafe fix that passed its check, when only safe fixes
    /// were made: what `--unsafe-fixes` would make too.
    pub hidden: usize,
    /// Selected fixes that were not made, as they stand at the end.
    pub refused: Vec<Refused>,
    /// The Helm template the piece was rendered from, when it was (`# Source:` as
    /// `helm template` writes it): its fixes belong in the chart.
    pub rendered_from: Option<String>,
    /// Whether fixes were still due after [`MAX_ROUNDS`](super::rounds::MAX_ROUNDS) rounds.
    pub unfinished: bool,
}
