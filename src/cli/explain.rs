//! `explain`: each workload's timeline, drawn.

use std::io::{self, Write};

use super::cluster::RunInputs;
use super::{ExplainArgs, ExplainFormat, profile_errors, usage_error};
use crate::pipeline::{self, RunOptions};
use crate::report::explain;
use crate::report::human::render_input_error;
use crate::workload::Kind;

pub fn run(args: ExplainArgs) -> io::Result<u8> {
    let kind = match &args.kind {
        Some(text) => match Kind::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(text))
        {
            Some(kind) => Some(kind),
            None => return usage_error(format!("`{text}` is not a workload kind this tool reads")),
        },
        None => None,
    };
    let read = match RunInputs::read(&args.input, &args.cluster) {
        Ok(read) => read,
        Err(message) => return usage_error(message),
    };
    let profile = match args.profile.load(&read.inputs, read.cluster_profile()) {
        Ok(profile) => profile,
        Err(errors) => return profile_errors(&errors, args.output.stderr_style()),
    };
    let settings = profile.settings;
    let stderr_style = args.output.stderr_style();
    let mut out = args.output.writer()?;
    let mut input_errors = read.errors.len();
    read.print_errors(stderr_style);
    for note in read.notes() {
        eprintln!("note: {note}");
    }
    let options = RunOptions {
        threads: args.input.threads,
        ..RunOptions::default()
    };
    let mut analyses = Vec::new();
    let mut failure = None;
    let mut first = true;
    let style = args.output.style();
    pipeline::run(&read.inputs, &settings, &options, |report| {
        input_errors += report.errors.len();
        for error in &report.errors {
            eprint!("{}", render_input_error(error, stderr_style));
        }
        for analysis in report.analyses {
            let wanted = args
                .workload
                .as_ref()
                .is_none_or(|name| &analysis.plan.workload.name == name)
                && kind.is_none_or(|kind| analysis.plan.kind == kind);
            if !wanted || failure.is_some() {
                continue;
            }
            match args.format {
                ExplainFormat::Text => {
                    if !first {
                        let _ = writeln!(out);
                    }
                    first = false;
                    if let Err(error) = out.write_all(explain::text(&analysis, style).as_bytes()) {
                        failure = Some(error);
                    }
                }
                ExplainFormat::Json | ExplainFormat::Svg => analyses.push(analysis),
            }
        }
    });
    if let Some(error) = failure {
        return Err(error);
    }
    match args.format {
        ExplainFormat::Text => {
            if first {
                writeln!(out, "no workloads matched")?;
            }
        }
        ExplainFormat::Json => {
            let value = explain::json(&analyses, &settings);
            serde_json::to_writer_pretty(&mut out, &value).map_err(io::Error::other)?;
            writeln!(out)?;
        }
        ExplainFormat::Svg => out.write_all(explain::svg(&analyses).as_bytes())?,
    }
    out.flush()?;
    Ok(if input_errors > 0 { 2 } else { 0 })
}
