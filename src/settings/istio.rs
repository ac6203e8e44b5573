//! The Istio part of the environment profile (docs/lifecycle.md §3), and the
//! `ProxyConfig` layer format shared by mesh config and the `proxy.istio.io/config`
//! annotation.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Lifecycle;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use super::{IstioVersion, Source, Sourced};
use crate::time::{GoDurationError, Millis, go_duration};

/// How istiod decides native sidecar mode (`ENABLE_NATIVE_SIDECARS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NativeSidecars {
    /// `true`: every injected proxy is native.
    On,
    /// `false`: classic proxies.
    Off,
    /// On when every node runs Kubernetes 1.33 or newer (the 1.28+ default).
    Auto,
}

impl NativeSidecars {
    /// istiod's reading of its `ENABLE_NATIVE_SIDECARS` environment variable: `true` and
    /// `auto` as such, anything else disables native sidecars (docs/lifecycle.md §3.3).
    pub fn from_env(value: &str) -> NativeSidecars {
        match value {
            "true" => NativeSidecars::On,
            "auto" => NativeSidecars::Auto,
            _ => NativeSidecars::Off,
        }
    }
}

impl std::fmt::Display for NativeSidecars {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NativeSidecars::On => "true",
            NativeSidecars::Off => "false",
            NativeSidecars::Auto => "auto",
        })
    }
}

/// Control-plane values that decide what the Istio injector adds.
#[derive(Clone, Debug)]
pub struct IstioSettings {
    /// Unknown by default: the classic sidecar (the reading that can lose traffic) is
    /// assumed unless the version or a setting says native.
    pub version: Option<Sourced<IstioVersion>>,
    /// `meshConfig.defaultConfig`.
    pub mesh_default_config: ProxyConfig,
    /// Helm `global.proxy.holdApplicationUntilProxyStarts` (deprecated, ORed with the
    /// ProxyConfig field).
    pub hold_helm_global: Option<Sourced<bool>>,
    /// istiod `ENABLE_NATIVE_SIDECARS`.
    pub native_sidecars: Option<Sourced<NativeSidecars>>,
    /// Helm `global.proxy.lifecycle`: replaces the injected hooks (layout D). Decoded
    /// by type when the setting is read, so a value of the wrong type is an error there.
    pub custom_lifecycle: Option<Sourced<Lifecycle>>,
    /// Helm `global.proxy.startupProbe.enabled` (default on since 1.20).
    pub startup_probe: Option<Sourced<bool>>,
    /// Helm `global.proxy.autoInject` (the injection policy; default enabled).
    pub auto_inject: Sourced<bool>,
    /// Helm `sidecarInjectorWebhook.enableNamespacesByDefault`.
    pub enable_namespaces_by_default: Sourced<bool>,
    /// Helm `sidecarInjectorWebhook.neverInjectSelector`: pods never injected unless
    /// they ask for it.
    pub never_inject_selector: Vec<LabelSelector>,
    /// Helm `sidecarInjectorWebhook.alwaysInjectSelector`: pods injected even when the
    /// policy is disabled.
    pub always_inject_selector: Vec<LabelSelector>,
}

impl IstioSettings {
    /// Sets Helm `global.proxy.lifecycle` (or the config file's `istio.lifecycle`). The
    /// injection template tests it with `{{- if .Values.global.proxy.lifecycle }}`, so an
    /// empty one leaves the injected hooks in place (istio/istio
    /// `manifests/charts/istio-control/istio-discovery/files/injection-template.yaml`).
    pub fn set_lifecycle(&mut self, lifecycle: Lifecycle, source: Source) {
        if lifecycle != Lifecycle::default() {
            self.custom_lifecycle = Some(Sourced::new(lifecycle, source));
        }
    }
}

