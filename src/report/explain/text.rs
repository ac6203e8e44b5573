//! The timeline drawn in the terminal, laid out for the style's width: the time axis
//! takes the columns the labels and notes leave, and every line of prose wraps.

use std::fmt::Write;

use super::facts;
use super::lanes::{Lane, MarkKind, Panel, State, Swatch, panels};
use super::scale::Scale;
use crate::pipeline::located::Analysis;
use crate::report::style::{Style, Tone};
use crate::report::wrap;
use crate::resolve::{HookDuration, StopMethod};
use crate::rules::{Severity, describe};
use crate::simulate::{Event, EventKind, Phase, events};
use crate::time::Millis;

/// The narrowest time axis drawn, in columns.
const MIN_AXIS: usize = 20;
/// The columns a cut in the time axis takes.
const CUT_CELLS: usize = 3;
/// What a cut in the axis is drawn with, on the tick line and across the lanes.
const CUT_GLYPH: char = '≈';
/// What marks the end of the grace period in a lane where nothing else is drawn.
const DEADLINE_GLYPH: char = '┊';
/// Columns kept after a lane for its note; a longer note goes on the line below.
const NOTE_ROOM: usize = 24;

/// The whole explanation of one workload.
pub fn text(analysis: &Analysis, style: Style) -> String {
    let mut out = String::new();
    header(&mut out, analysis, style);
    let all_events = events(&analysis.plan, &analysis.timeline);
    for panel in panels(analysis) {
        out.push('\n');
        draw_panel(&mut out, &panel, style);
        list_events(&mut out, analysis, &all_events, panel.phase, style);
    }
    hazards(&mut out, analysis, style);
    assumptions(&mut out, analysis, style);
    out
}

/// Writes `text` wrapped at the style's width, continuation lines indented by `indent`.
fn line(out: &mut String, style: Style, first: &str, indent: &str, text: &str) {
    let _ = writeln!(out, "{}", wrap::wrap(text, style.columns(), first, indent));
}

fn header(out: &mut String, analysis: &Analysis, style: Style) {
    let title = wrap::wrap(&facts::title(analysis), style.columns(), "", "  ");
    let _ = writeln!(out, "{}", style.paint(&title, Tone::Bold));
    for fact in facts::header(&analysis.plan, &analysis.timeline) {
        line(out, style, "  ", "    ", &fact);
    }
}

/// The columns of a panel: label, tag, the time axis, and what is left for notes.
struct Layout {
    label_width: usize,
    tag_width: usize,
    /// Cells of the time axis; time `end` falls on the last.
    axis: usize,
    /// Where the time axis starts.
    indent: usize,
    /// The whole width.
    width: usize,
}

impl Layout {
    fn of(panel: &Panel, style: Style) -> Layout {
        let label_width = panel
            .lanes
            .iter()
            .map(|l| l.label.chars().count())
            .max()
            .unwrap_or(0)
            .max(9);
        let tag_width = panel
            .lanes
            .iter()
            .map(|l| l.tag.chars().count())
            .max()
            .unwrap_or(0)
            .min(16);
        let indent = 2 + label_width + 1 + tag_width + 2;
        let notes = panel
            .lanes
            .iter()
            .filter_map(|l| l.note.as_ref())
            .map(|n| n.chars().count() + 2)
            .max()
            .unwrap_or(0)
            .min(NOTE_ROOM);
        let width = style.columns();
        let axis = width.saturating_sub(indent + 1 + notes).max(MIN_AXIS);
        Layout {
            label_width,
            tag_width,
            axis,
            indent,
            width,
        }
    }

    /// The cell of time `at` on the axis of `scale`.
    fn column(&self, at: Millis, scale: &Scale) -> usize {
        let at = scale.position(at, self.axis as f64, CUT_CELLS as f64);
        (at.max(0.0).floor() as usize).min(self.axis)
    }

    /// The cells of each cut of `scale`: where its break starts, and its cells.
    fn cuts(&self, scale: &Scale) -> Vec<std::ops::Range<usize>> {
        (0..scale.cuts().count())
            .map(|index| {
                let (start, _) = scale.break_at(index, self.axis as f64, CUT_CELLS as f64);
                let start = (start.round().max(0.0) as usize).min(self.axis);
                start..(start + CUT_CELLS).min(self.axis + 1)
            })
            .collect()
    }
}

