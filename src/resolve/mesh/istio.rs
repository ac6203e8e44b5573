//! Istio sidecars (docs/lifecycle.md §3).
//!
//! Before injection: decides whether the webhook injects (§3.1), which layout it produces
//! (§3.2, A–D), whether the proxy is a native sidecar (§3.3), and how the effective
//! `ProxyConfig` comes out of defaults, mesh config and the pod annotation (§3.7). After
//! injection: reads the `istio-proxy` container as written, with the ProxyConfig the
//! injector rendered into `PROXY_CONFIG`. Either way the proxy's shutdown (§3.6) is
//! reduced to an exit policy and traffic cuts.

use crate::resolve::problems::*;
use k8s_openapi::api::core::v1::{Container, LifecycleHandler};

use crate::load::JsonPath;
use crate::resolve::Builder;
use crate::resolve::assumption::Assumed;
use crate::resolve::decision::*;
use crate::resolve::hooks::{self, HookKind, Owner};
use crate::resolve::mesh::{Mesh, NativeSwitch, Remedies};
use crate::resolve::plan::*;
use crate::settings::istio::{NativeSidecars, ProxyConfig};
use crate::settings::version::KubeVersion;
use crate::settings::{IstioSettings, IstioVersion, Settings, Source, Sourced};
use crate::time::{Millis, parse_go_duration};
use crate::workload::Workload;

