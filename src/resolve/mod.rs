//! Stage 3 of the pipeline: a workload and the environment profile in, a [`PodPlan`] out.
//!
//! Decides which containers are sidecars and what each will do: for manifests after
//! injection the proxy is in the YAML; before injection this stage models what the
//! injector will add. Mesh knowledge lives in one module per mesh; what comes out is
//! mesh-neutral (hooks with durations, exit policies, traffic cuts) for the simulator.

pub mod api_removals;
pub mod assumption;
pub mod decision;
pub mod hooks;
pub mod images;
pub mod jobs;
pub mod kubexit;
pub mod mesh;
pub mod mounted_scripts;
pub mod plan;
pub mod problems;
pub mod shell;
pub mod sidecars;
pub mod stop_signal;

use k8s_openapi::api::core::v1::{Container, Probe};

use crate::load::JsonPath;
use crate::settings::version::KubeVersion;
use crate::settings::{IstioSettings, Scenario, Settings, Source, Sourced};
use crate::time::{Millis, parse_go_duration};
use crate::workload::{Workload, knative};
pub use assumption::{Assumed, Assumption};
pub use decision::*;
use hooks::{HookKind, Owner};
pub use mesh::{Mesh, Remedies, consul, dapr, istio, kuma, linkerd};
pub use plan::*;
pub use problems::*;
pub use stop_signal::DroppedSignal;

/// The annotation prefix for per-workload scenario values and suppressions.
pub const ANNOTATION_PREFIX: &str = "mesh-lifecycle.io/";

/// Resolves one workload into the plan of its pod.
pub fn resolve(workload: &Workload, settings: &Settings) -> PodPlan {
    let mut builder = Builder::new(workload, settings);
    istio::resolve(&mut builder);
    linkerd::resolve(&mut builder);
    consul::resolve(&mut builder);
    kuma::resolve(&mut builder);
    dapr::resolve(&mut builder);
    sidecars::resolve(&mut builder);
    builder.check_mesh_conflicts();
    jobs::resolve(&mut builder);
    builder.finish()
}