/// What one layer of the profile (the config file, a mesh config, the cluster) says of
/// Istio's control plane, all from one place: each value it sets replaces the one below
/// ([`IstioOverlay::lay`]), except `defaultConfig`, which is merged field by field.
#[derive(Clone, Debug, Default)]
pub struct IstioOverlay {
    /// Istio's version.
    pub version: Option<IstioVersion>,
    /// `meshConfig.defaultConfig`, merged over the layers below.
    pub default_config: Option<ProxyConfig>,
    /// Helm `global.proxy.holdApplicationUntilProxyStarts`.
    pub hold_helm_global: Option<bool>,
    /// istiod `ENABLE_NATIVE_SIDECARS`.
    pub native_sidecars: Option<NativeSidecars>,
    /// Helm `global.proxy.lifecycle`.
    pub lifecycle: Option<Lifecycle>,
    /// Helm `global.proxy.startupProbe.enabled`.
    pub startup_probe: Option<bool>,
    /// Helm `global.proxy.autoInject`.
    pub auto_inject: Option<bool>,
    /// Helm `sidecarInjectorWebhook.enableNamespacesByDefault`.
    pub enable_namespaces_by_default: Option<bool>,
    /// Helm `sidecarInjectorWebhook.neverInjectSelector`.
    pub never_inject_selector: Option<Vec<LabelSelector>>,
    /// Helm `sidecarInjectorWebhook.alwaysInjectSelector`.
    pub always_inject_selector: Option<Vec<LabelSelector>>,
}

impl IstioOverlay {
    /// Lays this layer, read from `source`, over `istio`.
    pub fn lay(self, istio: &mut IstioSettings, source: &Source) {
        let sourced = |value| Sourced::new(value, source.clone());
        if let Some(version) = self.version {
            istio.version = Some(Sourced::new(version, source.clone()));
        }
        if let Some(config) = &self.default_config {
            istio.mesh_default_config = istio.mesh_default_config.overlay(config);
        }
        if let Some(hold) = self.hold_helm_global {
            istio.hold_helm_global = Some(sourced(hold));
        }
        if let Some(mode) = self.native_sidecars {
            istio.native_sidecars = Some(Sourced::new(mode, source.clone()));
        }
        if let Some(lifecycle) = self.lifecycle {
            istio.set_lifecycle(lifecycle, source.clone());
        }
        if let Some(on) = self.startup_probe {
            istio.startup_probe = Some(sourced(on));
        }
        if let Some(on) = self.auto_inject {
            istio.auto_inject = sourced(on);
        }
        if let Some(on) = self.enable_namespaces_by_default {
            istio.enable_namespaces_by_default = sourced(on);
        }
        if let Some(selectors) = self.never_inject_selector {
            istio.never_inject_selector = selectors;
        }
        if let Some(selectors) = self.always_inject_selector {
            istio.always_inject_selector = selectors;
        }
    }
}

#[cfg(test)]
impl IstioSettings {
    /// The mesh-wide `terminationDrainDuration`, when a layer sets it.
    pub(crate) fn termination_drain(&self) -> Option<Millis> {
        let drain = self.mesh_default_config.termination_drain_duration.as_ref();
        drain.map(|drain| drain.value)
    }
}

impl Default for IstioSettings {
    fn default() -> Self {
        IstioSettings {
            version: None,
            mesh_default_config: ProxyConfig::default(),
            hold_helm_global: None,
            native_sidecars: None,
            custom_lifecycle: None,
            startup_probe: None,
            auto_inject: Sourced::default_value(true),
            enable_namespaces_by_default: Sourced::default_value(false),
            never_inject_selector: Vec::new(),
            always_inject_selector: Vec::new(),
        }
    }
}

/// One layer of Istio `ProxyConfig`: only the fields the lifecycle depends on, each
/// present only when this layer sets it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProxyConfig {
    /// How long the agent keeps Envoy after SIGTERM (default 5 s).
    pub termination_drain_duration: Option<Sourced<Millis>>,
    /// Envoy's `--drain-time-s`: how long it keeps accepting while it drains (45 s).
    pub drain_duration: Option<Sourced<Millis>>,
    /// Whether the app waits for the proxy (`pilot-agent wait` postStart).
    pub hold_application_until_proxy_starts: Option<Sourced<bool>>,
    /// The agent's status port, where `/quitquitquit` is (15020).
    pub status_port: Option<Sourced<u16>>,
    /// `proxyMetadata`: environment variables of the agent, merged key by key.
    pub proxy_metadata: BTreeMap<String, Sourced<String>>,
}

