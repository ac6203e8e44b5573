//! The environment profile from the command line: defaults, then the config file, then
//! mesh config, then what the inputs say (Namespace objects, an `istio` ConfigMap), then
//! what a cluster says (`--cluster`), then flags — each later layer winning.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;

use crate::load::discover::Exclude;
use crate::load::{InputError, Limits};
use crate::pipeline::{self, Inputs};
use crate::settings::config::{self, RuleSetting};
use crate::settings::file::SettingsFile;
use crate::settings::{
    IstioVersion, KubeVersion, LinkerdVersion, Settings, Source, Sourced, mesh_config, preset,
};
use crate::time::{Millis, parse_go_duration};

/// What the cluster is like, and the scenario to simulate.
#[derive(Debug, Args, Default)]
#[command(next_help_heading = "Cluster and mesh")]
pub struct ProfileArgs {
    /// The config file (default: the nearest .mesh-lifecycle.yaml at or above the
    /// working directory).
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,

    /// Ignore any .mesh-lifecycle.yaml.
    #[arg(long)]
    pub no_config: bool,

    /// The cluster's mesh configuration: an Istio `istio` ConfigMap, an IstioOperator, or
    /// Helm values (Istio's or Linkerd's).
    #[arg(long, value_name = "FILE")]
    pub mesh_config: Option<PathBuf>,

    /// Defaults of a managed mesh (alibaba-asm).
    #[arg(long, value_name = "NAME", value_parser = super::values::PRESET, hide_possible_values = true)]
    pub preset: Option<String>,

    /// Kubernetes version of the cluster (default: newest known).
    #[arg(long, value_name = "1.x", value_parser = KubeVersion::parse_known)]
    pub kubernetes_version: Option<KubeVersion>,

    /// Istio version (unknown by default: classic sidecars assumed).
    #[arg(long, value_name = "1.x", value_parser = IstioVersion::parse_known)]
    pub istio_version: Option<IstioVersion>,

    /// Linkerd version (2.x, version-2.x or edge-yy.m.n).
    #[arg(long, value_name = "VERSION", value_parser = LinkerdVersion::parse_known)]
    pub linkerd_version: Option<LinkerdVersion>,

    /// Proxy start-up time, process start to ready (default 2s).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, help_heading = "Scenario")]
    pub proxy_startup: Option<Millis>,

    /// Time until no new requests are routed to a deleted pod (default 5s).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, help_heading = "Scenario")]
    pub endpoint_propagation: Option<Millis>,

    /// An app container's SIGTERM-to-exit time (default 5s).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, help_heading = "Scenario")]
    pub app_shutdown: Option<Millis>,

    /// The longest request the apps serve (unset by default).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, help_heading = "Scenario")]
    pub longest_request: Option<Millis>,

    /// Simulate a deletion with this grace period (`kubectl delete --grace-period`),
    /// which overrides the pod's terminationGracePeriodSeconds; 0 is taken as 1, as
    /// kubectl sends it without --force (the kubelet gives a pod at least 1 s).
    #[arg(long, value_name = "SECONDS", help_heading = "Scenario")]
    pub deletion_grace_period: Option<u32>,

    /// Kubelet feature gates to simulate (SidecarsRestartableDuringPodTermination=true).
    #[arg(
        long,
        value_name = "GATE=BOOL",
        value_delimiter = ',',
        help_heading = "Scenario"
    )]
    pub feature_gates: Vec<String>,
}

/// The profile in force, and the rule settings of the config file.
pub struct Profile {
    pub settings: Settings,
    pub rules: Vec<RuleSetting>,
    /// What is wrong in the mesh configuration read from the cluster: input errors of
    /// the run, which goes on with the rest of it.
    pub cluster_errors: Vec<InputError>,
}

fn parse_duration(text: &str) -> Result<Millis, String> {
    parse_go_duration(text)
        .filter(|d| *d >= Millis::ZERO)
        .ok_or_else(|| format!("`{text}` is not a duration such as 5s or 1m30s"))
}

