//! `lint --format html`: one self-contained page for a whole run, the report a team
//! publishes from CI.
//!
//! The overview comes first: the counts per severity and per rule, every workload worst
//! first and linked to its section, a filter by severity (checkboxes and CSS, which
//! hide what follows them with a sibling selector: `:has()` would make every change of
//! the page restyle all of it), the input errors and notes.
//! Then each workload: its timeline drawn, its findings beside the panels whose hazard
//! bars they concern, its assumptions.
//!
//! The page is written as the run goes, workload by workload: only the overview's index
//! is held, and the overview is written last, which the page's stylesheet shows first.
//! It stays usable on a run of 10,000 workloads: each section is a closed `<details>`,
//! which the browser lays out only when it is opened (a link from the overview opens
//! it); a drawing that is the same as one before it (the pods of one chart) is not
//! written again but referenced (`<use>`), which keeps the page's size and the
//! browser's memory to what differs; and nothing needs a script to be read or filtered.
//! A small script adds a search box; nothing is fetched.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::hash::{BuildHasher, RandomState};
use std::io::{self, Write};

use super::explain::lanes::Panel;
use super::explain::{
    self, DRAWING_STYLE, Geometry, Legend, ROOT_STYLE, WORKLOAD_STYLE, escape, panel_drawing,
};
use super::located::{Analysis, Located};
use super::summary_text::summary_line;
use super::{Reporter, Summary, subject};
use crate::load::InputError;
use crate::rules::{RuleMeta, Severity};

/// The legend's width, in pixels: the drawings' own width, about.
const LEGEND_WIDTH: f64 = 900.0;
/// Sections per block of the page, and rows per block of the index: the browser lays
/// out only the blocks in view (`content-visibility: auto`).
const SECTIONS_PER_BLOCK: usize = 100;
const ROWS_PER_BLOCK: usize = 200;
/// The first workloads with findings are open when the page loads, so that a small run
/// reads at a glance; the others open from the overview.
const OPEN_FIRST: usize = 20;

