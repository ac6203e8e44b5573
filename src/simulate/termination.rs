//! Termination (docs/lifecycle.md §2.2, §2.4, §2.5, §3.6, §4.3): the pod worker gives the
//! pod a grace period of at least 1 s; every preStop hook starts at T0 and counts against
//! that grace in whole seconds; SIGKILL follows the signal after the remaining grace,
//! never less than 2 s; native sidecars wait until the app containers and later sidecars
//! have exited, in reverse order, within the same budget. With
//! `SidecarsRestartableDuringPodTermination` the kubelet instead works to an absolute
//! deadline, without the 2-second floor. A Job whose work is done has its native
//! sidecars stopped the same way (§2.6).

use super::timeline::{ContainerTimeline, StopEntry, Termination};
use crate::resolve::{
    ByContainer, ContainerId, Cut, ExitPolicy, HookDuration, InitRun, PlannedContainer, PodPlan,
    Role,
};
use crate::time::Millis;

/// The kubelet's `minimumGracePeriodInSeconds`: no container gets less between its
/// stop signal and SIGKILL (`killContainer`).
const MINIMUM_GRACE_SECONDS: i64 = 2;

/// The pod worker's floor on the pod's grace period (`calculateEffectiveGracePeriod`:
/// "no matter what, we always supply a grace period of 1").
const MINIMUM_POD_GRACE_SECONDS: i64 = 1;

/// The requests the pod serves while it stops.
#[derive(Clone, Copy)]
struct Load {
    /// The longest request, when the user gave it (`longest-request`).
    longest_request: Option<Millis>,
    /// When endpoint removal has propagated: no new requests arrive after it.
    endpoints_removed: Millis,
}

impl Load {
    /// When the requests a container took before `signal` are done: it takes them until
    /// its signal or endpoint removal, whichever is first, and each runs the longest
    /// request at most.
    fn in_flight_done(self, signal: Millis) -> Option<Millis> {
        self.longest_request
            .map(|longest| signal.min(self.endpoints_removed) + longest)
    }
}

/// How the kubelet spends the grace period.
#[derive(Clone, Copy)]
struct Budget {
    /// The pod's grace period, in seconds.
    grace: i64,
    /// The floor applied to each container's remaining grace (0 on the deadline path).
    floor: i64,
    /// On the deadline path, SIGKILL comes at the deadline whatever the signal time.
    deadline: Option<Millis>,
}

/// The pod's termination after its deletion, from T0; each running container's stop
/// goes into its record.
pub fn simulate(plan: &PodPlan, timeline: &mut ByContainer<ContainerTimeline>) -> Termination {
    let mut used = plan.deletion_grace();
    used.value = used.value.max(MINIMUM_POD_GRACE_SECONDS);
    let grace = used.value;
    let budget = if plan.deadline_termination {
        Budget {
            grace,
            floor: 0,
            deadline: Some(Millis::secs(grace)),
        }
    } else {
        Budget {
            grace,
            floor: MINIMUM_GRACE_SECONDS,
            deadline: None,
        }
    };
    let ordered = plan.kubernetes.value.orders_sidecar_termination();
    let load = Load {
        longest_request: plan.scenario.longest_request.as_ref().map(|r| r.value),
        endpoints_removed: plan.scenario.endpoint_propagation.value,
    };
    // The kubelet stops what runs at T0: whatever has started and not run to its end.
    // A container that never started (behind an init container that never exits) has
    // nothing to stop.
    let running: ByContainer<bool> = plan
        .containers
        .with_ids()
        .map(|(id, c)| {
            let start = &timeline[id].start;
            let runs_to_completion = c.role.init_run() == Some(InitRun::ToCompletion);
            start.started.is_some() && start.exited.is_none() && !runs_to_completion
        })
        .collect();
    let waits_its_turn = |c: &PlannedContainer| c.is_native_sidecar() && ordered;

    // Apps first: nothing they do depends on the sidecars.
    let mut apps_exit = Millis::ZERO;
    for (id, container) in plan.containers.with_ids() {
        if running[id] && !waits_its_turn(container) && container.role == Role::App {
            let entry = stop_unordered(container, budget, Millis::ZERO, load);
            apps_exit = apps_exit.max(entry.exit);
            timeline[id].stop = Some(entry);
        }
    }
    // Then sidecars in `containers` (classic), init containers that never exit and,
    // without ordering, native ones.
    for (id, container) in plan.containers.with_ids() {
        if running[id] && !waits_its_turn(container) && container.role != Role::App {
            timeline[id].stop = Some(stop_unordered(container, budget, apps_exit, load));
        }
    }
    let last_exit = |timeline: &ByContainer<ContainerTimeline>| {
        timeline
            .iter()
            .filter_map(|c| c.stop.as_ref())
            .map(|e| e.exit)
            .max()
            .unwrap_or(Millis::ZERO)
    };
    let regular_done = last_exit(timeline);
    let in_turn: Vec<ContainerId> = plan
        .containers
        .with_ids()
        .filter(|&(id, c)| running[id] && waits_its_turn(c))
        .map(|(id, _)| id)
        .collect();
    for (id, entry) in stop_sidecars_in_turn(plan, &in_turn, budget, regular_done, load) {
        timeline[id].stop = Some(entry);
    }
    let pod_gone = last_exit(timeline);
    Termination {
        grace: used,
        endpoints_removed: plan.scenario.endpoint_propagation.value,
        pod_gone,
    }
}

