//! `lint --fix` and `--diff`: each input's text fixed in verified rounds, then written
//! back, printed (standard input) or shown as a diff.
//!
//! A round, as in ruff, makes every selected fix whose edits do not conflict with an
//! earlier one's, all together, then lints the text once: the findings it shows give
//! the next round fresh positions, so a deferred fix is made on the new text. A round's
//! fixes are kept only when they pass every check together: the result reads as the
//! original with exactly their changes ([`fix::verify_all`]), and the lint shows each
//! of their findings gone and no finding that was not there before. When a round
//! fails, its first fix is tried alone: kept if it passes, else dropped with a note;
//! the next round goes on with the others.
//!
//! Every lint of a fixed text uses the run's settings, which hold the context the other
//! inputs give (Namespaces whose labels decide injection, mesh configuration): an input
//! is fixed as the run judged it, not as it would be judged alone.

use std::collections::HashSet;
use std::sync::Arc;

use crate::fix::{self, Fix};
use crate::load::{self, InputError, Inputs, ReadLimits, Source};
use crate::pipeline::{self, Located, RunOptions};
use crate::report::paths::{Artifact, PathBase};
use crate::settings::Settings;
use crate::workload::WorkloadRef;

/// At most this many rounds are made on one input (ruff's limit too): each lints the
/// whole text, and rules whose fixes kept producing new findings must not loop.
const MAX_ROUNDS: usize = 100;

/// What fixing one input's text came to.
pub struct Fixed {
    /// The text with every fix that passed its checks.
    pub text: String,
    /// How many findings were fixed.
    pub applied: usize,
    /// Fixes dropped, with why, as notes for the user.
    pub notes: Vec<String>,
    /// The findings the fixed text still has.
    pub remaining: Vec<Located>,
    /// How many rounds linted the text after a fix.
    pub rounds: usize,
    /// What in the text could not be read: it is the same before and after the fixes,
    /// whose results must read as the original does.
    pub errors: Vec<InputError>,
}

