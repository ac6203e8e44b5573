//! The plan under construction: the containers of the pod in their lists, and what the
//! models found on the way (problems, assumptions, settings without effect, reasons
//! for rejection). The models edit it; it knows no model.

use k8s_openapi::api::core::v1::{Container, LifecycleHandler};

use super::hooks::{self, HookKind, Owner};
use super::plan::Hook;
use super::reading::Reading;
use super::vocabulary::Lexicon;
use super::{
    ANNOTATION_PREFIX, Assumed, Assumption, Bypass, ConfigProblem, Conflict, ContainerList,
    DroppedHook, Fault, Injection, MeshDecision, MootSetting, PlannedContainer, PodPlan, Rejection,
    RestartPolicy, Role, Sidecar, SidecarKind, StopEndpoint, Unreadable,
};
use crate::load::JsonPath;
use crate::load::path::Segment;
use crate::settings::{Scenario, Settings, Source, Sourced};
use crate::workload::Workload;

/// The plan under construction; mesh resolvers edit its container lists.
pub struct Builder<'a> {
    /// The workload whose pod is planned.
    pub workload: &'a Workload,
    /// The profile: versions, mesh settings, scenario.
    pub settings: &'a Settings,
    /// The sidecars' commands, endpoints and hooks, for reading what containers run.
    pub lexicon: &'a Lexicon,
    /// Init containers in start order, native sidecars among them.
    pub init: Vec<PlannedContainer>,
    /// Regular containers in start order.
    pub regular: Vec<PlannedContainer>,
    /// The scenario, after the workload's own `mesh-lifecycle.io/*` annotations.
    pub scenario: Scenario,
    /// What each mesh resolver decided.
    pub meshes: Vec<MeshDecision>,
    /// Readings the plan rests on.
    pub assumptions: Vec<Assumption>,
    /// Malformed or conflicting settings found on the way.
    pub problems: Vec<ConfigProblem>,
    /// Settings without effect.
    pub moot: Vec<MootSetting>,
    /// Every reason the pod would not be admitted.
    pub rejections: Vec<Rejection>,
    /// Hooks the API server drops at admission.
    pub dropped_hooks: Vec<DroppedHook>,
    /// The calls a Job's work could make to stop its mesh proxies.
    pub stop_endpoints: Vec<StopEndpoint>,
}

impl<'a> Builder<'a> {
    pub(super) fn new(
        workload: &'a Workload,
        settings: &'a Settings,
        lexicon: &'a Lexicon,
    ) -> Self {
        let mut builder = Builder {
            workload,
            settings,
            lexicon,
            init: Vec::new(),
            regular: Vec::new(),
            scenario: settings.scenario.clone(),
            meshes: Vec::new(),
            assumptions: Vec::new(),
            problems: Vec::new(),
            moot: Vec::new(),
            rejections: Vec::new(),
            dropped_hooks: Vec::new(),
            stop_endpoints: Vec::new(),
        };
        builder.read_scenario_annotations();
        let spec = &workload.pod_spec;
        let paths = &workload.paths;
        for (container, path) in spec
            .init_containers
            .iter()
            .flatten()
            .zip(&paths.init_containers)
        {
            let planned = builder.from_manifest(container, ContainerList::Init, path.clone());
            builder.init.push(planned);
        }
        for (container, path) in spec.containers.iter().zip(&paths.containers) {
            let planned = builder.from_manifest(container, ContainerList::Regular, path.clone());
            builder.regular.push(planned);
        }
        builder
    }

    /// `mesh-lifecycle.io/app-shutdown: 20s` and friends on the workload.
    fn read_scenario_annotations(&mut self) {
        let workload = self.workload;
        for key in crate::settings::ScenarioKey::ALL {
            let annotation = format!("{ANNOTATION_PREFIX}{key}");
            let written = workload
                .annotation(&annotation)
                .map(|(text, path)| (text, Source::Manifest(path)));
            if let Some(duration) =
                self.read_setting(&annotation, written, &Reading::duration("20s"))
            {
                self.scenario.set(key, duration.value, duration.source);
            }
        }
    }

    /// The ports listed by a pod annotation such as
    /// `traffic.sidecar.istio.io/excludeOutboundPorts: "5432,6379"` (ranges `a-b` too).
    fn annotated_ports(&self, key: &str) -> Vec<u16> {
        let Some((value, _)) = self.workload.pod_annotation(key) else {
            return Vec::new();
        };
        value
            .split(',')
            .map(str::trim)
            .flat_map(|item| {
                let (low, high) = item.split_once('-').unwrap_or((item, item));
                match (low.trim().parse::<u16>(), high.trim().parse::<u16>()) {
                    (Ok(low), Ok(high)) if low <= high => (low..=high).collect(),
                    _ => Vec::new(),
                }
            })
            .collect()
    }

