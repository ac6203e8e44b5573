use super::report_problems;
use crate::resolve::{ConfigProblem, ConfigProblemKind};
use crate::rules::{Finding, Pod, Rule, RuleMeta, Violation, declare_rule};

declare_rule! {
    /// ## What it detects
    /// An injection opt-in the injector ignores: Istio's `sidecar.istio.io/inject` as an
    /// annotation, or as a label with a value other than "true", in a namespace without
    /// an injection label (in a namespace of unknown labels, the opt-in rests on the
    /// assumption that it has one); a value the injector reads as "no" although it does
    /// not say so (only y, yes, true and on inject: `enabled` keeps the pod out);
    /// Linkerd's `linkerd.io/inject` as a label or with a value other than enabled,
    /// ingress or disabled. Also native-sidecar opt-ins the injector does not read as
    /// written: Istio's `sidecar.istio.io/nativeSidecar` before 1.24, a value other than
    /// exactly "true" in 1.24–1.26, and one other than exactly "false" from 1.27 (which
    /// enables native mode); a Linkerd `proxy-enable-native-sidecar` key the release
    /// does not know (alpha from 2.15, beta from 2.19, GA from 2.20) or a value
    /// `strconv.ParseBool` cannot read.
    ///
    /// ## Why it loses traffic
    /// The API server calls Istio's webhook only for pods whose labels (or namespace)
    /// ask for it, so the annotation never reaches it (docs/lifecycle.md §3.1); Linkerd reads an
    /// annotation only (§4.1). The pod runs without the proxy its author expected: no
    /// mTLS, no retries, and policies that reject it. A native-sidecar opt-in that is
    /// not read leaves the proxy in the mode the author did not ask for, with that
    /// mode's start-up and shutdown hazards (§3.3, §4.2).
    ///
    /// ## Example
    /// ```yaml
    /// metadata:
    ///   annotations: {sidecar.istio.io/inject: "true"}
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// metadata:
    ///   labels: {sidecar.istio.io/inject: "true"}
    /// ```
    ///
    /// ## References
    /// - docs/lifecycle.md §3.1 (stage 1 reads labels only), §3.3 (the native-sidecar annotation per Istio version), §4.1 (Linkerd's annotation and values), §4.2 (Linkerd's native-sidecar keys per version)
    /// - https://istio.io/latest/docs/setup/additional-setup/sidecar-injection/
    /// - istio/istio `pkg/kube/inject/inject.go` (`injectRequired`: y, yes, true, on)
    pub struct InjectAnnotationIgnored {
        id: "ML404",
        name: "inject-annotation-ignored",
        severity: Warning,
        group: Configuration,
        summary: "an injection opt-in that the injector ignores",
        admission: true,
    }
}

/// An opt-in the injector does not read as written.
struct IgnoredOptIn<'a>(&'a ConfigProblem);

impl Violation for IgnoredOptIn<'_> {
    const RULE: &'static RuleMeta = &InjectAnnotationIgnored::META;

    fn message(&self) -> String {
        self.0.message.clone()
    }

    fn help(&self) -> String {
        self.0
            .fix
            .clone()
            .unwrap_or_else(|| "use the form the injector reads: the pod label sidecar.istio.io/inject for Istio, the annotation linkerd.io/inject for Linkerd".to_owned())
    }
}

impl Rule for InjectAnnotationIgnored {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        report_problems(pod, ConfigProblemKind::IgnoredOptIn, IgnoredOptIn, findings);
    }
}
