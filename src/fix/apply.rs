//! Applies a set of fixes to one file's text in a round: every fix whose edits touch
//! nothing an earlier fix of the round touches is applied; the rest wait for the next
//! round, after the caller has linted the new text again (ruff's `apply_fixes`).

use std::collections::{BTreeSet, HashSet};
use std::ops::Range;

use super::{Edit, Fix};

/// What became of one fix in a round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Its edits are in the new text.
    Applied,
    /// It overlaps a fix applied in this round; lint again and retry.
    Deferred,
    /// Its applicability is not selected (an unsafe fix without `--unsafe-fixes`, or a
    /// display-only one).
    NotSelected,
    /// Its edits cannot be applied to this text (out of range, inside a character, or
    /// overlapping each other): a defect of the rule that built it.
    Invalid(String),
}

/// The text after one round and what became of each fix, in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// The text with the applied fixes.
    pub text: String,
    /// One outcome per fix given.
    pub outcomes: Vec<Outcome>,
}

impl Applied {
    /// Whether any fix was applied, so the text changed or another round may be due.
    pub fn changed(&self) -> bool {
        self.outcomes.contains(&Outcome::Applied)
    }
}

/// Applies, to `text`, the fixes that are selected (`unsafe_fixes` selects the unsafe
/// ones too) and do not conflict. Fixes are taken in the order of their first edit, so
/// the earliest in the file wins a conflict; a fix identical to one already applied
/// (two findings with the same remedy) counts as applied. Two edits conflict when their
/// ranges overlap, or when both insert at the same offset (their order would be a
/// guess).
pub fn apply_fixes(text: &str, fixes: &[Fix], unsafe_fixes: bool) -> Applied {
    let mut outcomes = vec![Outcome::NotSelected; fixes.len()];
    let mut order: Vec<usize> = Vec::new();
    for (index, fix) in fixes.iter().enumerate() {
        if !fix.applicability.is_applied(unsafe_fixes) {
            continue;
        }
        match check(text, &fix.edits) {
            Ok(()) => order.push(index),
            Err(reason) => outcomes[index] = Outcome::Invalid(reason),
        }
    }
    order.sort_by_key(|&index| first_offset(&fixes[index]));
    let mut taken: Vec<&Edit> = Vec::new();
    // The ranges taken, by (start, end), and the applied fixes' edits in order: a
    // round of thousands of fixes (a Pod of as many containers) costs their number,
    // not its square. An edit the very same as one taken is shared, not a conflict:
    // fixes that each bring one change with another (each app's delay with the one
    // proxy drain that covers them all) are made together, the shared change once.
    let mut ranges: BTreeSet<(usize, usize)> = BTreeSet::new();
    let mut shared: HashSet<&Edit> = HashSet::new();
    for index in order {
        let edits = &fixes[index].edits;
        let new: Vec<&Edit> = edits.iter().filter(|edit| !shared.contains(edit)).collect();
        if new
            .iter()
            .any(|edit| conflicts_with_taken(&ranges, &edit.range))
        {
            outcomes[index] = Outcome::Deferred;
        } else {
            ranges.extend(new.iter().map(|edit| (edit.range.start, edit.range.end)));
            shared.extend(new.iter().copied());
            taken.extend(new);
            outcomes[index] = Outcome::Applied;
        }
    }
    Applied {
        text: apply_edits(text, taken),
        outcomes,
    }
}

/// Whether `range` conflicts with one of the `taken` ranges. Taken ranges do not
/// conflict with one another, so in (start, end) order their ends never decrease:
/// walking back from the last that starts by `range`'s end, the first that ends
/// before `range` starts ends the search.
fn conflicts_with_taken(taken: &BTreeSet<(usize, usize)>, range: &Range<usize>) -> bool {
    taken
        .range(..=(range.end, usize::MAX))
        .rev()
        .take_while(|(_, end)| *end >= range.start)
        .any(|&(start, end)| conflict(range, &(start..end)))
}

