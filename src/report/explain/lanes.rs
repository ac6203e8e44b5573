//! Turns a Timeline into lanes: one per container, one for the endpoints, one per
//! hazard, for each phase, on a time axis that fits them all.

use super::scale::Scale;
use crate::report::located::Analysis;
use crate::resolve::{ContainerList, Hook, HookDuration, InitRun, PlannedContainer, Role};
use crate::rules::Severity;
use crate::simulate::Phase;
use crate::time::Millis;

/// What a stretch of a lane shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Started, not ready yet.
    Starting,
    /// Running (an init container doing its work, an app serving).
    Running,
    /// A postStart or preStop hook running.
    Hook,
    /// A proxy still running but draining its inbound connections.
    Draining,
    /// After the stop signal: draining or shutting down.
    Stopping,
    /// Endpoints still route new requests to the pod.
    Routed,
    /// Traffic can be lost here; drawn in the colour of the finding's severity.
    Hazard,
    /// Blocked forever (never starts, never exits).
    Stuck,
}

impl State {
    /// What the state means, for legends.
    pub fn meaning(self) -> &'static str {
        match self {
            State::Starting => "starting",
            State::Running => "running",
            State::Hook => "hook",
            State::Draining => "draining",
            State::Stopping => "stopping",
            State::Routed => "routed",
            State::Hazard => "hazard",
            State::Stuck => "stuck",
        }
    }
}

/// A colour of a legend: a state, or a hazard of one severity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Swatch {
    /// A state of a container or of the endpoints.
    State(State),
    /// The hazard bar of a finding of this severity.
    Hazard(Severity),
}

impl Swatch {
    /// Every swatch, in the order legends list them.
    pub const ALL: [Swatch; 10] = [
        Swatch::State(State::Starting),
        Swatch::State(State::Running),
        Swatch::State(State::Hook),
        Swatch::State(State::Draining),
        Swatch::State(State::Stopping),
        Swatch::State(State::Routed),
        Swatch::State(State::Stuck),
        Swatch::Hazard(Severity::Error),
        Swatch::Hazard(Severity::Warning),
        Swatch::Hazard(Severity::Info),
    ];

    /// What the swatch means, for legends.
    pub fn meaning(self) -> &'static str {
        match self {
            Swatch::State(state) => state.meaning(),
            Swatch::Hazard(Severity::Error) => "error hazard",
            Swatch::Hazard(Severity::Warning) => "warning hazard",
            Swatch::Hazard(Severity::Info) => "info hazard",
        }
    }

    /// The class of its colour in pictures: the state's meaning, `hazard error`.
    pub fn class(self) -> &'static str {
        match self {
            Swatch::State(state) => state.meaning(),
            Swatch::Hazard(Severity::Error) => "hazard error",
            Swatch::Hazard(Severity::Warning) => "hazard warning",
            Swatch::Hazard(Severity::Info) => "hazard info",
        }
    }
}

/// A point mark on a lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkKind {
    Start,
    Ready,
    Sigterm,
    Sigkill,
    Exit,
    Removed,
    /// A hook whose length the manifest does not tell: drawn as instant.
    UnknownLength,
}

impl MarkKind {
    /// Every mark, in the order legends list them.
    pub const ALL: [MarkKind; 7] = [
        MarkKind::Start,
        MarkKind::Ready,
        MarkKind::Sigterm,
        MarkKind::Sigkill,
        MarkKind::Exit,
        MarkKind::Removed,
        MarkKind::UnknownLength,
    ];

    /// What the mark means, for legends.
    pub fn meaning(self) -> &'static str {
        match self {
            MarkKind::Start => "start",
            MarkKind::Ready => "ready",
            MarkKind::Sigterm => "SIGTERM",
            MarkKind::Sigkill => "SIGKILL",
            MarkKind::Exit => "exit",
            MarkKind::Removed => "endpoints removed",
            MarkKind::UnknownLength => "hook of unknown length",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub from: Millis,
    pub to: Millis,
    pub state: State,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    pub at: Millis,
    pub kind: MarkKind,
}

/// One horizontal lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lane {
    pub label: String,
    /// Short role tag: app, init, proxy, sidecar, pod; a hazard's severity.
    pub tag: String,
    pub segments: Vec<Segment>,
    pub marks: Vec<Mark>,
    /// Text after the lane ("never exits", "20 s").
    pub note: Option<String>,
    /// For a hazard lane, the finding it draws.
    pub hazard: Option<Hazard>,
}

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

