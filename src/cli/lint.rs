//! `lint`: findings in the chosen format, and the exit status for CI.

use std::io;

use super::fix::Next;
use super::{
    FailOn, LintArgs, LintFormat, diagnostic, document_problems, github, inputs, profile_errors,
    usage_error,
};
use crate::baseline::{self, Baseline};
use crate::escape;
use crate::load::InputError;
use crate::pipeline::{self, DocumentReport, FixMode, RunOptions};
use crate::report::github::GithubReporter;
use crate::report::html::HtmlReporter;
use crate::report::human::{FixView, HumanReporter, render_input_error};
use crate::report::json::JsonReporter;
use crate::report::junit::JunitReporter;
use crate::report::paths::PathBase;
use crate::report::sarif::SarifReporter;
use crate::report::statistics::StatisticsReporter;
use crate::report::table::TableReporter;
use crate::report::{Reporter, Summary};

pub fn run(args: LintArgs) -> io::Result<u8> {
    if args.watch {
        return super::watch::run(&args, once);
    }
    once(&args)
}

/// One run of `lint`: the report, and its exit status.
fn once(args: &LintArgs) -> io::Result<u8> {
    let other = inputs::OtherFiles {
        write_baseline: args.write_baseline.as_deref(),
        job_summary: (args.format == LintFormat::Github)
            .then(github::summary_path)
            .flatten(),
        baseline: args.baseline.as_deref(),
    };
    let prepared = match inputs::prepare("lint", &args.read, &args.output, &other)? {
        Ok(prepared) => prepared,
        Err(status) => return Ok(status),
    };
    let stderr_style = args.output.stderr_style();
    let policy = match args.rules.policy() {
        Ok(policy) => policy,
        Err(message) => return usage_error(message),
    };
    let policy = match policy
        .with_config_rules(&prepared.profile.rules)
        .and_then(|policy| policy.with_fixable(&prepared.profile.fixable))
        .map(|policy| policy.with_assumed_losses(prepared.profile.assumed_losses))
    {
        Ok(policy) => policy,
        Err(errors) => return profile_errors(&errors, stderr_style),
    };
    if args.diff && args.format != LintFormat::Human {
        return usage_error(
            "--diff prints a unified diff, not a report: -o/--output does not apply (--fix reports in any format)",
        );
    }
    if args.statistics && !matches!(args.format, LintFormat::Human | LintFormat::Json) {
        return usage_error(
            "--statistics prints counts by rule, as text or with -o json: no other format holds them",
        );
    }
    let fail_on = if args.exit_zero {
        FailOn::Never
    } else {
        args.fail_on
    };
    // Reports that show fixes check each against the timeline first.
    let shows_fixes = matches!(
        args.format,
        LintFormat::Human | LintFormat::Table | LintFormat::Json | LintFormat::Sarif
    );
    let options = RunOptions {
        threads: args.read.input.threads,
        policy,
        limits: prepared.limits,
        fixes: if shows_fixes {
            FixMode::Verify
        } else {
            FixMode::Unchecked
        },
        ..RunOptions::default()
    };
    let mut fixed = None;
    if args.fix || args.fix_only || args.diff {
        match super::fix::run(args, &prepared, &options)? {
            Next::Exit(status) => return Ok(status),
            Next::Report(done) => fixed = Some(done),
        }
    }
    if let Some(path) = &args.write_baseline {
        return write_baseline(path, &prepared, &options, stderr_style);
    }
    let mut baseline = match &args.baseline {
        None => None,
        Some(path) => match Baseline::read(path) {
            Ok(baseline) => Some(baseline),
            Err(error) => {
                diagnostic(&render_input_error(&error, stderr_style));
                return Ok(2);
            }
        },
    };
    // Formats without a way to mark a finding as baselined leave those out.
    let list_baselined = args.show_baselined
        && matches!(
            args.format,
            LintFormat::Human | LintFormat::Json | LintFormat::Sarif
        );
    let settings = &prepared.profile.settings;
    let sources = prepared.sources();
    // The fixed standard input took standard output: the report goes to standard
    // error, unless --output-file names a file.
    let to_stderr =
        fixed.as_ref().is_some_and(|done| done.stdout_taken) && args.output.output.is_none();
    let (out, closed) = if to_stderr {
        args.output.stderr_writer()
    } else {
        args.output.writer()?
    };
    let style = if to_stderr {
        args.output.stderr_style()
    } else {
        args.output.style()
    };
    let view = FixView {
        unsafe_fixes: args.unsafe_fixes,
        show_diffs: args.show_fixes && fixed.is_none(),
        made: match &fixed {
            Some(done) if args.show_fixes => done.by_file.clone(),
            _ => Vec::new(),
        },
    };
    let mut reporter: Box<dyn Reporter> = match args.format {
        _ if args.statistics => Box::new(StatisticsReporter::new(
            out,
            style,
            args.format == LintFormat::Json,
            args.unsafe_fixes,
        )),
        LintFormat::Human => Box::new(
            HumanReporter::new(
                out,
                style,
                args.quiet,
                crate::report::assumptions::items(settings),
            )
            .show_infos(args.show_infos || fail_on == FailOn::Info)
            .fixes(view),
        ),
        LintFormat::Table => Box::new(TableReporter::new(out, style, args.quiet)),
        LintFormat::Json => Box::new(JsonReporter::new(out).with_sources(sources)),
        LintFormat::Sarif => Box::new(
            SarifReporter::new(out, PathBase::current_dir()?)
                .with_sources(sources)
                .with_baseline(baseline.is_some()),
        ),
        LintFormat::Junit => Box::new(
            JunitReporter::new(out, PathBase::current_dir()?).failing_from(fail_on.threshold()),
        ),
        LintFormat::Github => Box::new(
            GithubReporter::new(
                out,
                github::workspace()?,
                args.quiet,
                github::step_summary(args.output.output.as_deref()),
            )
            .with_sources(sources),
        ),
        LintFormat::Html => Box::new(HtmlReporter::new(
            out,
            crate::report::assumptions::items(settings),
        )),
    };
    // After `--fix` the report reads the files as written: nothing the context pass
    // parsed or kept of them before the fixes is reused.
    let reread;
    let inputs = if let Some(done) = &fixed {
        reread = match &done.stdin_fixed {
            Some(text) => prepared.inputs.unparsed_with_stdin(text),
            None => prepared.inputs.unparsed(),
        };
        &reread
    } else {
        &prepared.inputs
    };
    let strict = args.strict || prepared.strict;
    let mut summary = Summary {
        files: inputs.len(),
        from_cluster: prepared.cluster.is_some(),
        config: prepared.config_name(),
        baselined: baseline.as_ref().map(|_| 0),
        ..Summary::default()
    };
    summary.fixes.unsafe_fixes = args.unsafe_fixes;
    if let Some(done) = &fixed {
        summary.fixes.fixed = Some(done.fixed);
        summary.fixes.shown = done.shown;
        summary.unwritten = done.unwritten.len();
    }
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
    // Files --fix could not write, already named on standard error.
    for error in fixed.iter().flat_map(|done| &done.unwritten) {
        if report.is_ok() {
            report = reporter.input_error(error);
        }
    }
    // What may hide a workload is said whatever `--quiet` says, and fails the run
    // under `--strict`.
    for note in prepared.hidden() {
        if strict {
            let error = strict_error(note);
            diagnostic(&render_input_error(&error, stderr_style));
            if report.is_ok() {
                report = reporter.input_error(&error);
            }
            summary.add_input_error();
        } else {
            diagnostic(&format!("note: {}\n", escape::controls(&note.message)));
            if report.is_ok() {
                report = reporter.note(&note);
            }
            summary.cluster_notes += 1;
        }
    }
    if !args.quiet {
        for note in prepared.notes() {
            diagnostic(&format!("note: {}\n", escape::controls(&note)));
        }
    }
    for note in &prepared.input_notes {
        // A chart or kustomization its tool could not render hides its workloads: an
        // input error under `--strict`, a note said whatever `--quiet` says otherwise.
        let unrendered = prepared.is_unrendered(note);
        if unrendered && strict {
            let error = strict_error(note.clone());
            diagnostic(&render_input_error(&error, stderr_style));
            if report.is_ok() {
                report = reporter.input_error(&error);
            }
            summary.add_input_error();
            continue;
        }
        if !args.quiet || unrendered {
            diagnostic(&format!("note: {note}\n"));
        }
        if report.is_ok() {
            report = reporter.note(note);
        }
    }
    // A version newer than the model knows: every format says what it is checked as.
    for note in crate::report::assumptions::beyond_model(settings) {
        if !args.quiet {
            diagnostic(&format!("note: {}\n", escape::controls(&note.message)));
        }
        if report.is_ok() {
            report = reporter.run_note(&note);
        }
    }
    let mut document = |mut document: DocumentReport| {
        if strict {
            let notes = std::mem::take(&mut document.notes);
            document
                .errors
                .extend(notes.into_iter().map(|note| strict_error(note.error)));
        }
        if let Some(baseline) = &mut baseline {
            baseline.mark(&mut document);
        }
        summary.add(&document);
        if !list_baselined {
            for analysis in &mut document.analyses {
                analysis.findings.retain(|located| !located.baselined);
            }
        }
        document_problems(&document, stderr_style);
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
        // Findings of running pods belong to their workloads: the workloads and their
        // pods, which come first, are gathered before they are reported.
        Some(snapshot) => {
            let owners = snapshot.owners();
            let held = snapshot.owning();
            let mut attributing = pipeline::Attributing::new(&owners, &held, &mut document);
            let workers = pipeline::run(inputs, settings, &options, |d| attributing.push(d));
            attributing.finish();
            workers
        }
    };
    if let Some(shortfall) = workers.shortfall() {
        diagnostic(&format!("note: {shortfall}\n"));
    }
    for stale in baseline.iter().flat_map(Baseline::stale) {
        if !args.quiet {
            diagnostic(&format!("note: {stale}\n"));
        }
        if report.is_ok() {
            report = reporter.run_note(&stale);
        }
    }
    if report.is_ok() {
        report = reporter.finish(&summary);
    }
    // After --fix, what became of the findings is said on standard error when the
    // report does not say it: quiet, or a machine format.
    if fixed.is_some()
        && (args.quiet
            || args.statistics
            || !matches!(args.format, LintFormat::Human | LintFormat::Table))
    {
        for line in crate::report::summary_text::fix_lines(&summary)
            .into_iter()
            .take(1)
        {
            diagnostic(&format!("{line}\n"));
        }
    }
    let status = exit_status(&summary, fail_on);
    let status = match summary.fixes.fixed {
        Some(made) if made > 0 && args.exit_non_zero_on_fix => status.max(1),
        _ => status,
    };
    match report {
        Err(error) if !closed.get() => Err(error),
        _ => Ok(status),
    }
}