/// Applies non-overlapping edits to `text`.
pub(super) fn apply_edits<'e>(text: &str, edits: impl IntoIterator<Item = &'e Edit>) -> String {
    let mut edits: Vec<&Edit> = edits.into_iter().collect();
    edits.sort_by_key(|edit| (edit.range.start, edit.range.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for edit in edits {
        out.push_str(&text[at..edit.range.start]);
        out.push_str(&edit.replacement);
        at = edit.range.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Edits of `text` that make `first` and then `then`, whose offsets are in the text
/// `first` made. An edit of `then` that touches what an edit of `first` wrote, or
/// lies next to it, is merged with it; the others keep their size, moved back to
/// offsets in `text`. Both lists must be non-overlapping.
pub(super) fn compose(text: &str, first: &[Edit], then: &[Edit]) -> Vec<Edit> {
    let middle = apply_edits(text, first);
    let mut first: Vec<&Edit> = first.iter().collect();
    first.sort_by_key(|edit| (edit.range.start, edit.range.end));
    // Each edit of `first` as the range it wrote in `middle`.
    let mut shift = 0isize;
    let written: Vec<(Range<usize>, &Edit)> = first
        .into_iter()
        .map(|edit| {
            let start = edit.range.start.saturating_add_signed(shift);
            shift += edit.replacement.len() as isize - edit.range.len() as isize;
            (start..start + edit.replacement.len(), edit)
        })
        .collect();
    // `middle`'s offset `at`, outside what `first` wrote, in `text`.
    let back = |at: usize| {
        let before: isize = written
            .iter()
            .filter(|(range, _)| range.end <= at)
            .map(|(range, edit)| range.len() as isize - edit.range.len() as isize)
            .sum();
        at.saturating_add_signed(-before)
    };
    let mut then: Vec<&Edit> = then.iter().collect();
    then.sort_by_key(|edit| (edit.range.start, edit.range.end));
    let mut out = Vec::new();
    let mut used = vec![false; written.len()];
    let mut next = then.into_iter().peekable();
    while let Some(edit) = next.next() {
        // The cluster of `then`'s edits and `first`'s writes that touch each other.
        let mut span = edit.range.clone();
        let mut group = vec![edit];
        loop {
            let mut grown = false;
            for (index, (range, _)) in written.iter().enumerate() {
                if !used[index] && range.start <= span.end && span.start <= range.end {
                    used[index] = true;
                    span = span.start.min(range.start)..span.end.max(range.end);
                    grown = true;
                }
            }
            while let Some(edit) = next.next_if(|edit| edit.range.start <= span.end) {
                span.end = span.end.max(edit.range.end);
                group.push(edit);
                grown = true;
            }
            if !grown {
                break;
            }
        }
        let start = written
            .iter()
            .filter(|(range, _)| range.start == span.start)
            .map(|(_, edit)| edit.range.start)
            .min()
            .unwrap_or_else(|| back(span.start));
        let end = written
            .iter()
            .filter(|(range, _)| range.end == span.end)
            .map(|(_, edit)| edit.range.end)
            .max()
            .unwrap_or_else(|| back(span.end));
        let local: Vec<Edit> = group
            .iter()
            .map(|edit| {
                Edit::replace(
                    edit.range.start - span.start..edit.range.end - span.start,
                    edit.replacement.clone(),
                )
            })
            .collect();
        out.push(Edit::replace(
            start..end,
            apply_edits(&middle[span.clone()], &local),
        ));
    }
    out.extend(
        written
            .iter()
            .zip(used)
            .filter(|(_, used)| !used)
            .map(|((_, edit), _)| (*edit).clone()),
    );
    out.sort_by_key(|edit| (edit.range.start, edit.range.end));
    out
}

fn first_offset(fix: &Fix) -> usize {
    fix.edits
        .iter()
        .map(|edit| edit.range.start)
        .min()
        .unwrap_or(0)
}

/// Whether two edits of one fix overlap or meet, so that making them apart could
/// differ from making them in turn.
pub(super) fn touch(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start <= b.end && b.start <= a.end
}

fn conflict(a: &Range<usize>, b: &Range<usize>) -> bool {
    let overlap = a.start < b.end && b.start < a.end;
    let same_insertion = a.is_empty() && b.is_empty() && a.start == b.start;
    let insertion_inside = (a.is_empty() && b.start < a.start && a.start < b.end)
        || (b.is_empty() && a.start < b.start && b.start < a.end);
    overlap || same_insertion || insertion_inside
}

/// Why `edits` cannot be applied to `text`, if they cannot.
fn check(text: &str, edits: &[Edit]) -> Result<(), String> {
    if edits.is_empty() {
        return Err("the fix has no edits".into());
    }
    for edit in edits {
        let Range { start, end } = edit.range;
        if start > end || end > text.len() {
            return Err(format!(
                "edit {start}..{end} lies outside the text ({} bytes)",
                text.len()
            ));
        }
        if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
            return Err(format!("edit {start}..{end} cuts a character"));
        }
    }
    for (index, edit) in edits.iter().enumerate() {
        if let Some(other) = edits[index + 1..]
            .iter()
            .find(|other| conflict(&edit.range, &other.range))
        {
            return Err(format!(
                "edits {:?} and {:?} of one fix overlap",
                edit.range, other.range
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fix::Applicability;

    fn fix(applicability: Applicability, edits: Vec<Edit>) -> Fix {
        Fix::new(applicability, "test", edits)
    }

    #[test]
    fn non_overlapping_fixes_apply_together_and_overlapping_ones_wait() {
        let text = "a: 1\nb: 2\nc: 3\n";
        let fixes = [
            fix(Applicability::Safe, vec![Edit::replace(3..4, "10")]),
            fix(Applicability::Safe, vec![Edit::replace(8..9, "20")]),
            // Overlaps the first and starts earlier in the file: it wins the round.
            fix(Applicability::Safe, vec![Edit::replace(0..4, "a: 9")]),
            fix(Applicability::Unsafe, vec![Edit::replace(13..14, "30")]),
            fix(Applicability::DisplayOnly, vec![Edit::insert(0, "x: 0\n")]),
        ];
        let round = apply_fixes(text, &fixes, false);
        assert_eq!(round.text, "a: 9\nb: 20\nc: 3\n");
        assert_eq!(
            round.outcomes,
            [
                Outcome::Deferred,
                Outcome::Applied,
                Outcome::Applied,
                Outcome::NotSelected,
                Outcome::NotSelected
            ]
        );
        let with_unsafe = apply_fixes(text, &fixes, true);
        assert_eq!(with_unsafe.text, "a: 9\nb: 20\nc: 30\n");
        assert_eq!(with_unsafe.outcomes[3], Outcome::Applied);
        assert_eq!(with_unsafe.outcomes[4], Outcome::NotSelected);
    }

    #[test]
    fn edits_of_one_fix_are_all_applied_or_none() {
        let text = "a: 1\nb: 2\n";
        let fixes = [
            fix(Applicability::Safe, vec![Edit::replace(0..1, "x")]),
            // Its second edit conflicts with the first fix, so its first edit is not
            // made either.
            fix(
                Applicability::Safe,
                vec![Edit::replace(8..9, "7"), Edit::replace(0..4, "a: 6")],
            ),
        ];
        let round = apply_fixes(text, &fixes, false);
        assert_eq!(round.text, "x: 1\nb: 2\n");
        assert_eq!(round.outcomes, [Outcome::Applied, Outcome::Deferred]);
    }

    #[test]
    fn insertions_at_one_offset_conflict_and_identical_fixes_apply_once() {
        let text = "a: 1\n";
        let insert = fix(Applicability::Safe, vec![Edit::insert(5, "b: 2\n")]);
        let other = fix(Applicability::Safe, vec![Edit::insert(5, "c: 3\n")]);
        let round = apply_fixes(text, &[insert.clone(), insert, other], false);
        assert_eq!(round.text, "a: 1\nb: 2\n");
        assert_eq!(
            round.outcomes,
            [Outcome::Applied, Outcome::Applied, Outcome::Deferred]
        );
    }

    #[test]
    fn malformed_edits_are_refused_with_a_reason() {
        let text = "a: é\n";
        let fixes = [
            fix(Applicability::Safe, vec![Edit::replace(4..5, "e")]),
            fix(Applicability::Safe, vec![Edit::replace(3..99, "e")]),
            fix(
                Applicability::Safe,
                vec![Edit::replace(0..2, "b"), Edit::replace(1..3, "c")],
            ),
        ];
        let round = apply_fixes(text, &fixes, false);
        assert_eq!(round.text, text);
        assert!(!round.changed());
        let reasons: Vec<String> = round
            .outcomes
            .iter()
            .map(|outcome| match outcome {
                Outcome::Invalid(reason) => reason.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert!(reasons[0].contains("cuts a character"), "{reasons:?}");
        assert!(reasons[1].contains("outside the text"), "{reasons:?}");
        assert!(reasons[2].contains("overlap"), "{reasons:?}");
    }
}