/// The layers of the profile that come from files, read before the inputs: the config
/// file, whose `exclude:` decides what directory searches find, and mesh config files.
pub struct FileLayers {
    settings: Settings,
    rules: Vec<RuleSetting>,
    errors: Vec<InputError>,
    /// The config file's `exclude:` globs, relative to its directory.
    pub exclude: Option<Exclude>,
    /// Every file read, so that `--output` cannot overwrite one.
    pub files: Vec<PathBuf>,
}

impl ProfileArgs {
    /// Reads the config file and the mesh config files, each at most `max_bytes`.
    pub fn read_files(&self, max_bytes: u64) -> FileLayers {
        let mut layers = FileLayers {
            settings: Settings::default(),
            rules: Vec::new(),
            errors: Vec::new(),
            exclude: None,
            files: Vec::new(),
        };
        let config_path = if self.no_config {
            None
        } else {
            self.config.clone().or_else(|| {
                std::env::current_dir()
                    .ok()
                    .and_then(|dir| config::find_upward(&dir))
            })
        };
        let mut mesh_paths = Vec::new();
        if let Some(path) = config_path {
            let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
            let applied = SettingsFile::read_bounded(&path, max_bytes)
                .map_err(|error| vec![error])
                .and_then(|file| config::apply_file(&file, &base, &mut layers.settings));
            match applied {
                Ok(extras) => {
                    layers.rules = extras.rules;
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
            layers.files.push(path);
        }
        mesh_paths.extend(self.mesh_config.clone());
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

    /// Builds the profile for a run over `inputs` on top of the file layers, with
    /// `cluster` the profile a live cluster states; errors name the file and line at
    /// fault.
    pub fn load(
        &self,
        layers: FileLayers,
        inputs: &Inputs,
        limits: Limits,
        cluster: Option<&crate::cluster::profile::Profile>,
    ) -> Result<Profile, Vec<InputError>> {
        let FileLayers {
            mut settings,
            rules,
            mut errors,
            ..
        } = layers;
        pipeline::gather_context(inputs, limits, &mut settings);
        let cluster_errors = cluster.map_or_else(Vec::new, |cluster| cluster.apply(&mut settings));
        if let Some(name) = &self.preset
            && let Err(message) = preset::apply(name, &mut settings)
        {
            errors.push(InputError::whole("--preset", message));
        }
        if let Err(message) = self.apply(&mut settings) {
            errors.push(InputError::whole("--feature-gates", message));
        }
        if errors.is_empty() {
            Ok(Profile {
                settings,
                rules,
                cluster_errors,
            })
        } else {
            Err(errors)
        }
    }

    /// Applies the flags on top of `settings`.
    pub fn apply(&self, settings: &mut Settings) -> Result<(), String> {
        if let Some(version) = self.kubernetes_version {
            settings.kubernetes = Sourced::new(version, Source::Flag("--kubernetes-version"));
        }
        if let Some(version) = self.istio_version {
            let version = Sourced::new(version, Source::Flag("--istio-version"));
            for istio in
                std::iter::once(&mut settings.istio).chain(settings.istio_revisions.values_mut())
            {
                istio.version = Some(version.clone());
            }
        }
        if let Some(version) = self.linkerd_version {
            settings.linkerd.version =
                Some(Sourced::new(version, Source::Flag("--linkerd-version")));
        }
        let scenario = [
            ("proxy-startup", self.proxy_startup, "--proxy-startup"),
            (
                "endpoint-propagation",
                self.endpoint_propagation,
                "--endpoint-propagation",
            ),
            ("app-shutdown", self.app_shutdown, "--app-shutdown"),
            ("longest-request", self.longest_request, "--longest-request"),
        ];
        for (key, value, flag) in scenario {
            if let Some(value) = value {
                settings.scenario.set(key, value, Source::Flag(flag));
            }
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
                other => return Err(format!("`{other}` is not true or false in `{gate}`")),
            };
            match name {
                "SidecarsRestartableDuringPodTermination" => {
                    settings.restartable_sidecars_during_termination =
                        Sourced::new(on, Source::Flag("--feature-gates"));
                }
                other => {
                    return Err(format!(
                        "unknown feature gate `{other}`; the simulator models SidecarsRestartableDuringPodTermination"
                    ));
                }
            }
        }
        Ok(())
    }
}
