use super::report_problems;
use serde_json::Value as Json;

use crate::fix::{Applicability, Change, Remedy};
use crate::load::JsonPath;
use crate::resolve::{ConfigProblem, ExactValue, Fault, KeyInstead, OptIn, OptInIgnored};
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
    /// native-sidecar settings are not changed for you: which of Linkerd's values
    /// (`enabled`, `ingress`, `disabled`) an unknown one meant, and whether a value
    /// `strconv.ParseBool` cannot read meant on or off, only the author knows; a key
    /// the release does not read is answered by an older key or by upgrading the
    /// mesh, and which is the operator's choice.
    ///
    /// ## Evidence
    /// The manifest and the profile's versions alone: nothing it rests on is assumed, so
    /// it keeps its severity.
    ///
    /// ## References
    /// - docs/lifecycle.md §3.1 (stage 1 reads labels only), §3.3 (the native-sidecar annotation per Istio version), §4.1 (Linkerd's annotation and values), §4.2 (Linkerd's native-sidecar keys per version)
    /// - https://istio.io/latest/docs/setup/additional-setup/sidecar-injection/
    /// - istio/istio `pkg/kube/inject/inject.go` (`injectRequired`: y, yes, true, on)
    pub struct InjectAnnotationIgnored {
        id: "ML404",
        name: "inject-annotation-ignored",
        severity: Warning,
        fix: Sometimes,
        group: Configuration,
        summary: "an injection opt-in that the injector ignores",
        since: "0.1.0",
        admission: true,
    }
}

/// An opt-in the injector does not read as written.
struct UnreadOptIn<'a>(&'a OptInIgnored);

impl Violation for UnreadOptIn<'_> {
    const RULE: &'static RuleMeta = &InjectAnnotationIgnored::META;

    fn message(&self) -> String {
        match self.0 {
            OptInIgnored::LabelNotRead {
                mesh,
                setting,
                value,
            } => format!(
                "`{setting}: {value}` is a label here; {mesh} reads it only as an annotation, so it has no effect"
            ),
            // Values compared as strings are quoted; keywords are not.
            OptInIgnored::UnknownInjectValue { opt_in, value } => {
                let setting = opt_in.setting;
                if opt_in.mesh.words().quoted_values {
                    format!(
                        "`{setting}: \"{value}\"` is not a value the injector knows: only {} inject, so the pod is left out",
                        listed(opt_in.known, "and")
                    )
                } else {
                    format!(
                        "`{setting}: {value}` is not {}; the injector skips the pod",
                        listed(opt_in.known, "or")
                    )
                }
            }
            OptInIgnored::NotCalledFor {
                opt_in,
                label_value,
                namespace_known,
                namespace_label: (key, value),
            } => {
                let (setting, on) = (opt_in.setting, opt_in.on);
                let what = match label_value {
                    Some(value) => format!("the label value \"{value}\""),
                    None => format!("`{setting}` as an annotation"),
                };
                if *namespace_known {
                    format!(
                        "{what} cannot opt a pod in: the webhook is called only for the label value \"{on}\" (or in a namespace with {key}={value}); use the label `{setting}: \"{on}\"`"
                    )
                } else {
                    format!(
                        "{what} does not opt a pod in by itself: the pod is injected only if its namespace has {key}={value} (its labels are unknown, so that is assumed); use the label `{setting}: \"{on}\"`"
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
                mesh,
                setting,
                since,
                release,
                native_anyway,
                ..
            } => format!(
                "`{setting}` arrived in {mesh} {since}; {mesh} {release} ignores it ({})",
                if *native_anyway {
                    "native anyway"
                } else {
                    "classic sidecar"
                }
            ),
            OptInIgnored::NativeValueMisread {
                mesh,
                setting,
                value,
                reading: ExactValue::OnlyTrueEnables { release },
            } => format!(
                "{mesh} {release} enables native sidecars only for exactly \"true\": `{setting}: \"{value}\"` leaves the proxy a classic sidecar"
            ),
            OptInIgnored::NativeValueMisread {
                mesh,
                setting,
                value,
                reading: ExactValue::OnlyFalseDisables { since },
            } => format!(
                "{mesh} {since} and later disable native sidecars only for exactly \"false\": `{setting}: \"{value}\"` makes the proxy a native sidecar"
            ),
        }
    }

    fn help(&self) -> String {
        match self.0 {
            OptInIgnored::LabelNotRead { mesh, setting, .. } => {
                format!("use the form the injector reads: the annotation {setting} for {mesh}")
            }
            OptInIgnored::NotCalledFor { opt_in, .. } => format!(
                "use the form the injector reads: the pod label {} for {}",
                opt_in.setting, opt_in.mesh
            ),
            OptInIgnored::UnknownInjectValue { opt_in, .. } => {
                let OptIn {
                    mesh,
                    setting,
                    on,
                    off,
                    ..
                } = opt_in;
                let (proxy, _) = mesh.words().classic;
                if mesh.words().quoted_values {
                    format!(
                        "write `{setting}: \"{on}\"` to inject the {proxy}, or \"{off}\" to say the pod goes without"
                    )
                } else {
                    format!(
                        "write `{setting}: {on}` to inject the {proxy}, or `{off}` to say the pod goes without"
                    )
                }
            }
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
            OptInIgnored::NativeAnnotationTooNew { mesh, instead, .. } => {
                format!("set {instead} instead, or upgrade {mesh}")
            }
            OptInIgnored::NativeValueMisread {
                setting,
                reading: ExactValue::OnlyTrueEnables { .. },
                ..
            } => format!("write `{setting}: \"true\"`"),
            OptInIgnored::NativeValueMisread { setting, .. } => {
                format!("write `{setting}: \"false\"` for a classic sidecar")
            }
        }
    }
}

/// `a, b and c`.
fn listed(values: &[&str], last: &str) -> String {
    match values {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., end] => format!("{} {last} {end}", init.join(", ")),
    }
}

impl Rule for InjectAnnotationIgnored {
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

/// The opt-in in the one form its webhook matches, where that is a label (Istio's
/// `sidecar.istio.io/inject: "true"`): the annotation moved to it, or the label's other
/// value replaced. Unsafe: the pod is then injected, and its proxy brings its own
/// start-up and shutdown (a fix that would bring a new finding is dropped). An opt-in
/// read as an annotation (Linkerd's) and the native-sidecar settings' problems name a
/// value resolve reads and the rule does not, so their remedies stay words.
fn label_form(problem: &ConfigProblem, metadata: &JsonPath) -> Option<Remedy> {
    let opt_in = match &problem.fault {
        Fault::OptInIgnored(
            OptInIgnored::NotCalledFor { opt_in, .. }
            | OptInIgnored::UnknownInjectValue { opt_in, .. },
        ) if opt_in.label_is_read => opt_in,
        _ => return None,
    };
    let label = metadata.key("labels").key(opt_in.setting);
    let changes = if problem.path == metadata.key("annotations").key(opt_in.setting) {
        vec![
            Change::Remove(problem.path.clone()),
            Change::Set(label, Json::from(opt_in.on)),
        ]
    } else if problem.path == label {
        vec![Change::Set(label, Json::from(opt_in.on))]
    } else {
        return None;
    };
    Some(Remedy::new(
        Applicability::Unsafe,
        format!(
            "opt the pod in with the label `{}: \"{}\"`, the form {}'s webhook matches",
            opt_in.setting, opt_in.on, opt_in.mesh
        ),
        changes,
    ))
}
