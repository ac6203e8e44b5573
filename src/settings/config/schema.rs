//! What `.mesh-lifecycle.yaml` may say, as its reader decodes it (every key checked,
//! each value at its place), and how it lays over the settings.

use super::*;

crate::documented! {
    /// `.mesh-lifecycle.yaml` as written. Every setting is optional; a key the linter
    /// does not know is an error at the key, so a misspelt setting never goes unnoticed.
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    pub(super) struct ConfigFile {
        /// Globs of paths that directory searches leave out, relative to the config
        /// file's directory.
        exclude: Option<Vec<String>> = "none",
        /// The kubelet's version, which decides native sidecars and the `sleep` action
        /// (1.22 or later; quote it or not, `1.30` is read as written).
        kubernetes_version: Option<KubeVersion> = "1.36, the newest modelled",
        /// The oldest kubelet version among the nodes, which Istio's
        /// `nativeSidecars: auto` looks at (every node 1.33 or newer).
        node_version: Option<KubeVersion> = "the Kubernetes version",
        /// The Istio control plane's version and mesh-wide values.
        istio: Option<IstioConfig> = "upstream defaults",
        /// The values of Linkerd's control-plane chart.
        linkerd: Option<LinkerdConfig> = "upstream defaults",
        /// Kuma's control plane.
        kuma: Option<KumaConfig> = "upstream defaults",
        /// consul-k8s, the chart and connect injector.
        consul: Option<ConsulConfig> = "upstream defaults",
        /// Dapr's sidecar injector.
        dapr: Option<DaprConfig> = "upstream defaults",
        /// The Cloud SQL Auth Proxy v2.
        cloud_sql_proxy: Option<CloudSqlProxyConfig> = "upstream defaults",
        /// Namespaces by name, with what their labels and annotations say about
        /// injection (a `Namespace` among the inputs says the same). An object without
        /// `metadata.namespace` is read in `default`, where `kubectl apply` puts it
        /// when the context names no namespace (`kubectl apply -n shop` or a context's
        /// namespace is not known offline: give the object its namespace).
        namespaces: Option<BTreeMap<String, Option<NamespaceConfig>>> = "none known",
        /// The scenario values: what no manifest can state about the application.
        scenario: Option<ScenarioConfig> = "each value's default",
        /// Levels of rules, by id or name; a later line for the same rule wins.
        rules: Option<InOrder<RuleLevel>> = "each rule's own level",
        /// Rules whose fixes `--fix` makes and reports offer (ids or names, or `ALL`);
        /// the others' findings are reported without a fix.
        fixable: Option<Vec<String>> = "ALL",
        /// Rules whose findings are reported without a fix, even if `fixable` names
        /// them.
        unfixable: Option<Vec<String>> = "none",
        /// How a finding that rests on a premise the input does not prove counts:
        /// `lowered` as its rule's doc states, or `full`, at the rule's severity.
        assumed_losses: Option<AssumedLosses> = "lowered",
        /// Sidecars the linter should know by container name, with their timings.
        sidecars: Option<Vec<SidecarConfig>> = "none",
        /// Commands that stop the sidecar when a Job's work ends
        /// (`wait-and-quit-envoy`).
        stop_wrappers: Option<Vec<String>> = "none",
        /// Custom resources whose pod the linter reads where each entry says; each
        /// entry is checked as it is decoded, an error at its line.
        workload_kinds: Option<Vec<crate::workload::DeclaredKind>> = "none",
        /// A managed mesh's defaults, by name (`alibaba-asm`); applied after the rest of
        /// this file, so they win over its values.
        preset: Option<String> = "none",
        /// The deletion's grace period, as `kubectl delete --grace-period` sets it; it
        /// overrides the pod's.
        deletion_grace_period_seconds: Option<WholeSeconds> =
            "the pod's terminationGracePeriodSeconds",
        /// Whether a note that a workload was not linted (a kind without containers
        /// at its pod's path, a kind the linter does not read, a kind the cluster does
        /// not let it list, a scope without workloads) fails the run as an input
        /// error, as `--strict` makes it.
        strict: Option<bool> = "false",
        /// How long each call of `kubectl kustomize` and `helm template` (and of git,
        /// for `diff --base`) may take before it is stopped with all it started, its
        /// directory then an input error; `0s` for no limit. `--render-timeout`
        /// overrides it.
        render_timeout: Option<GoDuration> = "60s",
    }
}

