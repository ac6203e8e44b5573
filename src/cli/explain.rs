//! `explain`: each workload's timeline, drawn.

use std::io::{self, Write};

use super::{ExplainArgs, ExplainFormat, diagnostic, inputs, usage_error};
use crate::pipeline::{self, Analysis, DocumentReport, RunOptions};
use crate::report::explain;
use crate::report::human::render_input_error;
use crate::workload::kinds::ROWS;

pub fn run(args: ExplainArgs) -> io::Result<u8> {
    // A kind name may be two kinds (`StatefulSet` of `apps` and of OpenKruise): both.
    let kind = args.kind.as_deref();
    let prepared = match inputs::prepare(
        "explain",
        &args.input,
        &args.cluster,
        &args.profile,
        &args.output,
    )? {
        Ok(prepared) => prepared,
        Err(status) => return Ok(status),
    };
    let settings = &prepared.profile.settings;
    if let Some(text) = kind {
        let known = ROWS.iter().map(|row| row.name).chain(
            settings
                .workload_kinds
                .iter()
                .map(|declared| declared.kind.as_str()),
        );
        if !known
            .into_iter()
            .any(|name| name.eq_ignore_ascii_case(text))
        {
            return usage_error(format!("`{text}` is not a workload kind this tool reads"));
        }
    }
    let stderr_style = args.output.stderr_style();
    let (mut out, closed) = args.output.writer()?;
    let mut input_errors = prepared.errors.len();
    prepared.print_errors(stderr_style);
    for note in prepared.notes() {
        diagnostic(&format!("note: {note}\n"));
    }
    let options = RunOptions {
        threads: args.input.threads,
        limits: prepared.limits,
        ..RunOptions::default()
    };
    let wanted = |analysis: &Analysis| {
        args.workload
            .as_ref()
            .is_none_or(|name| &analysis.plan.workload.name == name)
            && kind.is_none_or(|kind| analysis.plan.kind.as_str().eq_ignore_ascii_case(kind))
    };
    // Every document is read once to be drawn; the SVG picture and the HTML page say
    // first what they hold (the picture's size, the page's counts), so they read the
    // inputs twice: once for that index, once to draw, never holding the run. The
    // problems of the inputs are told on the first reading.
    let mut diagnose = |report: &DocumentReport| {
        input_errors += report.errors.len();
        for error in &report.errors {
            diagnostic(&render_input_error(error, stderr_style));
        }
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
        ExplainFormat::Svg => {
            let mut index = explain::SvgIndex::default();
            let workers = run(&mut |report| {
                diagnose(&report);
                report
                    .analyses
                    .iter()
                    .filter(|a| wanted(a))
                    .for_each(|analysis| index.add(analysis));
            });
            draw.write(&index.start());
            if draw.written.is_ok() {
                run(&mut |report| {
                    for analysis in report.analyses.iter().filter(|a| wanted(a)) {
                        draw.write(&index.workload(analysis));
                    }
                });
            }
            draw.write(&index.end());
            workers
        }
        ExplainFormat::Html => {
            let mut index = explain::HtmlIndex::default();
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
        }
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
