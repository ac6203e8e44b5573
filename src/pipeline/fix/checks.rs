//! Checking fixes against the timeline before they are offered or made.
//!
//! A fix is checked on the text it would write, analysed again with the run's
//! settings: the text must read as the original with exactly the fix's changes
//! ([`crate::fix::verify`]), the findings it was made for must be gone, and no finding of
//! any rule may be new, more severe or longer ([`super::compare`]).
//!
//! Each check analyses the text the fix is in: a document, or a `List` item with the
//! `List`'s own keys ([`crate::load::list::Items::alone`]), since the items of a
//! whole cluster's `List` are workloads the stages read apart from one another. A
//! text with a few fixes has each checked alone. A text with many fixes of one rule —
//! a Pod of 20,000 containers with one preStop fix each — would need an analysis of
//! the whole pod per container, quadratic in its size; there the fixes of one rule,
//! each on its own container, are checked together. A group that passes passes for
//! each of its fixes: a member's findings are on its own container, and what the
//! timeline measures (windows, exits, the time the pod needs) grows with the delays and
//! stops the fixes add, so one fix alone changes less than the group that passed. A
//! group that fails is split: the members whose containers hold the findings that made
//! it fail are checked alone, and the others are halved, until the fixes that fail
//! are found alone. Every verdict is thus one a fix gets alone or in a group that
//! passed, and the cost is an analysis per group checked, at most about two per fix:
//! linear in the text.
//!
//! The items of a `List` are checked apart from one another, on the run's threads.
//! A check reads the documents decoded from its analysis's own trees
//! ([`Analysed::decoded`]): no text is parsed twice to check a fix, and an analysis
//! made only to decide a check locates no finding and builds no fix
//! ([`Purpose::Check`]).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};

use super::analysed::{Analysed, Analyze, Purpose};
use super::compare::{self, Graded};
use crate::fan_out;
use crate::fix::verify::{Decoded, decode_stream, verify_decoded};
use crate::fix::{Change, Edit, Fix, Outcome, Planned, apply_fixes};
use crate::load::list::Items;
use crate::pipeline::located::Located;
use crate::workload::WorkloadRef;

/// A text carrying more fixes to check than this has its fixes of one rule checked in
/// groups; fewer are checked alone, each with its own analysis.
const GROUP_FROM: usize = 8;

/// Bytes of text analysed again to check fixes since the process started.
static CHECKED_BYTES: AtomicU64 = AtomicU64::new(0);

/// How many bytes of text the checks of fixes have analysed so far in this process:
/// per check, its `List` item with the `List`'s own keys (or its document), whatever
/// the `List`'s size; per text, an analysis for each fix it carries, or for each group
/// checked where it carries many.
pub fn checked_bytes() -> u64 {
    CHECKED_BYTES.load(Ordering::Relaxed)
}

/// `analyzer`'s analysis of `text` from `first_line` for `purpose`, counted in
/// [`checked_bytes`].
fn analysed(analyzer: &dyn Analyze, text: String, first_line: u32, purpose: Purpose) -> Analysed {
    CHECKED_BYTES.fetch_add(text.len() as u64, Ordering::Relaxed);
    analyzer.analyze_at(text.into(), first_line, purpose)
}

/// A fix that passed its check, the findings it is for, and the analysis of its text
/// when it was checked alone on the whole piece (for [`Purpose::State`]).
pub(super) struct Candidate {
    pub(super) planned: Planned,
    /// Where its findings are: (analysis, finding) indices in the report.
    at: Vec<(usize, usize)>,
    pub(super) after: Option<Analysed>,
}

impl Candidate {
    /// The findings the fix is for.
    pub(super) fn members<'s>(&self, state: &'s Analysed) -> Vec<&'s Located> {
        self.at
            .iter()
            .map(|&(a, f)| &state.report.analyses[a].findings[f])
            .collect()
    }
}

