//! Flattens a Timeline into events, for drawing and for JSON.

use super::timeline::{Event, EventKind, Phase, StopEntry, Timeline};
use crate::resolve::PodPlan;
use crate::time::Millis;

/// Every event of the timeline, sorted by phase, time, then container order.
pub fn events(plan: &PodPlan, timeline: &Timeline) -> Vec<Event> {
    let mut events = Vec::new();
    let mut push = |phase, at: Millis, container: Option<usize>, kind| {
        events.push((
            phase,
            at,
            container,
            Event {
                phase,
                at_ms: at.0,
                container: container.map(|i| plan.containers[i].name.clone()),
                kind,
            },
        ));
    };
    for (index, entry) in timeline.startup.containers.iter().enumerate() {
        let c = Some(index);
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
        if plan.containers[index].sidecar().is_some()
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
    for (index, entry) in t.containers.iter().enumerate() {
        if let Some(entry) = entry {
            stop_events(Phase::Termination, Millis::ZERO, index, entry, &mut push);
        }
    }
    push(
        Phase::Termination,
        t.endpoints_removed,
        None,
        EventKind::EndpointsRemoved,
    );
    if let Some(completion) = &timeline.completion {
        push(
            Phase::Completion,
            completion.work_done,
            None,
            EventKind::WorkDone,
        );
        for (index, exit) in completion.exits.iter().enumerate() {
            match (&completion.sidecar_stops[index], completion.regular_done) {
                (Some(entry), Some(origin)) => {
                    stop_events(Phase::Completion, origin, index, entry, &mut push);
                }
                _ => {
                    if let Some(at) = exit {
                        push(Phase::Completion, *at, Some(index), EventKind::Exited);
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
    events.sort_by_key(|(phase, at, container, event)| {
        (*phase, *at, container.unwrap_or(usize::MAX), event.kind)
    });
    events.into_iter().map(|(_, _, _, event)| event).collect()
}

/// The events of one container's stop, its preStop starting at `origin`.
fn stop_events(
    phase: Phase,
    origin: Millis,
    index: usize,
    entry: &StopEntry,
    push: &mut impl FnMut(Phase, Millis, Option<usize>, EventKind),
) {
    let c = Some(index);
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
        push(phase, entry.signal, c, EventKind::Sigterm);
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
