//! The PodPlan: what will run in the pod and how each container starts and stops.
//!
//! Resolve reduces everything mesh-specific to the generic behaviours below, so the
//! simulator needs no mesh knowledge and rules need not re-derive anything.

use std::ops::{Index, IndexMut};

use super::assumption::Assumption;
use super::decision::MeshDecision;
use super::problems::ConfigProblem;
use crate::load::JsonPath;
use crate::settings::{KubeVersion, Scenario, Source, Sourced};
use crate::time::Millis;
use crate::workload::{Kind, Paths, WorkloadRef};

/// Everything known about one pod template.
#[derive(Clone, Debug)]
pub struct PodPlan {
    /// Which workload this pod template belongs to, for reports.
    pub workload: WorkloadRef,
    /// The workload's kind.
    pub kind: Kind,
    /// Whether the pod runs to completion: a Job's or a CronJob's, or a pod a Job
    /// created.
    pub completes: bool,
    /// Where the workload's parts lie in its document.
    pub paths: Paths,
    /// The Kubernetes version whose kubelet is simulated.
    pub kubernetes: Sourced<KubeVersion>,
    /// `spec.terminationGracePeriodSeconds` (default 30).
    pub grace_period: Sourced<i64>,
    /// The grace period of the simulated deletion when it differs from the pod's
    /// (`kubectl delete --grace-period`, `deletionGracePeriodSeconds`).
    pub deletion_grace_period: Option<Sourced<i64>>,
    /// The kubelet's `SidecarsRestartableDuringPodTermination` gate: an absolute
    /// deadline and no 2-second floor (docs/lifecycle.md §2.5).
    pub deadline_termination: bool,
    /// Pod `restartPolicy` (default Always; Never for Jobs that leave it unset).
    pub restart_policy: RestartPolicy,
    /// `shareProcessNamespace: true`: containers can signal each other's processes.
    pub share_process_namespace: bool,
    /// In the kubelet's start order: init containers (native sidecars among them in
    /// place), then regular containers.
    pub containers: ByContainer<PlannedContainer>,
    /// What was decided about each mesh, for explain and the configuration rules.
    pub meshes: Vec<MeshDecision>,
    /// The scenario values in force for this workload, after its annotations.
    pub scenario: Scenario,
    /// Readings the verdict rests on that the manifest does not state.
    pub assumptions: Vec<Assumption>,
    /// Problems found while resolving: malformed, contradictory or ignored mesh settings.
    pub config_problems: Vec<ConfigProblem>,
    /// Settings that are in the manifest or profile but have no effect.
    pub moot_settings: Vec<MootSetting>,
    /// Every reason the pod would not be admitted, each on its own so that fixing one
    /// does not reveal the next: when there is any, there is no pod to start or stop,
    /// and only the rules about admission apply.
    pub rejections: Vec<Rejection>,
    /// Hooks the API server drops at admission (a `sleep` action where the gate is
    /// off): the pod runs without them.
    pub dropped_hooks: Vec<DroppedHook>,
    /// In a Job pod, the calls its work could make to stop each mesh proxy.
    pub stop_endpoints: Vec<StopEndpoint>,
}

/// A container of a plan: its place in the kubelet's start order. Ids come from a
/// [`ByContainer`] (the plan's containers, or a timeline built from them), so an id
/// always names one container, and per-container facts are looked up by it instead of
/// by a bare position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ContainerId(usize);

/// One value per container of a plan, in the plan's order, indexed by [`ContainerId`]:
/// the plan's containers, and what the simulation found for each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ByContainer<T>(Vec<T>);

impl<T> ByContainer<T> {
    /// The values in start order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }

    /// Each value with the id of its container.
    pub fn with_ids(&self) -> impl DoubleEndedIterator<Item = (ContainerId, &T)> {
        self.0
            .iter()
            .enumerate()
            .map(|(index, value)| (ContainerId(index), value))
    }

    /// A value for each container, computed from this one's.
    pub fn map<U>(&self, f: impl FnMut(&T) -> U) -> ByContainer<U> {
        ByContainer(self.0.iter().map(f).collect())
    }
}

impl<T> FromIterator<T> for ByContainer<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        ByContainer(iter.into_iter().collect())
    }
}

impl<'a, T> IntoIterator for &'a ByContainer<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<T> Index<ContainerId> for ByContainer<T> {
    type Output = T;
    fn index(&self, id: ContainerId) -> &T {
        &self.0[id.0]
    }
}

impl<T> IndexMut<ContainerId> for ByContainer<T> {
    fn index_mut(&mut self, id: ContainerId) -> &mut T {
        &mut self.0[id.0]
    }
}

/// A reason the pod would not be admitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    /// The field that causes it.
    pub path: JsonPath,
    /// Who rejects it.
    pub by: Rejector,
    /// What in the pod causes it.
    pub cause: RejectionCause,
}

/// Who refuses to admit a pod.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rejector {
    /// The API server's validation.
    ApiServer,
    /// A mesh's injector webhook, which denies the admission request.
    Injector(super::Mesh),
}

/// What makes a pod inadmissible.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RejectionCause {
    /// A `sleep` hook action this Kubernetes version does not accept.
    SleepAction(SleepActionProblem),
    /// An init container whose `restartPolicy: Always` this version drops, left with
    /// the probes or hooks only sidecars may have.
    DroppedSidecarPolicy {
        /// The init container.
        container: String,
        /// The first field only sidecars may have (`startupProbe`).
        field: &'static str,
        /// The Kubernetes version that drops the policy.
        version: KubeVersion,
    },
    /// A mesh setting the injector cannot read, so it denies the pod.
    UnreadableSetting(super::problems::Unreadable),
    /// Linkerd before 2.20 cannot render a native sidecar proxy with
    /// `proxy-wait-before-exit-seconds`.
    NativeWithWaitBeforeExit,
    /// The workload's API version is no longer served by this Kubernetes version.
    RemovedApiVersion {
        /// Which API version of which kind, since when, and what replaces it.
        removal: super::api_removals::Removal,
        /// The Kubernetes version in force.
        version: KubeVersion,
    },
    /// A regular container's own `restartPolicy`, which validation forbids until
    /// `ContainerRestartRules` is on (1.28 to 1.34). docs/lifecycle.md §2.9.
    ContainerRestartPolicy {
        /// The container.
        container: String,
        /// The policy as written (`Always`).
        value: String,
        /// The Kubernetes version that refuses it.
        version: KubeVersion,
    },
}

/// Why the API server rejects a `sleep` hook action (docs/lifecycle.md §2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SleepActionProblem {
    /// The version has no sleep action: the handler is left empty.
    Unknown {
        /// The Kubernetes version.
        version: KubeVersion,
    },
    /// Negative seconds.
    Negative {
        /// The seconds.
        seconds: i64,
    },
    /// Zero seconds, accepted only from 1.33.
    Zero {
        /// The Kubernetes version.
        version: KubeVersion,
    },
    /// Longer than the grace period.
    ExceedsGrace {
        /// The seconds.
        seconds: i64,
        /// The grace period, in seconds.
        grace: i64,
    },
}

