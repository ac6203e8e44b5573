//! What a comparison found, workload by workload: findings added, removed or changed,
//! timeline moves and settings that become moot or start to apply, with its counts.

use std::sync::Arc;

use super::moves::{Move, SettingChange};
use crate::pipeline::located::Located;
use crate::rules::Severity;
use crate::workload::WorkloadRef;

/// What changed between the two sides, workload by workload.
#[derive(Debug, Default)]
pub struct Comparison {
    /// The workloads that changed, that appear or that go away, in the order of the
    /// second side's inputs (workloads only the first side has come last).
    pub workloads: Vec<WorkloadChange>,
    /// Workloads on both sides with nothing that changed: counted, not listed.
    pub unchanged: usize,
}

/// Whether a workload is on both sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presence {
    /// On both sides.
    Both,
    /// Only on the first side: it goes away.
    Before,
    /// Only on the second side: it is new.
    After,
}

/// One workload that changed.
#[derive(Debug)]
pub struct WorkloadChange {
    /// Its identity on the second side (or the first, for one that goes away).
    pub workload: WorkloadRef,
    /// The input it is in on the second side (or the first).
    pub file: Arc<str>,
    /// Whether it is on both sides.
    pub presence: Presence,
    /// Findings added, removed or changed, in the order of the second side's report
    /// (removed ones after).
    pub findings: Vec<FindingChange>,
    /// What moved on the timeline.
    pub moves: Vec<Move>,
    /// Settings that become moot, or start to apply.
    pub settings: Vec<SettingChange>,
}

/// A finding that one side has and the other has not, or that both have with another
/// message or severity.
#[derive(Debug)]
pub struct FindingChange {
    /// The fingerprint both sides share, as SARIF names it (the file named as the
    /// second side names it, relative to the current directory).
    pub fingerprint: String,
    /// The finding on the first side.
    pub before: Option<Located>,
    /// The finding on the second side.
    pub after: Option<Located>,
}

/// How a finding changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FindingMove {
    /// Only the second side has it.
    Added,
    /// Only the first side has it.
    Removed,
    /// Both have it, with another message or severity.
    Changed,
}

impl FindingChange {
    /// Whether it is added, removed or changed.
    pub fn kind(&self) -> FindingMove {
        match (&self.before, &self.after) {
            (None, Some(_)) => FindingMove::Added,
            (Some(_), None) => FindingMove::Removed,
            _ => FindingMove::Changed,
        }
    }

    /// The side that is reported: the second, unless it is removed.
    pub fn current(&self) -> &Located {
        self.after
            .as_ref()
            .or(self.before.as_ref())
            .expect("a change has at least one side")
    }
}

/// Counts over a whole comparison, for summaries and the exit status.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Workloads with a change, new ones and ones that go away included.
    pub changed: usize,
    /// Workloads on both sides with nothing that changed.
    pub unchanged: usize,
    /// Findings added, by severity: errors, warnings, infos.
    pub added: [usize; 3],
    /// Findings removed, by severity.
    pub removed: [usize; 3],
    /// Findings whose message or severity changed.
    pub changed_findings: usize,
}

impl Comparison {
    /// The counts of the comparison; suppressed findings are not counted.
    pub fn tally(&self) -> Tally {
        let mut tally = Tally {
            changed: self.workloads.len(),
            unchanged: self.unchanged,
            ..Tally::default()
        };
        for change in self.workloads.iter().flat_map(|w| &w.findings) {
            let located = change.current();
            if located.suppressed.is_some() {
                continue;
            }
            let index = severity_index(located.finding.severity);
            match change.kind() {
                FindingMove::Added => tally.added[index] += 1,
                FindingMove::Removed => tally.removed[index] += 1,
                FindingMove::Changed => tally.changed_findings += 1,
            }
        }
        tally
    }

    /// Whether an unsuppressed finding at or above `threshold` is added (or raised to
    /// it): what `--fail-on-new` fails on. Removed findings never count.
    pub fn adds_at_or_above(&self, threshold: Severity) -> bool {
        self.workloads
            .iter()
            .flat_map(|w| &w.findings)
            .filter(|change| change.kind() != FindingMove::Removed)
            .filter_map(|change| {
                let after = change.after.as_ref()?;
                let before = change.before.as_ref().map(|b| b.finding.severity);
                let raised = before.is_none_or(|b| b < threshold);
                (after.suppressed.is_none() && raised).then_some(after.finding.severity)
            })
            .any(|severity| severity >= threshold)
    }
}

/// Errors, warnings, infos: 0, 1, 2.
pub fn severity_index(severity: Severity) -> usize {
    match severity {
        Severity::Error => 0,
        Severity::Warning => 1,
        Severity::Info => 2,
    }
}
