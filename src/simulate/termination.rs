//! Termination (semantics 2.2, 2.4, 2.5, 3.6, 4.3): every preStop hook starts at T0 and
//! counts against the grace period in whole seconds; SIGKILL follows the signal after
//! the remaining grace, never less than 2 s; native sidecars wait until the app
//! containers and later sidecars have exited, in reverse order, within the same budget.
//! With `SidecarsRestartableDuringPodTermination` the kubelet instead works to an
//! absolute deadline, without the 2-second floor.

use super::timeline::{StopEntry, Termination};
use crate::resolve::{
    ContainerList, Cut, ExitPolicy, HookDuration, PlannedContainer, PodPlan, Role,
};
use crate::time::Millis;

/// The kubelet's `minimumGracePeriodInSeconds`.
const MINIMUM_GRACE_SECONDS: i64 = 2;

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
    /// The pod's grace period after `KillPod`'s floor, in seconds.
    grace: i64,
    /// The floor applied to each container's remaining grace (0 on the deadline path).
    floor: i64,
    /// On the deadline path, SIGKILL comes at the deadline whatever the signal time.
    deadline: Option<Millis>,
}

pub fn simulate(plan: &PodPlan) -> Termination {
    // KillPod raises a pod grace below 2 s to 2 s (semantics 2.2).
    let grace = plan.deletion_grace().value.max(MINIMUM_GRACE_SECONDS);
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
    let mut entries: Vec<Option<StopEntry>> = vec![None; plan.containers.len()];
    let running = |c: &PlannedContainer| c.list == ContainerList::Regular || c.native_sidecar;
    let waits_its_turn = |c: &PlannedContainer| c.native_sidecar && ordered;

    // Apps first: nothing they do depends on the sidecars.
    let mut apps_exit = Millis::ZERO;
    for (index, container) in plan.containers.iter().enumerate() {
        if running(container) && !waits_its_turn(container) && container.role == Role::App {
            let entry = stop_unordered(container, budget, Millis::ZERO, load);
            apps_exit = apps_exit.max(entry.exit);
            entries[index] = Some(entry);
        }
    }
    // Then sidecars in `containers` (classic) and, without ordering, native ones.
    for (index, container) in plan.containers.iter().enumerate() {
        if running(container) && !waits_its_turn(container) && container.role != Role::App {
            entries[index] = Some(stop_unordered(container, budget, apps_exit, load));
        }
    }
    let regular_done = entries
        .iter()
        .flatten()
        .map(|e| e.exit)
        .max()
        .unwrap_or(Millis::ZERO);
    // Native sidecars, last declared first (semantics 2.4).
    let mut later_sidecars_done = regular_done;
    for (index, container) in plan.containers.iter().enumerate().rev() {
        if running(container) && waits_its_turn(container) {
            let entry = stop_in_turn(container, budget, regular_done, later_sidecars_done, load);
            later_sidecars_done = later_sidecars_done.max(entry.exit);
            entries[index] = Some(entry);
        }
    }
    let pod_gone = entries
        .iter()
        .flatten()
        .map(|e| e.exit)
        .max()
        .unwrap_or(Millis::ZERO);
    Termination {
        containers: entries,
        grace_seconds: grace,
        endpoints_removed: plan.scenario.endpoint_propagation.value,
        pod_gone,
    }
}

/// How long the preStop hook runs, given when the apps are gone.
fn pre_stop_length(container: &PlannedContainer, apps_exit: Millis) -> Option<Millis> {
    let hook = container.pre_stop.as_ref()?;
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

/// A container that does not wait for others: signal after its preStop.
fn stop_unordered(
    container: &PlannedContainer,
    budget: Budget,
    apps_exit: Millis,
    load: Load,
) -> StopEntry {
    let grace_ms = Millis::secs(budget.grace);
    let hook = pre_stop_length(container, apps_exit);
    let waited = hook.map_or(Millis::ZERO, |length| length.min(grace_ms));
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
    let grace_ms = Millis::secs(budget.grace);
    let hook = pre_stop_length(container, regular_done);
    let hook_waited = hook.map_or(Millis::ZERO, |length| length.min(grace_ms));
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
    let self_exiting = container
        .pre_stop
        .as_ref()
        .is_some_and(|h| h.duration == HookDuration::UntilSelfExits);
    let requests_done = match &container.exit {
        ExitPolicy::After(length) if container.role == Role::App && !self_exiting => load
            .in_flight_done(signal)
            .filter(|done| *done > signal + length.value),
        _ => None,
    };
    let natural = if self_exiting {
        // The hook stopped the process itself; it is gone when the hook ends.
        hook.unwrap_or(Millis::ZERO)
    } else {
        match &container.exit {
            // An app that finishes its requests cannot be done before they are.
            ExitPolicy::After(length) => requests_done.unwrap_or(signal + length.value),
            ExitPolicy::Immediately => signal,
            // Polls every `poll` after the minimum; exits at the first poll that finds
            // the app's connections gone (semantics 3.6).
            ExitPolicy::WhenIdle { minimum, poll } => {
                apps_exit.round_up_from(signal + minimum.value, *poll)
            }
            // The requests through the proxy are the apps': none outlives them, and
            // none started after the signal (semantics 4.3).
            ExitPolicy::WhenRequestsDone { cap } => {
                let in_flight = load
                    .longest_request
                    .map_or(signal, |longest| (signal + longest).min(apps_exit));
                in_flight.max(signal).min(signal + cap.value)
            }
            // Pooled connections close when the apps exit (semantics 5).
            ExitPolicy::WhenConnectionsClose { minimum, cap } => {
                let accepting_ends = signal + *minimum;
                apps_exit.max(accepting_ends).min(accepting_ends + *cap)
            }
        }
    };
    let exit = natural.min(kill);
    let cut_at = |cut: Cut| match cut {
        Cut::PreStop if container.pre_stop.is_some() => Some(Millis::ZERO),
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
        killed: natural > kill,
        natural_exit: natural,
        requests_done,
        inbound_refused: container.traffic.and_then(|t| cut_at(t.inbound_refused)),
        inbound_drained: container.traffic.and_then(|t| cut_at(t.inbound_drained)),
        outbound_refused: container.traffic.and_then(|t| cut_at(t.outbound_refused)),
    }
}
