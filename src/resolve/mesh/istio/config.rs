//! The ProxyConfig in force for the pod (docs/lifecycle.md §3.7): defaults, mesh-wide
//! `defaultConfig`, what the injector rendered into `PROXY_CONFIG`, the pod annotation.

use super::*;

/// The pod annotation that holds ProxyConfig.
pub(super) const PROXY_CONFIG: &str = "proxy.istio.io/config";

/// The pod annotation that moves pilot-agent's status port (`0`: no status server).
pub(super) const STATUS_PORT: &str = "status.sidecar.istio.io/port";

/// The ProxyConfig field that asks the injector to hold the app until the proxy is
/// ready.
pub(super) const HOLD: &str = "holdApplicationUntilProxyStarts";

/// The layers of ProxyConfig that apply, lowest first: defaults, mesh-wide
/// `defaultConfig`, `PROXY_CONFIG` rendered at injection (after injection only), the
/// pod annotation (docs/lifecycle.md §3.7).
pub(super) struct Effective {
    pub(super) termination_drain: Sourced<Millis>,
    pub(super) hold: Sourced<bool>,
    pub(super) exit_on_zero: Sourced<bool>,
    pub(super) minimum_drain: Sourced<Millis>,
    /// EXIT_ON_ZERO_ACTIVE_CONNECTIONS is on and this Istio has it (1.12+).
    pub(super) exit_on_zero_applies: bool,
    /// Envoy's `--drain-time-s`.
    pub(super) drain_duration: Sourced<Millis>,
    /// Whether the layers set these explicitly (for moot-setting reports).
    pub(super) termination_drain_set: bool,
    pub(super) minimum_drain_set: bool,
    /// The port pilot-agent's status server listens on, where `/drain` is; 0: none.
    pub(super) status_port: u16,
}

pub(super) fn effective_config(b: &mut Builder, injected: Option<&Container>) -> Effective {
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
        None => revision_settings(b).mesh_default_config.clone(),
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
                        by: Rejector::Injector(MESH),
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
                    setting: HOLD,
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
    if let Some(global) = revision_settings(b).hold_helm_global.clone()
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
    // The annotation overrides ProxyConfig's `statusPort` (`applyAnnotations`).
    let status_port = match annotated_status_port(b) {
        Some(port) => port,
        None => layered
            .status_port
            .as_ref()
            .map_or(DEFAULT_STATUS_PORT, |port| port.value),
    };
    Effective {
        status_port,
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
