//! The profile in force, laid from its layers, each later one winning: the built-in
//! defaults, the config file, mesh config files, what the inputs say (Namespace
//! objects, an `istio` ConfigMap, `linkerd-config`), what a live cluster says, a preset,
//! then flags.

use crate::settings::ScenarioKey;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::config::{self, RuleSetting};
use super::file::SettingsFile;
use super::{
    IstioVersion, KubeVersion, LinkerdVersion, MeshVersion, NamespaceInfo, Settings, Source,
    Sourced, mesh_config, preset,
};
use crate::load::discover::Exclude;
use crate::load::inputs::{Inputs, declared_kinds, declares_kind};
use crate::load::{Document, InputError, Limits};
use crate::time::Millis;
use crate::workload;

/// A layer that comes from outside the files and the inputs: what a live cluster
/// states (`--cluster`).
pub trait Layer {
    /// Lays the layer over `settings`; returns what is wrong in it, each error at its
    /// place, the rest of it applied.
    fn apply(&self, settings: &mut Settings) -> Vec<InputError>;
}

/// The profile in force, and the rule settings of the config file.
pub struct Profile {
    /// What resolve reads beyond the manifest.
    pub settings: Settings,
    /// The config file's `rules:`, for the rule selector.
    pub rules: Vec<RuleSetting>,
    /// The config file's `fixable:` and `unfixable:`, for the rule selector.
    pub fixable: config::Fixable,
    /// The config file's `assumedLosses:`, for the rule selector.
    pub assumed_losses: Option<config::AssumedLosses>,
    /// What is wrong in the mesh configuration read from the cluster: input errors of
    /// the run, which goes on with the rest of it.
    pub cluster_errors: Vec<InputError>,
}

/// The layers of the profile that come from files, read before the inputs: the config
/// file, whose `exclude:` decides what directory searches find, and mesh config files.
pub struct FileLayers {
    settings: Settings,
    rules: Vec<RuleSetting>,
    fixable: config::Fixable,
    assumed_losses: Option<config::AssumedLosses>,
    errors: Vec<InputError>,
    /// The config file's `exclude:` globs, relative to its directory.
    pub exclude: Option<Exclude>,
    /// Every file read, so that `--output-file` cannot overwrite one.
    pub files: Vec<PathBuf>,
    /// The config file in force, if any.
    pub config: Option<PathBuf>,
    /// `strict:` of the config file.
    pub strict: bool,
    /// `renderTimeout:` of the config file.
    pub render_timeout: Option<crate::external::Timeout>,
}

/// What the command line sets, the last layers: a preset, then flags.
#[derive(Clone, Debug, Default)]
pub struct Flags {
    /// `--preset`.
    pub preset: Option<String>,
    /// `--kubernetes-version`.
    pub kubernetes_version: Option<KubeVersion>,
    /// `--node-version`.
    pub node_version: Option<KubeVersion>,
    /// `--istio-version`, for every Istio revision.
    pub istio_version: Option<IstioVersion>,
    /// `--linkerd-version`.
    pub linkerd_version: Option<LinkerdVersion>,
    /// `--mesh-version`, each mesh's release; `--istio-version` and
    /// `--linkerd-version` are the same thing, and two different values for one mesh
    /// are an error.
    pub mesh_versions: Vec<MeshVersion>,
    /// Scenario values: the value's name, the value and the flag that set it.
    pub scenario: Vec<(ScenarioKey, Millis)>,
    /// `--deletion-grace-period`.
    pub deletion_grace_period: Option<u32>,
    /// `--feature-gates`, as written (`GATE=BOOL`, or `GATE` for true).
    pub feature_gates: Vec<String>,
}

