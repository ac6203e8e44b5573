use super::report_problems;
use serde_json::Value as Json;

use crate::fix::{Applicability, Change, Remedy};
use crate::load::JsonPath;
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
    /// `lint --fix --unsafe-fixes` (unsafe) writes Istio's opt-in in the label form:
    /// the annotation moved to the pod label `sidecar.istio.io/inject: "true"`, or the
    /// label's other value replaced by "true". Unsafe because the pod is then injected;
    /// when its proxy would bring a hazard of its own (a new finding, such as ML101 for
    /// a pod without a hold), the fix is dropped with a note. Linkerd's opt-in and the
    /// native-sidecar settings are not changed for you.
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
        let metadata = &pod.plan.paths.pod_metadata;
        report_problems(
            pod,
            ConfigProblemKind::IgnoredOptIn,
            IgnoredOptIn,
            |problem| label_form(problem, metadata),
            findings,
        );
    }
}

/// Istio's opt-in in the one form its webhook matches, the pod label
/// `sidecar.istio.io/inject: "true"`: the annotation moved to it, or the label's other
/// value replaced. Unsafe: the pod is then injected, and its proxy brings its own
/// start-up and shutdown (a fix that would bring a new finding is dropped). Linkerd's
/// and the native-sidecar settings' problems name a value resolve reads and the rule
/// does not, so their remedies stay words.
fn label_form(problem: &ConfigProblem, metadata: &JsonPath) -> Option<Remedy> {
    let label = metadata.key("labels").key(ISTIO_INJECT);
    let changes = if problem.path == metadata.key("annotations").key(ISTIO_INJECT) {
        vec![
            Change::Remove(problem.path.clone()),
            Change::Set(label, Json::from("true")),
        ]
    } else if problem.path == label {
        vec![Change::Set(label, Json::from("true"))]
    } else {
        return None;
    };
    Some(Remedy::new(
        Applicability::Unsafe,
        format!(
            "opt the pod in with the label `{ISTIO_INJECT}: \"true\"`, the form Istio's webhook matches"
        ),
        changes,
    ))
}

/// Istio's per-pod injection opt-in.
const ISTIO_INJECT: &str = "sidecar.istio.io/inject";