/// A lifecycle hook the API server removes at admission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DroppedHook {
    /// The container whose hook it was.
    pub container: String,
    /// The hook in the manifest (`...lifecycle.preStop`).
    pub path: JsonPath,
    /// `sleep.seconds` as written.
    pub seconds: i64,
}

impl PodPlan {
    /// The first reason the pod would not be admitted, when it would not: the one the
    /// API server or the injector answers with.
    pub fn rejection(&self) -> Option<&Rejection> {
        self.rejections.first()
    }

    /// Whether the pod would be admitted.
    pub fn admitted(&self) -> bool {
        self.rejections.is_empty()
    }

    /// Whether the pod runs to completion (Job, CronJob, a pod of a Job).
    pub fn runs_to_completion(&self) -> bool {
        self.completes
    }

    /// The container called `name`, if there is one.
    pub fn find(&self, name: &str) -> Option<ContainerId> {
        self.containers
            .with_ids()
            .find(|(_, c)| c.name == name)
            .map(|(id, _)| id)
    }

    /// Containers that run in `spec.containers`.
    pub fn regular(&self) -> impl Iterator<Item = (ContainerId, &PlannedContainer)> {
        self.containers
            .with_ids()
            .filter(|(_, c)| c.list() == ContainerList::Regular)
    }

    /// The application containers: regular containers that are not sidecars.
    pub fn apps(&self) -> impl Iterator<Item = (ContainerId, &PlannedContainer)> {
        self.regular().filter(|(_, c)| c.role == Role::App)
    }

    /// The work: the application containers, without those whose only job is to
    /// stop the others when the work ends.
    pub fn work(&self) -> impl Iterator<Item = (ContainerId, &PlannedContainer)> {
        self.apps().filter(|(_, c)| !c.only_stops)
    }

    /// Whether a Service or a port can reach the pod, so that it has endpoints to join
    /// and leave: one of its regular containers other than a mesh proxy declares a
    /// port or a readiness probe, or a Service of the input selects it (a proxy's own
    /// ports are its admin and metrics ports).
    pub fn reachable(&self) -> bool {
        self.regular()
            .any(|(_, container)| !container.is_proxy() && container.serves())
    }

    /// Sidecars that carry the pod's traffic (mesh proxies).
    pub fn proxies(&self) -> impl Iterator<Item = (ContainerId, &PlannedContainer)> {
        self.containers
            .with_ids()
            .filter(|(_, c)| c.sidecar().is_some_and(|s| s.carries_traffic))
    }

    /// Where to point when the pod spec as a whole is at fault.
    pub fn pod_spec_path(&self) -> &JsonPath {
        &self.paths.pod_spec
    }

    /// The grace period the kubelet works with for this deletion: the deletion's or
    /// the pod's, never less than the pod worker's 1 s (docs/lifecycle.md §2.2).
    pub fn deletion_grace(&self) -> Sourced<i64> {
        let mut grace = self
            .deletion_grace_period
            .as_ref()
            .unwrap_or(&self.grace_period)
            .clone();
        grace.value = grace.value.max(1);
        grace
    }

    /// The path of `terminationGracePeriodSeconds`, set or not.
    pub fn grace_period_path(&self) -> JsonPath {
        self.paths.pod_spec.key("terminationGracePeriodSeconds")
    }
}

/// Pod `restartPolicy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RestartPolicy {
    /// The default for workloads that run forever.
    Always,
    /// Failed containers restart; a Job's sidecar that exits non-zero comes back.
    OnFailure,
    /// Nothing restarts; a non-zero exit fails the pod.
    Never,
}

/// Which list a container is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContainerList {
    /// `spec.initContainers`.
    Init,
    /// `spec.containers`.
    Regular,
}

/// What a container is for and how the kubelet runs it, in one value: its list, its
/// `restartPolicy`, the Kubernetes version's native sidecars and its purpose combine
/// only in the ways a pod can have them (no app among the init containers, no init
/// step among the regular ones, no native sidecar that is not a sidecar).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// In `spec.containers`, doing the pod's work: a server, a Job's work.
    App,
    /// In `spec.containers` beside the app: a classic sidecar, which the kubelet starts
    /// and stops like the app.
    ClassicSidecar(Sidecar),
    /// In `spec.initContainers` with `restartPolicy: Always`, run by this Kubernetes
    /// version as a native sidecar: the next container starts once it runs (and its
    /// startup probe passes), and it stops after the regular containers.
    NativeSidecar(Sidecar),
    /// In `spec.initContainers`, run as a plain init container: the next container
    /// starts only once it has exited.
    Init {
        /// Whether it exits.
        run: InitRun,
        /// The sidecar it is, when it is one: a mesh proxy given `restartPolicy:
        /// Always` for a version that does not run native sidecars, or written as a
        /// plain init container. `None` for an init step (`istio-init`, a migration).
        sidecar: Option<Sidecar>,
    },
}

/// How a plain init container ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitRun {
    /// It runs to completion, then the next container starts.
    ToCompletion,
    /// The manifest gives it `restartPolicy: Always`, which this Kubernetes version
    /// does not run as a native sidecar: a sidecar's process never exits, so nothing
    /// after it starts.
    NeverExits,
}

impl Role {
    /// An init step: an init container that runs to completion (`istio-init`,
    /// `linkerd-init`, a migration).
    pub const INIT_STEP: Role = Role::Init {
        run: InitRun::ToCompletion,
        sidecar: None,
    };

    /// A container of `list` with `restartPolicy: Always` or not (which only init
    /// containers have), where the kubelet runs native sidecars or not, before anything
    /// is known of what it runs: a native sidecar is one of unknown kind.
    pub fn of_manifest(list: ContainerList, restart_always: bool, native_sidecars: bool) -> Self {
        match list {
            ContainerList::Regular => Role::App,
            ContainerList::Init if restart_always && native_sidecars => {
                Role::NativeSidecar(Sidecar {
                    kind: SidecarKind::Generic,
                    carries_traffic: false,
                })
            }
            ContainerList::Init if restart_always => Role::Init {
                run: InitRun::NeverExits,
                sidecar: None,
            },
            ContainerList::Init => Role::INIT_STEP,
        }
    }

    /// A sidecar an injector adds: native when the injector makes it an init container
    /// with `restartPolicy: Always` (`native`), where the kubelet runs native sidecars
    /// (`native_sidecars`); classic otherwise.
    pub fn injected_sidecar(sidecar: Sidecar, native: bool, native_sidecars: bool) -> Self {
        match (native, native_sidecars) {
            (true, true) => Role::NativeSidecar(sidecar),
            (true, false) => Role::Init {
                run: InitRun::NeverExits,
                sidecar: Some(sidecar),
            },
            (false, _) => Role::ClassicSidecar(sidecar),
        }
    }

