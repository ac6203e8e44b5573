//! The timeline drawn in the terminal.

use std::fmt::Write;

use super::lanes::{Lane, MarkKind, Panel, State, panels, tick_interval};
use crate::pipeline::Analysis;
use crate::report::human::Style;
use crate::simulate::{Event, EventKind, Phase, events};
use crate::time::Millis;

/// Columns of the time axis.
const WIDTH: i64 = 60;

/// The whole explanation of one workload.
pub fn text(analysis: &Analysis, _style: Style) -> String {
    let mut out = String::new();
    header(&mut out, analysis);
    let all_events = events(&analysis.plan, &analysis.timeline);
    for panel in panels(analysis) {
        out.push('\n');
        draw_panel(&mut out, &panel);
        list_events(&mut out, analysis, &all_events, panel.phase);
    }
    hazards(&mut out, analysis);
    assumptions(&mut out, analysis);
    out
}

fn header(out: &mut String, analysis: &Analysis) {
    let plan = &analysis.plan;
    let w = &plan.workload;
    let name = match &w.namespace {
        Some(ns) => format!("{ns}/{}", w.name),
        None => w.name.clone(),
    };
    let _ = write!(
        out,
        "{} {name} · {} (document {})",
        w.kind, analysis.file, analysis.document
    );
    if let Some(origin) = &analysis.origin {
        let _ = write!(out, " from {origin}");
    }
    out.push('\n');
    for mesh in &plan.meshes {
        let mesh_name = capitalize(mesh.mesh);
        let _ = match &mesh.injection {
            crate::resolve::Injection::InManifest => {
                writeln!(out, "  {mesh_name}: {} proxy, already injected", mesh.mode)
            }
            crate::resolve::Injection::WillInject { .. } => writeln!(
                out,
                "  {mesh_name}: {} proxy, added by the injector ({})",
                mesh.mode,
                mesh.reasons.join("; ")
            ),
            crate::resolve::Injection::NotInjected { reason } => {
                writeln!(out, "  {mesh_name}: not injected ({reason})")
            }
        };
    }
    let _ = writeln!(
        out,
        "  Kubernetes {} ({}) · grace period {} s ({})",
        plan.kubernetes.value,
        plan.kubernetes.source,
        plan.grace_period.value,
        plan.grace_period.source
    );
    if let Some(rejection) = &plan.rejection {
        let _ = writeln!(
            out,
            "  Not admitted: {} rejects the pod ({}), so it never starts",
            rejection.by, rejection.reason
        );
    }
}

fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn column(at: Millis, end: Millis) -> usize {
    let end = i128::from(end.0.max(1));
    (i128::from(at.0).clamp(0, end) * i128::from(WIDTH) / end) as usize
}

fn glyph(state: State) -> char {
    match state {
        State::Starting => '░',
        State::Running => '━',
        State::Hook => '▒',
        State::Draining => '┄',
        State::Stopping => '─',
        State::Routed => '═',
        State::Hazard => '▓',
        State::Stuck => '┅',
    }
}

fn mark_glyph(kind: MarkKind) -> char {
    match kind {
        MarkKind::Start => '●',
        MarkKind::Ready => '◆',
        MarkKind::Sigterm => '▼',
        MarkKind::Sigkill => '✕',
        MarkKind::Exit | MarkKind::Removed => '┤',
    }
}

fn draw_panel(out: &mut String, panel: &Panel) {
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
    let _ = writeln!(out, "{}", panel.title);
    // Tick labels on the axis.
    let interval = tick_interval(panel.end, 6);
    let mut axis = vec![' '; WIDTH as usize + 12];
    let mut tick = Millis::ZERO;
    while tick <= panel.end {
        let label = tick.to_string();
        let at = column(tick, panel.end);
        if at + label.len() <= axis.len() {
            for (i, c) in label.chars().enumerate() {
                axis[at + i] = c;
            }
        }
        tick = tick + interval;
    }
    let _ = writeln!(
        out,
        "{}{}",
        " ".repeat(indent),
        axis.iter().collect::<String>().trim_end()
    );
    for lane in &panel.lanes {
        draw_lane(out, lane, panel.end, label_width, tag_width);
    }
    let _ = writeln!(
        out,
        "{}● start  ◆ ready  ▒ hook  ━ running  ┄ draining  ─ stopping  ▼ SIGTERM  ✕ SIGKILL  ┤ exit  ═ routed  ▓ hazard",
        " ".repeat(indent)
    );
}