/// The ProxyConfig fields [`ProxyConfig::from_json`] reads, by their JSON names; the
/// settings docs list these under `istio.defaultConfig` (other fields are accepted and
/// change nothing the model draws).
pub const READ_FIELDS: [&str; 5] = [
    TERMINATION_DRAIN_DURATION,
    DRAIN_DURATION,
    HOLD_APPLICATION_UNTIL_PROXY_STARTS,
    STATUS_PORT,
    PROXY_METADATA,
];
const TERMINATION_DRAIN_DURATION: &str = "terminationDrainDuration";
const DRAIN_DURATION: &str = "drainDuration";
const HOLD_APPLICATION_UNTIL_PROXY_STARTS: &str = "holdApplicationUntilProxyStarts";
const STATUS_PORT: &str = "statusPort";
const PROXY_METADATA: &str = "proxyMetadata";

/// A ProxyConfig value that cannot be used, with the field it is in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProxyConfigError {
    /// The field, empty when the text as a whole cannot be read.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl ProxyConfig {
    /// Reads a ProxyConfig given as YAML or JSON text (the annotation's format).
    pub fn parse(text: &str, source: &Source) -> Result<ProxyConfig, ProxyConfigError> {
        let roots = crate::load::parse::parse_documents(text, 1, &crate::load::Limits::default())
            .map_err(|error| ProxyConfigError {
            field: String::new(),
            message: error.message,
        })?;
        let json = roots
            .first()
            .map(crate::load::Node::to_json)
            .unwrap_or_default();
        ProxyConfig::from_json(&json, source)
    }

    /// Reads a ProxyConfig from a decoded mapping (mesh config's `defaultConfig`).
    pub fn from_json(
        json: &serde_json::Value,
        source: &Source,
    ) -> Result<ProxyConfig, ProxyConfigError> {
        use serde_json::Value;
        let map = match json {
            Value::Null => return Ok(ProxyConfig::default()),
            Value::Object(map) => map,
            other => {
                return Err(ProxyConfigError {
                    field: String::new(),
                    message: format!("expected a mapping, found {}", json_type(other)),
                });
            }
        };
        let mut config = ProxyConfig::default();
        // Each field's source points inside the annotation, at the field itself.
        let inside = |field: &str| match source {
            Source::Manifest(path) => Source::Manifest(path.embedded().key(field)),
            other => other.clone(),
        };
        for (field, value) in map {
            let source = &inside(field);
            let error = |message: String| ProxyConfigError {
                field: field.clone(),
                message,
            };
            match field.as_str() {
                TERMINATION_DRAIN_DURATION => {
                    config.termination_drain_duration = Some(Sourced::new(
                        duration(value).map_err(error)?,
                        source.clone(),
                    ));
                }
                DRAIN_DURATION => {
                    config.drain_duration = Some(Sourced::new(
                        duration(value).map_err(error)?,
                        source.clone(),
                    ))
                }
                HOLD_APPLICATION_UNTIL_PROXY_STARTS => {
                    let hold = match value {
                        Value::Bool(b) => *b,
                        other => {
                            return Err(error(format!(
                                "expected true or false, found {}",
                                json_type(other)
                            )));
                        }
                    };
                    config.hold_application_until_proxy_starts =
                        Some(Sourced::new(hold, source.clone()));
                }
                STATUS_PORT => {
                    let port = value
                        .as_u64()
                        .and_then(|p| u16::try_from(p).ok())
                        .ok_or_else(|| error(format!("expected a port number, found {value}")))?;
                    config.status_port = Some(Sourced::new(port, source.clone()));
                }
                PROXY_METADATA => {
                    let Value::Object(metadata) = value else {
                        return Err(error(format!(
                            "expected a mapping, found {}",
                            json_type(value)
                        )));
                    };
                    for (key, value) in metadata {
                        let text = match value {
                            Value::String(s) => s.clone(),
                            other => {
                                return Err(ProxyConfigError {
                                    field: format!("proxyMetadata.{key}"),
                                    message: format!(
                                        "expected a string, found {}",
                                        json_type(other)
                                    ),
                                });
                            }
                        };
                        let source = match source {
                            Source::Manifest(path) => Source::Manifest(path.key(key)),
                            other => other.clone(),
                        };
                        config
                            .proxy_metadata
                            .insert(key.clone(), Sourced::new(text, source));
                    }
                }
                _ => {}
            }
        }
        Ok(config)
    }

    /// This layer with `over` applied on top: fields `over` sets win, metadata merges.
    pub fn overlay(&self, over: &ProxyConfig) -> ProxyConfig {
        let mut merged = self.clone();
        if over.termination_drain_duration.is_some() {
            merged.termination_drain_duration = over.termination_drain_duration.clone();
        }
        if over.drain_duration.is_some() {
            merged.drain_duration = over.drain_duration.clone();
        }
        if over.hold_application_until_proxy_starts.is_some() {
            merged.hold_application_until_proxy_starts =
                over.hold_application_until_proxy_starts.clone();
        }
        if over.status_port.is_some() {
            merged.status_port = over.status_port.clone();
        }
        for (key, value) in &over.proxy_metadata {
            merged.proxy_metadata.insert(key.clone(), value.clone());
        }
        merged
    }
}