    /// Marks the init containers' calls that the proxy's traffic redirection lets
    /// through: those of a container running as `proxy_uid` (the rules skip the proxy's
    /// own user) and those whose every port is in `excluded_ports`.
    pub(crate) fn exempt_init_calls(&mut self, proxy_uid: i64, exclusion: &'static str) {
        let excluded = self.annotated_ports(exclusion);
        for container in &mut self.init {
            let runs_as_proxy = container.run_as_user == Some(proxy_uid);
            let Some(call) = &mut container.network_use else {
                continue;
            };
            if runs_as_proxy {
                call.bypass = Some(Bypass::ProxyUser { uid: proxy_uid });
            } else if !call.ports.is_empty() && call.ports.iter().all(|p| excluded.contains(p)) {
                call.bypass = Some(Bypass::ExcludedPorts {
                    annotation: exclusion,
                });
            }
        }
    }

    /// The manifest container at `path`, when there is one: found by its path among
    /// the workload's, which need not end in its index in the pod (an Argo step's
    /// `main` is its template's `container`, and Argo's own containers come first).
    pub fn manifest_container(&self, planned: &PlannedContainer) -> Option<&'a Container> {
        let path = planned.manifest_path()?;
        let paths = &self.workload.paths;
        match planned.list() {
            ContainerList::Init => {
                let index = index_of(&paths.init_containers, path)?;
                self.workload.pod_spec.init_containers.as_ref()?.get(index)
            }
            ContainerList::Regular => {
                let index = index_of(&paths.containers, path)?;
                self.workload.pod_spec.containers.get(index)
            }
        }
    }

    /// Finds a container by name in either list.
    pub fn find(&self, name: &str) -> Option<(ContainerList, usize)> {
        if let Some(i) = self.init.iter().position(|c| c.name == name) {
            return Some((ContainerList::Init, i));
        }
        self.regular
            .iter()
            .position(|c| c.name == name)
            .map(|i| (ContainerList::Regular, i))
    }

    /// The container at a position found with [`Builder::find`].
    pub fn get(&self, list: ContainerList, index: usize) -> &PlannedContainer {
        match list {
            ContainerList::Init => &self.init[index],
            ContainerList::Regular => &self.regular[index],
        }
    }

    /// The container at a position found with [`Builder::find`], to change it.
    pub fn get_mut(&mut self, list: ContainerList, index: usize) -> &mut PlannedContainer {
        match list {
            ContainerList::Init => &mut self.init[index],
            ContainerList::Regular => &mut self.regular[index],
        }
    }

    /// The role of a mesh proxy of `kind` an injector adds: native when the injector
    /// asks for it and this Kubernetes version runs native sidecars, an init container
    /// that never exits when only the injector asks, classic otherwise.
    pub fn injected_proxy(&self, kind: SidecarKind, native: bool) -> Role {
        Role::injected_sidecar(
            Sidecar {
                kind,
                carries_traffic: true,
            },
            native,
            self.settings.kubernetes.value.runs_native_sidecars(),
        )
    }

    /// Makes the container at `list`/`index` a sidecar of `kind`: its start-up is the
    /// proxy start-up and its hooks are re-read as a sidecar's (a waiting loop in a
    /// sidecar's preStop waits for the app, not for itself).
    pub fn make_sidecar(
        &mut self,
        list: ContainerList,
        index: usize,
        kind: SidecarKind,
        carries_traffic: bool,
    ) {
        let startup = self.scenario.proxy_startup.value;
        let manifest = self.manifest_container(self.get(list, index)).cloned();
        let lexicon = self.lexicon;
        let planned = self.get_mut(list, index);
        planned.role = planned.role.with_sidecar(Sidecar {
            kind,
            carries_traffic,
        });
        planned.startup = startup;
        planned.runs_for = None;
        if let (Some(container), Some(path)) = (manifest, planned.manifest_path().cloned()) {
            planned.post_start = hooks::read(
                &container,
                &path,
                HookKind::PostStart,
                Owner::Sidecar,
                lexicon,
            );
            planned.pre_stop = hooks::read(
                &container,
                &path,
                HookKind::PreStop,
                Owner::Sidecar,
                lexicon,
            );
        }
    }

    /// Two meshes in one pod: both proxies intercept the same traffic.
    pub(super) fn check_mesh_conflicts(&mut self) {
        let injected: Vec<&MeshDecision> = self
            .meshes
            .iter()
            .filter(|m| !matches!(m.injection, Injection::NotInjected { .. }))
            // Dapr's sidecar is an API the app calls, not a proxy that captures the pod's
            // traffic: it runs beside any mesh.
            .filter(|m| m.mesh.captures_traffic())
            .collect();
        if injected.len() > 1 {
            let meshes: Vec<&'static str> = injected.iter().map(|m| m.mesh.id()).collect();
            let path = match &injected[1].injection {
                Injection::WillInject { trigger } => trigger.clone(),
                _ => self.workload.paths.pod_metadata.clone(),
            };
            self.problem(path, Fault::Conflict(Conflict::TwoMeshes { meshes }));
        }
    }

    /// A hook an injector gives a sidecar (`pilot-agent wait`), running `argv`.
    pub fn sidecar_hook(&self, argv: &[&str], kind: HookKind) -> Hook {
        let how = hooks::HookReading {
            kind,
            owner: Owner::Sidecar,
            env: &Default::default(),
            lexicon: self.lexicon,
        };
        let argv = argv.iter().map(|word| (*word).to_owned()).collect();
        hooks::from_argv(argv, None, how)
    }

    /// A hook an install setting gives a sidecar (Istio's Helm `global.proxy.lifecycle`).
    pub fn sidecar_handler(&self, handler: &LifecycleHandler, kind: HookKind) -> Hook {
        let how = hooks::HookReading {
            kind,
            owner: Owner::Sidecar,
            env: &Default::default(),
            lexicon: self.lexicon,
        };
        hooks::from_handler(handler, None, how)
    }

    /// Records what is wrong with the setting at `path`.
    pub fn problem(&mut self, path: JsonPath, fault: Fault) {
        self.problems.push(ConfigProblem { path, fault });
    }

    /// Records an assumption once: the first source of a reading is the one given.
    pub fn assume(&mut self, assumed: Assumed, source: Source) {
        if !self.assumptions.iter().any(|a| a.assumed == assumed) {
            self.assumptions.push(Assumption { assumed, source });
        }
    }

    pub(super) fn finish(mut self) -> PodPlan {
        let workload = self.workload;
        let spec = &workload.pod_spec;
        let mut grace_period = match spec.termination_grace_period_seconds {
            Some(seconds) => Sourced::new(
                seconds,
                Source::Manifest(workload.paths.pod_spec.key("terminationGracePeriodSeconds")),
            ),
            None => Sourced::default_value(30),
        };
        if grace_period.value < 0 {
            self.problem(
                workload.paths.pod_spec.key("terminationGracePeriodSeconds"),
                Fault::Unreadable(Unreadable::NegativeGracePeriod {
                    seconds: grace_period.value,
                }),
            );
            grace_period.value = 1;
        }
        self.check_api_version();
        self.check_refused_fields();
        self.check_sleep_actions(grace_period.value);
        self.check_dropped_restart_policies();
        self.check_container_restart_policies();
        self.fail_hooks_without_their_program();
        self.note_unknown_hook_lengths();
        let restart_policy = match spec.restart_policy.as_deref() {
            Some("Never") => RestartPolicy::Never,
            Some("OnFailure") => RestartPolicy::OnFailure,
            Some(_) => RestartPolicy::Always,
            None if workload.runs_to_completion() => RestartPolicy::Never,
            None => RestartPolicy::Always,
        };
        // `kubectl delete --grace-period=0` without `--force` sends 1 (§2.2).
        let deletion_grace_period = self.settings.deletion_grace_period.clone().map(|mut d| {
            if d.value == 0 {
                d.value = 1;
                self.assume(Assumed::DeletionGraceZero, d.source.clone());
            }
            d
        });
        let mut containers = self.init;
        for (index, container) in containers.iter_mut().enumerate() {
            container.index = index;
        }
        for (index, mut container) in self.regular.into_iter().enumerate() {
            container.index = index;
            containers.push(container);
        }
        PodPlan {
            workload: workload.reference(),
            kind: workload.kind,
            completes: workload.runs_to_completion(),
            paths: workload.paths.clone(),
            kubernetes: self.settings.kubernetes.clone(),
            grace_period,
            deletion_grace_period,
            deadline_termination: self.settings.restartable_sidecars_during_termination.value,
            restart_policy,
            share_process_namespace: spec.share_process_namespace == Some(true),
            labelled: workload
                .pod_metadata
                .labels
                .as_ref()
                .is_some_and(|labels| !labels.is_empty()),
            namespace_known: self
                .settings
                .namespace_of(workload.reference().namespace.as_deref())
                .is_some(),
            containers: containers.into_iter().collect(),
            meshes: self.meshes,
            scenario: self.scenario,
            assumptions: self.assumptions,
            config_problems: self.problems,
            moot_settings: self.moot,
            rejections: self.rejections,
            dropped_hooks: self.dropped_hooks,
            stop_endpoints: self.stop_endpoints,
        }
    }
}

/// The index of `path` among a container list's `paths`: the index its last segment
/// names when the list holds it there (so that asking for each of a pod's containers
/// costs the pod's size, not its square), else wherever the list holds it.
fn index_of(paths: &[JsonPath], path: &JsonPath) -> Option<usize> {
    if let Some(Segment::Index(index)) = path.segments().last()
        && paths.get(*index) == Some(path)
    {
        return Some(*index);
    }
    paths.iter().position(|p| p == path)
}