crate::documented! {
    /// `istio:`: the mesh-wide values istiod and the injector use.
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct IstioConfig {
        /// Istio's version (1.3 or later), which decides the injector's defaults.
        version: Option<IstioVersion> = "unknown: classic sidecars assumed",
        /// The cluster's mesh configuration, relative to this file: an `istio`
        /// ConfigMap, an IstioOperator or Helm values.
        mesh_config: Option<PathBuf> = "none",
        /// `meshConfig.defaultConfig`, read as mesh config reads it
        /// (`terminationDrainDuration: 20s`).
        default_config: Option<mesh_config::ProxyConfigFields> = "Istio's defaults",
        /// Helm `global.proxy.holdApplicationUntilProxyStarts`: the app starts once
        /// the proxy is ready.
        hold_application_until_proxy_starts: Option<bool> = "false",
        /// istiod's `ENABLE_NATIVE_SIDECARS`.
        native_sidecars: Option<NativeSidecars> =
            "the version's: auto from 1.27, false before",
        /// Helm `global.proxy.lifecycle`: replaces the hooks the injector adds to the
        /// proxy.
        lifecycle: Option<StrictLifecycle> = "the injector's hooks",
        /// Helm `global.proxy.startupProbe.enabled`.
        startup_probe: Option<bool> = "true (from Istio 1.20)",
        /// Helm `global.proxy.autoInject`: whether pods of an injecting namespace are
        /// injected unless they opt out.
        auto_inject: Option<bool> = "true",
        /// Helm `sidecarInjectorWebhook.enableNamespacesByDefault`: every namespace
        /// injects unless it opts out.
        enable_namespaces_by_default: Option<bool> = "false",
    }
}

crate::documented! {
    /// `linkerd:`: the values of Linkerd's control-plane chart.
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct LinkerdConfig {
        /// Linkerd's version: `2.16`, `stable-2.14.10`, `version-2.16` or
        /// `edge-24.11.8`.
        version: Option<LinkerdVersion> = "unknown: the classic proxy assumed",
        /// Helm `proxy.await`: the app starts once the proxy is ready.
        proxy_await: Option<bool> = "true (from stable-2.11)",
        /// Helm `proxy.nativeSidecar`: the proxy runs as a native sidecar.
        native_sidecar: Option<bool> = "the version's: true from 2.20",
        /// Helm `proxy.shutdownGracePeriod`: how long the proxy drains after SIGTERM.
        shutdown_grace_period: Option<GoDuration> = "Linkerd's",
        /// Helm `proxy.waitBeforeExitSeconds`: the proxy's preStop sleep.
        wait_before_exit_seconds: Option<WholeSeconds> = "0: no preStop hook",
        /// Helm `proxy.enableShutdownEndpoint`: the proxy's `/shutdown` endpoint,
        /// which a Job calls to stop it.
        enable_shutdown_endpoint: Option<bool> = "Linkerd's",
    }
}

crate::documented! {
    /// `kuma:`: Kuma's control plane.
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct KumaConfig {
        /// Kuma's version (2.4 or later): native sidecars by default from 2.14 where
        /// the API server is 1.29 or later.
        version: Option<KumaVersion> = "unknown: the classic sidecar assumed",
    }
}

crate::documented! {
    /// `consul:`: consul-k8s.
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct ConsulConfig {
        /// consul-k8s's version (1.0 or later; the chart's, not the Consul servers'),
        /// which decides the annotations its injector reads.
        version: Option<ConsulVersion> = "unknown: annotations read as written",
    }
}

crate::documented! {
    /// `dapr:`: Dapr's sidecar injector.
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct DaprConfig {
        /// Dapr's version (1.6 or later), which decides the annotations its injector
        /// reads.
        version: Option<DaprVersion> = "unknown: annotations read as written",
    }
}

