//! The environment profile from the command line: defaults, then the config file, then
//! mesh config, then what the inputs say (Namespace objects, an `istio` ConfigMap), then
//! what a cluster says (`--cluster`), then flags — each later layer winning.

use std::path::PathBuf;

use clap::Args;

use crate::load::{InputError, Limits};
use crate::pipeline::{self, Inputs};
use crate::settings::config::{self, RuleSetting};
use crate::settings::{
    IstioVersion, KubeVersion, LinkerdVersion, Settings, Source, Sourced, mesh_config, preset,
};
use crate::time::{Millis, parse_go_duration};

/// What the cluster is like, and the scenario to simulate.
#[derive(Debug, Args, Default)]
#[command(next_help_heading = "Environment")]
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
    #[arg(long, value_name = "NAME")]
    pub preset: Option<String>,

    /// Kubernetes version of the cluster (default: newest known).
    #[arg(long, value_name = "1.x", value_parser = parse_kube)]
    pub kubernetes_version: Option<KubeVersion>,

    /// Istio version (unknown by default: classic sidecars assumed).
    #[arg(long, value_name = "1.x", value_parser = parse_istio)]
    pub istio_version: Option<IstioVersion>,

    /// Linkerd version (2.x, version-2.x or edge-yy.m.n).
    #[arg(long, value_name = "VERSION", value_parser = parse_linkerd)]
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
}

fn parse_kube(text: &str) -> Result<KubeVersion, String> {
    KubeVersion::parse(text)
        .ok_or_else(|| format!("`{text}` is not a Kubernetes version such as 1.29"))
}

fn parse_istio(text: &str) -> Result<IstioVersion, String> {
    IstioVersion::parse(text)
        .ok_or_else(|| format!("`{text}` is not an Istio version such as 1.24"))
}

fn parse_linkerd(text: &str) -> Result<LinkerdVersion, String> {
    LinkerdVersion::parse(text)
        .ok_or_else(|| format!("`{text}` is not a Linkerd version such as 2.16 or edge-24.6.2"))
}

fn parse_duration(text: &str) -> Result<Millis, String> {
    parse_go_duration(text)
        .filter(|d| *d >= Millis::ZERO)
        .ok_or_else(|| format!("`{text}` is not a duration such as 5s or 1m30s"))
}

impl ProfileArgs {
    /// Builds the profile for a run over `inputs`, with `cluster` the profile a live
    /// cluster states; errors name the file and line at fault.
    pub fn load(
        &self,
        inputs: &Inputs,
        cluster: Option<&crate::cluster::profile::Profile>,
    ) -> Result<Profile, Vec<InputError>> {
        let mut settings = Settings::default();
        let mut rules = Vec::new();
        let mut errors = Vec::new();
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
        if let Some(path) = &config_path {
            match config::apply(path, &mut settings) {
                Ok(extras) => {
                    rules = extras.rules;
                    mesh_paths.extend(extras.mesh_config);
                }
                Err(found) => errors.extend(found),
            }
        }
        mesh_paths.extend(self.mesh_config.clone());
        for path in mesh_paths {
            let source = Source::MeshConfig(std::sync::Arc::from(path.to_string_lossy().as_ref()));
            if let Err(found) = mesh_config::apply(&path, &mut settings, source) {
                errors.extend(found);
            }
        }
        pipeline::gather_context(inputs, Limits::default(), &mut settings);
        if let Some(cluster) = cluster {
            cluster.apply(&mut settings);
        }
        if let Some(name) = &self.preset
            && let Err(message) = preset::apply(name, &mut settings)
        {
            errors.push(InputError::whole("--preset", message));
        }
        if let Err(message) = self.apply(&mut settings) {
            errors.push(InputError::whole("--feature-gates", message));
        }
        if errors.is_empty() {
            Ok(Profile { settings, rules })
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
