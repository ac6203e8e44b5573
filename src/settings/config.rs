//! `.mesh-lifecycle.yaml`: the profile of the cluster the manifests run in.
//!
//! Found by walking up from the working directory, or given with `--config`. Every
//! setting is optional; command-line flags override it.
//!
//! ```yaml
//! kubernetesVersion: "1.30"
//! istio:
//!   version: "1.24"
//!   meshConfig: istio-mesh.yaml        # an `istio` ConfigMap, an IstioOperator or Helm values
//!   defaultConfig:                     # meshConfig.defaultConfig (ProxyConfig)
//!     terminationDrainDuration: 20s
//!   holdApplicationUntilProxyStarts: true
//!   nativeSidecars: auto               # ENABLE_NATIVE_SIDECARS: true | false | auto
//! linkerd:
//!   version: "2.16"
//!   proxyAwait: true
//! namespaces:
//!   shop: {labels: {istio-injection: enabled}}
//! scenario:
//!   appShutdown: 10s
//! rules:
//!   ML207: off
//!   proxy-exits-before-app: warning
//! sidecars:
//! - name: vault-agent
//!   shutdown: 5s
//! stopWrappers: [wait-and-quit-envoy]
//! preset: alibaba-asm
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::file::SettingsFile;
use super::istio::{NativeSidecars, ProxyConfig};
use super::{
    DeclaredSidecar, IstioVersion, KubeVersion, LinkerdVersion, NamespaceInfo, Settings, Source,
    Sourced,
};
use crate::load::{InputError, Node, Pos, SourceText, Value};
use crate::time::{Millis, parse_go_duration};

/// The file name looked for.
pub const FILE_NAME: &str = ".mesh-lifecycle.yaml";

/// The nearest `.mesh-lifecycle.yaml` in `start` or a directory above it.
pub fn find_upward(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|dir| dir.join(FILE_NAME))
        .find(|candidate| candidate.is_file())
}

/// A rule setting from the `rules:` section, checked against the catalog by the caller.
#[derive(Clone, Debug)]
pub struct RuleSetting {
    /// The id or name as written.
    pub rule: String,
    /// `off`, `error`, `warning` or `info`.
    pub level: String,
    /// The config file, for errors about the setting.
    pub file: Arc<str>,
    /// Where the setting is in it.
    pub pos: Pos,
    /// The file's text, for the excerpt in those errors.
    pub source: SourceText,
}

/// Applies the config file at `path` to `settings`. Returns the rule settings it holds
/// and the path of a mesh config it names, or every error found (each at its node).
pub fn apply(path: &Path, settings: &mut Settings) -> Result<ConfigExtras, Vec<InputError>> {
    let file = SettingsFile::read(path).map_err(|e| vec![e])?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    apply_file(&file, &base, settings)
}

/// Applies an already read config file; `base` resolves the relative paths it names.
pub fn apply_file(
    file: &SettingsFile,
    base: &Path,
    settings: &mut Settings,
) -> Result<ConfigExtras, Vec<InputError>> {
    let mut reader = Reader {
        file,
        errors: Vec::new(),
        extras: ConfigExtras::default(),
        origin: Source::ConfigFile(file.name.clone()),
        base: base.to_path_buf(),
    };
    if let Some((root, source)) = file.documents.first() {
        reader.root(root, source, settings);
    }
    if reader.errors.is_empty() {
        Ok(reader.extras)
    } else {
        Err(reader.errors)
    }
}

/// What a config file holds beyond `Settings`.
#[derive(Clone, Debug, Default)]
pub struct ConfigExtras {
    /// `rules:`: severities and `off`, by rule.
    pub rules: Vec<RuleSetting>,
    /// `istio.meshConfig`, resolved against the config file's directory.
    pub mesh_config: Option<PathBuf>,
    /// `exclude:`: globs of paths that directory searches leave out, relative to the
    /// config file's directory.
    pub exclude: Vec<String>,
}

struct Reader<'f> {
    file: &'f SettingsFile,
    errors: Vec<InputError>,
    extras: ConfigExtras,
    origin: Source,
    base: PathBuf,
}