crate::documented! {
    /// `cloudSqlProxy:`: the Cloud SQL Auth Proxy v2.
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct CloudSqlProxyConfig {
        /// The proxy's version (2.0 or later), which decides the flags it has; a
        /// proxy's image tag, when it is a version, says so for that pod instead.
        version: Option<CloudSqlProxyVersion> =
            "the image tag's, else unknown: flags read as written",
    }
}

crate::documented! {
    /// `namespaces.NAME:`: what the namespace's labels and annotations say about
    /// injection.
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct NamespaceConfig {
        /// Its labels (`istio-injection: enabled`, `istio.io/rev`).
        labels: Option<BTreeMap<String, String>> = "none",
        /// Its annotations (`linkerd.io/inject: enabled`, Linkerd's `config.*`
        /// defaults).
        annotations: Option<BTreeMap<String, String>> = "none",
    }
}

crate::documented! {
    /// `scenario:`: the scenario values, by their camel-case names; a flag or a
    /// workload's `mesh-lifecycle.io/<name>` annotation overrides them.
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct ScenarioConfig {
        /// Proxy (or any sidecar) process start to ready.
        proxy_startup: Option<GoDuration> = "2s",
        /// Deletion to the moment no new requests are routed to the pod.
        endpoint_propagation: Option<GoDuration> = "5s",
        /// An app container's SIGTERM to exit.
        app_shutdown: Option<GoDuration> = "5s",
        /// The longest request the app serves; ML204 runs only when it is set.
        longest_request: Option<GoDuration> = "unset",
        /// How long a regular init container runs.
        init_duration: Option<GoDuration> = "0s",
        /// How long a Job's work runs before its container exits.
        job_duration: Option<GoDuration> = "10s",
    }
}

crate::documented! {
    /// One of `sidecars:`, a sidecar the linter should know by its container name.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct SidecarConfig {
        /// The container name it is recognised by.
        name: String = required,
        /// Process start to ready.
        startup: Option<GoDuration> = "unknown",
        /// SIGTERM to exit.
        shutdown: Option<GoDuration> = "0s",
        /// Whether the app's traffic passes through it, so that its absence loses
        /// traffic.
        #[serde(default)]
        carries_traffic: bool = "false",
    }
}

/// A mapping read in the order written (later settings of the same rule win).
#[derive(Debug)]
pub(super) struct InOrder<T>(Vec<(String, T)>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for InOrder<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Entries<T> {
            type Value = InOrder<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping of rule ids or names to off, error, warning or info")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<InOrder<T>, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(InOrder(entries))
            }
        }
        deserializer.deserialize_map(Entries(std::marker::PhantomData))
    }
}

impl<'de> Deserialize<'de> for NativeSidecars {
    /// `ENABLE_NATIVE_SIDECARS` as the config file sets it: `true`, `false` or `auto`.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Mode;
        impl Visitor<'_> for Mode {
            type Value = NativeSidecars;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("true, false or auto")
            }
            fn visit_bool<E: de::Error>(self, on: bool) -> Result<NativeSidecars, E> {
                Ok(if on {
                    NativeSidecars::On
                } else {
                    NativeSidecars::Off
                })
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<NativeSidecars, E> {
                match text {
                    "true" => Ok(NativeSidecars::On),
                    "false" => Ok(NativeSidecars::Off),
                    "auto" => Ok(NativeSidecars::Auto),
                    _ => Err(E::invalid_value(de::Unexpected::Str(text), &self)),
                }
            }
        }
        deserializer.deserialize_any(Mode)
    }
}

/// Every setting of the config file, each nested one after the key that holds it: the
/// list of settings in docs/configuration.md is generated from it.
pub fn settings() -> Vec<Row> {
    documented::rows(documented::section_of::<ConfigFile>())
}