/// The glyph of a colour: each its own, so that the drawing reads without colour.
fn glyph(swatch: Swatch) -> char {
    match swatch {
        Swatch::State(State::Starting) => '░',
        Swatch::State(State::Running) => '━',
        Swatch::State(State::Hook) => '▒',
        Swatch::State(State::Draining) => '┄',
        Swatch::State(State::Stopping) => '─',
        Swatch::State(State::Routed) => '═',
        Swatch::State(State::Stuck) => '┅',
        Swatch::Hazard(Severity::Error) | Swatch::State(State::Hazard) => '█',
        Swatch::Hazard(Severity::Warning) => '▓',
        Swatch::Hazard(Severity::Info) => '▚',
    }
}

fn tone(swatch: Swatch) -> Tone {
    match swatch {
        Swatch::State(State::Starting) => Tone::Yellow,
        Swatch::State(State::Running) => Tone::Blue,
        Swatch::State(State::Hook) => Tone::Magenta,
        Swatch::State(State::Draining) => Tone::Cyan,
        Swatch::State(State::Stopping | State::Stuck) => Tone::Dim,
        Swatch::State(State::Routed) => Tone::Green,
        Swatch::State(State::Hazard) => Tone::Red,
        Swatch::Hazard(severity) => Tone::of(severity),
    }
}

fn mark_glyph(kind: MarkKind) -> char {
    match kind {
        MarkKind::Start => '●',
        MarkKind::Ready => '◆',
        MarkKind::Sigterm => '▼',
        MarkKind::Sigkill => '✕',
        MarkKind::Exit => '┤',
        MarkKind::Removed => '◇',
        MarkKind::UnknownLength => '?',
    }
}

fn mark_tone(kind: MarkKind) -> Tone {
    match kind {
        MarkKind::Sigkill => Tone::Red,
        MarkKind::Ready => Tone::Green,
        MarkKind::UnknownLength => Tone::Yellow,
        _ => Tone::Bold,
    }
}

fn draw_panel(out: &mut String, panel: &Panel, style: Style) {
    let layout = Layout::of(panel, style);
    let scale = &panel.scale;
    let _ = writeln!(out, "{}", style.paint(&panel.title, Tone::Bold));
    for caption in panel.captions() {
        line(out, style, "", "  ", &caption);
    }
    // Tick labels on the axis, as many as fit with room between them.
    let cuts = layout.cuts(scale);
    let mut axis = vec![' '; layout.axis + 12];
    for cut in &cuts {
        let middle = (cut.start + cut.len() / 2).min(axis.len() - 1);
        axis[middle] = CUT_GLYPH;
    }
    let mut free = 0;
    for tick in scale.ticks((layout.axis / 10).max(1) as i64) {
        let label = tick.to_string();
        let at = layout.column(tick, scale);
        let fits =
            at + label.len() <= axis.len() && axis[at..at + label.len()].iter().all(|c| *c == ' ');
        if at >= free && fits {
            for (i, c) in label.chars().enumerate() {
                axis[at + i] = c;
            }
            free = at + label.len() + 2;
        }
    }
    let axis: String = axis.iter().collect();
    let _ = writeln!(
        out,
        "{}{}",
        " ".repeat(layout.indent),
        style.paint(axis.trim_end(), Tone::Dim)
    );
    let deadline = panel.deadline.map(|at| layout.column(at, scale));
    for lane in &panel.lanes {
        draw_lane(out, lane, scale, &layout, &cuts, deadline, style);
    }
    legend(out, panel, &layout, style);
}

