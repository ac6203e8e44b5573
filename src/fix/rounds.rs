//! The fix loop over one piece of an input (the text of one document, as the reader
//! cuts it): each fix checked against the timeline, then fixes made in rounds until
//! none is left that passes.
//!
//! A fix is checked on the text it would write, analysed again with the run's
//! settings: the text must read as the original with exactly the fix's changes
//! ([`super::verify_all`]), the findings it was made for must be gone, and no finding of
//! any rule may be new, more severe or longer ([`super::compare`]). A fix that fails is
//! kept out of machine formats and never made, with the reason.
//!
//! A round, as in ruff, makes every checked fix whose edits do not conflict with an
//! earlier one's, all together; the next round starts from the new text, where fixes
//! are checked again. When fixes that pass alone fail together, the round makes the
//! first of them alone, whose check already passed, so every round makes progress and
//! a fix refused in one round never blocks the others. The loop ends when no fix
//! passes: a second run over the result finds none either (a fixed point).
//!
//! Pieces are independent (a fix changes one document; what other inputs say — the
//! Namespaces and mesh configuration — is in the settings), so the cost of fixing a
//! stream is the sum of its pieces': linear in its length.
//!
//! A `List` is one piece, and a whole cluster as `kubectl get -A -o yaml` prints it is
//! one `List`. Its items are workloads the stages read apart from one another, so a fix
//! whose edits lie within one item is checked on the `List` with that item alone
//! ([`crate::load::list::Items`]), before and after: the same comparison, at the cost of
//! the item rather than of the cluster. [`checked_bytes`] counts what checks analyse.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::compare::{self, Graded};
use super::verify::verify_item;
use super::{Applicability, Change, Edit, Fix, Outcome, Planned, apply_fixes, verify_all};
use crate::load::list::Items;
use crate::report::located::{DocumentReport, Located};
use crate::rules::RuleMeta;
use crate::workload::WorkloadRef;

/// At most this many rounds are made on one piece (ruff's limit too): fixes whose
/// results kept producing new fixes must not loop.
pub const MAX_ROUNDS: usize = 100;

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
}

/// How a piece's text is analysed: the pipeline's stages over it, with the run's
/// settings and policy.
pub trait Analyze {
    /// The analysis of `text`, a new version of the piece's text.
    fn analyze(&self, text: Arc<str>) -> Analysed;

    /// The analysis of `text`, a version of part of the piece's text whose first line
    /// is line `first_line` of the input.
    fn analyze_at(&self, text: Arc<str>, first_line: u32) -> Analysed;
}

/// Bytes of text analysed again to check fixes since the process started.
static CHECKED_BYTES: AtomicU64 = AtomicU64::new(0);

/// How many bytes of text the checks of single fixes have analysed so far in this
/// process: per fix, at most twice its `List` item with the `List`'s own keys (or its
/// document), whatever the `List`'s size.
pub fn checked_bytes() -> u64 {
    CHECKED_BYTES.load(Ordering::Relaxed)
}

/// `analyzer`'s analysis of `text` from `first_line`, counted in [`checked_bytes`].
fn analysed(analyzer: &dyn Analyze, text: String, first_line: u32) -> Analysed {
    CHECKED_BYTES.fetch_add(text.len() as u64, Ordering::Relaxed);
    analyzer.analyze_at(Arc::from(text), first_line)
}

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
    /// Selected fixes that were not made, as they stand at the end.
    pub refused: Vec<Refused>,
    /// The Helm template the piece was rendered from, when it was (`# Source:` as
    /// `helm template` writes it): its fixes belong in the chart.
    pub rendered_from: Option<String>,
    /// Whether fixes were still due after [`MAX_ROUNDS`] rounds.
    pub unfinished: bool,
}

/// Checks every fix the report's findings carry (not suppressed, with edits) and turns
/// each that fails into `Err(reason)`. Fixes the same for several findings (one remedy
/// for two rules) are checked once, for all of them.
pub fn verify(state: &mut Analysed, analyzer: &dyn Analyze) {
    let _ = checked(state, analyzer, |_| true);
}