impl FileLayers {
    /// Reads the config file `config` and the mesh config files (the one it names, then
    /// `mesh_configs`), each at most `max_bytes`.
    pub fn read(config: Option<&Path>, mesh_configs: &[PathBuf], max_bytes: u64) -> FileLayers {
        let mut layers = FileLayers {
            settings: Settings::default(),
            rules: Vec::new(),
            fixable: config::Fixable::default(),
            assumed_losses: None,
            errors: Vec::new(),
            exclude: None,
            files: Vec::new(),
            config: config.map(Path::to_path_buf),
            strict: false,
            render_timeout: None,
        };
        let mut mesh_paths = Vec::new();
        if let Some(path) = config {
            let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
            let applied = SettingsFile::read_bounded(path, max_bytes)
                .map_err(|error| vec![error])
                .and_then(|file| config::apply_file(&file, &base, &mut layers.settings));
            match applied {
                Ok(extras) => {
                    layers.rules = extras.rules;
                    layers.strict = extras.strict;
                    layers.render_timeout =
                        extras
                            .render_timeout
                            .map(|timeout| crate::external::Timeout {
                                duration: u64::try_from(timeout.0)
                                    .ok()
                                    .filter(|ms| *ms > 0)
                                    .map(std::time::Duration::from_millis),
                                flag: "renderTimeout",
                                text: timeout.to_string(),
                            });
                    layers.fixable = extras.fixable;
                    layers.assumed_losses = extras.assumed_losses;
                    mesh_paths.extend(extras.mesh_config);
                    if !extras.exclude.is_empty() {
                        layers.exclude = Some(Exclude {
                            root: std::path::absolute(&base).unwrap_or(base),
                            globs: extras.exclude,
                            origin: Arc::from(path.to_string_lossy().as_ref()),
                        });
                    }
                }
                Err(found) => layers.errors.extend(found),
            }
            layers.files.push(path.to_path_buf());
        }
        mesh_paths.extend(mesh_configs.iter().cloned());
        for path in mesh_paths {
            let source = Source::MeshConfig(Arc::from(path.to_string_lossy().as_ref()));
            let applied = SettingsFile::read_bounded(&path, max_bytes)
                .map_err(|error| vec![error])
                .and_then(|file| mesh_config::apply_file(&file, &mut layers.settings, source));
            if let Err(found) = applied {
                layers.errors.extend(found);
            }
            layers.files.push(path);
        }
        layers
    }

    /// The kinds the config file declares (`workloadKinds`).
    pub fn workload_kinds(&self) -> &[&'static crate::workload::DeclaredKind] {
        &self.settings.workload_kinds
    }

    /// Completes the profile for a run over `inputs`: the inputs' context, then
    /// `cluster`, then `flags`. Errors name the file and line at fault.
    pub fn complete(
        self,
        inputs: &Inputs,
        limits: Limits,
        cluster: Option<&dyn Layer>,
        flags: &Flags,
    ) -> Result<Profile, Vec<InputError>> {
        let FileLayers {
            mut settings,
            rules,
            fixable,
            assumed_losses,
            mut errors,
            ..
        } = self;
        gather_context(inputs, limits, &mut settings);
        let cluster_errors = cluster.map_or_else(Vec::new, |cluster| cluster.apply(&mut settings));
        if let Some(name) = &flags.preset
            && let Err(message) = preset::apply(name, &mut settings)
        {
            errors.push(InputError::whole("--preset", message));
        }
        if let Err((flag, message)) = flags.apply(&mut settings) {
            errors.push(InputError::whole(flag, message));
        }
        if errors.is_empty() {
            Ok(Profile {
                settings,
                rules,
                fixable,
                assumed_losses,
                cluster_errors,
            })
        } else {
            Err(errors)
        }
    }
}