    /// The same container, known to be `sidecar`: the kubelet runs it as before.
    pub fn with_sidecar(&self, sidecar: Sidecar) -> Self {
        match self {
            Role::App | Role::ClassicSidecar(_) => Role::ClassicSidecar(sidecar),
            Role::NativeSidecar(_) => Role::NativeSidecar(sidecar),
            Role::Init { run, .. } => Role::Init {
                run: *run,
                sidecar: Some(sidecar),
            },
        }
    }

    /// The list the container is in.
    pub fn list(&self) -> ContainerList {
        match self {
            Role::App | Role::ClassicSidecar(_) => ContainerList::Regular,
            Role::NativeSidecar(_) | Role::Init { .. } => ContainerList::Init,
        }
    }

    /// How a plain init container ends; `None` for one that runs beside the work until
    /// stopped (an app, a classic or native sidecar).
    pub fn init_run(&self) -> Option<InitRun> {
        match self {
            Role::Init { run, .. } => Some(*run),
            Role::App | Role::ClassicSidecar(_) | Role::NativeSidecar(_) => None,
        }
    }

    /// The sidecar traits, when the container is one.
    pub fn sidecar(&self) -> Option<&Sidecar> {
        match self {
            Role::ClassicSidecar(sidecar) | Role::NativeSidecar(sidecar) => Some(sidecar),
            Role::Init { sidecar, .. } => sidecar.as_ref(),
            Role::App => None,
        }
    }
}

/// A sidecar's identity and traits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sidecar {
    /// Which sidecar it is.
    pub kind: SidecarKind,
    /// The app's traffic passes through it: while it is not running, traffic is lost.
    pub carries_traffic: bool,
}

/// Sidecars the resolver knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SidecarKind {
    /// Istio's `istio-proxy` (pilot-agent and Envoy).
    IstioProxy,
    /// Linkerd's `linkerd-proxy`.
    LinkerdProxy,
    /// Consul's `consul-dataplane` (or the older `envoy-sidecar`).
    ConsulDataplane,
    /// Kuma's or Kong Mesh's `kuma-sidecar`.
    KumaSidecar,
    /// Dapr's `daprd`.
    Daprd,
    /// The Cloud SQL Auth Proxy (v2, `cloud-sql-proxy`).
    CloudSqlProxy,
    /// The Cloud SQL Proxy v1 (`gce-proxy` image, `/cloud_sql_proxy` binary): no admin
    /// endpoint, and `-term_timeout` in place of the v2 SIGTERM flags.
    CloudSqlProxyV1,
    /// Knative Serving's `queue-proxy`, which the revision reconciler adds in front of
    /// the user's containers.
    KnativeQueueProxy,
    /// Declared in the user's config.
    Declared(String),
    /// A sidecar of unknown kind: a native sidecar, or a Job's container that never
    /// ends by itself.
    Generic,
}

impl SidecarKind {
    /// The mesh whose proxy this is, when it is one.
    pub fn mesh(&self) -> Option<super::Mesh> {
        use super::Mesh;
        match self {
            SidecarKind::IstioProxy => Some(Mesh::Istio),
            SidecarKind::LinkerdProxy => Some(Mesh::Linkerd),
            SidecarKind::ConsulDataplane => Some(Mesh::Consul),
            SidecarKind::KumaSidecar => Some(Mesh::Kuma),
            SidecarKind::Daprd => Some(Mesh::Dapr),
            SidecarKind::CloudSqlProxy
            | SidecarKind::CloudSqlProxyV1
            | SidecarKind::KnativeQueueProxy
            | SidecarKind::Declared(_)
            | SidecarKind::Generic => None,
        }
    }

    /// What this sidecar's own settings offer against each hazard: its mesh's, so
    /// advice for one mesh never reaches another's pod.
    pub fn remedies(&self) -> &'static super::Remedies {
        match self {
            SidecarKind::IstioProxy => &super::istio::REMEDIES,
            SidecarKind::LinkerdProxy => &super::linkerd::REMEDIES,
            SidecarKind::Daprd => &super::dapr::REMEDIES,
            SidecarKind::CloudSqlProxy => &super::sidecars::CLOUD_SQL_REMEDIES,
            SidecarKind::CloudSqlProxyV1 => &super::sidecars::CLOUD_SQL_V1_REMEDIES,
            SidecarKind::ConsulDataplane
            | SidecarKind::KumaSidecar
            | SidecarKind::KnativeQueueProxy
            | SidecarKind::Declared(_)
            | SidecarKind::Generic => &super::Remedies::NONE,
        }
    }

    /// A short human name.
    pub fn label(&self) -> &str {
        match self {
            SidecarKind::IstioProxy => "Istio proxy",
            SidecarKind::LinkerdProxy => "Linkerd proxy",
            SidecarKind::ConsulDataplane => "Consul dataplane",
            SidecarKind::KumaSidecar => "Kuma sidecar",
            SidecarKind::Daprd => "Dapr sidecar",
            SidecarKind::CloudSqlProxy => "Cloud SQL proxy",
            SidecarKind::CloudSqlProxyV1 => "Cloud SQL proxy v1",
            SidecarKind::KnativeQueueProxy => "Knative queue-proxy",
            SidecarKind::Declared(name) => name,
            SidecarKind::Generic => "sidecar",
        }
    }
}

/// Whether a container is written in the manifest or added by an injector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Provenance {
    /// In the manifest at this path.
    Manifest(JsonPath),
    /// Added by a mesh injector at admission; `trigger` is what asks for it (a label,
    /// an annotation, or the pod metadata when a namespace asks).
    Injected {
        /// The mesh whose injector adds it.
        by: super::Mesh,
        /// What asks for the injection.
        trigger: JsonPath,
        /// The pod settings that shaped it, for findings about those aspects.
        shaped_by: ShapedBy,
    },
}

/// The pod settings that decided how an injected sidecar looks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShapedBy {
    /// The setting that made it a native sidecar (`sidecar.istio.io/nativeSidecar`).
    pub native: Option<JsonPath>,
    /// The setting that left it without a start-up gate
    /// (`config.linkerd.io/proxy-await: disabled`).
    pub no_startup_gate: Option<JsonPath>,
    /// For a classic sidecar, the pod annotation that would make it native, where the
    /// mesh's and the cluster's versions both run native sidecars.
    pub native_switch: Option<super::mesh::NativeSwitch>,
}

