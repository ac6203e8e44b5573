//! Whether the webhook injects the pod (docs/lifecycle.md §3.1): which revision's
//! webhook is called, the pod's and its namespace's opt-ins, ambient enrolment, and the
//! opt-ins it does not read as written.

use super::*;

/// The pod's injection opt-in, as a label or an annotation.
pub(super) const INJECT: &str = "sidecar.istio.io/inject";

/// The label that names the control-plane revision.
pub(super) const REVISION: &str = "istio.io/rev";

/// The label that enrols a pod or namespace in ambient mode.
pub(super) const DATAPLANE_MODE: &str = "istio.io/dataplane-mode";

/// Namespaces the injector never touches (docs/lifecycle.md §3.1, stage 2).
pub(super) const IGNORED_NAMESPACES: [&str; 4] = [
    "kube-system",
    "kube-public",
    "kube-node-lease",
    "local-path-storage",
];

/// The Istio revision whose webhook injects the pod, when it is not the default one, and
/// that revision's settings. istiod's webhooks (istio-discovery chart,
/// `mutatingwebhook.yaml`) send a pod in a namespace labelled `istio-injection` to the
/// default revision whatever the pod says; otherwise a namespace's `istio.io/rev`
/// selects the revision, and only in a namespace with neither label does the pod's own
/// `istio.io/rev`. `default` names the default revision. `None` (the default revision)
/// too when the revision is not known, as offline, where no revisions are.
pub fn selected_revision<'s>(
    workload: &Workload,
    settings: &'s Settings,
) -> Option<(&'s str, &'s IstioSettings)> {
    if settings.istio_revisions.is_empty() {
        return None;
    }
    let namespace = settings
        .namespace_of(workload.namespace.as_deref())
        .map(|(_, info)| info);
    let labels = namespace.map(|ns| &ns.labels);
    if labels.is_some_and(|labels| labels.contains_key(NAMESPACE_LABEL)) {
        return None;
    }
    let name = match labels.and_then(|labels| labels.get(REVISION)) {
        Some(name) => name.as_str(),
        None => workload.pod_label(REVISION)?.0,
    };
    if name == "default" {
        return None;
    }
    settings
        .istio_revisions
        .get_key_value(name)
        .map(|(name, istio)| (name.as_str(), istio))
}

/// Why the webhook injects, when it does.
pub(super) struct Decision {
    pub(super) trigger: JsonPath,
    pub(super) reasons: Vec<DecisionReason>,
}