/// Fixes `state`'s text to a fixed point with every fix at least as safe as
/// `at_least` (display-only fixes are never made): the final analysis, and what was
/// made and refused.
pub fn fix(
    mut state: Analysed,
    analyzer: &dyn Analyze,
    at_least: Applicability,
) -> (Analysed, FixedPiece) {
    let original = state.text.clone();
    let first_line = state.first_line;
    let rendered_from = state
        .report
        .analyses
        .first()
        .and_then(|analysis| analysis.origin.clone())
        .filter(|origin| helm_rendered(origin));
    // Findings whose rule offers a fix of the wanted safety; built or not.
    let wanted = |located: &Located| {
        located.finding.fix.as_ref().is_some_and(|remedy| {
            remedy.applicability >= at_least && remedy.applicability != Applicability::DisplayOnly
        })
    };
    let mut made = Vec::new();
    let mut rounds = 0;
    let mut unfinished = false;
    loop {
        let mut candidates = checked(&mut state, analyzer, wanted);
        if candidates.is_empty() {
            break;
        }
        if rounds == MAX_ROUNDS {
            unfinished = true;
            break;
        }
        rounds += 1;
        let fixes: Vec<Fix> = candidates.iter().map(|c| c.planned.fix.clone()).collect();
        let round = apply_fixes(&state.text, &fixes, true);
        let together: Vec<usize> = (0..candidates.len())
            .filter(|&index| round.outcomes[index] == Outcome::Applied)
            .collect();
        let Some(&first) = together.first() else {
            break;
        };
        let mut kept = vec![first];
        let mut next = None;
        if together.len() > 1 {
            let after = analyzer.analyze(Arc::from(round.text));
            let members: Vec<&Located> = together
                .iter()
                .flat_map(|&index| candidates[index].members(&state))
                .collect();
            if check(&state, &after, &members).is_ok() {
                kept = together;
                next = Some(after);
            }
        }
        for &index in &kept {
            made.extend(
                candidates[index]
                    .members(&state)
                    .into_iter()
                    .map(|located| {
                        let (fix, _) = located.fix_edits().expect("a candidate has a built fix");
                        Made {
                            rule: located.finding.rule,
                            description: fix.description.clone(),
                            applicability: fix.applicability,
                            document: located.document,
                            workload: located.workload.clone(),
                            container: located.finding.container.clone(),
                        }
                    }),
            );
        }
        state = match next.or_else(|| candidates[first].after.take()) {
            Some(after) => after,
            // Checked within its `List` item: the whole text with it made.
            None => {
                let made = apply_fixes(
                    &state.text,
                    std::slice::from_ref(&candidates[first].planned.fix),
                    true,
                );
                analyzer.analyze(Arc::from(made.text))
            }
        };
    }
    let refused = refusals(&state, wanted);
    let fixed = FixedPiece {
        original,
        text: state.text.clone(),
        first_line,
        made,
        refused,
        rendered_from,
        unfinished,
    };
    (state, fixed)
}

/// A fix that passed its check, the findings it is for, and the analysis of its text
/// when it was checked on the whole piece.
struct Candidate {
    planned: Planned,
    /// Where its findings are: (analysis, finding) indices in the report.
    at: Vec<(usize, usize)>,
    after: Option<Analysed>,
}

impl Candidate {
    fn members<'s>(&self, state: &'s Analysed) -> Vec<&'s Located> {
        self.at
            .iter()
            .map(|&(a, f)| &state.report.analyses[a].findings[f])
            .collect()
    }
}

/// Checks the fixes of the findings `wanted` picks (and that are not suppressed):
/// those that fail become `Err(reason)`, those that pass are returned, in the order of
/// their findings. Fixes the same for several findings are found by their edits'
/// hash, and checked once.
fn checked(
    state: &mut Analysed,
    analyzer: &dyn Analyze,
    wanted: impl Fn(&Located) -> bool,
) -> Vec<Candidate> {
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut by_edits: HashMap<&[Edit], usize> = HashMap::new();
    for (a, analysis) in state.report.analyses.iter().enumerate() {
        for (f, located) in analysis.findings.iter().enumerate() {
            let Some(Ok(planned)) = &located.fix else {
                continue;
            };
            if located.suppressed.is_some() || planned.fix.edits.is_empty() || !wanted(located) {
                continue;
            }
            match by_edits.get(&planned.fix.edits[..]) {
                Some(&same) => candidates[same].at.push((a, f)),
                None => {
                    by_edits.insert(&planned.fix.edits, candidates.len());
                    candidates.push(Candidate {
                        planned: planned.clone(),
                        at: vec![(a, f)],
                        after: None,
                    });
                }
            }
        }
    }
    drop(by_edits);
    let items = Items::of(&state.text);
    // The `List` with one item alone, as read: shared by the checks of that item's fixes.
    let mut alone: Option<(usize, Analysed)> = None;
    let mut passed = Vec::new();
    for mut candidate in candidates {
        let fix = &candidate.planned.fix;
        let item = items
            .as_ref()
            .and_then(|items| items.holding(fix.edits.iter().map(|edit| &edit.range)));
        let verdict = match (&items, item) {
            (Some(items), Some(item)) => {
                check_in_item(state, analyzer, items, item, &mut alone, &candidate)
            }
            _ => {
                let round = apply_fixes(&state.text, std::slice::from_ref(fix), true);
                match &round.outcomes[0] {
                    Outcome::Invalid(reason) => Err(reason.clone()),
                    _ => {
                        let after = analysed(analyzer, round.text, state.first_line);
                        let verdict = check(state, &after, &candidate.members(state));
                        candidate.after = Some(after);
                        verdict
                    }
                }
            }
        };
        match verdict {
            Ok(()) => passed.push(candidate),
            Err(reason) => {
                for &(a, f) in &candidate.at {
                    state.report.analyses[a].findings[f].fix = Some(Err(reason.clone()));
                }
            }
        }
    }
    passed
}