/// One container as it will run.
#[derive(Clone, Debug)]
pub struct PlannedContainer {
    /// The container name.
    pub name: String,
    /// Position in its list after injection.
    pub index: usize,
    /// Written in the manifest, or added by an injector.
    pub provenance: Provenance,
    /// What the container is for and how the kubelet runs it.
    pub role: Role,
    /// The image, when known.
    pub image: Option<String>,
    /// Its postStart hook: it blocks the next container until it returns (§1.1).
    pub post_start: Option<Hook>,
    /// Its preStop hook: it runs from T0 and counts against the grace period (§2.2).
    pub pre_stop: Option<Hook>,
    /// Its startup probe: for a native sidecar, it holds the next container (§1.2).
    pub startup_probe: Option<ProbeTiming>,
    /// When the kubelet first counts it ready; `None` means no probe (ready at once).
    pub readiness_probe: Option<ProbeTiming>,
    /// Whether the container declares that it serves: ports or a readiness probe (a
    /// Service may send it requests too: [`PlannedContainer::serves`]).
    pub declares_serving: bool,
    /// The Service of the input that selects the pod on a port this container, which
    /// declares none, is taken to listen on.
    pub served_by: Option<ServedBy>,
    /// The app's own command waits for a proxy before starting its real process.
    pub start_gate: Option<StartGate>,
    /// Process start to ready (sidecars) or to first network use (apps).
    pub startup: Millis,
    /// How long it runs before exiting on its own (init containers, Job work); `None`
    /// for containers that run until stopped.
    pub runs_for: Option<Millis>,
    /// What it does after the stop signal.
    pub exit: ExitPolicy,
    /// For proxies: when traffic through it stops working.
    pub traffic: Option<TrafficCuts>,
    /// In a Job, how this work container stops the sidecars when it is done.
    pub sidecar_stops: Vec<SidecarStop>,
    /// For proxies: the setting that asks the app to wait for this proxy
    /// (`holdApplicationUntilProxyStarts`, `proxy-await`), if any.
    pub gate_request: Option<GateRequest>,
    /// The startup probe's own `terminationGracePeriodSeconds`: a kill the probe causes
    /// uses it instead of the pod's (docs/lifecycle.md §1.3).
    pub probe_grace: Option<i64>,
    /// The first command of an init container that uses the network.
    pub network_use: Option<NetworkUse>,
    /// The UID the container runs as, from its own or the pod's security context.
    pub run_as_user: Option<i64>,
    /// The image most likely has no shell or `sleep` (distroless, static).
    pub missing_tools: super::images::MissingTools,
    /// The exit code when stopped by a signal (143 for the Cloud SQL proxy unless
    /// `--exit-zero-on-sigterm`); a non-zero code fails a Job pod (docs/lifecycle.md
    /// §2.6, §7 F4).
    pub exit_code_on_signal: i32,
    /// In a Job, the signal from the work this sidecar waits for before it exits.
    pub self_stop: Option<SelfStop>,
    /// PID 1 is a shell that drops the stop signal: the container runs until SIGKILL
    /// (docs/lifecycle.md §2.7).
    pub dropped_signal: Option<super::stop_signal::DroppedSignal>,
    /// In a Job, the container does no work of its own: its command only waits for the
    /// work to end and stops the sidecars (docs/lifecycle.md §2.8).
    pub only_stops: bool,
    /// Its command only waits (`sleep infinity`, `tail -f /dev/null`, a loop of
    /// `sleep`): it has no work, and no shutdown, of its own.
    pub only_idles: bool,
    /// A regular container's own `restartPolicy: Always`, which this Kubernetes honours
    /// (`ContainerRestartRules`, on from 1.35): the kubelet restarts it in place after
    /// every exit, whatever the pod's policy, and it is no sidecar. Where it is set.
    /// docs/lifecycle.md §2.9.
    pub restart_in_place: Option<JsonPath>,
}

impl PlannedContainer {
    /// A container an injector adds, with no hooks or probes yet: it exits at once on
    /// its signal and carries no traffic until the caller says otherwise.
    pub fn injected(name: &str, by: super::Mesh, trigger: JsonPath, role: Role) -> Self {
        PlannedContainer {
            name: name.to_owned(),
            index: 0,
            provenance: Provenance::Injected {
                by,
                trigger,
                shaped_by: ShapedBy::default(),
            },
            image: None,
            post_start: None,
            pre_stop: None,
            startup_probe: None,
            readiness_probe: None,
            declares_serving: false,
            served_by: None,
            start_gate: None,
            startup: Millis::ZERO,
            runs_for: None,
            exit: ExitPolicy::Immediately,
            traffic: None,
            sidecar_stops: Vec::new(),
            gate_request: None,
            probe_grace: None,
            exit_code_on_signal: 0,
            self_stop: None,
            dropped_signal: None,
            only_stops: false,
            only_idles: false,
            network_use: None,
            run_as_user: None,
            missing_tools: Default::default(),
            restart_in_place: None,
            role,
        }
    }

    /// What the container's own settings offer against each hazard (none for apps):
    /// for a proxy written in the manifest, only what still works once its injector
    /// has run.
    pub fn remedies(&self) -> &'static super::Remedies {
        let Some(sidecar) = self.sidecar() else {
            return &super::Remedies::NONE;
        };
        match (&sidecar.kind, &self.provenance) {
            (SidecarKind::LinkerdProxy, Provenance::Manifest(_)) => {
                &super::linkerd::WRITTEN_REMEDIES
            }
            (kind, _) => kind.remedies(),
        }
    }

    /// Whether the container serves requests: it declares ports or a readiness probe,
    /// or a Service of the input selects its pod.
    pub fn serves(&self) -> bool {
        self.declares_serving || self.served_by.is_some()
    }

    /// The list the container is in.
    pub fn list(&self) -> ContainerList {
        self.role.list()
    }

    /// Whether the kubelet runs it as a native sidecar.
    pub fn is_native_sidecar(&self) -> bool {
        matches!(self.role, Role::NativeSidecar(_))
    }

    /// Whether the manifest gives it `restartPolicy: Always` (honoured or not).
    pub fn restart_always(&self) -> bool {
        self.is_native_sidecar() || self.role.init_run() == Some(InitRun::NeverExits)
    }

    /// The sidecar traits, when this container is one.
    pub fn sidecar(&self) -> Option<&Sidecar> {
        self.role.sidecar()
    }

    /// Whether this container is a sidecar that carries traffic.
    pub fn is_proxy(&self) -> bool {
        self.sidecar().is_some_and(|s| s.carries_traffic)
    }

    /// Where findings about this container point.
    pub fn finding_path(&self) -> &JsonPath {
        match &self.provenance {
            Provenance::Manifest(path) => path,
            Provenance::Injected { trigger, .. } => trigger,
        }
    }

    /// For an injected sidecar, the pod settings that shaped it.
    pub fn shaped_by(&self) -> Option<&ShapedBy> {
        match &self.provenance {
            Provenance::Injected { shaped_by, .. } => Some(shaped_by),
            Provenance::Manifest(_) => None,
        }
    }

    /// This injected sidecar, with the pod settings that shaped it recorded.
    pub fn shaped(mut self, settings: ShapedBy) -> Self {
        if let Provenance::Injected { shaped_by, .. } = &mut self.provenance {
            *shaped_by = settings;
        }
        self
    }

    /// The container's path in the manifest, when it is written there.
    pub fn manifest_path(&self) -> Option<&JsonPath> {
        match &self.provenance {
            Provenance::Manifest(path) => Some(path),
            Provenance::Injected { .. } => None,
        }
    }

    /// Whether an injector adds it (it is not in the manifest).
    pub fn is_injected(&self) -> bool {
        matches!(self.provenance, Provenance::Injected { .. })
    }
}