crate::value_kinds! {
    KubeVersion => "version (`\"1.30\"`)",
    IstioVersion => "version (`\"1.24\"`)",
    LinkerdVersion => "version (`\"2.16\"`, `edge-24.11.8`)",
    KumaVersion => "version (`\"2.14\"`)",
    ConsulVersion => "version (`\"1.9.0\"`)",
    DaprVersion => "version (`\"1.18\"`)",
    CloudSqlProxyVersion => "version (`\"2.14.1\"`)",
    GoDuration => "duration (`5s`, `1m30s`)",
    WholeSeconds => "whole number of seconds",
    NativeSidecars => "`true`, `false` or `auto`",
    RuleLevel => "`off`, `error`, `warning` or `info`",
    AssumedLosses => "`lowered` or `full`",
}

/// A field of a section whose decoder is not a [`documented!`](crate::documented)
/// struct: a value without fields of its own.
pub(super) const fn field(
    ident: &'static str,
    doc: &'static str,
    absent: &'static str,
    kind: fn() -> String,
) -> documented::Field {
    documented::Field {
        ident,
        doc,
        absent: documented::Absent::Default(absent),
        kind,
        nested: || None,
    }
}

impl Documented for mesh_config::ProxyConfigFields {
    fn kind() -> String {
        "ProxyConfig mapping (Istio's field names)".to_owned()
    }

    /// The fields the model reads, in the order of [`istio::READ_FIELDS`], the keys
    /// the decoder matches on.
    fn nested() -> Option<documented::Nested> {
        static SECTION: documented::Section = documented::Section {
            name: "ProxyConfig",
            fields: &[
                field(
                    "termination_drain_duration",
                    "How long the agent keeps Envoy running after SIGTERM.",
                    "5s",
                    GoDuration::kind,
                ),
                field(
                    "drain_duration",
                    "Envoy's `--drain-time-s`: how long it keeps accepting connections while it drains.",
                    "45s",
                    GoDuration::kind,
                ),
                field(
                    "hold_application_until_proxy_starts",
                    "The app starts once the proxy is ready (the injector's `pilot-agent wait` postStart).",
                    "false",
                    bool::kind,
                ),
                field(
                    "status_port",
                    "The agent's status port, where a Job calls `/quitquitquit`.",
                    "15020",
                    || "port number".to_owned(),
                ),
                field(
                    "proxy_metadata",
                    "Environment variables of the agent (`EXIT_ON_ZERO_ACTIVE_CONNECTIONS`, `MINIMUM_DRAIN_DURATION`), merged key by key over the mesh's.",
                    "none",
                    BTreeMap::<String, String>::kind,
                ),
            ],
            keys: || &istio::READ_FIELDS,
        };
        Some(documented::Nested {
            step: String::new(),
            section: &SECTION,
        })
    }
}

/// A container lifecycle handler, as the docs name it.
pub(super) fn handler_kind() -> String {
    "lifecycle handler (`exec`, `httpGet`, `sleep`)".to_owned()
}

/// A container [`Lifecycle`] whose keys are checked: Kubernetes' type skips a key it
/// does not know, which would let a misspelt `preStop` pass unnoticed.
#[derive(Debug)]
pub(super) struct StrictLifecycle(Lifecycle);

impl<'de> Deserialize<'de> for StrictLifecycle {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Keys;
        impl<'de> Visitor<'de> for Keys {
            type Value = StrictLifecycle;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a container lifecycle (`preStop`, `postStart`)")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let known = KnownKeys {
                    map,
                    keys: documented::serde_keys::<Lifecycle>(),
                };
                Lifecycle::deserialize(de::value::MapAccessDeserializer::new(known))
                    .map(StrictLifecycle)
            }
        }
        deserializer.deserialize_map(Keys)
    }
}

/// A mapping whose keys must be among `keys`: an unknown one is an error at it. The
/// values are read from the mapping itself, so their errors keep their positions.
pub(super) struct KnownKeys<A> {
    pub(super) map: A,
    pub(super) keys: &'static [&'static str],
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for KnownKeys<A> {
    type Error = A::Error;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.map.next_key_seed(KnownKey {
            seed,
            keys: self.keys,
        })
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

/// A key of [`KnownKeys`]: read as a string, checked, then handed to the seed.
pub(super) struct KnownKey<K> {
    pub(super) seed: K,
    pub(super) keys: &'static [&'static str],
}

