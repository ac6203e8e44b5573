//! Stage 4 of the pipeline: a PodPlan in, a Timeline out.
//!
//! A deterministic simulation of the kubelet's start-up and termination sequences
//! (docs/lifecycle.md §1 and §2) with each container's behaviour as resolve described it.
//! Nothing here knows about meshes: proxies are containers with exit policies and
//! traffic cuts.

mod completion;
mod events;
mod startup;
mod termination;
pub mod timeline;

pub use events::events;
pub use timeline::{
    Completion, ContainerTimeline, ControllerSignal, Event, EventKind, JobEntry, Outcome, Phase,
    StartEntry, Startup, StopEntry, Termination, Timeline,
};

use crate::resolve::PodPlan;

/// Simulates the pod's start-up, its termination, and for Jobs its completion; each
/// phase fills in its part of every container's record.
pub fn simulate(plan: &PodPlan) -> Timeline {
    let mut containers = plan.containers.map(|_| ContainerTimeline::default());
    let startup = startup::simulate(plan, &mut containers);
    let termination = termination::simulate(plan, &mut containers);
    let completion = if plan.runs_to_completion() {
        completion::simulate(plan, &mut containers)
    } else {
        None
    };
    Timeline {
        containers,
        startup,
        termination,
        completion,
    }
}

/// Longer than any shutdown the simulator models: with this grace period, a container
/// still killed never exits on its own.
const OPEN_GRACE_SECONDS: i64 = 24 * 3600;

/// The shortest `terminationGracePeriodSeconds`, in whole seconds, with which the
/// kubelet kills no container when the pod is deleted: every preStop hook ends and
/// every container exits on its own, proxies' drains and requests in flight included.
/// `None` when the deletion sets its own grace period (`--deletion-grace-period`), so
/// the pod's does not count, or when a container never exits on its own (a hook or a
/// process that runs until it is killed).
pub fn grace_needed(plan: &PodPlan) -> Option<i64> {
    if plan.deletion_grace_period.is_some() {
        return None;
    }
    let mut trial = plan.clone();
    let exits = |plan: &PodPlan| -> Option<i64> {
        let timeline = simulate(plan);
        let stops = timeline.containers.iter().filter_map(|c| c.stop.as_ref());
        let mut last = 0;
        for stop in stops {
            if stop.killed || stop.pre_stop_cut {
                return None;
            }
            last = last.max(stop.exit.0);
        }
        Some(last)
    };
    trial.grace_period.value = OPEN_GRACE_SECONDS;
    let last = exits(&trial)?;
    // Whole seconds, and the kubelet's own minimum of one; a container that exits just
    // as the period ends may still be killed, so the next second is tried too.
    let whole = (last.saturating_add(999) / 1000).max(1);
    (whole..=whole + 1).find(|&seconds| {
        trial.grace_period.value = seconds;
        exits(&trial).is_some()
    })
}
