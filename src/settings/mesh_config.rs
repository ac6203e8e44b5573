//! Reading the cluster's mesh configuration: an Istio `istio` ConfigMap (`data.mesh`),
//! the injector's ConfigMap (`data.values`), an IstioOperator, Helm values (Istio's or
//! Linkerd's), or a bare MeshConfig. The same reader takes these objects when they
//! appear among the linted inputs.

use std::path::Path;

use super::file::SettingsFile;
use super::istio::{NativeSidecars, ProxyConfig};
use super::{IstioVersion, LinkerdVersion, Settings, Source, Sourced};
use crate::load::{InputError, JsonPath, Node, SourceText, Value};
use crate::time::{Millis, parse_go_duration};

/// Applies the mesh config file at `path`; every problem is an error at its node.
pub fn apply(path: &Path, settings: &mut Settings, source: Source) -> Result<(), Vec<InputError>> {
    let file = SettingsFile::read(path).map_err(|e| vec![e])?;
    let mut errors = Vec::new();
    let mut recognised = false;
    for (root, text) in &file.documents {
        let mut reader = Reader {
            file: Some((&file, text)),
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

/// Applies a document of the linted input, or an object read from the cluster, when it
/// is mesh configuration (an `istio` ConfigMap, Linkerd's `linkerd-config`, an
/// IstioOperator). Problems in it are left to the main pass.
pub fn apply_input_object(root: &Node, settings: &mut Settings, source: Source) -> bool {
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
    if !(is_mesh_configmap || kind == Some("IstioOperator")) {
        return false;
    }
    let mut ignored = Vec::new();
    let mut reader = Reader {
        file: None,
        source,
        errors: &mut ignored,
    };
    reader.document(root, settings)
}

struct Reader<'a> {
    /// The file being read, for error locations; `None` for objects of the input, whose
    /// problems the main pass reports.
    file: Option<(&'a SettingsFile, &'a SourceText)>,
    source: Source,
    errors: &'a mut Vec<InputError>,
}

impl Reader<'_> {
    fn error(&mut self, node: &Node, message: String) {
        if let Some((file, text)) = self.file {
            self.errors
                .push(file.error_at(text, node.span.start, message));
        }
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
                if let Some(mesh) = at("data.mesh") {
                    found = true;
                    self.embedded(mesh, settings, Self::mesh_config);
                }
                if let Some(values) = at("data.values") {
                    found = true;
                    self.embedded(values, settings, Self::values);
                }
                found
            }
            Some("IstioOperator") => {
                if let Some(mesh) = at("spec.meshConfig") {
                    self.mesh_config(mesh, settings);
                }
                if let Some(values) = at("spec.values") {
                    self.values(values, settings);
                }
                if let Some(tag) = at("spec.tag") {
                    self.version(tag, settings);
                }
                true
            }
            Some(_) => false,
            None if root.get("defaultConfig").is_some() => {
                self.mesh_config(root, settings);
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
                self.values(root, settings);
                if let Some(mesh) = root.get("meshConfig") {
                    self.mesh_config(mesh, settings);
                }
                true
            }
            None => false,
        }
    }

    /// A ConfigMap value that holds YAML or JSON.
    fn embedded(
        &mut self,
        node: &Node,
        settings: &mut Settings,
        apply: fn(&mut Self, &Node, &mut Settings),
    ) {
        let Some(text) = node.as_str() else {
            self.error(node, "expected a string holding YAML or JSON".into());
            return;
        };
        match crate::load::parse::parse_documents(text, 1, &crate::load::Limits::default()) {
            Ok(roots) => {
                if let Some(root) = roots.first() {
                    apply(self, root, settings);
                }
            }
            Err(error) => self.error(
                node,
                format!("cannot read the embedded configuration: {}", error.message),
            ),
        }
    }

    /// MeshConfig: `defaultConfig` is the mesh-wide ProxyConfig.
    fn mesh_config(&mut self, mesh: &Node, settings: &mut Settings) {
        let Some(default_config) = mesh.get("defaultConfig") else {
            return;
        };
        match ProxyConfig::from_json(&default_config.to_json(), &self.source) {
            Ok(config) => {
                settings.istio.mesh_default_config =
                    settings.istio.mesh_default_config.overlay(&config);
            }
            Err(error) => self.error(
                default_config,
                format!("defaultConfig.{}: {}", error.field, error.message),
            ),
        }
    }

    fn version(&mut self, node: &Node, settings: &mut Settings) {
        let text = match &node.value {
            Value::String(s) => s.clone(),
            Value::Float(f) => f.to_string(),
            _ => return,
        };
        if let Some(version) = IstioVersion::parse(&text) {
            settings.istio.version = Some(self.sourced(version));
        }
    }

    /// Helm values of Istio's charts (or `spec.values` of an IstioOperator), and the
    /// `proxy` values of Linkerd's control-plane chart.
    fn values(&mut self, values: &Node, settings: &mut Settings) {
        let at = |path: &str| values.at(&JsonPath::parse(path));
        if let Some(node) = at("global.proxy.holdApplicationUntilProxyStarts") {
            match node.value {
                Value::Bool(hold) => settings.istio.hold_helm_global = Some(self.sourced(hold)),
                _ => self.error(
                    node,
                    "global.proxy.holdApplicationUntilProxyStarts must be true or false".into(),
                ),
            }
        }
        if let Some(node) = at("global.proxy.lifecycle")
            && matches!(node.value, Value::Map(ref entries) if !entries.is_empty())
        {
            settings.istio.custom_lifecycle = Some(self.sourced(node.to_json()));
        }
        if let Some(node) = at("global.proxy.startupProbe.enabled")
            && let Value::Bool(on) = node.value
        {
            settings.istio.startup_probe = Some(self.sourced(on));
        }
        if let Some(node) = at("global.proxy.autoInject") {
            match node.as_str() {
                Some("enabled") => settings.istio.auto_inject = self.sourced(true),
                Some("disabled") => settings.istio.auto_inject = self.sourced(false),
                _ => self.error(
                    node,
                    "global.proxy.autoInject must be enabled or disabled".into(),
                ),
            }
        }
        if let Some(node) = at("sidecarInjectorWebhook.enableNamespacesByDefault")
            && let Value::Bool(on) = node.value
        {
            settings.istio.enable_namespaces_by_default = self.sourced(on);
        }
        for (path, always) in [
            ("sidecarInjectorWebhook.neverInjectSelector", false),
            ("sidecarInjectorWebhook.alwaysInjectSelector", true),
        ] {
            let Some(node) = at(path) else { continue };
            match serde_json::from_value::<
                Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>,
            >(node.to_json())
            {
                Ok(selectors) if always => settings.istio.always_inject_selector = selectors,
                Ok(selectors) => settings.istio.never_inject_selector = selectors,
                Err(error) => self.error(node, format!("{path}: {error}")),
            }
        }
        if let Some(node) = at("pilot.env.ENABLE_NATIVE_SIDECARS") {
            let mode = match &node.value {
                Value::Bool(true) => Some(NativeSidecars::On),
                Value::Bool(false) => Some(NativeSidecars::Off),
                Value::String(s) => match s.as_str() {
                    "true" => Some(NativeSidecars::On),
                    "auto" => Some(NativeSidecars::Auto),
                    // istiod disables native sidecars for any other value (docs/lifecycle.md §3.3).
                    _ => Some(NativeSidecars::Off),
                },
                _ => None,
            };
            if let Some(mode) = mode {
                settings.istio.native_sidecars = Some(self.sourced(mode));
            }
        }
        if let Some(tag) = at("global.tag") {
            self.version(tag, settings);
        }
        self.linkerd_values(values, settings);
    }

    fn linkerd_values(&mut self, values: &Node, settings: &mut Settings) {
        let at = |path: &str| values.at(&JsonPath::parse(path));
        if let Some(version) = at("linkerdVersion")
            .and_then(Node::as_str)
            .and_then(LinkerdVersion::parse)
        {
            settings.linkerd.version = Some(self.sourced(version));
        }
        let boolean = |node: Option<&Node>| match node.map(|n| &n.value) {
            Some(Value::Bool(b)) => Some(*b),
            _ => None,
        };
        if let Some(on) = boolean(at("proxy.await")) {
            settings.linkerd.proxy_await = Some(self.sourced(on));
        }
        if let Some(on) = boolean(at("proxy.nativeSidecar")) {
            settings.linkerd.native_sidecar = Some(self.sourced(on));
        }
        if let Some(on) = boolean(at("proxy.enableShutdownEndpoint")) {
            settings.linkerd.shutdown_endpoint = Some(self.sourced(on));
        }
        if let Some(node) = at("proxy.shutdownGracePeriod")
            && let Some(text) = node.as_str().filter(|t| !t.is_empty())
        {
            match parse_go_duration(text) {
                Some(d) => settings.linkerd.shutdown_grace_period = Some(self.sourced(d)),
                None => self.error(
                    node,
                    format!("proxy.shutdownGracePeriod: `{text}` is not a duration"),
                ),
            }
        }
        if let Some(node) = at("proxy.waitBeforeExitSeconds")
            && let Value::Int(seconds) = node.value
        {
            settings.linkerd.wait_before_exit = Some(self.sourced(Millis::secs(seconds.max(0))));
        }
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
                file: Some((&file, source)),
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
}
