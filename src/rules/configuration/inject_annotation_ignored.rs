use super::report_problems;
use serde_json::Value as Json;

use crate::fix::{Applicability, Change, Remedy};
use crate::load::JsonPath;
use crate::resolve::{ConfigProblem, Fault, KeyInstead, OptInIgnored};
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
struct UnreadOptIn<'a>(&'a OptInIgnored);

impl Violation for UnreadOptIn<'_> {
    const RULE: &'static RuleMeta = &InjectAnnotationIgnored::META;

    fn message(&self) -> String {
        match self.0 {
            OptInIgnored::LabelNotRead { setting, value } => format!(
                "`{setting}: {value}` is a label here; Linkerd reads it only as an annotation, so it has no effect"
            ),
            OptInIgnored::UnknownInjectValue {
                mesh,
                setting,
                value,
            } if mesh.id() == "linkerd" => format!(
                "`{setting}: {value}` is not enabled, ingress or disabled; the injector skips the pod"
            ),
            OptInIgnored::UnknownInjectValue { setting, value, .. } => format!(
                "`{setting}: \"{value}\"` is not a value the injector knows: only y, yes, true and on inject, so the pod is left out"
            ),
            OptInIgnored::NotCalledFor {
                setting,
                label_value,
                namespace_known,
            } => {
                let what = match label_value {
                    Some(value) => format!("the label value \"{value}\""),
                    None => format!("`{setting}` as an annotation"),
                };
                if *namespace_known {
                    format!(
                        "{what} cannot opt a pod in: the webhook is called only for the label value \"true\" (or in a namespace with istio-injection=enabled); use the label `{setting}: \"true\"`"
                    )
                } else {
                    format!(
                        "{what} does not opt a pod in by itself: the pod is injected only if its namespace has istio-injection=enabled (its labels are unknown, so that is assumed); use the label `{setting}: \"true\"`"
                    )
                }
            }
            OptInIgnored::KeyTooNew {
                mesh,
                release,
                key,
                since,
                ..
            } => format!(
                "{} {release} does not read `{key}` (first read by {since}): it has no effect",
                mesh.title()
            ),
            OptInIgnored::NotBoolean {
                key,
                value,
                default_native,
            } => format!(
                "`{key}: \"{value}\"` is not a boolean the injector reads (strconv.ParseBool): it keeps its default, {}",
                if *default_native {
                    "a native sidecar"
                } else {
                    "a classic sidecar"
                }
            ),
            OptInIgnored::NativeAnnotationTooNew {
                setting,
                release,
                native_anyway,
            } => format!(
                "`{setting}` arrived in Istio 1.24; Istio {release} ignores it ({})",
                if *native_anyway {
                    "native anyway"
                } else {
                    "classic sidecar"
                }
            ),
            OptInIgnored::NativeValueMisread {
                setting,
                value,
                release: Some(release),
            } => format!(
                "Istio {release} enables native sidecars only for exactly \"true\": `{setting}: \"{value}\"` leaves the proxy a classic sidecar"
            ),
            OptInIgnored::NativeValueMisread {
                setting,
                value,
                release: None,
            } => format!(
                "Istio 1.27 and later disable native sidecars only for exactly \"false\": `{setting}: \"{value}\"` makes the proxy a native sidecar"
            ),
        }
    }

    fn help(&self) -> String {
        match self.0 {
            OptInIgnored::LabelNotRead { .. } | OptInIgnored::NotCalledFor { .. } => {
                "use the form the injector reads: the pod label sidecar.istio.io/inject for Istio, the annotation linkerd.io/inject for Linkerd".to_owned()
            }
            OptInIgnored::UnknownInjectValue { mesh, setting, .. } if mesh.id() == "linkerd" => format!(
                "write `{setting}: enabled` to inject the proxy, or `disabled` to say the pod goes without"
            ),
            OptInIgnored::UnknownInjectValue { setting, .. } => format!(
                "write `{setting}: \"true\"` to inject the sidecar, or \"false\" to say the pod goes without"
            ),
            OptInIgnored::KeyTooNew { mesh, instead, .. } => match instead {
                KeyInstead::Key(key) => {
                    format!("write `{key}` for this {} version", mesh.title())
                }
                KeyInstead::NeedsRelease(release) => {
                    format!("native sidecars need {} {release} or later", mesh.title())
                }
            },
            OptInIgnored::NotBoolean { key, .. } => {
                format!("write `{key}: \"true\"` or \"false\"")
            }
            OptInIgnored::NativeAnnotationTooNew { .. } => {
                "set ENABLE_NATIVE_SIDECARS on istiod instead, or upgrade Istio".to_owned()
            }
            OptInIgnored::NativeValueMisread {
                setting,
                release: Some(_),
                ..
            } => format!("write `{setting}: \"true\"`"),
            OptInIgnored::NativeValueMisread { setting, .. } => {
                format!("write `{setting}: \"false\"` for a classic sidecar")
            }
        }
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
            |fault| match fault {
                Fault::OptInIgnored(ignored) => Some(UnreadOptIn(ignored)),
                _ => None,
            },
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
