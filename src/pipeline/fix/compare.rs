//! Whether a fix makes a pod worse: every rule's findings on the timeline before and
//! after it, compared finding by finding.
//!
//! A fix is judged on the whole timeline, not on the rule that offered it: every rule
//! runs for the comparison, whether or not `--select`, `--ignore` or the config file's
//! `rules:` report it, and suppressed findings count too (a suppression accepts a
//! hazard as it is, not a worse one). A finding is the same one before and after when
//! it is about the same document, workload, rule and container: paths are no help, as
//! a fix that moves a container or an annotation moves the nodes findings point at.
//! After the fix, each such group must hold no more findings than before (less the
//! ones the fix was made for), and, strongest against strongest, none more severe or
//! with a longer loss window.

use std::collections::BTreeMap;

use crate::pipeline::located::Located;
use crate::rules::{Finding, Severity};
use crate::time::Millis;
use crate::workload::WorkloadRef;

/// One finding of any rule, as the comparison weighs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graded {
    /// What makes it the same finding before and after a fix.
    pub key: Key,
    /// Its severity, as the config file sets the rule's (selected or not).
    pub severity: Severity,
    /// How long traffic is lost: its timeline window's length, zero without one.
    pub lost: Millis,
    /// Its message, to name it when a fix is refused.
    pub message: String,
}