/// How a container the kubelet kills during start-up, for its failed postStart, goes
/// (docs/lifecycle.md §1.1), timed from the kill: `startContainer` calls `killContainer`
/// with the pod's own grace period (no deletion sets another), which runs the preStop,
/// then signals with the 2-second floor, and waits for the exit. No request reaches a
/// pod that is not ready, so the stop cuts none. A hook that waits for the apps to exit
/// outlasts the grace period when `apps_running`: started before it, they are not
/// being stopped.
pub fn killed_at_start(
    container: &PlannedContainer,
    plan: &PodPlan,
    apps_running: bool,
) -> StopEntry {
    let budget = Budget {
        grace: plan.grace_period.value.max(0),
        floor: MINIMUM_GRACE_SECONDS,
        deadline: None,
    };
    let apps_exit = if apps_running {
        HookDuration::NEVER_RETURNS
    } else {
        Millis::ZERO
    };
    let load = Load {
        longest_request: None,
        endpoints_removed: Millis::ZERO,
    };
    StopEntry {
        requests_done: None,
        inbound_refused: None,
        inbound_drained: None,
        outbound_refused: None,
        ..stop_unordered(container, budget, apps_exit, load)
    }
}

/// A Job's native sidecars once its work is done (docs/lifecycle.md §2.6): the kubelet
/// kills the pod without a deletion, so with the pod's own grace period (no pod-worker
/// floor: `killContainer` skips the preStop and the ordering wait when it is 0), and
/// the sidecars stop in reverse order as in §2.4. Times are from that moment.
pub fn stop_sidecars_after_work(
    plan: &PodPlan,
    timeline: &ByContainer<ContainerTimeline>,
) -> Vec<(ContainerId, StopEntry)> {
    let budget = Budget {
        grace: plan.grace_period.value.max(0),
        floor: MINIMUM_GRACE_SECONDS,
        deadline: None,
    };
    let load = Load {
        longest_request: None,
        endpoints_removed: Millis::ZERO,
    };
    let sidecars: Vec<ContainerId> = plan
        .containers
        .with_ids()
        .filter(|(id, c)| c.is_native_sidecar() && timeline[*id].start.started.is_some())
        .map(|(id, _)| id)
        .collect();
    if plan.kubernetes.value.orders_sidecar_termination() {
        stop_sidecars_in_turn(plan, &sidecars, budget, Millis::ZERO, load)
    } else {
        sidecars
            .into_iter()
            .map(|id| {
                (
                    id,
                    stop_unordered(&plan.containers[id], budget, Millis::ZERO, load),
                )
            })
            .collect()
    }
}