/// A Service of the input that sends a container requests although it declares no
/// port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServedBy {
    /// `namespace/name` of the Service.
    pub service: String,
    /// The numeric `targetPort` the container is taken to listen on.
    pub target_port: i32,
    /// The file the Service is in.
    pub source: Source,
}

/// A lifecycle hook and how long it lasts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hook {
    /// The hook in the manifest (`...lifecycle.preStop`); `None` when injected.
    pub path: Option<JsonPath>,
    /// For an injected hook, the setting that asks the injector for it (Linkerd's
    /// `proxy-wait-before-exit-seconds` annotation).
    pub asked_by: Option<JsonPath>,
    /// What the hook runs.
    pub action: HookAction,
    /// How long it lasts, as far as the simulation is concerned.
    pub duration: HookDuration,
    /// Side effect that matters to traffic.
    pub effect: HookEffect,
    /// For an injected hook, the mesh setting its injector renders it from (Linkerd's
    /// `proxy-wait-before-exit-seconds`).
    pub rendered_from: Option<&'static str>,
}

impl Hook {
    /// Where a finding about the hook points: the hook in the manifest, or the setting
    /// that asked the injector for it.
    pub fn finding_path(&self) -> Option<&JsonPath> {
        self.path.as_ref().or(self.asked_by.as_ref())
    }

    /// The program a manifest exec hook runs, which the image must have (`sh`).
    pub fn missing_program(&self, missing: super::images::MissingTools) -> Option<&str> {
        let HookAction::Exec(argv) = &self.action else {
            return None;
        };
        self.path.as_ref()?;
        let program = super::shell::basename(argv.first()?);
        missing.lacks(program).then_some(program)
    }
}

/// The handler of a hook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HookAction {
    /// Runs a command in the container.
    Exec(Vec<String>),
    /// Sends an HTTP GET to the container.
    HttpGet {
        /// The port, by number or name.
        port: String,
        /// The request path.
        path: String,
    },
    /// Opens a TCP connection.
    TcpSocket,
    /// The kubelet's own `sleep` action, in seconds.
    Sleep(i64),
}

/// How long a hook lasts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HookDuration {
    /// A known length (`sleep 10`).
    Fixed(Millis),
    /// Until this container is ready, polled every `poll`, or the timeout (`pilot-agent
    /// wait` polls every 500 ms for 60 s; `linkerd-await` every second for 2 min).
    UntilReady {
        /// When the hook gives up (and the kubelet kills the container).
        timeout: Millis,
        /// How often readiness is polled.
        poll: Millis,
    },
    /// Until the app containers have exited (a loop on their connections or processes).
    UntilAppsExit,
    /// The hook stops this container's own process and waits for it
    /// (`nginx -s quit; while killall -0 nginx; do sleep 1; done`).
    UntilSelfExits,
    /// Unknown length, taken as short (0 s) with the assumption printed.
    Unknown,
}

/// What a hook does to traffic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookEffect {
    /// Nothing that changes traffic.
    None,
    /// Starts draining inbound connections (Istio native `pilot-agent request POST drain`).
    DrainsInbound,
    /// Answers once Knative's queue-proxy has drained (its wait-for-drain endpoint,
    /// which the user container's preStop calls).
    AwaitsQueueProxyDrain,
}

/// A startup probe's timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeTiming {
    /// `initialDelaySeconds`.
    pub initial_delay: Millis,
    /// `periodSeconds`.
    pub period: Millis,
    /// `failureThreshold`: failures in a row before the kubelet gives up.
    pub failure_threshold: i64,
}

/// The app's own command waits for a proxy to be ready before starting its process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartGate {
    /// Where the waiting command is.
    pub path: JsonPath,
    /// What it waits on.
    pub waits: super::shell::GateWait,
}

/// What a container does between its stop signal and its exit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExitPolicy {
    /// Exits this long after the signal (app shutdown, a fixed drain).
    After(Sourced<Millis>),
    /// Exits as soon as it gets the signal.
    Immediately,
    /// Istio `EXIT_ON_ZERO_ACTIVE_CONNECTIONS`: waits `minimum`, then polls every
    /// `poll` and exits once the app's connections are gone. No upper bound but SIGKILL.
    WhenIdle {
        /// `MINIMUM_DRAIN_DURATION`: the wait before the first poll.
        minimum: Sourced<Millis>,
        /// How often the connections are polled (1 s, not configurable).
        poll: Millis,
    },
    /// Keeps serving for `accepting` after the signal, then refuses new connections
    /// and exits when in-flight requests are done, at most `cap` later (Linkerd's
    /// proxy; Dapr's `daprd`).
    WhenRequestsDone {
        /// How long it keeps serving after the signal (Dapr's
        /// `block-shutdown-duration`; 0 for Linkerd).
        accepting: Millis,
        /// The shutdown grace period that ends the wait; `None`: no limit but SIGKILL.
        cap: Option<Sourced<Millis>>,
    },
    /// Cloud SQL Auth Proxy: keeps accepting for `minimum` (`--min-sigterm-delay`),
    /// then waits for the app's connections to close, which pooled connections do when
    /// the app exits, at most `cap` more (`--max-sigterm-delay`).
    WhenConnectionsClose {
        /// The wait before the proxy stops accepting.
        minimum: Millis,
        /// The longest wait for open connections after that.
        cap: Millis,
    },
}

/// When a proxy stops carrying traffic, relative to its own events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrafficCuts {
    /// New inbound connections are refused from this moment.
    pub inbound_refused: Cut,
    /// Existing inbound connections are told to go away (GOAWAY, `Connection: close`).
    pub inbound_drained: Cut,
    /// The app's new outbound calls fail from this moment.
    pub outbound_refused: Cut,
}

