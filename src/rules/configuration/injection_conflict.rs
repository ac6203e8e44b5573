use super::report_problems;
use crate::resolve::{ConfigProblem, ConfigProblemKind};
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
    /// ## References
    /// - docs/lifecycle.md §3.1 (stage 2: the label wins over the annotation), §4.1 (Linkerd's annotation)
    /// - https://istio.io/latest/docs/setup/additional-setup/sidecar-injection/#controlling-the-injection-policy
    pub struct InjectionConflict {
        id: "ML402",
        name: "injection-conflict",
        severity: Warning,
        group: Configuration,
        summary: "injection settings that disagree",
        admission: true,
    }
}

/// Injection settings that disagree.
struct Conflict<'a>(&'a ConfigProblem);

impl Violation for Conflict<'_> {
    const RULE: &'static RuleMeta = &InjectionConflict::META;

    fn message(&self) -> String {
        self.0.message.clone()
    }

    fn help(&self) -> String {
        self.0.fix.clone().unwrap_or_else(|| {
            "keep one mesh and one spelling of each injection setting".to_owned()
        })
    }
}

impl Rule for InjectionConflict {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        report_problems(
            pod,
            ConfigProblemKind::InjectionConflict,
            Conflict,
            |_| None,
            findings,
        );
    }
}