/// Native sidecars `ids` (in declaration order), last declared first (§2.4): each
/// waits for the regular containers (gone at `regular_done`) and for every sidecar
/// declared after it.
fn stop_sidecars_in_turn(
    plan: &PodPlan,
    ids: &[ContainerId],
    budget: Budget,
    regular_done: Millis,
    load: Load,
) -> Vec<(ContainerId, StopEntry)> {
    let mut later_sidecars_done = regular_done;
    let mut stopped = Vec::new();
    for &id in ids.iter().rev() {
        let container = &plan.containers[id];
        let entry = stop_in_turn(container, budget, regular_done, later_sidecars_done, load);
        later_sidecars_done = later_sidecars_done.max(entry.exit);
        stopped.push((id, entry));
    }
    stopped
}

/// How long the preStop hook runs, given when the apps are gone; `killContainer` runs
/// it only while there is grace left (never with a grace period of 0).
fn pre_stop_length(
    container: &PlannedContainer,
    budget: Budget,
    apps_exit: Millis,
) -> Option<Millis> {
    let hook = container.pre_stop.as_ref().filter(|_| budget.grace > 0)?;
    Some(match &hook.duration {
        HookDuration::Fixed(length) => *length,
        HookDuration::UntilAppsExit => apps_exit,
        HookDuration::UntilSelfExits => match &container.exit {
            ExitPolicy::After(length) => length.value,
            _ => Millis::ZERO,
        },
        HookDuration::UntilReady { .. } | HookDuration::Unknown => Millis::ZERO,
    })
}

/// The preStop's length (as [`pre_stop_length`]), and how long the kubelet waits for
/// it: no longer than the grace period.
fn pre_stop_wait(
    container: &PlannedContainer,
    budget: Budget,
    apps_exit: Millis,
) -> (Option<Millis>, Millis) {
    let hook = pre_stop_length(container, budget, apps_exit);
    let waited = hook.map_or(Millis::ZERO, |length| {
        length.min(Millis::secs(budget.grace))
    });
    (hook, waited)
}

/// A container that does not wait for others: signal after its preStop.
fn stop_unordered(
    container: &PlannedContainer,
    budget: Budget,
    apps_exit: Millis,
    load: Load,
) -> StopEntry {
    let (hook, waited) = pre_stop_wait(container, budget, apps_exit);
    let remaining = (budget.grace - waited.whole_secs()).max(budget.floor);
    finish(
        container, budget, hook, waited, waited, remaining, apps_exit, load,
    )
}

/// A native sidecar with ordered termination: its preStop at T0, then its turn.
fn stop_in_turn(
    container: &PlannedContainer,
    budget: Budget,
    regular_done: Millis,
    later_done: Millis,
    load: Load,
) -> StopEntry {
    let (hook, hook_waited) = pre_stop_wait(container, budget, regular_done);
    let mut remaining = budget.grace - hook_waited.whole_secs();
    let mut signal = hook_waited;
    if remaining > 0 {
        let turn = regular_done.max(later_done);
        let wait = turn
            .saturating_sub(hook_waited)
            .max(Millis::ZERO)
            .min(Millis::secs(remaining));
        signal = hook_waited + wait;
        remaining -= wait.whole_secs();
    }
    let remaining = remaining.max(budget.floor);
    finish(
        container,
        budget,
        hook,
        hook_waited,
        signal,
        remaining,
        regular_done,
        load,
    )
}