impl Reader<'_> {
    fn error(&mut self, source: &SourceText, node: &Node, message: String) {
        self.errors
            .push(self.file.error_at(source, node.span.start, message));
    }

    fn error_key(&mut self, source: &SourceText, pos: Pos, message: String) {
        self.errors.push(self.file.error_at(source, pos, message));
    }

    /// The entries of a mapping, reporting keys outside `known`.
    fn entries<'n>(
        &mut self,
        source: &SourceText,
        node: &'n Node,
        what: &str,
        known: &[&str],
    ) -> Vec<(&'n str, &'n Node)> {
        let Value::Map(entries) = &node.value else {
            if node.value != Value::Null {
                self.error(source, node, format!("{what} must be a mapping"));
            }
            return Vec::new();
        };
        let mut found = Vec::new();
        for entry in entries {
            if known.is_empty() || known.contains(&entry.key.as_str()) {
                found.push((entry.key.as_str(), &entry.value));
            } else {
                self.error_key(
                    source,
                    entry.key_span.start,
                    format!(
                        "unknown setting `{}` in {what}; expected one of: {}",
                        entry.key,
                        known.join(", ")
                    ),
                );
            }
        }
        found
    }

    fn string(&mut self, source: &SourceText, node: &Node, what: &str) -> Option<String> {
        match &node.value {
            Value::String(s) => Some(s.clone()),
            Value::Int(i) => Some(i.to_string()),
            Value::Float(f) => Some(f.to_string()),
            _ => {
                self.error(source, node, format!("{what} must be a string"));
                None
            }
        }
    }

    fn boolean(&mut self, source: &SourceText, node: &Node, what: &str) -> Option<bool> {
        match node.value {
            Value::Bool(b) => Some(b),
            _ => {
                self.error(source, node, format!("{what} must be true or false"));
                None
            }
        }
    }

    fn duration(&mut self, source: &SourceText, node: &Node, what: &str) -> Option<Millis> {
        let text = self.string(source, node, what)?;
        match parse_go_duration(&text).filter(|d| *d >= Millis::ZERO) {
            Some(duration) => Some(duration),
            None => {
                self.error(
                    source,
                    node,
                    format!("{what}: `{text}` is not a duration such as 5s or 1m30s"),
                );
                None
            }
        }
    }

    fn sourced<T>(&self, value: T) -> Sourced<T> {
        Sourced::new(value, self.origin.clone())
    }

    fn root(&mut self, root: &Node, source: &SourceText, settings: &mut Settings) {
        const KNOWN: [&str; 11] = [
            "exclude",
            "kubernetesVersion",
            "istio",
            "linkerd",
            "namespaces",
            "scenario",
            "rules",
            "sidecars",
            "stopWrappers",
            "preset",
            "deletionGracePeriodSeconds",
        ];
        for (key, node) in self.entries(source, root, "the config file", &KNOWN) {
            match key {
                "kubernetesVersion" => {
                    if let Some(text) = self.string(source, node, key) {
                        match KubeVersion::parse(&text) {
                            Some(version) => settings.kubernetes = self.sourced(version),
                            None => self.error(
                                source,
                                node,
                                format!("`{text}` is not a Kubernetes version such as 1.29"),
                            ),
                        }
                    }
                }
                "istio" => self.istio(node, source, settings),
                "linkerd" => self.linkerd(node, source, settings),
                "namespaces" => self.namespaces(node, source, settings),
                "scenario" => self.scenario(node, source, settings),
                "rules" => self.rules(node, source),
                "sidecars" => self.sidecars(node, source, settings),
                "exclude" => match &node.value {
                    Value::Seq(items) => {
                        for item in items {
                            if let Some(glob) = self.string(source, item, "an exclude glob") {
                                self.extras.exclude.push(glob);
                            }
                        }
                    }
                    _ => self.error(source, node, "exclude must be a list of globs".into()),
                },
                "stopWrappers" => match &node.value {
                    Value::Seq(items) => {
                        for item in items {
                            if let Some(command) = self.string(source, item, "a stop wrapper") {
                                settings.stop_wrappers.push(command);
                            }
                        }
                    }
                    _ => self.error(
                        source,
                        node,
                        "stopWrappers must be a list of commands".into(),
                    ),
                },
                "preset" => {
                    if let Some(name) = self.string(source, node, key)
                        && let Err(message) = super::preset::apply(&name, settings)
                    {
                        self.error(source, node, message);
                    }
                }
                "deletionGracePeriodSeconds" => match node.value {
                    Value::Int(seconds) if seconds >= 0 => {
                        settings.deletion_grace_period = Some(self.sourced(seconds));
                    }
                    _ => self.error(
                        source,
                        node,
                        "deletionGracePeriodSeconds must be a whole number of seconds".into(),
                    ),
                },
                _ => unreachable!("entries() keeps known keys only"),
            }
        }
    }

    fn istio(&mut self, node: &Node, source: &SourceText, settings: &mut Settings) {
        const KNOWN: [&str; 9] = [
            "version",
            "meshConfig",
            "defaultConfig",
            "holdApplicationUntilProxyStarts",
            "nativeSidecars",
            "lifecycle",
            "startupProbe",
            "autoInject",
            "enableNamespacesByDefault",
        ];
        for (key, value) in self.entries(source, node, "istio", &KNOWN) {
            let what = format!("istio.{key}");
            match key {
                "version" => {
                    if let Some(text) = self.string(source, value, &what) {
                        match IstioVersion::parse(&text) {
                            Some(version) => settings.istio.version = Some(self.sourced(version)),
                            None => self.error(
                                source,
                                value,
                                format!("`{text}` is not an Istio version such as 1.24"),
                            ),
                        }
                    }
                }
                "meshConfig" => {
                    if let Some(path) = self.string(source, value, &what) {
                        self.extras.mesh_config = Some(self.base.join(path));
                    }
                }
                "defaultConfig" => match ProxyConfig::from_json(&value.to_json(), &self.origin) {
                    Ok(config) => {
                        settings.istio.mesh_default_config =
                            settings.istio.mesh_default_config.overlay(&config);
                    }
                    Err(error) => self.error(
                        source,
                        value,
                        format!("istio.defaultConfig.{}: {}", error.field, error.message),
                    ),
                },
                "holdApplicationUntilProxyStarts" => {
                    if let Some(hold) = self.boolean(source, value, &what) {
                        settings.istio.hold_helm_global = Some(self.sourced(hold));
                    }
                }
                "nativeSidecars" => {
                    let mode = match &value.value {
                        Value::Bool(true) => Some(NativeSidecars::On),
                        Value::Bool(false) => Some(NativeSidecars::Off),
                        Value::String(s) if s == "auto" => Some(NativeSidecars::Auto),
                        _ => None,
                    };
                    match mode {
                        Some(mode) => settings.istio.native_sidecars = Some(self.sourced(mode)),
                        None => self.error(
                            source,
                            value,
                            "istio.nativeSidecars must be true, false or auto".into(),
                        ),
                    }
                }
                "lifecycle" => {
                    settings.istio.custom_lifecycle = Some(self.sourced(value.to_json()))
                }
                "startupProbe" => {
                    if let Some(on) = self.boolean(source, value, &what) {
                        settings.istio.startup_probe = Some(self.sourced(on));
                    }
                }
                "autoInject" => {
                    if let Some(on) = self.boolean(source, value, &what) {
                        settings.istio.auto_inject = self.sourced(on);
                    }
                }
                "enableNamespacesByDefault" => {
                    if let Some(on) = self.boolean(source, value, &what) {
                        settings.istio.enable_namespaces_by_default = self.sourced(on);
                    }
                }
                _ => unreachable!("entries() keeps known keys only"),
            }
        }
    }

    fn linkerd(&mut self, node: &Node, source: &SourceText, settings: &mut Settings) {
        const KNOWN: [&str; 6] = [
            "version",
            "proxyAwait",
            "nativeSidecar",
            "shutdownGracePeriod",
            "waitBeforeExitSeconds",
            "enableShutdownEndpoint",
        ];
        for (key, value) in self.entries(source, node, "linkerd", &KNOWN) {
            let what = format!("linkerd.{key}");
            match key {
                "version" => {
                    if let Some(text) = self.string(source, value, &what) {
                        match LinkerdVersion::parse(&text) {
                            Some(version) => settings.linkerd.version = Some(self.sourced(version)),
                            None => self.error(
                                source,
                                value,
                                format!(
                                    "`{text}` is not a Linkerd version such as 2.16 or edge-24.6.2"
                                ),
                            ),
                        }
                    }
                }
                "proxyAwait" => {
                    if let Some(on) = self.boolean(source, value, &what) {
                        settings.linkerd.proxy_await = Some(self.sourced(on));
                    }
                }
                "nativeSidecar" => {
                    if let Some(on) = self.boolean(source, value, &what) {
                        settings.linkerd.native_sidecar = Some(self.sourced(on));
                    }
                }
                "shutdownGracePeriod" => {
                    if let Some(d) = self.duration(source, value, &what) {
                        settings.linkerd.shutdown_grace_period = Some(self.sourced(d));
                    }
                }
                "waitBeforeExitSeconds" => match value.value {
                    Value::Int(seconds) if seconds >= 0 => {
                        settings.linkerd.wait_before_exit =
                            Some(self.sourced(Millis::secs(seconds)));
                    }
                    _ => self.error(
                        source,
                        value,
                        "linkerd.waitBeforeExitSeconds must be a whole number of seconds".into(),
                    ),
                },
                "enableShutdownEndpoint" => {
                    if let Some(on) = self.boolean(source, value, &what) {
                        settings.linkerd.shutdown_endpoint = Some(self.sourced(on));
                    }
                }
                _ => unreachable!("entries() keeps known keys only"),
            }
        }
    }

    fn namespaces(&mut self, node: &Node, source: &SourceText, settings: &mut Settings) {
        for (name, value) in self.entries(source, node, "namespaces", &[]) {
            let mut info = NamespaceInfo {
                source: Some(self.origin.clone()),
                ..NamespaceInfo::default()
            };
            for (key, map) in self.entries(
                source,
                value,
                &format!("namespaces.{name}"),
                &["labels", "annotations"],
            ) {
                let mut values = BTreeMap::new();
                for (k, v) in self.entries(source, map, &format!("namespaces.{name}.{key}"), &[]) {
                    if let Some(text) = self.string(source, v, k) {
                        values.insert(k.to_owned(), text);
                    }
                }
                if key == "labels" {
                    info.labels = values;
                } else {
                    info.annotations = values;
                }
            }
            settings.namespaces.insert(name.to_owned(), info);
        }
    }

    fn scenario(&mut self, node: &Node, source: &SourceText, settings: &mut Settings) {
        const KNOWN: [(&str, &str); 6] = [
            ("proxyStartup", "proxy-startup"),
            ("endpointPropagation", "endpoint-propagation"),
            ("appShutdown", "app-shutdown"),
            ("longestRequest", "longest-request"),
            ("initDuration", "init-duration"),
            ("jobDuration", "job-duration"),
        ];
        let names: Vec<&str> = KNOWN.iter().map(|(camel, _)| *camel).collect();
        for (key, value) in self.entries(source, node, "scenario", &names) {
            let Some(duration) = self.duration(source, value, &format!("scenario.{key}")) else {
                continue;
            };
            let name = KNOWN
                .iter()
                .find(|(camel, _)| *camel == key)
                .map(|(_, name)| *name)
                .unwrap_or(key);
            settings.scenario.set(name, duration, self.origin.clone());
        }
    }

    fn rules(&mut self, node: &Node, source: &SourceText) {
        let Value::Map(entries) = &node.value else {
            self.error(
                source,
                node,
                "rules must map rule ids or names to off, error, warning or info".into(),
            );
            return;
        };
        for entry in entries {
            let level = match &entry.value.value {
                Value::String(s) => s.clone(),
                // `off` is the YAML 1.1 boolean false.
                Value::Bool(false) => "off".to_owned(),
                _ => String::new(),
            };
            if !matches!(level.as_str(), "off" | "error" | "warning" | "info") {
                self.error(
                    source,
                    &entry.value,
                    format!("rules.{}: expected off, error, warning or info", entry.key),
                );
                continue;
            }
            self.extras.rules.push(RuleSetting {
                rule: entry.key.clone(),
                level,
                file: self.file.name.clone(),
                pos: entry.key_span.start,
                source: source.clone(),
            });
        }
    }

    fn sidecars(&mut self, node: &Node, source: &SourceText, settings: &mut Settings) {
        let Value::Seq(items) = &node.value else {
            self.error(source, node, "sidecars must be a list".into());
            return;
        };
        for item in items {
            let mut name = None;
            let mut startup = None;
            let mut shutdown = Millis::ZERO;
            let mut carries_traffic = false;
            for (key, value) in self.entries(
                source,
                item,
                "a sidecar",
                &["name", "startup", "shutdown", "carriesTraffic"],
            ) {
                match key {
                    "name" => name = self.string(source, value, "sidecars[].name"),
                    "startup" => startup = self.duration(source, value, "sidecars[].startup"),
                    "shutdown" => {
                        shutdown = self
                            .duration(source, value, "sidecars[].shutdown")
                            .unwrap_or_default()
                    }
                    "carriesTraffic" => {
                        carries_traffic = self
                            .boolean(source, value, "sidecars[].carriesTraffic")
                            .unwrap_or(false)
                    }
                    _ => unreachable!("entries() keeps known keys only"),
                }
            }
            match name {
                Some(name) => settings.declared_sidecars.push(DeclaredSidecar {
                    name,
                    startup,
                    shutdown,
                    carries_traffic,
                }),
                None => self.error(
                    source,
                    item,
                    "a sidecar needs a name (the container name it is recognised by)".into(),
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<(Settings, ConfigExtras), Vec<InputError>> {
        let file = SettingsFile::parse(Arc::from(".mesh-lifecycle.yaml"), text.to_owned())
            .map_err(|e| vec![e])?;
        let mut settings = Settings::default();
        let extras = apply_file(&file, Path::new("/etc/mesh"), &mut settings)?;
        Ok((settings, extras))
    }

    #[test]
    fn reads_every_section() {
        let (settings, extras) = read(
            "kubernetesVersion: '1.30'\nistio:\n  version: '1.24'\n  meshConfig: mesh.yaml\n  nativeSidecars: auto\n  defaultConfig:\n    terminationDrainDuration: 20s\nlinkerd:\n  version: version-2.16\n  proxyAwait: false\nnamespaces:\n  shop:\n    labels: {istio-injection: enabled}\nscenario:\n  appShutdown: 12s\nrules:\n  ML207: off\n  grace-period-exceeded: warning\nsidecars:\n- name: vault-agent\n  shutdown: 3s\nstopWrappers: [wait-and-quit-envoy]\n",
        )
        .unwrap();
        assert_eq!(settings.kubernetes.value, KubeVersion { minor: 30 });
        assert_eq!(
            settings.kubernetes.source,
            Source::ConfigFile(Arc::from(".mesh-lifecycle.yaml"))
        );
        assert_eq!(settings.istio.version.unwrap().value, IstioVersion::new(24));
        assert_eq!(
            settings.istio.native_sidecars.unwrap().value,
            NativeSidecars::Auto
        );
        assert_eq!(
            settings
                .istio
                .mesh_default_config
                .termination_drain_duration
                .unwrap()
                .value,
            Millis::secs(20)
        );
        assert!(!settings.linkerd.proxy_await.unwrap().value);
        assert_eq!(
            settings.namespaces["shop"].labels["istio-injection"],
            "enabled"
        );
        assert_eq!(settings.scenario.app_shutdown.value, Millis::secs(12));
        assert_eq!(extras.rules.len(), 2);
        assert_eq!(extras.rules[0].level, "off");
        assert_eq!(
            extras.mesh_config,
            Some(PathBuf::from("/etc/mesh/mesh.yaml"))
        );
        assert_eq!(settings.declared_sidecars[0].shutdown, Millis::secs(3));
        assert_eq!(settings.stop_wrappers, ["wait-and-quit-envoy"]);
    }

    #[test]
    fn errors_point_at_the_node() {
        let errors =
            read("istio:\n  versoin: '1.24'\nscenario:\n  appShutdown: soon\n").unwrap_err();
        assert_eq!(errors.len(), 2);
        assert_eq!(errors[0].pos, Some(Pos { line: 2, column: 3 }));
        assert!(errors[0].message.contains("unknown setting `versoin`"));
        assert_eq!(
            errors[1].pos,
            Some(Pos {
                line: 4,
                column: 16
            })
        );
        assert!(errors[1].message.contains("not a duration"));
    }
}
