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
pub use timeline::*;

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
