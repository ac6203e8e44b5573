//! The mesh decisions in words: why each mesh's proxy is in the pod, how it runs, or
//! why it is not injected, from the facts `resolve` states ([`DecisionReason`],
//! [`NotInjectedCause`]). The text and JSON explanations give the same sentences.

use crate::resolve::mesh::{InManifestWords, OptInWords};
use crate::resolve::{
    AutoFrom, DecisionReason, Enrollment, Injection, LabelOwner, Mesh, MeshDecision, MetadataKind,
    NativeReason, NotInjectedCause, ProxyMode,
};
use crate::settings::Source;

/// Why the decision came out as it did, one phrase per fact: for a proxy that is not
/// injected, why not; for one that is, why and how.
pub fn reasons(decision: &MeshDecision) -> Vec<String> {
    match &decision.injection {
        Injection::NotInjected { cause, ambient } => {
            vec![not_injected(decision.mesh, cause, ambient.as_ref())]
        }
        _ => decision
            .reasons
            .iter()
            .map(|reason| self::reason(decision.mesh, reason))
            .collect(),
    }
}

/// `{mesh}: not injected (why)`, `{mesh}: native proxy, added by the injector (why)`.
pub fn summary(decision: &MeshDecision) -> String {
    let name = decision.mesh.title();
    let mode = mode(decision);
    match &decision.injection {
        Injection::InManifest => format!("{name}: {mode} proxy, already injected"),
        Injection::WillInject { .. } => format!(
            "{name}: {mode} proxy, added by the injector ({})",
            reasons(decision).join("; ")
        ),
        Injection::NotInjected { .. } => {
            format!("{name}: not injected ({})", reasons(decision).join("; "))
        }
    }
}

/// How the proxy runs: `native`, `classic, held (proxy first, postStart pilot-agent
/// wait)`.
pub fn mode(decision: &MeshDecision) -> String {
    match decision.mode {
        ProxyMode::None => "none".to_owned(),
        ProxyMode::Ambient => "ambient".to_owned(),
        ProxyMode::Classic => "classic".to_owned(),
        ProxyMode::Held { first, command } => {
            // A hold known by what it waits for rather than its command (Kuma's
            // `kuma-dp wait`).
            if let Some(awaited) = decision.mesh.words().held_waits_for {
                return format!("classic, held (waits for {awaited})");
            }
            let first = if first { "proxy first, " } else { "" };
            format!("classic, held ({first}postStart {command})")
        }
        ProxyMode::Native => "native".to_owned(),
        ProxyMode::NativeUnsupported => {
            "native (not supported by this Kubernetes version)".to_owned()
        }
    }
}

fn not_injected(mesh: Mesh, cause: &NotInjectedCause, ambient: Option<&Enrollment>) -> String {
    let cause = match cause {
        NotInjectedCause::NotAsked => "the pod asks for no sidecar".to_owned(),
        NotInjectedCause::HostNetwork => "hostNetwork pods are never injected".to_owned(),
        NotInjectedCause::IgnoredNamespace { namespace } => {
            format!("namespace {namespace} is never injected")
        }
        NotInjectedCause::NamespaceOptOut { key, value } => {
            format!("namespace has {key}={value}")
        }
        NotInjectedCause::WebhookNotCalled => "the webhook is not called for this pod".to_owned(),
        // Values compared as strings are quoted; keywords are not.
        NotInjectedCause::PodOptOut { key, value } if mesh.words().quoted_values => {
            format!("`{key}: \"{value}\"`")
        }
        NotInjectedCause::PodOptOut { key, value } => format!("`{key}: {value}`"),
        NotInjectedCause::NeverInjectSelector => "the pod matches neverInjectSelector".to_owned(),
        NotInjectedCause::PolicyDisabled => "the injection policy is disabled".to_owned(),
    };
    match ambient {
        Some(ambient) => format!(
            "ambient mode: {} and {cause}; ztunnel carries its traffic, so no sidecar ordering hazard applies",
            enrollment(ambient)
        ),
        None => cause,
    }
}

