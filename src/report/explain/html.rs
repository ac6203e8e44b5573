//! `explain --format html`: one self-contained page for a reviewer's browser (a CI
//! artifact): every workload's timeline drawn, each panel with the findings whose
//! hazard bars it shows beside it, the assumptions, and a filter by severity.
//!
//! Nothing is fetched: the styles are inline, the drawings are inline SVG, there is no
//! script (the filter is checkboxes and CSS `:has()`), and the fonts are the reader's.
//! A workload's drawings and findings ([`workload_body`]) are drawn the same way in
//! `lint --format html`'s page.

use std::collections::HashSet;
use std::fmt::Write;
use std::sync::Arc;

use super::facts;
use super::lanes::{Panel, panels};
use super::svg::{self, Geometry, Legend, escape};
use crate::pipeline::located::{Analysis, Located};
use crate::report::assumptions;
use crate::rules::Severity;
use crate::settings::Settings;

/// The time axis of each drawing, in pixels: narrower than a picture on its own, to
/// leave room beside it for the findings.
const AXIS_WIDTH: f64 = 440.0;

/// The styles of a workload's drawings and findings, on any page that shows them.
pub(crate) const WORKLOAD_STYLE: &str = r#"
.panel-row{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start;margin-top:10px}
.drawing{flex:0 1 auto;max-width:100%;overflow-x:auto}
.drawing svg{display:block}
.findings{flex:1 1 240px;min-width:240px;display:flex;flex-direction:column;gap:8px}
.finding{border-left:4px solid var(--muted);background:#f6f8fa;padding:6px 10px;border-radius:0 6px 6px 0}
.finding.sev-error{border-color:var(--error)}
.finding.sev-warning{border-color:var(--warning)}
.finding.sev-info{border-color:var(--info)}
.finding h3{font-size:13px;margin:0}
.finding p{margin:4px 0}
.finding .where{color:var(--muted);font-size:12px;word-break:break-all}
.finding pre{white-space:pre-wrap;margin:4px 0;font-size:12px}
.badge{display:inline-block;border-radius:10px;padding:0 7px;font-size:12px;color:#fff;background:var(--muted)}
.badge.error{background:var(--error)}.badge.warning{background:var(--warning)}.badge.info{background:var(--info)}
.assumptions{margin:10px 0 0;color:var(--muted);font-size:13px}
.origin,.facts{color:var(--muted);margin:2px 0}
g.lane:target rect{stroke:#000;stroke-width:2}
.empty{color:var(--muted)}
"#;

/// The page's colours: the severities' as the drawings' hazard bars have them, dark
/// enough for white text on a badge.
pub(crate) const ROOT_STYLE: &str =
    ":root{color-scheme:light;--error:#b3261e;--warning:#8a5a00;--info:#4f4f9a;--muted:#57606a}";

const PAGE_STYLE: &str = r#"
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI","DejaVu Sans",sans-serif;color:#1f2328;background:#f6f8fa}
header{position:sticky;top:0;z-index:1;background:#fff;border-bottom:1px solid #d0d7de;padding:12px 24px}
h1{font-size:18px;margin:0 0 4px}
h2{font-size:16px;margin:0}
.run{color:var(--muted);margin:2px 0}
.filter{display:flex;flex-wrap:wrap;gap:14px;align-items:center;margin-top:8px}
.filter label{cursor:pointer;user-select:none}
.legend svg{display:block;max-width:100%;height:auto;margin-top:6px}
main{padding:16px 24px;display:flex;flex-direction:column;gap:16px}
.workload{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:14px 18px}
body:has(#show-error:not(:checked)) .sev-error,
body:has(#show-warning:not(:checked)) .sev-warning,
body:has(#show-info:not(:checked)) .sev-info,
body:has(#show-suppressed:not(:checked)) .suppressed,
body:has(#show-clean:not(:checked)) .workload.clean{display:none}
"#;

/// The page for every analysis.
pub fn html(analyses: &[Analysis], settings: &Settings) -> String {
    let mut index = HtmlIndex::default();
    for analysis in analyses {
        index.add(analysis);
    }
    let mut page = index.start(settings);
    for analysis in analyses {
        page.push_str(&index.workload(analysis));
    }
    page.push_str(index.end());
    page
}

/// What the page's header says of the whole run — how many workloads from how many
/// inputs, the findings counted by severity, the legend — taken one workload at a time
/// ([`HtmlIndex::add`]), so that the page can then be written one workload at a time
/// ([`HtmlIndex::start`], [`HtmlIndex::workload`], [`HtmlIndex::end`]) without holding
/// the run: the page holds its index, never every drawing.
#[derive(Debug, Default)]
pub struct HtmlIndex {
    workloads: usize,
    /// Files, streams, renderings or objects read from a cluster.
    inputs: HashSet<Arc<str>>,
    /// Unsuppressed findings by severity: errors, warnings, infos.
    counts: [usize; 3],
    suppressed: usize,
    clean: usize,
    legend: Legend,
    /// The index of the next workload written.
    next: usize,
}

impl HtmlIndex {
    /// Counts one workload in.
    pub fn add(&mut self, analysis: &Analysis) {
        self.workloads += 1;
        if !self.inputs.contains(&analysis.file) {
            self.inputs.insert(Arc::clone(&analysis.file));
        }
        for located in &analysis.findings {
            if located.suppressed.is_some() {
                self.suppressed += 1;
            } else {
                self.counts[severity_index(located.finding.severity)] += 1;
            }
        }
        self.clean += usize::from(is_clean(analysis));
        panels(analysis)
            .iter()
            .for_each(|panel| self.legend.add(panel));
    }

    /// The page's head and header: counts, filter and legend.
    pub fn start(&self, settings: &Settings) -> String {
        let counts = self.counts;
        let mut page = String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n");
        page.push_str("<meta charset=\"utf-8\">\n");
        page.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
        let _ = writeln!(
            page,
            "<title>{} explain: {}</title>",
            crate::PLUGIN_NAME,
            plural(self.workloads, "workload")
        );
        let _ = writeln!(
            page,
            "<style>{ROOT_STYLE}{PAGE_STYLE}{WORKLOAD_STYLE}{}</style>\n</head>\n<body>\n<header>",
            svg::STYLE
        );
        let _ = writeln!(
            page,
            "<h1>Start-up and shutdown timelines</h1>\n<p class=\"run\">{} from {} · {} {}</p>",
            plural(self.workloads, "workload"),
            plural(self.inputs.len(), "input"),
            crate::PLUGIN_NAME,
            env!("CARGO_PKG_VERSION")
        );
        let _ = writeln!(
            page,
            "<p class=\"run\">{}</p>",
            escape(&format!(
                "Assumed: {}",
                assumptions::items(settings).join(" · ")
            ))
        );
        page.push_str("<form class=\"filter\" aria-label=\"Filter\"><strong>Show</strong>\n");
        for (id, label, count) in [
            ("error", "errors", counts[0]),
            ("warning", "warnings", counts[1]),
            ("info", "infos", counts[2]),
            ("suppressed", "suppressed", self.suppressed),
            ("clean", "workloads without findings", self.clean),
        ] {
            let _ = writeln!(
                page,
                "<label><input type=\"checkbox\" id=\"show-{id}\" checked> {label} ({count})</label>"
            );
        }
        page.push_str("</form>\n<div class=\"legend\">");
        let legend_width = 900.0;
        let mut legend = String::new();
        let height = self.legend.draw(&mut legend, legend_width, 0.0);
        if height > 0.0 {
            page.push_str(&svg::element(legend_width, height, &legend));
        }
        page.push_str("</div>\n</header>\n<main>\n");
        if self.workloads == 0 {
            page.push_str("<p class=\"empty\">No workloads matched.</p>\n");
        }
        page
    }

    /// The next workload's section, in the order [`HtmlIndex::add`] took them.
    pub fn workload(&mut self, analysis: &Analysis) -> String {
        let mut page = String::new();
        workload(&mut page, self.next, analysis, &panels(analysis));
        self.next += 1;
        page
    }

    /// What closes the page.
    pub fn end(&self) -> &'static str {
        "</main>\n</body>\n</html>\n"
    }
}

fn workload(page: &mut String, index: usize, analysis: &Analysis, panels: &[Panel]) {
    let clean = if is_clean(analysis) { " clean" } else { "" };
    let _ = writeln!(
        page,
        "<section class=\"workload{clean}\" id=\"w{index}\">\n<h2>{}</h2>",
        escape(&crate::report::subject(&analysis.plan.workload))
    );
    let _ = writeln!(
        page,
        "<p class=\"origin\">{}</p>",
        escape(&facts::place(analysis))
    );
    let ids = format!("w{index}-f");
    let mut draw = |page: &mut String, panel: &Panel, geometry: &Geometry| {
        let drawing = svg::panel_drawing(panel, geometry, Some(&ids));
        page.push_str(&svg::element(drawing.width, drawing.height, &drawing.body));
        true
    };
    workload_body(page, &format!("w{index}"), analysis, panels, &mut draw);
    page.push_str("</section>\n");
}

/// Draws one panel of a workload into a page; true when its hazard lanes have the ids
/// a finding's card can link to.
pub(crate) type DrawPanel<'a> = dyn FnMut(&mut String, &Panel, &Geometry) -> bool + 'a;

/// A workload's facts, each panel's drawing (by `draw`) with the findings whose hazard
/// bars it shows beside it, the other findings, and the assumptions. Its findings link
/// to hazard lanes with ids after `id`.
pub(crate) fn workload_body(
    page: &mut String,
    id: &str,
    analysis: &Analysis,
    panels: &[Panel],
    draw: &mut DrawPanel<'_>,
) {
    let plan = &analysis.plan;
    for fact in facts::header(plan, &analysis.timeline) {
        let _ = writeln!(page, "<p class=\"facts\">{}</p>", escape(&fact));
    }
    let geometry = Geometry::of(panels, AXIS_WIDTH);
    let mut placed = vec![false; analysis.findings.len()];
    for panel in panels {
        page.push_str("<div class=\"panel-row\">\n<div class=\"drawing\">");
        let linked = draw(page, panel, &geometry);
        page.push_str("</div>\n<div class=\"findings\">\n");
        for finding in panel
            .lanes
            .iter()
            .filter_map(|lane| lane.hazard)
            .map(|h| h.finding)
        {
            placed[finding] = true;
            card(page, id, finding, &analysis.findings[finding], linked);
        }
        page.push_str("</div>\n</div>\n");
    }
    let others: Vec<usize> = (0..analysis.findings.len())
        .filter(|f| !placed[*f])
        .collect();
    if !others.is_empty() {
        page.push_str("<div class=\"panel-row\"><div class=\"findings\">\n");
        for finding in others {
            card(page, id, finding, &analysis.findings[finding], false);
        }
        page.push_str("</div></div>\n");
    }
    if analysis.findings.is_empty() {
        page.push_str("<p class=\"empty\">No hazards found.</p>\n");
    }
    // One paragraph: a page may hold thousands of workloads.
    let _ = writeln!(
        page,
        "<p class=\"assumptions\"><strong>Assumptions:</strong> {}</p>",
        escape(&facts::assumptions(plan).join(" · "))
    );
}

/// One finding beside the drawing; `on_timeline` when a hazard bar shows it.
fn card(page: &mut String, workload: &str, index: usize, located: &Located, on_timeline: bool) {
    let finding = &located.finding;
    let severity = finding.severity.as_str();
    let suppressed = if located.suppressed.is_some() {
        " suppressed"
    } else {
        ""
    };
    let _ = writeln!(
        page,
        "<article class=\"finding sev-{severity}{suppressed}\" data-finding=\"{index}\">"
    );
    let link = if on_timeline {
        format!(" <a href=\"#{workload}-f{index}\">on the timeline</a>")
    } else {
        String::new()
    };
    let _ = writeln!(
        page,
        "<h3><span class=\"badge {severity}\">{severity}</span> {} {}{link}</h3>",
        finding.rule.id, finding.rule.name
    );
    let _ = writeln!(page, "<p>{}</p>", escape(&finding.message));
    let evidence = &finding.evidence;
    if !evidence.facts.is_empty() || !evidence.proven() {
        let _ = writeln!(page, "<ul class=\"evidence\">");
        for fact in &evidence.facts {
            let _ = writeln!(page, "<li class=\"fact\">{}</li>", escape(fact));
        }
        for premise in &evidence.premises {
            let _ = writeln!(
                page,
                "<li class=\"premise\">assumed: {} <span class=\"settle\">({})</span></li>",
                escape(&premise.text()),
                escape(&premise.settle)
            );
        }
        let _ = writeln!(page, "</ul>");
    }
    let mut place = format!(
        "{}:{}:{}",
        located.file, located.primary.start.line, located.primary.start.column
    );
    if let Some(origin) = &located.origin {
        let _ = write!(place, " (from {origin})");
    }
    let _ = writeln!(page, "<p class=\"where\">{}</p>", escape(&place));
    if !finding.help.is_empty() {
        let _ = writeln!(page, "<pre>Fix: {}</pre>", escape(&finding.help));
    }
    if let Some(reason) = &located.suppressed {
        let _ = writeln!(
            page,
            "<p class=\"where\">suppressed: {}</p>",
            escape(reason)
        );
    }
    page.push_str("</article>\n");
}

fn is_clean(analysis: &Analysis) -> bool {
    analysis.findings.iter().all(|f| f.suppressed.is_some())
}

fn severity_index(severity: Severity) -> usize {
    match severity {
        Severity::Error => 0,
        Severity::Warning => 1,
        Severity::Info => 2,
    }
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}
