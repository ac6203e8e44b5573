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
//!
//! This module writes the page's head and each workload's section; the overview
//! (`overview`), the drawings written once (`drawings`) and the stylesheet and script
//! (`assets`) have their own.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::explain::lanes::Panel;
use super::explain::{self, DRAWING_STYLE, Geometry, ROOT_STYLE, WORKLOAD_STYLE, escape};
use super::{Reporter, Summary};
use crate::load::InputError;
use crate::pipeline::located::{Analysis, Located};

mod assets;
mod drawings;
mod overview;

use assets::{PAGE_STYLE, SEARCH_SCRIPT};
use drawings::Drawings;
use overview::{Entry, Overview, SECTIONS_PER_BLOCK, plural, worst_class};

/// The first workloads with findings are open when the page loads, so that a small run
/// reads at a glance; the others open from the overview.
const OPEN_FIRST: usize = 20;

/// Writes each workload's section as it comes, and the overview at the end.
pub struct HtmlReporter<W: Write> {
    out: W,
    started: bool,
    /// What the overview will say, gathered section by section.
    overview: Overview,
    /// The drawings written so far, by a 128-bit hash of their elements, with the
    /// number of their definition.
    drawings: Drawings,
    /// The sections with findings written open so far.
    opened: usize,
    /// The text of the section being written, its buffer kept between sections.
    section: String,
}

impl<W: Write> HtmlReporter<W> {
    /// A page written to `out`, stating the run's `assumptions`.
    pub fn new(out: W, assumptions: Vec<String>) -> Self {
        HtmlReporter {
            out,
            started: false,
            overview: Overview::new(assumptions),
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

    /// One workload's section: a summary line to open it by, and its drawings and
    /// findings.
    fn workload(&mut self, analysis: &Analysis) -> io::Result<()> {
        let number = self.overview.workloads();
        let panels = explain::panels(analysis);
        let entry = Entry::of(number, analysis);
        let worst = entry.worst;
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
        for (count, severity) in entry.counts.iter().zip(["error", "warning", "info"]) {
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
            escape(&entry.subject),
            escape(&entry.place)
        );
        let drawings = &mut self.drawings;
        let mut draw = |page: &mut String, panel: &Panel, geometry: &Geometry| {
            drawings.draw(page, panel, geometry);
            false
        };
        explain::workload_body(section, &format!("w{number}"), analysis, &panels, &mut draw);
        section.push_str("</div></details>\n");
        self.out.write_all(section.as_bytes())?;
        self.overview.add(analysis, &panels, entry);
        Ok(())
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
        self.overview.input_error(error);
        Ok(())
    }

    fn note(&mut self, note: &InputError) -> io::Result<()> {
        self.overview.note(note);
        Ok(())
    }

    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        self.start()?;
        if self.overview.workloads() == 0 {
            self.out
                .write_all(b"<p class=\"empty\">No workloads were linted.</p>\n")?;
        } else {
            self.out.write_all(b"</div>\n")?;
        }
        self.out.write_all(b"</main>\n")?;
        let overview = self.overview.write(summary);
        self.out.write_all(overview.as_bytes())?;
        writeln!(
            self.out,
            "<script>{SEARCH_SCRIPT}</script>\n</body>\n</html>"
        )?;
        self.out.flush()
    }
}
