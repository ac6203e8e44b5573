//! A change to the profile written on the command line, `KEY=VALUE` (`diff --to
//! istio=1.27 --to kubernetes=1.33`), laid over the profile in force as its last
//! layer.
//!
//! A key is a setting of the config file by its dotted path (`istio.nativeSidecars`,
//! `scenario.appShutdown`, `linkerd.nativeSidecar`), or one of the short names of the
//! version flags and the other profile flags (`kubernetes`, `nodes`, `istio`,
//! `linkerd`, `kuma`, `consul`, `dapr`, `cloud-sql-proxy`, `preset`, `mesh-config`, `app-shutdown`…). The changes are decoded as the
//! config file is, so every key and value is checked the same way and each value is
//! printed as coming from the flag.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::file::SettingsFile;
use super::{Settings, Source, config, mesh_config};
use crate::load::InputError;

/// Short names, and the config file's path each stands for.
const ALIASES: &[(&str, &str)] = &[
    ("kubernetes", "kubernetesVersion"),
    ("kubernetes-version", "kubernetesVersion"),
    ("nodes", "nodeVersion"),
    ("node-version", "nodeVersion"),
    ("istio", "istio.version"),
    ("istio-version", "istio.version"),
    ("linkerd", "linkerd.version"),
    ("linkerd-version", "linkerd.version"),
    ("kuma", "kuma.version"),
    ("consul", "consul.version"),
    ("dapr", "dapr.version"),
    ("cloud-sql-proxy", "cloudSqlProxy.version"),
    ("native-sidecars", "istio.nativeSidecars"),
    ("proxy-startup", "scenario.proxyStartup"),
    ("endpoint-propagation", "scenario.endpointPropagation"),
    ("app-shutdown", "scenario.appShutdown"),
    ("longest-request", "scenario.longestRequest"),
    ("init-duration", "scenario.initDuration"),
    ("job-duration", "scenario.jobDuration"),
    ("deletion-grace-period", "deletionGracePeriodSeconds"),
];

/// The key of a mesh configuration file, applied as `--mesh-config` is.
const MESH_CONFIG: &str = "mesh-config";

/// Keys of the config file that are not part of the profile.
const NOT_PROFILE: &[&str] = &[
    "exclude",
    "rules",
    "workloadKinds",
    "sidecars",
    "stopWrappers",
];

/// Changes to the profile, as one flag gives them.
#[derive(Clone, Debug, Default)]
pub struct Overlay {
    /// The flag, for messages and as the source of each value (`--to`).
    flag: &'static str,
    /// Each change as written, in order.
    written: Vec<String>,
    /// The config file's paths and their values, in order.
    settings: Vec<(String, String)>,
    /// Mesh configuration files.
    mesh_configs: Vec<PathBuf>,
}

impl Overlay {
    /// Reads the `KEY=VALUE` pairs of `flag`; the error names the pair at fault.
    pub fn parse(flag: &'static str, pairs: &[String]) -> Result<Overlay, String> {
        let mut overlay = Overlay {
            flag,
            ..Overlay::default()
        };
        for pair in pairs {
            let Some((key, value)) = pair.split_once('=') else {
                return Err(format!(
                    "{flag} {pair}: expected KEY=VALUE, such as istio=1.27 or kubernetes=1.33"
                ));
            };
            let (key, value) = (key.trim(), value.trim());
            if key.is_empty() || value.is_empty() {
                return Err(format!("{flag} {pair}: expected KEY=VALUE with both parts"));
            }
            overlay.written.push(format!("{key}={value}"));
            if key == MESH_CONFIG {
                overlay.mesh_configs.push(PathBuf::from(value));
                continue;
            }
            let path = ALIASES
                .iter()
                .find(|(alias, _)| *alias == key)
                .map_or(key, |(_, path)| path);
            let top = path.split('.').next().unwrap_or(path);
            if NOT_PROFILE.contains(&top) {
                return Err(format!(
                    "{flag} {pair}: `{top}` is not a setting of the profile (the config file's `{top}:` applies to both sides)"
                ));
            }
            if path.split('.').any(str::is_empty) {
                return Err(format!(
                    "{flag} {pair}: `{key}` is not a dotted setting path"
                ));
            }
            overlay.settings.push((path.to_owned(), value.to_owned()));
        }
        Ok(overlay)
    }

    /// Whether it changes nothing.
    pub fn is_empty(&self) -> bool {
        self.written.is_empty()
    }

    /// The changes as written: `kubernetes=1.33, istio=1.27`.
    pub fn describe(&self) -> String {
        self.written.join(", ")
    }

