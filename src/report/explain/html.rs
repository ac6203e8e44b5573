//! `explain --format html`: one self-contained page for a reviewer's browser (a CI
//! artifact): every workload's timeline drawn, each panel with the findings whose
//! hazard bars it shows beside it, the assumptions, and a filter by severity.
//!
//! Nothing is fetched: the styles are inline, the drawings are inline SVG, there is no
//! script (the filter is checkboxes and CSS `:has()`), and the fonts are the reader's.

use std::collections::HashSet;
use std::fmt::Write;
use std::sync::Arc;

use super::facts;
use super::lanes::{MarkKind, Panel, State, panels};
use super::svg::{self, Geometry, escape};
use crate::report::assumptions;
use crate::report::located::{Analysis, Located};
use crate::rules::Severity;
use crate::settings::Settings;

/// The time axis of each drawing, in pixels: narrower than a picture on its own, to
/// leave room beside it for the findings.
const AXIS_WIDTH: f64 = 440.0;

const PAGE_STYLE: &str = r#"
:root{color-scheme:light;--error:#c62828;--warning:#b26a00;--info:#1565c0;--muted:#5f6368}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI","DejaVu Sans",sans-serif;color:#1f2328;background:#f6f8fa}
header{position:sticky;top:0;z-index:1;background:#fff;border-bottom:1px solid #d0d7de;padding:12px 24px}
h1{font-size:18px;margin:0 0 4px}
h2{font-size:16px;margin:0}
.run,.origin,.facts{color:var(--muted);margin:2px 0}
.filter{display:flex;flex-wrap:wrap;gap:14px;align-items:center;margin-top:8px}
.filter label{cursor:pointer;user-select:none}
.legend svg{display:block;max-width:100%;height:auto;margin-top:6px}
main{padding:16px 24px;display:flex;flex-direction:column;gap:16px}
.workload{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:14px 18px}
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
.assumptions{margin-top:10px;color:var(--muted);font-size:13px}
.assumptions ul{margin:4px 0;padding-left:20px}
g.lane:target rect{stroke:#000;stroke-width:2}
.empty{color:var(--muted)}
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
    page.push_str(&index.end());
    page
}

/// What the page's header says of the whole run — how many workloads from how many
/// files, the findings counted by severity, the legend — taken one workload at a time
/// ([`HtmlIndex::add`]), so that the page can then be written one workload at a time
/// ([`HtmlIndex::start`], [`HtmlIndex::workload`], [`HtmlIndex::end`]) without holding
/// the run: the page holds its index, never every drawing.
#[derive(Debug, Default)]
pub struct HtmlIndex {
    workloads: usize,
    files: HashSet<Arc<str>>,
    /// Unsuppressed findings by severity: errors, warnings, infos.
    counts: [usize; 3],
    suppressed: usize,
    clean: usize,
    states: Vec<State>,
    marks: Vec<MarkKind>,
    /// The index of the next workload written.
    next: usize,
}

impl HtmlIndex {
    /// Counts one workload in.
    pub fn add(&mut self, analysis: &Analysis) {
        self.workloads += 1;
        if !self.files.contains(&analysis.file) {
            self.files.insert(Arc::clone(&analysis.file));
        }
        for located in &analysis.findings {
            if located.suppressed.is_some() {
                self.suppressed += 1;
            } else {
                self.counts[severity_index(located.finding.severity)] += 1;
            }
        }
        self.clean += usize::from(is_clean(analysis));
        for panel in panels(analysis) {
            for state in panel.states() {
                if !self.states.contains(&state) {
                    self.states.push(state);
                }
            }
            for mark in panel.marks() {
                if !self.marks.contains(&mark) {
                    self.marks.push(mark);
                }
            }
        }
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
            "<style>{PAGE_STYLE}</style>\n</head>\n<body>\n<header>"
        );
        let _ = writeln!(
            page,
            "<h1>Start-up and shutdown timelines</h1>\n<p class=\"run\">{} from {} · {} {}</p>",
            plural(self.workloads, "workload"),
            plural(self.files.len(), "file"),
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
        let height = svg::legend(&mut legend, &self.states, &self.marks, legend_width, 0.0);
        if height > 0.0 {
            page.push_str(&svg::document(legend_width, height, &legend));
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
    pub fn end(&self) -> String {
        "</main>\n</body>\n</html>\n".to_owned()
    }
}

fn workload(page: &mut String, index: usize, analysis: &Analysis, panels: &[Panel]) {
    let plan = &analysis.plan;
    let w = &plan.workload;
    let name = match &w.namespace {
        Some(ns) => format!("{ns}/{}", w.name),
        None => w.name.clone(),
    };
    let clean = if is_clean(analysis) { " clean" } else { "" };
    let _ = writeln!(
        page,
        "<section class=\"workload{clean}\" id=\"w{index}\">\n<h2>{} {}</h2>",
        escape(w.kind.as_str()),
        escape(&name)
    );
    let mut origin = format!("{} (document {})", analysis.file, analysis.document);
    if let Some(from) = &analysis.origin {
        let _ = write!(origin, " from {from}");
    }
    let _ = writeln!(page, "<p class=\"origin\">{}</p>", escape(&origin));
    for fact in facts::header(plan, &analysis.timeline) {
        let _ = writeln!(page, "<p class=\"facts\">{}</p>", escape(&fact));
    }
    let geometry = Geometry::of(panels, AXIS_WIDTH);
    let mut placed = vec![false; analysis.findings.len()];
    for panel in panels {
        page.push_str("<div class=\"panel-row\">\n<div class=\"drawing\">");
        page.push_str(&svg::workload_svg(
            std::slice::from_ref(panel),
            &geometry,
            &format!("w{index}-f"),
        ));
        page.push_str("</div>\n<div class=\"findings\">\n");
        for finding in panel
            .lanes
            .iter()
            .filter_map(|lane| lane.hazard)
            .map(|h| h.finding)
        {
            placed[finding] = true;
            card(page, index, finding, &analysis.findings[finding], true);
        }
        page.push_str("</div>\n</div>\n");
    }
    let others: Vec<usize> = (0..analysis.findings.len())
        .filter(|f| !placed[*f])
        .collect();
    if !others.is_empty() {
        page.push_str("<div class=\"panel-row\"><div class=\"findings\">\n");
        for finding in others {
            card(page, index, finding, &analysis.findings[finding], false);
        }
        page.push_str("</div></div>\n");
    }
    if analysis.findings.is_empty() {
        page.push_str("<p class=\"empty\">No hazards found.</p>\n");
    }
    page.push_str("<div class=\"assumptions\"><strong>Assumptions</strong><ul>\n");
    for assumption in facts::assumptions(plan) {
        let _ = writeln!(page, "<li>{}</li>", escape(&assumption));
    }
    page.push_str("</ul></div>\n</section>\n");
}

/// One finding beside the drawing; `on_timeline` when a hazard bar shows it.
fn card(page: &mut String, workload: usize, index: usize, located: &Located, on_timeline: bool) {
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
        format!(" <a href=\"#w{workload}-f{index}\">on the timeline</a>")
    } else {
        String::new()
    };
    let _ = writeln!(
        page,
        "<h3><span class=\"badge {severity}\">{severity}</span> {} {}{link}</h3>",
        finding.rule.id, finding.rule.name
    );
    let _ = writeln!(page, "<p>{}</p>", escape(&finding.message));
    let _ = writeln!(
        page,
        "<p class=\"where\">{}:{}:{}</p>",
        escape(&located.file),
        located.primary.start.line,
        located.primary.start.column
    );
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
