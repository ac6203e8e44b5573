//! Whether a finding rests on a mesh's unknown release. An unknown release is read as a
//! classic one (docs/configuration.md, "Mesh versions"), and every finding on such a pod
//! could carry that reading as a premise; it does only where the newest release's reading
//! does not give the same finding. Each such pod is resolved, simulated and checked once
//! more with the newest release; a finding found again there keeps its severity, with a
//! fact saying that it holds on that release too. A finding not found again whose fix
//! another finding there asks for (ML101's `proxy-await` is ML104's on a native proxy)
//! keeps its premise, but its fix does not rest on it.

use std::collections::BTreeSet;

use crate::fix::Change;
use crate::load::JsonPath;
use crate::resolve::{Assumed, Mesh, Registry};
use crate::rules::{self, Finding, Subject};
use crate::settings::Settings;
use crate::{resolve, simulate, workload};

/// Drops from `findings` the unknown-release premises that the newest release's reading
/// of `workload` does not bear out.
pub(super) fn settle(
    findings: &mut [Finding],
    workload: &workload::Workload,
    settings: &Settings,
    models: &Registry,
) {
    let mut meshes: Vec<Mesh> = Vec::new();
    for finding in findings.iter() {
        for mesh in finding.evidence.premises.iter().filter_map(unknown_release) {
            if !meshes.iter().any(|known| known.id() == mesh.id()) {
                meshes.push(mesh);
            }
        }
    }
    for mesh in meshes {
        let Some(newest) = settings.with_newest_release(mesh.id()) else {
            continue;
        };
        let plan = resolve::resolve_with(workload, &newest.settings, models);
        let timeline = simulate::simulate(&plan);
        let newest_findings = rules::check(&rules::Pod {
            plan: &plan,
            timeline: &timeline,
        });
        let found: BTreeSet<Identity> = newest_findings.iter().map(identity).collect();
        let fixes: Vec<&[Change]> = newest_findings
            .iter()
            .filter_map(|finding| Some(finding.fix.as_ref()?.changes.as_slice()))
            .collect();
        for finding in findings.iter_mut() {
            let bears = |premise: &rules::Premise| {
                unknown_release(premise).is_some_and(|m| m.id() == mesh.id())
            };
            let Some(premise) = finding.evidence.premises.iter().find(|p| bears(p)) else {
                continue;
            };
            if !found.contains(&identity(finding)) {
                let same_fix = finding
                    .fix
                    .as_ref()
                    .is_some_and(|fix| fixes.contains(&fix.changes.as_slice()));
                if same_fix {
                    let subject = premise.subject.clone();
                    finding.fix_holds_without.push(subject);
                }
                continue;
            }
            finding.evidence.premises.retain(|premise| !bears(premise));
            finding.evidence.fact(format!(
                "{} gives the same finding: it does not rest on the release",
                newest.release
            ));
        }
    }
}

/// What makes two findings the same across two readings of a pod: the rule, the
/// container and the node it points at. The words may differ (other times).
type Identity = (&'static str, Option<String>, JsonPath);

fn identity(finding: &Finding) -> Identity {
    (
        finding.rule.id,
        finding.container.clone(),
        finding.primary.path.clone(),
    )
}

/// The mesh whose unknown release a premise is.
fn unknown_release(premise: &rules::Premise) -> Option<Mesh> {
    match &premise.subject {
        Subject::Plan(assumed) => match assumed.as_ref() {
            Assumed::MeshVersionUnknown { mesh, .. } => Some(*mesh),
            _ => None,
        },
        _ => None,
    }
}
