//! `explain`: each workload's timeline, drawn.

use std::io::{self, Write};

use super::{ExplainArgs, ExplainFormat, diagnostic, inputs, usage_error};
use crate::cluster::kinds::Resource;
use crate::pipeline::{self, RunOptions};
use crate::report::explain;
use crate::report::human::render_input_error;
use crate::workload::kinds::ROWS;
use crate::workload::{DeclaredKind, Kind};

pub fn run(args: ExplainArgs) -> io::Result<u8> {
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
    let kinds = match kind.map(|text| selected_kinds(text, &settings.workload_kinds)) {
        None => None,
        Some(Some(kinds)) => Some(kinds),
        Some(None) => {
            return usage_error(format!(
                "`{}` is not a workload kind this tool reads: give a kind (Deployment) or a name kubectl reads for it (deploy, deployments.apps)",
                kind.unwrap_or_default()
            ));
        }
    };
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
                && kinds
                    .as_ref()
                    .is_none_or(|kinds| kinds.contains(&analysis.plan.kind));
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
