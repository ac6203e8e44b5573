//! The command line's part of the environment profile: which config and mesh config
//! files to read, and the preset and flags laid last ([`crate::settings::layers`] lays
//! them).

use crate::settings::ScenarioKey;
use std::path::PathBuf;

use clap::Args;

use crate::load::{InputError, Inputs, Limits};
use crate::settings::config;
use crate::settings::layers::{FileLayers, Flags, Layer, Profile};
use crate::settings::{IstioVersion, KubeVersion, LinkerdVersion, MeshVersion};
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

    /// The oldest kubelet version among the nodes, which Istio's native-sidecar `auto`
    /// mode looks at (default: the Kubernetes version).
    #[arg(long, value_name = "1.x", value_parser = KubeVersion::parse_known)]
    pub node_version: Option<KubeVersion>,

    /// A mesh's release, MESH one of istio, linkerd, kuma, consul (consul-k8s), dapr,
    /// cloud-sql-proxy; repeat it or separate with commas (unknown by default: each
    /// mesh read as its releases before native sidecars).
    #[arg(
        long,
        value_name = "MESH=VERSION",
        value_delimiter = ',',
        value_parser = MeshVersion::parse_known
    )]
    pub mesh_version: Vec<MeshVersion>,

    /// Istio version, the same as --mesh-version istio=VERSION.
    #[arg(long, value_name = "1.x", value_parser = IstioVersion::parse_known)]
    pub istio_version: Option<IstioVersion>,

    /// Linkerd version (2.x, version-2.x or edge-yy.m.n), the same as --mesh-version
    /// linkerd=VERSION.
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

    /// Feature gates to simulate (SidecarsRestartableDuringPodTermination=true, ContainerRestartRules=false).
    #[arg(
        long,
        value_name = "GATE=BOOL",
        value_delimiter = ',',
        help_heading = "Scenario"
    )]
    pub feature_gates: Vec<String>,
}

pub(super) fn parse_duration(text: &str) -> Result<Millis, String> {
    parse_go_duration(text)
        .filter(|d| *d >= Millis::ZERO)
        .ok_or_else(|| format!("`{text}` is not a duration such as 5s or 1m30s"))
}

impl ProfileArgs {
    /// Reads the config file (`--config`, else the nearest one, unless `--no-config`)
    /// and the mesh config files, each at most `max_bytes`; with the notes of the
    /// search for the config file (files it passed over, and why).
    pub fn read_files(&self, max_bytes: u64) -> (FileLayers, Vec<String>) {
        let found = match (&self.config, self.no_config) {
            (_, true) => config::Found::default(),
            (Some(path), false) => config::Found {
                path: Some(path.clone()),
                notes: Vec::new(),
            },
            (None, false) => std::env::current_dir()
                .map(|dir| config::find_upward(&dir))
                .unwrap_or_default(),
        };
        let config_path = found.path;
        let mesh_configs: Vec<PathBuf> = self.mesh_config.iter().cloned().collect();
        (
            FileLayers::read(config_path.as_deref(), &mesh_configs, max_bytes),
            found.notes,
        )
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
        let cluster = cluster.map(|profile| profile as &dyn Layer);
        layers.complete(inputs, limits, cluster, &self.flags())
    }

    /// The preset and flags, the last layers of the profile.
    pub fn flags(&self) -> Flags {
        let scenario = [
            (ScenarioKey::ProxyStartup, self.proxy_startup),
            (ScenarioKey::EndpointPropagation, self.endpoint_propagation),
            (ScenarioKey::AppShutdown, self.app_shutdown),
            (ScenarioKey::LongestRequest, self.longest_request),
        ];
        Flags {
            preset: self.preset.clone(),
            kubernetes_version: self.kubernetes_version,
            node_version: self.node_version,
            istio_version: self.istio_version,
            linkerd_version: self.linkerd_version,
            mesh_versions: self.mesh_version.clone(),
            scenario: scenario
                .into_iter()
                .filter_map(|(key, value)| Some((key, value?)))
                .collect(),
            deletion_grace_period: self.deletion_grace_period,
            feature_gates: self.feature_gates.clone(),
        }
    }
}
