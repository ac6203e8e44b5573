//! The results of a run as the reports take them: each document's report, each
//! workload's analysis, and findings whose places in the input are resolved.

use std::sync::Arc;

use super::fix::FixedPiece;
use crate::fix::{Fix, Planned};
use crate::load::{InputError, Pos, SourceText};
use crate::resolve::PodPlan;
use crate::rules::Finding;
use crate::simulate::Timeline;
use crate::workload::WorkloadRef;

/// A finding with its place in the input resolved.
#[derive(Clone, Debug)]
pub struct Located {
    /// The rule's finding, its locations still manifest paths.
    pub finding: Finding,
    /// The input's name as the user gave it.
    pub file: Arc<str>,
    /// 0-based index of the document in its file.
    pub document: usize,
    /// The workload the finding is about.
    pub workload: WorkloadRef,
    /// Where Helm rendered the workload from.
    pub origin: Option<String>,
    /// The node at fault.
    pub primary: Place,
    /// The other sides of a comparison, in the rule's order.
    pub related: Vec<Place>,
    /// The document's text, for excerpts.
    pub source: SourceText,
    /// The reason given in a suppression annotation, when one applies.
    pub suppressed: Option<String>,
    /// Whether the baseline in use (`lint --baseline`) holds it: it is counted, and
    /// listed with `--show-baselined`, but never fails the run.
    pub baselined: bool,
    /// The finding's remedy as edits to `source.text` (offsets in the document's own
    /// text), or why the manifest is not shaped for it.
    pub fix: Option<Result<Planned, String>>,
}

impl Located {
    /// The finding's fix, when it has edits to make and passed its check against the
    /// timeline (a run that checks fixes turns one that fails into `Err`).
    pub fn checked_fix(&self) -> Option<&Fix> {
        match &self.fix {
            Some(Ok(planned)) if !planned.fix.edits.is_empty() => Some(&planned.fix),
            _ => None,
        }
    }

    /// Whether `--fix` makes the finding's fix (`unsafe_fixes`: with `--unsafe-fixes`):
    /// the `[*]` mark.
    pub fn fixable(&self, unsafe_fixes: bool) -> bool {
        self.suppressed.is_none()
            && self
                .checked_fix()
                .is_some_and(|fix| fix.applicability.is_applied(unsafe_fixes))
    }

    /// The finding's fix with its edits at positions in the file, sorted, for the
    /// machine formats; `None` when the rule has no remedy or the manifest is not shaped
    /// for it. A display-only fix has no edits.
    pub fn fix_edits(&self) -> Option<(&Fix, Vec<TextEdit>)> {
        let Some(Ok(planned)) = &self.fix else {
            return None;
        };
        let mut edits: Vec<TextEdit> = planned
            .fix
            .edits
            .iter()
            .map(|edit| TextEdit {
                start: self.source.pos(edit.range.start),
                end: self.source.pos(edit.range.end),
                replacement: edit.replacement.clone(),
            })
            .collect();
        edits.sort_by_key(|edit| (edit.start, edit.end));
        Some((&planned.fix, edits))
    }
}

/// One edit of a fix at positions in the file: the text from `start` to `end`
/// (exclusive; equal for an insertion) replaced by `replacement`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    /// Where the replaced text starts.
    pub start: Pos,
    /// Where it ends, exclusive.
    pub end: Pos,
    /// The text put in its place.
    pub replacement: String,
}

/// A resolved label: positions and the note to show there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// Where the node starts.
    pub start: Pos,
    /// Where it ends (exclusive).
    pub end: Pos,
    /// What the label says there.
    pub text: String,
    /// The manifest path the label names (it may be unset in the manifest).
    pub path: String,
}

/// One workload's full analysis, for `explain`.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The input's name as the user gave it.
    pub file: Arc<str>,
    /// 0-based index of the document in its file.
    pub document: usize,
    /// How many documents its input holds, when known.
    pub documents: Option<usize>,
    /// Where Helm rendered the workload from.
    pub origin: Option<String>,
    /// What will run, configured how.
    pub plan: PodPlan,
    /// What the kubelet and the proxies do with it.
    pub timeline: Timeline,
    /// What went wrong on the timeline, sorted.
    pub findings: Vec<Located>,
}

/// What one document produced.
#[derive(Debug, Default)]
pub struct DocumentReport {
    /// One per workload in the document.
    pub analyses: Vec<Analysis>,
    /// Why (part of) the document could not be checked.
    pub errors: Vec<InputError>,
    /// What every report names: objects holding a pod the linter does not lint, with
    /// why and what to do.
    pub notes: Vec<crate::workload::Note>,
    /// With `lint --fix`: the piece's text as read and as fixed, and what was made; `None`
    /// for a part of an input that could not be read (its text is not there to write
    /// back).
    pub fixed: Option<FixedPiece>,
}