/// docs/lifecycle.md §3.1: both stages of the injection decision.
pub(super) fn injection(b: &mut Builder, has_template: bool) -> Option<Decision> {
    let w = b.workload;
    let label = w.pod_label(INJECT);
    let annotation = w.pod_annotation(INJECT);
    let revision = w.pod_label(REVISION);
    // The namespace it lands in: its own, else `default`, as kubectl applies it.
    let found = b.settings.namespace_of(w.namespace.as_deref());
    let namespace = found
        .map(|(name, _)| name.to_owned())
        .or_else(|| w.namespace.clone());
    let ns_info = found.map(|(_, info)| info.clone());
    let ambient = ambient_enrollment(b.workload, ns_info.as_ref());
    let not_injected = |b: &mut Builder, cause: NotInjectedCause| {
        let mode = match &ambient {
            Some(_) => ProxyMode::Ambient,
            None => ProxyMode::None,
        };
        b.meshes.push(MeshDecision {
            mesh: MESH,
            injection: Injection::NotInjected {
                cause,
                ambient: ambient.clone(),
            },
            mode,
            reasons: Vec::new(),
        });
        None
    };
    let says_inject = |form: &Option<(&str, JsonPath)>| {
        form.as_ref()
            .is_some_and(|(v, _)| InjectValue::read(v) == InjectValue::Inject)
    };
    let asks =
        says_inject(&label) || says_inject(&annotation) || revision.is_some() || has_template;
    // Opt-ins the webhook never sees (stage 1 reads labels only) or does not read.
    if let Some((value, path)) = &label {
        check_opt_in(b, value, path.clone(), Form::Label, ns_info.as_ref());
    } else if let Some((value, path)) = &annotation {
        check_opt_in(b, value, path.clone(), Form::Annotation, ns_info.as_ref());
    }
    if let (Some((l, _)), Some((a, apath))) = (&label, &annotation)
        && l != a
    {
        b.problem(
            apath.clone(),
            Fault::Conflict(Conflict::LabelAndAnnotation {
                setting: INJECT,
                label: (*l).to_owned(),
                annotation: (*a).to_owned(),
            }),
        );
    }
    if label.is_none() && annotation.is_none() && revision.is_none() && !has_template {
        let ns_injects = ns_info.as_ref().is_some_and(|ns| {
            ns.labels.get(NAMESPACE_LABEL).map(String::as_str) == Some("enabled")
                || (!ns.labels.contains_key(NAMESPACE_LABEL) && ns.labels.contains_key(REVISION))
        });
        if !ns_injects {
            // The injector never reads `istio.io/dataplane-mode`: an ambient pod that
            // does not ask for injection runs without a sidecar, its traffic carried
            // by the node's ztunnel.
            return match &ambient {
                Some(_) => not_injected(b, NotInjectedCause::NotAsked),
                None => None,
            };
        }
    }
    if w.pod_spec.host_network == Some(true) {
        return if asks {
            not_injected(b, NotInjectedCause::HostNetwork)
        } else {
            None
        };
    }
    if let Some(ns) = namespace
        .as_deref()
        .filter(|ns| IGNORED_NAMESPACES.contains(ns))
    {
        let namespace = ns.to_owned();
        return not_injected(b, NotInjectedCause::IgnoredNamespace { namespace });
    }
    // Stage 1: does the API server call the webhook?
    let pod_value = label.as_ref().map(|(v, _)| *v);
    let stage_one = match &ns_info {
        Some(ns) => match ns.labels.get(NAMESPACE_LABEL) {
            Some(v) if v == "enabled" => pod_value != Some("false"),
            Some(_) => false,
            None if ns.labels.contains_key(REVISION) => pod_value != Some("false"),
            None => (pod_value == Some("true") && revision.is_none()) || revision.is_some(),
        },
        // Namespace unknown: a pod that asks for injection gets it (the conservative reading).
        None => asks,
    };
    if !stage_one {
        let cause = match ns_info
            .as_ref()
            .and_then(|ns| ns.labels.get(NAMESPACE_LABEL))
        {
            Some(v) if v != "enabled" => NotInjectedCause::NamespaceOptOut {
                key: NAMESPACE_LABEL,
                value: v.clone(),
            },
            _ => NotInjectedCause::WebhookNotCalled,
        };
        return not_injected(b, cause);
    }
    // Stage 2: the pod's own value, label before annotation, then the policy.
    let value = label.as_ref().or(annotation.as_ref()).map(|(v, _)| *v);
    let reading = value.map_or(InjectValue::Unset, InjectValue::read);
    if reading == InjectValue::Skip {
        let value = value.unwrap_or_default().to_owned();
        return not_injected(b, NotInjectedCause::PodOptOut { key: INJECT, value });
    }
    // Fall-through (stage 2, step 5): the selectors, then the policy.
    let explicit = reading == InjectValue::Inject;
    let pod_labels = b.workload.pod_metadata.labels.clone().unwrap_or_default();
    if !explicit
        && revision_settings(b)
            .never_inject_selector
            .iter()
            .any(|s| selector_matches(s, &pod_labels))
    {
        return not_injected(b, NotInjectedCause::NeverInjectSelector);
    }
    let always = revision_settings(b)
        .always_inject_selector
        .iter()
        .any(|s| selector_matches(s, &pod_labels));
    if !explicit && !always && !revision_settings(b).auto_inject.value {
        return not_injected(b, NotInjectedCause::PolicyDisabled);
    }
    let metadata = |kind, key, value: &str| PodMetadata {
        kind,
        key,
        value: value.to_owned(),
    };
    let (trigger, asked_by) = if let Some((v, path)) = &label {
        let label = metadata(MetadataKind::Label, INJECT, v);
        (path.clone(), DecisionReason::PodOptIn(label))
    } else if let Some((v, path)) = &revision {
        let label = metadata(MetadataKind::Label, REVISION, v);
        (path.clone(), DecisionReason::RevisionLabel(label))
    } else if let Some((v, path)) = &annotation {
        let annotation = metadata(MetadataKind::Annotation, INJECT, v);
        (path.clone(), DecisionReason::PodOptIn(annotation))
    } else if has_template {
        let path = b
            .find(PROXY)
            .and_then(|(list, i)| b.get(list, i).manifest_path().cloned())
            .unwrap_or_else(|| w.paths.pod_metadata.clone());
        let template = DecisionReason::CustomTemplate {
            container: PROXY,
            image: "auto",
        };
        (path, template)
    } else {
        // The namespace injects (checked above): by `istio-injection: enabled`, or by
        // a revision label.
        let labels = ns_info.as_ref().map(|ns| &ns.labels);
        let (key, value) = match labels.and_then(|l| l.get(NAMESPACE_LABEL)) {
            Some(value) => (NAMESPACE_LABEL, value.clone()),
            None => {
                let value = labels.and_then(|l| l.get(REVISION)).cloned();
                (REVISION, value.unwrap_or_default())
            }
        };
        let namespace = DecisionReason::NamespaceOptIn {
            namespace: namespace.clone(),
            key,
            value,
        };
        (w.paths.pod_metadata.clone(), namespace)
    };
    let mut reasons = vec![asked_by];
    if let Some((name, _)) = selected_revision(b.workload, b.settings) {
        reasons.push(DecisionReason::Revision {
            name: name.to_owned(),
        });
    }
    if let Some(ambient) = &ambient {
        reasons.push(DecisionReason::SidecarOverridesAmbient(ambient.clone()));
    }
    match &ns_info {
        Some(ns) => {
            if let Some(source @ (Source::Input(_) | Source::Cluster(_))) = &ns.source {
                reasons.push(DecisionReason::NamespaceLabelsFrom(source.clone()));
            }
        }
        None => b.assume(
            Assumed::NamespaceLabelsUnknown {
                namespace: namespace.clone(),
            },
            Source::Default,
        ),
    }
    Some(Decision { trigger, reasons })
}

