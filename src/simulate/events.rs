//! Flattens a Timeline into events, for drawing and for JSON.

use super::timeline::{Event, EventKind, Phase, StopEntry, Timeline};
use crate::resolve::{ContainerId, PodPlan, Role};
use crate::time::Millis;

/// Every event of the timeline, sorted by phase, time, then container order.
pub fn events(plan: &PodPlan, timeline: &Timeline) -> Vec<Event> {
    let mut events = Vec::new();
    let mut push = |phase, at: Millis, container: Option<ContainerId>, kind| {
        events.push((
            phase,
            at,
            container,
            Event {
                phase,
                at_ms: at.0,
                container: container.map(|id| plan.containers[id].name.clone()),
                kind,
            },
        ));
    };
    for (id, record) in timeline.containers.with_ids() {
        let entry = &record.start;
        let c = Some(id);
        if let Some(at) = entry.started {
            push(Phase::Startup, at, c, EventKind::Started);
        }
        if let Some(at) = entry.post_start_done {
            let kind = if entry.post_start_failed {
                EventKind::PostStartFailed
            } else {
                EventKind::PostStartDone
            };
            push(Phase::Startup, at, c, kind);
        }
        if let (Some(kill), Some(failed)) = (&entry.kill, entry.post_start_done) {
            stop_events(Phase::Startup, failed, id, kill, &mut push);
        }
        if let Some(at) = entry.startup_probe_passed {
            push(Phase::Startup, at, c, EventKind::StartupProbePassed);
        }
        if let Some(at) = entry.startup_probe_failed {
            push(Phase::Startup, at, c, EventKind::StartupProbeFailed);
        }
        if plan.containers[id].sidecar().is_some()
            && let Some(at) = entry.ready
        {
            push(Phase::Startup, at, c, EventKind::Ready);
        }
        if let Some(at) = entry.exited {
            push(Phase::Startup, at, c, EventKind::Exited);
        }
    }
    if let Some(at) = timeline.startup.pod_ready {
        push(Phase::Startup, at, None, EventKind::PodReady);
    }
    let t = &timeline.termination;
    for (id, record) in timeline.containers.with_ids() {
        if let Some(entry) = &record.stop {
            stop_events(Phase::Termination, Millis::ZERO, id, entry, &mut push);
        }
    }
    // A pod nothing can reach has no endpoints to leave.
    if plan.reachable() {
        push(
            Phase::Termination,
            t.endpoints_removed,
            None,
            EventKind::EndpointsRemoved,
        );
    }
    if let Some(completion) = &timeline.completion {
        push(
            Phase::Completion,
            completion.work_done,
            None,
            EventKind::WorkDone,
        );
        for (id, record) in timeline.containers.with_ids() {
            if let Some(signal) = &record.job.controller_signal {
                let kind = match (signal.delivered, signal.dropped) {
                    (false, _) => EventKind::ControllerSigtermFails,
                    (true, true) => EventKind::SigtermDropped,
                    (true, false) => EventKind::ControllerSigterm,
                };
                push(Phase::Completion, signal.at, Some(id), kind);
                if let Some(at) = signal.killed {
                    push(Phase::Completion, at, Some(id), EventKind::Sigkill);
                }
            }
            match (&record.job.sidecar_stop, completion.regular_done) {
                (Some(entry), Some(origin)) => {
                    stop_events(Phase::Completion, origin, id, entry, &mut push);
                }
                _ => {
                    if let Some(at) = record.job.exit {
                        push(Phase::Completion, at, Some(id), EventKind::Exited);
                    }
                }
            }
        }
        match completion.completes {
            Some(at) => push(Phase::Completion, at, None, EventKind::JobComplete),
            None => push(
                Phase::Completion,
                completion.work_done,
                None,
                EventKind::NeverCompletes,
            ),
        }
    }
    // Pod-wide events come after the containers' at the same instant; in a Job's
    // completion, the work's end comes before what it sets off.
    let work_ends = |phase: Phase, container: Option<ContainerId>, kind: EventKind| {
        phase == Phase::Completion
            && match container {
                Some(id) => kind == EventKind::Exited && plan.containers[id].role == Role::App,
                None => kind == EventKind::WorkDone,
            }
    };
    events.sort_by_key(|(phase, at, container, event)| {
        (
            *phase,
            *at,
            !work_ends(*phase, *container, event.kind),
            container.is_none(),
            *container,
            event.kind,
        )
    });
    events.into_iter().map(|(_, _, _, event)| event).collect()
}

/// The events of one container's stop, its preStop starting at `origin`.
fn stop_events(
    phase: Phase,
    origin: Millis,
    id: ContainerId,
    entry: &StopEntry,
    push: &mut impl FnMut(Phase, Millis, Option<ContainerId>, EventKind),
) {
    let c = Some(id);
    if let Some(end) = entry.pre_stop_end {
        push(phase, origin, c, EventKind::PreStopStarted);
        let kind = if entry.pre_stop_cut {
            EventKind::PreStopCut
        } else {
            EventKind::PreStopDone
        };
        push(phase, end, c, kind);
    }
    if entry.signal < entry.exit || entry.signal == entry.natural_exit {
        let kind = if entry.signal_dropped {
            EventKind::SigtermDropped
        } else {
            EventKind::Sigterm
        };
        push(phase, entry.signal, c, kind);
    }
    if let Some(at) = entry.inbound_drained.filter(|at| *at < entry.exit) {
        push(phase, at, c, EventKind::InboundDrained);
    }
    if let Some(at) = entry.inbound_refused.filter(|at| *at < entry.exit) {
        push(phase, at, c, EventKind::InboundRefused);
    }
    if let Some(at) = entry.outbound_refused.filter(|at| *at < entry.exit) {
        push(phase, at, c, EventKind::OutboundRefused);
    }
    if entry.killed {
        push(phase, entry.kill, c, EventKind::Sigkill);
    }
    push(phase, entry.exit, c, EventKind::Exited);
}
