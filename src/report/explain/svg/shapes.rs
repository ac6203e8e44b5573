//! The shapes of a picture's point marks and axis cuts, shared by the lanes and the
//! legend so that the legend shows each exactly as drawn.

use super::super::lanes::MarkKind;
use super::geometry::{BAR_HEIGHT, BAR_TOP};
use crate::time::Millis;

/// A diamond mark of half-width `half` centred on (`x`, `middle`), of class `class`.
fn diamond(x: f64, middle: f64, half: f64, class: &str, data: &str) -> String {
    format!(
        r#"<polygon points="{:.1},{middle:.1} {x:.1},{:.1} {:.1},{middle:.1} {x:.1},{:.1}" class="mark {class}"{data}/>"#,
        x - half,
        middle - half,
        x + half,
        middle + half
    )
}

/// The shape of a mark at `x` on a lane whose top is `top`. Signals sit above the
/// bar, pointing at it, so that an exit at the same moment stays visible on the bar.
pub(super) fn mark_shape(kind: MarkKind, x: f64, top: f64, at: Option<Millis>) -> String {
    let middle = top + BAR_TOP + BAR_HEIGHT / 2.0;
    let data = at
        .map(|at| format!(r#" data-at="{}""#, at.0))
        .unwrap_or_default();
    match kind {
        MarkKind::Start => {
            format!(r#"<circle cx="{x:.1}" cy="{middle:.1}" r="4" class="mark start"{data}/>"#)
        }
        MarkKind::Ready => diamond(x, middle, 5.5, "ready", &data),
        MarkKind::Removed => diamond(x, middle, 5.0, "removed", &data),
        MarkKind::Sigterm => format!(
            r#"<polygon points="{:.1},{:.1} {:.1},{:.1} {x:.1},{:.1}" class="mark sigterm"{data}/>"#,
            x - 5.0,
            top,
            x + 5.0,
            top,
            top + BAR_TOP
        ),
        MarkKind::Sigkill => format!(
            r#"<path d="M{:.1} {:.1}L{:.1} {:.1}M{:.1} {:.1}L{:.1} {:.1}" class="kill"{data}/>"#,
            x - 4.5,
            middle - 4.5,
            x + 4.5,
            middle + 4.5,
            x - 4.5,
            middle + 4.5,
            x + 4.5,
            middle - 4.5
        ),
        MarkKind::Exit => {
            let (y1, y2) = (top + BAR_TOP - 3.0, top + BAR_TOP + BAR_HEIGHT + 3.0);
            format!(
                r#"<line x1="{x:.1}" y1="{y1:.1}" x2="{x:.1}" y2="{y2:.1}" class="halo"/><line x1="{x:.1}" y1="{y1:.1}" x2="{x:.1}" y2="{y2:.1}" class="exit"{data}/>"#
            )
        }
        MarkKind::UnknownLength => format!(
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" class="unknown"{data}>?</text>"#,
            x + 8.0,
            top + BAR_TOP + 1.0
        ),
    }
}

/// The break of a cut axis between `x0` and `x1`, from `y0` down to `y1`: a white band
/// between two slanted edges.
pub(super) fn cut_shape(x0: f64, x1: f64, y0: f64, y1: f64) -> String {
    let slant = 4.0;
    format!(
        concat!(
            r#"<polygon points="{a:.1},{y0:.1} {b:.1},{y0:.1} {c:.1},{y1:.1} {d:.1},{y1:.1}" class="cut"/>"#,
            r#"<line x1="{a:.1}" y1="{y0:.1}" x2="{d:.1}" y2="{y1:.1}" class="cut-edge"/>"#,
            r#"<line x1="{b:.1}" y1="{y0:.1}" x2="{c:.1}" y2="{y1:.1}" class="cut-edge"/>"#,
        ),
        a = x0 + slant,
        b = x1 + slant,
        c = x1 - slant,
        d = x0 - slant,
        y0 = y0,
        y1 = y1,
    )
}
