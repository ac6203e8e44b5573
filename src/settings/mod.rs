//! The environment profile: what the manifest does not say but the verdict depends on.
//!
//! Kubernetes version, mesh versions and mesh-wide defaults, which namespaces inject,
//! and the scenario values of the simulation. Every value remembers where it came from
//! ([`Source`]) so the assumptions in force can be printed with the result.

pub mod config;
pub mod file;
pub mod istio;
pub mod layers;
pub mod linkerd;
pub mod mesh_config;
mod newest;
pub mod overlay;
pub mod preset;
pub mod source;
pub mod version;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::time::Millis;

pub use istio::IstioSettings;
pub use linkerd::LinkerdSettings;
pub use source::{Source, Sourced};
pub use version::mesh::MeshVersion;
pub use version::{
    CloudSqlProxyVersion, ConsulVersion, DaprVersion, IstioVersion, KubeVersion, KumaVersion,
    LinkerdVersion,
};

/// The scenario values: what no manifest says about the application. Each is named,
/// printed with every `explain`, and overridable by flag, config and per-workload
/// annotation (`mesh-lifecycle.io/<name>`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    /// Proxy (or any sidecar) process start to ready.
    pub proxy_startup: Sourced<Millis>,
    /// Deletion to the moment no new requests are routed to the pod.
    pub endpoint_propagation: Sourced<Millis>,
    /// An app container's SIGTERM to exit.
    pub app_shutdown: Sourced<Millis>,
    /// The longest request the app serves; rules about cut requests need it.
    pub longest_request: Option<Sourced<Millis>>,
    /// How long a regular init container runs.
    pub init_duration: Sourced<Millis>,
    /// How long a Job's work runs before its container exits.
    pub job_duration: Sourced<Millis>,
}

/// One of the scenario values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScenarioKey {
    /// How long a proxy takes to become ready.
    ProxyStartup,
    /// How long endpoint removal takes to reach every client.
    EndpointPropagation,
    /// How long an app takes to exit after SIGTERM.
    AppShutdown,
    /// The longest request an app serves.
    LongestRequest,
    /// How long each init container runs.
    InitDuration,
    /// How long a Job's work runs.
    JobDuration,
}

impl ScenarioKey {
    /// Every scenario value, in a stable order.
    pub const ALL: [ScenarioKey; 6] = [
        ScenarioKey::ProxyStartup,
        ScenarioKey::EndpointPropagation,
        ScenarioKey::AppShutdown,
        ScenarioKey::LongestRequest,
        ScenarioKey::InitDuration,
        ScenarioKey::JobDuration,
    ];

    /// The name flags, config keys and annotation suffixes use (`app-shutdown`).
    pub fn name(self) -> &'static str {
        match self {
            ScenarioKey::ProxyStartup => "proxy-startup",
            ScenarioKey::EndpointPropagation => "endpoint-propagation",
            ScenarioKey::AppShutdown => "app-shutdown",
            ScenarioKey::LongestRequest => "longest-request",
            ScenarioKey::InitDuration => "init-duration",
            ScenarioKey::JobDuration => "job-duration",
        }
    }

    /// The command-line flag that sets it (`--app-shutdown`).
    pub fn flag(self) -> &'static str {
        match self {
            ScenarioKey::ProxyStartup => "--proxy-startup",
            ScenarioKey::EndpointPropagation => "--endpoint-propagation",
            ScenarioKey::AppShutdown => "--app-shutdown",
            ScenarioKey::LongestRequest => "--longest-request",
            ScenarioKey::InitDuration => "--init-duration",
            ScenarioKey::JobDuration => "--job-duration",
        }
    }
}

impl fmt::Display for ScenarioKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            proxy_startup: Sourced::default_value(Millis::secs(2)),
            endpoint_propagation: Sourced::default_value(Millis::secs(5)),
            app_shutdown: Sourced::default_value(Millis::secs(5)),
            longest_request: None,
            init_duration: Sourced::default_value(Millis::ZERO),
            job_duration: Sourced::default_value(Millis::secs(10)),
        }
    }
}

