//! Reading the cluster's mesh configuration: an Istio `istio` ConfigMap (`data.mesh`),
//! the injector's ConfigMap (`data.values`), an IstioOperator, Helm values (Istio's or
//! Linkerd's), or a bare MeshConfig. The same reader takes these objects when they
//! appear among the linted inputs.
//!
//! Each part is decoded by type: a value of the wrong type is an error at the value.
//! MeshConfig and its `defaultConfig` (ProxyConfig) are protobuf messages with a fixed
//! set of fields, so a field they do not have (`terminationDrainDurationn`) is an error
//! at the key: istiod itself ignores unknown fields without a word
//! (istio/istio `pkg/util/protomarshal/protomarshal.go`, `ApplyJSON` retries with
//! `AllowUnknownFields`), so a misspelt setting silently has no effect. Helm values are
//! open: charts take keys the linter does not read.

use std::fmt;
use std::path::Path;

use k8s_openapi::api::core::v1::Lifecycle;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::file::{SettingsFile, WholeSeconds, with_path};
use super::istio::{NativeSidecars, ProxyConfig, ProxyConfigError};
use super::version::ReleaseTag;
use super::{IstioVersion, LinkerdVersion, Settings, Source, Sourced};
use crate::load::de::{Reading, from_node};
use crate::load::{EntryPart, InputError, JsonPath, Node, SourceText};
use crate::time::{Millis, parse_go_duration};

/// Applies the mesh config file at `path`; every problem is an error at its node.
pub fn apply(path: &Path, settings: &mut Settings, source: Source) -> Result<(), Vec<InputError>> {
    let file = SettingsFile::read(path).map_err(|e| vec![e])?;
    apply_file(&file, settings, source)
}