/// Checks the fixes of the findings `wanted` picks (and that are not suppressed):
/// those that fail become `Err(reason)`, those that pass are returned, in the order of
/// their findings. Fixes the same for several findings are found by their edits'
/// hash, and checked once. `afters` says whether the analysis of the piece with a fix
/// made may become its state (the fix loop keeps it), or only decides the check.
/// `items` are the `List` items of `state`'s text, when it is a `List` the cuts read.
pub(super) fn checked(
    state: &mut Analysed,
    analyzer: &dyn Analyze,
    wanted: impl Fn(&Located) -> bool,
    afters: Purpose,
    items: Option<&Items>,
) -> Vec<Candidate> {
    let mut candidates = candidates(state, wanted);
    // The text each fix is checked on: its `List` item alone, or the whole piece.
    let grounds: Vec<Option<usize>> = candidates
        .iter()
        .map(|candidate| {
            let ranges = candidate.planned.fix.edits.iter().map(|edit| &edit.range);
            items.and_then(|items| items.holding(ranges))
        })
        .collect();
    // The candidates on each ground, grounds in the order their first fix comes.
    let mut on_ground: Vec<(Option<usize>, Vec<usize>)> = Vec::new();
    let mut slot: HashMap<Option<usize>, usize> = HashMap::new();
    for (index, ground) in grounds.iter().enumerate() {
        let at = *slot.entry(*ground).or_insert_with(|| {
            on_ground.push((*ground, Vec::new()));
            on_ground.len() - 1
        });
        on_ground[at].1.push(index);
    }
    // The grounds are checked apart from one another: the items of a `List` on
    // several threads, as they are analysed.
    let check_ground = |(ground, on): &(Option<usize>, Vec<usize>)| {
        let checker = match (items, *ground) {
            (Some(items), Some(item)) => Checker::in_item(state, analyzer, items, item),
            _ => Checker::whole(state, analyzer, afters),
        };
        let mut verdicts = Vec::new();
        if on.len() <= GROUP_FROM {
            for &index in on {
                let (verdict, after) = checker.alone(&candidates[index], checker.afters);
                verdicts.push((index, verdict, after));
            }
        } else {
            for group in groups(state, &candidates, on) {
                checker.settle(&candidates, &group, &mut verdicts);
            }
        }
        verdicts
    };
    let mut verdicts: Vec<Option<Result<(), String>>> = vec![None; candidates.len()];
    let shares = fan_out::in_shares(on_ground.len(), analyzer.threads(), "fix-checks", |share| {
        on_ground[share]
            .iter()
            .map(&check_ground)
            .collect::<Vec<_>>()
    });
    for (index, verdict, after) in shares.into_iter().flatten().flatten() {
        verdicts[index] = Some(verdict);
        candidates[index].after = after;
    }
    let mut passed = Vec::new();
    for (candidate, verdict) in candidates.into_iter().zip(verdicts) {
        match verdict.expect("every candidate is checked") {
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

/// The fixes to check, one per distinct set of edits, in the order of their findings.
fn candidates(state: &Analysed, wanted: impl Fn(&Located) -> bool) -> Vec<Candidate> {
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
    candidates
}

/// The candidates `on` (indices) of one text, grouped for checking together: the fixes
/// of one rule whose findings each name a container no other member's names. A fix
/// for several rules' findings, or for findings without a container, is a group alone.
fn groups(state: &Analysed, candidates: &[Candidate], on: &[usize]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut by_rule: HashMap<&str, (usize, HashSet<&str>)> = HashMap::new();
    for &index in on {
        let members = candidates[index].members(state);
        let rule = members[0].finding.rule.id;
        let containers: Option<Vec<&str>> = members
            .iter()
            .map(|located| {
                (located.finding.rule.id == rule)
                    .then_some(located.finding.container.as_deref())
                    .flatten()
            })
            .collect();
        let Some(containers) = containers else {
            groups.push(vec![index]);
            continue;
        };
        let (group, taken) = by_rule.entry(rule).or_insert_with(|| {
            groups.push(Vec::new());
            (groups.len() - 1, HashSet::new())
        });
        if containers.iter().any(|container| taken.contains(container)) {
            groups.push(vec![index]);
            continue;
        }
        taken.extend(containers);
        groups[*group].push(index);
    }
    groups
}

/// Checks fixes on one text: the whole piece, or one `List` item alone.
struct Checker<'s> {
    state: &'s Analysed,
    analyzer: &'s dyn Analyze,
    /// What the analysis of the whole piece with one fix made is for.
    afters: Purpose,
    /// The `List` item, with its items and its analysis alone as read.
    item: Option<(&'s Items, usize, Analysed)>,
}

impl<'s> Checker<'s> {
    fn whole(state: &'s Analysed, analyzer: &'s dyn Analyze, afters: Purpose) -> Checker<'s> {
        Checker {
            state,
            analyzer,
            afters,
            item: None,
        }
    }

    /// On the `List` that `state` is, with item `item` alone.
    fn in_item(
        state: &'s Analysed,
        analyzer: &'s dyn Analyze,
        items: &'s Items,
        item: usize,
    ) -> Checker<'s> {
        let (text, lines_before) = items.alone(&state.text, item);
        let first_line = state.first_line + lines_before as u32;
        let before = analysed(analyzer, text, first_line, Purpose::Check);
        Checker {
            state,
            analyzer,
            afters: Purpose::Check,
            item: Some((items, item, before)),
        }
    }

    /// The verdict on `candidate` alone, and the analysis of the whole piece with it
    /// made when that is what it was checked on and `afters` may keep it.
    fn alone(
        &self,
        candidate: &Candidate,
        afters: Purpose,
    ) -> (Result<(), String>, Option<Analysed>) {
        let fix = &candidate.planned.fix;
        let whole = || apply_fixes(&self.state.text, std::slice::from_ref(fix), true);
        if self.item.is_none() {
            let round = whole();
            if let Outcome::Invalid(reason) = &round.outcomes[0] {
                return (Err(reason.clone()), None);
            }
            let mut after = analysed(self.analyzer, round.text, self.state.first_line, afters);
            // Kept as the next state, the analysis keeps its documents; else they are taken.
            let documents = match afters {
                Purpose::State => decoded(&after).into_owned(),
                Purpose::Check => taken_decoded(&mut after),
            };
            let members = candidate.members(self.state);
            let verdict = judged(self.state, &after, documents, None, &members);
            let kept = (afters == Purpose::State).then_some(after);
            return (verdict.map_err(|failure| failure.reason), kept);
        }
        let verdict = self.together(&[candidate]).map_err(|failure| {
            if !failure.unmade {
                return failure.reason;
            }
            // An edit that cannot be made, said of the offsets users see.
            match &whole().outcomes[0] {
                Outcome::Invalid(whole) => whole.clone(),
                _ => failure.reason,
            }
        });
        (verdict, None)
    }

    /// The verdict on the candidates `group` (indices) made together, written into
    /// `verdicts` for each. A group that fails is split until each fix that fails is
    /// checked alone, with its own reason: the members whose containers hold the
    /// findings that made it fail are checked alone, and the others are halved.
    fn settle(&self, candidates: &[Candidate], group: &[usize], verdicts: &mut Vec<Verdict>) {
        if let [index] = group {
            let (verdict, _) = self.alone(&candidates[*index], Purpose::Check);
            verdicts.push((*index, verdict, None));
            return;
        }
        let members: Vec<&Candidate> = group.iter().map(|&index| &candidates[index]).collect();
        let Err(failure) = self.together(&members) else {
            verdicts.extend(group.iter().map(|&index| (index, Ok(()), None)));
            return;
        };
        let (suspects, others): (Vec<usize>, Vec<usize>) = group.iter().partition(|&&index| {
            candidates[index]
                .members(self.state)
                .iter()
                .any(|located| failure.blamed.contains(&spot(located)))
        });
        for index in suspects {
            let (verdict, _) = self.alone(&candidates[index], Purpose::Check);
            verdicts.push((index, verdict, None));
        }
        // Halved, the others cost at most twice the checks they would alone, however
        // few members each failure names.
        let (first, second) = others.split_at(others.len() / 2);
        for half in [first, second] {
            if !half.is_empty() {
                self.settle(candidates, half, verdicts);
            }
        }
    }

    /// [`judged`] of `made` made together on this checker's text; a failure also when
    /// one of their edits cannot be made with the others.
    fn together(&self, made: &[&Candidate]) -> Result<(), Failure> {
        let findings: Vec<&Located> = made
            .iter()
            .flat_map(|candidate| candidate.members(self.state))
            .collect();
        let Some((items, item, before)) = &self.item else {
            let fixes: Vec<Fix> = made.iter().map(|c| c.planned.fix.clone()).collect();
            let round = apply_fixes(&self.state.text, &fixes, true);
            refuse_unmade(&round.outcomes)?;
            let mut after = analysed(
                self.analyzer,
                round.text,
                self.state.first_line,
                Purpose::Check,
            );
            let documents = taken_decoded(&mut after);
            return judged(self.state, &after, documents, None, &findings);
        };
        // The fixes' edits, moved to where the item starts in the text of it alone.
        let (from, to) = (items.range(*item).start, items.alone_start());
        let moved: Vec<Fix> = made
            .iter()
            .map(|candidate| {
                let fix = &candidate.planned.fix;
                Fix {
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
                }
            })
            .collect();
        let round = apply_fixes(&before.text, &moved, true);
        refuse_unmade(&round.outcomes)?;
        let mut after = analysed(self.analyzer, round.text, before.first_line, Purpose::Check);
        let documents = taken_decoded(&mut after);
        judged(before, &after, documents, Some(*item), &findings)
    }
}

/// A candidate's verdict: its index, whether it passed or why not, and the analysis
/// of the piece with it made when that may become the piece's state.
type Verdict = (usize, Result<(), String>, Option<Analysed>);

/// Where a finding is, as a failure blames it: document, workload and container.
type Spot = (usize, WorkloadRef, Option<String>);

fn spot(located: &Located) -> Spot {
    (
        located.document,
        located.workload.clone(),
        located.finding.container.clone(),
    )
}

/// Why fixes failed their check.
struct Failure {
    /// The first thing that failed, in one sentence: the reason a fix is refused.
    reason: String,
    /// Where the findings that made them fail are, those that name a container (a
    /// finding about the whole pod, or a text that does not read as intended, names
    /// none).
    blamed: HashSet<Spot>,
    /// Whether an edit could not be made.
    unmade: bool,
}

impl Failure {
    fn unplaced(reason: String) -> Failure {
        Failure {
            reason,
            blamed: HashSet::new(),
            unmade: false,
        }
    }
}

/// A failure when a fix of a round was not made: its edits are invalid or overlap
/// another's.
fn refuse_unmade(outcomes: &[Outcome]) -> Result<(), Failure> {
    let reason = match outcomes
        .iter()
        .find(|outcome| **outcome != Outcome::Applied)
    {
        None => return Ok(()),
        Some(Outcome::Invalid(reason)) => reason.clone(),
        Some(_) => "its edits overlap another fix's".to_owned(),
    };
    Err(Failure {
        unmade: true,
        ..Failure::unplaced(reason)
    })
}

/// Checks fixes made together, which turned `before` into `after`: the text reads as
/// the original with exactly their changes, nothing became unreadable, their findings
/// are gone and nothing is new or worse.
pub(super) fn check(before: &Analysed, after: &Analysed, made: &[&Located]) -> Result<(), String> {
    judged(before, after, decoded(after).into_owned(), None, made).map_err(|failure| failure.reason)
}

/// [`check`] of `after`, whose text's documents are `documents` (within `List` item
/// `item` when it is one alone), failing with what made it fail.
fn judged(
    before: &Analysed,
    after: &Analysed,
    documents: Result<Decoded, String>,
    item: Option<usize>,
    made: &[&Located],
) -> Result<(), Failure> {
    let changes = changes_of(before, made);
    verify_decoded(&decoded(before), documents, item, &changes)
        .map_err(|rejection| Failure::unplaced(rejection.reason))?;
    judge(before, after, made)
}

/// The documents of `state`'s text, decoded, taken from its analysis (or read again).
fn taken_decoded(state: &mut Analysed) -> Result<Decoded, String> {
    state
        .decoded
        .take()
        .unwrap_or_else(|| decode_stream(&state.text))
}

/// The documents of `state`'s text, decoded: those its analysis kept, else read again.
fn decoded(state: &Analysed) -> Cow<'_, Result<Decoded, String>> {
    match &state.decoded {
        Some(decoded) => Cow::Borrowed(decoded),
        None => Cow::Owned(decode_stream(&state.text)),
    }
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
fn judge(before: &Analysed, after: &Analysed, made: &[&Located]) -> Result<(), Failure> {
    if let Some(error) = after.report.errors.get(before.report.errors.len()) {
        return Err(Failure::unplaced(format!(
            "the fixed document could not be checked ({})",
            error.message
        )));
    }
    let gone: Vec<Graded> = made.iter().map(|located| Graded::of(located)).collect();
    let failures = compare::failures(&before.graded, &after.graded, &gone);
    let Some((_, reason)) = failures.first() else {
        return Ok(());
    };
    let blamed = failures
        .iter()
        .filter(|(key, _)| key.3.is_some())
        .map(|((document, workload, _, container), _)| {
            (*document, workload.clone(), container.clone())
        })
        .collect();
    Err(Failure {
        reason: reason.clone(),
        blamed,
        unmade: false,
    })
}
