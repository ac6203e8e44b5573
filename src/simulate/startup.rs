//! Start-up (docs/lifecycle.md §1.1–1.3): init containers one at a time; a native sidecar lets
//! the next container start once it runs and its startupProbe passes; regular containers
//! start in order, each postStart hook blocking the next container; readiness probes
//! decide when the pod joins the endpoints. Probes tick as the kubelet's prober workers
//! run them ([`probe_ticks`]): from the moment the pod is added, not from each
//! container's start.

use super::termination::killed_at_start;
use super::timeline::{ContainerTimeline, StartEntry, Startup};
use crate::resolve::{
    ByContainer, ContainerId, HookDuration, InitRun, PlannedContainer, PodPlan, ProbeTiming, Role,
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
        // The kubelet goes on only once a container it killed for its failed postStart
        // is gone; after a native sidecar, nothing goes on.
        if let Some(gone) = kill_for_failed_post_start(plan, id, container, timeline) {
            clock = clock.map(|_| gone);
        }
    }
    // Apps that gate themselves on a proxy start using the network once it is ready;
    // an app whose command sleeps first, once that sleep is over.
    let proxies_ready = plan
        .proxies()
        .filter_map(|(id, _)| timeline[id].start.ready)
        .max();
    for (id, container) in plan.containers.with_ids() {
        if container.role != Role::App {
            continue;
        }
        let entry = &mut timeline[id].start;
        entry.first_network_use = entry.started.map(|started| {
            let first = started + container.call_delay;
            match (&container.start_gate, proxies_ready) {
                (Some(_), Some(ready)) => first.max(ready),
                _ => first,
            }
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
/// `None` when its postStart or its startupProbe fails and nothing after it ever
/// starts: the kubelet starts the next init container only once a restartable one is
/// running with its startupProbe passed (`computeInitContainerActions`), and one killed
/// for a failed postStart restarts into the same hook.
fn start_sidecar(
    container: &PlannedContainer,
    now: Millis,
    entry: &mut StartEntry,
    plan: &PodPlan,
) -> Option<Millis> {
    let ready = now + container.startup;
    entry.ready = Some(ready);
    let hook_done = post_start(container, now, ready, entry);
    if entry.post_start_failed {
        return None;
    }
    let probe_passed = match container.startup_probe {
        Some(probe) => startup_probe(container, probe, now, ready, entry, plan)?,
        None => now,
    };
    Some(hook_done.max(probe_passed))
}

/// The kill of a container whose postStart failed, recorded in its entry: the
/// kubelet waits for it to be gone before it goes on (§1.1). Returns when it is gone;
/// `None` when its postStart did not fail.
fn kill_for_failed_post_start(
    plan: &PodPlan,
    id: ContainerId,
    container: &PlannedContainer,
    timeline: &mut ByContainer<ContainerTimeline>,
) -> Option<Millis> {
    let entry = &timeline[id].start;
    let failed = entry.post_start_done.filter(|_| entry.post_start_failed)?;
    let apps_running = plan.containers.with_ids().any(|(other, c)| {
        other < id && c.role == Role::App && timeline[other].start.started.is_some()
    });
    let kill = killed_at_start(container, plan, apps_running).shifted(failed);
    let gone = kill.exit;
    timeline[id].start.kill = Some(kill);
    Some(gone)
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

/// When the startupProbe passes: its first executed probe at or after `ready`. If
/// `ready` comes after the last probe it may fail (the `failureThreshold`-th executed
/// one), the probe fails, the kubelet kills the container with the probe's own grace
/// period if it has one (docs/lifecycle.md §1.3), and it never gets ready.
fn startup_probe(
    container: &PlannedContainer,
    probe: ProbeTiming,
    started: Millis,
    ready: Millis,
    entry: &mut StartEntry,
    plan: &PodPlan,
) -> Option<Millis> {
    let ticks = ProbeTicks::from_pod_add(probe, started);
    let passed = ticks.first_at_or_after(ready);
    let last_chance = ticks.nth(probe.failure_threshold);
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
        HookDuration::UntilReady {
            timeout,
            poll,
            unanswered,
        } => {
            // Polls from the start; returns at the first poll that finds it ready, if
            // anything answers its polls.
            let found = (!unanswered).then(|| ready.round_up_from(now, *poll));
            if let Some(found) = found.filter(|found| *found - now <= *timeout) {
                found
            } else {
                // The gate gives up; the kubelet kills the container and moves on (§1.1).
                entry.post_start_failed = true;
                now + *timeout
            }
        }
        HookDuration::UntilAppsExit | HookDuration::UntilSelfExits | HookDuration::Unknown => now,
    };
    entry.post_start_done = Some(done);
    done
}

/// When the kubelet first counts the container ready (§1.3): a container without a
/// readiness probe once it runs (and its startup probe, if any, has passed); one with a
/// probe at its first executed probe that finds it ready. Readiness is not probed before
/// the startup probe has passed; the moment it passes, the kubelet's status sync
/// triggers a readiness run at once and restarts the worker's ticker from there.
fn serving(container: &PlannedContainer, entry: &StartEntry) -> Option<Millis> {
    let started = entry.started?;
    let ready = match container.sidecar() {
        Some(_) => entry.ready?,
        None => entry.ready.unwrap_or(started),
    };
    let Some(probe) = container.readiness_probe else {
        return Some(ready.max(entry.startup_probe_passed.unwrap_or(started)));
    };
    let ticks = match entry.startup_probe_passed {
        Some(passed) => ProbeTicks::triggered_at(probe, started, passed),
        None => ProbeTicks::from_pod_add(probe, started),
    };
    Some(ticks.first_at_or_after(ready))
}

/// The moments one prober worker runs a probe against a container (kubernetes
/// `pkg/kubelet/prober/worker.go`, `run` and `doProbe`, v1.29–v1.35): the worker is
/// started when the pod is added to the probe manager, before any container starts
/// (0 on the start-up timeline; `prober_manager.go`, `AddPod`), runs `doProbe` at once
/// and then on every tick of a ticker of `periodSeconds`. `doProbe` does not probe a
/// container that is not running yet, nor one whose age in whole seconds is below
/// `initialDelaySeconds`: the delay skips ticks, it does not move them. A manual run
/// (readiness only: `UpdatePodStatus` when the startup probe has passed) probes at once
/// and resets the ticker (`probeTicker.Reset`, v1.29+). The random start-up jitter
/// applies only to a kubelet that started less than a period ago, and is left out.
#[derive(Clone, Copy, Debug)]
struct ProbeTicks {
    /// The first moment a probe is run.
    first: Millis,
    /// The period after it.
    period: Millis,
}

impl ProbeTicks {
    /// The ticks of a worker started with the pod, against a container started at
    /// `started`: the first tick after the start, and old enough.
    fn from_pod_add(probe: ProbeTiming, started: Millis) -> Self {
        // At the start itself the container is not in the pod's status yet.
        let earliest = (started + probe.initial_delay).max(started + Millis(1));
        ProbeTicks {
            first: earliest.round_up_from(Millis::ZERO, probe.period),
            period: probe.period,
        }
    }

    /// The runs of a worker triggered by hand at `trigger`: then, if the container is
    /// old enough, and every period after it.
    fn triggered_at(probe: ProbeTiming, started: Millis, trigger: Millis) -> Self {
        ProbeTicks {
            first: (started + probe.initial_delay).round_up_from(trigger, probe.period),
            period: probe.period,
        }
    }

    /// The first probe run at or after `at`.
    fn first_at_or_after(self, at: Millis) -> Millis {
        at.round_up_from(self.first, self.period)
    }

    /// The `n`-th probe run (from 1).
    fn nth(self, n: i64) -> Millis {
        self.first + self.period.times((n - 1).max(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(delay: i64, period: i64) -> ProbeTiming {
        ProbeTiming {
            initial_delay: Millis::secs(delay),
            period: Millis::secs(period),
            failure_threshold: 3,
        }
    }

    /// Ticks from the pod's add, a probe only when the container is old enough
    /// (docs/lifecycle.md §1.3): delay 3, period 5 first probes at 5, not 3.
    #[test]
    fn the_initial_delay_skips_ticks_and_does_not_move_them() {
        let ticks = ProbeTicks::from_pod_add(probe(3, 5), Millis::ZERO);
        assert_eq!(ticks.first_at_or_after(Millis::ZERO), Millis::secs(5));
        assert_eq!(ticks.first_at_or_after(Millis::secs(6)), Millis::secs(10));
        assert_eq!(ticks.nth(3), Millis::secs(15));
        // Started at 8 behind init containers: 10 is too young (2 < 3), 15 probes.
        let late = ProbeTicks::from_pod_add(probe(3, 5), Millis::secs(8));
        assert_eq!(late.first_at_or_after(Millis::secs(8)), Millis::secs(15));
        // Delay 5, period 10, ready at 2: the tick at 10 (was 5 with ticks from the start).
        let slow = ProbeTicks::from_pod_add(probe(5, 10), Millis::ZERO);
        assert_eq!(slow.first_at_or_after(Millis(2000)), Millis::secs(10));
    }

    #[test]
    fn a_container_started_on_a_tick_is_probed_on_the_next() {
        let ticks = ProbeTicks::from_pod_add(probe(0, 1), Millis::ZERO);
        assert_eq!(ticks.first_at_or_after(Millis::ZERO), Millis::secs(1));
        assert_eq!(ticks.first_at_or_after(Millis(2000)), Millis(2000));
        assert_eq!(ticks.first_at_or_after(Millis(2100)), Millis(3000));
    }

    /// A manual run probes at once and restarts the ticker there.
    #[test]
    fn a_manual_run_resets_the_ticker() {
        let ticks = ProbeTicks::triggered_at(probe(0, 15), Millis::ZERO, Millis(2300));
        assert_eq!(ticks.first_at_or_after(Millis(2000)), Millis(2300));
        assert_eq!(ticks.first_at_or_after(Millis(2400)), Millis(17_300));
        // Too young at the trigger: the next run is a period after it.
        let young = ProbeTicks::triggered_at(probe(5, 10), Millis::ZERO, Millis::secs(2));
        assert_eq!(young.first_at_or_after(Millis::ZERO), Millis::secs(12));
    }
}