/// Why the pod is enrolled in ambient mode, when it is: istio-cni's default
/// `ambient.enablementSelectors` take a pod labelled `istio.io/dataplane-mode: ambient`,
/// or a pod in a namespace so labelled whose own label is not `none`
/// (`manifests/charts/istio-cni/values.yaml`; `CompiledEnablementSelectors.Matches`,
/// `cni/pkg/util/enablement_selector.go`, istio 1.29.6). The sidecar injector does not
/// read the label (`injectRequired`, `pkg/kube/inject/inject.go`), and `Matches` opts a
/// pod with a sidecar out of ambient (`podHasSidecar`: "Ztunnel and sidecar for a single
/// pod is currently not supported").
pub(super) fn ambient_enrollment(
    w: &crate::workload::Workload,
    ns: Option<&crate::settings::NamespaceInfo>,
) -> Option<Enrollment> {
    let by = match w.pod_label(DATAPLANE_MODE).map(|(value, _)| value) {
        Some("ambient") => LabelOwner::Pod,
        Some("none") => return None,
        _ => {
            let ns = ns?;
            if ns.labels.get(DATAPLANE_MODE).map(String::as_str) != Some("ambient") {
                return None;
            }
            LabelOwner::Namespace(w.namespace.clone())
        }
    };
    Some(Enrollment {
        by,
        key: DATAPLANE_MODE,
        value: "ambient",
    })
}

/// The namespace label that has the webhook called for the namespace's pods.
const NAMESPACE_LABEL: &str = "istio-injection";

