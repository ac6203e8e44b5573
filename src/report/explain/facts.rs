//! What every rendering of a workload states in words: its name, the meshes and how
//! each proxy gets there, the Kubernetes version and grace period, and the assumptions
//! the timeline rests on.

use super::reasons;
use crate::pipeline::located::Analysis;
use crate::resolve::PodPlan;
use crate::rules::describe::assumed;
use crate::simulate::Timeline;

/// `Deployment shop/api · deploy/all.yaml (document 2 of 5) from chart/templates/api.yaml`.
pub fn title(analysis: &Analysis) -> String {
    format!(
        "{} · {}",
        crate::report::subject(&analysis.plan.workload),
        place(analysis)
    )
}

/// Where the workload was read: `deploy/all.yaml (document 2 of 5) from
/// chart/templates/api.yaml`.
pub(crate) fn place(analysis: &Analysis) -> String {
    let mut place =
        crate::report::document_place(&analysis.file, analysis.document, analysis.documents);
    if let Some(origin) = &analysis.origin {
        place.push_str(&format!(" from {origin}"));
    }
    place
}

/// The lines under the title: each mesh, the version and the grace period the
/// simulated deletion used, and why the pod is never admitted when it is not.
pub fn header(plan: &PodPlan, timeline: &Timeline) -> Vec<String> {
    let mut lines: Vec<String> = plan.meshes.iter().map(reasons::summary).collect();
    for container in plan.containers.iter() {
        if let Some(served) = &container.served_by {
            lines.push(format!(
                "`{}` serves: Service {} selects the pod on targetPort {} ({})",
                container.name, served.service, served.target_port, served.source
            ));
        }
    }
    let checked_as = plan
        .kubernetes
        .value
        .beyond()
        .map(|beyond| format!("; checked as {}, the newest modelled", beyond.newest))
        .unwrap_or_default();
    lines.push(format!(
        "Kubernetes {} ({}{checked_as}) · grace period {} s ({})",
        plan.kubernetes.value,
        plan.kubernetes.source,
        timeline.termination.grace.value,
        timeline.termination.grace.source
    ));
    if let Some(rejection) = &plan.rejection() {
        lines.push(format!(
            "Not admitted: {} rejects the pod ({}), so it never starts",
            crate::rules::rejection::rejector(rejection.by),
            crate::rules::rejection::reason(&rejection.cause)
        ));
    }
    lines
}

/// The scenario values and the assumptions of the plan, one line each.
pub fn assumptions(plan: &PodPlan) -> Vec<String> {
    let scenario = plan
        .scenario
        .entries()
        .into_iter()
        .map(|(name, value)| match value {
            Some(value) => format!("{name}: {} ({})", value.value, value.source),
            None => format!("{name}: unset"),
        });
    scenario
        .chain(plan.assumptions.iter().map(|a| assumed(&a.assumed)))
        .collect()
}
