//! What moves on the timeline between two sides, read from the two plans and the
//! simulator's two timelines: how each container runs (a proxy becoming a native
//! sidecar), what holds the app's start, whether a proxy stops with the apps or after
//! them, the moments that move (`istio-proxy` exits 5 s → 35 s), the loss windows that
//! open, close, grow or shrink, and the settings that become moot or start to apply.

use crate::pipeline::located::{Analysis, Located};
use crate::resolve::{
    ContainerId, HookDuration, InitRun, MootSetting, PlannedContainer, PodPlan, Role,
};
use crate::rules::RuleMeta;
use crate::simulate::{Phase, Timeline};
use crate::time::Millis;

/// A setting that has no effect on one side and has on the other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingChange {
    /// The setting, where it is, and what makes it moot on the side where it is.
    pub setting: MootSetting,
    /// True when it becomes moot on the second side; false when it starts to apply.
    pub becomes_moot: bool,
}

/// One thing that moved on a workload's timeline.
#[derive(Clone, Debug)]
pub enum Move {
    /// A container only one side has (a proxy the injector now adds, or no longer).
    Container {
        /// Its name.
        name: String,
        /// True when only the second side has it.
        appears: bool,
        /// How it runs on the side that has it.
        role: RoleKind,
    },
    /// A container runs another way (a classic sidecar becoming a native one).
    Role {
        /// The container.
        container: String,
        /// How it ran.
        before: RoleKind,
        /// How it runs.
        after: RoleKind,
    },
    /// What an app container's start waits for changes.
    Gate {
        /// The app container.
        container: String,
        /// What held it.
        before: Gate,
        /// What holds it.
        after: Gate,
    },
    /// A proxy stops with the apps or after them.
    StopOrder {
        /// The proxy.
        container: String,
        /// How it stopped.
        before: StopOrder,
        /// How it stops.
        after: StopOrder,
    },
    /// A moment of the timeline moves; `None` is never (a Job that never completes).
    Time {
        /// The container, or `None` for the pod.
        container: Option<String>,
        /// Which moment.
        moment: Moment,
        /// When it was.
        before: Option<Millis>,
        /// When it is.
        after: Option<Millis>,
    },
    /// A window where traffic is lost opens, closes, grows or shrinks.
    Window {
        /// The rule whose finding shades it.
        rule: &'static RuleMeta,
        /// Its lane, or `None` for the whole pod.
        container: Option<String>,
        /// The part of the timeline.
        phase: Phase,
        /// Its length before; `None`: no window.
        before: Option<Millis>,
        /// Its length after.
        after: Option<Millis>,
    },
}

/// How the kubelet runs a container, in the words a reader knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoleKind {
    /// A regular container doing the pod's work.
    App,
    /// A sidecar in `containers`, started and stopped like the app.
    ClassicSidecar,
    /// An init container with `restartPolicy: Always` the kubelet runs as a sidecar.
    NativeSidecar,
    /// An init container that runs to completion.
    InitStep,
    /// An init container that never exits, so nothing after it starts.
    BlockingInit,
}

impl RoleKind {
    /// How `role` runs.
    pub fn of(role: &Role) -> RoleKind {
        match role {
            Role::App => RoleKind::App,
            Role::ClassicSidecar(_) => RoleKind::ClassicSidecar,
            Role::NativeSidecar(_) => RoleKind::NativeSidecar,
            Role::Init {
                run: InitRun::NeverExits,
                ..
            } => RoleKind::BlockingInit,
            Role::Init { .. } => RoleKind::InitStep,
        }
    }

    /// `native-sidecar`, for machine formats.
    pub fn as_str(self) -> &'static str {
        match self {
            RoleKind::App => "app",
            RoleKind::ClassicSidecar => "classic-sidecar",
            RoleKind::NativeSidecar => "native-sidecar",
            RoleKind::InitStep => "init-step",
            RoleKind::BlockingInit => "blocking-init",
        }
    }
}

/// What holds an app container's start until its proxy is ready.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Gate {
    /// Nothing: it starts while the proxy may not be ready.
    Nothing,
    /// A native sidecar's startup probe: the kubelet starts the next container once
    /// it passes.
    StartupProbe {
        /// The sidecar.
        sidecar: String,
    },
    /// A sidecar's postStart hook that waits until it is ready (`pilot-agent wait`).
    PostStart {
        /// The sidecar.
        sidecar: String,
    },
    /// Its own command waits for the proxy before starting the process.
    OwnCommand,
}

impl Gate {
    /// `startup-probe`, for machine formats.
    pub fn as_str(&self) -> &'static str {
        match self {
            Gate::Nothing => "nothing",
            Gate::StartupProbe { .. } => "startup-probe",
            Gate::PostStart { .. } => "post-start",
            Gate::OwnCommand => "own-command",
        }
    }

    /// The sidecar the gate waits on, when it is one's.
    pub fn sidecar(&self) -> Option<&str> {
        match self {
            Gate::StartupProbe { sidecar } | Gate::PostStart { sidecar } => Some(sidecar),
            Gate::Nothing | Gate::OwnCommand => None,
        }
    }
}