/// What identifies a finding across edits of its text: positions move, paths do not.
type Key = (&'static str, usize, WorkloadRef, Option<String>, String);

fn key(located: &Located) -> Key {
    (
        located.finding.rule.id,
        located.document,
        located.workload.clone(),
        located.finding.container.clone(),
        located.primary.path.clone(),
    )
}

/// Whether the finding has a fix with edits that `--unsafe-fixes` (or its absence)
/// selects.
fn selected(located: &Located, unsafe_fixes: bool) -> bool {
    located.finding.fix.as_ref().is_some_and(|remedy| {
        remedy.applicability.is_applied(unsafe_fixes) && !remedy.changes.is_empty()
    })
}

/// Fixes `text`, the content of the input `name`, with the selected fixes.
pub fn fix_text(
    name: &Arc<str>,
    text: &str,
    settings: &Settings,
    options: &RunOptions,
    limits: ReadLimits,
    unsafe_fixes: bool,
) -> Fixed {
    let lint = |text: &str| lint_text(name, text, settings, options, limits).0;
    let (remaining, errors) = lint_text(name, text, settings, options, limits);
    let mut fixed = Fixed {
        text: text.to_owned(),
        applied: 0,
        notes: Vec::new(),
        remaining,
        rounds: 0,
        errors,
    };
    let mut dropped: HashSet<Key> = HashSet::new();
    let note = |located: &Located, reason: &str| {
        format!(
            "{}:{}: the fix for {} was not made: {reason}",
            name, located.primary.start.line, located.finding.rule.id
        )
    };
    let drop = |fixed: &mut Fixed, dropped: &mut HashSet<Key>, located: &Located, reason: &str| {
        fixed.notes.push(note(located, reason));
        dropped.insert(key(located));
    };
    let mut converged = false;
    for _ in 0..MAX_ROUNDS {
        let mut candidates: Vec<(Located, Fix)> = Vec::new();
        for located in fixed.remaining.clone() {
            if !selected(&located, unsafe_fixes) || dropped.contains(&key(&located)) {
                continue;
            }
            match in_file(&fixed.text, &located) {
                Ok(fix) => candidates.push((located, fix)),
                Err(reason) => drop(&mut fixed, &mut dropped, &located, &reason),
            }
        }
        if candidates.is_empty() {
            converged = true;
            break;
        }
        let fixes: Vec<Fix> = candidates.iter().map(|(_, fix)| fix.clone()).collect();
        let round = fix::apply_fixes(&fixed.text, &fixes, unsafe_fixes);
        let mut made: Vec<usize> = Vec::new();
        for (index, outcome) in round.outcomes.iter().enumerate() {
            match outcome {
                fix::Outcome::Applied => made.push(index),
                fix::Outcome::Invalid(reason) => {
                    drop(&mut fixed, &mut dropped, &candidates[index].0, reason)
                }
                fix::Outcome::Deferred | fix::Outcome::NotSelected => {}
            }
        }
        let Some(&first) = made.first() else {
            continue;
        };
        let of = |indices: &[usize]| -> Vec<&Located> {
            indices.iter().map(|&index| &candidates[index].0).collect()
        };
        fixed.rounds += 1;
        let mut outcome = check(
            &fixed.text,
            &round.text,
            &of(&made),
            &fixed.remaining,
            &lint,
        )
        .map(|after| (round.text, after));
        if outcome.is_err() && made.len() > 1 {
            // One of them is at fault, or their combination: the first, alone.
            made = vec![first];
            let alone = fix::apply_fixes(&fixed.text, &fixes[first..=first], unsafe_fixes);
            fixed.rounds += 1;
            outcome = check(
                &fixed.text,
                &alone.text,
                &of(&made),
                &fixed.remaining,
                &lint,
            )
            .map(|after| (alone.text, after));
        }
        match outcome {
            Ok((text, after)) => {
                fixed.text = text;
                fixed.remaining = after;
                fixed.applied += made.len();
            }
            Err(reason) => drop(&mut fixed, &mut dropped, &candidates[first].0, &reason),
        }
    }
    if !converged {
        fixed.notes.push(format!(
            "{name}: fixes still due after {MAX_ROUNDS} rounds; not every fix was made"
        ));
    }
    fixed
}

/// The fix of one finding of `text`, the content of the input `name`, made alone and
/// checked as a round of `--fix` checks its fixes, with `findings` the unsuppressed
/// findings of `text`: its edits at offsets in the whole text, or why it is not made.
pub fn verified_fix(
    name: &Arc<str>,
    text: &str,
    settings: &Settings,
    options: &RunOptions,
    limits: ReadLimits,
    located: &Located,
    findings: &[Located],
) -> Result<Fix, String> {
    let fix = in_file(text, located)?;
    let round = fix::apply_fixes(text, std::slice::from_ref(&fix), true);
    match round.outcomes.first() {
        Some(fix::Outcome::Applied) => {}
        Some(fix::Outcome::Invalid(reason)) => return Err(reason.clone()),
        _ => return Err("it has nothing to change".to_owned()),
    }
    let lint = |text: &str| lint_text(name, text, settings, options, limits).0;
    check(text, &round.text, &[located], findings, &lint)?;
    Ok(fix)
}

/// The finding's fix with its edits at offsets in the whole `text`.
fn in_file(text: &str, located: &Located) -> Result<Fix, String> {
    let planned = match &located.fix {
        Some(Ok(planned)) => planned,
        Some(Err(reason)) => return Err(reason.clone()),
        None => return Err("the fix could not be built".to_owned()),
    };
    let base = document_offset(text, located)
        .ok_or("the document's text is not where the finding places it")?;
    let mut shifted = planned.fix.clone();
    for edit in &mut shifted.edits {
        edit.range = edit.range.start + base..edit.range.end + base;
    }
    Ok(shifted)
}

/// Checks the fixes of `made`, whose edits turned `text` into `new_text`: it must read
/// as `text` with their changes, and its lint must show their findings gone and no
/// finding not in `before`. `Ok` holds the new text's findings.
fn check(
    text: &str,
    new_text: &str,
    made: &[&Located],
    before: &[Located],
    lint: &dyn Fn(&str) -> Vec<Located>,
) -> Result<Vec<Located>, String> {
    let changes: Vec<(usize, &[fix::Change])> = made
        .iter()
        .filter_map(|located| match &located.fix {
            Some(Ok(planned)) => Some((located.document, &planned.changes[..])),
            _ => None,
        })
        .collect();
    fix::verify_all(text, new_text, &changes).map_err(|rejection| rejection.reason)?;
    let after = lint(new_text);
    let fixed: HashSet<Key> = made.iter().map(|located| key(located)).collect();
    if let Some(still) = after.iter().find(|other| fixed.contains(&key(other))) {
        return Err(format!(
            "the finding is still there after it ({}: {})",
            still.finding.rule.id, still.finding.message
        ));
    }
    let known: HashSet<Key> = before.iter().map(key).collect();
    if let Some(new) = after.iter().find(|other| !known.contains(&key(other))) {
        return Err(format!(
            "it would bring a new finding ({}: {})",
            new.finding.rule.id, new.finding.message
        ));
    }
    Ok(after)
}

/// The byte offset in `text` where the document the finding is in starts: the start
/// of its first line, checked to hold the document's text.
fn document_offset(text: &str, located: &Located) -> Option<usize> {
    let mut at = 0;
    for _ in 1..located.source.first_line {
        at = load::next_line(text, at)?;
    }
    text[at..]
        .starts_with(located.source.text.as_ref())
        .then_some(at)
}

/// The unsuppressed findings of `text`, read as the input `name`, and what in it
/// could not be read.
fn lint_text(
    name: &Arc<str>,
    text: &str,
    settings: &Settings,
    options: &RunOptions,
    limits: ReadLimits,
) -> (Vec<Located>, Vec<InputError>) {
    let inputs = Inputs::from_sources(
        vec![Source::stream(name.clone(), text.as_bytes(), &limits)],
        limits,
    );
    let options = RunOptions {
        threads: 1,
        ..options.clone()
    };
    let mut found = Vec::new();
    let mut errors = Vec::new();
    pipeline::run(&inputs, settings, &options, |report| {
        found.extend(report.analyses.into_iter().flat_map(|a| a.findings));
        errors.extend(report.errors);
    });
    found.retain(|located| located.suppressed.is_none());
    (found, errors)
}

/// Where a fixed text goes.
enum Target<'a> {
    /// Written back to the file.
    File(&'a std::path::Path),
    /// Printed on standard output (standard input, as ruff does).
    Stdout,
    /// Nowhere: the input cannot be written back, so it gets the diff, and why.
    DiffOnly(&'static str),
}

/// `lint --fix`, `--diff`, `--unsafe-fixes` over every input. `Ok(None)` when the
/// fixes were written back to files only: the caller then reports what remains, as a
/// run without `--fix` would. Otherwise the exit status: for `--diff`, 1 when there is
/// something to change; with standard input fixed onto standard output, that of the
/// findings that remain.
pub fn run(
    args: &super::LintArgs,
    prepared: &super::inputs::Prepared,
    options: &RunOptions,
) -> std::io::Result<Option<u8>> {
    use std::io::Write;
    let settings = &prepared.profile.settings;
    let limits = args.input.read_limits();
    let mut out = std::io::stdout().lock();
    let mut changed = false;
    let mut printed = false;
    let mut remaining = crate::report::Summary {
        input_errors: prepared.errors.len(),
        ..crate::report::Summary::default()
    };
    // What could not be read, reported here when this run's status is decided here.
    let mut unread: Vec<InputError> = Vec::new();
    let note = |text: &str| {
        if !args.quiet {
            super::diagnostic(&format!("note: {text}\n"));
        }
    };
    for source in prepared.inputs.sources() {
        let name = source.name();
        let (text, target) = match source {
            Source::File { path, .. } => match std::fs::read_to_string(path) {
                Ok(text) => (text, Target::File(path)),
                Err(error) => {
                    super::diagnostic(&format!(
                        "error: {name}: cannot be read to fix it: {}\n",
                        load::discover::describe_io(&error)
                    ));
                    remaining.input_errors += 1;
                    continue;
                }
            },
            Source::Stdin { pieces, .. } | Source::Stream { pieces, .. } => {
                let target = match source {
                    Source::Stdin { .. } => Target::Stdout,
                    _ => Target::DiffOnly("it is a stream, not a file it can be written back to"),
                };
                match joined(pieces) {
                    Ok(text) => (text, target),
                    Err(error) => {
                        // Its text is not all there to print back: nothing is fixed.
                        unread.push(error.clone());
                        printed |= matches!(target, Target::Stdout);
                        continue;
                    }
                }
            }
        };
        let target = if prepared.cluster.is_some() {
            Target::DiffOnly("it was read from the cluster; change its manifest instead")
        } else {
            target
        };
        let fixed = fix_text(name, &text, settings, options, limits, args.unsafe_fixes);
        for text in &fixed.notes {
            note(text);
        }
        unread.extend(fixed.errors.iter().cloned());
        let target =
            if fixed.remaining.iter().any(|l| l.origin.is_some()) || text.contains("# Source: ") {
                Target::DiffOnly("it was rendered by Helm; change the chart's templates instead")
            } else {
                target
            };
        for located in &fixed.remaining {
            match located.finding.severity {
                crate::rules::Severity::Error => remaining.errors += 1,
                crate::rules::Severity::Warning => remaining.warnings += 1,
                crate::rules::Severity::Info => remaining.infos += 1,
            }
        }
        let differs = fixed.text != text;
        changed |= differs;
        match target {
            Target::File(path) if args.fix && !args.diff && differs => {
                std::fs::write(path, &fixed.text).map_err(|error| {
                    std::io::Error::new(error.kind(), format!("cannot write {name}: {error}"))
                })?;
                note(&format!("{name}: {}", count(fixed.applied)));
            }
            Target::File(_) if !args.diff => {}
            Target::Stdout if args.fix && !args.diff => {
                out.write_all(fixed.text.as_bytes())?;
                printed = true;
                note(&format!(
                    "{name}: {}, {} remaining",
                    count(fixed.applied),
                    fixed.remaining.len()
                ));
            }
            Target::DiffOnly(why) if differs && !args.diff => {
                note(&format!("{name}: not fixed in place, {why}; the diff:"));
                out.write_all(fix::unified_diff(&diff_path(name), &text, &fixed.text).as_bytes())?;
                printed = true;
            }
            _ if differs && args.diff => {
                out.write_all(fix::unified_diff(&diff_path(name), &text, &fixed.text).as_bytes())?;
            }
            _ => {}
        }
    }
    out.flush()?;
    remaining.input_errors += unread.len();
    if args.diff || printed {
        let style = args.output.stderr_style();
        for error in &unread {
            super::diagnostic(&crate::report::human::render_input_error(error, style));
        }
    }
    if args.diff {
        return Ok(Some(if remaining.input_errors > 0 {
            2
        } else {
            u8::from(changed)
        }));
    }
    Ok(printed.then(|| super::lint::exit_status(&remaining, args.fail_on)))
}

/// "1 fix made", "3 fixes made".
fn count(applied: usize) -> String {
    match applied {
        1 => "1 fix made".to_owned(),
        n => format!("{n} fixes made"),
    }
}

/// A stream's text again, from the pieces it was cut into; `Err` with the error of a
/// piece that could not be read, whose text is gone.
fn joined(pieces: &[load::Piece]) -> Result<String, &InputError> {
    let mut text = String::new();
    for piece in pieces {
        match piece {
            load::Piece::Text { text: piece, .. } => text.push_str(piece),
            load::Piece::Failed(error) => return Err(error),
        }
    }
    Ok(text)
}

/// The path the headers of an input's diff name: relative to the current directory
/// when the file lies under it (`./deploy/x.yaml` and `$PWD/deploy/x.yaml` are both
/// `deploy/x.yaml`), so that `git apply` takes the diff there; else absolute; standard
/// input by its `--stdin-filename`, or `-`.
fn diff_path(name: &str) -> String {
    let Ok(base) = PathBase::current_dir() else {
        return name.to_owned();
    };
    match base.artifact(name) {
        Artifact::Stdin => name.to_owned(),
        Artifact::Relative(path) => path,
        Artifact::Absolute(path) => path.to_string_lossy().into_owned(),
    }
}
