//! The fields of the mesh configuration: ProxyConfig's and MeshConfig's names (their
//! proto names too) for checking a key, with the nearest known one for a misspelt
//! key, and the Helm values and IstioOperator parts the reader takes.

use std::fmt;

use k8s_openapi::api::core::v1::Lifecycle;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};

use crate::settings::file::WholeSeconds;
use crate::settings::istio::{ProxyConfig, ProxyConfigError};
use crate::settings::version::read::ReleaseTag;
use crate::settings::{IstioVersion, LinkerdVersion, Source};

/// The fields of Istio's `ProxyConfig` (mesh/v1alpha1/proxy.proto in istio/api, every
/// field of 1.3 to 1.29), by their proto names; JSON also takes them in lower camel
/// case (`termination_drain_duration` or `terminationDrainDuration`), as istiod's jsonpb
/// reader does.
pub(super) const PROXY_CONFIG_FIELDS: [&str; 41] = [
    "availability_zone",
    "binary_path",
    "ca_certificates_pem",
    "concurrency",
    "config_path",
    "connect_timeout",
    "control_plane_auth_policy",
    "custom_config_file",
    "discovery_address",
    "discovery_refresh_delay",
    "drain_duration",
    "envoy_access_log_service",
    "envoy_metrics_service",
    "envoy_metrics_service_address",
    "extra_stat_tags",
    "file_flush_interval",
    "file_flush_min_size_kb",
    "gateway_topology",
    "hold_application_until_proxy_starts",
    "image",
    "interception_mode",
    "mesh_id",
    "parent_shutdown_duration",
    "private_key_provider",
    "proxy_admin_port",
    "proxy_bootstrap_template_path",
    "proxy_headers",
    "proxy_metadata",
    "proxy_stats_matcher",
    "readiness_probe",
    "runtime_values",
    "sds",
    "service_cluster",
    "stat_name_length",
    "stats_compression",
    "statsd_udp_address",
    "status_port",
    "termination_drain_duration",
    "tracing",
    "tracing_service_name",
    "zipkin_address",
];

/// The fields of Istio's `MeshConfig` (mesh/v1alpha1/config.proto in istio/api, every
/// field of 1.3 to 1.29), by their proto names.
pub(super) const MESH_CONFIG_FIELDS: [&str; 65] = [
    "access_log_encoding",
    "access_log_file",
    "access_log_format",
    "auth_policy",
    "ca",
    "ca_certificates",
    "certificates",
    "config_sources",
    "connect_timeout",
    "default_config",
    "default_destination_rule_export_to",
    "default_http_retry_policy",
    "default_providers",
    "default_service_export_to",
    "default_virtual_service_export_to",
    "disable_envoy_listener_log",
    "disable_mixer_http_reports",
    "disable_policy_checks",
    "disable_report_batch",
    "discovery_selectors",
    "dns_refresh_rate",
    "enable_auto_mtls",
    "enable_client_side_policy_check",
    "enable_envoy_access_log_service",
    "enable_prometheus_merge",
    "enable_sds_token_mount",
    "enable_tracing",
    "extension_providers",
    "h2_upgrade_policy",
    "hbone_idle_timeout",
    "inbound_cluster_stat_name",
    "inbound_traffic_policy",
    "ingress_class",
    "ingress_controller_mode",
    "ingress_selector",
    "ingress_service",
    "locality_lb_setting",
    "mesh_mTLS",
    "mixer_address",
    "mixer_check_server",
    "mixer_report_server",
    "outbound_cluster_stat_name",
    "outbound_traffic_policy",
    "path_normalization",
    "policy_check_fail_open",
    "protocol_detection_timeout",
    "proxy_http_port",
    "proxy_inbound_listen_port",
    "proxy_listen_port",
    "rds_refresh_delay",
    "report_batch_max_entries",
    "report_batch_max_time",
    "root_namespace",
    "sds_refresh_delay",
    "sds_uds_path",
    "sds_use_k8s_sa_jwt",
    "service_scope_configs",
    "service_settings",
    "sidecar_to_telemetry_session_affinity",
    "tcp_keepalive",
    "thrift_config",
    "tls_defaults",
    "trust_domain",
    "trust_domain_aliases",
    "verify_certificate_at_client",
];

/// protoc's JSON name of a proto field: `termination_drain_duration` is
/// `terminationDrainDuration`, `mesh_mTLS` is `meshMTLS`.
pub(super) fn json_name(proto: &str) -> String {
    let mut name = String::with_capacity(proto.len());
    let mut upper = false;
    for c in proto.chars() {
        match c {
            '_' => upper = true,
            c if upper => {
                name.extend(c.to_uppercase());
                upper = false;
            }
            c => name.push(c),
        }
    }
    name
}

/// The JSON name of the field `key` names, when `fields` has it.
pub(super) fn known_field(key: &str, fields: &[&str]) -> Option<String> {
    fields
        .iter()
        .find(|proto| **proto == key || json_name(proto) == key)
        .map(|proto| json_name(proto))
}