/// Whether a proxy gets its stop signal with the apps or once they have exited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopOrder {
    /// Signalled while an app still runs.
    WithApps,
    /// Signalled once every app has exited (a native sidecar).
    AfterApps,
}

impl StopOrder {
    /// `after-apps`, for machine formats.
    pub fn as_str(self) -> &'static str {
        match self {
            StopOrder::WithApps => "with-apps",
            StopOrder::AfterApps => "after-apps",
        }
    }
}

/// A moment of the timeline that can move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moment {
    /// The kubelet starts the container.
    Starts,
    /// It is ready.
    Ready,
    /// It gets its stop signal after the deletion.
    Sigterm,
    /// It is gone after the deletion.
    Exits,
    /// It is gone once a Job's work is done.
    ExitsAfterWork,
    /// Every container is ready: the pod joins the endpoints.
    PodReady,
    /// The last container is gone after the deletion.
    PodGone,
    /// The Job's pod finishes.
    JobCompletes,
}

impl Moment {
    /// `exits`, for machine formats.
    pub fn as_str(self) -> &'static str {
        match self {
            Moment::Starts => "starts",
            Moment::Ready => "ready",
            Moment::Sigterm => "sigterm",
            Moment::Exits => "exits",
            Moment::ExitsAfterWork => "exits-after-work",
            Moment::PodReady => "pod-ready",
            Moment::PodGone => "pod-gone",
            Moment::JobCompletes => "job-completes",
        }
    }

    /// The part of the timeline the moment is on.
    pub fn phase(self) -> Phase {
        match self {
            Moment::Starts | Moment::Ready | Moment::PodReady => Phase::Startup,
            Moment::Sigterm | Moment::Exits | Moment::PodGone => Phase::Termination,
            Moment::ExitsAfterWork | Moment::JobCompletes => Phase::Completion,
        }
    }
}

/// The moves of a workload both sides have, container by container (matched by name),
/// then the pod's own moments.
pub fn timeline(before: &Analysis, after: &Analysis) -> Vec<Move> {
    let mut moves = Vec::new();
    let (old, new) = (&before.plan, &after.plan);
    for container in new.containers.iter() {
        if old.find(&container.name).is_none() {
            moves.push(Move::Container {
                name: container.name.clone(),
                appears: true,
                role: RoleKind::of(&container.role),
            });
        }
    }
    for container in old.containers.iter() {
        if new.find(&container.name).is_none() {
            moves.push(Move::Container {
                name: container.name.clone(),
                appears: false,
                role: RoleKind::of(&container.role),
            });
        }
    }
    for (new_id, container) in new.containers.with_ids() {
        let Some(old_id) = old.find(&container.name) else {
            continue;
        };
        let name = &container.name;
        let (was, is) = (
            RoleKind::of(&old.containers[old_id].role),
            RoleKind::of(&container.role),
        );
        if was != is {
            moves.push(Move::Role {
                container: name.clone(),
                before: was,
                after: is,
            });
        }
        if matches!(container.role, Role::App) && matches!(old.containers[old_id].role, Role::App) {
            let (was, is) = (gate(old, old_id), gate(new, new_id));
            if was != is {
                moves.push(Move::Gate {
                    container: name.clone(),
                    before: was,
                    after: is,
                });
            }
        }
        if carries_traffic(container) && carries_traffic(&old.containers[old_id]) {
            let was = stop_order(old, &before.timeline, old_id);
            let is = stop_order(new, &after.timeline, new_id);
            if let (Some(was), Some(is)) = (was, is)
                && was != is
            {
                moves.push(Move::StopOrder {
                    container: name.clone(),
                    before: was,
                    after: is,
                });
            }
        }
        let (t0, t1) = (
            &before.timeline.containers[old_id],
            &after.timeline.containers[new_id],
        );
        let moments = [
            (Moment::Starts, t0.start.started, t1.start.started),
            (Moment::Ready, t0.start.ready, t1.start.ready),
            (
                Moment::Sigterm,
                t0.stop.as_ref().map(|s| s.signal),
                t1.stop.as_ref().map(|s| s.signal),
            ),
            (
                Moment::Exits,
                t0.stop.as_ref().map(|s| s.exit),
                t1.stop.as_ref().map(|s| s.exit),
            ),
        ];
        push_times(&mut moves, Some(name), moments);
        if before.timeline.completion.is_some() && after.timeline.completion.is_some() {
            push_times(
                &mut moves,
                Some(name),
                [(Moment::ExitsAfterWork, t0.job.exit, t1.job.exit)],
            );
        }
    }
    let (t0, t1) = (&before.timeline, &after.timeline);
    let mut pod = vec![
        (Moment::PodReady, t0.startup.pod_ready, t1.startup.pod_ready),
        (
            Moment::PodGone,
            Some(t0.termination.pod_gone),
            Some(t1.termination.pod_gone),
        ),
    ];
    if let (Some(c0), Some(c1)) = (&t0.completion, &t1.completion) {
        pod.push((Moment::JobCompletes, c0.completes, c1.completes));
    }
    push_times(&mut moves, None, pod);
    // How containers run first, then each part of the timeline in its order.
    moves.sort_by_key(Move::order);
    moves
}

