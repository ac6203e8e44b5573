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
//! workloadKinds:                       # custom resources that run pods
//! - apiVersion: platform.example.com/v1  # group/version, or the group: any version
//!   kind: WebApp
//!   podTemplate: spec.runtime.template   # or podSpec: a path to a bare PodSpec
//!   runsToCompletion: false              # true: Job semantics
//! preset: alibaba-asm
//! ```

mod schema;

pub use schema::settings;
use schema::*;

use crate::settings::ScenarioKey;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use k8s_openapi::api::core::v1::Lifecycle;
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use super::file::{GoDuration, SettingsFile, WholeSeconds};
use super::istio::{self, IstioOverlay, NativeSidecars};
use super::linkerd::LinkerdOverlay;
use super::mesh_config;
use super::{
    CloudSqlProxyVersion, ConsulVersion, DaprVersion, DeclaredSidecar, IstioVersion, KubeVersion,
    KumaVersion, LinkerdVersion, NamespaceInfo, Settings, Source, Sourced,
};
use crate::documented::{self, Documented, Row};
use crate::load::{EntryPart, InputError, JsonPath, Node, Pos, SourceText};

/// The file name looked for.
pub const FILE_NAME: &str = ".mesh-lifecycle.yaml";

/// The config file a run found by looking upward, and what it passed over.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// The file in force.
    pub path: Option<PathBuf>,
    /// Files not used, with why: for the user, who may have expected them to apply.
    pub notes: Vec<String>,
}

/// The nearest `.mesh-lifecycle.yaml` in `start` or a directory above it, up to the
/// repository's root (the first directory holding `.git`): a file above a checkout
/// belongs to whoever owns that directory, not to the repository, and could turn
/// rules off for every repository below it. A file owned by another user than the one
/// running is not used either, as git refuses a repository another user owns: anyone
/// who can write to a shared directory (`/tmp`, a CI runner's workspace) could plant
/// one. Both are said in a note.
pub fn find_upward(start: &Path) -> Found {
    let mut notes = Vec::new();
    for dir in start.ancestors() {
        let candidate = dir.join(FILE_NAME);
        if candidate.is_file() {
            if let Some(owner) = foreign_owner(&candidate) {
                notes.push(format!(
                    "{} is not used: it belongs to another user ({owner}) than the one running; --config {} uses it",
                    candidate.display(),
                    candidate.display()
                ));
                return Found { path: None, notes };
            }
            return Found {
                path: Some(candidate),
                notes,
            };
        }
        if dir.join(".git").exists() {
            let above = dir
                .parent()
                .into_iter()
                .flat_map(Path::ancestors)
                .map(|dir| dir.join(FILE_NAME))
                .find(|candidate| candidate.is_file());
            if let Some(above) = above {
                notes.push(format!(
                    "{} is not used: it lies above the repository's root, {}; --config {} uses it",
                    above.display(),
                    dir.display(),
                    above.display()
                ));
            }
            break;
        }
    }
    Found { path: None, notes }
}

/// The owner of `path` when it is not the user running (`uid 1001`); `None` when it
/// is, or where ownership cannot be told.
fn foreign_owner(path: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let owner = std::fs::metadata(path).ok()?.uid();
        let me = rustix::process::geteuid().as_raw();
        (owner != me).then(|| format!("uid {owner}"))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// A rule setting from the `rules:` section, checked against the catalog by the caller.
#[derive(Clone, Debug)]
pub struct RuleSetting {
    /// The id or name as written.
    pub rule: String,
    /// The level it is set to.
    pub level: RuleLevel,
    /// The config file, for errors about the setting.
    pub file: Arc<str>,
    /// Where the setting is in it.
    pub pos: Pos,
    /// The file's text, for the excerpt in those errors.
    pub source: SourceText,
}

/// How findings that rest on a premise count (`assumedLosses:`, `--assumed-losses`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AssumedLosses {
    /// Lowered as each rule's doc states: one level, or to info (the default).
    #[default]
    Lowered,
    /// At the rule's full severity, as a proven loss.
    Full,
}