/// The plan under construction; mesh resolvers edit its container lists.
pub struct Builder<'a> {
    /// The workload whose pod is planned.
    pub workload: &'a Workload,
    /// The profile: versions, mesh settings, scenario.
    pub settings: &'a Settings,
    /// The settings of the Istio revision that injects this pod ([`istio::selected_revision`]).
    pub istio: &'a IstioSettings,
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
    fn new(workload: &'a Workload, settings: &'a Settings) -> Self {
        let mut builder = Builder {
            workload,
            settings,
            istio: istio::selected_revision(workload, settings)
                .map_or(&settings.istio, |(_, istio)| istio),
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

    /// The kubelet's `sleep` action (docs/lifecycle.md §2.3): Kubernetes 1.28 and older
    /// have no such field, so the handler is left empty and the pod rejected; in 1.29 the
    /// `PodLifecycleSleepAction` gate is alpha and off, and the API server drops the
    /// action (`dropPodLifecycleSleepAction`): the pod is admitted without that hook; from
    /// 1.30 it runs, and invalid seconds are rejected by validation.
    fn check_sleep_actions(&mut self, grace: i64) {
        let version = self.settings.kubernetes.value;
        let mut notes = Vec::new();
        let mut dropped = Vec::new();
        let mut rejections = Vec::new();
        for container in self.init.iter_mut().chain(self.regular.iter_mut()) {
            for slot in [&mut container.pre_stop, &mut container.post_start] {
                let Some(hook) = slot.as_ref() else { continue };
                let (HookAction::Sleep(seconds), Some(path)) =
                    (hook.action.clone(), hook.path.clone())
                else {
                    continue;
                };
                if version.drops_sleep_action() {
                    notes.push((
                        Assumed::SleepActionDropped {
                            container: container.name.clone(),
                            kubernetes: version,
                        },
                        path.clone(),
                    ));
                    dropped.push(DroppedHook {
                        container: container.name.clone(),
                        path,
                        seconds,
                    });
                    *slot = None;
                    continue;
                }
                if let Some(problem) = sleep_action_problem(version, grace, seconds) {
                    rejections.push(Rejection {
                        path: path.key("sleep"),
                        by: Rejector::ApiServer,
                        cause: RejectionCause::SleepAction(problem),
                    });
                } else if !version.sleep_action_is_ga() {
                    notes.push((
                        Assumed::SleepActionBeta {
                            container: container.name.clone(),
                            kubernetes: version,
                        },
                        path,
                    ));
                }
            }
        }
        for (assumed, path) in notes {
            self.assume(assumed, Source::Manifest(path));
        }
        self.dropped_hooks = dropped;
        self.rejections.append(&mut rejections);
    }

    /// Before Kubernetes 1.29 the API server drops `restartPolicy` from init containers
    /// (`dropDisabledFields`: the `SidecarContainers` gate is off in 1.28, the field
    /// unknown before), and validation forbids probes and lifecycle hooks on the plain
    /// init container that is left (`validateInitContainers`): such a pod is rejected
    /// (docs/lifecycle.md §1.2). One without them is admitted and never gets past it.
    fn check_dropped_restart_policies(&mut self) {
        if self.settings.kubernetes.value.runs_native_sidecars() {
            return;
        }
        let version = self.settings.kubernetes.value;
        let mut rejections = Vec::new();
        for planned in self.init.iter().filter(|c| c.restart_always()) {
            let manifest = self.manifest_container(planned);
            let forbidden = |field: &str| match (field, manifest) {
                ("startupProbe", Some(c)) => c.startup_probe.is_some(),
                ("readinessProbe", Some(c)) => c.readiness_probe.is_some(),
                ("livenessProbe", Some(c)) => c.liveness_probe.is_some(),
                ("lifecycle", Some(c)) => c.lifecycle.is_some(),
                ("startupProbe", None) => planned.startup_probe.is_some(),
                ("readinessProbe", None) => planned.readiness_probe.is_some(),
                ("lifecycle", None) => planned.pre_stop.is_some() || planned.post_start.is_some(),
                _ => false,
            };
            let Some(field) = [
                "startupProbe",
                "readinessProbe",
                "livenessProbe",
                "lifecycle",
            ]
            .into_iter()
            .find(|field| forbidden(field)) else {
                continue;
            };
            let path = match planned.manifest_path() {
                Some(path) => path.key(field),
                None => planned
                    .shaped_by()
                    .and_then(|s| s.native.clone())
                    .unwrap_or_else(|| planned.finding_path().clone()),
            };
            rejections.push(Rejection {
                path,
                by: Rejector::ApiServer,
                cause: RejectionCause::DroppedSidecarPolicy {
                    container: planned.name.clone(),
                    field,
                    version,
                },
            });
        }
        self.rejections.append(&mut rejections);
    }

    /// From 1.28 (when `restartPolicy` joined the container type, for init containers)
    /// to 1.34, validation refuses it on a regular container (`validateContainers`:
    /// "may not be set for non-init containers") unless `ContainerRestartRules` is on:
    /// alpha and off in 1.34, on from 1.35 (docs/lifecycle.md §2.9).
    fn check_container_restart_policies(&mut self) {
        let version = self.settings.kubernetes.value;
        if !version.forbids_container_restart_policy() {
            return;
        }
        let spec = &self.workload.pod_spec;
        for (container, path) in spec.containers.iter().zip(&self.workload.paths.containers) {
            if let Some(value) = &container.restart_policy {
                self.rejections.push(Rejection {
                    path: path.key("restartPolicy"),
                    by: Rejector::ApiServer,
                    cause: RejectionCause::ContainerRestartPolicy {
                        container: container.name.clone(),
                        value: value.clone(),
                        version,
                    },
                });
            }
        }
    }

    /// `mesh-lifecycle.io/app-shutdown: 20s` and friends on the workload.
    fn read_scenario_annotations(&mut self) {
        for key in crate::settings::ScenarioKey::ALL {
            let annotation = format!("{ANNOTATION_PREFIX}{key}");
            let Some((value, path)) = self.workload.annotation(&annotation) else {
                continue;
            };
            match parse_go_duration(value).filter(|d| *d >= Millis::ZERO) {
                Some(duration) => {
                    self.scenario.set(key, duration, Source::Manifest(path));
                }
                None => self.problem(
                    path,
                    Fault::Unreadable(Unreadable::Value {
                        setting: annotation,
                        value: value.to_owned(),
                        expected: Expected::Duration { example: "20s" },
                    }),
                ),
            }
        }
    }

    /// A manifest container with the role the kubelet alone gives it.
    pub fn from_manifest(
        &self,
        container: &Container,
        list: ContainerList,
        path: JsonPath,
    ) -> PlannedContainer {
        let restart_always =
            list == ContainerList::Init && container.restart_policy.as_deref() == Some("Always");
        let mut role = Role::of_manifest(
            list,
            restart_always,
            self.settings.kubernetes.value.runs_native_sidecars(),
        );
        let native_sidecar = matches!(role, Role::NativeSidecar(_));
        let queue_proxy = knative::is_queue_proxy(self.workload, container);
        if queue_proxy && list == ContainerList::Regular {
            // Knative's, in front of the user's containers: it serves their inbound
            // requests but is not the pod's work.
            role = role.with_sidecar(Sidecar {
                kind: SidecarKind::KnativeQueueProxy,
                carries_traffic: false,
            });
        }
        let owner = if native_sidecar {
            Owner::Sidecar
        } else {
            Owner::App
        };
        let command = self.readable_command(container);
        let network_use = (list == ContainerList::Init && !restart_always)
            .then(|| shell::network_use(&command.argv))
            .flatten()
            .map(|(call, ports)| NetworkUse {
                path: command_path(container, &path),
                call,
                ports,
                bypass: None,
            });
        // An app whose own command waits for the proxy before starting its process.
        let start_gate = (list == ContainerList::Regular)
            .then(|| {
                shell::start_gate(&shell::parse_argv(&command.argv))
                    .or_else(|| kubexit::birth_gate(container, &command.argv))
            })
            .flatten()
            .map(|waits| StartGate {
                path: command_path(container, &path),
                waits,
            });
        // A plain init container runs to its end; it is never stopped.
        let dropped_signal = (list == ContainerList::Regular || restart_always)
            .then(|| {
                stop_signal::dropped(
                    container,
                    &path,
                    &command,
                    self.workload.pod_spec.share_process_namespace == Some(true),
                )
            })
            .flatten();
        // Its own `restartPolicy: Always`, honoured from 1.35 (docs/lifecycle.md §2.9).
        let restart_in_place = (list == ContainerList::Regular
            && container.restart_policy.as_deref() == Some("Always")
            && self
                .settings
                .kubernetes
                .value
                .honours_container_restart_policy())
        .then(|| path.key("restartPolicy"));
        let runs_for = match list {
            ContainerList::Init if !restart_always => Some(self.scenario.init_duration.value),
            ContainerList::Regular if self.workload.runs_to_completion() => {
                Some(self.scenario.job_duration.value)
            }
            _ => None,
        };
        PlannedContainer {
            name: container.name.clone(),
            index: 0,
            post_start: hooks::read(container, &path, HookKind::PostStart, owner),
            pre_stop: hooks::read(container, &path, HookKind::PreStop, owner),
            provenance: Provenance::Manifest(path),
            role,
            image: container.image.clone(),
            startup_probe: container.startup_probe.as_ref().map(probe_timing),
            readiness_probe: container.readiness_probe.as_ref().map(probe_timing),
            declares_serving: container.ports.as_ref().is_some_and(|p| !p.is_empty())
                || container.readiness_probe.is_some(),
            served_by: (list == ContainerList::Regular)
                .then(|| self.selecting_service(container))
                .flatten(),
            start_gate,
            startup: if native_sidecar {
                self.scenario.proxy_startup.value
            } else {
                Millis::ZERO
            },
            runs_for,
            exit: if queue_proxy {
                // Serves until no request has come for its quiet period, then lets the
                // requests in flight finish (`sharedmain.Main`).
                ExitPolicy::WhenRequestsDone {
                    accepting: knative::DRAIN_QUIET_PERIOD,
                    cap: None,
                }
            } else {
                ExitPolicy::After(self.scenario.app_shutdown.clone())
            },
            traffic: None,
            sidecar_stops: Vec::new(),
            gate_request: None,
            probe_grace: container
                .startup_probe
                .as_ref()
                .and_then(|probe| probe.termination_grace_period_seconds),
            exit_code_on_signal: 0,
            self_stop: None,
            dropped_signal,
            only_stops: false,
            only_idles: !command.argv.is_empty()
                && shell::only_idles(&shell::parse_argv(&command.argv)),
            restart_in_place,
            network_use,
            run_as_user: self.run_as_user(container),
            missing_tools: container
                .image
                .as_deref()
                .map(images::missing_tools)
                .unwrap_or_default(),
        }
    }

    /// The Service of the input that sends requests to `container`, which declares no
    /// port and whose command does not only sleep: one that selects the pod on a
    /// numeric `targetPort` no container of the pod declares. A named `targetPort` reaches only a container that declares that name
    /// (the EndpointSlice controller skips a pod without it), which serves already.
    fn selecting_service(&self, container: &Container) -> Option<ServedBy> {
        // A command that only sleeps listens on nothing: a client pod a Service names
        // for its identity (Istio's `sleep` and `curl` samples).
        let argv = self.readable_command(container).argv;
        if container.ports.as_ref().is_some_and(|p| !p.is_empty())
            || (!argv.is_empty() && shell::only_idles(&shell::parse_argv(&argv)))
        {
            return None;
        }
        let labels = self
            .workload
            .pod_metadata
            .labels
            .clone()
            .unwrap_or_default();
        let declared: Vec<i32> = self
            .workload
            .pod_spec
            .containers
            .iter()
            .flat_map(|c| c.ports.iter().flatten())
            .map(|port| port.container_port)
            .collect();
        self.settings
            .services
            .iter()
            .filter(|(service, _)| service.selects(self.workload.namespace.as_deref(), &labels))
            .find_map(|(service, source)| {
                let port = service.target_ports.iter().find_map(|port| match port {
                    crate::workload::TargetPort::Number(n) if !declared.contains(n) => Some(*n),
                    _ => None,
                })?;
                Some(ServedBy {
                    service: service.qualified_name(),
                    target_port: port,
                    source: source.clone(),
                })
            })
    }

    /// The UID `container` runs as: its own security context's, else the pod's.
    fn run_as_user(&self, container: &Container) -> Option<i64> {
        container
            .security_context
            .as_ref()
            .and_then(|c| c.run_as_user)
            .or_else(|| {
                let pod = self.workload.pod_spec.security_context.as_ref();
                pod.and_then(|c| c.run_as_user)
            })
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
    fn exempt_init_calls(&mut self, proxy_uid: i64, exclusion: &'static str) {
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

    /// The manifest container at `path`, when there is one.
    pub fn manifest_container(&self, planned: &PlannedContainer) -> Option<&'a Container> {
        let path = planned.manifest_path()?;
        let index = match path.segments().last()? {
            crate::load::path::Segment::Index(index) => *index,
            _ => return None,
        };
        match planned.list() {
            ContainerList::Init => self.workload.pod_spec.init_containers.as_ref()?.get(index),
            ContainerList::Regular => self.workload.pod_spec.containers.get(index),
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
        let planned = self.get_mut(list, index);
        planned.role = planned.role.with_sidecar(Sidecar {
            kind,
            carries_traffic,
        });
        planned.startup = startup;
        planned.runs_for = None;
        if let (Some(container), Some(path)) = (manifest, planned.manifest_path().cloned()) {
            planned.post_start =
                hooks::read(&container, &path, HookKind::PostStart, Owner::Sidecar);
            planned.pre_stop = hooks::read(&container, &path, HookKind::PreStop, Owner::Sidecar);
        }
    }

    /// Two meshes in one pod: both proxies intercept the same traffic.
    fn check_mesh_conflicts(&mut self) {
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

    fn finish(mut self) -> PodPlan {
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

    /// An exec hook whose program the image most likely lacks fails at once: it delays
    /// nothing and has no effect (the hook's program is missing).
    fn fail_hooks_without_their_program(&mut self) {
        let mut notes = Vec::new();
        for container in self.init.iter_mut().chain(&mut self.regular) {
            let missing = container.missing_tools;
            let image = container.image.clone().unwrap_or_default();
            for hook in [&mut container.pre_stop, &mut container.post_start]
                .into_iter()
                .flatten()
            {
                let (Some(program), Some(path)) = (hook.missing_program(missing), &hook.path)
                else {
                    continue;
                };
                notes.push((
                    Assumed::HookProgramMissing {
                        container: container.name.clone(),
                        hook: hook.clone(),
                        image: image.clone(),
                        program: program.to_owned(),
                    },
                    path.clone(),
                ));
                hook.duration = HookDuration::Fixed(Millis::ZERO);
                hook.effect = HookEffect::None;
            }
        }
        for (assumed, path) in notes {
            self.assume(assumed, Source::Manifest(path));
        }
    }

    /// Hooks whose length could not be read are taken as instant; say so.
    fn note_unknown_hook_lengths(&mut self) {
        let mut notes = Vec::new();
        for container in self.init.iter().chain(&self.regular) {
            for hook in [&container.pre_stop, &container.post_start]
                .into_iter()
                .flatten()
            {
                let Some(path) = &hook.path else { continue };
                if hook.duration == HookDuration::Unknown {
                    notes.push((
                        Assumed::HookLengthUnknown {
                            container: container.name.clone(),
                            hook: hook.clone(),
                        },
                        path.clone(),
                    ));
                }
            }
        }
        for (assumed, path) in notes {
            self.assume(assumed, Source::Manifest(path));
        }
    }
}

/// Go's `strconv.ParseBool`, which pilot-agent (its environment) and Linkerd's
/// injector (its annotations) read booleans with; `None` for anything else.
pub fn parse_go_bool(text: &str) -> Option<bool> {
    match text {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Some(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Some(false),
        _ => None,
    }
}

/// A probe's timing with the API defaults filled in (docs/lifecycle.md §1.3).
pub fn probe_timing(probe: &Probe) -> ProbeTiming {
    ProbeTiming {
        initial_delay: Millis::secs(i64::from(probe.initial_delay_seconds.unwrap_or(0).max(0))),
        period: Millis::secs(i64::from(probe.period_seconds.unwrap_or(10).max(1))),
        failure_threshold: i64::from(probe.failure_threshold.unwrap_or(3).max(1)),
    }
}

/// The argv a container runs: `command` then `args` (args alone when the image's
/// entrypoint runs them).
pub fn argv_of(container: &Container) -> Vec<String> {
    container
        .command
        .iter()
        .flatten()
        .chain(container.args.iter().flatten())
        .cloned()
        .collect()
}

/// The path of a container's command, or of its args when it has no command.
pub fn command_path(container: &Container, path: &JsonPath) -> JsonPath {
    if container.command.is_some() {
        path.key("command")
    } else if container.args.is_some() {
        path.key("args")
    } else {
        path.clone()
    }
}

/// The `command` or `args` item of `container` that is item `at` of its argv.
pub fn script_item(container: &Container, path: &JsonPath, at: usize) -> JsonPath {
    let commands = container.command.as_ref().map_or(0, Vec::len);
    if at < commands {
        path.key("command").index(at)
    } else {
        path.key("args").index(at - commands)
    }
}

/// Why the API server rejects a `sleep` hook action with `seconds` on `version`
/// (docs/lifecycle.md §2.3), when it does. In 1.29 the action is dropped before
/// validation, so nothing is rejected.
pub fn sleep_action_problem(
    version: KubeVersion,
    grace: i64,
    seconds: i64,
) -> Option<SleepActionProblem> {
    if !version.knows_sleep_action() {
        Some(SleepActionProblem::Unknown { version })
    } else if version.drops_sleep_action() {
        None
    } else if seconds < 0 {
        Some(SleepActionProblem::Negative { seconds })
    } else if seconds == 0 && !version.allows_zero_sleep() {
        Some(SleepActionProblem::Zero { version })
    } else if seconds > grace {
        Some(SleepActionProblem::ExceedsGrace { seconds, grace })
    } else {
        None
    }
}