impl Move {
    /// Where the move is listed: how containers run, then start-up, termination and a
    /// Job's end, then the loss windows.
    fn order(&self) -> (u8, u8) {
        let phase = |phase: Phase| match phase {
            Phase::Startup => 1,
            Phase::Termination => 2,
            Phase::Completion => 3,
        };
        match self {
            Move::Container { .. } => (0, 0),
            Move::Role { .. } => (0, 1),
            Move::Gate { .. } => (1, 0),
            Move::StopOrder { .. } => (2, 0),
            Move::Time { moment, .. } => (phase(moment.phase()), 1),
            Move::Window { .. } => (4, 0),
        }
    }
}

/// A [`Move::Time`] for each moment that moved.
fn push_times(
    moves: &mut Vec<Move>,
    container: Option<&String>,
    moments: impl IntoIterator<Item = (Moment, Option<Millis>, Option<Millis>)>,
) {
    for (moment, before, after) in moments {
        if before != after {
            moves.push(Move::Time {
                container: container.cloned(),
                moment,
                before,
                after,
            });
        }
    }
}

/// Whether the app's traffic passes through the container.
fn carries_traffic(container: &PlannedContainer) -> bool {
    container.sidecar().is_some_and(|s| s.carries_traffic)
}

/// What holds the start of the app `app`: its own command's wait, else the nearest
/// traffic-carrying sidecar started before it that waits until it is ready — a native
/// one's startup probe or a postStart hook that polls readiness.
fn gate(plan: &PodPlan, app: ContainerId) -> Gate {
    if plan.containers[app].start_gate.is_some() {
        return Gate::OwnCommand;
    }
    let before: Vec<(ContainerId, &PlannedContainer)> = plan
        .containers
        .with_ids()
        .take_while(|(id, _)| *id != app)
        .collect();
    for (_, sidecar) in before.into_iter().rev() {
        if !carries_traffic(sidecar) {
            continue;
        }
        let native = matches!(sidecar.role, Role::NativeSidecar(_));
        if native && sidecar.startup_probe.is_some() {
            return Gate::StartupProbe {
                sidecar: sidecar.name.clone(),
            };
        }
        let waits = sidecar
            .post_start
            .as_ref()
            .is_some_and(|hook| matches!(hook.duration, HookDuration::UntilReady { .. }));
        if waits {
            return Gate::PostStart {
                sidecar: sidecar.name.clone(),
            };
        }
    }
    Gate::Nothing
}

/// Whether the proxy `id` is signalled with the apps or after they have all exited;
/// `None` when the pod has no app, or one of them is not running at the deletion.
fn stop_order(plan: &PodPlan, timeline: &Timeline, id: ContainerId) -> Option<StopOrder> {
    let proxy = timeline.stop(id)?;
    let mut apps = plan.apps().peekable();
    apps.peek()?;
    let mut last_exit = Millis::ZERO;
    for (app, _) in apps {
        last_exit = last_exit.max(timeline.stop(app)?.exit);
    }
    Some(if proxy.signal >= last_exit {
        StopOrder::AfterApps
    } else {
        StopOrder::WithApps
    })
}

/// The loss windows of the findings both sides have, and of those only one has, that
/// differ in length.
pub fn windows(pairs: &[(Option<&Located>, Option<&Located>)]) -> Vec<Move> {
    let length = |located: Option<&Located>| {
        let window = located?.finding.window.as_ref()?;
        Some(window.to.saturating_sub(window.from))
    };
    pairs
        .iter()
        .filter_map(|&(old, new)| {
            let (before, after) = (length(old), length(new));
            if before == after {
                return None;
            }
            let current = new.or(old)?;
            let window = current
                .finding
                .window
                .as_ref()
                .or_else(|| old?.finding.window.as_ref())?;
            Some(Move::Window {
                rule: current.finding.rule,
                container: window.container.clone(),
                phase: window.phase,
                before,
                after,
            })
        })
        .collect()
}

/// The settings moot on one side and not on the other.
pub fn settings(before: &PodPlan, after: &PodPlan) -> Vec<SettingChange> {
    let mut changes: Vec<SettingChange> = after
        .moot_settings
        .iter()
        .filter(|setting| !before.moot_settings.contains(setting))
        .map(|setting| SettingChange {
            setting: setting.clone(),
            becomes_moot: true,
        })
        .collect();
    changes.extend(
        before
            .moot_settings
            .iter()
            .filter(|setting| !after.moot_settings.contains(setting))
            .map(|setting| SettingChange {
                setting: setting.clone(),
                becomes_moot: false,
            }),
    );
    changes
}