impl AssumedLosses {
    /// Parses `lowered` or `full`.
    pub fn parse(text: &str) -> Option<AssumedLosses> {
        match text {
            "lowered" => Some(AssumedLosses::Lowered),
            "full" => Some(AssumedLosses::Full),
            _ => None,
        }
    }
}

/// What `rules:` sets a rule to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleLevel {
    /// The rule does not run.
    Off,
    /// Its findings are errors.
    Error,
    /// Its findings are warnings.
    Warning,
    /// Its findings are information.
    Info,
}

/// Applies the config file at `path` to `settings`. Returns the rule settings it holds
/// and the path of a mesh config it names, or the error found, at its node.
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
    apply_with_origin(file, base, settings, &Source::ConfigFile(file.name.clone()))
}

/// Applies an already read file in the config file's format, each value it sets
/// sourced from `origin` (`diff --to KEY=VALUE` writes its changes this way).
pub fn apply_with_origin(
    file: &SettingsFile,
    base: &Path,
    settings: &mut Settings,
    origin: &Source,
) -> Result<ConfigExtras, Vec<InputError>> {
    let Some((root, source)) = file.documents.first() else {
        return Ok(ConfigExtras::default());
    };
    let config: ConfigFile = file.decode(root, source).map_err(|e| vec![e])?;
    config
        .apply(root, source, file, base, origin, settings)
        .map_err(|e| vec![e])
}

/// A rule named in a list of the config file (`fixable:`, `unfixable:`), checked
/// against the catalog by the caller.
#[derive(Clone, Debug)]
pub struct RuleName {
    /// The id or name as written, or `ALL`.
    pub rule: String,
    /// The config file, for errors about it.
    pub file: Arc<str>,
    /// Where it is in it.
    pub pos: Pos,
    /// The file's text, for the excerpt in those errors.
    pub source: SourceText,
}

/// `fixable:` and `unfixable:`: which rules' findings carry their fix.
#[derive(Clone, Debug, Default)]
pub struct Fixable {
    /// The rules whose fixes are made (`None`: all).
    pub fixable: Option<Vec<RuleName>>,
    /// Rules whose fixes are not, whatever `fixable` says.
    pub unfixable: Vec<RuleName>,
}