fn reason(mesh: Mesh, reason: &DecisionReason) -> String {
    match reason {
        DecisionReason::InManifest { container } => match mesh.words().in_manifest {
            InManifestWords::InjectedAlready => {
                format!("`{container}` is in the manifest: it was injected already")
            }
            InManifestWords::Named(name) => format!("{name} is in the manifest"),
            InManifestWords::Container => format!("`{container}` is in the manifest"),
        },
        DecisionReason::PodOptIn(setting) => {
            let kind = metadata_kind(setting.kind);
            let (key, value) = (setting.key, &setting.value);
            match mesh.words().pod_opt_in {
                OptInWords::KindKey => format!("pod {kind} `{key}`"),
                OptInWords::KeyValueOnPod => format!("`{key}: {value}` on the pod"),
                OptInWords::KindKeyValue => format!("pod {kind} `{key}: \"{value}\"`"),
            }
        }
        DecisionReason::RevisionLabel(label) => format!(
            "pod {} `{}: {}`",
            metadata_kind(label.kind),
            label.key,
            label.value
        ),
        DecisionReason::CustomTemplate { container, image } => {
            format!("a `{container}` container with `image: {image}` (custom injection)")
        }
        DecisionReason::NamespaceOptIn {
            namespace,
            key,
            value,
        } => {
            let namespace = namespace.as_deref().unwrap_or("?");
            if mesh.words().namespace_opt_in_by_meaning {
                format!("namespace {namespace} has injection enabled")
            } else {
                format!("namespace {namespace} has `{key}: {value}`")
            }
        }
        DecisionReason::Revision { name } => format!("{mesh} revision {name}"),
        DecisionReason::SidecarOverridesAmbient(ambient) => format!(
            "{}, but the sidecar wins: ztunnel leaves a pod with a sidecar alone",
            enrollment(ambient)
        ),
        DecisionReason::NamespaceLabelsFrom(Source::Input(file)) => {
            format!("namespace labels from {file}")
        }
        DecisionReason::NamespaceLabelsFrom(source) => format!("namespace labels from {source}"),
        DecisionReason::Native(native) => self::native(mesh, native),
        DecisionReason::Hold { setting, source } => format!("{setting} from {source}"),
    }
}

fn native(mesh: Mesh, reason: &NativeReason) -> String {
    match reason {
        // An annotation read on the pod only needs no source; one that may come from
        // the namespace (Linkerd's) is named with it.
        NativeReason::Annotation { key, value, .. } if mesh.words().native_on_pod_only => {
            format!("pod annotation `{key}: \"{value}\"`")
        }
        NativeReason::Annotation { key, value, source } => {
            format!("`{key}: \"{value}\"` ({source})")
        }
        NativeReason::Setting {
            name,
            native,
            source,
        } if mesh.words().native_on_pod_only => format!("{name}={native} from {source}"),
        NativeReason::Setting { name, source, .. } => format!("{name} ({source})"),
        NativeReason::AutoUnknown {
            name,
            source,
            release,
            since,
        } => format!(
            "{name}=auto from {source}, which {mesh} {release} does not know (a boolean before {since}): classic"
        ),
        NativeReason::Auto {
            name,
            from,
            native_from,
            kubernetes,
        } => {
            let context = match from {
                AutoFrom::Setting(source) => format!("{name}=auto from {source}"),
                AutoFrom::ReleaseDefault(release, source) => {
                    format!(
                        "{mesh} {release} ({}) defaults {name} to auto",
                        given(source)
                    )
                }
            };
            format!(
                "{context} (native when every node's kubelet is ≥ {native_from}; the oldest here is {kubernetes})"
            )
        }
        NativeReason::ReleaseDefault {
            release,
            native,
            source,
        } => format!(
            "{mesh} {release} ({}) injects {} sidecars by default",
            given(source),
            if *native { "native" } else { "classic" }
        ),
        NativeReason::UnknownRelease { before } => {
            let (proxy, _) = mesh.words().classic;
            format!("{mesh} version unknown: read as a release before {before} (classic {proxy})")
        }
    }
}

/// Where a release was given: `--mesh-version`, `config .mesh-lifecycle.yaml`.
fn given(source: &Source) -> String {
    match source {
        Source::Default => "default".to_owned(),
        other => other.to_string(),
    }
}

/// `pod label `istio.io/dataplane-mode: ambient``, or the namespace's.
fn enrollment(enrollment: &Enrollment) -> String {
    let Enrollment { by, key, value } = enrollment;
    match by {
        LabelOwner::Pod => format!("pod label `{key}: {value}`"),
        LabelOwner::Namespace(namespace) => format!(
            "namespace {} has `{key}: {value}`",
            namespace.as_deref().unwrap_or("?")
        ),
    }
}

fn metadata_kind(kind: MetadataKind) -> &'static str {
    match kind {
        MetadataKind::Label => "label",
        MetadataKind::Annotation => "annotation",
    }
}
