//! The panel of each phase — start-up, termination, completion — built from one
//! workload's timeline, and the hazard lanes of its findings laid over them.

use super::super::scale::Scale;
use super::{Hazard, Lane, Mark, MarkKind, Panel, Segment, State};
use crate::pipeline::located::Analysis;
use crate::resolve::{ContainerList, Hook, HookDuration, InitRun, PlannedContainer, Role};
use crate::simulate::Phase;
use crate::time::Millis;

impl Lane {
    /// The pod's endpoints lane, with its `note` (`ready at 2 s`).
    fn endpoints(note: String) -> Lane {
        Lane {
            label: "endpoints".into(),
            tag: "pod".into(),
            segments: Vec::new(),
            marks: Vec::new(),
            note: Some(note),
            hazard: None,
        }
    }
}

/// A hook the simulation could not time, and so draws as instant.
fn of_unknown_length(hook: Option<&Hook>) -> bool {
    hook.is_some_and(|hook| hook.duration == HookDuration::Unknown)
}

/// Appends `text` to the lane's note.
fn note(lane: &mut Lane, text: String) {
    lane.note = Some(match lane.note.take() {
        Some(before) => format!("{before}; {text}"),
        None => text,
    });
}

fn tag(container: &PlannedContainer) -> String {
    let Some(sidecar) = container.sidecar() else {
        return if container.role == Role::App {
            "app"
        } else {
            "init"
        }
        .into();
    };
    let what = if sidecar.carries_traffic {
        "proxy"
    } else {
        "sidecar"
    };
    if container.is_native_sidecar() {
        format!("native {what}")
    } else {
        what.into()
    }
}

fn lane(container: &PlannedContainer) -> Lane {
    Lane {
        label: crate::escape::controls(&container.name).into_owned(),
        tag: tag(container),
        segments: Vec::new(),
        marks: Vec::new(),
        note: None,
        hazard: None,
    }
}

fn segment(lane: &mut Lane, from: Millis, to: Millis, state: State) {
    if to > from {
        lane.segments.push(Segment { from, to, state });
    }
}

fn mark(lane: &mut Lane, at: Millis, kind: MarkKind) {
    lane.marks.push(Mark { at, kind });
}

/// The times where the hazards of `phase` start and end: the axis must reach them, so
/// that no bar is cut short. A window open at its end (length 0) runs to the axis end.
fn hazard_times(analysis: &Analysis, phase: Phase) -> Vec<Millis> {
    analysis
        .findings
        .iter()
        .filter_map(|located| located.finding.window.as_ref())
        .filter(|window| window.phase == phase)
        .flat_map(|window| [window.from, window.to.max(window.from)])
        .collect()
}

/// All panels of one analysis.
pub fn panels(analysis: &Analysis) -> Vec<Panel> {
    // A pod that is not admitted never starts: there is no timeline to draw.
    if !analysis.plan.admitted() {
        return Vec::new();
    }
    let mut panels = vec![startup(analysis), termination(analysis)];
    if let Some(panel) = completion(analysis) {
        panels.push(panel);
    }
    for panel in &mut panels {
        add_hazards(panel, analysis);
    }
    panels
}