/// What a config file holds beyond `Settings`.
#[derive(Clone, Debug, Default)]
pub struct ConfigExtras {
    /// `rules:`: severities and `off`, by rule.
    pub rules: Vec<RuleSetting>,
    /// `fixable:` and `unfixable:`.
    pub fixable: Fixable,
    /// `assumedLosses:`.
    pub assumed_losses: Option<AssumedLosses>,
    /// `istio.meshConfig`, resolved against the config file's directory.
    pub mesh_config: Option<PathBuf>,
    /// `exclude:`: globs of paths that directory searches leave out, relative to the
    /// config file's directory.
    pub exclude: Vec<String>,
    /// `strict:`.
    pub strict: bool,
    /// `renderTimeout:`.
    pub render_timeout: Option<crate::time::Millis>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Millis;

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
        assert_eq!(settings.istio.termination_drain(), Some(Millis::secs(20)));
        assert_eq!(settings.istio.version.unwrap().value, IstioVersion::new(24));
        assert_eq!(
            settings.istio.native_sidecars.unwrap().value,
            NativeSidecars::Auto
        );
        assert!(!settings.linkerd.proxy_await.unwrap().value);
        assert_eq!(
            settings.namespaces["shop"].labels["istio-injection"],
            "enabled"
        );
        assert_eq!(settings.scenario.app_shutdown.value, Millis::secs(12));
        assert_eq!(extras.rules.len(), 2);
        assert_eq!(extras.rules[0].level, RuleLevel::Off);
        assert_eq!(
            extras.rules[1].pos,
            Pos {
                line: 18,
                column: 3
            }
        );
        assert_eq!(
            extras.mesh_config,
            Some(PathBuf::from("/etc/mesh/mesh.yaml"))
        );
        assert_eq!(settings.declared_sidecars[0].shutdown, Millis::secs(3));
        assert_eq!(settings.stop_wrappers, ["wait-and-quit-envoy"]);
    }

    #[test]
    fn unknown_keys_are_errors_at_the_key() {
        let errors = read("istio:\n  versoin: '1.24'\n").unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].pos, Some(Pos { line: 2, column: 3 }));
        assert!(
            errors[0].message.starts_with(
                "istio.versoin: unknown setting `versoin`; expected one of: version, meshConfig"
            ),
            "{}",
            errors[0].message
        );
    }

    #[test]
    fn wrong_values_are_errors_at_the_value() {
        let errors = read("scenario:\n  appShutdown: soon\n").unwrap_err();
        assert_eq!(
            errors[0].pos,
            Some(Pos {
                line: 2,
                column: 16
            })
        );
        assert!(errors[0].message.contains("not a duration"), "{errors:?}");
        let errors = read("istio:\n  autoInject: maybe\n").unwrap_err();
        assert_eq!(
            errors[0].pos,
            Some(Pos {
                line: 2,
                column: 15
            })
        );
        assert!(
            errors[0]
                .message
                .starts_with("istio.autoInject: invalid type"),
            "{errors:?}"
        );
    }

    #[test]
    fn versions_are_read_as_written() {
        // Unquoted, YAML reads 1.30 as the number 1.3 and 1.20 as 1.2.
        let (settings, _) =
            read("kubernetesVersion: 1.30\nistio: {version: 1.20}\nlinkerd: {version: 2.20}\n")
                .unwrap();
        assert_eq!(settings.kubernetes.value, KubeVersion { minor: 30 });
        assert_eq!(settings.istio.version.unwrap().value, IstioVersion::new(20));
        assert_eq!(
            settings.linkerd.version.unwrap().value,
            LinkerdVersion::Stable { minor: 20 }
        );
        let errors = read("kubernetesVersion: 1.3\n").unwrap_err();
        assert_eq!(
            errors[0].pos,
            Some(Pos {
                line: 1,
                column: 20
            })
        );
        assert!(errors[0].message.contains("(1.22 to 1.36)"), "{errors:?}");
    }

    #[test]
    fn every_mesh_has_its_version_key_checked_at_its_line() {
        let (settings, _) = read(
            "kuma: {version: 2.10}\nconsul: {version: 1.6.9}\ndapr: {version: '1.18'}\ncloudSqlProxy: {version: 2.14.1}\n",
        )
        .unwrap();
        let versions = &settings.versions;
        assert_eq!(
            versions.kuma.as_ref().unwrap().value,
            KumaVersion::new(2, 10, 0)
        );
        assert_eq!(
            versions.consul.as_ref().unwrap().value,
            ConsulVersion::new(1, 6, 9)
        );
        assert_eq!(
            versions.dapr.as_ref().unwrap().value,
            DaprVersion::new(1, 18, 0)
        );
        assert_eq!(
            versions.cloud_sql_proxy.as_ref().unwrap().value,
            CloudSqlProxyVersion::new(2, 14, 1)
        );
        let refused = [
            ("kuma", "2.3", "(2.4 to 2.14)"),
            ("consul", "0.49.0", "(1.0 to 2.0)"),
            ("dapr", "1.5", "(1.6 to 1.18)"),
            ("cloudSqlProxy", "1.33.0", "(2.0 to 2.25)"),
        ];
        for (key, version, range) in refused {
            let text = format!("kubernetesVersion: '1.30'\n{key}:\n  version: {version}\n");
            let errors = read(&text).unwrap_err();
            assert_eq!(errors[0].pos.map(|pos| pos.line), Some(3), "{errors:?}");
            assert!(errors[0].message.contains(range), "{errors:?}");
            assert!(
                errors[0].message.starts_with(&format!("{key}.version")),
                "{errors:?}"
            );
        }
    }

    #[test]
    fn a_rule_level_of_off_is_not_a_boolean() {
        let (_, extras) = read("rules: {ML207: off, ML201: warning}\n").unwrap();
        assert_eq!(extras.rules[0].level, RuleLevel::Off);
        let errors = read("rules: {ML207: loud}\n").unwrap_err();
        assert!(
            errors[0]
                .message
                .starts_with("rules.ML207: `loud` is not one of: off, error, warning, info"),
            "{errors:?}"
        );
    }
}