impl<'de, K: de::DeserializeSeed<'de>> de::DeserializeSeed<'de> for KnownKey<K> {
    type Value = K::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<K::Value, D::Error> {
        let key = String::deserialize(deserializer)?;
        if !self.keys.contains(&key.as_str()) {
            return Err(de::Error::unknown_field(&key, self.keys));
        }
        self.seed
            .deserialize(de::IntoDeserializer::<D::Error>::into_deserializer(key))
    }
}

impl Documented for StrictLifecycle {
    fn kind() -> String {
        "container lifecycle (`preStop`, `postStart`)".to_owned()
    }

    /// Its keys are the Kubernetes type's own, as its `Deserialize` names them.
    fn nested() -> Option<documented::Nested> {
        static SECTION: documented::Section = documented::Section {
            name: "Lifecycle",
            fields: &[
                field(
                    "post_start",
                    "The proxy's postStart; the app starts only once it returns.",
                    "none: no postStart",
                    handler_kind,
                ),
                field(
                    "pre_stop",
                    "The proxy's preStop, run from the deletion on; it counts against the grace period.",
                    "none: no preStop",
                    handler_kind,
                ),
                field(
                    "stop_signal",
                    "The signal the kubelet stops the proxy with (Kubernetes 1.33+); not modelled: SIGTERM is assumed.",
                    "the image's",
                    String::kind,
                ),
            ],
            keys: documented::serde_keys::<Lifecycle>,
        };
        Some(documented::Nested {
            step: String::new(),
            section: &SECTION,
        })
    }
}

impl<T: Documented> Documented for InOrder<T> {
    fn kind() -> String {
        format!("mapping of rule ids or names to {}", T::kind())
    }
}

