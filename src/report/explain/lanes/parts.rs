//! What a lane is made of — states, swatches, marks, segments, lanes, panels — for
//! every renderer to draw.

use super::super::scale::Scale;
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
