//! Matching the two sides: workloads by identity, findings by fingerprint.

use std::collections::HashMap;
use std::sync::Arc;

use super::{Comparison, FindingChange, Presence, SettingChange, WorkloadChange, moves};
use crate::pipeline::located::{Analysis, Located};
use crate::report::fingerprint::{self, Occurrences};
use crate::report::paths::PathBase;
use crate::workload::Kind;

/// A workload's kind, namespace (or the default one) and name.
type Identity = (Kind, String, String);

/// Compares the analyses of the first side (`before`) with the second's (`after`).
///
/// A workload is matched by its file (each side names a file as the second does: a
/// renamed file is followed by the caller), kind, namespace and name; one left over is
/// matched by kind, namespace and name alone when that is unique, so a workload that
/// moved to another file, or an object read from a cluster and the file that replaces
/// it, is still one workload. `namespace` is the namespace of objects that name none
/// (where `kubectl apply` would put them). Findings of a matched pair are matched by
/// their fingerprint, computed for both with the second side's file and identity;
/// `base` is the directory fingerprints name files relative to, as SARIF's.
pub fn compare(
    before: Vec<Analysis>,
    after: Vec<Analysis>,
    namespace: Option<&str>,
    base: &PathBase,
) -> Comparison {
    let mut comparison = Comparison::default();
    for pair in pair_up(before, after, namespace) {
        let change = match pair {
            (Some(old), Some(new)) => self::pair(&old, &new, base),
            (None, Some(new)) => one_side(&new, Presence::After, base),
            (Some(old), None) => one_side(&old, Presence::Before, base),
            (None, None) => None,
        };
        match change {
            Some(change) => comparison.workloads.push(change),
            None => comparison.unchanged += 1,
        }
    }
    comparison
}

/// Each workload of the two sides with its counterpart, matched as [`compare`]
/// matches them: in the second side's order, then the workloads only the first side
/// has.
pub fn pair_up(
    before: Vec<Analysis>,
    after: Vec<Analysis>,
    namespace: Option<&str>,
) -> Vec<(Option<Analysis>, Option<Analysis>)> {
    let identity = |analysis: &Analysis| -> Identity {
        let w = &analysis.plan.workload;
        let ns = w.namespace.as_deref().or(namespace).unwrap_or("");
        (w.kind, ns.to_owned(), w.name.clone())
    };
    let mut before: Vec<Option<Analysis>> = before.into_iter().map(Some).collect();
    let mut by_file: HashMap<(Arc<str>, Identity), Vec<usize>> = HashMap::new();
    let mut by_identity: HashMap<Identity, Vec<usize>> = HashMap::new();
    for (index, analysis) in before.iter().flatten().enumerate() {
        by_file
            .entry((analysis.file.clone(), identity(analysis)))
            .or_default()
            .push(index);
        by_identity
            .entry(identity(analysis))
            .or_default()
            .push(index);
    }
    let take = |before: &mut Vec<Option<Analysis>>, candidates: Option<&Vec<usize>>| {
        candidates?.iter().find_map(|&index| before[index].take())
    };
    // First pass: same file and identity; second: identity alone, where unique.
    let mut pairs: Vec<(Option<Analysis>, Analysis)> = Vec::with_capacity(after.len());
    for analysis in after {
        let matched = take(
            &mut before,
            by_file.get(&(analysis.file.clone(), identity(&analysis))),
        );
        pairs.push((matched, analysis));
    }
    for (matched, analysis) in &mut pairs {
        if matched.is_none() {
            let candidates = by_identity.get(&identity(analysis));
            let left: Vec<usize> = candidates
                .into_iter()
                .flatten()
                .copied()
                .filter(|&index| before[index].is_some())
                .collect();
            if left.len() == 1 {
                *matched = before[left[0]].take();
            }
        }
    }
    let mut all: Vec<(Option<Analysis>, Option<Analysis>)> = pairs
        .into_iter()
        .map(|(old, new)| (old, Some(new)))
        .collect();
    all.extend(before.into_iter().flatten().map(|old| (Some(old), None)));
    all
}

/// A workload only one side has: every finding of it is added (or removed). A workload
/// without findings still appears, or goes away.
fn one_side(analysis: &Analysis, presence: Presence, base: &PathBase) -> Option<WorkloadChange> {
    let uri = fingerprint::uri(base, &analysis.file);
    let mut occurrences = Occurrences::default();
    let findings = analysis
        .findings
        .iter()
        .map(|located| {
            let fingerprint = occurrences.next(fingerprint::hash(located, &uri));
            let (before, after) = match presence {
                Presence::Before => (Some(located.clone()), None),
                _ => (None, Some(located.clone())),
            };
            FindingChange {
                fingerprint,
                before,
                after,
            }
        })
        .collect();
    Some(WorkloadChange {
        workload: analysis.plan.workload.clone(),
        file: analysis.file.clone(),
        presence,
        findings,
        moves: Vec::new(),
        settings: Vec::new(),
    })
}

/// The changes of a workload both sides have; `None` when nothing changed.
fn pair(before: &Analysis, after: &Analysis, base: &PathBase) -> Option<WorkloadChange> {
    let uri = fingerprint::uri(base, &after.file);
    let workload = &after.plan.workload;
    // Both sides' findings named as the second side names them.
    let keyed = |findings: &[Located]| -> Vec<(String, Located)> {
        let mut occurrences = Occurrences::default();
        findings
            .iter()
            .map(|located| {
                let hash = fingerprint::hash_parts(
                    located.finding.rule.id,
                    &uri,
                    workload,
                    located.finding.container.as_deref(),
                    &located.primary.path,
                );
                (occurrences.next(hash), located.clone())
            })
            .collect()
    };
    let old = keyed(&before.findings);
    let new = keyed(&after.findings);
    let mut old_by_key: HashMap<&str, &Located> =
        old.iter().map(|(key, l)| (key.as_str(), l)).collect();
    let mut findings = Vec::new();
    let mut windows = Vec::new();
    for (key, located) in &new {
        match old_by_key.remove(key.as_str()) {
            None => {
                windows.push((None, Some(located)));
                findings.push(FindingChange {
                    fingerprint: key.clone(),
                    before: None,
                    after: Some(located.clone()),
                });
            }
            Some(previous) => {
                windows.push((Some(previous), Some(located)));
                let same = previous.finding.message == located.finding.message
                    && previous.finding.severity == located.finding.severity
                    && previous.suppressed == located.suppressed;
                if !same {
                    findings.push(FindingChange {
                        fingerprint: key.clone(),
                        before: Some(previous.clone()),
                        after: Some(located.clone()),
                    });
                }
            }
        }
    }
    for (key, located) in &old {
        if old_by_key.contains_key(key.as_str()) {
            windows.push((Some(located), None));
            findings.push(FindingChange {
                fingerprint: key.clone(),
                before: Some(located.clone()),
                after: None,
            });
        }
    }
    let mut moves = moves::timeline(before, after);
    moves.extend(moves::windows(&windows));
    let settings: Vec<SettingChange> = moves::settings(&before.plan, &after.plan);
    if findings.is_empty() && moves.is_empty() && settings.is_empty() {
        return None;
    }
    Some(WorkloadChange {
        workload: workload.clone(),
        file: after.file.clone(),
        presence: super::Presence::Both,
        findings,
        moves,
        settings,
    })
}