/// A moment in a container's termination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// When its preStop hook starts (T0).
    PreStop,
    /// When it gets the stop signal.
    Signal,
    /// This long after the stop signal (Envoy stops accepting once `drainDuration` ends).
    AfterSignal(Millis),
    /// When it exits.
    Exit,
    /// Never: the proxy does not carry this traffic (Istio's `interceptionMode: NONE`
    /// leaves inbound alone).
    Never,
}

/// A way a Job's work container stops a sidecar when the work is done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SidecarStop {
    /// The command or script the call is in.
    pub path: JsonPath,
    /// How the call addresses the sidecar.
    pub method: StopMethod,
    /// How the work's exit status survives the stop call.
    pub status: ExitStatus,
    /// The call as written in the script (`curl -X POST localhost:15020/quitquitquit`),
    /// which findings quote.
    pub written: String,
    /// Whether it can work, and if not, why.
    pub effective: Result<(), StopFailure>,
    /// The sidecar exits as soon as the call reaches it, skipping the drain it does on
    /// SIGTERM (pilot-agent's `/quitquitquit` disables draining).
    pub exits_at_once: bool,
    /// Where the call is written in an `sh -c` script, when a fix can take it from
    /// there (a pipeline of its own at the script's top level).
    pub script: Option<ScriptCall>,
}

/// A stop call's place in the script that holds it. Offsets are in the script as the
/// manifest's string decodes, not in the file: a fix rewrites the whole string, which
/// the editor writes back in the scalar's own style (a `|` block stays one, quotes stay
/// quotes), so escapes and folded lines need no mapping back to file bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptCall {
    /// The `command` or `args` item that holds the script.
    pub item: JsonPath,
    /// The script.
    pub script: String,
    /// The call's bytes in it.
    pub call: std::ops::Range<usize>,
}

/// A call a Job's work could make to stop a classic mesh proxy in `containers`, judged
/// as a written call would be: it reaches the proxy and works in this setup (Istio's
/// `/quitquitquit` on the status port in use; Linkerd's `/shutdown` only where it is
/// enabled).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopEndpoint {
    /// The proxy.
    pub sidecar: String,
    /// The call, as a shell command (`curl -fsS -X POST http://localhost:15020/quitquitquit`).
    pub call: String,
    /// The work's `sh -c` script, where the call can be set as an EXIT trap: the pod has
    /// one work container, its command is such a script, and the script runs `curl`
    /// itself, so its image has the client the call needs.
    pub work_script: Option<WorkScript>,
}

/// A work container's `sh -c` script and where it is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkScript {
    /// The `command` or `args` item that holds it.
    pub item: JsonPath,
    /// The script.
    pub script: String,
}

/// A Job sidecar's own wait for the work's end, after which it exits by itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelfStop {
    /// The `command`, `args` or environment variable that sets up the wait.
    pub path: JsonPath,
    /// What it waits for.
    pub trigger: SelfStopTrigger,
    /// The waiting command or setting as written, shortened to what waits
    /// (`until … /shared/done`, `kubexit (KUBEXIT_DEATH_DEPS=app)`).
    pub written: String,
}

/// What a self-stopping sidecar waits for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SelfStopTrigger {
    /// A file (or for `inotifywait`, a directory entry) to appear at this path.
    File {
        /// The path, as the sidecar sees it.
        path: String,
        /// Where the path lies in a volume; `None`: in the container's own filesystem.
        at: Option<VolumePath>,
    },
    /// No process matching this name any more (seen only with a shared process
    /// namespace).
    ProcessGone {
        /// The name or pattern searched for.
        process: String,
    },
    /// kubexit's death dependencies: a tombstone in the graveyard recording that one of
    /// these containers' processes died (`KUBEXIT_DEATH_DEPS`).
    Kubexit {
        /// The names in `KUBEXIT_DEATH_DEPS`.
        deaths: Vec<String>,
        /// `KUBEXIT_GRAVEYARD` (default `/graveyard`).
        graveyard: String,
        /// Where the graveyard lies in a volume; `None`: in the container's own
        /// filesystem.
        at: Option<VolumePath>,
    },
}

/// A place inside a pod volume: the volume's name and the path below its root, so that
/// two containers' paths meet when both are equal, whatever the mount paths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VolumePath {
    /// The volume's name in `spec.volumes`.
    pub volume: String,
    /// The path below the volume's root (with the mount's `subPath`), `/`-separated.
    pub path: String,
}

/// An init container's call out of the pod, which needs a proxy that is running when
/// the pod's traffic is redirected to one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkUse {
    /// The `command` or `args` that makes the call.
    pub path: JsonPath,
    /// The command, as written.
    pub call: String,
    /// The destination ports the command shows; empty when it shows none.
    pub ports: Vec<u16>,
    /// Why the redirection lets this call through, when it does.
    pub bypass: Option<Bypass>,
}

/// Why a proxy's traffic redirection lets an init container's call through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bypass {
    /// The container runs as the proxy's own user, whose traffic is not redirected.
    ProxyUser {
        /// The proxy's UID.
        uid: i64,
    },
    /// A pod annotation excludes every port the call uses.
    ExcludedPorts {
        /// The annotation (`traffic.sidecar.istio.io/excludeOutboundPorts`).
        annotation: &'static str,
    },
}