/// The finding a hazard lane draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hazard {
    /// Its index in the analysis's findings.
    pub finding: usize,
    pub severity: Severity,
    pub suppressed: bool,
}

impl Lane {
    /// The colour of `segment` of this lane.
    pub fn swatch(&self, segment: &Segment) -> Swatch {
        match (segment.state, self.hazard) {
            (State::Hazard, Some(hazard)) => Swatch::Hazard(hazard.severity),
            (State::Hazard, None) => Swatch::Hazard(Severity::Error),
            (state, _) => Swatch::State(state),
        }
    }
}

/// The lanes of one phase, and the axis they are drawn on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Panel {
    pub phase: Phase,
    pub title: String,
    /// The time axis: linear, or cut where a long stretch holds no event.
    pub scale: Scale,
    /// When the grace period ends and the kubelet sends SIGKILL (termination only),
    /// where the axis can draw it.
    pub deadline: Option<Millis>,
    /// A grace period that ends beyond any axis drawn (`terminationGracePeriodSeconds:
    /// 9223372036854775807`), in seconds as given: said in words, never drawn.
    pub deadline_off_axis: Option<i64>,
    pub lanes: Vec<Lane>,
}

impl Panel {
    /// What the panel says above its axis about what it does not draw: the stretches
    /// cut out (`≈ axis cut: 5.5 s–1799.5 s not drawn, no event falls there`), and a
    /// grace period that ends beyond the axis.
    pub fn captions(&self) -> Vec<String> {
        let cuts: Vec<String> = self
            .scale
            .cuts()
            .map(|(from, to)| format!("{from}–{to}"))
            .collect();
        let mut captions = Vec::new();
        if !cuts.is_empty() {
            captions.push(format!(
                "≈ axis cut: {} not drawn, no event falls there",
                cuts.join(" and ")
            ));
        }
        if let Some(seconds) = self.deadline_off_axis {
            captions.push(format!(
                "┊ the grace period ends at {seconds} s, beyond the drawn axis: its SIGKILL is not drawn"
            ));
        }
        captions
    }

    /// The end of the axis.
    pub fn end(&self) -> Millis {
        self.scale.end()
    }

    /// The colours drawn in this panel, in legend order.
    pub fn swatches(&self) -> Vec<Swatch> {
        let drawn = |swatch| {
            self.lanes
                .iter()
                .any(|lane| lane.segments.iter().any(|s| lane.swatch(s) == swatch))
        };
        Swatch::ALL.into_iter().filter(|s| drawn(*s)).collect()
    }

    /// The marks drawn in this panel, in legend order.
    pub fn marks(&self) -> Vec<MarkKind> {
        let drawn = |kind| {
            self.lanes
                .iter()
                .any(|lane| lane.marks.iter().any(|m| m.kind == kind))
        };
        MarkKind::ALL.into_iter().filter(|k| drawn(*k)).collect()
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
        label: crate::report::escape::controls(&container.name).into_owned(),
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
                let ready = entry.ready.unwrap_or(started);
                if container.sidecar().is_some() && ready > started {
                    segment(&mut lane, started, ready, State::Starting);
                    segment(&mut lane, ready, end, State::Running);
                    mark(&mut lane, ready, MarkKind::Ready);
                } else {
                    segment(&mut lane, started, end, State::Running);
                }
                if let Some(done) = entry.post_start_done.filter(|d| *d > started) {
                    lane.note = Some(format!(
                        "postStart until {done}{}",
                        if entry.post_start_failed {
                            " (gave up)"
                        } else {
                            ""
                        }
                    ));
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
        match record.job.exit {
            Some(exit) => {
                segment(&mut lane, started, exit, State::Running);
                mark(&mut lane, exit, MarkKind::Exit);
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
