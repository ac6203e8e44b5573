//! The PodPlan: what will run in the pod and how each container starts and stops.
//!
//! Resolve reduces everything mesh-specific to the generic behaviours below, so the
//! simulator needs no mesh knowledge and rules need not re-derive anything.

mod admission;
mod container;
mod hook;
mod moot;
mod role;
mod stop;

use std::ops::{Index, IndexMut};

pub use admission::{DroppedHook, Rejection, RejectionCause, Rejector, SleepActionProblem};
pub use container::{
    Bypass, Cut, ExitPolicy, NetworkUse, PlannedContainer, ProbeTiming, Provenance, ServedBy,
    ShapedBy, StartGate, TrafficCuts,
};
pub use hook::{DrainMiss, Hook, HookAction, HookDuration, HookEffect};
pub use moot::{DrainMoot, GateMoot, GateRequest, GateSetting, Moot, MootSetting};
pub use role::{ContainerList, InitRun, Role, Sidecar, SidecarKind};
pub use stop::{
    ExitStatus, ScriptCall, SelfStop, SelfStopTrigger, Served, SidecarStop, StopEndpoint,
    StopFailure, StopMethod, SwitchedOff, VolumePath, WorkScript, signal_permitted,
};

use super::assumption::Assumption;
use super::decision::MeshDecision;
use super::problems::ConfigProblem;
use crate::load::JsonPath;
use crate::settings::{KubeVersion, Scenario, Sourced};
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
    /// The pod template has labels: a Service can select it, and endpoints can route to
    /// it. A pod without labels receives no traffic through a Service.
    pub labelled: bool,
    /// The labels of the pod's namespace are known (a Namespace of the input, the
    /// config or the cluster): whether a mesh injects it is read, not assumed.
    pub namespace_known: bool,
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

    /// Whether the kubelet starts `container` again after killing it (a failed
    /// postStart, docs/lifecycle.md §1.1): a native sidecar always (its own `restartPolicy:
    /// Always`); another as the pod's policy says, `OnFailure` only for one that exits
    /// non-zero on the kill (pilot-agent exits 0, istio#45627).
    pub fn restarts_after_kill(&self, container: &PlannedContainer) -> bool {
        match self.restart_policy {
            _ if container.is_native_sidecar() => true,
            RestartPolicy::Always => true,
            RestartPolicy::OnFailure => container.exit_code_on_signal != 0,
            RestartPolicy::Never => false,
        }
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

    /// The stop calls of a Job's work, with the work container that makes each; none in
    /// a pod that does not run to completion.
    pub fn work_stops(&self) -> impl Iterator<Item = (&PlannedContainer, &SidecarStop)> {
        self.apps()
            .filter(|_| self.completes)
            .flat_map(|(_, app)| app.sidecar_stops.iter().map(move |stop| (app, stop)))
    }

    /// Whether the workload's controller stops every sidecar a call of the work is
    /// meant for, whatever the call does (an Argo step's `main` calling its proxy's
    /// stop endpoint): its failure leaves no sidecar running (docs/lifecycle.md §5.7).
    pub fn controller_stops_anyway(&self, stop: &SidecarStop) -> bool {
        if matches!(stop.method, StopMethod::Controller { .. }) {
            return false;
        }
        let mut meant_for = self
            .regular()
            .filter(|(_, c)| c.sidecar().is_some() && stop.method.reaches_container(c))
            .peekable();
        meant_for.peek().is_some()
            && meant_for.all(|(_, sidecar)| {
                self.work_stops().any(|(_, other)| {
                    matches!(other.method, StopMethod::Controller { .. })
                        && other.effective.is_ok()
                        && other.method.reaches_container(sidecar)
                })
            })
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
