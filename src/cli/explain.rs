//! `explain`: each workload's timeline, drawn.

use std::io::{self, Write};
use std::sync::Arc;

use super::{
    ExplainArgs, ExplainFormat, RuleArgs, diagnostic, document_problems, inputs, sides, usage_error,
};
use crate::cluster::kinds::Resource;
use crate::pipeline::{self, Analysis, DocumentReport, RunOptions};
use crate::report::{escape, explain};
use crate::workload::kinds::ROWS;
use crate::workload::{DeclaredKind, Kind};

pub fn run(args: ExplainArgs) -> io::Result<u8> {
    if args.compare {
        return compare(&args);
    }
    let sides = &args.sides;
    if !sides.from.is_empty()
        || !sides.to.is_empty()
        || sides.base.is_some()
        || sides.base_dir.is_some()
    {
        return usage_error("--from, --to, --base and --base-dir give the sides of --compare");
    }
    let kind = args.kind.as_deref();
    let prepared = match inputs::prepare(
        "explain",
        &args.read,
        &args.output,
        &inputs::OtherFiles::default(),
    )? {
        Ok(prepared) => prepared,
        Err(status) => return Ok(status),
    };
    let settings = &prepared.profile.settings;
    let kinds = match selected(kind, &settings.workload_kinds) {
        Ok(kinds) => kinds,
        Err(message) => return usage_error(message),
    };
    let stderr_style = args.output.stderr_style();
    let (mut out, closed) = args.output.writer()?;
    let mut input_errors = prepared.errors.len();
    prepared.print_errors(stderr_style);
    for note in prepared.notes() {
        diagnostic(&format!("note: {}\n", escape::controls(&note)));
    }
    for note in prepared.hidden() {
        diagnostic(&format!("note: {}\n", escape::controls(&note.message)));
    }
    for note in &prepared.input_notes {
        diagnostic(&format!("note: {note}\n"));
    }
    for note in crate::report::assumptions::beyond_model(settings) {
        diagnostic(&format!("note: {}\n", escape::controls(&note.message)));
    }
    let options = RunOptions {
        threads: args.read.input.threads,
        limits: prepared.limits,
        // No drawing shows a fix: none is checked.
        fixes: pipeline::FixMode::Unchecked,
        ..RunOptions::default()
    };
    let wanted = |analysis: &Analysis| asked_for(&args, kinds.as_deref(), analysis);
    // Every document is read once to be drawn; the SVG picture and the HTML page say
    // first what they hold (the picture's size, the page's counts), so they read the
    // inputs twice: once for that index, once to draw, never holding the run. The
    // problems of the inputs are told on the first reading.
    let mut diagnose = |report: &DocumentReport| {
        input_errors += report.errors.len();
        document_problems(report, stderr_style);
    };
    let run = |sink: &mut dyn FnMut(DocumentReport)| {
        pipeline::run(&prepared.inputs, settings, &options, sink)
    };
    // The drawing's writes, until one fails; a reader that went away (`| head`) ends
    // the drawing but not the run, whose exit status counts every input.
    let mut draw = Drawing {
        out: &mut out,
        written: Ok(()),
    };
    let style = args.output.style();
    // A drawing that says first what it holds: the inputs read for its index, then
    // again to draw each workload.
    let mut drawn_indexed = |index: &mut dyn explain::Indexed| {
        let workers = run(&mut |report| {
            diagnose(&report);
            report
                .analyses
                .iter()
                .filter(|a| wanted(a))
                .for_each(|analysis| index.add(analysis));
        });
        draw.write(&index.start(settings));
        if draw.written.is_ok() {
            run(&mut |report| {
                for analysis in report.analyses.iter().filter(|a| wanted(a)) {
                    draw.write(&index.workload(analysis));
                }
            });
        }
        draw.write(&index.end());
        workers
    };
    let workers = match args.format {
        ExplainFormat::Text => {
            let mut first = true;
            let workers = run(&mut |report| {
                diagnose(&report);
                for analysis in report.analyses.iter().filter(|a| wanted(a)) {
                    if !first {
                        draw.write("\n");
                    }
                    first = false;
                    draw.write(&explain::text(analysis, style));
                }
            });
            if first {
                draw.write("no workloads matched\n");
            }
            workers
        }
        ExplainFormat::Json => {
            draw.write(&explain::JsonStream::start(settings));
            let mut stream = explain::JsonStream::default();
            let workers = run(&mut |report| {
                diagnose(&report);
                for analysis in report.analyses.iter().filter(|a| wanted(a)) {
                    draw.write(&stream.workload(analysis));
                }
            });
            draw.write(stream.end());
            draw.write("\n");
            workers
        }
        ExplainFormat::Svg => drawn_indexed(&mut explain::SvgIndex::default()),
        ExplainFormat::Html => drawn_indexed(&mut explain::HtmlIndex::default()),
    };
    if let Some(shortfall) = workers.shortfall() {
        diagnostic(&format!("note: {shortfall}\n"));
    }
    if draw.written.is_ok() {
        draw.written = draw.out.flush();
    }
    match draw.written {
        Err(error) if !closed.get() => Err(error),
        _ => Ok(if input_errors > 0 { 2 } else { 0 }),
    }
}

/// Where the drawing goes, and whether every write so far went through: after the
/// first that fails, nothing more is written.
struct Drawing<'o, W: Write> {
    out: &'o mut W,
    written: io::Result<()>,
}

