//! `explain --format svg`: the timeline as a picture for pull requests and docs.

use std::fmt::Write;

use super::lanes::{MarkKind, Panel, State, panels, tick_interval};
use crate::pipeline::Analysis;
use crate::time::Millis;

const LABEL_WIDTH: f64 = 190.0;
const AXIS_WIDTH: f64 = 560.0;
const NOTE_WIDTH: f64 = 170.0;
const LANE_HEIGHT: f64 = 20.0;
const MARGIN: f64 = 12.0;

/// One SVG document with every analysis stacked.
pub fn svg(analyses: &[Analysis]) -> String {
    let mut body = String::new();
    let mut y = MARGIN;
    for analysis in analyses {
        y = draw_analysis(&mut body, analysis, y) + MARGIN;
    }
    if analyses.is_empty() {
        let _ = write!(
            body,
            r#"<text x="{MARGIN}" y="{}" class="title">no workloads</text>"#,
            y + 14.0
        );
        y += 24.0;
    }
    let width = LABEL_WIDTH + AXIS_WIDTH + NOTE_WIDTH + 2.0 * MARGIN;
    format!(
        concat!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="11">"#,
            "\n<style>.title{{font-weight:bold;font-size:13px}}.panel{{font-weight:bold}}.tick{{fill:#666}}",
            ".starting{{fill:#f2c14e}}.running{{fill:#4f86c6}}.hook{{fill:#9b7fd1}}.draining{{fill:#7fb0d9}}.stopping{{fill:#a7c4e5}}",
            ".routed{{fill:#58b368}}.hazard{{fill:#d64545;fill-opacity:0.8}}.stuck{{fill:#999}}</style>\n",
            r#"<rect width="100%" height="100%" fill="white"/>"#,
            "\n{body}</svg>\n"
        ),
        w = width,
        h = y,
        body = body
    )
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn x_of(at: Millis, end: Millis) -> f64 {
    MARGIN + LABEL_WIDTH + AXIS_WIDTH * (at.0.max(0) as f64) / (end.0.max(1) as f64)
}

fn draw_analysis(out: &mut String, analysis: &Analysis, mut y: f64) -> f64 {
    let w = &analysis.plan.workload;
    let title = format!(
        "{} {}{} · {}",
        w.kind,
        w.namespace
            .as_ref()
            .map(|ns| format!("{ns}/"))
            .unwrap_or_default(),
        w.name,
        analysis.file
    );
    y += 14.0;
    let _ = writeln!(
        out,
        r#"<text x="{MARGIN}" y="{y}" class="title">{}</text>"#,
        escape(&title)
    );
    if let Some(rejection) = &analysis.plan.rejection {
        y += 18.0;
        let _ = writeln!(
            out,
            r#"<text x="{MARGIN}" y="{y}" class="tick">Not admitted: {} rejects the pod ({}), so it never starts</text>"#,
            escape(rejection.by),
            escape(&rejection.reason)
        );
    }
    for panel in panels(analysis) {
        y = draw_panel(out, &panel, y + 8.0);
    }
    y
}

fn draw_panel(out: &mut String, panel: &Panel, mut y: f64) -> f64 {
    y += 14.0;
    let _ = writeln!(
        out,
        r#"<text x="{MARGIN}" y="{y}" class="panel">{}</text>"#,
        escape(&panel.title)
    );
    y += 14.0;
    let interval = tick_interval(panel.end, 8);
    let mut tick = Millis::ZERO;
    while tick <= panel.end {
        let x = x_of(tick, panel.end);
        let _ = writeln!(
            out,
            r#"<text x="{x:.1}" y="{y}" class="tick">{}</text>"#,
            escape(&tick.to_string())
        );
        tick = tick + interval;
    }
    y += 4.0;
    let top = y;
    for lane in &panel.lanes {
        let label = format!("{} ({})", lane.label, lane.tag);
        let _ = writeln!(
            out,
            r#"<text x="{MARGIN}" y="{:.1}">{}</text>"#,
            y + LANE_HEIGHT * 0.7,
            escape(&label)
        );
        for segment in &lane.segments {
            let x0 = x_of(segment.from, panel.end);
            let x1 = x_of(segment.to.min(panel.end), panel.end).max(x0 + 1.0);
            let class = match segment.state {
                State::Starting => "starting",
                State::Running => "running",
                State::Hook => "hook",
                State::Draining => "draining",
                State::Stopping => "stopping",
                State::Routed => "routed",
                State::Hazard => "hazard",
                State::Stuck => "stuck",
            };
            let _ = writeln!(
                out,
                r#"<rect x="{x0:.1}" y="{:.1}" width="{:.1}" height="{:.1}" class="{class}"><title>{} {}–{}</title></rect>"#,
                y + 4.0,
                x1 - x0,
                LANE_HEIGHT - 8.0,
                escape(&lane.label),
                segment.from,
                segment.to
            );
        }
        for mark in &lane.marks {
            let x = x_of(mark.at, panel.end);
            let symbol = match mark.kind {
                MarkKind::Start => "●",
                MarkKind::Ready => "◆",
                MarkKind::Sigterm => "▼",
                MarkKind::Sigkill => "✕",
                MarkKind::Exit | MarkKind::Removed => "|",
            };
            let _ = writeln!(
                out,
                r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{symbol}</text>"#,
                y + LANE_HEIGHT * 0.7
            );
        }
        if let Some(note) = &lane.note {
            let _ = writeln!(
                out,
                r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
                MARGIN + LABEL_WIDTH + AXIS_WIDTH + 8.0,
                y + LANE_HEIGHT * 0.7,
                escape(note)
            );
        }
        y += LANE_HEIGHT;
    }
    let _ = writeln!(
        out,
        r##"<line x1="{0:.1}" y1="{top:.1}" x2="{0:.1}" y2="{y:.1}" stroke="#333" stroke-width="1"/>"##,
        MARGIN + LABEL_WIDTH
    );
    y
}