/// A note that a workload was not linted, made an input error by `--strict`.
fn strict_error(mut note: InputError) -> InputError {
    note.message
        .push_str(" (--strict: what is not linted fails the run)");
    note
}

/// `lint --write-baseline FILE`: records every unsuppressed finding of the run in
/// `path` and exits 0, or 2 without writing when an input could not be read (a
/// baseline of part of the inputs would drop the findings of the rest).
fn write_baseline(
    path: &std::path::Path,
    prepared: &inputs::Prepared,
    options: &RunOptions,
    stderr_style: crate::report::human::Style,
) -> io::Result<u8> {
    let dir = path
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let mut namer = baseline::Namer::new(dir);
    let mut entries = Vec::new();
    let mut input_errors = prepared.errors.len();
    prepared.print_errors(stderr_style);
    let mut take = |document: DocumentReport| {
        input_errors += document.errors.len();
        for error in &document.errors {
            diagnostic(&render_input_error(error, stderr_style));
        }
        let findings = document.analyses.iter().flat_map(|a| &a.findings);
        entries.extend(
            findings
                .filter(|located| located.suppressed.is_none())
                .map(|located| namer.entry(located)),
        );
    };
    let settings = &prepared.profile.settings;
    match &prepared.cluster {
        None => {
            pipeline::run(&prepared.inputs, settings, options, &mut take);
        }
        Some(snapshot) => {
            let owners = snapshot.owners();
            let held = snapshot.owning();
            let mut attributing = pipeline::Attributing::new(&owners, &held, &mut take);
            pipeline::run(&prepared.inputs, settings, options, |d| attributing.push(d));
            attributing.finish();
        }
    }
    if input_errors > 0 {
        diagnostic(&format!(
            "error: {} not written: {input_errors} input(s) could not be read, and a baseline must hold the findings of every input\n",
            path.display()
        ));
        return Ok(2);
    }
    let count = entries.len();
    std::fs::write(path, baseline::render(entries))?;
    diagnostic(&format!(
        "wrote {count} finding{} to the baseline {}\n",
        if count == 1 { "" } else { "s" },
        path.display()
    ));
    Ok(0)
}

/// The exit status of the output contract: 2 for unreadable input, 1 for findings at
/// or above the threshold, else 0.
pub fn exit_status(summary: &Summary, fail_on: FailOn) -> u8 {
    if summary.input_errors > 0 || summary.unwritten > 0 {
        return 2;
    }
    let Some(threshold) = fail_on.threshold() else {
        return 0;
    };
    u8::from(summary.at_or_above(threshold) > 0)
}