/// Applies an already read mesh config file; every problem is an error at its node.
pub fn apply_file(
    file: &SettingsFile,
    settings: &mut Settings,
    source: Source,
) -> Result<(), Vec<InputError>> {
    let mut errors = Vec::new();
    let mut recognised = false;
    for (root, text) in &file.documents {
        let mut reader = Reader {
            text,
            source: source.clone(),
            errors: &mut errors,
        };
        recognised |= reader.document(root, settings);
    }
    if !recognised && errors.is_empty() {
        errors.push(InputError::whole(
            file.name.clone(),
            "not a mesh configuration: expected an `istio` ConfigMap (data.mesh or data.values), an IstioOperator, Helm values or a MeshConfig",
        ));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Applies an object of the linted input, or one read from the cluster, when it is mesh
/// configuration (an `istio` ConfigMap, Linkerd's `linkerd-config`, an IstioOperator),
/// and returns what is wrong in it, each problem at its node of `text`, exactly as
/// `--mesh-config` would report it.
pub fn apply_input_object(
    root: &Node,
    text: &SourceText,
    settings: &mut Settings,
    source: Source,
) -> Vec<InputError> {
    let kind = root.get("kind").and_then(Node::as_str);
    let is_mesh_configmap = kind == Some("ConfigMap")
        && root
            .at(&JsonPath::parse("metadata.name"))
            .and_then(Node::as_str)
            .is_some_and(|name| {
                name == "istio"
                    || name.starts_with("istio-") && name != "istio-ca-root-cert"
                    || name == "linkerd-config"
            });
    let mut errors = Vec::new();
    if is_mesh_configmap || kind == Some("IstioOperator") {
        let mut reader = Reader {
            text,
            source,
            errors: &mut errors,
        };
        reader.document(root, settings);
    }
    errors
}

/// The fields of Istio's `ProxyConfig` (mesh/v1alpha1/proxy.proto in istio/api, every
/// field of 1.3 to 1.29), by their proto names; JSON also takes them in lower camel
/// case (`termination_drain_duration` or `terminationDrainDuration`), as istiod's jsonpb
/// reader does.
const PROXY_CONFIG_FIELDS: [&str; 41] = [
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
const MESH_CONFIG_FIELDS: [&str; 65] = [
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
fn json_name(proto: &str) -> String {
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
fn known_field(key: &str, fields: &[&str]) -> Option<String> {
    fields
        .iter()
        .find(|proto| **proto == key || json_name(proto) == key)
        .map(|proto| json_name(proto))
}

/// A key of a protobuf message read as istiod's jsonpb reader reads it: one of the
/// message's fields, by proto or JSON name, given back by its JSON name. Any other key
/// is an error at the key, listing the fields' JSON names.
struct FieldOf {
    message: &'static str,
    fields: &'static [&'static str],
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
fn edit_distance(a: &str, b: &str) -> usize {
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
struct MeshConfigFields {
    default_config: Option<ProxyConfigFields>,
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
struct IstioOperatorSpec {
    tag: Option<ReleaseTag<IstioVersion>>,
}

/// Helm values of Istio's charts (or an IstioOperator's `spec.values`) and of Linkerd's
/// control-plane chart: the keys the linter reads, each by type; other keys are the
/// chart's business.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct HelmValues {
    global: Option<GlobalValues>,
    pilot: Option<PilotValues>,
    sidecar_injector_webhook: Option<InjectorValues>,
    linkerd_version: Option<ReleaseTag<LinkerdVersion>>,
    proxy: Option<LinkerdProxyValues>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GlobalValues {
    proxy: Option<IstioProxyValues>,
    tag: Option<ReleaseTag<IstioVersion>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct IstioProxyValues {
    hold_application_until_proxy_starts: Option<bool>,
    lifecycle: Option<Lifecycle>,
    startup_probe: Option<Enabled>,
    auto_inject: Option<AutoInject>,
}

#[derive(Debug, Default, Deserialize)]
struct Enabled {
    enabled: Option<bool>,
}

/// `global.proxy.autoInject`: the injection policy.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
enum AutoInject {
    Enabled,
    Disabled,
}

#[derive(Debug, Default, Deserialize)]
struct PilotValues {
    env: Option<PilotEnv>,
}

#[derive(Debug, Default, Deserialize)]
struct PilotEnv {
    /// An environment variable: Helm writes any value as a string.
    #[serde(rename = "ENABLE_NATIVE_SIDECARS")]
    enable_native_sidecars: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct InjectorValues {
    enable_namespaces_by_default: Option<bool>,
    never_inject_selector: Option<Vec<LabelSelector>>,
    always_inject_selector: Option<Vec<LabelSelector>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LinkerdProxyValues {
    r#await: Option<bool>,
    native_sidecar: Option<bool>,
    enable_shutdown_endpoint: Option<bool>,
    /// The chart's default is `""`: unset.
    shutdown_grace_period: Option<String>,
    wait_before_exit_seconds: Option<WholeSeconds>,
}

struct Reader<'a> {
    /// The text of the document being read, for values read as written and for errors.
    text: &'a SourceText,
    source: Source,
    errors: &'a mut Vec<InputError>,
}

impl Reader<'_> {
    fn error_at(&mut self, pos: crate::load::Pos, message: String) {
        self.errors.push(InputError {
            file: self.text.file.clone(),
            pos: Some(pos),
            message,
            related: None,
            source: Some(self.text.clone()),
        });
    }

    fn sourced<T>(&self, value: T) -> Sourced<T> {
        Sourced::new(value, self.source.clone())
    }

    /// Applies one document; false when it is no kind of mesh configuration.
    fn document(&mut self, root: &Node, settings: &mut Settings) -> bool {
        let at = |path: &str| root.at(&JsonPath::parse(path));
        match root.get("kind").and_then(Node::as_str) {
            Some("ConfigMap") => {
                let mut found = false;
                for (key, read) in [
                    (
                        "mesh",
                        Self::mesh_config as fn(&mut Self, &Node, Place, &mut Settings),
                    ),
                    ("values", Self::values),
                ] {
                    if let Some(node) = root.at(&JsonPath::parse("data").key(key)) {
                        found = true;
                        self.embedded(root, JsonPath::parse("data").key(key), node, settings, read);
                    }
                }
                found
            }
            Some("IstioOperator") => {
                if let Some(mesh) = at("spec.meshConfig") {
                    self.mesh_config(mesh, Place::direct(root, "spec.meshConfig"), settings);
                }
                if let Some(values) = at("spec.values") {
                    self.values(values, Place::direct(root, "spec.values"), settings);
                }
                if let Some(spec) = at("spec")
                    && let Some(spec) =
                        self.decode::<IstioOperatorSpec>(spec, Place::direct(root, "spec"))
                    && let Some(ReleaseTag(Some(version))) = spec.tag
                {
                    settings.istio.version = Some(self.sourced(version));
                }
                true
            }
            Some(_) => false,
            None if root.get("defaultConfig").is_some() => {
                self.mesh_config(root, Place::direct(root, ""), settings);
                true
            }
            None if [
                "meshConfig",
                "global",
                "pilot",
                "sidecarInjectorWebhook",
                "proxy",
                "linkerdVersion",
            ]
            .iter()
            .any(|key| root.get(key).is_some()) =>
            {
                self.values(root, Place::direct(root, ""), settings);
                if let Some(mesh) = root.get("meshConfig") {
                    self.mesh_config(mesh, Place::direct(root, "meshConfig"), settings);
                }
                true
            }
            None => false,
        }
    }

    /// A ConfigMap value that holds YAML or JSON; positions inside it are mapped back to
    /// the file where the scalar's style allows (a literal block).
    fn embedded(
        &mut self,
        root: &Node,
        path: JsonPath,
        node: &Node,
        settings: &mut Settings,
        apply: fn(&mut Self, &Node, Place, &mut Settings),
    ) {
        let Some(text) = node.as_str() else {
            self.error_at(
                node.span.start,
                format!("{path}: expected a string holding YAML or JSON"),
            );
            return;
        };
        let inner = SourceText {
            file: self.text.file.clone(),
            first_line: 1,
            text: text.into(),
        };
        match crate::load::parse::parse_documents(text, 1, &crate::load::Limits::default()) {
            Ok(roots) => {
                if let Some(embedded) = roots.first() {
                    let outer = self.text.clone();
                    let place = Place {
                        root,
                        prefix: path.embedded(),
                        text: Some(inner),
                        outer: Some(outer),
                    };
                    apply(self, embedded, place, settings);
                }
            }
            Err(error) => self.error_at(
                node.span.start,
                format!(
                    "{path}: cannot read the embedded configuration: {}",
                    error.message
                ),
            ),
        }
    }

    /// Decodes `node` as a `T`; an error is recorded at the key or value at fault.
    fn decode<'de, T: Deserialize<'de>>(&mut self, node: &'de Node, place: Place) -> Option<T> {
        let text = place.text.as_ref().unwrap_or(self.text);
        match from_node(node, Reading::Settings(text)) {
            Ok(value) => Some(value),
            Err((path, error)) => {
                let path = JsonPath::from_serde(&path);
                let part = if error.at_key {
                    EntryPart::Key
                } else {
                    EntryPart::Value
                };
                let pos = place.locate(&path, part).unwrap_or(node.span.start);
                let message = with_path(&place.prefix.join(&path).to_string(), &error.message);
                self.error_at(pos, message);
                None
            }
        }
    }

    /// MeshConfig: its field names are checked; `defaultConfig` is the mesh-wide
    /// ProxyConfig.
    fn mesh_config(&mut self, mesh: &Node, place: Place, settings: &mut Settings) {
        let Some(fields) = self.decode::<MeshConfigFields>(mesh, place.clone()) else {
            return;
        };
        let Some(default_config) = fields.default_config else {
            return;
        };
        match default_config.read(&self.source) {
            Ok(config) => {
                settings.istio.mesh_default_config =
                    settings.istio.mesh_default_config.overlay(&config);
            }
            Err(error) => {
                let field = JsonPath::parse("defaultConfig").join(&JsonPath::parse(&error.field));
                let pos = place
                    .locate(&field, EntryPart::Value)
                    .unwrap_or(mesh.span.start);
                let message = with_path(&place.prefix.join(&field).to_string(), &error.message);
                self.error_at(pos, message);
            }
        }
    }

    /// Helm values of Istio's charts (or `spec.values` of an IstioOperator), and the
    /// `proxy` values of Linkerd's control-plane chart.
    fn values(&mut self, node: &Node, place: Place, settings: &mut Settings) {
        let Some(values) = self.decode::<HelmValues>(node, place.clone()) else {
            return;
        };
        let istio = &mut settings.istio;
        let source = self.source.clone();
        if let Some(global) = values.global {
            if let Some(proxy) = global.proxy {
                if let Some(hold) = proxy.hold_application_until_proxy_starts {
                    istio.hold_helm_global = Some(Sourced::new(hold, source.clone()));
                }
                if let Some(lifecycle) = proxy.lifecycle {
                    istio.set_lifecycle(lifecycle, source.clone());
                }
                if let Some(on) = proxy.startup_probe.and_then(|probe| probe.enabled) {
                    istio.startup_probe = Some(Sourced::new(on, source.clone()));
                }
                if let Some(policy) = proxy.auto_inject {
                    istio.auto_inject =
                        Sourced::new(matches!(policy, AutoInject::Enabled), source.clone());
                }
            }
            if let Some(ReleaseTag(Some(version))) = global.tag {
                istio.version = Some(Sourced::new(version, source.clone()));
            }
        }
        if let Some(injector) = values.sidecar_injector_webhook {
            if let Some(on) = injector.enable_namespaces_by_default {
                istio.enable_namespaces_by_default = Sourced::new(on, source.clone());
            }
            if let Some(selectors) = injector.never_inject_selector {
                istio.never_inject_selector = selectors;
            }
            if let Some(selectors) = injector.always_inject_selector {
                istio.always_inject_selector = selectors;
            }
        }
        if let Some(mode) = values
            .pilot
            .and_then(|pilot| pilot.env)
            .and_then(|env| env.enable_native_sidecars)
        {
            let mode = NativeSidecars::from_env(&mode);
            istio.native_sidecars = Some(Sourced::new(mode, source.clone()));
        }
        self.linkerd_values(values.linkerd_version, values.proxy, node, &place, settings);
    }

    fn linkerd_values(
        &mut self,
        version: Option<ReleaseTag<LinkerdVersion>>,
        proxy: Option<LinkerdProxyValues>,
        node: &Node,
        place: &Place,
        settings: &mut Settings,
    ) {
        let linkerd = &mut settings.linkerd;
        let source = self.source.clone();
        if let Some(ReleaseTag(Some(version))) = version {
            linkerd.version = Some(Sourced::new(version, source.clone()));
        }
        let Some(proxy) = proxy else { return };
        if let Some(on) = proxy.r#await {
            linkerd.proxy_await = Some(Sourced::new(on, source.clone()));
        }
        if let Some(on) = proxy.native_sidecar {
            linkerd.native_sidecar = Some(Sourced::new(on, source.clone()));
        }
        if let Some(on) = proxy.enable_shutdown_endpoint {
            linkerd.shutdown_endpoint = Some(Sourced::new(on, source.clone()));
        }
        if let Some(WholeSeconds(seconds)) = proxy.wait_before_exit_seconds {
            linkerd.wait_before_exit = Some(Sourced::new(Millis::secs(seconds), source.clone()));
        }
        if let Some(text) = proxy.shutdown_grace_period.filter(|t| !t.is_empty()) {
            match parse_go_duration(&text).filter(|d| *d >= Millis::ZERO) {
                Some(duration) => {
                    linkerd.shutdown_grace_period = Some(Sourced::new(duration, source.clone()))
                }
                None => {
                    let path = JsonPath::parse("proxy.shutdownGracePeriod");
                    let pos = place
                        .locate(&path, EntryPart::Value)
                        .unwrap_or(node.span.start);
                    let message = with_path(
                        &place.prefix.join(&path).to_string(),
                        &format!("`{text}` is not a duration such as 5s or 1m30s"),
                    );
                    self.error_at(pos, message);
                }
            }
        }
    }
}

/// Where a part being read lies: under `prefix` of the document's `root`, in the text
/// of the document or of a string embedded in it (a ConfigMap's `data.mesh`).
#[derive(Clone)]
struct Place<'r> {
    root: &'r Node,
    prefix: JsonPath,
    /// The embedded text, when the part is inside a string.
    text: Option<SourceText>,
    /// The document's text, to map positions inside a string back to the file.
    outer: Option<SourceText>,
}

impl<'r> Place<'r> {
    fn direct(root: &'r Node, prefix: &str) -> Place<'r> {
        Place {
            root,
            prefix: JsonPath::parse(prefix),
            text: None,
            outer: None,
        }
    }

    /// The position in the file of `path` below the part.
    fn locate(&self, path: &JsonPath, part: EntryPart) -> Option<crate::load::Pos> {
        let located = self
            .root
            .locate_in(&self.prefix.join(path), part, self.outer.as_ref());
        Some(located.span.start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn read(text: &str) -> Settings {
        let file = SettingsFile::parse(Arc::from("mesh.yaml"), text.to_owned()).unwrap();
        let mut settings = Settings::default();
        let mut errors = Vec::new();
        for (root, source) in &file.documents {
            let mut reader = Reader {
                text: source,
                source: Source::MeshConfig(Arc::from("mesh.yaml")),
                errors: &mut errors,
            };
            assert!(reader.document(root, &mut settings), "recognised");
        }
        assert!(errors.is_empty(), "{errors:?}");
        settings
    }

    #[test]
    fn istio_configmap() {
        let settings = read(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: |-\n    defaultConfig:\n      holdApplicationUntilProxyStarts: true\n      terminationDrainDuration: 30s\n",
        );
        let config = &settings.istio.mesh_default_config;
        assert!(
            config
                .hold_application_until_proxy_starts
                .as_ref()
                .unwrap()
                .value
        );
        assert_eq!(
            config.termination_drain_duration.as_ref().unwrap().value,
            Millis::secs(30)
        );
    }

    #[test]
    fn istio_operator() {
        let settings = read(
            "apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nspec:\n  tag: 1.24.2\n  meshConfig:\n    defaultConfig:\n      proxyMetadata: {EXIT_ON_ZERO_ACTIVE_CONNECTIONS: 'true'}\n  values:\n    pilot:\n      env: {ENABLE_NATIVE_SIDECARS: 'true'}\n    global:\n      proxy: {holdApplicationUntilProxyStarts: true}\n",
        );
        assert_eq!(settings.istio.version.unwrap().value, IstioVersion::new(24));
        assert_eq!(
            settings.istio.native_sidecars.unwrap().value,
            NativeSidecars::On
        );
        assert!(settings.istio.hold_helm_global.unwrap().value);
        assert!(
            settings
                .istio
                .mesh_default_config
                .proxy_metadata
                .contains_key("EXIT_ON_ZERO_ACTIVE_CONNECTIONS")
        );
    }

    #[test]
    fn helm_values_of_istio_and_linkerd() {
        let settings = read(
            "meshConfig:\n  defaultConfig:\n    terminationDrainDuration: 12s\nglobal:\n  proxy:\n    lifecycle:\n      preStop:\n        exec: {command: [sleep, '15']}\n",
        );
        assert!(settings.istio.custom_lifecycle.is_some());
        let settings = read(
            "linkerdVersion: version-2.15\nproxy:\n  await: false\n  enableShutdownEndpoint: true\n",
        );
        assert!(!settings.linkerd.proxy_await.unwrap().value);
        assert_eq!(
            settings.linkerd.version.unwrap().value,
            LinkerdVersion::Stable { minor: 15 }
        );
    }

    fn problems(text: &str) -> Vec<InputError> {
        let file = SettingsFile::parse(Arc::from("mesh.yaml"), text.to_owned()).unwrap();
        let mut settings = Settings::default();
        let mut errors = Vec::new();
        for (root, source) in &file.documents {
            let mut reader = Reader {
                text: source,
                source: Source::MeshConfig(Arc::from("mesh.yaml")),
                errors: &mut errors,
            };
            reader.document(root, &mut settings);
        }
        errors
    }

    #[test]
    fn unknown_mesh_config_fields_are_errors_at_the_key() {
        // Inside `data.mesh`, a literal block: the position is the key's in the file.
        let errors = problems(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio}\ndata:\n  mesh: |-\n    defaultConfig:\n      terminationDrainDurationn: 30s\n",
        );
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].pos, Some(crate::load::Pos { line: 7, column: 7 }));
        assert_eq!(
            errors[0].message,
            "data.mesh → defaultConfig.terminationDrainDurationn: unknown ProxyConfig field `terminationDrainDurationn` (istiod ignores it, so it has no effect); did you mean `terminationDrainDuration`?"
        );
        let errors = problems("meshConfig:\n  enableTracingg: true\n");
        assert_eq!(errors[0].pos, Some(crate::load::Pos { line: 2, column: 3 }));
        assert!(
            errors[0]
                .message
                .contains("unknown MeshConfig field `enableTracingg`")
        );
    }

    #[test]
    fn proto_names_are_fields_too() {
        let settings = read("meshConfig:\n  default_config:\n    termination_drain_duration: 7s\n");
        assert_eq!(
            settings
                .istio
                .mesh_default_config
                .termination_drain_duration
                .unwrap()
                .value,
            Millis::secs(7)
        );
    }

    /// The first error is at `line:column` and starts with `message`.
    fn assert_error(errors: &[InputError], line: u32, column: u32, message: &str) {
        assert_eq!(errors[0].pos, Some(crate::load::Pos { line, column }));
        assert!(errors[0].message.starts_with(message), "{errors:?}");
    }

    #[test]
    fn wrong_types_are_errors_at_the_value() {
        let errors =
            problems("global:\n  proxy:\n    holdApplicationUntilProxyStarts: yes please\n");
        let message = "global.proxy.holdApplicationUntilProxyStarts: invalid type";
        assert_error(&errors, 3, 38, message);
        let errors = problems("meshConfig:\n  defaultConfig:\n    terminationDrainDuration: 5\n");
        assert_error(
            &errors,
            3,
            31,
            "meshConfig.defaultConfig.terminationDrainDuration:",
        );
    }

    #[test]
    fn tags_are_read_as_written() {
        // An unquoted 1.20 is the YAML number 1.2.
        let settings = read("global:\n  tag: 1.20\n");
        assert_eq!(settings.istio.version.unwrap().value, IstioVersion::new(20));
        // A tag that is no version says nothing.
        let settings = read("global:\n  tag: latest\n");
        assert!(settings.istio.version.is_none());
        // Older than the model knows: refused; newer: taken, and checked as the newest.
        let errors = problems("global:\n  tag: 1.2.1\n");
        assert!(errors[0].message.contains("(1.3 to 1.29)"), "{errors:?}");
        let settings = read("global:\n  tag: 1.30.1\n");
        assert_eq!(settings.istio.version.unwrap().value, IstioVersion::new(30));
    }
}
