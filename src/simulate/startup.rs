//! Start-up (semantics 1.1, 1.2): init containers one at a time; a native sidecar lets
//! the next container start once it runs and its startupProbe passes; regular containers
//! start in order, each postStart hook blocking the next container.

use super::timeline::{StartEntry, Startup};
use crate::resolve::{ContainerList, HookDuration, PlannedContainer, PodPlan, ProbeTiming, Role};
use crate::time::Millis;

pub fn simulate(plan: &PodPlan) -> Startup {
    let mut entries = vec![StartEntry::default(); plan.containers.len()];
    let mut clock = Some(Millis::ZERO);
    for (index, container) in plan.containers.iter().enumerate() {
        let Some(now) = clock else { break };
        let entry = &mut entries[index];
        entry.started = Some(now);
        clock = match container.list {
            ContainerList::Init if container.native_sidecar => {
                Some(start_sidecar(container, now, entry))
            }
            ContainerList::Init if container.restart_always => {
                // `restartPolicy: Always` where the kubelet does not run native sidecars:
                // an init container that never exits, so nothing after it starts.
                None
            }
            ContainerList::Init => {
                let done = now + container.runs_for.unwrap_or(Millis::ZERO);
                entry.exited = Some(done);
                Some(done)
            }
            ContainerList::Regular => Some(start_regular(container, now, entry)),
        };
    }
    // Apps that gate themselves on a proxy start using the network once it is ready.
    let proxies_ready = plan.proxies().filter_map(|(i, _)| entries[i].ready).max();
    for (index, container) in plan.containers.iter().enumerate() {
        if container.role != Role::App {
            continue;
        }
        let entry = &mut entries[index];
        entry.first_network_use =
            entry
                .started
                .map(|started| match (&container.start_gate, proxies_ready) {
                    (Some(_), Some(ready)) => started.max(ready),
                    _ => started,
                });
    }
    let pod_ready = plan
        .containers
        .iter()
        .zip(&entries)
        .filter(|(c, _)| c.list == ContainerList::Regular || c.native_sidecar)
        .map(|(_, e)| e.ready)
        .try_fold(Millis::ZERO, |latest, ready| ready.map(|r| latest.max(r)));
    Startup {
        containers: entries,
        pod_ready,
    }
}

/// Starts a native sidecar at `now`; returns when the next container may start.
fn start_sidecar(container: &PlannedContainer, now: Millis, entry: &mut StartEntry) -> Millis {
    let ready = now + container.startup;
    entry.ready = Some(ready);
    let hook_done = post_start(container, now, ready, entry);
    let probe_passed = container
        .startup_probe
        .map(|probe| first_success(probe, now, ready))
        .unwrap_or(now);
    hook_done.max(probe_passed)
}

/// Starts a regular container at `now`; returns when the next one may start.
fn start_regular(container: &PlannedContainer, now: Millis, entry: &mut StartEntry) -> Millis {
    let ready = now + container.startup;
    entry.ready = Some(ready);
    post_start(container, now, ready, entry)
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
        HookDuration::UntilReady { timeout } => {
            if ready - now > *timeout {
                // The gate gives up; the kubelet kills the container and moves on (1.1).
                entry.post_start_failed = true;
                now + *timeout
            } else {
                ready
            }
        }
        HookDuration::UntilAppsExit | HookDuration::UntilSelfExits | HookDuration::Unknown => now,
    };
    entry.post_start_done = Some(done);
    done
}

/// The first startupProbe tick at or after `ready` (ticks at start + delay + k·period).
fn first_success(probe: ProbeTiming, started: Millis, ready: Millis) -> Millis {
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
        assert_eq!(
            first_success(probe, Millis::ZERO, Millis(2000)),
            Millis(2000)
        );
        assert_eq!(
            first_success(probe, Millis::ZERO, Millis(2100)),
            Millis(3000)
        );
        let slow = ProbeTiming {
            initial_delay: Millis::secs(5),
            period: Millis::secs(10),
            failure_threshold: 3,
        };
        assert_eq!(
            first_success(slow, Millis::ZERO, Millis(2000)),
            Millis::secs(5)
        );
        assert_eq!(
            first_success(slow, Millis::ZERO, Millis::secs(6)),
            Millis::secs(15)
        );
    }
}
