use super::report_problems;
use crate::resolve::{Conflict, Fault, Mesh, Rejection, RejectionCause};
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Severity, Violation, declare_rule};

declare_rule! {
    /// ## What it detects
    /// Injection settings that disagree: the `sidecar.istio.io/inject` label and
    /// annotation with different values, a proxy container in a pod that opts out of
    /// injection, two meshes injecting the same pod, and a native Linkerd proxy asked
    /// to wait before exit (`config.alpha.linkerd.io/proxy-wait-before-exit-seconds`
    /// above 0), which the injector of Linkerd 2.15 to 2.19 denies: "proxy.nativeSidecar
    /// and waitBeforeExitSeconds cannot be used simultaneously". That one is reported
    /// at the wait, as an error: the pod is never created.
    ///
    /// ## Why it loses traffic
    /// Only one of the settings wins (the label, for Istio: docs/lifecycle.md §3.1), so the pod
    /// runs differently from what one of them says; two proxies intercepting the same
    /// traffic break each other's redirection. A pod the injector denies is never
    /// created, so the workload never rolls out (Linkerd 2.20 admits it and ignores the
    /// wait: a native proxy is stopped only after the app containers have exited).
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
    /// On Linkerd 2.15 to 2.19, drop the wait before exit (a native proxy already
    /// outlives the app) or the native mode; or upgrade to 2.20, which ignores the wait.
    ///
    /// `lint --fix` makes no change: which of the settings that disagree is meant (which
    /// mesh, whether the pod is to be injected, a native proxy or a classic one with a
    /// wait) is the owner's choice.
    ///
    /// ## Evidence
    /// The manifest and the profile's versions alone: nothing it rests on is assumed, so
    /// it keeps its severity.
    ///
    /// ## References
    /// - docs/lifecycle.md §3.1 (stage 2: the label wins over the annotation), §4.1 (Linkerd's annotation)
    /// - https://istio.io/latest/docs/setup/additional-setup/sidecar-injection/#controlling-the-injection-policy
    pub struct InjectionConflict {
        id: "ML402",
        name: "injection-conflict",
        severity: Warning,
        fix: Never,
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

/// A native proxy with a setting the injector cannot render beside it, so it denies
/// the pod.
struct NativeRefused<'a>(&'a Rejection);

impl Violation for NativeRefused<'_> {
    const RULE: &'static RuleMeta = &InjectionConflict::META;

    fn message(&self) -> String {
        format!(
            "{} denies the pod: {}",
            crate::rules::rejection::rejector(self.0.by),
            crate::rules::rejection::reason(&self.0.cause)
        )
    }

    fn help(&self) -> String {
        let RejectionCause::NativeWith {
            mesh,
            native,
            setting,
            until,
            ..
        } = &self.0.cause
        else {
            return String::new();
        };
        format!(
            "on {mesh} before {until}, remove `{setting}` (a native proxy is stopped only after the app containers have exited) or turn off the native proxy (`{native}`); {mesh} {until} and later admit the pod and ignore the wait"
        )
    }
}

/// Why the injector denies a native proxy with `setting`, as `explain` and the rule
/// say it.
pub(crate) fn native_refused(
    mesh: Mesh,
    native: &str,
    setting: &str,
    until: &str,
    error: &str,
) -> String {
    format!(
        "{mesh} before {until} cannot render a native proxy (`{native}`) with `{setting}` (\"{error}\")"
    )
}

impl Rule for InjectionConflict {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        for rejection in &pod.plan.rejections {
            if matches!(rejection.cause, RejectionCause::NativeWith { .. }) {
                findings.push(
                    Finding::new(
                        &NativeRefused(rejection),
                        Label::value(rejection.path.clone(), "denied beside a native proxy"),
                    )
                    .severity(Severity::Error),
                );
            }
        }
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
