//! How the fix loop asks for an analysis of a fixed text: the pipeline hands the loop
//! its own stages through [`Analyze`], so the loop never calls the driver.

use std::sync::Arc;

use super::compare::Graded;
use crate::fix::verify::Decoded;
use crate::pipeline::located::DocumentReport;

/// One analysis of a piece's text: what the report shows, and every rule's findings
/// for the comparison.
#[derive(Debug)]
pub struct Analysed {
    /// The text analysed.
    pub text: Arc<str>,
    /// Index, in its input, of the piece's first document.
    pub first_index: usize,
    /// The input's line the text starts at.
    pub first_line: u32,
    /// The findings as reported (rules the policy selects), with their fixes built.
    pub report: DocumentReport,
    /// Every rule's findings, selected or not, suppressed or not.
    pub graded: Vec<Graded>,
    /// Its documents decoded from the trees this analysis read, for the check that a
    /// fix changed exactly what it meant to ([`crate::fix::verify`]): kept when the piece has
    /// a fix to check or is itself a fixed text, so a check never parses a text twice.
    /// `None` when nothing asked for them; `Err` when the text did not load.
    pub decoded: Option<Result<Decoded, String>>,
}

/// How a piece's text is analysed: the pipeline's stages over it, with the run's
/// settings and policy.
pub trait Analyze: Sync {
    /// The analysis of `text`, a new version of the piece's text, that may become its
    /// state.
    fn analyze(&self, text: Arc<str>) -> Analysed;

    /// The analysis of `text`, a version of part of the piece's text whose first line
    /// is line `first_line` of the input, for `purpose`.
    fn analyze_at(&self, text: Arc<str>, first_line: u32, purpose: Purpose) -> Analysed;

    /// How many threads checks of independent parts of the piece may use.
    fn threads(&self) -> usize;
}

/// What the analysis of a fixed text is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// It may become the piece's state: its findings are located, their fixes built.
    State,
    /// It only decides a check, which reads every rule's findings graded and the
    /// documents decoded: no finding is located and no fix built, which on a pod of
    /// thousands of findings is most of an analysis.
    Check,
}