impl Scenario {
    /// Sets the value of `key`.
    pub fn set(&mut self, key: ScenarioKey, value: Millis, source: Source) {
        let value = Sourced::new(value, source);
        match key {
            ScenarioKey::ProxyStartup => self.proxy_startup = value,
            ScenarioKey::EndpointPropagation => self.endpoint_propagation = value,
            ScenarioKey::AppShutdown => self.app_shutdown = value,
            ScenarioKey::LongestRequest => self.longest_request = Some(value),
            ScenarioKey::InitDuration => self.init_duration = value,
            ScenarioKey::JobDuration => self.job_duration = value,
        }
    }

    /// The value of `key`, when it has one.
    pub fn get(&self, key: ScenarioKey) -> Option<&Sourced<Millis>> {
        match key {
            ScenarioKey::ProxyStartup => Some(&self.proxy_startup),
            ScenarioKey::EndpointPropagation => Some(&self.endpoint_propagation),
            ScenarioKey::AppShutdown => Some(&self.app_shutdown),
            ScenarioKey::LongestRequest => self.longest_request.as_ref(),
            ScenarioKey::InitDuration => Some(&self.init_duration),
            ScenarioKey::JobDuration => Some(&self.job_duration),
        }
    }

    /// Every value with its key, in a stable order, for printing.
    pub fn entries(&self) -> Vec<(ScenarioKey, Option<&Sourced<Millis>>)> {
        ScenarioKey::ALL
            .into_iter()
            .map(|key| (key, self.get(key)))
            .collect()
    }
}

/// Labels and annotations of a namespace, as far as injection is concerned.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NamespaceInfo {
    /// Its labels (`istio-injection`, `istio.io/rev`).
    pub labels: BTreeMap<String, String>,
    /// Its annotations (`linkerd.io/inject`, Linkerd's `config.*` defaults).
    pub annotations: BTreeMap<String, String>,
    /// Where they were read: config or a `Namespace` in the input.
    pub source: Option<Source>,
}

/// The namespace `kubectl apply` puts an object without `metadata.namespace` in when
/// the context names none.
pub const DEFAULT_NAMESPACE: &str = "default";

/// A sidecar that users declare in config, with its own start and stop behaviour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeclaredSidecar {
    /// Container name it is recognised by.
    pub name: String,
    /// Process start to ready.
    pub startup: Option<Millis>,
    /// SIGTERM to exit.
    pub shutdown: Millis,
    /// Whether the app's traffic passes through it (then its absence loses traffic).
    pub carries_traffic: bool,
}

/// The releases of the meshes other than Istio and Linkerd, each unknown unless given
/// (`--mesh-version`, the config file): unknown, each mesh is read as its releases
/// before its native-sidecar default, and a setting the manifest writes as written
/// (docs/configuration.md, "Mesh versions").
#[derive(Clone, Debug, Default)]
pub struct SidecarVersions {
    /// Kuma's control plane.
    pub kuma: Option<Sourced<KumaVersion>>,
    /// consul-k8s (its connect injector).
    pub consul: Option<Sourced<ConsulVersion>>,
    /// Dapr's sidecar injector.
    pub dapr: Option<Sourced<DaprVersion>>,
    /// The Cloud SQL Auth Proxy v2, for every proxy of the pod; a proxy whose image
    /// tag is a version is read by that tag unless this is given by flag.
    pub cloud_sql_proxy: Option<Sourced<CloudSqlProxyVersion>>,
}

