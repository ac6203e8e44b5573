use super::report_problems;
use crate::resolve::{Conflict, Fault};
use crate::rules::{Finding, Pod, Rule, RuleMeta, Violation, declare_rule};

declare_rule! {
    /// ## What it detects
    /// Injection settings that disagree: the `sidecar.istio.io/inject` label and
    /// annotation with different values, a proxy container in a pod that opts out of
    /// injection, two meshes injecting the same pod.
    ///
    /// ## Why it loses traffic
    /// Only one of the settings wins (the label, for Istio: docs/lifecycle.md §3.1), so the pod
    /// runs differently from what one of them says; two proxies intercepting the same
    /// traffic break each other's redirection.
    ///
    /// ## Example
    /// ```yaml
    /// metadata:
    ///   labels: {sidecar.istio.io/inject: "true"}
    ///   annotations: {linkerd.io/inject: enabled}
    /// ```
    ///
    /// ## Fix
    /// Keep one mesh and one spelling of each setting (the label for Istio injection).
    ///
    /// `lint --fix` makes no change: which of the settings that disagree is meant (which
    /// mesh, whether the pod is to be injected) is the owner's choice.
    ///
    /// ## References
    /// - docs/lifecycle.md §3.1 (stage 2: the label wins over the annotation), §4.1 (Linkerd's annotation)
    /// - https://istio.io/latest/docs/setup/additional-setup/sidecar-injection/#controlling-the-injection-policy
    pub struct InjectionConflict {
        id: "ML402",
        name: "injection-conflict",
        severity: Warning,
        group: Configuration,
        summary: "injection settings that disagree",
        since: "0.1.0",
        admission: true,
    }
}

/// Injection settings that disagree.
struct Disagreement<'a>(&'a Conflict);

impl Violation for Disagreement<'_> {
    const RULE: &'static RuleMeta = &InjectionConflict::META;

    fn message(&self) -> String {
        match self.0 {
            Conflict::LabelAndAnnotation {
                setting,
                label,
                annotation,
            } => format!(
                "the `{setting}` label says \"{label}\" and the annotation says \"{annotation}\"; the label wins"
            ),
            Conflict::ProxyInOptedOutPod { proxy } => {
                format!("the pod opts out of injection, yet `{proxy}` is in the manifest")
            }
            Conflict::TwoMeshes { meshes } => {
                format!(
                    "{} would both proxy this pod's traffic",
                    meshes.join(" and ")
                )
            }
        }
    }

    fn help(&self) -> String {
        "keep one mesh and one spelling of each injection setting".to_owned()
    }
}

impl Rule for InjectionConflict {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        report_problems(
            pod,
            |fault| match fault {
                Fault::Conflict(conflict) => Some(Disagreement(conflict)),
                _ => None,
            },
            |_| None,
            findings,
        );
    }
}