fn draw_lane(out: &mut String, lane: &Lane, end: Millis, label_width: usize, tag_width: usize) {
    let mut cells = vec![' '; WIDTH as usize + 1];
    for segment in &lane.segments {
        let from = column(segment.from, end);
        let to = column(segment.to, end).max(from + 1).min(cells.len());
        for cell in &mut cells[from..to] {
            *cell = glyph(segment.state);
        }
    }
    for mark in &lane.marks {
        let at = column(mark.at, end).min(cells.len() - 1);
        cells[at] = mark_glyph(mark.kind);
    }
    let tag: String = lane.tag.chars().take(tag_width).collect();
    let mut line = format!(
        "  {:<label_width$} {:<tag_width$}  {}",
        lane.label,
        tag,
        cells.iter().collect::<String>()
    );
    line = line.trim_end().to_owned();
    if let Some(note) = &lane.note {
        line.push_str("  ");
        line.push_str(note);
    }
    let _ = writeln!(out, "{line}");
}

fn describe(event: &Event, analysis: &Analysis) -> Option<String> {
    let plan = &analysis.plan;
    let container = event
        .container
        .as_ref()
        .and_then(|name| plan.containers.iter().find(|c| &c.name == name));
    let text = match event.kind {
        EventKind::Started => "starts".to_owned(),
        EventKind::PostStartDone => format!(
            "postStart `{}` returns",
            container
                .and_then(|c| c.post_start.as_ref())
                .map_or("", |h| h.summary.as_str())
        ),
        EventKind::PostStartFailed => {
            "postStart gives up; the kubelet kills it and starts the next container".to_owned()
        }
        EventKind::StartupProbePassed => "startupProbe passes".to_owned(),
        EventKind::StartupProbeFailed => {
            "startupProbe fails for good; the kubelet kills it".to_owned()
        }
        EventKind::Ready => "ready".to_owned(),
        EventKind::Exited => "exits".to_owned(),
        EventKind::PodReady => "pod ready: joins the endpoints".to_owned(),
        EventKind::PreStopStarted => format!(
            "preStop `{}` starts",
            container
                .and_then(|c| c.pre_stop.as_ref())
                .map_or("", |h| h.summary.as_str())
        ),
        EventKind::PreStopDone => "preStop returns".to_owned(),
        EventKind::PreStopCut => {
            "the kubelet stops waiting for preStop (grace period used up)".to_owned()
        }
        EventKind::Sigterm => "SIGTERM".to_owned(),
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
    };
    Some(text)
}

fn list_events(out: &mut String, analysis: &Analysis, all: &[Event], phase: Phase) {
    let phase_events: Vec<&Event> = all.iter().filter(|e| e.phase == phase).collect();
    let name_width = phase_events
        .iter()
        .filter_map(|e| e.container.as_ref().map(|c| c.chars().count()))
        .max()
        .unwrap_or(3)
        .max(3);
    for event in phase_events {
        let Some(text) = describe(event, analysis) else {
            continue;
        };
        let who = event.container.as_deref().unwrap_or("pod");
        let _ = writeln!(
            out,
            "  {:>7}  {:<name_width$}  {text}",
            Millis(event.at_ms).to_string(),
            who
        );
    }
}

fn hazards(out: &mut String, analysis: &Analysis) {
    if analysis.findings.is_empty() {
        let _ = writeln!(out, "\nNo hazards found.");
        return;
    }
    let _ = writeln!(out, "\nHazards:");
    for located in &analysis.findings {
        let finding = &located.finding;
        let suppressed = if located.suppressed.is_some() {
            " (suppressed)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "  {} {} [{}]{suppressed} {}:{}:{}\n    {}",
            finding.rule.id,
            finding.rule.name,
            finding.severity,
            located.file,
            located.primary.start.line,
            located.primary.start.column,
            finding.message
        );
    }
}

fn assumptions(out: &mut String, analysis: &Analysis) {
    let plan = &analysis.plan;
    let _ = writeln!(out, "\nAssumptions:");
    for (name, value) in plan.scenario.entries() {
        if let Some(value) = value {
            let _ = writeln!(out, "  {name}: {} ({})", value.value, value.source);
        } else {
            let _ = writeln!(out, "  {name}: unset");
        }
    }
    for assumption in &plan.assumptions {
        let _ = writeln!(out, "  {}", assumption.text);
    }
}
