//! A Job's end (docs/lifecycle.md §2.6): the pod finishes when every container the
//! kubelet counts as running has stopped. A classic sidecar exits only when the work
//! stops it; native sidecars are stopped by the kubelet once the regular containers are
//! done, in reverse order and within the pod's grace period, and the pod reaches
//! `Succeeded` only when the last of them has exited.

use super::termination;
use super::timeline::{Completion, ContainerTimeline, ControllerSignal, Outcome};
use crate::resolve::{ByContainer, ContainerId, ExitPolicy, PodPlan, RestartPolicy, StopMethod};
use crate::time::Millis;

/// The Job's end, or `None` when its work never starts (the pod stays in `Init`); each
/// container's exit goes into its record.
pub fn simulate(
    plan: &PodPlan,
    timeline: &mut ByContainer<ContainerTimeline>,
) -> Option<Completion> {
    if plan
        .apps()
        .any(|(id, _)| timeline[id].start.started.is_none())
    {
        return None;
    }
    let mut work_done = Millis::ZERO;
    for (id, container) in plan.apps() {
        let started = timeline[id].start.started?;
        let done = started + container.runs_for.unwrap_or(Millis::ZERO);
        // Its own `restartPolicy: Always`: the kubelet starts it again (§2.9).
        timeline[id].job.exit = container.restart_in_place.is_none().then_some(done);
        work_done = work_done.max(done);
    }
    // Regular-container sidecars: stopped by a working call from the work, by their own
    // wait for the signal the work leaves, or never. A sidecar stopped by a signal
    // (`kill`, kubexit's SIGTERM to its child) exits with its signal exit code.
    let mut failing: Vec<(ContainerId, i32)> = Vec::new();
    for (id, container) in plan.regular() {
        if container.sidecar().is_none() {
            continue;
        }
        let stops = || {
            plan.apps()
                .flat_map(|(_, app)| &app.sidecar_stops)
                .filter(|stop| stop.method.reaches_container(container))
        };
        // The workload's controller execs its kill command whether or not it works.
        if let Some(stop) =
            stops().find(|stop| matches!(stop.method, StopMethod::Controller { .. }))
        {
            timeline[id].job.controller_signal = Some(ControllerSignal {
                at: work_done,
                delivered: stop.effective.is_ok(),
                dropped: stop.effective.is_ok() && container.dropped_signal.is_some(),
                killed: None,
            });
        }
        let Some(stop) = stops().find(|stop| stop.effective.is_ok()) else {
            continue;
        };
        if container.restart_in_place.is_some() {
            // Stopped, and started again in place.
            continue;
        }
        let takes = if stop.exits_at_once {
            Millis::ZERO
        } else {
            exit_after_stop(&container.exit)
        };
        let takes = match &stop.method {
            // A controller's signal: the sidecar exits as it does on SIGTERM, unless
            // its PID 1 drops the signal; the SIGKILL after the grace period ends it
            // only where one can reach it (docs/lifecycle.md §5.7).
            StopMethod::Controller { kill_after, .. } => {
                let natural = container.dropped_signal.is_none().then_some(takes);
                let kill = kill_after.filter(|kill| natural.is_none_or(|takes| *kill < takes));
                if let (Some(signal), Some(kill)) = (&mut timeline[id].job.controller_signal, kill)
                {
                    signal.killed = Some(work_done + kill);
                }
                kill.or(natural)
            }
            _ => Some(takes),
        };
        let Some(takes) = takes else { continue };
        timeline[id].job.exit = Some(work_done + takes);
        if stop.method.ends_by_signal() && container.exit_code_on_signal != 0 {
            failing.push((id, container.exit_code_on_signal));
        }
    }
    // A classic sidecar the kubelet killed for a failed postStart stays gone unless
    // the pod's policy restarts it.
    for (id, container) in plan.regular() {
        let start = &timeline[id].start;
        if container.sidecar().is_some()
            && start.post_start_failed
            && !plan.restarts_after_kill(container)
            && timeline[id].job.exit.is_none()
        {
            timeline[id].job.exit = start.killed_exit();
        }
    }
    // A non-zero exit fails the pod under `Never`; under `OnFailure` the kubelet
    // restarts the sidecar and the pod runs on.
    if plan.restart_policy == RestartPolicy::OnFailure {
        for &(id, _) in &failing {
            timeline[id].job.exit = None;
        }
    }
    let blocking: Vec<ContainerId> = plan
        .regular()
        .filter(|(id, _)| timeline[*id].job.exit.is_none())
        .map(|(id, _)| id)
        .collect();
    let regular_done = blocking.is_empty().then(|| {
        plan.regular()
            .filter_map(|(id, _)| timeline[id].job.exit)
            .max()
            .unwrap_or(work_done)
    });
    // Native sidecars: a running one counts as running in `getPhase`, so the pod ends
    // only when the kubelet has stopped the last of them.
    let mut completes = regular_done;
    if let Some(done) = regular_done {
        for (id, entry) in termination::stop_sidecars_after_work(plan, timeline) {
            let entry = entry.shifted(done);
            completes = completes.max(Some(entry.exit));
            let job = &mut timeline[id].job;
            job.exit = Some(entry.exit);
            job.sidecar_stop = Some(entry);
        }
    }
    let outcome = match completes {
        None => Outcome::Hangs,
        Some(at) if !failing.is_empty() => Outcome::Fails(at),
        Some(at) => Outcome::Succeeds(at),
    };
    Some(Completion {
        work_done,
        regular_done,
        completes,
        outcome,
        blocking,
        failing,
    })
}

/// How quickly a classic sidecar is gone once the work's call reaches it.
fn exit_after_stop(exit: &ExitPolicy) -> Millis {
    match exit {
        ExitPolicy::After(length) => length.value,
        ExitPolicy::WhenConnectionsClose { minimum, .. } => *minimum,
        ExitPolicy::WhenRequestsDone { accepting, .. } => *accepting,
        // The work is gone, so the first poll after the minimum finds no connection
        // (docs/lifecycle.md §3.6).
        ExitPolicy::WhenIdle { minimum, poll } => minimum.value + *poll,
        ExitPolicy::Immediately => Millis::ZERO,
    }
}
