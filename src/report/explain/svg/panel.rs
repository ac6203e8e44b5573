//! A workload's drawing: its title, then each panel with its ticks, time axis,
//! deadline and cuts, and each lane with its bars, marks and note.

use std::fmt::Write;

use super::super::facts;
use super::super::lanes::{Lane, Panel};
use super::super::scale::Scale;
use super::geometry::{
    BAR_HEIGHT, BAR_TOP, CUT_WIDTH, FONT, Geometry, LANE_HEIGHT, MARGIN, TICK_ROOM, TITLE_FONT,
    lane_label, text_width,
};
use super::markup::escape;
use super::shapes::{cut_shape, mark_shape};
use crate::pipeline::located::Analysis;

pub(super) fn draw_analysis(
    out: &mut String,
    analysis: &Analysis,
    panels: &[Panel],
    geometry: &Geometry,
    mut y: f64,
) -> f64 {
    y += TITLE_FONT;
    let _ = writeln!(
        out,
        r#"<g class="workload"><text x="{MARGIN}" y="{y}" class="title">{}</text>"#,
        escape(&facts::title(analysis))
    );
    if let Some(rejection) = &analysis.plan.rejection() {
        y += 18.0;
        let _ = writeln!(
            out,
            r#"<text x="{MARGIN}" y="{y}" class="caption">Not admitted: {} rejects the pod ({}), so it never starts</text>"#,
            escape(&crate::rules::rejection::rejector(rejection.by)),
            escape(&crate::rules::rejection::reason(&rejection.cause))
        );
    }
    for panel in panels {
        y = draw_panel(out, panel, geometry, y + 6.0, None);
    }
    let _ = writeln!(out, "</g>");
    y
}

/// One panel from `y` down, hazard lanes with ids after `ids`; returns the y below it.
pub(super) fn draw_panel(
    out: &mut String,
    panel: &Panel,
    geometry: &Geometry,
    mut y: f64,
    ids: Option<&str>,
) -> f64 {
    let scale = &panel.scale;
    y += 16.0;
    let _ = writeln!(
        out,
        r#"<g class="timeline-panel"><text x="{MARGIN}" y="{y}" class="panel">{}</text>"#,
        escape(&panel.title)
    );
    for caption in panel.captions() {
        y += 16.0;
        let _ = writeln!(
            out,
            r#"<text x="{MARGIN}" y="{y}" class="caption">{}</text>"#,
            escape(&caption)
        );
    }
    y += 16.0;
    let top = y + 4.0;
    let bottom = top + LANE_HEIGHT * panel.lanes.len() as f64;
    let _ = writeln!(out, r#"<g class="ticks">"#);
    // Tick labels where they do not crowd each other: a piece of a cut axis is labelled
    // even when it is short.
    let mut right = f64::NEG_INFINITY;
    let mut grid = String::new();
    for tick in scale.ticks(8) {
        let x = geometry.x_of(tick, scale);
        let label = tick.to_string();
        let half = text_width(&label, FONT) / 2.0;
        if x - half < right + TICK_ROOM {
            continue;
        }
        right = x + half;
        let _ = writeln!(
            out,
            r#"<text x="{x:.1}" y="{y}" class="tick" data-at="{}">{}</text>"#,
            tick.0,
            escape(&label)
        );
        let _ = write!(grid, "M{x:.1} {top:.1}V{bottom:.1}");
    }
    let _ = writeln!(out, r#"<path d="{grid}" class="grid"/></g>"#);
    // The time axis itself, from 0 to the panel's end, one line per piece of a cut
    // axis: every bar lies along it.
    for piece in scale.pieces() {
        let _ = writeln!(
            out,
            r#"<line x1="{:.1}" y1="{top:.1}" x2="{:.1}" y2="{top:.1}" class="timeline" data-from="{}" data-to="{}"/>"#,
            geometry.x_of(piece.from, scale),
            geometry.x_of(piece.to, scale),
            piece.from.0,
            piece.to.0
        );
    }
    if let Some(deadline) = panel.deadline {
        let x = geometry.x_of(deadline, scale);
        let _ = writeln!(
            out,
            r#"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{bottom:.1}" class="deadline" data-at="{}"><title>grace period ends at {deadline}: SIGKILL</title></line>"#,
            top - 6.0,
            deadline.0
        );
    }
    y = top;
    for lane in &panel.lanes {
        draw_lane(out, lane, scale, geometry, y, ids);
        y += LANE_HEIGHT;
    }
    for (index, (from, to)) in scale.cuts().enumerate() {
        let (x0, x1) = scale.break_at(index, geometry.axis, CUT_WIDTH);
        let x0 = geometry.axis_start() + x0;
        let x1 = geometry.axis_start() + x1;
        let _ = writeln!(
            out,
            r#"<g class="cut-mark" data-from="{}" data-to="{}"><title>axis cut: {from}–{to} not drawn, no event falls there</title>{}<text x="{:.1}" y="{:.1}" class="tick">≈</text></g>"#,
            from.0,
            to.0,
            cut_shape(x0 + 3.0, x1 - 3.0, top - 6.0, y),
            (x0 + x1) / 2.0,
            top - 8.0,
        );
    }
    let axis = geometry.axis_start();
    let _ = writeln!(
        out,
        r#"<line x1="{axis:.1}" y1="{top:.1}" x2="{axis:.1}" y2="{y:.1}" class="axis"/></g>"#
    );
    y
}

fn draw_lane(
    out: &mut String,
    lane: &Lane,
    scale: &Scale,
    geometry: &Geometry,
    top: f64,
    ids: Option<&str>,
) {
    let baseline = top + BAR_TOP + BAR_HEIGHT / 2.0 + FONT * 0.35;
    match lane.hazard {
        Some(hazard) => {
            let id = ids
                .map(|prefix| format!(r#" id="{prefix}{}""#, hazard.finding))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                r#"<g class="lane hazard-lane sev-{}{}"{id}>"#,
                hazard.severity,
                if hazard.suppressed { " suppressed" } else { "" }
            );
        }
        None => {
            let _ = writeln!(out, r#"<g class="lane">"#);
        }
    }
    let _ = writeln!(
        out,
        r#"<text x="{MARGIN}" y="{baseline:.1}">{}</text>"#,
        escape(&lane_label(lane))
    );
    for segment in &lane.segments {
        let x0 = geometry.x_of(segment.from, scale);
        let x1 = geometry.x_of(segment.to, scale).max(x0 + 1.0);
        let _ = writeln!(
            out,
            r#"<rect x="{x0:.1}" y="{:.1}" width="{:.1}" height="{BAR_HEIGHT}" class="bar {}" data-from="{}" data-to="{}"><title>{} {}: {}–{}</title></rect>"#,
            top + BAR_TOP,
            x1 - x0,
            lane.swatch(segment).class(),
            segment.from.0,
            segment.to.0,
            escape(&lane.label),
            segment.state.meaning(),
            segment.from,
            segment.to
        );
    }
    for mark in &lane.marks {
        let x = geometry.x_of(mark.at, scale);
        let _ = writeln!(out, "{}", mark_shape(mark.kind, x, top, Some(mark.at)));
    }
    if let Some(note) = &lane.note {
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{baseline:.1}">{}</text>"#,
            geometry.note_start(),
            escape(note)
        );
    }
    let _ = writeln!(out, "</g>");
}