fn draw_lane(
    out: &mut String,
    lane: &Lane,
    scale: &Scale,
    layout: &Layout,
    cuts: &[std::ops::Range<usize>],
    deadline: Option<usize>,
    style: Style,
) {
    let mut cells: Vec<Option<(char, Tone)>> = vec![None; layout.axis + 1];
    for segment in &lane.segments {
        let swatch = lane.swatch(segment);
        let from = layout.column(segment.from, scale);
        let to = layout
            .column(segment.to, scale)
            .max(from + 1)
            .min(cells.len());
        for cell in &mut cells[from..to] {
            *cell = Some((glyph(swatch), tone(swatch)));
        }
    }
    // A bar through a cut is drawn through its break.
    for cut in cuts {
        let middle = cut.start + cut.len() / 2;
        if middle < cells.len() && cells[middle].is_some() {
            cells[middle] = Some((CUT_GLYPH, Tone::Dim));
        }
    }
    if let Some(at) = deadline.filter(|at| *at < cells.len() && cells[*at].is_none()) {
        cells[at] = Some((DEADLINE_GLYPH, Tone::Red));
    }
    // Marks of the same moment side by side, in time order, so that none hides
    // another: an exit at once on SIGTERM shows both.
    let mut marked = vec![false; cells.len()];
    for mark in &lane.marks {
        let mut at = layout.column(mark.at, scale).min(cells.len() - 1);
        while marked[at] && at + 1 < cells.len() {
            at += 1;
        }
        marked[at] = true;
        cells[at] = Some((mark_glyph(mark.kind), mark_tone(mark.kind)));
    }
    let drawn = cells
        .iter()
        .rposition(Option::is_some)
        .map_or(0, |at| at + 1);
    let mut bars = String::new();
    let mut run = String::new();
    let mut run_tone = None;
    for cell in &cells[..drawn] {
        let (glyph, tone) = cell.map_or((' ', None), |(g, t)| (g, Some(t)));
        if tone != run_tone {
            bars.push_str(&paint_run(&run, run_tone, style));
            run.clear();
            run_tone = tone;
        }
        run.push(glyph);
    }
    bars.push_str(&paint_run(&run, run_tone, style));
    let tag: String = lane.tag.chars().take(layout.tag_width).collect();
    let label_width = layout.label_width;
    let tag_width = layout.tag_width;
    let mut text = format!("  {:<label_width$} {:<tag_width$}  ", lane.label, tag);
    text.push_str(&bars);
    let Some(note) = &lane.note else {
        let _ = writeln!(out, "{}", text.trim_end());
        return;
    };
    let used = layout.indent + drawn;
    if used + 2 + note.chars().count() <= layout.width {
        let _ = writeln!(out, "{text}  {note}");
    } else {
        // Under the bar, where the axis starts, or further left for a long name.
        let _ = writeln!(out, "{}", text.trim_end());
        let room = layout.width.saturating_sub(wrap::longest_word(note));
        let indent = " ".repeat(layout.indent.min(room).max(4));
        let _ = writeln!(out, "{}", wrap::wrap(note, layout.width, &indent, &indent));
    }
}

fn paint_run(run: &str, tone: Option<Tone>, style: Style) -> String {
    match tone {
        Some(tone) => style.paint(run, tone),
        None => run.to_owned(),
    }
}

/// What each glyph drawn in the panel means, wrapped under the lanes.
fn legend(out: &mut String, panel: &Panel, layout: &Layout, style: Style) {
    let mut items: Vec<(String, String)> = Vec::new();
    for kind in panel.marks() {
        let glyph = mark_glyph(kind).to_string();
        items.push((
            style.paint(&glyph, mark_tone(kind)),
            kind.meaning().to_owned(),
        ));
    }
    for swatch in panel.swatches() {
        items.push((
            style.paint(&glyph(swatch).to_string(), tone(swatch)),
            swatch.meaning().to_owned(),
        ));
    }
    if panel.deadline.is_some() {
        items.push((
            style.paint(&DEADLINE_GLYPH.to_string(), Tone::Red),
            "grace period ends: SIGKILL".to_owned(),
        ));
    }
    if panel.scale.cuts().next().is_some() {
        items.push((
            style.paint(&CUT_GLYPH.to_string(), Tone::Dim),
            "axis cut".to_owned(),
        ));
    }
    // Under the axis, or further left when the longest item would not fit there.
    let longest = items
        .iter()
        .map(|(_, meaning)| 2 + meaning.chars().count())
        .max()
        .unwrap_or(0);
    let start = layout
        .indent
        .min(layout.width.saturating_sub(longest))
        .max(2);
    let indent = " ".repeat(start);
    let mut line = indent.clone();
    let mut column = start;
    for (glyph, meaning) in items {
        let length = 1 + 1 + meaning.chars().count();
        if column > start && column + 2 + length > layout.width {
            let _ = writeln!(out, "{line}");
            line = indent.clone();
            column = start;
        }
        if column > start {
            line.push_str("  ");
            column += 2;
        }
        let _ = write!(line, "{glyph} {meaning}");
        column += length;
    }
    if column > start {
        let _ = writeln!(out, "{line}");
    }
}