impl ConfigFile {
    /// Puts what the file says into `settings`; the errors left are the ones only the
    /// whole file can show (a preset that does not exist, a defaultConfig value).
    pub(super) fn apply(
        self,
        root: &Node,
        source: &SourceText,
        file: &SettingsFile,
        base: &Path,
        origin: &Source,
        settings: &mut Settings,
    ) -> Result<ConfigExtras, InputError> {
        let at = |path: &str, part| root.locate(&JsonPath::parse(path), part).span.start;
        let mut extras = ConfigExtras {
            exclude: self.exclude.unwrap_or_default(),
            strict: self.strict.unwrap_or(false),
            render_timeout: self.render_timeout.map(|GoDuration(timeout)| timeout),
            ..ConfigExtras::default()
        };
        if let Some(version) = self.kubernetes_version {
            settings.kubernetes = Sourced::new(version, origin.clone());
        }
        if let Some(version) = self.node_version {
            settings.nodes = Some(Sourced::new(version, origin.clone()));
        }
        if let Some(istio) = self.istio {
            extras.mesh_config = istio.mesh_config.map(|path| base.join(path));
            let default_config = match istio.default_config {
                Some(fields) => Some(fields.read(origin).map_err(|error| {
                    let path = format!("istio.defaultConfig.{}", error.field);
                    let message = format!("{path}: {}", error.message);
                    file.error_at(source, at(&path, EntryPart::Value), message)
                })?),
                None => None,
            };
            IstioOverlay {
                version: istio.version,
                default_config,
                hold_helm_global: istio.hold_application_until_proxy_starts,
                native_sidecars: istio.native_sidecars,
                lifecycle: istio.lifecycle.map(|StrictLifecycle(lifecycle)| lifecycle),
                startup_probe: istio.startup_probe,
                auto_inject: istio.auto_inject,
                enable_namespaces_by_default: istio.enable_namespaces_by_default,
                ..IstioOverlay::default()
            }
            .lay(&mut settings.istio, origin);
        }
        if let Some(linkerd) = self.linkerd {
            LinkerdOverlay {
                version: linkerd.version,
                proxy_await: linkerd.proxy_await,
                native_sidecar: linkerd.native_sidecar,
                shutdown_grace_period: linkerd.shutdown_grace_period.map(|GoDuration(d)| d),
                wait_before_exit: linkerd
                    .wait_before_exit_seconds
                    .map(|WholeSeconds(seconds)| crate::time::Millis::secs(seconds)),
                shutdown_endpoint: linkerd.enable_shutdown_endpoint,
            }
            .lay(&mut settings.linkerd, origin);
        }
        let versions = &mut settings.versions;
        if let Some(version) = self.kuma.and_then(|kuma| kuma.version) {
            versions.kuma = Some(Sourced::new(version, origin.clone()));
        }
        if let Some(version) = self.consul.and_then(|consul| consul.version) {
            versions.consul = Some(Sourced::new(version, origin.clone()));
        }
        if let Some(version) = self.dapr.and_then(|dapr| dapr.version) {
            versions.dapr = Some(Sourced::new(version, origin.clone()));
        }
        if let Some(version) = self.cloud_sql_proxy.and_then(|proxy| proxy.version) {
            versions.cloud_sql_proxy = Some(Sourced::new(version, origin.clone()));
        }
        for (name, namespace) in self.namespaces.unwrap_or_default() {
            let namespace = namespace.unwrap_or_default();
            settings.namespaces.insert(
                name,
                NamespaceInfo {
                    labels: namespace.labels.unwrap_or_default(),
                    annotations: namespace.annotations.unwrap_or_default(),
                    source: Some(origin.clone()),
                },
            );
        }
        if let Some(scenario) = self.scenario {
            let values = [
                (ScenarioKey::ProxyStartup, scenario.proxy_startup),
                (
                    ScenarioKey::EndpointPropagation,
                    scenario.endpoint_propagation,
                ),
                (ScenarioKey::AppShutdown, scenario.app_shutdown),
                (ScenarioKey::LongestRequest, scenario.longest_request),
                (ScenarioKey::InitDuration, scenario.init_duration),
                (ScenarioKey::JobDuration, scenario.job_duration),
            ];
            for (key, value) in values {
                if let Some(GoDuration(duration)) = value {
                    settings.scenario.set(key, duration, origin.clone());
                }
            }
        }
        for (rule, level) in self.rules.map(|rules| rules.0).unwrap_or_default() {
            let pos = at(&format!("rules.{rule}"), EntryPart::Key);
            extras.rules.push(RuleSetting {
                rule,
                level,
                file: file.name.clone(),
                pos,
                source: source.clone(),
            });
        }
        let names = |key: &str, rules: Vec<String>| -> Vec<RuleName> {
            rules
                .into_iter()
                .enumerate()
                .map(|(index, rule)| RuleName {
                    rule,
                    file: file.name.clone(),
                    pos: root
                        .locate(&JsonPath::parse(key).index(index), EntryPart::Value)
                        .span
                        .start,
                    source: source.clone(),
                })
                .collect()
        };
        extras.fixable = Fixable {
            fixable: self.fixable.map(|rules| names("fixable", rules)),
            unfixable: names("unfixable", self.unfixable.unwrap_or_default()),
        };
        extras.assumed_losses = self.assumed_losses;
        for sidecar in self.sidecars.unwrap_or_default() {
            settings.declared_sidecars.push(DeclaredSidecar {
                name: sidecar.name,
                startup: sidecar.startup.map(|GoDuration(d)| d),
                shutdown: sidecar.shutdown.map(|GoDuration(d)| d).unwrap_or_default(),
                carries_traffic: sidecar.carries_traffic,
            });
        }
        settings
            .stop_wrappers
            .extend(self.stop_wrappers.unwrap_or_default());
        settings.workload_kinds.extend(
            self.workload_kinds
                .into_iter()
                .flatten()
                .map(crate::workload::DeclaredKind::interned),
        );
        if let Some(name) = self.preset
            && let Err(message) = crate::settings::preset::apply(&name, settings)
        {
            return Err(file.error_at(source, at("preset", EntryPart::Value), message));
        }
        if let Some(WholeSeconds(seconds)) = self.deletion_grace_period_seconds {
            settings.deletion_grace_period = Some(Sourced::new(seconds, origin.clone()));
        }
        Ok(extras)
    }
}