/// Objects in the input that change how other documents are read: `Namespace` objects,
/// whose labels decide injection, `Service` objects, whose selectors make the pods
/// they select serve, `ConfigMap` objects that may hold scripts a pod runs from a
/// volume (those with a `#!` line or a `.sh` key), and mesh configuration (an `istio` ConfigMap, an
/// IstioOperator, Linkerd's `linkerd-config`). Only documents that mention them are
/// parsed here. Mesh configuration is checked as `--mesh-config` checks it; what is wrong
/// in it is reported by the main pass, with the document.
pub fn gather_context(inputs: &Inputs, limits: Limits, settings: &mut Settings) {
    let mesh_config = |text: &str| {
        declares_kind(text, "IstioOperator")
            || (declares_kind(text, "ConfigMap")
                && (text.contains("istio") || text.contains("linkerd-config")))
    };
    // Each document's text is searched for its kinds once, whatever is asked of them.
    let wanted = |text: &str| {
        let (mut wanted, mut config_map, mut rollout) = (false, false, false);
        for kind in declared_kinds(text) {
            match kind {
                "IstioOperator" | "Namespace" | "Service" => wanted = true,
                "ConfigMap" => config_map = true,
                "Rollout" => rollout = true,
                _ => {}
            }
        }
        wanted
            || (config_map
                && (text.contains("istio")
                    || text.contains("linkerd-config")
                    || workload::config_map::may_hold_scripts(text)))
            || (rollout && text.contains("workloadRef"))
    };
    let mut references = std::collections::BTreeSet::new();
    inputs.parse_ahead(&limits, wanted, |file, document| {
        references.extend(workload::reference::references(document));
        let errors = if mesh_config(&document.source.text) {
            apply_mesh_objects(file, document, settings)
        } else {
            Vec::new()
        };
        let objects = workload::objects(document);
        settings.services.extend(
            objects
                .services
                .into_iter()
                .map(|service| (service, Source::Input(file.clone()))),
        );
        settings.config_maps.extend(
            objects
                .config_maps
                .into_iter()
                .map(|config_map| (config_map, Source::Input(file.clone()))),
        );
        for namespace in objects.namespaces {
            settings.namespaces.insert(
                namespace.name.clone(),
                NamespaceInfo {
                    labels: namespace.labels,
                    annotations: namespace.annotations,
                    source: Some(Source::Input(file.clone())),
                },
            );
        }
        errors
    });
    // The objects those references name, only when there are any: a second look at
    // the documents that may hold them.
    if references.is_empty() {
        return;
    }
    let holds = |text: &str| {
        ["Deployment", "ReplicaSet", "PodTemplate"]
            .iter()
            .any(|kind| declares_kind(text, kind))
            && references.iter().any(|r| text.contains(r.name.as_str()))
    };
    let mut templates = std::mem::take(&mut settings.templates);
    inputs.parse_ahead(&limits, holds, |file, document| {
        templates.collect(file, document, &references);
        Vec::new()
    });
    settings.templates = templates;
}

/// Applies the mesh configuration among a document's objects (itself, or the items of a
/// `List`), returning what is wrong in it.
fn apply_mesh_objects(
    file: &Arc<str>,
    document: &Document,
    settings: &mut Settings,
) -> Vec<InputError> {
    let objects = match workload::list_items(&document.root) {
        Some(items) => items.iter().collect(),
        None => vec![&document.root],
    };
    objects
        .into_iter()
        .flat_map(|object| {
            let source = Source::Input(file.clone());
            mesh_config::apply_input_object(object, &document.source, settings, source)
        })
        .collect()
}