/// Document (0-based index in its input), workload, rule id and container.
pub type Key = (usize, WorkloadRef, &'static str, Option<String>);

impl Graded {
    /// `finding`, from the workload `workload` of document `document`, at `severity`.
    pub fn new(
        finding: &Finding,
        document: usize,
        workload: &WorkloadRef,
        severity: Severity,
    ) -> Graded {
        Graded {
            key: (
                document,
                workload.clone(),
                finding.rule.id,
                finding.container.clone(),
            ),
            severity,
            lost: finding
                .window
                .as_ref()
                .map_or(Millis(0), |window| Millis(window.to.0 - window.from.0)),
            message: finding.message.clone(),
        }
    }

    /// A reported finding, at the severity it is reported with.
    pub fn of(located: &Located) -> Graded {
        Graded::new(
            &located.finding,
            located.document,
            &located.workload,
            located.finding.severity,
        )
    }

    /// Whether it weighs at least as much as `other`.
    fn covers(&self, other: &Graded) -> bool {
        self.severity >= other.severity && self.lost >= other.lost
    }
}

/// Checks that `after` is no worse than `before` with the findings of `made` gone:
/// `Err` says, in one sentence, what the fix would bring or leave.
pub fn no_worse(before: &[Graded], after: &[Graded], made: &[Graded]) -> Result<(), String> {
    match failures(before, after, made).into_iter().next() {
        Some((_, reason)) => Err(reason),
        None => Ok(()),
    }
}

/// What makes `after` worse than `before` with the findings of `made` gone: for each
/// group of findings (same document, workload, rule and container) that is worse, its
/// key and, in one sentence, the first thing the fix would bring or leave there; in
/// the order of the keys, so that the first is [`no_worse`]'s reason.
pub fn failures(before: &[Graded], after: &[Graded], made: &[Graded]) -> Vec<(Key, String)> {
    let mut failures = Vec::new();
    let mut earlier = groups(before);
    for gone in made {
        let Some(group) = earlier.get_mut(&gone.key) else {
            continue;
        };
        if let Some(at) = group.iter().position(|other| other == gone) {
            group.remove(at);
        }
    }
    for (key, mut later) in groups(after) {
        let mut earlier = earlier.remove(&key).unwrap_or_default();
        strongest_first(&mut earlier);
        strongest_first(&mut later);
        let rule = key.2;
        let worse =
            later
                .iter()
                .enumerate()
                .find_map(|(index, finding)| match earlier.get(index) {
                    Some(before) if before.covers(finding) => None,
                    Some(before) => Some(format!(
                        "it would make {rule} worse ({}; before: {})",
                        weight(finding),
                        weight(before)
                    )),
                    None if made.iter().any(|gone| gone.key == key) => Some(format!(
                        "the finding is still there after it ({rule}: {})",
                        finding.message
                    )),
                    None => Some(format!(
                        "it would bring a new finding ({rule}: {})",
                        finding.message
                    )),
                });
        if let Some(reason) = worse {
            failures.push((key, reason));
        }
    }
    failures
}

fn groups(findings: &[Graded]) -> BTreeMap<Key, Vec<Graded>> {
    let mut groups: BTreeMap<Key, Vec<Graded>> = BTreeMap::new();
    for finding in findings {
        groups
            .entry(finding.key.clone())
            .or_default()
            .push(finding.clone());
    }
    groups
}

fn strongest_first(findings: &mut [Graded]) {
    findings.sort_by_key(|finding| std::cmp::Reverse((finding.severity, finding.lost)));
}

/// `error, 10 s of traffic lost`.
fn weight(finding: &Graded) -> String {
    if finding.lost == Millis(0) {
        finding.severity.to_string()
    } else {
        format!("{}, {} of traffic lost", finding.severity, finding.lost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Kind;

    fn graded(rule: &'static str, severity: Severity, lost: i64) -> Graded {
        Graded {
            key: (
                0,
                WorkloadRef {
                    kind: Kind::Deployment,
                    name: "web".into(),
                    namespace: None,
                },
                rule,
                Some("app".into()),
            ),
            severity,
            lost: Millis(lost),
            message: format!("{rule} message"),
        }
    }

    #[test]
    fn the_made_finding_must_go_and_nothing_may_come() {
        let ml207 = graded("ML207", Severity::Info, 5000);
        let ml202 = graded("ML202", Severity::Error, 5000);
        let before = [ml207.clone(), ml202.clone()];
        assert_eq!(
            no_worse(
                &before,
                std::slice::from_ref(&ml202),
                std::slice::from_ref(&ml207)
            ),
            Ok(())
        );
        let still = no_worse(&before, &before, std::slice::from_ref(&ml207)).unwrap_err();
        assert!(still.starts_with("the finding is still there"), "{still}");
        let ml201 = graded("ML201", Severity::Error, 0);
        let new = no_worse(&before, &[ml202, ml201], std::slice::from_ref(&ml207)).unwrap_err();
        assert_eq!(new, "it would bring a new finding (ML201: ML201 message)");
    }

    #[test]
    fn every_worse_group_is_named_and_the_first_is_the_reason() {
        let on = |rule, container: &str, severity| Graded {
            key: (
                0,
                graded(rule, severity, 0).key.1,
                rule,
                Some(container.into()),
            ),
            ..graded(rule, severity, 0)
        };
        let before = [
            on("ML207", "a", Severity::Info),
            on("ML207", "b", Severity::Info),
        ];
        let made = [before[0].clone(), before[1].clone()];
        let after = [
            on("ML202", "b", Severity::Error),
            on("ML207", "a", Severity::Info),
            on("ML202", "a", Severity::Error),
        ];
        let failures = failures(&before, &after, &made);
        let keys: Vec<(&str, Option<&str>)> = failures
            .iter()
            .map(|(key, _)| (key.2, key.3.as_deref()))
            .collect();
        assert_eq!(
            keys,
            [
                ("ML202", Some("a")),
                ("ML202", Some("b")),
                ("ML207", Some("a"))
            ]
        );
        assert!(failures[2].1.starts_with("the finding is still there"));
        assert_eq!(no_worse(&before, &after, &made), Err(failures[0].1.clone()));
    }

    #[test]
    fn a_longer_window_or_a_higher_severity_is_worse_whatever_the_rule() {
        let ml207 = graded("ML207", Severity::Info, 5000);
        let ml202 = graded("ML202", Severity::Warning, 5000);
        let before = [ml207.clone(), ml202.clone()];
        let longer = graded("ML202", Severity::Warning, 10_000);
        assert_eq!(
            no_worse(&before, &[longer], std::slice::from_ref(&ml207)),
            Err(
                "it would make ML202 worse (warning, 10 s of traffic lost; before: warning, 5 s of traffic lost)"
                    .into()
            )
        );
        let graver = graded("ML202", Severity::Error, 5000);
        assert!(no_worse(&before, &[graver], std::slice::from_ref(&ml207)).is_err());
        let shorter = graded("ML202", Severity::Warning, 1000);
        assert_eq!(no_worse(&before, &[shorter], &[ml207]), Ok(()));
    }
}
