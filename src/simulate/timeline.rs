//! The Timeline: when each container starts, gets ready, is signalled and exits.

use serde::Serialize;

use crate::resolve::{ByContainer, ContainerId};
use crate::settings::Sourced;
use crate::time::Millis;

/// The simulated life of one pod: start-up, termination on deletion, and for Jobs, what
/// happens when the work is done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeline {
    /// Each container's life, keyed like `PodPlan::containers`.
    pub containers: ByContainer<ContainerTimeline>,
    /// From pod scheduling to every container running.
    pub startup: Startup,
    /// From deletion to every container gone.
    pub termination: Termination,
    /// Jobs and CronJobs whose work starts.
    pub completion: Option<Completion>,
}

impl Timeline {
    /// How container `id` starts.
    pub fn start(&self, id: ContainerId) -> &StartEntry {
        &self.containers[id].start
    }

    /// How container `id` stops on deletion; `None` when it is not running at T0.
    pub fn stop(&self, id: ContainerId) -> Option<&StopEntry> {
        self.containers[id].stop.as_ref()
    }
}

/// One container's life on each phase of the timeline.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContainerTimeline {
    /// Its start-up.
    pub start: StartEntry,
    /// Its termination after deletion; `None` when it is not running at T0.
    pub stop: Option<StopEntry>,
    /// How it ends when a Job's work is done (empty outside Jobs).
    pub job: JobEntry,
}

/// One container's end in a Job whose work is done.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobEntry {
    /// When it is gone; `None` if it never exits (and for init containers).
    pub exit: Option<Millis>,
    /// For a native sidecar: how the kubelet stops it once the regular containers are
    /// done, preStop, signal and exit on the completion timeline.
    pub sidecar_stop: Option<StopEntry>,
    /// For a sidecar the workload's controller signals once the work is done (Argo
    /// Workflows): when its kill command is exec'd, and what came of it.
    pub controller_signal: Option<ControllerSignal>,
}

/// The workload's controller signalling a sidecar once the work is done
/// (docs/lifecycle.md §5.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ControllerSignal {
    /// When the controller execs the kill command: once the work is done.
    pub at: Millis,
    /// Whether the command delivers SIGTERM (the image has its program, and it stops
    /// the sidecar); when not, the sidecar runs on.
    pub delivered: bool,
    /// Whether its PID 1 drops the signal (a shell without a handler).
    pub dropped: bool,
    /// When a SIGKILL ends it, where one does before it would exit.
    pub killed: Option<Millis>,
}

/// Start-up, from pod sandbox creation (0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Startup {
    /// All containers ready: the pod joins the endpoints. `None` if it never does.
    pub pod_ready: Option<Millis>,
}

/// One container's start-up.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StartEntry {
    /// When the kubelet starts it; `None` when something earlier blocks it forever.
    pub started: Option<Millis>,
    /// When it is ready (sidecars: its start-up time after `started`).
    pub ready: Option<Millis>,
    /// When its postStart hook returned, if it has one.
    pub post_start_done: Option<Millis>,
    /// Whether its postStart hook gave up (a gate that timed out).
    pub post_start_failed: bool,
    /// For a container killed for its failed postStart, that kill on this clock: its
    /// preStop from the failure, then the stop signal, SIGKILL after the pod's grace
    /// period. The kubelet starts the next container only once it has exited
    /// (docs/lifecycle.md §1.1).
    pub kill: Option<StopEntry>,
    /// For init containers that run to completion: when they exit.
    pub exited: Option<Millis>,
    /// For apps: when they first use the network (after their own start gate).
    pub first_network_use: Option<Millis>,
    /// When its startupProbe passed.
    pub startup_probe_passed: Option<Millis>,
    /// When its startupProbe failed for good; the kubelet kills it then.
    pub startup_probe_failed: Option<Millis>,
    /// The grace period of that kill: the probe's own, or the pod's.
    pub probe_kill_grace: Option<i64>,
    /// When the kubelet first counts it ready (its readiness probe, if any, passed).
    pub serving: Option<Millis>,
}

impl StartEntry {
    /// When a container killed for its failed postStart is gone.
    pub fn killed_exit(&self) -> Option<Millis> {
        self.kill.as_ref().map(|kill| kill.exit)
    }
}

/// Termination after deletion; 0 is when the kubelet starts killing the pod (T0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Termination {
    /// The grace period this deletion runs with, in seconds, after the pod worker's
    /// 1-second floor: the deletion's own (`--grace-period`) or the pod's, with where it
    /// came from. Reports print this one, never the pod's setting.
    pub grace: Sourced<i64>,
    /// When no new requests are routed to the pod any more.
    pub endpoints_removed: Millis,
    /// When the last container is gone.
    pub pod_gone: Millis,
}

