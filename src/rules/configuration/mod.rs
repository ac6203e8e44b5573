//! Configuration rules (ML4xx): mesh settings that are malformed, contradictory, moot
//! or ignored, manifests in an API version the cluster no longer serves, and fields the
//! workload's controller does not allow.

pub(super) mod api_version_removed;
pub(super) mod field_not_allowed;
mod inject_annotation_ignored;
pub(super) mod injection_conflict;
pub(super) mod invalid_proxy_config;
pub(super) mod redundant_gate;

pub use api_version_removed::ApiVersionRemoved;
pub use field_not_allowed::FieldNotAllowed;
pub use inject_annotation_ignored::InjectAnnotationIgnored;
pub use injection_conflict::InjectionConflict;
pub use invalid_proxy_config::InvalidProxyConfig;
pub use redundant_gate::RedundantGate;

use crate::fix::Remedy;
use crate::resolve::{ConfigProblem, Fault};
use crate::rules::{Finding, Label, Pod, Violation};

/// One finding per configuration problem that resolve recorded and `violation` makes a
/// violation of (the faults of one kind), with the remedy `fix` finds for it.
fn report_problems<'a, V: Violation>(
    pod: &Pod<'a>,
    violation: impl Fn(&'a Fault) -> Option<V>,
    fix: impl Fn(&'a ConfigProblem) -> Option<Remedy>,
    findings: &mut Vec<Finding>,
) {
    for problem in &pod.plan.config_problems {
        if let Some(violation) = violation(&problem.fault) {
            findings.push(
                Finding::new(&violation, Label::value(problem.path.clone(), "here"))
                    .with_fix(fix(problem)),
            );
        }
    }
}
