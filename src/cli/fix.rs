//! `lint --fix` and `--diff`: each input's text fixed one verified fix at a time, then
//! written back, printed (standard input) or shown as a diff.
//!
//! A fix is made only when it passes every check: its edits apply to the text, the
//! result reads as the original with exactly the remedy's changes ([`fix::verify`]),
//! and linting the result again shows its finding gone and no finding that was not
//! there before. The text is linted again after every fix, so fixes whose edits would
//! conflict are made one after the other on fresh positions (ruff's rounds, one fix a
//! round); a fix that fails a check is dropped with a note, and the run goes on with
//! the others.

use std::collections::HashSet;
use std::sync::Arc;

use crate::fix::{self, Planned};
use crate::load::{self, Inputs, ReadLimits, Source};
use crate::pipeline::{self, Located, RunOptions};
use crate::settings::Settings;
use crate::workload::WorkloadRef;

/// At most this many fixes are made to one input: each is followed by a lint of the
/// whole text, and a rule whose fix kept producing new findings must not loop.
const MAX_FIXES: usize = 100;

/// What fixing one input's text came to.
pub struct Fixed {
    /// The text with every fix that passed its checks.
    pub text: String,
    /// How many fixes were made.
    pub applied: usize,
    /// Fixes dropped, with why, as notes for the user.
    pub notes: Vec<String>,
    /// The findings the fixed text still has.
    pub remaining: Vec<Located>,
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

/// Fixes `text`, the content of the input `name`, with the selected fixes.
pub fn fix_text(
    name: &Arc<str>,
    text: &str,
    settings: &Settings,
    options: &RunOptions,
    limits: ReadLimits,
    unsafe_fixes: bool,
) -> Fixed {
    let lint = |text: &str| lint_text(name, text, settings, options, limits);
    let mut fixed = Fixed {
        text: text.to_owned(),
        applied: 0,
        notes: Vec::new(),
        remaining: lint(text),
    };
    let mut dropped: HashSet<Key> = HashSet::new();
    for _ in 0..MAX_FIXES {
        let next = fixed.remaining.iter().find(|located| {
            located.finding.fix.as_ref().is_some_and(|remedy| {
                remedy.applicability.is_applied(unsafe_fixes) && !remedy.changes.is_empty()
            }) && !dropped.contains(&key(located))
        });
        let Some(located) = next else { break };
        let attempt = match &located.fix {
            Some(Ok(planned)) => attempt(
                &fixed.text,
                located,
                planned,
                &fixed.remaining,
                &lint,
                unsafe_fixes,
            ),
            Some(Err(reason)) => Err(reason.clone()),
            None => Err("the fix could not be built".to_owned()),
        };
        match attempt {
            Ok((text, remaining)) => {
                fixed.text = text;
                fixed.remaining = remaining;
                fixed.applied += 1;
            }
            Err(reason) => {
                fixed.notes.push(format!(
                    "{}:{}: the fix for {} was not made: {reason}",
                    name, located.primary.start.line, located.finding.rule.id
                ));
                dropped.insert(key(located));
            }
        }
    }
    fixed
}

/// Makes one fix to `text` and checks it; `Ok` holds the new text and its findings.
fn attempt(
    text: &str,
    located: &Located,
    planned: &Planned,
    before: &[Located],
    lint: &dyn Fn(&str) -> Vec<Located>,
    unsafe_fixes: bool,
) -> Result<(String, Vec<Located>), String> {
    let base = document_offset(text, located)
        .ok_or("the document's text is not where the finding places it")?;
    let mut shifted = planned.fix.clone();
    for edit in &mut shifted.edits {
        edit.range = edit.range.start + base..edit.range.end + base;
    }
    let round = fix::apply_fixes(text, std::slice::from_ref(&shifted), unsafe_fixes);
    match &round.outcomes[0] {
        fix::Outcome::Applied => {}
        fix::Outcome::Invalid(reason) => return Err(reason.clone()),
        other => return Err(format!("{other:?}")),
    }
    fix::verify(text, &round.text, located.document, &planned.changes)
        .map_err(|rejection| rejection.reason)?;
    let after = lint(&round.text);
    let fixed_key = key(located);
    let known: HashSet<Key> = before.iter().map(key).collect();
    if after.iter().any(|other| key(other) == fixed_key) {
        return Err("the finding is still there after it".to_owned());
    }
    if let Some(new) = after.iter().find(|other| !known.contains(&key(other))) {
        return Err(format!(
            "it would bring a new finding ({}: {})",
            new.finding.rule.id, new.finding.message
        ));
    }
    Ok((round.text, after))
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

/// The unsuppressed findings of `text`, read as the input `name`.
pub fn lint_text(
    name: &Arc<str>,
    text: &str,
    settings: &Settings,
    options: &RunOptions,
    limits: ReadLimits,
) -> Vec<Located> {
    let inputs = Inputs::from_sources(
        vec![Source::stream(name.clone(), text.as_bytes(), &limits)],
        limits,
    );
    let options = RunOptions {
        threads: 1,
        ..options.clone()
    };
    let mut found = Vec::new();
    pipeline::run(&inputs, settings, &options, |report| {
        found.extend(report.analyses.into_iter().flat_map(|a| a.findings));
    });
    found.retain(|located| located.suppressed.is_none());
    found
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
            Source::Stdin { pieces, .. } => (joined(pieces), Target::Stdout),
            Source::Stream { pieces, .. } => (
                joined(pieces),
                Target::DiffOnly("it is a stream, not a file it can be written back to"),
            ),
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
                out.write_all(fix::unified_diff(name, &text, &fixed.text).as_bytes())?;
                printed = true;
            }
            _ if differs && args.diff => {
                out.write_all(fix::unified_diff(name, &text, &fixed.text).as_bytes())?;
            }
            _ => {}
        }
    }
    out.flush()?;
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

/// A stream's text again, from the pieces it was cut into.
fn joined(pieces: &[load::Piece]) -> String {
    pieces
        .iter()
        .filter_map(|piece| match piece {
            load::Piece::Text { text, .. } => Some(text.as_ref()),
            load::Piece::Failed(_) => None,
        })
        .collect()
}