/// A key of a protobuf message read as istiod's jsonpb reader reads it: one of the
/// message's fields, by proto or JSON name, given back by its JSON name. Any other key
/// is an error at the key, listing the fields' JSON names.
pub(super) struct FieldOf {
    pub(super) message: &'static str,
    pub(super) fields: &'static [&'static str],
}

impl<'de> de::DeserializeSeed<'de> for FieldOf {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for FieldOf {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a {} field", self.message)
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<String, E> {
        known_field(key, self.fields).ok_or_else(|| {
            let names: Vec<String> = self.fields.iter().map(|proto| json_name(proto)).collect();
            let hint = match names.iter().min_by_key(|name| edit_distance(key, name)) {
                Some(name) if edit_distance(key, name) <= 2 => format!("did you mean `{name}`?"),
                _ => format!("the fields are: {}", names.join(", ")),
            };
            E::custom(format_args!(
                "unknown {} field `{key}` (istiod ignores it, so it has no effect); {hint}",
                self.message
            ))
        })
    }
}

/// Levenshtein distance, for suggesting the field a misspelt key meant.
pub(super) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(above + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

/// A `ProxyConfig` (`defaultConfig`) whose field names are checked, its values kept by
/// JSON name for [`ProxyConfig::from_json`], which reads the fields the model uses.
#[derive(Debug, Default)]
pub struct ProxyConfigFields(serde_json::Map<String, serde_json::Value>);

impl ProxyConfigFields {
    /// The ProxyConfig layer these fields set, or the field at fault.
    pub fn read(self, source: &Source) -> Result<ProxyConfig, ProxyConfigError> {
        ProxyConfig::from_json(&serde_json::Value::Object(self.0), source)
    }
}

impl<'de> Deserialize<'de> for ProxyConfigFields {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = ProxyConfigFields;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a ProxyConfig mapping")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut fields = serde_json::Map::new();
                let field = || FieldOf {
                    message: "ProxyConfig",
                    fields: &PROXY_CONFIG_FIELDS,
                };
                while let Some(name) = map.next_key_seed(field())? {
                    fields.insert(name, map.next_value()?);
                }
                Ok(ProxyConfigFields(fields))
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

/// A `MeshConfig` whose field names are checked; only `defaultConfig` is read.
#[derive(Debug, Default)]
pub(super) struct MeshConfigFields {
    pub(super) default_config: Option<ProxyConfigFields>,
}

impl<'de> Deserialize<'de> for MeshConfigFields {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = MeshConfigFields;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a MeshConfig mapping")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut mesh = MeshConfigFields::default();
                let field = || FieldOf {
                    message: "MeshConfig",
                    fields: &MESH_CONFIG_FIELDS,
                };
                while let Some(name) = map.next_key_seed(field())? {
                    if name == "defaultConfig" {
                        mesh.default_config = map.next_value()?;
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(mesh)
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

/// An IstioOperator's `spec`, as far as the mesh's lifecycle goes.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct IstioOperatorSpec {
    pub(super) tag: Option<ReleaseTag<IstioVersion>>,
}

/// Helm values of Istio's charts (or an IstioOperator's `spec.values`) and of Linkerd's
/// control-plane chart: the keys the linter reads, each by type; other keys are the
/// chart's business.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct HelmValues {
    pub(super) global: Option<GlobalValues>,
    pub(super) pilot: Option<PilotValues>,
    pub(super) sidecar_injector_webhook: Option<InjectorValues>,
    pub(super) linkerd_version: Option<ReleaseTag<LinkerdVersion>>,
    pub(super) proxy: Option<LinkerdProxyValues>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct GlobalValues {
    pub(super) proxy: Option<IstioProxyValues>,
    pub(super) tag: Option<ReleaseTag<IstioVersion>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct IstioProxyValues {
    pub(super) hold_application_until_proxy_starts: Option<bool>,
    pub(super) lifecycle: Option<Lifecycle>,
    pub(super) startup_probe: Option<Enabled>,
    pub(super) auto_inject: Option<AutoInject>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct Enabled {
    pub(super) enabled: Option<bool>,
}

/// `global.proxy.autoInject`: the injection policy.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum AutoInject {
    Enabled,
    Disabled,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct PilotValues {
    pub(super) env: Option<PilotEnv>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct PilotEnv {
    /// An environment variable: Helm writes any value as a string.
    #[serde(rename = "ENABLE_NATIVE_SIDECARS")]
    pub(super) enable_native_sidecars: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct InjectorValues {
    pub(super) enable_namespaces_by_default: Option<bool>,
    pub(super) never_inject_selector: Option<Vec<LabelSelector>>,
    pub(super) always_inject_selector: Option<Vec<LabelSelector>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct LinkerdProxyValues {
    pub(super) r#await: Option<bool>,
    pub(super) native_sidecar: Option<bool>,
    pub(super) enable_shutdown_endpoint: Option<bool>,
    /// The chart's default is `""`: unset.
    pub(super) shutdown_grace_period: Option<String>,
    pub(super) wait_before_exit_seconds: Option<WholeSeconds>,
}