/// Why a stop call cannot stop the sidecar: the fact, for the rules to word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopFailure {
    /// `exec` replaced the shell before the call (an EXIT trap does not run either).
    ReplacedByExec {
        /// The command that replaces the shell.
        exec: String,
    },
    /// The endpoint accepts only POST; the call sends GET and gets 405.
    NeedsPost {
        /// The endpoint (`pilot-agent's /quitquitquit`).
        endpoint: &'static str,
    },
    /// The Cloud SQL proxy serves its quit call only when started with `--quitquitquit`.
    CloudSqlQuitOff {
        /// The call is `cloud-sql-proxy shutdown` rather than the HTTP endpoint.
        command: bool,
    },
    /// Cloud SQL Proxy v1 has no quit endpoint and no `shutdown` command: only a
    /// signal stops it.
    CloudSqlV1CannotQuit {
        /// The call is `cloud-sql-proxy shutdown` rather than the HTTP endpoint.
        command: bool,
    },
    /// Nothing in the pod serves `/quitquitquit` on this port.
    NothingOnPort {
        /// The port called.
        port: u16,
        /// Where pilot-agent listens.
        agent_port: u16,
    },
    /// Linkerd's `/shutdown` called on another port than the admin port.
    WrongLinkerdPort {
        /// The port called.
        port: u16,
        /// The admin port.
        admin_port: u16,
    },
    /// Linkerd's `/shutdown` endpoint is off (404).
    LinkerdShutdownOff(LinkerdShutdownOff),
    /// Istio before 1.4: pilot-agent keeps running when Envoy exits (istio#11659).
    AgentOutlivesEnvoy {
        /// The Istio version.
        version: crate::settings::IstioVersion,
        /// Where pilot-agent's own `/quitquitquit` is.
        agent_port: u16,
    },
    /// Argo Workflows signals an injected sidecar by exec'ing `/bin/sh -c 'kill -15 1'`
    /// in it, and its image has no shell (nor a `kill-cmd` annotation to use instead).
    NoShellForArgoKill {
        /// The sidecar.
        container: String,
    },
    /// A signal to another container's process without `shareProcessNamespace: true`.
    NoSharedProcessNamespace,
    /// The work leaves the signal a sidecar waits for where that sidecar cannot see
    /// it: another volume, or a path in one container's own filesystem.
    SignalNotShared {
        /// The sidecar that waits.
        sidecar: String,
        /// Where the sidecar looks, as it sees it.
        waits_at: String,
        /// The volume the sidecar's path is in, if any.
        waits_in: Option<String>,
        /// Where the work leaves it, as it sees it.
        leaves_at: String,
        /// The volume the work's path is in, if any.
        leaves_in: Option<String>,
    },
    /// The work creates a file in a volume a sidecar mounts, but that sidecar's command
    /// does not wait for it (its image's own entrypoint, or a script with no such wait).
    SidecarIgnoresSignal {
        /// The sidecar.
        sidecar: String,
        /// The file the work creates.
        file: String,
        /// The sidecar runs its image's entrypoint: no `command` in the manifest.
        own_entrypoint: bool,
    },
    /// kubexit in the sidecar waits for other deaths than the work's tombstone name.
    KubexitNotADeathDep {
        /// The sidecar.
        sidecar: String,
        /// The work's `KUBEXIT_NAME`.
        name: String,
        /// The sidecar's `KUBEXIT_DEATH_DEPS`.
        deaths: Vec<String>,
    },
    /// A non-root work process signalling another user's process.
    OtherUser {
        /// The UID the work runs as.
        user: i64,
        /// The process signalled.
        process: String,
        /// The UID it runs as.
        owner: i64,
    },
}

/// What leaves Linkerd's `/shutdown` endpoint off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkerdShutdownOff {
    /// `config.linkerd.io/proxy-admin-shutdown: disabled` on the pod.
    Annotation,
    /// The injected proxy's `LINKERD2_PROXY_SHUTDOWN_ENDPOINT_ENABLED=false`.
    ProxyEnv,
    /// The install value `proxy.enableShutdownEndpoint: false`, from here.
    InstallValue(Source),
    /// This version's default (off since 2.16).
    VersionDefault(crate::settings::LinkerdVersion),
    /// The version is unknown; the newest, where it is off, is assumed.
    UnknownVersion,
}

/// How a sidecar is told to stop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopMethod {
    /// `POST :15020/quitquitquit` (pilot-agent).
    IstioAgentQuit {
        /// pilot-agent's status port (15020 unless moved).
        port: u16,
    },
    /// `POST :15000/quitquitquit` (Envoy only; pilot-agent keeps running).
    EnvoyAdminQuit,
    /// `POST :4191/shutdown`.
    LinkerdShutdown {
        /// The port called (the admin port is 4191).
        port: u16,
    },
    /// `linkerd-await --shutdown -- work`.
    LinkerdAwaitShutdown,
    /// Cloud SQL proxy `/quitquitquit` or `cloud-sql-proxy shutdown`.
    CloudSqlQuit {
        /// The admin port (9091 unless `--admin-port`).
        port: u16,
        /// The proxy the call is for: v2, or v1, which serves neither.
        proxy: SidecarKind,
    },
    /// Dapr `POST :3500/v1.0/shutdown`.
    DaprShutdown {
        /// Dapr's HTTP port (3500).
        port: u16,
    },
    /// `pkill`/`kill`/`killall` of the sidecar's process.
    Signal {
        /// The process named by the command.
        target: String,
    },
    /// A command the user declared as stopping the sidecar.
    Wrapper {
        /// The wrapper's name.
        command: String,
    },
    /// The work leaves the signal a sidecar's own command waits for (a file, its
    /// kubexit tombstone, its process ending), and that sidecar then exits.
    SelfStop {
        /// The sidecar container that waits; its [`SelfStop`] says for what.
        sidecar: String,
        /// The sidecar's helper then SIGTERMs the real process and exits with its code
        /// (kubexit), rather than the script ending as it chooses.
        by_signal: bool,
    },
    /// The workload's controller signals the sidecars itself once the work is done
    /// (Argo Workflows).
    Controller {
        /// The sidecar it signals (one stop per sidecar: whether the signal can be
        /// delivered depends on each container's image).
        sidecar: SidecarKind,
    },
    /// A call to some other endpoint with a known stop path on an unexpected port.
    Other {
        /// What is called, as written: the port and path (`:8080/quit`), or the file
        /// touched (`touch /tmp/done`).
        called: String,
    },
}

/// What happens to the work's exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// The status is saved and returned (`trap`, `rc=$?; stop; exit $rc`, wrappers).
    Kept,
    /// `work; stop`: the pod reports the stop call's status, success for failed work.
    LostOnFailure,
    /// `work && stop` (or `set -e`): on failure the stop call never runs and the pod hangs.
    HangsOnFailure,
    /// `work || stop`: the sidecar is stopped only when the work fails.
    SkippedOnSuccess,
    /// `stop; work`: the sidecar is gone before the work runs.
    BeforeWork,
}

/// A setting that asks for the app to be held until a proxy is ready.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GateRequest {
    /// Where the setting is.
    pub source: Source,
    /// What asks for the hold.
    pub asked_by: GateSetting,
}

/// What asks for the app to be held until a proxy is ready.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GateSetting {
    /// The proxy's own postStart hook that waits for it, by its command
    /// (`pilot-agent wait`).
    PostStart {
        /// The waiting command.
        command: &'static str,
    },
    /// A setting of the pod or the mesh.
    Setting {
        /// The setting's name (`holdApplicationUntilProxyStarts`).
        name: &'static str,
        /// Its value as written in YAML (`true`, `"true"`, `enabled`); `None` where
        /// the setting asks by being on, set or by default (Linkerd's `proxy-await`).
        value: Option<&'static str>,
    },
}

/// A setting that has no effect in this pod: where it is, and what makes it moot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MootSetting {
    /// Where the setting is.
    pub source: Source,
    /// What makes it moot.
    pub why: Moot,
}

/// What makes a setting moot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Moot {
    /// A drain setting the proxy does not use.
    Drain(DrainMoot),
    /// A start gate that holds the app no longer than something else already does.
    Gate(GateMoot),
}