/// Signal at `signal`, SIGKILL `remaining` seconds later (or at the deadline), exit per
/// the container's exit policy.
#[allow(clippy::too_many_arguments)]
fn finish(
    container: &PlannedContainer,
    budget: Budget,
    hook: Option<Millis>,
    hook_waited: Millis,
    signal: Millis,
    remaining: i64,
    apps_exit: Millis,
    load: Load,
) -> StopEntry {
    let kill = match budget.deadline {
        Some(deadline) => deadline.max(signal),
        None => signal + Millis::secs(remaining),
    };
    let self_exiting = hook.is_some()
        && container
            .pre_stop
            .as_ref()
            .is_some_and(|h| h.duration == HookDuration::UntilSelfExits);
    let requests_done = match &container.exit {
        ExitPolicy::After(length)
            if container.role == Role::App
                && !self_exiting
                && container.dropped_signal.is_none() =>
        {
            load.in_flight_done(signal)
                .filter(|done| *done > signal + length.value)
        }
        _ => None,
    };
    let dropped = container.dropped_signal.as_ref().filter(|_| !self_exiting);
    let natural = if self_exiting {
        // The hook stopped the process itself; it is gone when the hook ends.
        hook.unwrap_or(Millis::ZERO)
    } else if let Some(dropped) = dropped {
        // PID 1 is a shell without a TERM handler (§2.7): the kernel drops the signal
        // and the container runs until SIGKILL. In a shared process namespace the shell
        // is no namespace init: the signal ends it at once, and its program with it.
        if dropped.shared_pids { signal } else { kill }
    } else {
        match &container.exit {
            // An app that finishes its requests cannot be done before they are.
            ExitPolicy::After(length) => requests_done.unwrap_or(signal + length.value),
            ExitPolicy::Immediately => signal,
            // Sleeps the minimum, then starts a one-second ticker: the first check
            // comes one period after the sleep, and it exits at the first check that
            // finds the app's connections gone (docs/lifecycle.md §3.6).
            ExitPolicy::WhenIdle { minimum, poll } => {
                apps_exit.round_up_from(signal + minimum.value + *poll, *poll)
            }
            // Keeps serving for `accepting`, then takes no new requests; the requests
            // through it are the apps': none outlives them (§4.3, §5.1). `cap` ends the
            // wait, counted from when it stops accepting.
            ExitPolicy::WhenRequestsDone { accepting, cap } => {
                let stops_accepting = signal + *accepting;
                let in_flight = load.longest_request.map_or(stops_accepting, |longest| {
                    (stops_accepting + longest).min(apps_exit)
                });
                let done = in_flight.max(stops_accepting);
                match cap {
                    Some(cap) => done.min(stops_accepting + cap.value),
                    None => done,
                }
            }
            // Pooled connections close when the apps exit (§5.4).
            ExitPolicy::WhenConnectionsClose { minimum, cap } => {
                let accepting_ends = signal + *minimum;
                apps_exit.max(accepting_ends).min(accepting_ends + *cap)
            }
        }
    };
    let exit = natural.min(kill);
    // A PID-1 shell that drops the signal keeps it from the program: what the program
    // does on its signal (refuse new connections, start its drain) never happens, and
    // it carries traffic until it is killed (§2.7).
    let deaf = dropped.is_some_and(|d| !d.shared_pids);
    let cut_at = |cut: Cut| match cut {
        Cut::PreStop if hook.is_some() => Some(Millis::ZERO),
        Cut::PreStop | Cut::Signal | Cut::AfterSignal(_) if deaf => Some(exit),
        Cut::PreStop | Cut::Signal => Some(signal.min(exit)),
        Cut::AfterSignal(delay) => Some((signal + delay).min(exit)),
        Cut::Exit => Some(exit),
        Cut::Never => None,
    };
    StopEntry {
        pre_stop_end: hook.map(|_| hook_waited),
        pre_stop_cut: hook.is_some_and(|length| length >= Millis::secs(budget.grace)),
        signal,
        kill,
        exit,
        killed: natural > kill || dropped.is_some_and(|d| !d.shared_pids),
        signal_dropped: dropped.is_some(),
        natural_exit: natural,
        requests_done,
        inbound_refused: container.traffic.and_then(|t| cut_at(t.inbound_refused)),
        inbound_drained: container.traffic.and_then(|t| cut_at(t.inbound_drained)),
        outbound_refused: container.traffic.and_then(|t| cut_at(t.outbound_refused)),
    }
}