impl Flags {
    /// Applies the flags on top of `settings`; `Err` names the flag that is wrong and
    /// why (a feature gate, two versions of one mesh).
    pub fn apply(&self, settings: &mut Settings) -> Result<(), (&'static str, String)> {
        if let Some(version) = self.kubernetes_version {
            settings.kubernetes = Sourced::new(version, Source::Flag("--kubernetes-version"));
        }
        if let Some(version) = self.node_version {
            settings.nodes = Some(Sourced::new(version, Source::Flag("--node-version")));
        }
        for (version, flag) in self.mesh_versions()? {
            apply_mesh_version(version, flag, settings);
        }
        for &(key, value) in &self.scenario {
            settings.scenario.set(key, value, Source::Flag(key.flag()));
        }
        if let Some(seconds) = self.deletion_grace_period {
            settings.deletion_grace_period = Some(Sourced::new(
                i64::from(seconds),
                Source::Flag("--deletion-grace-period"),
            ));
        }
        for gate in &self.feature_gates {
            let (name, value) = gate.split_once('=').unwrap_or((gate.as_str(), "true"));
            let on = match value {
                "true" => true,
                "false" => false,
                other => {
                    return Err((
                        "--feature-gates",
                        format!("`{other}` is not true or false in `{gate}`"),
                    ));
                }
            };
            let version = settings.kubernetes.value;
            match name {
                "SidecarsRestartableDuringPodTermination" => {
                    settings.restartable_sidecars_during_termination =
                        Sourced::new(on, Source::Flag("--feature-gates"));
                }
                "ContainerRestartRules" if !version.has_container_restart_rules_gate() => {
                    return Err((
                        "--feature-gates",
                        format!(
                            "Kubernetes {version} has no feature gate `ContainerRestartRules` (alpha from 1.34, beta and on from 1.35)"
                        ),
                    ));
                }
                "ContainerRestartRules" => {
                    settings.container_restart_rules =
                        Some(Sourced::new(on, Source::Flag("--feature-gates")));
                }
                other => {
                    return Err((
                        "--feature-gates",
                        format!(
                            "unknown feature gate `{other}`; the simulator models SidecarsRestartableDuringPodTermination and ContainerRestartRules"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Every mesh version the flags give, with the flag that gives it: one per mesh,
    /// the same value given twice being one.
    fn mesh_versions(&self) -> Result<Vec<(MeshVersion, &'static str)>, (&'static str, String)> {
        let given = self
            .istio_version
            .map(|v| (MeshVersion::Istio(v), "--istio-version"))
            .into_iter()
            .chain(
                self.linkerd_version
                    .map(|v| (MeshVersion::Linkerd(v), "--linkerd-version")),
            )
            .chain(self.mesh_versions.iter().map(|v| (*v, "--mesh-version")));
        let mut versions: Vec<(MeshVersion, &'static str)> = Vec::new();
        for (version, flag) in given {
            match versions.iter().find(|(v, _)| v.mesh() == version.mesh()) {
                Some((earlier, _)) if *earlier == version => {}
                Some((earlier, earlier_flag)) => {
                    let written = |flag: &str, v: &MeshVersion| match flag {
                        "--mesh-version" => format!("--mesh-version {v}"),
                        _ => format!(
                            "{flag} {}",
                            v.to_string().split_once('=').map_or("", |(_, v)| v)
                        ),
                    };
                    return Err((
                        flag,
                        format!(
                            "{} and {} give {} two versions; give one",
                            written(earlier_flag, earlier),
                            written(flag, &version),
                            version.mesh()
                        ),
                    ));
                }
                None => versions.push((version, flag)),
            }
        }
        Ok(versions)
    }
}

/// Sets the version of one mesh, given by `flag`.
fn apply_mesh_version(version: MeshVersion, flag: &'static str, settings: &mut Settings) {
    let source = Source::Flag(flag);
    match version {
        MeshVersion::Istio(version) => {
            let version = Sourced::new(version, source);
            for istio in
                std::iter::once(&mut settings.istio).chain(settings.istio_revisions.values_mut())
            {
                istio.version = Some(version.clone());
            }
        }
        MeshVersion::Linkerd(version) => {
            settings.linkerd.version = Some(Sourced::new(version, source));
        }
        MeshVersion::Kuma(version) => {
            settings.versions.kuma = Some(Sourced::new(version, source));
        }
        MeshVersion::Consul(version) => {
            settings.versions.consul = Some(Sourced::new(version, source));
        }
        MeshVersion::Dapr(version) => {
            settings.versions.dapr = Some(Sourced::new(version, source));
        }
        MeshVersion::CloudSqlProxy(version) => {
            settings.versions.cloud_sql_proxy = Some(Sourced::new(version, source));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_is_read_once_and_gives_its_context() {
        // A Namespace after the pod it labels: the context pass must see it, from the
        // one reading of the stream.
        let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\nspec:\n  containers: [{name: a, image: x}]\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels: {istio-injection: enabled}\n";
        let inputs = Inputs::from_bytes(text.as_bytes().to_vec());
        let mut settings = Settings::default();
        gather_context(&inputs, Limits::default(), &mut settings);
        assert_eq!(
            settings.namespaces["shop"].labels["istio-injection"],
            "enabled"
        );
        let mut units = 0;
        inputs.read_all(|_| units += 1);
        assert_eq!(units, 2, "both documents are still there for the main pass");
    }

    #[test]
    fn flags_win_and_wrong_gates_are_refused() {
        let mut settings = Settings::default();
        let flags = Flags {
            scenario: vec![(ScenarioKey::AppShutdown, Millis::secs(9))],
            feature_gates: vec!["SidecarsRestartableDuringPodTermination".into()],
            ..Flags::default()
        };
        flags.apply(&mut settings).unwrap();
        assert_eq!(settings.scenario.app_shutdown.value, Millis::secs(9));
        assert!(settings.restartable_sidecars_during_termination.value);
        let wrong = Flags {
            feature_gates: vec!["SidecarsRestartableDuringPodTermination=yes".into()],
            ..Flags::default()
        };
        assert_eq!(
            wrong.apply(&mut settings).unwrap_err().1,
            "`yes` is not true or false in `SidecarsRestartableDuringPodTermination=yes`"
        );
        // A gate the version does not have is refused, by name, not ignored.
        let too_old = Flags {
            kubernetes_version: KubeVersion::parse("1.33"),
            feature_gates: vec!["ContainerRestartRules=true".into()],
            ..Flags::default()
        };
        assert_eq!(
            too_old.apply(&mut settings).unwrap_err().1,
            "Kubernetes 1.33 has no feature gate `ContainerRestartRules` (alpha from 1.34, beta and on from 1.35)"
        );
        let on = Flags {
            kubernetes_version: KubeVersion::parse("1.34"),
            feature_gates: vec!["ContainerRestartRules".into()],
            ..Flags::default()
        };
        on.apply(&mut settings).unwrap();
        assert!(settings.container_restart_rules());
    }

    #[test]
    fn mesh_versions_are_one_per_mesh_whichever_flag_gives_them() {
        let version = |text| MeshVersion::parse_known(text).unwrap();
        let mut settings = Settings::default();
        let flags = Flags {
            istio_version: IstioVersion::parse("1.24"),
            mesh_versions: vec![
                version("istio=1.24"),
                version("kuma=2.13"),
                version("dapr=1.17"),
            ],
            ..Flags::default()
        };
        flags.apply(&mut settings).unwrap();
        assert_eq!(settings.istio.version.as_ref().unwrap().value.minor, 24);
        let kuma = settings.versions.kuma.as_ref().unwrap();
        assert_eq!(kuma.value.to_string(), "2.13");
        assert_eq!(kuma.source, Source::Flag("--mesh-version"));
        assert_eq!(
            settings.versions.dapr.as_ref().unwrap().value.to_string(),
            "1.17"
        );
        assert!(settings.versions.consul.is_none());
        let twice = Flags {
            linkerd_version: LinkerdVersion::parse("2.16"),
            mesh_versions: vec![version("linkerd=2.18")],
            ..Flags::default()
        };
        assert_eq!(
            twice.apply(&mut Settings::default()).unwrap_err(),
            (
                "--mesh-version",
                "--linkerd-version 2.16 and --mesh-version linkerd=2.18 give linkerd two versions; give one".to_owned()
            )
        );
    }
}