    /// Lays the changes over `settings`; mesh configuration files are read up to
    /// `max_bytes`. Errors name the flag and the setting.
    pub fn apply(&self, settings: &mut Settings, max_bytes: u64) -> Result<(), Vec<InputError>> {
        let origin = Source::Flag(self.flag);
        let mut errors = Vec::new();
        if !self.settings.is_empty() {
            let name: Arc<str> = Arc::from(self.flag);
            let applied = SettingsFile::parse(name.clone(), self.yaml())
                .map_err(|error| vec![error])
                .and_then(|file| {
                    let version = settings.istio.version.clone();
                    let applied =
                        config::apply_with_origin(&file, Path::new("."), settings, &origin);
                    // A version given for Istio is every revision's, as --istio-version is.
                    if settings.istio.version != version
                        && let Some(version) = &settings.istio.version
                    {
                        for revision in settings.istio_revisions.values_mut() {
                            revision.version = Some(version.clone());
                        }
                    }
                    applied
                });
            if let Err(found) = applied {
                errors.extend(found.into_iter().map(|error| {
                    InputError::whole(name.clone(), format!("{}: {}", self.flag, error.message))
                }));
            }
        }
        for path in &self.mesh_configs {
            let source = Source::MeshConfig(Arc::from(path.to_string_lossy().as_ref()));
            let applied = SettingsFile::read_bounded(path, max_bytes)
                .map_err(|error| vec![error])
                .and_then(|file| mesh_config::apply_file(&file, settings, source));
            if let Err(found) = applied {
                errors.extend(found);
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// The changes as a config file: nested mappings, each value a plain scalar when it
    /// is one (read as the config file reads it: `1.30` is a version, `true` a
    /// boolean), else a quoted string.
    fn yaml(&self) -> String {
        #[derive(Default)]
        struct Tree(BTreeMap<String, Entry>);
        enum Entry {
            Value(String),
            Map(Tree),
        }
        let mut root = Tree::default();
        for (path, value) in &self.settings {
            let mut node = &mut root;
            let mut keys = path.split('.').peekable();
            while let Some(key) = keys.next() {
                if keys.peek().is_none() {
                    node.0.insert(key.to_owned(), Entry::Value(value.clone()));
                    break;
                }
                let entry = node
                    .0
                    .entry(key.to_owned())
                    .or_insert_with(|| Entry::Map(Tree::default()));
                if let Entry::Value(_) = entry {
                    *entry = Entry::Map(Tree::default());
                }
                let Entry::Map(next) = entry else {
                    unreachable!("made a mapping above")
                };
                node = next;
            }
        }
        fn emit(tree: &Tree, indent: usize, out: &mut String) {
            for (key, entry) in &tree.0 {
                out.push_str(&" ".repeat(indent));
                out.push_str(&scalar(key));
                out.push(':');
                match entry {
                    Entry::Value(value) => {
                        out.push(' ');
                        out.push_str(&scalar(value));
                        out.push('\n');
                    }
                    Entry::Map(next) => {
                        out.push('\n');
                        emit(next, indent + 2, out);
                    }
                }
            }
        }
        let mut out = String::new();
        emit(&root, 0, &mut out);
        out
    }
}

/// `text` as a YAML scalar: as it is when it is plain, else double-quoted.
fn scalar(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '/'))
        && !text.starts_with(['-', '.']);
    if plain {
        text.to_owned()
    } else {
        serde_json::to_string(text).expect("a string serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::{IstioVersion, KubeVersion};
    use crate::time::Millis;

    fn applied(pairs: &[&str]) -> Result<Settings, String> {
        let pairs: Vec<String> = pairs.iter().map(|p| (*p).to_owned()).collect();
        let overlay = Overlay::parse("--to", &pairs)?;
        let mut settings = Settings::default();
        overlay
            .apply(&mut settings, 1 << 20)
            .map_err(|errors| errors[0].message.clone())?;
        Ok(settings)
    }

    #[test]
    fn short_names_and_dotted_paths_set_the_profile_from_the_flag() {
        let settings = applied(&[
            "istio=1.27",
            "kubernetes=1.30",
            "scenario.appShutdown=12s",
            "istio.nativeSidecars=auto",
        ])
        .unwrap();
        assert_eq!(settings.kubernetes.value, KubeVersion { minor: 30 });
        assert_eq!(settings.kubernetes.source, Source::Flag("--to"));
        assert_eq!(settings.istio.version.unwrap().value, IstioVersion::new(27));
        assert_eq!(settings.scenario.app_shutdown.value, Millis::secs(12));
        assert!(settings.istio.native_sidecars.is_some());
    }

    #[test]
    fn wrong_keys_and_values_name_the_flag() {
        let error = applied(&["istio.versoin=1.2"]).unwrap_err();
        assert!(
            error.starts_with("--to: istio.versoin: unknown setting"),
            "{error}"
        );
        let error = applied(&["app-shutdown=soon"]).unwrap_err();
        assert!(error.contains("scenario.appShutdown"), "{error}");
        let error = applied(&["rules.ML201=off"]).unwrap_err();
        assert!(error.contains("not a setting of the profile"), "{error}");
        assert!(
            applied(&["istio"])
                .unwrap_err()
                .contains("expected KEY=VALUE")
        );
    }

    #[test]
    fn values_that_are_not_plain_are_quoted() {
        assert_eq!(scalar("1.30"), "1.30");
        assert_eq!(scalar("a: b"), "\"a: b\"");
        assert_eq!(scalar("-1"), "\"-1\"");
    }
}
