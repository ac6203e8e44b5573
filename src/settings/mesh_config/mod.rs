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

mod fields;

pub use fields::ProxyConfigFields;
use fields::*;

use std::path::Path;

use serde::Deserialize;

use super::file::{SettingsFile, WholeSeconds, with_path};
use super::istio::{IstioOverlay, NativeSidecars};
use super::linkerd::LinkerdOverlay;
use super::version::read::ReleaseTag;
use super::{LinkerdVersion, Settings, Source, Sourced};
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
        let inner = SourceText::new(self.text.file.clone(), 1, text.into());
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
            Ok(config) => IstioOverlay {
                default_config: Some(config),
                ..IstioOverlay::default()
            }
            .lay(&mut settings.istio, &self.source),
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
        let global = values.global.unwrap_or_default();
        let proxy = global.proxy.unwrap_or_default();
        let injector = values.sidecar_injector_webhook.unwrap_or_default();
        IstioOverlay {
            version: global.tag.and_then(|ReleaseTag(version)| version),
            hold_helm_global: proxy.hold_application_until_proxy_starts,
            native_sidecars: values
                .pilot
                .and_then(|pilot| pilot.env)
                .and_then(|env| env.enable_native_sidecars)
                .map(|mode| NativeSidecars::from_env(&mode)),
            lifecycle: proxy.lifecycle,
            startup_probe: proxy.startup_probe.and_then(|probe| probe.enabled),
            auto_inject: proxy
                .auto_inject
                .map(|policy| matches!(policy, AutoInject::Enabled)),
            enable_namespaces_by_default: injector.enable_namespaces_by_default,
            never_inject_selector: injector.never_inject_selector,
            always_inject_selector: injector.always_inject_selector,
            default_config: None,
        }
        .lay(&mut settings.istio, &self.source);
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
        let proxy = proxy.unwrap_or_default();
        let mut overlay = LinkerdOverlay {
            version: version.and_then(|ReleaseTag(version)| version),
            proxy_await: proxy.r#await,
            native_sidecar: proxy.native_sidecar,
            shutdown_endpoint: proxy.enable_shutdown_endpoint,
            wait_before_exit: proxy
                .wait_before_exit_seconds
                .map(|WholeSeconds(seconds)| Millis::secs(seconds)),
            shutdown_grace_period: None,
        };
        if let Some(text) = proxy.shutdown_grace_period.filter(|t| !t.is_empty()) {
            match parse_go_duration(&text).filter(|d| *d >= Millis::ZERO) {
                Some(duration) => overlay.shutdown_grace_period = Some(duration),
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
        overlay.lay(&mut settings.linkerd, &self.source);
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
    use crate::settings::IstioVersion;
    use std::sync::Arc;

    /// The settings `text` lays over the defaults, what is wrong in it, and whether the
    /// reader recognised every document.
    fn read_all(text: &str) -> (Settings, Vec<InputError>, bool) {
        let file = SettingsFile::parse(Arc::from("mesh.yaml"), text.to_owned()).unwrap();
        let mut settings = Settings::default();
        let mut errors = Vec::new();
        let mut recognised = true;
        for (root, source) in &file.documents {
            let mut reader = Reader {
                text: source,
                source: Source::MeshConfig(Arc::from("mesh.yaml")),
                errors: &mut errors,
            };
            recognised &= reader.document(root, &mut settings);
        }
        (settings, errors, recognised)
    }

    fn read(text: &str) -> Settings {
        let (settings, errors, recognised) = read_all(text);
        assert!(recognised && errors.is_empty(), "{errors:?}");
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
        read_all(text).1
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
        assert_eq!(settings.istio.termination_drain(), Some(Millis::secs(7)));
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
