//! Stage 5 of the pipeline: a PodPlan and its Timeline in, findings out.
//!
//! Each rule is one module with its doc (the single source of `rules`, the SARIF rule
//! table and `docs/rules/`), its default severity, and one check that reads the plan and
//! the timeline top to bottom. A rule never re-derives what resolve or simulate computed.

pub mod applicability;
pub mod configuration;
pub mod describe;
pub mod evidence;
mod fixes;
mod headroom;
mod help;
pub mod jobs;
mod meta;
pub mod rejection;
mod rule;
pub mod selector;
pub mod startup;
mod stay;
pub mod suppression;
pub mod termination;
mod violation;

pub use crate::settings::config::AssumedLosses;
pub use evidence::{Evidence, Premise, Subject, Weight};
pub use meta::{FixAvailability, Group, RuleMeta, Severity};
pub(crate) use rule::declare_rule;
pub use rule::{Declared, Finding, Label, Pod, Rule, Window};
pub use violation::Violation;

/// Every rule, in id order.
pub static RULES: &[&dyn Rule] = &[
    &startup::AppStartsBeforeProxy,
    &startup::ProxyGateIneffective,
    &startup::InitContainerNeedsProxy,
    &startup::NativeSidecarNotGated,
    &startup::NativeSidecarUnsupported,
    &termination::GracePeriodExceeded,
    &termination::ProxyExitsBeforeApp,
    &termination::InboundClosedBeforeEndpointsRemoved,
    &termination::LongRequestsCut,
    &termination::DrainSettingIgnored,
    &termination::PrestopOutlivesGrace,
    &termination::AppWithoutPrestopDelay,
    &termination::PrestopNeedsShell,
    &termination::SleepActionUnsupported,
    &termination::ShellDropsSigterm,
    &jobs::JobSidecarNeverExits,
    &jobs::JobExitStatusLost,
    &jobs::JobKillNeedsSharedPid,
    &jobs::JobExitCallIneffective,
    &jobs::ContainerRestartsInPlace,
    &configuration::InvalidProxyConfig,
    &configuration::InjectionConflict,
    &configuration::RedundantGate,
    &configuration::InjectAnnotationIgnored,
    &configuration::ApiVersionRemoved,
    &configuration::FieldNotAllowed,
];

/// Looks a rule up by id (`ML201`, any case) or name (`grace-period-exceeded`).
pub fn find(key: &str) -> Option<&'static dyn Rule> {
    RULES
        .iter()
        .copied()
        .find(|rule| rule.meta().id.eq_ignore_ascii_case(key) || rule.meta().name == key)
}

/// Runs every rule over one pod; over a pod that would not be admitted, only the
/// rules about admission.
pub fn check(pod: &Pod) -> Vec<Finding> {
    let mut findings = Vec::new();
    let admitted = pod.plan.admitted();
    for rule in RULES
        .iter()
        .filter(|rule| admitted || rule.meta().admission)
    {
        let first = findings.len();
        rule.check(pod, &mut findings);
        for finding in &mut findings[first..] {
            let mut containers: Vec<&str> = Vec::new();
            containers.extend(finding.container.as_deref());
            containers.extend(finding.window.as_ref().and_then(|w| w.container.as_deref()));
            let mut evidence = std::mem::take(&mut finding.evidence);
            evidence::add_plan(&mut evidence, pod.plan, finding.rule, &containers);
            finding.evidence = evidence;
        }
    }
    findings
}

/// The weight a rule declares for its assumed case: one level lower unless it says
/// `assumed: Info`.
pub const fn declared_weight(declared: &[Weight]) -> Weight {
    match declared {
        [weight] => *weight,
        _ => Weight::Lower,
    }
}
