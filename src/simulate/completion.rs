//! A Job's end (semantics 2.6): the pod finishes when every regular container has
//! exited. A classic sidecar exits only when the work stops it; native sidecars are
//! terminated by the kubelet once the work is done, and do not count.

use super::timeline::{Completion, Outcome, Startup};
use crate::resolve::{ContainerList, ExitPolicy, PodPlan, RestartPolicy, StopMethod};
use crate::time::Millis;

pub fn simulate(plan: &PodPlan, startup: &Startup) -> Completion {
    let mut exits: Vec<Option<Millis>> = vec![None; plan.containers.len()];
    let mut work_done = Millis::ZERO;
    for (index, container) in plan.apps() {
        let started = startup.containers[index].started;
        let done = started.map(|s| s + container.runs_for.unwrap_or(Millis::ZERO));
        exits[index] = done;
        if let Some(done) = done {
            work_done = work_done.max(done);
        }
    }
    let all_work_done = plan.apps().all(|(i, _)| exits[i].is_some());
    // Regular-container sidecars: stopped by a working call from the work, or never. A
    // sidecar stopped by a signal exits with its signal exit code.
    let mut failing: Vec<(usize, i32)> = Vec::new();
    for (index, container) in plan.regular() {
        let Some(sidecar) = container.sidecar() else {
            continue;
        };
        let stop = plan
            .apps()
            .flat_map(|(_, app)| &app.sidecar_stops)
            .find(|stop| stop.effective.is_ok() && stop.method.reaches(&sidecar.kind));
        let Some(stop) = stop else { continue };
        if !all_work_done {
            continue;
        }
        exits[index] = Some(work_done + exit_after_stop(&container.exit));
        if matches!(stop.method, StopMethod::Signal { .. }) && container.exit_code_on_signal != 0 {
            failing.push((index, container.exit_code_on_signal));
        }
    }
    // A non-zero exit fails the pod under `Never`; under `OnFailure` the kubelet
    // restarts the sidecar and the pod runs on.
    if plan.restart_policy == RestartPolicy::OnFailure {
        for &(index, _) in &failing {
            exits[index] = None;
        }
    }
    let blocking: Vec<usize> = plan
        .regular()
        .filter(|(i, _)| exits[*i].is_none())
        .map(|(i, _)| i)
        .collect();
    let regular_gone = plan.regular().filter_map(|(i, _)| exits[i]).max();
    let completes = blocking
        .is_empty()
        .then(|| regular_gone.unwrap_or(work_done));
    let outcome = match completes {
        None => Outcome::Hangs,
        Some(at) if !failing.is_empty() => Outcome::Fails(at),
        Some(at) => Outcome::Succeeds(at),
    };
    // Native sidecars: the kubelet stops them once the regular containers are gone.
    if let Some(done) = completes {
        for (index, container) in plan.containers.iter().enumerate() {
            if container.list == ContainerList::Init && container.native_sidecar {
                exits[index] = Some(done + exit_after_stop(&container.exit));
            }
        }
    }
    Completion {
        work_done,
        exits,
        completes,
        outcome,
        blocking,
        failing,
    }
}

/// How quickly a sidecar is gone once told to stop.
fn exit_after_stop(exit: &ExitPolicy) -> Millis {
    match exit {
        ExitPolicy::After(length) => length.value,
        ExitPolicy::WhenConnectionsClose { minimum, .. } => *minimum,
        ExitPolicy::Immediately
        | ExitPolicy::WhenIdle { .. }
        | ExitPolicy::WhenRequestsDone { .. } => Millis::ZERO,
    }
}