/// [`check`] of `candidate`, whose edits lie within item `item` of the `List` that
/// `state` is: on the `List` with that item alone, as read (kept in `alone` for the
/// item's other fixes) and with the fix made.
fn check_in_item(
    state: &Analysed,
    analyzer: &dyn Analyze,
    items: &Items,
    item: usize,
    alone: &mut Option<(usize, Analysed)>,
    candidate: &Candidate,
) -> Result<(), String> {
    let (text, lines_before) = items.alone(&state.text, item);
    let first_line = state.first_line + lines_before as u32;
    if alone.as_ref().is_none_or(|(kept, _)| *kept != item) {
        *alone = Some((item, analysed(analyzer, text.clone(), first_line)));
    }
    let Some((_, before)) = alone.as_ref() else {
        unreachable!("the item's analysis was just made")
    };
    // The fix's edits, moved to where the item starts in the text of it alone.
    let from = items.range(item).start;
    let to = items.alone_start();
    let fix = &candidate.planned.fix;
    let moved = Fix {
        edits: fix
            .edits
            .iter()
            .map(|edit| {
                Edit::replace(
                    edit.range.start - from + to..edit.range.end - from + to,
                    edit.replacement.clone(),
                )
            })
            .collect(),
        ..fix.clone()
    };
    let round = apply_fixes(&text, std::slice::from_ref(&moved), true);
    if let Outcome::Invalid(_) = &round.outcomes[0] {
        // Said of the offsets in the whole text, as users see them.
        let whole = apply_fixes(&state.text, std::slice::from_ref(fix), true);
        if let Outcome::Invalid(reason) = &whole.outcomes[0] {
            return Err(reason.clone());
        }
    }
    let after = analysed(analyzer, round.text, first_line);
    let made = candidate.members(state);
    let changes = changes_of(before, &made);
    verify_item(&before.text, &after.text, item, &changes).map_err(|rejection| rejection.reason)?;
    judge(before, &after, &made)
}

/// Checks fixes made together, which turned `before` into `after`: the text reads as
/// the original with exactly their changes, nothing became unreadable, their findings
/// are gone and nothing is new or worse.
fn check(before: &Analysed, after: &Analysed, made: &[&Located]) -> Result<(), String> {
    let changes = changes_of(before, made);
    verify_all(&before.text, &after.text, &changes).map_err(|rejection| rejection.reason)?;
    judge(before, after, made)
}

/// The changes of the fixes `made`, each with its document's index in the piece.
fn changes_of<'m>(before: &Analysed, made: &[&'m Located]) -> Vec<(usize, &'m [Change])> {
    made.iter()
        .filter_map(|located| match &located.fix {
            Some(Ok(planned)) => Some((
                located.document.saturating_sub(before.first_index),
                &planned.changes[..],
            )),
            _ => None,
        })
        .collect()
}

/// Whether `after`, read as the text with the fixes `made`, reads without a new error,
/// without their findings, and with nothing new or worse than `before`.
fn judge(before: &Analysed, after: &Analysed, made: &[&Located]) -> Result<(), String> {
    if let Some(error) = after.report.errors.get(before.report.errors.len()) {
        return Err(format!(
            "the fixed document could not be checked ({})",
            error.message
        ));
    }
    let gone: Vec<Graded> = made.iter().map(|located| Graded::of(located)).collect();
    compare::no_worse(&before.graded, &after.graded, &gone)
}

/// The fixes `wanted` picks that stand refused in `state`, with their reasons: a fix
/// that failed its check, or that the manifest is not shaped for.
fn refusals(state: &Analysed, wanted: impl Fn(&Located) -> bool) -> Vec<Refused> {
    let mut refused = Vec::new();
    for located in state.report.analyses.iter().flat_map(|a| &a.findings) {
        let Some(Err(reason)) = &located.fix else {
            continue;
        };
        if located.suppressed.is_some() || !wanted(located) {
            continue;
        }
        let item = Refused {
            rule: located.finding.rule.id,
            line: located.primary.start.line,
            reason: reason.clone(),
        };
        if !refused.contains(&item) {
            refused.push(item);
        }
    }
    refused
}

/// Whether `path`, a `# Source:` comment's, names a chart template as `helm template`
/// writes it (`chart/templates/web.yaml`, `chart/charts/db/templates/db.yaml`): a
/// relative path through a `templates` folder, without spaces or a URL's scheme. A
/// hand-written `# Source: https://…` or `# Source: upstream docs` is not one.
pub fn helm_rendered(path: &str) -> bool {
    !path.contains(char::is_whitespace)
        && !path.contains("://")
        && !path.starts_with('/')
        && path
            .split('/')
            .rev()
            .skip(1)
            .any(|folder| folder == "templates")
}