/// One container's termination.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopEntry {
    /// The preStop hook: it starts at 0 and ends (or the kubelet stops waiting) here.
    pub pre_stop_end: Option<Millis>,
    /// The hook used up the whole grace period: the kubelet stopped waiting for it (or
    /// it ended just then) and the container gets only the 2-second minimum after it.
    pub pre_stop_cut: bool,
    /// Stop signal (SIGTERM unless the image says otherwise).
    pub signal: Millis,
    /// SIGKILL, if the container is still there.
    pub kill: Millis,
    /// When it is gone: its natural exit or SIGKILL, whichever is first.
    pub exit: Millis,
    /// Exited by SIGKILL rather than on its own.
    pub killed: bool,
    /// The stop signal never reached its program: PID 1 is a shell that drops it
    /// (docs/lifecycle.md §2.7). It runs until SIGKILL, or, in a shared process
    /// namespace, the shell dies at the signal and takes its program with it.
    pub signal_dropped: bool,
    /// When it would have exited without SIGKILL, when that is later than `kill`
    /// (`kill` itself when the signal was dropped: it would never exit).
    pub natural_exit: Millis,
    /// Apps: when the requests taken before the signal are done, if that (rather than
    /// the shutdown time) decides the exit (`longest-request`).
    pub requests_done: Option<Millis>,
    /// Proxies: new inbound connections refused from here.
    pub inbound_refused: Option<Millis>,
    /// Proxies: existing inbound connections told to go away from here.
    pub inbound_drained: Option<Millis>,
    /// Proxies: the app's new outbound calls fail from here.
    pub outbound_refused: Option<Millis>,
}

impl StopEntry {
    /// The same stop with every moment `by` later.
    pub fn shifted(self, by: Millis) -> StopEntry {
        let later = |at: Millis| at + by;
        StopEntry {
            pre_stop_end: self.pre_stop_end.map(later),
            signal: later(self.signal),
            kill: later(self.kill),
            exit: later(self.exit),
            natural_exit: later(self.natural_exit),
            requests_done: self.requests_done.map(later),
            inbound_refused: self.inbound_refused.map(later),
            inbound_drained: self.inbound_drained.map(later),
            outbound_refused: self.outbound_refused.map(later),
            ..self
        }
    }
}

/// How a Job pod ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every regular container exited 0: the pod succeeds at this time.
    Succeeds(Millis),
    /// A sidecar exited non-zero when stopped and `restartPolicy` is Never: the pod
    /// fails although the work succeeded.
    Fails(Millis),
    /// A container keeps running (or is restarted): the Job never completes.
    Hangs,
}

/// What happens when a Job's work is done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    /// When the last work container exits.
    pub work_done: Millis,
    /// When the last regular container is gone and the kubelet starts stopping the
    /// native sidecars (their preStop hooks start here); `None` if that never happens.
    pub regular_done: Option<Millis>,
    /// When the pod finishes and the Job can complete; `None`: it never does.
    pub completes: Option<Millis>,
    /// How the pod ends.
    pub outcome: Outcome,
    /// Containers that keep the pod running.
    pub blocking: Vec<ContainerId>,
    /// Sidecars that exit non-zero when stopped, with their exit code.
    pub failing: Vec<(ContainerId, i32)>,
}

/// One point of interest, for drawing and for `explain --format json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// Which part of the timeline.
    pub phase: Phase,
    /// Milliseconds from the phase's origin.
    pub at_ms: i64,
    /// The container's name, or `null` for pod-wide events.
    pub container: Option<String>,
    /// What happened.
    pub kind: EventKind,
}

/// The three phases a timeline has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "camelCase")]
pub enum Phase {
    /// From scheduling.
    Startup,
    /// From deletion (T0).
    Termination,
    /// From the start of a Job's work.
    Completion,
}

/// What happened. Declared in the order events of one container happen at one instant
/// (a hook starts before it returns; the signal comes before the exit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "camelCase")]
pub enum EventKind {
    /// The kubelet starts the container.
    Started,
    /// Its postStart hook returns.
    PostStartDone,
    /// Its postStart hook gives up.
    PostStartFailed,
    /// Its startup probe passes.
    StartupProbePassed,
    /// Its startup probe fails for good.
    StartupProbeFailed,
    /// It is ready (process start plus start-up time).
    Ready,
    /// Every container is ready: the pod joins the endpoints.
    PodReady,
    /// Its preStop hook starts (T0).
    PreStopStarted,
    /// It starts draining inbound connections.
    InboundDrained,
    /// Its preStop hook returns.
    PreStopDone,
    /// The kubelet stops waiting for its preStop hook.
    PreStopCut,
    /// It gets the stop signal.
    Sigterm,
    /// It gets the stop signal, which never reaches its program: PID 1 is a shell
    /// without a handler for it (docs/lifecycle.md §2.7).
    SigtermDropped,
    /// The workload's controller execs its kill command in it once the work is done,
    /// which delivers SIGTERM (Argo Workflows, docs/lifecycle.md §5.7).
    ControllerSigterm,
    /// The workload's controller execs its kill command in it, which signals nothing
    /// (the image lacks its program): it runs on.
    ControllerSigtermFails,
    /// It refuses new inbound connections.
    InboundRefused,
    /// New outbound calls through it fail.
    OutboundRefused,
    /// It is killed.
    Sigkill,
    /// It is gone.
    Exited,
    /// No new requests are routed to the pod.
    EndpointsRemoved,
    /// A Job's work is done.
    WorkDone,
    /// The Job completes.
    JobComplete,
    /// The pod fails.
    JobFails,
    /// The Job never completes.
    NeverCompletes,
}
