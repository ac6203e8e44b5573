//! Stage 3 of the pipeline: a workload and the environment profile in, a [`PodPlan`] out.
//!
//! Decides which containers are sidecars and what each will do: for manifests after
//! injection the proxy is in the YAML; before injection this stage models what the
//! injector will add. Mesh knowledge lives in one module per mesh; what comes out is
//! mesh-neutral (hooks with durations, exit policies, traffic cuts) for the simulator.

mod admission;
pub mod api_removals;
pub mod assumption;
mod builder;
mod containers;
pub mod decision;
pub mod hooks;
pub mod images;
pub mod jobs;
pub mod kubexit;
pub mod mesh;
pub mod mounted_scripts;
pub mod plan;
pub mod problems;
pub mod reading;
pub mod shell;
pub mod stop_signal;
pub mod traffic;
pub mod vocabulary;

use crate::settings::Settings;
use crate::workload::Workload;
pub use admission::sleep_action_problem;
pub use assumption::{Assumed, Assumption};
pub use builder::Builder;
pub use containers::{argv_of, command_path, probe_timing, script_item};
pub use decision::{
    AutoFrom, DecisionReason, Enrollment, Injection, LabelOwner, MeshDecision, MetadataKind,
    NativeReason, NotInjectedCause, PodMetadata, ProxyMode, Release,
};
pub use mesh::{Mesh, Registry, Remedies, SidecarModel};
pub use plan::{
    ByContainer, Bypass, ContainerId, ContainerList, Cut, DrainMiss, DrainMoot, DroppedHook,
    ExitPolicy, ExitStatus, GateMoot, GateRequest, GateSetting, Hook, HookAction, HookDuration,
    HookEffect, InitRun, Moot, MootSetting, NetworkUse, PlannedContainer, PodPlan, ProbeTiming,
    Provenance, Rejection, RejectionCause, Rejector, RestartPolicy, Role, ScriptCall, SelfStop,
    SelfStopTrigger, Served, ServedBy, ShapedBy, Sidecar, SidecarKind, SidecarStop,
    SleepActionProblem, StartGate, StopEndpoint, StopFailure, StopMethod, SwitchedOff, TrafficCuts,
    VolumePath, WorkScript, signal_permitted,
};
pub use problems::{
    ConfigProblem, Conflict, ExactValue, Expected, Fault, KeyInstead, OptIn, OptInIgnored,
    Unreadable,
};
pub use reading::{Reading, parse_go_bool};
pub use stop_signal::DroppedSignal;

/// The annotation prefix for per-workload scenario values and suppressions.
pub const ANNOTATION_PREFIX: &str = "mesh-lifecycle.io/";

/// Resolves one workload into the plan of its pod, with the standard models.
pub fn resolve(workload: &Workload, settings: &Settings) -> PodPlan {
    resolve_with(workload, settings, Registry::standard())
}

/// Resolves one workload into the plan of its pod: every model of `models` in turn
/// finds or adds its sidecar, then the Job's stop calls are read.
pub fn resolve_with(workload: &Workload, settings: &Settings, models: &Registry) -> PodPlan {
    let mut builder = Builder::new(workload, settings, &models.lexicon);
    for model in &models.models {
        model.resolve(&mut builder);
    }
    builder.check_mesh_conflicts();
    jobs::resolve(&mut builder, models);
    builder.finish()
}