/// The proxy container's name.
pub const PROXY: &str = "istio-proxy";
/// The UID the proxy runs as; the redirection skips its traffic (docs/lifecycle.md §3.2).
pub const PROXY_UID: i64 = 1337;
const INIT: &str = "istio-init";
const INJECT: &str = "sidecar.istio.io/inject";
const REVISION: &str = "istio.io/rev";
const PROXY_CONFIG: &str = "proxy.istio.io/config";
const NATIVE: &str = "sidecar.istio.io/nativeSidecar";
const DATAPLANE_MODE: &str = "istio.io/dataplane-mode";
/// The first minor whose injection template reads [`NATIVE`] (istio#53490).
const NATIVE_SINCE: u32 = 24;
/// Namespaces the injector never touches (docs/lifecycle.md §3.1, stage 2).
const IGNORED_NAMESPACES: [&str; 4] = [
    "kube-system",
    "kube-public",
    "kube-node-lease",
    "local-path-storage",
];
/// Default status port of pilot-agent: `/healthz/ready`, `/quitquitquit`, `/drain`.
pub const DEFAULT_STATUS_PORT: u16 = 15020;

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
    let namespace = workload
        .namespace
        .as_ref()
        .and_then(|ns| settings.namespaces.get(ns));
    let labels = namespace.map(|ns| &ns.labels);
    if labels.is_some_and(|labels| labels.contains_key("istio-injection")) {
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

/// Resolves Istio for the pod being built.
pub fn resolve(b: &mut Builder) {
    let found = b.find(PROXY);
    let custom_template =
        found.filter(|&(list, i)| b.get(list, i).image.as_deref() == Some("auto"));
    match (found, custom_template) {
        (Some((list, index)), None) => adopt_injected(b, list, index),
        (_, template) => {
            if let Some(decision) = injection(b, template.is_some()) {
                let config = effective_config(b, None);
                inject(b, decision, template, config);
            }
        }
    }
}

/// The layers of ProxyConfig that apply, lowest first: defaults, mesh-wide
/// `defaultConfig`, `PROXY_CONFIG` rendered at injection (after injection only), the
/// pod annotation (docs/lifecycle.md §3.7).
struct Effective {
    termination_drain: Sourced<Millis>,
    hold: Sourced<bool>,
    exit_on_zero: Sourced<bool>,
    minimum_drain: Sourced<Millis>,
    /// EXIT_ON_ZERO_ACTIVE_CONNECTIONS is on and this Istio has it (1.12+).
    exit_on_zero_applies: bool,
    /// Envoy's `--drain-time-s`.
    drain_duration: Sourced<Millis>,
    /// Whether the layers set these explicitly (for moot-setting reports).
    termination_drain_set: bool,
    minimum_drain_set: bool,
}

fn effective_config(b: &mut Builder, injected: Option<&Container>) -> Effective {
    // The injector renders the mesh's `defaultConfig` as it is then into `PROXY_CONFIG`,
    // and the agent builds its ProxyConfig from its defaults, that variable and the pod
    // annotation only (istio 1.24 `pilot/cmd/pilot-agent/config`, `getMeshConfig`; no
    // mesh config file is mounted in a sidecar): for a pod injected already, the mesh
    // config as it is now plays no part.
    let rendered = injected.and_then(|container| {
        let text = hooks::env_of(container).get("PROXY_CONFIG")?.to_owned();
        let path = b.workload.paths.pod_spec.clone();
        ProxyConfig::parse(&text, &Source::Manifest(path)).ok()
    });
    let mut layered = match &rendered {
        Some(rendered) => ProxyConfig::default().overlay(rendered),
        None => b.istio.mesh_default_config.clone(),
    };
    if let Some((text, path)) = b.workload.pod_annotation(PROXY_CONFIG) {
        match ProxyConfig::parse(text, &Source::Manifest(path.clone())) {
            Ok(annotation) => layered = layered.overlay(&annotation),
            Err(error) => {
                let unreadable = Unreadable::ProxyConfig {
                    setting: PROXY_CONFIG,
                    field: error.field.clone(),
                    error: error.message.clone(),
                    // The injector validates the annotation and fails the admission
                    // request, so the pod is never created (`validateAnnotations`).
                    denied: injected.is_none(),
                };
                if injected.is_none() {
                    b.rejections.push(Rejection {
                        path: path.clone(),
                        by: Rejector::Injector(Mesh::Istio),
                        cause: RejectionCause::UnreadableSetting(unreadable.clone()),
                    });
                }
                // The finding points at the field inside the annotation when one is
                // named (`proxyMetadata.X` is two keys).
                let path = match error.field.as_str() {
                    "" => path,
                    field => field
                        .split('.')
                        .fold(path.embedded(), |path, key| path.key(key)),
                };
                b.problem(path, Fault::Unreadable(unreadable));
            }
        }
    }
    // After injection, proxyMetadata has become the container's environment.
    let mut metadata: std::collections::BTreeMap<String, Sourced<String>> =
        layered.proxy_metadata.clone();
    if let Some(container) = injected {
        let path = b
            .find(PROXY)
            .and_then(|(list, i)| b.get(list, i).manifest_path().cloned());
        for (index, var) in container.env.iter().flatten().enumerate() {
            if let (Some(value), Some(path)) = (&var.value, &path) {
                let item = path.key("env").index(index).key("value");
                metadata.insert(
                    var.name.clone(),
                    Sourced::new(value.clone(), Source::Manifest(item)),
                );
            }
        }
    }
    // EXIT_ON_ZERO_ACTIVE_CONNECTIONS arrived in Istio 1.12 (docs/lifecycle.md §3.6).
    let exit_on_zero = metadata
        .get("EXIT_ON_ZERO_ACTIVE_CONNECTIONS")
        .map(|v| {
            let on = crate::resolve::parse_go_bool(&v.value).unwrap_or(false);
            Sourced::new(on, v.source.clone())
        })
        .unwrap_or_else(|| Sourced::default_value(false));
    let minimum_drain = metadata
        .get("MINIMUM_DRAIN_DURATION")
        .and_then(|v| parse_go_duration(&v.value).map(|d| Sourced::new(d, v.source.clone())));
    let legacy_drain = metadata
        .get("TERMINATION_DRAIN_DURATION_SECONDS")
        .and_then(|v| {
            v.value
                .parse::<i64>()
                .ok()
                .map(|s| Sourced::new(Millis::secs(s), v.source.clone()))
        });
    let termination_drain = layered.termination_drain_duration.clone().or(legacy_drain);
    // The ProxyConfig field exists from Istio 1.8, the Helm value from 1.7 (§3.5).
    let mut hold = match layered.hold_application_until_proxy_starts.clone() {
        Some(hold) if hold.value && !has(b, 8) => {
            b.assume(
                Assumed::SettingTooNew {
                    setting: "holdApplicationUntilProxyStarts",
                    layer: Some("ProxyConfig"),
                    since: "Istio 1.8",
                },
                hold.source,
            );
            Sourced::default_value(false)
        }
        Some(hold) => hold,
        None => Sourced::default_value(false),
    };
    // The deprecated Helm value is ORed in by the injector (docs/lifecycle.md §3.2): a pod
    // injected already shows what came of it in its containers.
    if let Some(global) = b.istio.hold_helm_global.clone()
        && rendered.is_none()
        && global.value
        && !hold.value
    {
        if has(b, 7) {
            hold = global;
        } else {
            b.assume(
                Assumed::SettingTooNew {
                    setting: "global.proxy.holdApplicationUntilProxyStarts",
                    layer: None,
                    since: "Istio 1.7",
                },
                global.source,
            );
        }
    }
    let drain_duration = layered
        .drain_duration
        .clone()
        .unwrap_or_else(|| Sourced::default_value(Millis::secs(45)));
    Effective {
        exit_on_zero_applies: exit_on_zero.value && has(b, 12),
        drain_duration,
        termination_drain_set: termination_drain.is_some(),
        termination_drain: termination_drain
            .unwrap_or_else(|| Sourced::default_value(Millis::secs(5))),
        hold,
        exit_on_zero,
        minimum_drain_set: minimum_drain.is_some(),
        minimum_drain: minimum_drain.unwrap_or_else(|| Sourced::default_value(Millis::secs(5))),
    }
}

fn version(b: &Builder) -> Option<IstioVersion> {
    b.istio.version.as_ref().map(|v| v.value)
}

/// Whether the running Istio has the feature that arrived in `minor` (unknown versions
/// have everything).
fn has(b: &Builder, minor: u32) -> bool {
    version(b).is_none_or(|v| v.minor >= minor)
}

/// The proxy is in the manifest: read it as written.
fn adopt_injected(b: &mut Builder, list: ContainerList, index: usize) {
    let container = b.manifest_container(b.get(list, index)).cloned();
    let config = effective_config(b, container.as_ref());
    let native = b.get(list, index).is_native_sidecar();
    let restart_always = b.get(list, index).restart_always();
    conflicting_opt_out(b);
    b.make_sidecar(list, index, SidecarKind::IstioProxy, true);
    let intercepts = intercepts_inbound(b);
    let proxy = b.get_mut(list, index);
    let path = proxy.manifest_path().cloned().unwrap_or_default();
    let waits = proxy
        .post_start
        .as_ref()
        .is_some_and(|h| matches!(h.duration, HookDuration::UntilReady { .. }));
    if waits {
        proxy.gate_request = Some(GateRequest {
            source: Source::Manifest(path.key("lifecycle").key("postStart")),
            asked_by: GateSetting::PostStart {
                command: "pilot-agent wait",
            },
        });
    } else if config.hold.value {
        proxy.gate_request = Some(GateRequest {
            source: config.hold.source.clone(),
            asked_by: HOLD_REQUEST,
        });
    }
    apply_shutdown(proxy, &config, native, intercepts);
    // A native proxy is held by its startup probe: a hold setting or a leftover
    // `pilot-agent wait` does nothing more (docs/lifecycle.md §3.2 layout C; F9). Without a
    // probe, the postStart is what holds the next container.
    let probed = proxy.startup_probe.is_some();
    if native && waits && probed {
        b.moot.push(MootSetting {
            source: Source::Manifest(path.key("lifecycle").key("postStart")),
            why: Moot::Gate(GateMoot::WaitUnderStartupProbe {
                command: "pilot-agent wait",
            }),
        });
    } else if native && config.hold.value {
        b.moot.push(MootSetting {
            source: config.hold.source.clone(),
            why: Moot::Gate(GateMoot::HoldIgnoredWhenNative {
                setting: "holdApplicationUntilProxyStarts",
            }),
        });
    }
    let mode = if native {
        ProxyMode::Native
    } else if restart_always {
        ProxyMode::NativeUnsupported
    } else {
        ProxyMode::Classic
    };
    b.meshes.push(MeshDecision {
        mesh: Mesh::Istio,
        injection: Injection::InManifest,
        mode,
        reasons: vec![DecisionReason::InManifest {
            container: PROXY.to_owned(),
        }],
    });
    let exits_on_signal = native
        && b.find(PROXY)
            .is_some_and(|(list, index)| drains_on_pre_stop(b.get(list, index)));
    note_moot_drain(b, &config, exits_on_signal);
}

/// `sidecar.istio.io/inject: "false"` on a pod whose proxy is already there.
fn conflicting_opt_out(b: &mut Builder) {
    let opt_out = b
        .workload
        .pod_label(INJECT)
        .or_else(|| b.workload.pod_annotation(INJECT))
        .filter(|(value, _)| *value == "false")
        .map(|(_, path)| path);
    if let Some(path) = opt_out {
        b.problem(
            path,
            Fault::Conflict(Conflict::ProxyInOptedOutPod { proxy: PROXY }),
        );
    }
}

/// Why the webhook injects, when it does.
struct Decision {
    trigger: JsonPath,
    reasons: Vec<DecisionReason>,
}

/// docs/lifecycle.md §3.1: both stages of the injection decision.
fn injection(b: &mut Builder, has_template: bool) -> Option<Decision> {
    let w = b.workload;
    let label = w.pod_label(INJECT);
    let annotation = w.pod_annotation(INJECT);
    let revision = w.pod_label(REVISION);
    let namespace = w.namespace.clone();
    let ns_info = namespace
        .as_ref()
        .and_then(|ns| b.settings.namespaces.get(ns))
        .cloned();
    let ambient = ambient_enrollment(b.workload, ns_info.as_ref());
    let not_injected = |b: &mut Builder, cause: NotInjectedCause| {
        let mode = match &ambient {
            Some(_) => ProxyMode::Ambient,
            None => ProxyMode::None,
        };
        b.meshes.push(MeshDecision {
            mesh: Mesh::Istio,
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
            ns.labels.get("istio-injection").map(String::as_str) == Some("enabled")
                || (!ns.labels.contains_key("istio-injection") && ns.labels.contains_key(REVISION))
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
        Some(ns) => match ns.labels.get("istio-injection") {
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
            .and_then(|ns| ns.labels.get("istio-injection"))
        {
            Some(v) if v != "enabled" => NotInjectedCause::NamespaceOptOut {
                key: "istio-injection",
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
        && b.istio
            .never_inject_selector
            .iter()
            .any(|s| selector_matches(s, &pod_labels))
    {
        return not_injected(b, NotInjectedCause::NeverInjectSelector);
    }
    let always = b
        .istio
        .always_inject_selector
        .iter()
        .any(|s| selector_matches(s, &pod_labels));
    if !explicit && !always && !b.istio.auto_inject.value {
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
        let (key, value) = match labels.and_then(|l| l.get("istio-injection")) {
            Some(value) => ("istio-injection", value.clone()),
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
fn ambient_enrollment(
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

/// How the injector reads a `sidecar.istio.io/inject` value (`injectRequired`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum InjectValue {
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
enum Form {
    Label,
    Annotation,
}

/// An opt-in the webhook is not called for (stage 1 matches the label value
/// `"true"` exactly, and never reads annotations) or a value the injector reads as
/// "no" although it is not one (docs/lifecycle.md §3.1; istio `injectRequired`).
fn check_opt_in(
    b: &mut Builder,
    value: &str,
    path: JsonPath,
    form: Form,
    ns: Option<&crate::settings::NamespaceInfo>,
) {
    let namespace_injects = ns.map(|ns| {
        ns.labels
            .get("istio-injection")
            .is_some_and(|v| v == "enabled")
    });
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
            mesh: Mesh::Istio,
            setting: INJECT,
            value: value.to_owned(),
        },
        InjectValue::Inject if form == Form::Label && value == "true" => return,
        InjectValue::Inject => match namespace_injects {
            Some(true) => return,
            known => OptInIgnored::NotCalledFor {
                setting: INJECT,
                label_value: (form == Form::Label).then(|| value.to_owned()),
                namespace_known: known.is_some(),
            },
        },
    };
    b.problem(path, Fault::OptInIgnored(ignored));
}

/// Whether the injector makes the proxy a native sidecar (docs/lifecycle.md §3.3).
fn native_mode(b: &mut Builder) -> (bool, NativeReason) {
    let (global, global_reason) = native_by_default(b);
    let Some((value, path)) = b.workload.pod_annotation(NATIVE) else {
        return (global, global_reason);
    };
    let annotation = NativeReason::Annotation {
        key: NATIVE,
        value: value.to_owned(),
        source: Source::Manifest(path.clone()),
    };
    match version(b) {
        // The annotation arrived in 1.24 (istio#53490); earlier templates never read it.
        Some(v) if v.minor < NATIVE_SINCE => {
            b.problem(
                path,
                Fault::OptInIgnored(OptInIgnored::NativeAnnotationTooNew {
                    setting: NATIVE,
                    release: v.to_string(),
                    native_anyway: global,
                }),
            );
            (global, global_reason)
        }
        // 1.24–1.26: `eq (index .ObjectMeta.Annotations …) "true"`.
        Some(v) if v.minor < 27 => {
            let on = value == "true";
            if !on && value != "false" && looks_true(value) {
                b.problem(
                    path,
                    Fault::OptInIgnored(OptInIgnored::NativeValueMisread {
                        setting: NATIVE,
                        value: value.to_owned(),
                        release: Some(v.to_string()),
                    }),
                );
            }
            (on, annotation)
        }
        // 1.27+: `ne (index … | default (printf "%t" .NativeSidecars)) "false"`: any
        // value but "false" enables native mode; an empty one leaves the default.
        _ if value.is_empty() => (global, global_reason),
        _ => {
            let on = value != "false";
            if on && !looks_true(value) {
                b.problem(
                    path,
                    Fault::OptInIgnored(OptInIgnored::NativeValueMisread {
                        setting: NATIVE,
                        value: value.to_owned(),
                        release: None,
                    }),
                );
            }
            (on, annotation)
        }
    }
}

/// The pod annotation that makes the injector add a native proxy, when Istio `istio`
/// (unknown: the resolver's reading of an unknown version, which has every feature)
/// reads it and Kubernetes `kubernetes` runs native sidecars. `"true"` is the value
/// every release that reads the annotation takes as on (see [`native_mode`]).
pub fn native_switch(istio: Option<IstioVersion>, kubernetes: KubeVersion) -> Option<NativeSwitch> {
    let read = istio.is_none_or(|v| v.minor >= NATIVE_SINCE);
    (read && kubernetes.runs_native_sidecars()).then_some(NativeSwitch::new(NATIVE, "true"))
}

/// A value that reads as "yes" (`true`, `True`, `1`, `yes`, `on`, …).
fn looks_true(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "true" | "t" | "1" | "yes" | "y" | "on"
    )
}

/// istiod's own choice, without the pod annotation (`ENABLE_NATIVE_SIDECARS`,
/// `DetectNativeSidecar`): a boolean, off by default, in Istio 1.19–1.26; from 1.27
/// `true`, `false` or `auto`, `auto` by default, native when the nodes run Kubernetes
/// 1.33 or later (docs/lifecycle.md §3.3).
fn native_by_default(b: &mut Builder) -> (bool, NativeReason) {
    const SETTING: &str = "ENABLE_NATIVE_SIDECARS";
    // `auto` looks at the nodes' kubelets, not the API server.
    let kubernetes = b.settings.node_version().value;
    let auto = |from: AutoFrom| {
        let reason = NativeReason::Auto {
            name: SETTING,
            from,
            native_from: AUTO_NATIVE_FROM,
            kubernetes,
        };
        (kubernetes >= AUTO_NATIVE_FROM, reason)
    };
    match (b.istio.native_sidecars.clone(), version(b)) {
        (Some(setting), v) => match setting.value {
            NativeSidecars::On | NativeSidecars::Off => {
                let native = setting.value == NativeSidecars::On;
                let reason = NativeReason::Setting {
                    name: SETTING,
                    native,
                    source: setting.source,
                };
                (native, reason)
            }
            NativeSidecars::Auto => match v {
                Some(release) if release < AUTO_SINCE => {
                    let reason = NativeReason::AutoUnknown {
                        name: SETTING,
                        source: setting.source,
                        release,
                        since: AUTO_SINCE,
                    };
                    (false, reason)
                }
                _ => auto(AutoFrom::Setting(setting.source)),
            },
        },
        (None, Some(v)) if v >= AUTO_SINCE => auto(AutoFrom::ReleaseDefault(v)),
        (None, Some(v)) => {
            let release = Release::Istio(v);
            (
                false,
                NativeReason::ReleaseDefault {
                    release,
                    native: false,
                },
            )
        }
        (None, None) => {
            b.assume(
                Assumed::MeshVersionUnknown {
                    mesh: Mesh::Istio,
                    native_since: Release::Istio(AUTO_SINCE),
                    native_nodes: Some(AUTO_NATIVE_FROM),
                    flag: "--istio-version",
                },
                Source::Default,
            );
            (false, NativeReason::UnknownRelease)
        }
    }
}

/// `holdApplicationUntilProxyStarts: true`, which asks the injector to hold the app.
const HOLD_REQUEST: GateSetting = GateSetting::Setting {
    name: "holdApplicationUntilProxyStarts",
    value: Some("true"),
};

/// The first release whose `ENABLE_NATIVE_SIDECARS` takes `auto`, its default.
const AUTO_SINCE: IstioVersion = IstioVersion::new(27);
/// `auto` makes native sidecars where the nodes run this Kubernetes or later.
const AUTO_NATIVE_FROM: KubeVersion = KubeVersion { minor: 33 };

/// Adds the modelled `istio-init` and `istio-proxy` containers in the layout the
/// injector produces (docs/lifecycle.md §3.2).
fn inject(
    b: &mut Builder,
    decision: Decision,
    template: Option<(ContainerList, usize)>,
    config: Effective,
) {
    let (native, native_reason) = native_mode(b);
    // A partial `istio-proxy` (custom injection) is merged into what the injector adds.
    let template_container = template.and_then(|(list, i)| {
        let planned = match list {
            ContainerList::Init => b.init.remove(i),
            ContainerList::Regular => b.regular.remove(i),
        };
        b.manifest_container(&planned)
            .cloned()
            .map(|c| (c, planned.manifest_path().cloned()))
    });
    b.exempt_init_calls(PROXY_UID, "traffic.sidecar.istio.io/excludeOutboundPorts");
    let custom_lifecycle = b.istio.custom_lifecycle.clone();
    // The template ignores hold for native proxies from 1.21 (`$holdProxy := and …
    // (not $nativeSidecar)`); 1.19 and 1.20 still add `pilot-agent wait`.
    let hold_ignored = native && has(b, 21);
    let hold = config.hold.value && !hold_ignored;
    let trigger = decision.trigger.clone();
    let startup = b.scenario.proxy_startup.value;
    let role = b.injected_proxy(SidecarKind::IstioProxy, native);
    let shaped_by = ShapedBy {
        native: b
            .workload
            .pod_annotation(NATIVE)
            .filter(|_| native)
            .map(|(_, path)| path),
        no_startup_gate: None,
        // Native mode ignores the hold (from 1.21, before the annotation exists): the
        // pod's own hold goes with the switch, which would leave it moot.
        native_switch: if native {
            None
        } else {
            native_switch(version(b), b.settings.kubernetes.value).map(|switch| NativeSwitch {
                moots: match &config.hold.source {
                    Source::Manifest(path) if config.hold.value => Some(path.clone()),
                    _ => None,
                },
                ..switch
            })
        },
    };
    let mut proxy =
        PlannedContainer::injected(PROXY, Mesh::Istio, trigger.clone(), role).shaped(shaped_by);
    proxy.image = Some("istio/proxyv2".into());
    proxy.startup_probe = startup_probe(b, native);
    proxy.readiness_probe = readiness_probe(b, native);
    proxy.startup = startup;
    let env = crate::resolve::shell::Env::new();
    if hold {
        proxy.post_start = Some(hooks::from_argv(
            vec!["pilot-agent".into(), "wait".into()],
            None,
            HookKind::PostStart,
            Owner::Sidecar,
            &env,
        ));
    }
    if native && has(b, 21) {
        proxy.pre_stop = Some(hooks::from_argv(
            [
                "pilot-agent",
                "request",
                "--debug-port=15020",
                "POST",
                "drain",
            ]
            .map(String::from)
            .to_vec(),
            None,
            HookKind::PreStop,
            Owner::Sidecar,
            &env,
        ));
    }
    if config.hold.value {
        proxy.gate_request = Some(GateRequest {
            source: config.hold.source.clone(),
            asked_by: HOLD_REQUEST,
        });
        if hold_ignored {
            b.moot.push(MootSetting {
                source: config.hold.source.clone(),
                why: Moot::Gate(GateMoot::HoldIgnoredWhenNative {
                    setting: "holdApplicationUntilProxyStarts",
                }),
            });
        }
    }
    // Layout D: Helm `global.proxy.lifecycle` replaces both injected hooks.
    if let Some(lifecycle) = &custom_lifecycle {
        let lifecycle = &lifecycle.value;
        proxy.post_start = custom_hook(lifecycle.post_start.as_ref(), HookKind::PostStart);
        proxy.pre_stop = custom_hook(lifecycle.pre_stop.as_ref(), HookKind::PreStop);
    }
    if let Some((container, path)) = &template_container
        && let Some(path) = path
    {
        let owner = Owner::Sidecar;
        if let Some(hook) = hooks::read(container, path, HookKind::PostStart, owner) {
            proxy.post_start = Some(hook);
        }
        if let Some(hook) = hooks::read(container, path, HookKind::PreStop, owner) {
            proxy.pre_stop = Some(hook);
        }
        if let Some(probe) = &container.startup_probe {
            proxy.startup_probe = Some(crate::resolve::probe_timing(probe));
        }
    }
    apply_shutdown(&mut proxy, &config, native, intercepts_inbound(b));
    let mut init = PlannedContainer::injected(INIT, Mesh::Istio, trigger, Role::INIT_STEP);
    init.image = Some("istio/proxyv2".into());
    init.runs_for = Some(b.scenario.init_duration.value);
    let has_init = b.init.iter().any(|c| c.name == INIT);
    let mode = if native {
        // Layout C: istio-init, then the proxy, then the user's init containers.
        if !has_init {
            b.init.insert(0, init);
        }
        let at = b
            .init
            .iter()
            .position(|c| c.name == INIT)
            .map_or(0, |i| i + 1);
        b.init.insert(at, proxy);
        ProxyMode::Native
    } else {
        // Layout A appends the proxy; layout B (hold) puts it first.
        if !has_init {
            b.init.push(init);
        }
        if hold {
            b.regular.insert(0, proxy);
        } else {
            b.regular.push(proxy);
        }
        if hold {
            ProxyMode::Held {
                first: true,
                command: "pilot-agent wait",
            }
        } else {
            ProxyMode::Classic
        }
    };
    let mut reasons = decision.reasons;
    reasons.push(DecisionReason::Native(native_reason));
    if config.hold.value {
        reasons.push(DecisionReason::Hold {
            setting: "holdApplicationUntilProxyStarts",
            source: config.hold.source.clone(),
        });
    }
    b.meshes.push(MeshDecision {
        mesh: Mesh::Istio,
        injection: Injection::WillInject {
            trigger: decision.trigger,
        },
        mode,
        reasons,
    });
    let exits_on_signal = native
        && b.find(PROXY)
            .is_some_and(|(list, index)| drains_on_pre_stop(b.get(list, index)));
    note_moot_drain(b, &config, exits_on_signal);
}

/// The injected startup probe (docs/lifecycle.md §3.2): from Istio 1.20,
/// `/healthz/ready` on 15021 every second, 600 tries, unless Helm turns it off; in 1.19
/// native mode, the readiness probe's values as a startup probe instead. None when the
/// status port is 0.
fn startup_probe(b: &Builder, native: bool) -> Option<ProbeTiming> {
    if status_port_disabled(b) {
        return None;
    }
    if !has(b, 20) {
        return native.then(|| readiness_timing(b));
    }
    let enabled = match &b.istio.startup_probe {
        Some(setting) => setting.value,
        None => true,
    };
    enabled.then_some(ProbeTiming {
        initial_delay: Millis::ZERO,
        period: Millis::secs(1),
        failure_threshold: 600,
    })
}

/// The injected readiness probe, absent in 1.19 native mode (which turned it into the
/// startup probe) and when the status port is 0.
fn readiness_probe(b: &Builder, native: bool) -> Option<ProbeTiming> {
    (!status_port_disabled(b) && (has(b, 20) || !native)).then(|| readiness_timing(b))
}

/// Readiness timing: initial delay / period / failures 0 s / 15 s / 4 since Istio 1.20,
/// 1 s / 2 s / 30 before; `readiness.status.sidecar.istio.io/*` override them.
fn readiness_timing(b: &Builder) -> ProbeTiming {
    let (delay, period, failures) = if has(b, 20) { (0, 15, 4) } else { (1, 2, 30) };
    let annotation = |key: &str, default: i64| {
        b.workload
            .pod_annotation(&format!("readiness.status.sidecar.istio.io/{key}"))
            .and_then(|(v, _)| v.parse::<i64>().ok())
            .unwrap_or(default)
    };
    ProbeTiming {
        initial_delay: Millis::secs(annotation("initialDelaySeconds", delay)),
        period: Millis::secs(annotation("periodSeconds", period).max(1)),
        failure_threshold: annotation("failureThreshold", failures),
    }
}

/// `status.sidecar.istio.io/port: "0"`: the template adds no probes at all.
fn status_port_disabled(b: &Builder) -> bool {
    b.workload
        .pod_annotation("status.sidecar.istio.io/port")
        .is_some_and(|(port, _)| port.trim() == "0")
}

fn custom_hook(handler: Option<&LifecycleHandler>, kind: HookKind) -> Option<Hook> {
    Some(hooks::from_handler(
        handler?,
        None,
        kind,
        Owner::Sidecar,
        &Default::default(),
    ))
}

/// docs/lifecycle.md §3.6: how pilot-agent shuts down, as an exit policy and traffic cuts.
fn apply_shutdown(
    proxy: &mut PlannedContainer,
    config: &Effective,
    native: bool,
    intercepts: bool,
) {
    let drains_on_prestop = drains_on_pre_stop(proxy);
    proxy.exit = if native && drains_on_prestop {
        // `/drain` was called: the agent exits as soon as SIGTERM comes.
        ExitPolicy::Immediately
    } else if config.exit_on_zero_applies {
        ExitPolicy::WhenIdle {
            minimum: config.minimum_drain.clone(),
            poll: Millis::secs(1),
        }
    } else {
        ExitPolicy::After(config.termination_drain.clone())
    };
    // Envoy keeps accepting inbound connections while it drains, until its drain
    // time (`drainDuration`, 45 s) ends or it is killed (docs/lifecycle.md §3.6).
    proxy.traffic = Some(TrafficCuts {
        inbound_refused: if intercepts {
            Cut::AfterSignal(config.drain_duration.value)
        } else {
            Cut::Never
        },
        inbound_drained: match (intercepts, drains_on_prestop) {
            (false, _) => Cut::Never,
            (true, true) => Cut::PreStop,
            (true, false) => Cut::Signal,
        },
        outbound_refused: Cut::Exit,
    });
}

/// Whether the proxy's preStop starts its drain (`pilot-agent request POST drain`, the
/// native sidecar's injected hook).
fn drains_on_pre_stop(proxy: &PlannedContainer) -> bool {
    proxy
        .pre_stop
        .as_ref()
        .is_some_and(|h| h.effect == HookEffect::DrainsInbound)
}

/// Whether the proxy receives inbound traffic: not with
/// `sidecar.istio.io/interceptionMode: NONE`, where nothing redirects to it
/// (docs/lifecycle.md §3.2) and Envoy builds no inbound listeners without a Sidecar
/// ingress.
fn intercepts_inbound(b: &Builder) -> bool {
    b.workload
        .pod_annotation("sidecar.istio.io/interceptionMode")
        .is_none_or(|(mode, _)| mode != "NONE")
}

/// Drain settings the agent does not use in this mode. `exits_on_signal`: a
/// native proxy whose preStop drained it exits as soon as SIGTERM comes, so none of
/// the drain settings is used.
fn note_moot_drain(b: &mut Builder, config: &Effective, exits_on_signal: bool) {
    if config.exit_on_zero.value && !has(b, 12) {
        b.moot.push(MootSetting {
            source: config.exit_on_zero.source.clone(),
            why: Moot::Drain(DrainMoot::TooNew {
                setting: "EXIT_ON_ZERO_ACTIVE_CONNECTIONS",
                since: "Istio 1.12",
            }),
        });
    }
    if exits_on_signal {
        let unused = [
            (
                config.termination_drain_set,
                &config.termination_drain.source,
                "terminationDrainDuration",
            ),
            (
                config.exit_on_zero_applies,
                &config.exit_on_zero.source,
                "EXIT_ON_ZERO_ACTIVE_CONNECTIONS",
            ),
            (
                config.minimum_drain_set,
                &config.minimum_drain.source,
                "MINIMUM_DRAIN_DURATION",
            ),
        ];
        for (_, source, setting) in unused.into_iter().filter(|(set, ..)| *set) {
            b.moot.push(MootSetting {
                source: source.clone(),
                why: Moot::Drain(DrainMoot::UnusedWhenNative { setting }),
            });
        }
        return;
    }
    if config.exit_on_zero_applies && config.termination_drain_set {
        b.moot.push(MootSetting {
            source: config.termination_drain.source.clone(),
            why: Moot::Drain(DrainMoot::Replaced {
                setting: "terminationDrainDuration",
                value: config.termination_drain.value,
                by: "MINIMUM_DRAIN_DURATION",
                by_value: config.minimum_drain.value,
                mode: "EXIT_ON_ZERO_ACTIVE_CONNECTIONS",
            }),
        });
    }
    if !config.exit_on_zero_applies && config.minimum_drain_set {
        b.moot.push(MootSetting {
            source: config.minimum_drain.source.clone(),
            why: Moot::Drain(DrainMoot::ModeOff {
                setting: "MINIMUM_DRAIN_DURATION",
                mode: "EXIT_ON_ZERO_ACTIVE_CONNECTIONS",
            }),
        });
    }
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

/// What Istio's own settings offer against each hazard.
pub const REMEDIES: Remedies = Remedies {
    hold_app: Some(
        "hold the app until the proxy is ready; on the pod template:\n  metadata:\n    annotations:\n      proxy.istio.io/config: |\n        holdApplicationUntilProxyStarts: true\n",
    ),
    native_opt_in: Some("sidecar.istio.io/nativeSidecar: \"true\""),
    missing_gate_cause: Some("a custom proxy lifecycle replaces it"),
    restore_gate: Some(
        "add `postStart: {exec: {command: [pilot-agent, wait]}}` to the custom proxy lifecycle (Helm `global.proxy.lifecycle`), or drop the custom lifecycle",
    ),
    stop_after_work: Some(|native| {
        format!(
            "stop the proxy when the work ends, keeping the work's exit status:\n  command: [\"/bin/sh\", \"-c\"]\n  args:\n  - |\n    trap 'curl -fsS -X POST http://localhost:15020/quitquitquit' EXIT\n    ./your-work   # not `exec`: the trap must outlive it\n(or `sidecar.istio.io/nativeSidecar: \"true\"` on the pod template{native})"
        )
    }),
    working_stop_call: Some(
        "call pilot-agent with POST: curl -fsS -X POST http://localhost:15020/quitquitquit",
    ),
    stop_api: Some("POST :15020/quitquitquit"),
    outlive_app: Some(|seconds| {
        format!(
            "keep the proxy until the app's connections are gone; on the pod template:\n  proxy.istio.io/config: |\n    proxyMetadata:\n      EXIT_ON_ZERO_ACTIVE_CONNECTIONS: \"true\"\n(or terminationDrainDuration of at least {seconds}s)"
        )
    }),
    outlast_endpoints: None,
    bypass_for_init: Some(|| {
        format!(
            "run the init container as UID {PROXY_UID} or exclude its port (traffic.sidecar.istio.io/excludeOutboundPorts)"
        )
    }),
    drain_setting: Some("terminationDrainDuration"),
    stop_endpoint_switch: None,
};