/// Why a proxy does not use a drain setting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DrainMoot {
    /// A drain setting that arrived in a later release of the mesh than this one.
    TooNew {
        /// The setting (`EXIT_ON_ZERO_ACTIVE_CONNECTIONS`).
        setting: &'static str,
        /// The first release that reads it (`Istio 1.12`).
        since: &'static str,
    },
    /// A drain setting a native proxy does not use: it drains from its preStop and
    /// exits on SIGTERM, after the app.
    UnusedWhenNative {
        /// The setting (`terminationDrainDuration`).
        setting: &'static str,
    },
    /// A drain length replaced by another while a mode is on.
    Replaced {
        /// The setting not used, and its value.
        setting: &'static str,
        /// Its value.
        value: Millis,
        /// The setting used instead.
        by: &'static str,
        /// Its value.
        by_value: Millis,
        /// The mode that makes the difference (`EXIT_ON_ZERO_ACTIVE_CONNECTIONS`).
        mode: &'static str,
    },
    /// A drain setting that applies only while a mode is on, and it is off.
    ModeOff {
        /// The setting (`MINIMUM_DRAIN_DURATION`).
        setting: &'static str,
        /// The mode (`EXIT_ON_ZERO_ACTIVE_CONNECTIONS`).
        mode: &'static str,
    },
}

/// Why a start gate adds nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GateMoot {
    /// A postStart that waits for a native proxy its startup probe already holds the
    /// app for.
    WaitUnderStartupProbe {
        /// The waiting command (`pilot-agent wait`).
        command: &'static str,
    },
    /// A hold setting the injector ignores for a native sidecar, whose startup probe
    /// holds the app.
    HoldIgnoredWhenNative {
        /// The setting (`holdApplicationUntilProxyStarts`).
        setting: &'static str,
    },
}

impl StopMethod {
    /// The sidecar this call is written for, when the call says (a signal or a
    /// wrapper does not).
    pub fn written_for(&self) -> Option<SidecarKind> {
        match self {
            StopMethod::IstioAgentQuit { .. } | StopMethod::EnvoyAdminQuit => {
                Some(SidecarKind::IstioProxy)
            }
            StopMethod::LinkerdShutdown { .. } | StopMethod::LinkerdAwaitShutdown => {
                Some(SidecarKind::LinkerdProxy)
            }
            StopMethod::CloudSqlQuit { proxy, .. } => Some(proxy.clone()),
            StopMethod::DaprShutdown { .. } => Some(SidecarKind::Daprd),
            StopMethod::Signal { .. }
            | StopMethod::SelfStop { .. }
            | StopMethod::Wrapper { .. }
            | StopMethod::Controller { .. }
            | StopMethod::Other { .. } => None,
        }
    }

    /// Whether this way of stopping addresses a sidecar of `kind`.
    pub fn reaches(&self, kind: &SidecarKind) -> bool {
        match self {
            StopMethod::IstioAgentQuit { .. } | StopMethod::EnvoyAdminQuit => {
                *kind == SidecarKind::IstioProxy
            }
            StopMethod::LinkerdShutdown { .. } | StopMethod::LinkerdAwaitShutdown => {
                *kind == SidecarKind::LinkerdProxy
            }
            StopMethod::CloudSqlQuit { proxy, .. } => kind == proxy,
            StopMethod::DaprShutdown { .. } => *kind == SidecarKind::Daprd,
            StopMethod::Signal { target } => signal_reaches(target, kind),
            StopMethod::Wrapper { .. } => true,
            StopMethod::Controller { sidecar, .. } => sidecar == kind,
            StopMethod::SelfStop { .. } | StopMethod::Other { .. } => false,
        }
    }

    /// Whether this way of stopping addresses `container`: a self-stop only the
    /// sidecar that waits for it, any other way the sidecars of the kind it reaches.
    pub fn reaches_container(&self, container: &PlannedContainer) -> bool {
        match self {
            StopMethod::SelfStop { sidecar, .. } => *sidecar == container.name,
            _ => container.sidecar().is_some_and(|s| self.reaches(&s.kind)),
        }
    }

    /// Whether the sidecar ends by a signal and exits with the code it gives on one:
    /// `kill`, and kubexit, which SIGTERMs its child and exits with the child's code.
    pub fn ends_by_signal(&self) -> bool {
        matches!(
            self,
            StopMethod::Signal { .. }
                | StopMethod::SelfStop {
                    by_signal: true,
                    ..
                }
        )
    }
}

fn signal_reaches(target: &str, kind: &SidecarKind) -> bool {
    let target = target.to_lowercase();
    match kind {
        SidecarKind::IstioProxy => target.contains("envoy") || target.contains("pilot-agent"),
        SidecarKind::LinkerdProxy => target.contains("linkerd"),
        SidecarKind::CloudSqlProxy | SidecarKind::CloudSqlProxyV1 => {
            target.contains("cloud-sql") || target.contains("cloud_sql")
        }
        SidecarKind::Declared(name) => target.contains(&name.to_lowercase()),
        _ => target.contains("proxy"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proxy() -> Sidecar {
        Sidecar {
            kind: SidecarKind::IstioProxy,
            carries_traffic: true,
        }
    }

    /// Naming a container's sidecar (the resolvers do, from its name or image) never
    /// changes how the kubelet runs it: an init container stays one, and one whose
    /// `restartPolicy: Always` this version ignores still blocks the next.
    #[test]
    fn a_known_sidecar_keeps_how_the_kubelet_runs_it() {
        use ContainerList::{Init, Regular};
        for (list, restart_always, native_sidecars) in [
            (Regular, false, true),
            (Init, false, true),
            (Init, true, true),
            (Init, true, false),
        ] {
            let unknown = Role::of_manifest(list, restart_always, native_sidecars);
            let known = unknown.with_sidecar(proxy());
            assert_eq!(known.list(), list);
            assert_eq!(known.init_run(), unknown.init_run());
            assert_eq!(known.sidecar(), Some(&proxy()));
        }
        assert_eq!(
            Role::of_manifest(Init, true, false).init_run(),
            Some(InitRun::NeverExits)
        );
        assert_eq!(
            Role::of_manifest(Init, false, true).init_run(),
            Some(InitRun::ToCompletion)
        );
        assert!(matches!(
            Role::of_manifest(Init, true, true),
            Role::NativeSidecar(_)
        ));
    }

    /// An injector's native sidecar on a version without native sidecars is an init
    /// container that never exits, still the mesh's proxy.
    #[test]
    fn an_injected_native_sidecar_needs_a_kubelet_that_runs_them() {
        assert_eq!(
            Role::injected_sidecar(proxy(), true, true),
            Role::NativeSidecar(proxy())
        );
        let blocked = Role::injected_sidecar(proxy(), true, false);
        assert_eq!(blocked.list(), ContainerList::Init);
        assert_eq!(blocked.init_run(), Some(InitRun::NeverExits));
        assert_eq!(blocked.sidecar(), Some(&proxy()));
        assert_eq!(
            Role::injected_sidecar(proxy(), false, true),
            Role::ClassicSidecar(proxy())
        );
    }
}