/// Everything resolve needs beyond the manifest.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The kubelet's version, which decides native sidecars and the sleep action.
    pub kubernetes: Sourced<KubeVersion>,
    /// The oldest kubelet among the nodes, when it is known apart from
    /// [`Settings::kubernetes`] (`--node-version`, `nodeVersion`, the nodes a cluster
    /// reports): what Istio's `ENABLE_NATIVE_SIDECARS=auto` looks at.
    pub nodes: Option<Sourced<KubeVersion>>,
    /// Istio's version and mesh-wide configuration: the default revision's.
    pub istio: IstioSettings,
    /// The other Istio revisions and revision tags, by name: the control plane a pod
    /// selects with an `istio.io/rev` label, its own or its namespace's. Read from the
    /// cluster; empty offline, where every pod gets [`Settings::istio`].
    pub istio_revisions: BTreeMap<String, IstioSettings>,
    /// Linkerd's version and install values.
    pub linkerd: LinkerdSettings,
    /// The releases of Kuma, consul-k8s, Dapr and the Cloud SQL Auth Proxy, where
    /// given.
    pub versions: SidecarVersions,
    /// Namespaces known from config and from `Namespace` objects in the input.
    pub namespaces: BTreeMap<String, NamespaceInfo>,
    /// `Service` objects in the input, with the file each is in: the pods they select
    /// serve on their target ports.
    pub services: Vec<(crate::workload::Service, Source)>,
    /// The ConfigMaps of the input that may hold scripts a pod mounts and runs.
    pub config_maps: Vec<(crate::workload::ConfigMap, Source)>,
    /// The timings the manifest cannot state (proxy start-up, app shutdown…).
    pub scenario: Scenario,
    /// Sidecars the user described in config.
    pub declared_sidecars: Vec<DeclaredSidecar>,
    /// Commands that stop the sidecar when a Job's work ends (`wait-and-quit-envoy`).
    pub stop_wrappers: Vec<String>,
    /// Custom resources whose pods are read where `workloadKinds` says.
    pub workload_kinds: Vec<&'static crate::workload::DeclaredKind>,
    /// The pod templates of the input that others take by reference (a Rollout's
    /// `spec.workloadRef`).
    pub templates: crate::workload::Templates,
    /// `metadata.deletionGracePeriodSeconds` of the deletion being simulated
    /// (`kubectl delete --grace-period`); it overrides the pod's grace period.
    pub deletion_grace_period: Option<Sourced<i64>>,
    /// The kubelet's `SidecarsRestartableDuringPodTermination` gate (alpha, off):
    /// termination against an absolute deadline, without the 2-second floor
    /// (docs/lifecycle.md §2.5).
    pub restartable_sidecars_during_termination: Sourced<bool>,
    /// The `ContainerRestartRules` gate as `--feature-gates` sets it, when it does;
    /// otherwise the version's default (alpha and off in 1.34, beta and on from 1.35).
    /// docs/lifecycle.md §2.9.
    pub container_restart_rules: Option<Sourced<bool>>,
    /// These settings with each mesh's newest release where it is unknown, built on
    /// first use ([`Settings::with_newest_release`]).
    pub newest_releases: newest::BuiltOnce<NewestRelease>,
}

/// The settings as a mesh's newest release reads them, where its release is unknown.
#[derive(Debug)]
pub struct NewestRelease {
    /// The settings, with that release.
    pub settings: Settings,
    /// The release, in words (`Istio 1.29`).
    pub release: String,
}

impl Settings {
    /// What is known of the namespace an object lands in, given its
    /// `metadata.namespace`: without one, [`DEFAULT_NAMESPACE`], as kubectl applies it
    /// (a context naming another namespace is not known offline).
    pub fn namespace_of(&self, namespace: Option<&str>) -> Option<(&str, &NamespaceInfo)> {
        self.namespaces
            .get_key_value(namespace.unwrap_or(DEFAULT_NAMESPACE))
            .map(|(name, info)| (name.as_str(), info))
    }

    /// The oldest kubelet of the nodes: [`Settings::nodes`] when known, else the
    /// Kubernetes version.
    pub fn node_version(&self) -> &Sourced<KubeVersion> {
        self.nodes.as_ref().unwrap_or(&self.kubernetes)
    }

