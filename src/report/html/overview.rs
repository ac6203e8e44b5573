//! The overview at the head of the page: the run's counts, the filter, the legend, the
//! findings by rule, every workload worst first, and the inputs that could not be read.
//! It is gathered as the sections are written and written last.

use std::fmt::Write as _;

use super::super::explain::lanes::Panel;
use super::super::explain::{self, Legend, escape};
use super::super::summary_text::summary_line;
use super::super::{Summary, subject};
use crate::load::InputError;
use crate::pipeline::located::Analysis;
use crate::rules::{RuleMeta, Severity};

/// The legend's width, in pixels: the drawings' own width, about.
const LEGEND_WIDTH: f64 = 900.0;
/// Sections per block of the page, and rows per block of the index: the browser lays
/// out only the blocks in view (`content-visibility: auto`).
pub(super) const SECTIONS_PER_BLOCK: usize = 100;
const ROWS_PER_BLOCK: usize = 200;

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

pub(super) fn worst_class(worst: Option<Severity>) -> &'static str {
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
pub(super) fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// One workload in the overview's index.
pub(super) struct Entry {
    /// Its section's number.
    pub(super) section: usize,
    pub(super) worst: Option<Severity>,
    /// Unsuppressed findings by severity: errors, warnings, infos.
    pub(super) counts: [usize; 3],
    pub(super) subject: String,
    pub(super) place: String,
    /// The rules of its findings, each once.
    rules: Vec<&'static RuleMeta>,
}

impl Entry {
    /// The index entry of `analysis`, written as section `section`.
    pub(super) fn of(section: usize, analysis: &Analysis) -> Entry {
        let mut counts = [0usize; 3];
        let mut rules: Vec<&'static RuleMeta> = Vec::new();
        for located in analysis.findings.iter().filter(|f| f.suppressed.is_none()) {
            counts[severity_index(located.finding.severity)] += 1;
            if !rules.iter().any(|r| r.id == located.finding.rule.id) {
                rules.push(located.finding.rule);
            }
        }
        Entry {
            section,
            worst: worst(analysis),
            counts,
            subject: subject(&analysis.plan.workload),
            place: explain::place(analysis),
            rules,
        }
    }
}

/// The findings of one rule across the run.
struct RuleCount {
    rule: &'static RuleMeta,
    severity: Severity,
    findings: usize,
    workloads: usize,
}

/// What the overview says of the run, gathered workload by workload.
pub(super) struct Overview {
    /// The run's assumptions, as the human report words them.
    assumptions: Vec<String>,
    index: Vec<Entry>,
    rules: Vec<RuleCount>,
    errors: Vec<String>,
    notes: Vec<String>,
    legend: Legend,
}

impl Overview {
    /// An overview stating the run's `assumptions`.
    pub(super) fn new(assumptions: Vec<String>) -> Self {
        Overview {
            assumptions,
            index: Vec::new(),
            rules: Vec::new(),
            errors: Vec::new(),
            notes: Vec::new(),
            legend: Legend::default(),
        }
    }

    /// The number of workloads taken so far: the number of the next section.
    pub(super) fn workloads(&self) -> usize {
        self.index.len()
    }

    /// Takes one workload: its `panels` into the legend, its findings into the counts
    /// per rule, its `entry` into the index.
    pub(super) fn add(&mut self, analysis: &Analysis, panels: &[Panel], entry: Entry) {
        panels.iter().for_each(|panel| self.legend.add(panel));
        self.count_rules(analysis);
        self.index.push(entry);
    }

    /// Lists an input that could not be read.
    pub(super) fn input_error(&mut self, error: &InputError) {
        self.errors.push(problem(error));
    }

    /// Lists a note on the inputs.
    pub(super) fn note(&mut self, note: &InputError) {
        self.notes.push(problem(note));
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

    /// The overview: counts, filter, legend, rules, the index worst first, problems.
    pub(super) fn write(&mut self, summary: &Summary) -> String {
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