fn startup(analysis: &Analysis) -> Panel {
    let plan = &analysis.plan;
    let records = &analysis.timeline.containers;
    let mut times = hazard_times(analysis, Phase::Startup);
    times.extend(analysis.timeline.startup.pod_ready);
    for entry in records.iter().map(|c| &c.start) {
        times.extend(
            [
                entry.started,
                entry.ready,
                entry.post_start_done,
                entry.exited,
                entry.killed_exit(),
            ]
            .into_iter()
            .flatten(),
        );
    }
    let scale = Scale::fit(times);
    let end = scale.end();
    let mut lanes = Vec::new();
    for (id, container) in plan.containers.with_ids() {
        let record = &records[id];
        let entry = &record.start;
        let mut lane = lane(container);
        let Some(started) = entry.started else {
            segment(&mut lane, Millis::ZERO, end, State::Stuck);
            lane.note = Some("never starts".into());
            lanes.push(lane);
            continue;
        };
        mark(&mut lane, started, MarkKind::Start);
        match (container.list(), entry.exited) {
            (ContainerList::Init, Some(exited)) => {
                segment(&mut lane, started, exited, State::Running);
                mark(&mut lane, exited, MarkKind::Exit);
            }
            (ContainerList::Init, None)
                if container.role.init_run() == Some(InitRun::NeverExits) =>
            {
                segment(&mut lane, started, end, State::Stuck);
                lane.note = Some("never exits: restartPolicy Always is not a sidecar here".into());
            }
            _ => {
                // One killed for its failed postStart runs until the kill: its preStop,
                // if it has one, then its stop signal, and it stops until it is gone.
                let until = match (&entry.kill, entry.post_start_done) {
                    (Some(kill), Some(failed)) if kill.pre_stop_end.is_some() => failed,
                    (Some(kill), _) => kill.signal,
                    (None, _) => end,
                };
                let ready = entry.ready.unwrap_or(started).min(until);
                if container.sidecar().is_some() && ready > started {
                    segment(&mut lane, started, ready, State::Starting);
                    segment(&mut lane, ready, until, State::Running);
                    if ready < until {
                        mark(&mut lane, ready, MarkKind::Ready);
                    }
                } else {
                    segment(&mut lane, started, until, State::Running);
                }
                if let Some(kill) = &entry.kill {
                    if let Some(hook_end) = kill.pre_stop_end {
                        segment(&mut lane, until, hook_end, State::Hook);
                    }
                    segment(&mut lane, kill.signal, kill.exit, State::Stopping);
                    mark(&mut lane, kill.signal, MarkKind::Sigterm);
                    if kill.killed {
                        mark(&mut lane, kill.kill, MarkKind::Sigkill);
                    }
                    mark(&mut lane, kill.exit, MarkKind::Exit);
                }
                if let Some(done) = entry.post_start_done.filter(|d| *d > started) {
                    let outcome = match (entry.post_start_failed, entry.killed_exit()) {
                        (true, Some(gone)) => format!(" (gave up); killed, gone at {gone}"),
                        (true, None) => " (gave up)".to_owned(),
                        (false, _) => String::new(),
                    };
                    lane.note = Some(format!("postStart until {done}{outcome}"));
                }
                if of_unknown_length(container.post_start.as_ref()) {
                    mark(&mut lane, started, MarkKind::UnknownLength);
                    note(
                        &mut lane,
                        "postStart of unknown length, drawn as instant".into(),
                    );
                }
            }
        }
        lanes.push(lane);
    }
    // A pod no Service or port can reach has no endpoints to join.
    if plan.reachable() {
        let mut endpoints = Lane::endpoints(match analysis.timeline.startup.pod_ready {
            Some(at) => format!("ready at {at}"),
            None => "never ready".into(),
        });
        if let Some(ready) = analysis.timeline.startup.pod_ready {
            segment(&mut endpoints, ready, end, State::Routed);
            mark(&mut endpoints, ready, MarkKind::Ready);
        }
        lanes.push(endpoints);
    }
    Panel {
        phase: Phase::Startup,
        title: "Start-up (0 = pod scheduled)".into(),
        scale,
        deadline: None,
        deadline_off_axis: None,
        lanes,
    }
}

fn termination(analysis: &Analysis) -> Panel {
    let plan = &analysis.plan;
    let t = &analysis.timeline.termination;
    let deadline = Millis::secs(t.grace.value);
    let drawn = Scale::draws(deadline);
    let mut times = hazard_times(analysis, Phase::Termination);
    times.push(t.endpoints_removed);
    times.extend(drawn.then_some(deadline));
    let records = &analysis.timeline.containers;
    for entry in records.iter().filter_map(|c| c.stop.as_ref()) {
        times.extend([
            entry.signal,
            entry.exit,
            entry.kill.min(entry.natural_exit.max(entry.exit)),
        ]);
        times.extend(entry.pre_stop_end);
        times.extend(entry.inbound_drained);
    }
    let scale = Scale::fit(times);
    let mut lanes = Vec::new();
    for (id, container) in plan.containers.with_ids() {
        let record = &records[id];
        let Some(entry) = &record.stop else { continue };
        let mut lane = lane(container);
        let hook_end = entry.pre_stop_end.unwrap_or(Millis::ZERO);
        if entry.pre_stop_end.is_some() {
            segment(
                &mut lane,
                Millis::ZERO,
                hook_end.min(entry.exit),
                State::Hook,
            );
        }
        // A proxy that drains before its signal (a native Istio proxy's preStop `/drain`).
        let running_until = entry.signal.min(entry.exit);
        match entry.inbound_drained.filter(|at| *at < running_until) {
            Some(drained) => {
                segment(&mut lane, hook_end, drained.max(hook_end), State::Running);
                segment(
                    &mut lane,
                    drained.max(hook_end),
                    running_until,
                    State::Draining,
                );
            }
            None => segment(&mut lane, hook_end, running_until, State::Running),
        }
        // A dropped signal changes nothing: it runs on as before.
        let after_signal = if entry.signal_dropped {
            State::Running
        } else {
            State::Stopping
        };
        segment(&mut lane, entry.signal, entry.exit, after_signal);
        if entry.signal < entry.exit || entry.signal == entry.natural_exit {
            mark(&mut lane, entry.signal, MarkKind::Sigterm);
        }
        if entry.signal_dropped {
            note(&mut lane, "SIGTERM dropped by its PID 1 shell".into());
        }
        if entry.killed {
            mark(&mut lane, entry.kill, MarkKind::Sigkill);
            note(&mut lane, format!("SIGKILL at {}", entry.kill));
        } else {
            mark(&mut lane, entry.exit, MarkKind::Exit);
            if entry.exit == entry.signal {
                // Its exit mark falls on its SIGTERM: say so in words too.
                note(&mut lane, format!("exits on SIGTERM at {}", entry.exit));
            }
        }
        if entry.pre_stop_end.is_some() && of_unknown_length(container.pre_stop.as_ref()) {
            mark(&mut lane, Millis::ZERO, MarkKind::UnknownLength);
            note(
                &mut lane,
                "preStop of unknown length, drawn as instant".into(),
            );
        }
        lanes.push(lane);
    }
    if plan.reachable() {
        let mut endpoints = Lane::endpoints(format!("removed at {}", t.endpoints_removed));
        segment(
            &mut endpoints,
            Millis::ZERO,
            t.endpoints_removed,
            State::Routed,
        );
        mark(&mut endpoints, t.endpoints_removed, MarkKind::Removed);
        lanes.push(endpoints);
    }
    Panel {
        phase: Phase::Termination,
        title: format!(
            "Termination (0 = deletion; grace period {} s)",
            t.grace.value
        ),
        scale,
        deadline: drawn.then_some(deadline),
        deadline_off_axis: (!drawn).then_some(t.grace.value),
        lanes,
    }
}