fn describe(event: &Event, analysis: &Analysis) -> String {
    let plan = &analysis.plan;
    let container = event
        .container
        .as_ref()
        .and_then(|name| plan.containers.iter().find(|c| &c.name == name));
    let unknown = |hook: Option<&crate::resolve::Hook>| {
        hook.is_some_and(|h| h.duration == HookDuration::Unknown)
    };
    match event.kind {
        EventKind::Started => "starts".to_owned(),
        EventKind::PostStartDone => {
            let hook = container.and_then(|c| c.post_start.as_ref());
            format!(
                "postStart `{}` returns{}",
                hook.map_or_else(String::new, describe::hook),
                if unknown(hook) {
                    " (its length is unknown: taken as instant)"
                } else {
                    ""
                }
            )
        }
        EventKind::PostStartFailed => {
            let hook = container.and_then(|c| c.post_start.as_ref());
            let unanswered = hook.is_some_and(|hook| hook.duration.is_unanswered());
            // A native sidecar's next container waits for it to run (§1.2).
            let next = if container.is_some_and(|c| c.is_native_sidecar()) {
                ", and nothing after it starts"
            } else {
                ", and starts the next container once it is gone"
            };
            format!(
                "postStart `{}` gives up{}; the kubelet kills it{next}",
                hook.map_or_else(String::new, describe::hook),
                if unanswered {
                    " (nothing answers its polls)"
                } else {
                    ""
                }
            )
        }
        EventKind::StartupProbePassed => "startupProbe passes".to_owned(),
        EventKind::StartupProbeFailed => {
            "startupProbe fails for good; the kubelet kills it".to_owned()
        }
        EventKind::Ready => "ready".to_owned(),
        EventKind::Exited => "exits".to_owned(),
        EventKind::PodReady if analysis.plan.reachable() => {
            "pod ready: joins the endpoints".to_owned()
        }
        EventKind::PodReady => "pod ready (nothing routes to it: no port, no Service)".to_owned(),
        EventKind::PreStopStarted => format!(
            "preStop `{}` starts",
            container
                .and_then(|c| c.pre_stop.as_ref())
                .map_or_else(String::new, describe::hook)
        ),
        EventKind::PreStopDone => {
            let hook = container.and_then(|c| c.pre_stop.as_ref());
            if let Some(miss) = hook.and_then(describe::drain_miss) {
                format!("preStop {miss}")
            } else if unknown(hook) {
                "preStop returns (its length is unknown: taken as instant)".to_owned()
            } else {
                "preStop returns".to_owned()
            }
        }
        EventKind::PreStopCut => {
            "the kubelet stops waiting for preStop (grace period used up)".to_owned()
        }
        EventKind::Sigterm => "SIGTERM".to_owned(),
        EventKind::SigtermDropped => match container.and_then(|c| c.dropped_signal.as_ref()) {
            Some(dropped) if dropped.shared_pids => format!(
                "SIGTERM ends `{}`, which is not its namespace's init, and its program dies with it: no shutdown",
                dropped.shell.shell
            ),
            Some(dropped) => format!(
                "SIGTERM, dropped: PID 1 is `{}`, with no handler for it; runs until SIGKILL",
                dropped.shell.shell
            ),
            None => "SIGTERM, dropped".to_owned(),
        },
        EventKind::ControllerSigterm => match container.and_then(|c| controller_kill(plan, c)) {
            Some((by, delivery)) => format!("{by} sends SIGTERM ({delivery})"),
            None => "SIGTERM from the workload's controller".to_owned(),
        },
        EventKind::ControllerSigtermFails => {
            match container.and_then(|c| controller_kill(plan, c)) {
                Some((by, delivery)) => {
                    format!("{by} cannot send SIGTERM ({delivery}: the exec fails): it runs on")
                }
                None => "the workload's controller cannot signal it: it runs on".to_owned(),
            }
        }
        EventKind::Sigkill => "SIGKILL".to_owned(),
        EventKind::InboundDrained => {
            "drains inbound connections (GOAWAY / Connection: close)".to_owned()
        }
        EventKind::InboundRefused => "refuses new inbound connections".to_owned(),
        EventKind::OutboundRefused => "the app's new outbound calls fail".to_owned(),
        EventKind::EndpointsRemoved => {
            "endpoint removal has propagated: no new requests".to_owned()
        }
        EventKind::WorkDone => "the work is done".to_owned(),
        EventKind::JobComplete => "the Job completes".to_owned(),
        EventKind::JobFails => "the pod fails: a stopped sidecar exited non-zero".to_owned(),
        EventKind::NeverCompletes => "the Job never completes".to_owned(),
    }
}

