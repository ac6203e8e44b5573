//! `lint`: findings in the chosen format, and the exit status for CI.

use std::io;

use super::{
    FailOn, LintArgs, LintFormat, diagnostic, github, inputs, profile_errors, usage_error,
};
use crate::pipeline::{self, DocumentReport, RunOptions};
use crate::report::github::GithubReporter;
use crate::report::html::HtmlReporter;
use crate::report::human::{HumanReporter, render_input_error};
use crate::report::json::JsonReporter;
use crate::report::junit::JunitReporter;
use crate::report::paths::PathBase;
use crate::report::sarif::SarifReporter;
use crate::report::table::TableReporter;
use crate::report::{Reporter, Summary};
use crate::rules::Severity;
use crate::rules::selector::Policy;

pub fn run(args: LintArgs) -> io::Result<u8> {
    let prepared = match inputs::prepare(
        "lint",
        &args.input,
        &args.cluster,
        &args.profile,
        &args.output,
    )? {
        Ok(prepared) => prepared,
        Err(status) => return Ok(status),
    };
    let stderr_style = args.output.stderr_style();
    let policy = match Policy::from_flags(&args.select, &args.ignore) {
        Ok(policy) => policy,
        Err(message) => return usage_error(message),
    };
    let policy = match policy.with_config_rules(&prepared.profile.rules) {
        Ok(policy) => policy,
        Err(errors) => return profile_errors(&errors, stderr_style),
    };
    let options = RunOptions {
        threads: args.input.threads,
        policy,
        limits: prepared.limits,
    };
    if (args.fix || args.diff)
        && let Some(status) = super::fix::run(&args, &prepared, &options)?
    {
        return Ok(status);
    }
    let settings = &prepared.profile.settings;
    let sources = prepared.sources();
    let (out, closed) = args.output.writer()?;
    let mut reporter: Box<dyn Reporter> = match args.format {
        LintFormat::Human => Box::new(
            HumanReporter::new(
                out,
                args.output.style(),
                args.quiet,
                crate::report::assumptions::items(settings),
            )
            .show_infos(args.show_infos || args.fail_on == FailOn::Info),
        ),
        LintFormat::Table => Box::new(TableReporter::new(out, args.output.style(), args.quiet)),
        LintFormat::Json => Box::new(JsonReporter::new(out).with_sources(sources)),
        LintFormat::Sarif => {
            Box::new(SarifReporter::new(out, PathBase::current_dir()?).with_sources(sources))
        }
        LintFormat::Junit => Box::new(JunitReporter::new(out, PathBase::current_dir()?)),
        LintFormat::Github => Box::new(GithubReporter::new(
            out,
            github::workspace()?,
            args.quiet,
            github::step_summary(args.output.output.as_deref()),
        )),
        LintFormat::Html => Box::new(HtmlReporter::new(
            out,
            crate::report::assumptions::items(settings),
        )),
    };
    let inputs = &prepared.inputs;
    let mut summary = Summary {
        files: inputs.len(),
        from_cluster: prepared.cluster.is_some(),
        ..Summary::default()
    };
    // Where the report goes, until it fails; a reader that went away (`| head`) ends the
    // report but not the run, whose exit status counts every input.
    let mut report: io::Result<()> = Ok(());
    prepared.print_errors(stderr_style);
    for error in &prepared.errors {
        if report.is_ok() {
            report = reporter.input_error(error);
        }
        summary.add_input_error();
    }
    if !args.quiet {
        for note in prepared.notes() {
            diagnostic(&format!("note: {note}\n"));
        }
    }
    for note in &prepared.input_notes {
        if !args.quiet {
            diagnostic(&format!("note: {note}\n"));
        }
        if report.is_ok() {
            report = reporter.note(note);
        }
    }
    let mut document = |document: DocumentReport| {
        summary.add(&document);
        for error in &document.errors {
            diagnostic(&render_input_error(error, stderr_style));
        }
        if !args.quiet {
            let notes = document.notes.iter().map(|note| &note.error);
            for note in document.skipped.iter().chain(notes) {
                diagnostic(&format!("note: {note}\n"));
            }
        }
        if report.is_ok() {
            report = document
                .errors
                .iter()
                .try_for_each(|error| reporter.input_error(error))
                .and_then(|()| {
                    document
                        .notes
                        .iter()
                        .try_for_each(|note| reporter.note(&note.error))
                })
                .and_then(|()| reporter.document(&document.analyses));
        }
    };
    let workers = match &prepared.cluster {
        None => pipeline::run(inputs, settings, &options, &mut document),
        // Findings of running pods belong to their workloads, so the whole run is
        // gathered before anything is reported.
        Some(snapshot) => {
            let mut documents = Vec::new();
            let workers = pipeline::run(inputs, settings, &options, |d| documents.push(d));
            pipeline::attribute(documents, &snapshot.owners())
                .into_iter()
                .for_each(&mut document);
            workers
        }
    };
    if let Some(shortfall) = workers.shortfall() {
        diagnostic(&format!("note: {shortfall}\n"));
    }
    if report.is_ok() {
        report = reporter.finish(&summary);
    }
    match report {
        Err(error) if !closed.get() => Err(error),
        _ => Ok(exit_status(&summary, args.fail_on)),
    }
}

/// The exit status of the output contract: 2 for unreadable input, 1 for findings at
/// or above the threshold, else 0.
pub fn exit_status(summary: &Summary, fail_on: FailOn) -> u8 {
    if summary.input_errors > 0 {
        return 2;
    }
    let threshold = match fail_on {
        FailOn::Error => Severity::Error,
        FailOn::Warning => Severity::Warning,
        FailOn::Info => Severity::Info,
        FailOn::Never => return 0,
    };
    u8::from(summary.at_or_above(threshold) > 0)
}