/// A protobuf Duration in JSON/YAML: `"5s"`, `"1m"`, `"0.5s"`.
fn duration(value: &serde_json::Value) -> Result<Millis, String> {
    let text = value
        .as_str()
        .ok_or_else(|| format!("expected a duration such as \"5s\", found {value}"))?;
    let parsed = go_duration(text).map_err(|error| match error {
        GoDurationError::Syntax => format!("`{text}` is not a duration such as \"5s\""),
        GoDurationError::TooLong => {
            format!("`{text}` is longer than the longest duration Go can hold (2562047h47m16s)")
        }
    })?;
    if parsed < Millis::ZERO {
        return Err(format!("`{text}` is negative"));
    }
    Ok(parsed)
}

fn json_type(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fields the settings docs list are the ones the decoder reads: each is
    /// checked, so a value of the wrong type is an error at that field.
    #[test]
    fn every_documented_field_is_read() {
        for field in READ_FIELDS {
            let json = serde_json::json!({ field: [] });
            let error = ProxyConfig::from_json(&json, &Source::Default).unwrap_err();
            assert_eq!(error.field, field);
        }
    }

    #[test]
    fn reads_yaml_and_json_annotations() {
        let yaml = ProxyConfig::parse(
            "holdApplicationUntilProxyStarts: true\nterminationDrainDuration: 25s\n",
            &Source::Default,
        )
        .unwrap();
        assert!(yaml.hold_application_until_proxy_starts.unwrap().value);
        assert_eq!(
            yaml.termination_drain_duration.unwrap().value,
            Millis::secs(25)
        );
        let json = ProxyConfig::parse(
            r#"{"proxyMetadata":{"EXIT_ON_ZERO_ACTIVE_CONNECTIONS":"true"}}"#,
            &Source::Default,
        )
        .unwrap();
        assert_eq!(
            json.proxy_metadata["EXIT_ON_ZERO_ACTIVE_CONNECTIONS"].value,
            "true"
        );
    }

    #[test]
    fn rejects_wrong_types_with_the_field() {
        let error =
            ProxyConfig::parse("terminationDrainDuration: 25\n", &Source::Default).unwrap_err();
        assert_eq!(error.field, "terminationDrainDuration");
        let error =
            ProxyConfig::parse("holdApplicationUntilProxyStarts: maybe\n", &Source::Default)
                .unwrap_err();
        assert_eq!(error.field, "holdApplicationUntilProxyStarts");
    }

    #[test]
    fn overlay_keeps_lower_fields_and_merges_metadata() {
        let lower = ProxyConfig::parse(
            "terminationDrainDuration: 20s\nproxyMetadata: {A: '1', B: '1'}\n",
            &Source::Default,
        )
        .unwrap();
        let upper = ProxyConfig::parse("proxyMetadata: {B: '2'}\n", &Source::Default).unwrap();
        let merged = lower.overlay(&upper);
        assert_eq!(
            merged.termination_drain_duration.unwrap().value,
            Millis::secs(20)
        );
        assert_eq!(merged.proxy_metadata["A"].value, "1");
        assert_eq!(merged.proxy_metadata["B"].value, "2");
    }
}
