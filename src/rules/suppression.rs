//! Suppressions: annotations on a workload that silence a rule's findings, with the
//! reason the user gave.

use super::Finding;
use crate::resolve::ANNOTATION_PREFIX;
use crate::workload::Workload;

/// The reason given by `ignore-check.mesh-lifecycle.io/<id or name>: "<reason>"` or
/// `mesh-lifecycle.io/ignore-all: "<reason>"` on the object or its pod template, when
/// one applies to `finding`.
pub fn suppression(workload: &Workload, finding: &Finding) -> Option<String> {
    let keys = [
        format!("ignore-check.mesh-lifecycle.io/{}", finding.rule.id),
        format!("ignore-check.mesh-lifecycle.io/{}", finding.rule.name),
        format!("{ANNOTATION_PREFIX}ignore-all"),
    ];
    keys.iter().find_map(|key| {
        workload
            .annotation(key)
            .map(|(reason, _)| reason.to_owned())
    })
}
