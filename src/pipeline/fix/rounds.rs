//! The fix loop over one piece of an input (the text of one document, as the reader
//! cuts it): each fix checked against the timeline, then fixes made in rounds until
//! none is left that passes.
//!
//! Each fix is first checked against the timeline ([`super::checks`]); a fix that
//! fails is kept out of machine formats and never made, with the reason.
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
//! stream is the sum of its pieces': linear in its length. A `List` is one piece; its
//! fixes are checked item by item ([`super::checks`]).

use std::sync::Arc;

use super::analysed::{Analysed, Analyze, Purpose};
use super::checks;
use super::fixed::{FixedPiece, Made, Refused};
use crate::fix::{Applicability, Fix, Outcome, apply_fixes};
use crate::load::list::Items;
use crate::pipeline::located::Located;

/// At most this many rounds are made on one piece (ruff's limit too): fixes whose
/// results kept producing new fixes must not loop.
pub const MAX_ROUNDS: usize = 100;

/// Checks every fix the report's findings carry (not suppressed, with edits) and turns
/// each that fails into `Err(reason)`. Fixes the same for several findings (one remedy
/// for two rules) are checked once, for all of them.
pub fn verify(state: &mut Analysed, analyzer: &dyn Analyze) {
    let items = Items::of(&state.text);
    verify_in_items(state, analyzer, items.as_ref());
}

/// [`verify`] of a piece whose text is a `List` with the items `items` (when it is one),
/// cut once for all its parts: the fixes in a `List` read item by item are checked
/// on their items without cutting the `List` again.
pub fn verify_in_items(state: &mut Analysed, analyzer: &dyn Analyze, items: Option<&Items>) {
    let _ = checks::checked(state, analyzer, |_| true, Purpose::Check, items);
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
    let found = standing(&state);
    let mut made = Vec::new();
    let mut rounds = 0;
    let mut unfinished = false;
    loop {
        let items = Items::of(&state.text);
        let mut candidates =
            checks::checked(&mut state, analyzer, wanted, Purpose::State, items.as_ref());
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
            if checks::check(&state, &after, &members).is_ok() {
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
    let hidden = if at_least == Applicability::Safe {
        hidden(&mut state, analyzer)
    } else {
        0
    };
    let also_cleared = found
        .saturating_sub(standing(&state))
        .saturating_sub(made.len());
    let fixed = FixedPiece {
        original,
        text: state.text.clone(),
        first_line,
        made,
        also_cleared,
        hidden,
        refused,
        rendered_from,
        unfinished,
    };
    (state, fixed)
}

/// How many findings of `state`, not suppressed, have an unsafe fix that passes its
/// check: those are checked now, as a run that makes only safe fixes leaves them.
fn hidden(state: &mut Analysed, analyzer: &dyn Analyze) -> usize {
    let unsafe_fix = |located: &Located| {
        located.suppressed.is_none()
            && located
                .finding
                .fix
                .as_ref()
                .is_some_and(|remedy| remedy.applicability == Applicability::Unsafe)
    };
    let items = Items::of(&state.text);
    let _ = checks::checked(state, analyzer, unsafe_fix, Purpose::Check, items.as_ref());
    state
        .report
        .analyses
        .iter()
        .flat_map(|a| &a.findings)
        .filter(|located| {
            unsafe_fix(located)
                && located
                    .checked_fix()
                    .is_some_and(|fix| fix.applicability == Applicability::Unsafe)
        })
        .count()
}

/// How many findings of `state` are not suppressed.
fn standing(state: &Analysed) -> usize {
    state
        .report
        .analyses
        .iter()
        .flat_map(|a| &a.findings)
        .filter(|located| located.suppressed.is_none())
        .count()
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