/// The pod's opt-in: the webhook is called for the label `"true"`, and the injector
/// reads these values as yes (`injectRequired`).
const OPT_IN: OptIn = OptIn {
    mesh: MESH,
    setting: INJECT,
    known: &["y", "yes", "true", "on"],
    on: "true",
    off: "false",
    label_is_read: true,
};

/// How the injector reads a `sidecar.istio.io/inject` value (`injectRequired`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum InjectValue {
    /// `y`, `yes`, `true`, `on`, in any case.
    Inject,
    /// Empty or absent: the selectors and the policy decide.
    Unset,
    /// Anything else, `"false"` and typos alike, keeps the pod out.
    Skip,
}

impl InjectValue {
    fn read(value: &str) -> Self {
        match value.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" | "on" => InjectValue::Inject,
            "" => InjectValue::Unset,
            _ => InjectValue::Skip,
        }
    }
}

/// Where a pod states `sidecar.istio.io/inject`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    Label,
    Annotation,
}

/// An opt-in the webhook is not called for (stage 1 matches the label value
/// `"true"` exactly, and never reads annotations) or a value the injector reads as
/// "no" although it is not one (docs/lifecycle.md §3.1; istio `injectRequired`).
pub(super) fn check_opt_in(
    b: &mut Builder,
    value: &str,
    path: JsonPath,
    form: Form,
    ns: Option<&crate::settings::NamespaceInfo>,
) {
    // The webhook is called for the pod whatever its opt-in says: its namespace has
    // istio-injection=enabled, or names a revision, or (in a namespace without
    // istio-injection) the pod's own `istio.io/rev` label selects the revision's
    // webhook, which then reads the annotation (stage 2).
    let pod_revision = b.workload.pod_label(REVISION).is_some();
    let namespace_injects = match ns {
        Some(ns) => Some(match ns.labels.get(NAMESPACE_LABEL) {
            Some(v) => v == "enabled",
            None => ns.labels.contains_key(REVISION) || pod_revision,
        }),
        None if pod_revision => Some(true),
        None => None,
    };
    let ignored = match InjectValue::read(value) {
        InjectValue::Unset => return,
        InjectValue::Skip
            if matches!(
                value.to_ascii_lowercase().as_str(),
                "false" | "no" | "n" | "off"
            ) =>
        {
            return;
        }
        InjectValue::Skip => OptInIgnored::UnknownInjectValue {
            opt_in: OPT_IN,
            value: value.to_owned(),
        },
        InjectValue::Inject if form == Form::Label && value == "true" => return,
        InjectValue::Inject => match namespace_injects {
            Some(true) => return,
            known => OptInIgnored::NotCalledFor {
                opt_in: OPT_IN,
                label_value: (form == Form::Label).then(|| value.to_owned()),
                namespace_known: known.is_some(),
                namespace_label: (NAMESPACE_LABEL, "enabled"),
            },
        },
    };
    b.problem(path, Fault::OptInIgnored(ignored));
}

/// Whether `labels` match a Kubernetes label selector (`matchLabels` and
/// `matchExpressions` with In, NotIn, Exists, DoesNotExist).
pub fn selector_matches(
    selector: &k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector,
    labels: &std::collections::BTreeMap<String, String>,
) -> bool {
    let labels_match = selector
        .match_labels
        .iter()
        .flatten()
        .all(|(key, value)| labels.get(key) == Some(value));
    let expressions_match = selector
        .match_expressions
        .iter()
        .flatten()
        .all(|expression| {
            let value = labels.get(&expression.key);
            let values = expression.values.as_deref().unwrap_or_default();
            match expression.operator.as_str() {
                "In" => value.is_some_and(|v| values.contains(v)),
                "NotIn" => value.is_none_or(|v| !values.contains(v)),
                "Exists" => value.is_some(),
                "DoesNotExist" => value.is_none(),
                _ => false,
            }
        });
    labels_match && expressions_match
}
