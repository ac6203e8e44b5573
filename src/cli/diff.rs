//! `diff`: what changes between two sides of the same workloads, and the exit status
//! for a pull request's gate.

use std::io::{self, Write};

use super::{DiffArgs, DiffFormat, FailOn, sides};
use crate::report::Reporter;
use crate::report::diff::{Header, human, json, markdown};
use crate::report::paths::PathBase;
use crate::report::sarif::SarifReporter;

pub fn run(args: DiffArgs) -> io::Result<u8> {
    let runs = match sides::run("diff", &args.read, &args.sides, &args.output, &args.rules)? {
        Ok(runs) => runs,
        Err(status) => return Ok(status),
    };
    let base = PathBase::current_dir()?;
    let mut header = Header {
        before: runs.before.label.clone(),
        after: runs.after.label.clone(),
        ..Header::default()
    };
    header.assumptions(
        &crate::report::assumptions::items(&runs.before.settings),
        &crate::report::assumptions::items(&runs.after.settings),
    );
    header.input_errors = runs
        .before
        .errors
        .iter()
        .chain(&runs.after.errors)
        .cloned()
        .collect();
    for note in runs.before.notes.iter().chain(&runs.after.notes) {
        if !header.notes.iter().any(|n| n.message == note.message) {
            header.notes.push(note.clone());
        }
    }
    let input_errors = runs.input_errors();
    let sources = runs.after.sources.clone();
    let comparison = crate::diff::compare(
        runs.before.analyses,
        runs.after.analyses,
        runs.namespace.as_deref(),
        &base,
    );
    let (mut out, closed) = args.output.writer()?;
    let written = match args.format {
        DiffFormat::Human => out.write_all(
            human::render(&comparison, &header, args.output.style(), args.quiet).as_bytes(),
        ),
        DiffFormat::Json => out.write_all(json::render(&comparison, &header).as_bytes()),
        DiffFormat::Markdown => out
            .write_all(markdown::render(&comparison, &header, markdown::COMMENT_LIMIT).as_bytes()),
        DiffFormat::Sarif => {
            // Only what the change adds: code scanning shows it on the pull request.
            let mut reporter = SarifReporter::new(&mut out, base)
                .with_sources(sources)
                .with_baseline(true);
            let added: Vec<&crate::pipeline::located::Located> = comparison
                .workloads
                .iter()
                .flat_map(|w| &w.findings)
                .filter(|f| f.kind() == crate::diff::FindingMove::Added)
                .filter_map(|f| f.after.as_ref())
                .collect();
            let mut summary = crate::report::Summary::default();
            let done = header
                .input_errors
                .iter()
                .try_for_each(|error| reporter.input_error(error))
                .and_then(|()| header.notes.iter().try_for_each(|n| reporter.note(n)))
                .and_then(|()| reporter.findings(&added));
            summary.input_errors = input_errors;
            done.and_then(|()| reporter.finish(&summary))
        }
    }
    .and_then(|()| out.flush());
    match written {
        Err(error) if !closed.get() => Err(error),
        _ => Ok(exit_status(&comparison, input_errors, args.fail_on_new)),
    }
}

/// 2 for unreadable input, 1 for an added finding at or above the threshold, else 0.
fn exit_status(comparison: &crate::diff::Comparison, input_errors: usize, fail_on: FailOn) -> u8 {
    if input_errors > 0 {
        return 2;
    }
    let Some(threshold) = fail_on.threshold() else {
        return 0;
    };
    u8::from(comparison.adds_at_or_above(threshold))
}