/// Who signals `container` once the work is done, and how the signal gets there, when
/// the workload's controller does (Argo Workflows).
fn controller_kill<'a>(
    plan: &'a crate::resolve::PodPlan,
    container: &crate::resolve::PlannedContainer,
) -> Option<(&'static str, &'a str)> {
    plan.work_stops().find_map(|(_, stop)| match &stop.method {
        StopMethod::Controller { by, delivery, .. } if stop.method.reaches_container(container) => {
            Some((*by, delivery.as_str()))
        }
        _ => None,
    })
}

fn list_events(out: &mut String, analysis: &Analysis, all: &[Event], phase: Phase, style: Style) {
    let phase_events: Vec<&Event> = all.iter().filter(|e| e.phase == phase).collect();
    let name_width = phase_events
        .iter()
        .filter_map(|e| e.container.as_ref().map(|c| c.chars().count()))
        .max()
        .unwrap_or(3)
        .max(3);
    for event in phase_events {
        let who = event.container.as_deref().unwrap_or("pod");
        let first = format!(
            "  {:>7}  {:<name_width$}  ",
            Millis(event.at_ms).to_string(),
            who
        );
        let indent = " ".repeat(2 + 7 + 2 + name_width + 2);
        line(out, style, &first, &indent, &describe(event, analysis));
    }
}

fn hazards(out: &mut String, analysis: &Analysis, style: Style) {
    if analysis.findings.is_empty() {
        let _ = writeln!(out, "\n{}", style.paint("No hazards found.", Tone::Bold));
        return;
    }
    let _ = writeln!(out, "\n{}", style.paint("Hazards:", Tone::Bold));
    for located in &analysis.findings {
        let finding = &located.finding;
        let suppressed = if located.suppressed.is_some() {
            " (suppressed)"
        } else {
            ""
        };
        let severity = style.paint(
            &format!("[{}]", finding.severity),
            Tone::of(finding.severity),
        );
        // Wrapped before the colour goes in, so that its codes take no columns.
        let heading = format!(
            "{} {} [{}]{suppressed} {}:{}:{}",
            finding.rule.id,
            finding.rule.name,
            finding.severity,
            located.file,
            located.primary.start.line,
            located.primary.start.column,
        );
        let heading = wrap::wrap(&heading, style.columns(), "  ", "    ");
        let tag = format!("[{}]", finding.severity);
        let _ = writeln!(out, "{}", heading.replacen(&tag, &severity, 1));
        line(out, style, "    ", "    ", &finding.message);
    }
}

fn assumptions(out: &mut String, analysis: &Analysis, style: Style) {
    let _ = writeln!(out, "\n{}", style.paint("Assumptions:", Tone::Bold));
    for assumption in facts::assumptions(&analysis.plan) {
        line(out, style, "  ", "    ", &assumption);
    }
}