    /// Whether `ContainerRestartRules` is on: as `--feature-gates` sets it on a version
    /// that has the gate (1.34 and later), else the version's default (on from 1.35).
    /// docs/lifecycle.md §2.9.
    pub fn container_restart_rules(&self) -> bool {
        let version = self.kubernetes.value;
        match &self.container_restart_rules {
            Some(gate) if version.has_container_restart_rules_gate() => gate.value,
            _ => version.honours_container_restart_policy(),
        }
    }
}

impl Settings {
    /// These settings with the newest release the model knows of the mesh `id` in place
    /// of an unknown one, built once: an unknown release is read as a classic one, the
    /// reading that can lose traffic, and a finding the newest release's reading gives
    /// too does not rest on it. `None` when the mesh's release is known, or is no setting.
    pub fn with_newest_release(&self, id: &'static str) -> Option<Arc<NewestRelease>> {
        self.newest_releases
            .get_or_build(id, || self.newest_release(id))
    }

    fn newest_release(&self, id: &str) -> Option<NewestRelease> {
        let mut settings = self.clone();
        let release = match id {
            "istio" => {
                let newest = Sourced::new(IstioVersion::NEWEST_KNOWN, Source::Default);
                let mut unknown = false;
                for istio in std::iter::once(&mut settings.istio)
                    .chain(settings.istio_revisions.values_mut())
                    .filter(|istio| istio.version.is_none())
                {
                    istio.version = Some(newest.clone());
                    unknown = true;
                }
                unknown.then(|| format!("Istio {}", IstioVersion::NEWEST_KNOWN))
            }
            "kuma" if settings.versions.kuma.is_none() => {
                let newest = version::KumaVersion::NEWEST_KNOWN;
                settings.versions.kuma = Some(Sourced::new(newest, Source::Default));
                Some(format!("Kuma {newest}"))
            }
            "linkerd" if settings.linkerd.version.is_none() => {
                let newest = LinkerdVersion::NEWEST_STABLE;
                settings.linkerd.version = Some(Sourced::new(newest, Source::Default));
                Some(format!("Linkerd {newest}"))
            }
            _ => None,
        }?;
        Some(NewestRelease { settings, release })
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            kubernetes: Sourced::default_value(KubeVersion::NEWEST_KNOWN),
            nodes: None,
            istio: IstioSettings::default(),
            istio_revisions: BTreeMap::new(),
            linkerd: LinkerdSettings::default(),
            versions: SidecarVersions::default(),
            namespaces: BTreeMap::new(),
            services: Vec::new(),
            config_maps: Vec::new(),
            scenario: Scenario::default(),
            declared_sidecars: Vec::new(),
            stop_wrappers: Vec::new(),
            workload_kinds: Vec::new(),
            templates: crate::workload::Templates::default(),
            deletion_grace_period: None,
            restartable_sidecars_during_termination: Sourced::default_value(false),
            container_restart_rules: None,
            newest_releases: newest::BuiltOnce::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_release_is_replaced_by_the_newest_and_a_known_one_kept() {
        let settings = Settings::default();
        let newer = settings.with_newest_release("istio").expect("unknown");
        assert_eq!(
            newer.settings.istio.version.as_ref().map(|v| v.value),
            Some(IstioVersion::NEWEST_KNOWN)
        );
        assert_eq!(
            newer.release,
            format!("Istio {}", IstioVersion::NEWEST_KNOWN)
        );
        assert!(
            settings.istio.version.is_none(),
            "the original is unchanged"
        );
        let mut known = Settings::default();
        known.linkerd.version = Some(Sourced::new(
            LinkerdVersion::Stable { minor: 14 },
            Source::Default,
        ));
        assert!(known.with_newest_release("linkerd").is_none());
        assert!(known.with_newest_release("dapr").is_none());
        let mut changed = settings.clone();
        changed.istio.version = Some(Sourced::new(IstioVersion::new(20), Source::Default));
        assert!(
            changed.with_newest_release("istio").is_none(),
            "a clone does not share what the original built"
        );
    }
}
