//! Start-up (docs/lifecycle.md §1.1–1.3): init containers one at a time; a native sidecar lets
//! the next container start once it runs and its startupProbe passes; regular containers
//! start in order, each postStart hook blocking the next container; readiness probes
//! decide when the pod joins the endpoints.

use super::timeline::{ContainerTimeline, StartEntry, Startup};
use crate::resolve::{
    ByContainer, HookDuration, InitRun, PlannedContainer, PodPlan, ProbeTiming, Role,
};
use crate::time::Millis;

pub fn simulate(plan: &PodPlan, timeline: &mut ByContainer<ContainerTimeline>) -> Startup {
    let mut clock = Some(Millis::ZERO);
    for (id, container) in plan.containers.with_ids() {
        let Some(now) = clock else { break };
        let entry = &mut timeline[id].start;
        entry.started = Some(now);
        clock = match &container.role {
            Role::NativeSidecar(_) => start_sidecar(container, now, entry, plan),
            Role::Init {
                run: InitRun::NeverExits,
                ..
            } => {
                // `restartPolicy: Always` where the kubelet does not run native sidecars:
                // an init container that never exits, so nothing after it starts.
                None
            }
            Role::Init {
                run: InitRun::ToCompletion,
                ..
            } => {
                let done = now + container.runs_for.unwrap_or(Millis::ZERO);
                entry.exited = Some(done);
                Some(done)
            }
            Role::App | Role::ClassicSidecar(_) => Some(start_regular(container, now, entry, plan)),
        };
    }
    // Apps that gate themselves on a proxy start using the network once it is ready.
    let proxies_ready = plan
        .proxies()
        .filter_map(|(id, _)| timeline[id].start.ready)
        .max();
    for (id, container) in plan.containers.with_ids() {
        if container.role != Role::App {
            continue;
        }
        let entry = &mut timeline[id].start;
        entry.first_network_use =
            entry
                .started
                .map(|started| match (&container.start_gate, proxies_ready) {
                    (Some(_), Some(ready)) => started.max(ready),
                    _ => started,
                });
    }
    for (id, container) in plan.containers.with_ids() {
        let entry = &mut timeline[id].start;
        entry.serving = serving(container, entry);
    }
    let pod_ready = plan
        .containers
        .with_ids()
        .filter(|(_, c)| c.role.init_run().is_none())
        .map(|(id, _)| timeline[id].start.serving)
        .try_fold(Millis::ZERO, |latest, ready| ready.map(|r| latest.max(r)));
    Startup { pod_ready }
}

/// Starts a native sidecar at `now`; returns when the next container may start, or
/// `None` when its startupProbe fails and nothing after it ever starts.
fn start_sidecar(
    container: &PlannedContainer,
    now: Millis,
    entry: &mut StartEntry,
    plan: &PodPlan,
) -> Option<Millis> {
    let ready = now + container.startup;
    entry.ready = Some(ready);
    let hook_done = post_start(container, now, ready, entry);
    let probe_passed = match container.startup_probe {
        Some(probe) => startup_probe(container, probe, now, ready, entry, plan)?,
        None => now,
    };
    Some(hook_done.max(probe_passed))
}

/// Starts a regular container at `now`; returns when the next one may start.
fn start_regular(
    container: &PlannedContainer,
    now: Millis,
    entry: &mut StartEntry,
    plan: &PodPlan,
) -> Millis {
    let ready = now + container.startup;
    entry.ready = Some(ready);
    if let Some(probe) = container.startup_probe {
        let _ = startup_probe(container, probe, now, ready, entry, plan);
    }
    post_start(container, now, ready, entry)
}

/// When the startupProbe passes: its first tick at or after `ready`. If `ready` comes
/// after the last tick it may fail, the probe fails, the kubelet kills the container with
/// the probe's own grace period if it has one (docs/lifecycle.md §1.3), and it never gets ready.
fn startup_probe(
    container: &PlannedContainer,
    probe: ProbeTiming,
    started: Millis,
    ready: Millis,
    entry: &mut StartEntry,
    plan: &PodPlan,
) -> Option<Millis> {
    let passed = first_tick(probe, started, ready);
    let last_chance =
        started + probe.initial_delay + probe.period.times((probe.failure_threshold - 1).max(0));
    if passed > last_chance {
        entry.ready = None;
        entry.startup_probe_failed = Some(last_chance);
        entry.probe_kill_grace = Some(container.probe_grace.unwrap_or(plan.grace_period.value));
        return None;
    }
    entry.startup_probe_passed = Some(passed);
    Some(passed)
}

/// Runs the postStart hook from `now`; returns when it is done (`now` without one).
fn post_start(
    container: &PlannedContainer,
    now: Millis,
    ready: Millis,
    entry: &mut StartEntry,
) -> Millis {
    let Some(hook) = &container.post_start else {
        return now;
    };
    let done = match &hook.duration {
        HookDuration::Fixed(length) => now + *length,
        HookDuration::UntilReady { timeout, poll } => {
            // Polls from the start; returns at the first poll that finds it ready.
            let found = ready.round_up_from(now, *poll);
            if found - now > *timeout {
                // The gate gives up; the kubelet kills the container and moves on (§1.1).
                entry.post_start_failed = true;
                now + *timeout
            } else {
                found
            }
        }
        HookDuration::UntilAppsExit | HookDuration::UntilSelfExits | HookDuration::Unknown => now,
    };
    entry.post_start_done = Some(done);
    done
}

/// When the kubelet first counts the container ready: readiness probing starts after the
/// initial delay and after any startup probe has passed (§1.3); no probe means ready.
fn serving(container: &PlannedContainer, entry: &StartEntry) -> Option<Millis> {
    let started = entry.started?;
    let ready = match container.sidecar() {
        Some(_) => entry.ready?,
        None => entry.ready.unwrap_or(started),
    };
    let Some(probe) = container.readiness_probe else {
        return Some(ready.max(entry.startup_probe_passed.unwrap_or(started)));
    };
    let probing_from =
        (started + probe.initial_delay).max(entry.startup_probe_passed.unwrap_or(started));
    Some(ready.round_up_from(probing_from, probe.period))
}

/// The first probe tick at or after `ready` (ticks at start + delay + k·period).
fn first_tick(probe: ProbeTiming, started: Millis, ready: Millis) -> Millis {
    ready.round_up_from(started + probe.initial_delay, probe.period)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_ticks_round_up_to_the_period() {
        let probe = ProbeTiming {
            initial_delay: Millis::ZERO,
            period: Millis::secs(1),
            failure_threshold: 600,
        };
        assert_eq!(first_tick(probe, Millis::ZERO, Millis(2000)), Millis(2000));
        assert_eq!(first_tick(probe, Millis::ZERO, Millis(2100)), Millis(3000));
        let slow = ProbeTiming {
            initial_delay: Millis::secs(5),
            period: Millis::secs(10),
            failure_threshold: 3,
        };
        assert_eq!(
            first_tick(slow, Millis::ZERO, Millis(2000)),
            Millis::secs(5)
        );
        assert_eq!(
            first_tick(slow, Millis::ZERO, Millis::secs(6)),
            Millis::secs(15)
        );
    }
}
