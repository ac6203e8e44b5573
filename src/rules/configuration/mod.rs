//! Configuration rules (ML4xx): mesh settings that are malformed, contradictory, moot
//! or ignored.

mod inject_annotation_ignored;
mod injection_conflict;
mod invalid_proxy_config;
mod redundant_gate;

pub use inject_annotation_ignored::InjectAnnotationIgnored;
pub use injection_conflict::InjectionConflict;
pub use invalid_proxy_config::InvalidProxyConfig;
pub use redundant_gate::RedundantGate;

use crate::fix::Remedy;
use crate::resolve::{ConfigProblem, ConfigProblemKind};
use crate::rules::{Finding, Label, Pod, Violation};

/// One finding per configuration problem of `kind` that resolve recorded, worded by the
/// rule's violation, with the remedy `fix` finds for it.
fn report_problems<'a, V: Violation>(
    pod: &Pod<'a>,
    kind: ConfigProblemKind,
    violation: impl Fn(&'a ConfigProblem) -> V,
    fix: impl Fn(&'a ConfigProblem) -> Option<Remedy>,
    findings: &mut Vec<Finding>,
) {
    for problem in pod.plan.config_problems.iter().filter(|p| p.kind == kind) {
        findings.push(
            Finding::new(
                &violation(problem),
                Label::value(problem.path.clone(), "here"),
            )
            .with_fix(fix(problem)),
        );
    }
}