impl<W: Write> Drawing<'_, W> {
    fn write(&mut self, text: &str) {
        if self.written.is_ok() {
            self.written = self.out.write_all(text.as_bytes());
        }
    }
}

/// The kinds `--kind` selects: a kind's name every kind of that name (`StatefulSet` of
/// `apps` and of OpenKruise), in any case; else what kubectl reads as that TYPE, its
/// resource, singular or short name (`deploy`, `sts`, `deployments.apps`, `ksvc`), as
/// `kubectl get` reads them. `None` when `text` names no kind the tool reads.
fn selected_kinds(text: &str, declared: &[&'static DeclaredKind]) -> Option<Vec<Kind>> {
    let named: Vec<Kind> = ROWS
        .iter()
        .filter(|row| row.name.eq_ignore_ascii_case(text))
        .map(|row| row.kind)
        .chain(
            declared
                .iter()
                .filter(|d| d.kind.eq_ignore_ascii_case(text))
                .map(|d| Kind::Declared(d)),
        )
        .collect();
    if !named.is_empty() {
        return Some(named);
    }
    Resource::parse(text).map(|resource| vec![resource.kind])
}

/// The kinds `--kind` selects (`None`: all), or why `text` selects none.
fn selected(
    text: Option<&str>,
    declared: &[&'static DeclaredKind],
) -> Result<Option<Vec<Kind>>, String> {
    let Some(text) = text else {
        return Ok(None);
    };
    selected_kinds(text, declared).map(Some).ok_or_else(|| {
        format!(
            "`{text}` is not a workload kind this tool reads: give a kind (Deployment) or a name kubectl reads for it (deploy, deployments.apps)"
        )
    })
}

/// `explain --compare`: each workload's two timelines, one above the other, drawn by
/// the renderers of `explain` (each drawing's title names its side).
fn compare(args: &ExplainArgs) -> io::Result<u8> {
    let runs = match sides::run(
        "explain --compare",
        &args.read,
        &args.sides,
        &args.output,
        &RuleArgs::default(),
    )? {
        Ok(runs) => runs,
        Err(status) => return Ok(status),
    };
    let settings = runs.after.settings.clone();
    let kinds = match selected(args.kind.as_deref(), &settings.workload_kinds) {
        Ok(kinds) => kinds,
        Err(message) => return usage_error(message),
    };
    let input_errors = runs.input_errors();
    let labelled = |analysis: Option<Analysis>, side: &str| {
        analysis.map(|mut analysis| {
            analysis.file = Arc::from(format!("{side}: {}", analysis.file));
            analysis
        })
    };
    let (before_label, after_label) = (
        format!("before ({})", runs.before.label),
        format!("after ({})", runs.after.label),
    );
    let wanted = |analysis: &Analysis| asked_for(args, kinds.as_deref(), analysis);
    let mut drawn: Vec<Analysis> = Vec::new();
    for (before, after) in crate::diff::pair_up(
        runs.before.analyses,
        runs.after.analyses,
        runs.namespace.as_deref(),
    ) {
        let any = after.as_ref().or(before.as_ref());
        if !any.is_some_and(wanted) {
            continue;
        }
        drawn.extend(labelled(before, &before_label));
        drawn.extend(labelled(after, &after_label));
    }
    let (mut out, closed) = args.output.writer()?;
    let style = args.output.style();
    let mut written: io::Result<()> = Ok(());
    if args.format == ExplainFormat::Text {
        for (index, analysis) in drawn.iter().enumerate() {
            if written.is_ok() && index > 0 {
                written = writeln!(out);
            }
            if written.is_ok() {
                written = out.write_all(explain::text(analysis, style).as_bytes());
            }
        }
    }
    if written.is_ok() {
        let analyses = if args.format == ExplainFormat::Text {
            &[][..]
        } else {
            &drawn[..]
        };
        written = finish_drawing(&mut out, args.format, drawn.is_empty(), analyses, &settings);
    }
    match written {
        Err(error) if !closed.get() => Err(error),
        _ => Ok(if input_errors > 0 { 2 } else { 0 }),
    }
}

/// Writes what comes after the last workload: the whole drawing for JSON and SVG.
fn finish_drawing(
    out: &mut impl Write,
    format: ExplainFormat,
    nothing_drawn: bool,
    analyses: &[pipeline::Analysis],
    settings: &crate::settings::Settings,
) -> io::Result<()> {
    match format {
        ExplainFormat::Text => {
            if nothing_drawn {
                writeln!(out, "no workloads matched")?;
            }
        }
        ExplainFormat::Json => {
            let value = explain::json(analyses, settings);
            serde_json::to_writer_pretty(&mut *out, &value).map_err(io::Error::other)?;
            writeln!(out)?;
        }
        ExplainFormat::Svg => out.write_all(explain::svg(analyses).as_bytes())?,
        ExplainFormat::Html => out.write_all(explain::html(analyses, settings).as_bytes())?,
    }
    out.flush()
}

/// Whether `analysis` is one the command asks to draw: its workload named by the
/// positional name, its kind among `kinds` (`None`: any).
fn asked_for(args: &ExplainArgs, kinds: Option<&[Kind]>, analysis: &Analysis) -> bool {
    args.workload
        .as_ref()
        .is_none_or(|name| &analysis.plan.workload.name == name)
        && kinds.is_none_or(|kinds| kinds.contains(&analysis.plan.kind))
}
