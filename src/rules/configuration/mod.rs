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

use crate::resolve::ConfigProblemKind;
use crate::rules::{Finding, Label, Pod, RuleMeta};

/// One finding per configuration problem of `kind` that resolve recorded.
fn report_problems(
    pod: &Pod,
    kind: ConfigProblemKind,
    meta: &'static RuleMeta,
    help: &str,
    findings: &mut Vec<Finding>,
) {
    for problem in pod.plan.config_problems.iter().filter(|p| p.kind == kind) {
        findings.push(Finding::new(
            meta,
            Label::value(problem.path.clone(), "here"),
            problem.message.clone(),
            problem.fix.clone().unwrap_or_else(|| help.to_owned()),
        ));
    }
}