fn completion(analysis: &Analysis) -> Option<Panel> {
    let plan = &analysis.plan;
    let completion = analysis.timeline.completion.as_ref()?;
    let records = &analysis.timeline.containers;
    let mut times = hazard_times(analysis, Phase::Completion);
    times.extend(records.iter().filter_map(|c| c.job.exit));
    times.extend(records.iter().filter_map(|c| c.start.started));
    times.extend([completion.work_done, completion.work_done + Millis::secs(2)]);
    times.extend(completion.completes);
    let scale = Scale::fit(times);
    let end = scale.end();
    let mut lanes = Vec::new();
    for (id, container) in plan.containers.with_ids() {
        let record = &records[id];
        // Plain init containers are done before the work starts.
        if container.role.init_run().is_some() {
            continue;
        }
        let mut lane = lane(container);
        let started = record.start.started.unwrap_or_default();
        // The SIGTERM the workload's controller delivers once the work is done.
        let signalled = record
            .job
            .controller_signal
            .filter(|signal| signal.delivered && !signal.dropped)
            .map(|signal| signal.at);
        match record.job.exit {
            Some(exit) => {
                let stopping = signalled.filter(|at| *at < exit);
                segment(&mut lane, started, stopping.unwrap_or(exit), State::Running);
                if let Some(at) = stopping {
                    segment(&mut lane, at, exit, State::Stopping);
                    mark(&mut lane, at, MarkKind::Sigterm);
                }
                match record
                    .job
                    .controller_signal
                    .and_then(|signal| signal.killed)
                {
                    Some(at) => {
                        mark(&mut lane, at, MarkKind::Sigkill);
                        lane.note = Some(format!("SIGKILL at {at}"));
                    }
                    None => mark(&mut lane, exit, MarkKind::Exit),
                }
            }
            None => {
                segment(&mut lane, started, completion.work_done, State::Running);
                segment(&mut lane, completion.work_done, end, State::Stuck);
                lane.note = Some("never exits".into());
            }
        }
        lanes.push(lane);
    }
    let mut job = Lane {
        // A CronJob's pods are its Jobs': what completes (or not) is each Job.
        label: if plan.kind == crate::workload::Kind::CronJob {
            "Job".to_owned()
        } else {
            plan.kind.as_str().to_owned()
        },
        tag: "pod".into(),
        segments: Vec::new(),
        marks: Vec::new(),
        note: Some(match completion.completes {
            Some(at) => format!("completes at {at}"),
            None => "never completes".into(),
        }),
        hazard: None,
    };
    if let Some(at) = completion.completes {
        mark(&mut job, at, MarkKind::Exit);
    }
    lanes.push(job);
    Some(Panel {
        phase: Phase::Completion,
        title: format!("Completion (work ends at {})", completion.work_done),
        scale,
        deadline: None,
        deadline_off_axis: None,
        lanes,
    })
}

/// One lane per finding that marks a window in this phase.
fn add_hazards(panel: &mut Panel, analysis: &Analysis) {
    for (index, located) in analysis.findings.iter().enumerate() {
        let Some(window) = &located.finding.window else {
            continue;
        };
        if window.phase != panel.phase {
            continue;
        }
        let length = window.to - window.from;
        let rule = located.finding.rule;
        let suppressed = located.suppressed.is_some();
        let mut lane = Lane {
            label: rule.id.to_owned(),
            // The severity in words, beside its colour.
            tag: if suppressed {
                "suppressed".to_owned()
            } else {
                located.finding.severity.to_string()
            },
            segments: Vec::new(),
            marks: Vec::new(),
            note: Some(if length.0 > 0 {
                format!("{length} {}", rule.name)
            } else {
                rule.name.to_owned()
            }),
            hazard: Some(Hazard {
                finding: index,
                severity: located.finding.severity,
                suppressed,
            }),
        };
        // The axis reaches every window's end; an open window runs to the axis's end.
        let end = panel.end();
        let to = if length.0 > 0 { window.to } else { end };
        let from = window.from.clamp(Millis::ZERO, end);
        segment(&mut lane, from, to.min(end), State::Hazard);
        panel.lanes.push(lane);
    }
}