const PAGE_STYLE: &str = r#"
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI","DejaVu Sans",sans-serif;color:#1f2328;background:#f6f8fa;display:flex;flex-direction:column}
#overview{order:-1;background:#fff;border-bottom:1px solid #d0d7de;padding:12px 24px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px}
h1{font-size:20px;margin:0 0 4px}
h2{font-size:16px;margin:16px 0 6px}
.run{color:var(--muted);margin:2px 0}
.counts{display:flex;flex-wrap:wrap;gap:10px;margin:8px 0}
.count{border-radius:6px;padding:2px 10px;background:#eaeef2;font-weight:600}
.count.error{background:var(--error);color:#fff}.count.warning{background:var(--warning);color:#fff}.count.info{background:var(--info);color:#fff}
.filter{display:flex;flex-wrap:wrap;gap:14px;align-items:center;margin-top:8px}
.filter label{cursor:pointer;user-select:none}
.filter input[type=search]{font:inherit;padding:2px 8px;min-width:260px}
.legend svg{display:block;max-width:100%;height:auto;margin-top:6px}
table{border-collapse:collapse;font-size:13px}
th,td{text-align:left;padding:3px 10px 3px 0;border-bottom:1px solid #eaeef2;vertical-align:top}
td.n,th.n{text-align:right}
.index{max-height:60vh;overflow:auto;border:1px solid #d0d7de;border-radius:6px;padding:0 8px;font-size:13px}
.index .row{display:grid;grid-template-columns:minmax(12em,2fr) minmax(12em,3fr) 5.5em 5.5em 5.5em minmax(8em,2fr);gap:0 10px;padding:2px 0;border-bottom:1px solid #eaeef2;overflow-wrap:anywhere}
.index .row.head{position:sticky;top:0;background:#fff;font-weight:600;z-index:1}
.index .n{text-align:right}
.block{content-visibility:auto;contain-intrinsic-size:auto 4000px}
main .block{display:flex;flex-direction:column;gap:10px}
.problems li{margin:2px 0}
main{padding:16px 24px;display:flex;flex-direction:column;gap:10px}
details.workload{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:8px 14px}
details.workload>summary{cursor:pointer;display:flex;flex-wrap:wrap;gap:8px;align-items:baseline}
details.workload>summary .name{font-weight:600}
details.workload>summary .origin{font-size:12px}
.picture{background-repeat:no-repeat;max-width:100%}
svg.defs{position:absolute}
.body{scroll-margin-top:64px}
.toggle{position:absolute;opacity:0;pointer-events:none}
.filter label::before{content:"\2611\FE0E";display:inline-block;width:1.2em;font-size:1.1em}
#show-error:not(:checked)~#overview label[for=show-error]::before,
#show-warning:not(:checked)~#overview label[for=show-warning]::before,
#show-info:not(:checked)~#overview label[for=show-info]::before,
#show-clean:not(:checked)~#overview label[for=show-clean]::before,
#show-suppressed:not(:checked)~#overview label[for=show-suppressed]::before{content:"\2610\FE0E"}
#show-error:focus-visible~#overview label[for=show-error],
#show-warning:focus-visible~#overview label[for=show-warning],
#show-info:focus-visible~#overview label[for=show-info],
#show-clean:focus-visible~#overview label[for=show-clean],
#show-suppressed:focus-visible~#overview label[for=show-suppressed]{outline:2px solid #0969da}
#show-error:not(:checked)~* .worst-error,
#show-warning:not(:checked)~* .worst-warning,
#show-info:not(:checked)~* .worst-info,
#show-clean:not(:checked)~* .worst-none,
#show-suppressed:not(:checked)~* .suppressed{display:none}
"#;

/// Filters the overview's index and the sections by the text typed: an enhancement,
/// the page reads and filters by severity without it.
const SEARCH_SCRIPT: &str = r#"
(function () {
  var filter = document.querySelector('.filter');
  if (!filter) return;
  var box = document.createElement('input');
  box.type = 'search';
  box.id = 'search';
  box.placeholder = 'Search workloads, files, rules';
  box.setAttribute('aria-label', 'Search workloads, files and rules');
  filter.appendChild(box);
  var rows = Array.prototype.slice.call(document.querySelectorAll('#index .row[data-section]'));
  box.addEventListener('input', function () {
    var words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
    rows.forEach(function (row) {
      var text = row.getAttribute('data-search');
      var hit = words.every(function (w) { return text.indexOf(w) >= 0; });
      row.hidden = !hit;
      var section = document.getElementById(row.getAttribute('data-section'));
      if (section) section.hidden = !hit;
    });
  });
})();
"#;

/// The worst severity among a workload's findings, for its class and its place in the
/// overview; `None` when it has none (or all are suppressed).
fn worst(analysis: &Analysis) -> Option<Severity> {
    analysis
        .findings
        .iter()
        .filter(|f| f.suppressed.is_none())
        .map(|f| f.finding.severity)
        .max()
}

fn worst_class(worst: Option<Severity>) -> &'static str {
    match worst {
        Some(severity) => match severity {
            Severity::Error => "worst-error",
            Severity::Warning => "worst-warning",
            Severity::Info => "worst-info",
        },
        None => "worst-none",
    }
}

/// `2 errors`, `1 warning`.
fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// One workload in the overview's index.
struct Entry {
    /// Its section's number.
    section: usize,
    worst: Option<Severity>,
    /// Unsuppressed findings by severity: errors, warnings, infos.
    counts: [usize; 3],
    subject: String,
    place: String,
    /// The rules of its findings, each once.
    rules: Vec<&'static RuleMeta>,
}

/// The findings of one rule across the run.
struct RuleCount {
    rule: &'static RuleMeta,
    severity: Severity,
    findings: usize,
    workloads: usize,
}

/// Writes each workload's section as it comes, and the overview at the end.
pub struct HtmlReporter<W: Write> {
    out: W,
    started: bool,
    /// The run's assumptions, as the human report words them.
    assumptions: Vec<String>,
    index: Vec<Entry>,
    rules: Vec<RuleCount>,
    errors: Vec<String>,
    notes: Vec<String>,
    legend: Legend,
    /// The drawings written so far, by a 128-bit hash of their elements, with the
    /// number of their definition.
    drawings: Drawings,
    /// The sections with findings written open so far.
    opened: usize,
    /// The text of the section being written, its buffer kept between sections.
    section: String,
}

/// Each distinct drawing is written once, as the background image of a class, where it
/// first appears; every panel that draws it is an element of that class. A background
/// costs the browser nothing until its section is opened, where thousands of inline
/// drawings (or `<use>` references to one) would each be built when the page loads.
#[derive(Default)]
struct Drawings {
    hashers: (RandomState, RandomState),
    defined: HashMap<(u64, u64), usize>,
}

impl Drawings {
    /// Draws `panel` into `page`: an element of the class `d{n}` whose background is
    /// the picture, the class defined the first time the picture is seen.
    fn draw(&mut self, page: &mut String, panel: &Panel, geometry: &Geometry) {
        let drawing = panel_drawing(panel, geometry, None);
        let key = (
            self.hashers.0.hash_one(&drawing.body),
            self.hashers.1.hash_one(&drawing.body),
        );
        let next = self.defined.len();
        let number = *self.defined.entry(key).or_insert(next);
        if number == next {
            // An SVG `<style>` is a conforming place in a body for a rule of the whole
            // page; in SVG content its text is markup, so the URL escapes `<`, `>`, `&`.
            let picture = explain::svg_document(drawing.width, drawing.height, &drawing.body);
            let _ = write!(
                page,
                "<svg class=\"defs\" width=\"0\" height=\"0\" aria-hidden=\"true\"><style>.d{number}{{background-image:url(\"data:image/svg+xml,{}\")}}</style></svg>",
                data_url(&picture)
            );
        }
        let _ = writeln!(
            page,
            "<div class=\"picture d{number}\" style=\"width:{}px;height:{}px\" role=\"img\" aria-label=\"{}\"></div>",
            drawing.width,
            drawing.height,
            escape(&panel.title)
        );
    }
}

/// `svg` as the data of a `data:` URL in a CSS string inside HTML: every character
/// that would end the string or the URL, or begin markup, percent-encoded.
fn data_url(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len() + svg.len() / 8);
    for c in svg.chars() {
        match c {
            '%' | '#' | '"' | '<' | '>' | '&' | '\'' | '\\' | '\n' | '\r' => {
                let _ = write!(out, "%{:02X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

impl<W: Write> HtmlReporter<W> {
    /// A page written to `out`, stating the run's `assumptions`.
    pub fn new(out: W, assumptions: Vec<String>) -> Self {
        HtmlReporter {
            out,
            started: false,
            assumptions,
            index: Vec::new(),
            rules: Vec::new(),
            errors: Vec::new(),
            notes: Vec::new(),
            legend: Legend::default(),
            drawings: Drawings::default(),
            opened: 0,
            section: String::new(),
        }
    }

    /// The page's head, once, before anything else.
    fn start(&mut self) -> io::Result<()> {
        if self.started {
            return Ok(());
        }
        self.started = true;
        write!(
            self.out,
            concat!(
                "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
                "<title>{name} lint report</title>\n",
                "<style>{root}{page}{workload}{drawing}</style>\n</head>\n<body>\n",
                "<a class=\"skip\" href=\"#overview\">Overview</a>\n",
                // The filter's checkboxes come first, so that a selector of what follows
                // them hides what they untick; their labels are in the overview.
                "{toggles}",
                "<main id=\"workloads\">\n"
            ),
            name = crate::PLUGIN_NAME,
            root = ROOT_STYLE,
            page = PAGE_STYLE,
            workload = WORKLOAD_STYLE,
            drawing = DRAWING_STYLE,
            toggles = ["error", "warning", "info", "clean", "suppressed"]
                .map(|id| format!(
                    "<input type=\"checkbox\" class=\"toggle\" id=\"show-{id}\" checked>\n"
                ))
                .concat(),
        )
    }

    /// Counts `analysis`'s findings under their rules.
    fn count_rules(&mut self, analysis: &Analysis) {
        let mut seen: Vec<&'static str> = Vec::new();
        for located in analysis.findings.iter().filter(|f| f.suppressed.is_none()) {
            let rule = located.finding.rule;
            let first_here = !seen.contains(&rule.id);
            seen.push(rule.id);
            match self.rules.iter_mut().find(|r| r.rule.id == rule.id) {
                Some(count) => {
                    count.findings += 1;
                    count.workloads += usize::from(first_here);
                    count.severity = count.severity.max(located.finding.severity);
                }
                None => self.rules.push(RuleCount {
                    rule,
                    severity: located.finding.severity,
                    findings: 1,
                    workloads: 1,
                }),
            }
        }
    }

    /// One workload's section: a summary line to open it by, and its drawings and
    /// findings.
    fn workload(&mut self, analysis: &Analysis) -> io::Result<()> {
        let number = self.index.len();
        let panels = explain::panels(analysis);
        panels.iter().for_each(|panel| self.legend.add(panel));
        let worst = worst(analysis);
        let mut counts = [0usize; 3];
        let mut rules: Vec<&'static RuleMeta> = Vec::new();
        for located in analysis.findings.iter().filter(|f| f.suppressed.is_none()) {
            counts[severity_index(located.finding.severity)] += 1;
            if !rules.iter().any(|r| r.id == located.finding.rule.id) {
                rules.push(located.finding.rule);
            }
        }
        let subject = subject(&analysis.plan.workload);
        let place = explain::place(analysis);
        let section = &mut self.section;
        section.clear();
        if number.is_multiple_of(SECTIONS_PER_BLOCK) {
            if number > 0 {
                section.push_str("</div>\n");
            }
            section.push_str("<div class=\"block\">\n");
        }
        let open = worst.is_some() && self.opened < OPEN_FIRST;
        self.opened += usize::from(open);
        let _ = write!(
            section,
            "<details{} class=\"workload {}\" id=\"w{number}\"><summary>",
            if open { " open" } else { "" },
            worst_class(worst)
        );
        for (count, severity) in counts.iter().zip(["error", "warning", "info"]) {
            if *count > 0 {
                let _ = write!(
                    section,
                    "<span class=\"badge {severity}\">{}</span>",
                    plural(*count, severity)
                );
            }
        }
        if worst.is_none() {
            section.push_str("<span class=\"badge\">no findings</span>");
        }
        let _ = writeln!(
            section,
            "<span class=\"name\">{}</span><span class=\"origin\">{}</span></summary>\n<div class=\"body\" id=\"w{number}-body\">",
            escape(&subject),
            escape(&place)
        );
        let drawings = &mut self.drawings;
        let mut draw = |page: &mut String, panel: &Panel, geometry: &Geometry| {
            drawings.draw(page, panel, geometry);
            false
        };
        explain::workload_body(section, &format!("w{number}"), analysis, &panels, &mut draw);
        section.push_str("</div></details>\n");
        self.out.write_all(section.as_bytes())?;
        self.count_rules(analysis);
        self.index.push(Entry {
            section: number,
            worst,
            counts,
            subject,
            place,
            rules,
        });
        Ok(())
    }

    /// The overview: counts, filter, legend, rules, the index worst first, problems.
    fn overview(&mut self, summary: &Summary) -> String {
        let mut page = String::from("<header id=\"overview\">\n");
        let _ = writeln!(
            page,
            "<h1>{} lint report</h1>\n<p class=\"run\">{}</p>",
            crate::PLUGIN_NAME,
            escape(&summary_line(summary))
        );
        if summary.workloads > 0 && !self.assumptions.is_empty() {
            let _ = writeln!(
                page,
                "<p class=\"run\">{}</p>",
                escape(&format!("Assumed: {}", self.assumptions.join(" · ")))
            );
        }
        page.push_str("<div class=\"counts\">");
        for (class, key, n, word) in [
            ("error", "errors", summary.errors, "error"),
            ("warning", "warnings", summary.warnings, "warning"),
            ("info", "infos", summary.infos, "info"),
            ("", "workloads", summary.workloads, "workload"),
            ("", "suppressed", summary.suppressed, "suppressed finding"),
            ("", "inputErrors", summary.input_errors, "input error"),
        ] {
            let _ = write!(
                page,
                "<span class=\"count {class}\" data-count=\"{key}\">{}</span>",
                plural(n, word).replacen(&n.to_string(), &format!("<b>{n}</b>"), 1)
            );
        }
        page.push_str("</div>\n");
        let mut workloads = [0usize; 4];
        for entry in &self.index {
            workloads[entry.worst.map_or(3, severity_index)] += 1;
        }
        page.push_str(
            "<div class=\"filter\" role=\"group\" aria-label=\"Filter\"><strong>Workloads whose worst finding is</strong>\n",
        );
        for (id, label, n) in [
            ("error", "an error", workloads[0]),
            ("warning", "a warning", workloads[1]),
            ("info", "an info", workloads[2]),
            ("clean", "none", workloads[3]),
        ] {
            let _ = writeln!(page, "<label for=\"show-{id}\">{label} ({n})</label>");
        }
        page.push_str("<label for=\"show-suppressed\">suppressed findings</label>\n</div>\n");
        let mut legend = String::new();
        let height = self.legend.draw(&mut legend, LEGEND_WIDTH, 0.0);
        if height > 0.0 {
            let _ = writeln!(
                page,
                "<div class=\"legend\">{}</div>",
                explain::svg_element(LEGEND_WIDTH, height, &legend)
            );
        }
        self.rules_table(&mut page);
        self.index_table(&mut page);
        for (title, items) in [
            ("Inputs that could not be read", &self.errors),
            ("Notes", &self.notes),
        ] {
            if items.is_empty() {
                continue;
            }
            let _ = writeln!(page, "<h2>{title}</h2>\n<ul class=\"problems\">");
            for item in items {
                let _ = writeln!(page, "<li>{}</li>", escape(item));
            }
            page.push_str("</ul>\n");
        }
        page.push_str("</header>\n");
        page
    }

    fn rules_table(&mut self, page: &mut String) {
        if self.rules.is_empty() {
            return;
        }
        self.rules
            .sort_by_key(|r| (std::cmp::Reverse(r.severity), r.rule.id));
        page.push_str(
            "<h2>Findings by rule</h2>\n<table class=\"rules\"><thead><tr><th>Rule</th><th>Name</th><th>Severity</th><th class=\"n\">Findings</th><th class=\"n\">Workloads</th></tr></thead><tbody>\n",
        );
        for count in &self.rules {
            let _ = writeln!(
                page,
                "<tr data-rule=\"{id}\"><td>{id}</td><td>{}</td><td><span class=\"badge {sev}\">{sev}</span></td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                count.rule.name,
                count.findings,
                count.workloads,
                id = count.rule.id,
                sev = count.severity,
            );
        }
        page.push_str("</tbody></table>\n");
    }

    fn index_table(&mut self, page: &mut String) {
        // Worst first: by the most severe findings, then the most of them, in input
        // order among equals.
        self.index.sort_by_key(|entry| {
            (
                entry.worst.map_or(3, severity_index),
                std::cmp::Reverse(entry.counts),
                entry.section,
            )
        });
        page.push_str(concat!(
            "<h2>Workloads, worst first</h2>\n<div class=\"index\" id=\"index\" role=\"table\" aria-label=\"Workloads, worst first\">\n",
            "<div class=\"row head\" role=\"row\"><span role=\"columnheader\">Workload</span><span role=\"columnheader\">Where</span>",
            "<span class=\"n\" role=\"columnheader\">Errors</span><span class=\"n\" role=\"columnheader\">Warnings</span>",
            "<span class=\"n\" role=\"columnheader\">Infos</span><span role=\"columnheader\">Rules</span></div>\n"
        ));
        for (row, entry) in self.index.iter().enumerate() {
            if row % ROWS_PER_BLOCK == 0 {
                if row > 0 {
                    page.push_str("</div>\n");
                }
                page.push_str("<div class=\"block\">\n");
            }
            let rules: Vec<&str> = entry.rules.iter().map(|r| r.id).collect();
            let search: String = [
                entry.subject.as_str(),
                entry.place.as_str(),
                &entry
                    .rules
                    .iter()
                    .map(|r| format!("{} {}", r.id, r.name))
                    .collect::<Vec<_>>()
                    .join(" "),
            ]
            .join(" ")
            .to_lowercase();
            let _ = writeln!(
                page,
                "<div class=\"row {}\" role=\"row\" data-section=\"w{n}\" data-search=\"{}\"><span role=\"cell\"><a href=\"#w{n}-body\">{}</a></span><span role=\"cell\">{}</span><span class=\"n\" role=\"cell\">{}</span><span class=\"n\" role=\"cell\">{}</span><span class=\"n\" role=\"cell\">{}</span><span role=\"cell\">{}</span></div>",
                worst_class(entry.worst),
                escape(&search),
                escape(&entry.subject),
                escape(&entry.place),
                entry.counts[0],
                entry.counts[1],
                entry.counts[2],
                rules.join(" "),
                n = entry.section,
            );
        }
        if !self.index.is_empty() {
            page.push_str("</div>\n");
        }
        page.push_str("</div>\n");
    }
}

fn severity_index(severity: Severity) -> usize {
    match severity {
        Severity::Error => 0,
        Severity::Warning => 1,
        Severity::Info => 2,
    }
}

/// An input error or a note as one line: `file:line:column: message`.
fn problem(error: &InputError) -> String {
    match error.pos {
        Some(pos) => format!(
            "{}:{}:{}: {}",
            error.file, pos.line, pos.column, error.message
        ),
        None => format!("{}: {}", error.file, error.message),
    }
}

impl<W: Write> Reporter for HtmlReporter<W> {
    fn document(&mut self, analyses: &[Analysis]) -> io::Result<()> {
        self.start()?;
        analyses
            .iter()
            .try_for_each(|analysis| self.workload(analysis))
    }

    fn findings(&mut self, _: &[&Located]) -> io::Result<()> {
        // Every finding is drawn with its workload ([`Reporter::document`]).
        Ok(())
    }

    fn input_error(&mut self, error: &InputError) -> io::Result<()> {
        self.errors.push(problem(error));
        Ok(())
    }

    fn note(&mut self, note: &InputError) -> io::Result<()> {
        self.notes.push(problem(note));
        Ok(())
    }

    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        self.start()?;
        if self.index.is_empty() {
            self.out
                .write_all(b"<p class=\"empty\">No workloads were linted.</p>\n")?;
        } else {
            self.out.write_all(b"</div>\n")?;
        }
        self.out.write_all(b"</main>\n")?;
        let overview = self.overview(summary);
        self.out.write_all(overview.as_bytes())?;
        writeln!(
            self.out,
            "<script>{SEARCH_SCRIPT}</script>\n</body>\n</html>"
        )?;
        self.out.flush()
    }
}
