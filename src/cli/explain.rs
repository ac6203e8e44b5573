//! `explain`: each workload's timeline, drawn.

use std::io::{self, Write};

use super::{ExplainArgs, ExplainFormat, diagnostic, inputs, usage_error};
use crate::pipeline::{self, RunOptions};
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
    for note in &prepared.input_notes {
        diagnostic(&format!("note: {note}\n"));
    }
    let options = RunOptions {
        threads: args.input.threads,
        limits: prepared.limits,
        ..RunOptions::default()
    };
    let mut analyses = Vec::new();
    // The drawing's writes, until one fails; a reader that went away (`| head`) ends
    // the drawing but not the run, whose exit status counts every input.
    let mut written: io::Result<()> = Ok(());
    let mut first = true;
    let style = args.output.style();
    let workers = pipeline::run(&prepared.inputs, settings, &options, |report| {
        input_errors += report.errors.len();
        for error in &report.errors {
            diagnostic(&render_input_error(error, stderr_style));
        }
        for analysis in report.analyses {
            let wanted = args
                .workload
                .as_ref()
                .is_none_or(|name| &analysis.plan.workload.name == name)
                && kind.is_none_or(|kind| analysis.plan.kind.as_str().eq_ignore_ascii_case(kind));
            if !wanted || written.is_err() {
                continue;
            }
            match args.format {
                ExplainFormat::Text => {
                    if !first {
                        written = writeln!(out);
                    }
                    first = false;
                    if written.is_ok() {
                        written = out.write_all(explain::text(&analysis, style).as_bytes());
                    }
                }
                ExplainFormat::Json | ExplainFormat::Svg | ExplainFormat::Html => {
                    analyses.push(analysis)
                }
            }
        }
    });
    if let Some(shortfall) = workers.shortfall() {
        diagnostic(&format!("note: {shortfall}\n"));
    }
    if written.is_ok() {
        written = finish_drawing(&mut out, args.format, first, &analyses, settings);
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
