//! The fix engine for a front end: `lint --fix` and `--diff` on the command line, and
//! an editor's quick fixes and "fix all" through a language server.
//!
//! A front end has the text of one input (a file, an editor buffer, a stream), the
//! run's [`Settings`] (the profile and the context other inputs give: Namespaces, mesh
//! configuration) and its [`RunOptions`] (the rule policy, limits). It asks:
//!
//! * [`check`]: the findings of the text, each with its fix checked against the
//!   timeline. A finding's [`Located::fix`] is `Some(Ok(planned))` only for a fix that
//!   passed: its edits (`planned.fix.edits`, byte offsets in the document's text
//!   `located.source.text`; [`Located::fix_edits`] gives line and column positions in
//!   the input) make exactly the intended change, remove the finding, and make no
//!   finding of any rule new, more severe or longer. `Some(Err(reason))` is a fix that
//!   was refused, with why; `None` a finding without a mechanical remedy. A quick fix
//!   offers the first kind only.
//! * [`fix_all`]: the text with every fix at least as safe as a given
//!   [`Applicability`] made, in verified rounds, to a fixed point: running it again on
//!   the result changes nothing. A "fix all" action replaces the buffer with
//!   [`FixedText::fixed`].
//!
//! Both read the text as the command line reads standard input (cut into documents
//! within `options.limits`; `name` names it in findings and errors) and cost a few
//! analyses per document with a fix, linear in the text's length. The command line
//! uses the same pieces on many inputs at once: [`crate::pipeline::run_indexed`] with
//! [`FixMode::Apply`], each input's pieces gathered by an [`InputFix`].

use std::sync::Arc;

use super::fixed::{Made, Refused};
use crate::fix::{Applicability, Fix};
use crate::load::{InputError, Inputs, Source};
use crate::pipeline::{self, DocumentReport, FixMode, Located, RunOptions};
use crate::settings::Settings;

/// The findings of one input's text, each document's report in order.
#[derive(Debug, Default)]
pub struct Checked {
    /// One report per piece of the text (a document, as the reader cuts them).
    pub reports: Vec<DocumentReport>,
}

impl Checked {
    /// Every finding, in order, suppressed ones included (see [`Located::suppressed`]).
    pub fn findings(&self) -> impl Iterator<Item = &Located> {
        self.reports
            .iter()
            .flat_map(|report| &report.analyses)
            .flat_map(|analysis| &analysis.findings)
    }

    /// What in the text could not be read.
    pub fn errors(&self) -> impl Iterator<Item = &InputError> {
        self.reports.iter().flat_map(|report| &report.errors)
    }
}

/// The findings of `text`, the content of the input `name`, with their fixes checked.
pub fn check(name: &str, text: &str, settings: &Settings, options: &RunOptions) -> Checked {
    let mut checked = Checked::default();
    run(name, text, settings, options, FixMode::Verify, |report| {
        checked.reports.push(report)
    });
    checked
}

/// `text`, the content of the input `name`, with every fix at least as safe as
/// `at_least` made (display-only fixes never are).
pub fn fix_all(
    name: &str,
    text: &str,
    settings: &Settings,
    options: &RunOptions,
    at_least: Applicability,
) -> FixedText {
    let mut input = InputFix::default();
    run(
        name,
        text,
        settings,
        options,
        FixMode::Apply(at_least),
        |report| input.add(&report),
    );
    input.finish()
}

fn run(
    name: &str,
    text: &str,
    settings: &Settings,
    options: &RunOptions,
    fixes: FixMode,
    sink: impl FnMut(DocumentReport),
) {
    let limits = options_read_limits(options);
    let inputs = Inputs::from_sources(
        vec![Source::stream(Arc::from(name), text.as_bytes(), &limits)],
        limits,
    );
    let options = RunOptions {
        fixes,
        ..options.clone()
    };
    pipeline::run(&inputs, settings, &options, sink);
}

/// The checked fix of `located`, a finding of [`check`] on `text`, with its edits at
/// byte offsets in the whole `text` (a finding's own edits are offsets in its
/// document's text, `located.source.text`); `Err` says why it is not offered: it
/// failed its check, or the manifest is not shaped for it, or the finding has none.
pub fn fix_in_text(text: &str, located: &Located) -> Result<Fix, String> {
    let planned = match &located.fix {
        Some(Ok(planned)) if !planned.fix.edits.is_empty() => planned,
        Some(Ok(_)) => return Err("the fix has nothing to change".to_owned()),
        Some(Err(reason)) => return Err(reason.clone()),
        None => return Err("the finding has no fix".to_owned()),
    };
    let mut at = 0;
    for _ in 1..located.source.first_line {
        at = crate::load::next_line(text, at)
            .ok_or("the document's text is not where the finding places it")?;
    }
    if !text[at..].starts_with(located.source.text.as_ref()) {
        return Err("the document's text is not where the finding places it".to_owned());
    }
    let mut fix = planned.fix.clone();
    for edit in &mut fix.edits {
        edit.range = edit.range.start + at..edit.range.end + at;
    }
    Ok(fix)
}

/// The read limits of a text given whole: the document limit the options parse with,
/// and the other bounds' defaults.
fn options_read_limits(options: &RunOptions) -> crate::load::ReadLimits {
    crate::load::ReadLimits {
        document_bytes: options.limits.max_document_bytes,
        ..crate::load::ReadLimits::default()
    }
}

/// One input's text with its fixes made.
#[derive(Clone, Debug, Default)]
pub struct FixedText {
    /// The text as read.
    pub original: String,
    /// The text with every fix made.
    pub fixed: String,
    /// The text with every fix made except in documents Helm rendered, whose fixes
    /// belong in the chart: what is written back to a file.
    pub in_place: String,
    /// The fixes made, in order, in documents not rendered by Helm: those `in_place`
    /// holds.
    pub made: Vec<Made>,
    /// Findings of the documents `in_place` holds that the fixes cleared beyond
    /// those in `made` ([`super::fixed::FixedPiece::also_cleared`]).
    pub also_cleared: usize,
    /// Findings of those documents left with an unsafe fix that passed its check, when
    /// only safe fixes were made ([`super::fixed::FixedPiece::hidden`]).
    pub hidden: usize,
    /// The fixes made in documents Helm rendered: `fixed` holds them, `in_place` not.
    pub made_rendered: Vec<Made>,
    /// The templates those documents were rendered from, once each.
    pub rendered_from: Vec<String>,
    /// Fixes selected but not made, with why, and where (lines in `fixed`).
    pub refused: Vec<Refused>,
    /// Whether some piece still had fixes due after [`super::rounds::MAX_ROUNDS`].
    pub unfinished: bool,
    /// Whether a part of the input could not be read: its text is not all here, so
    /// nothing of it may be written back.
    pub incomplete: bool,
    /// What could not be read.
    pub errors: Vec<InputError>,
}

/// An input's [`FixedText`], put together from its pieces' reports as the pipeline
/// hands them out in order.
#[derive(Debug, Default)]
pub struct InputFix {
    text: FixedText,
}

impl InputFix {
    /// Adds the next piece's report (made with [`FixMode::Apply`]).
    pub fn add(&mut self, report: &DocumentReport) {
        let text = &mut self.text;
        text.errors.extend(report.errors.iter().cloned());
        let Some(piece) = &report.fixed else {
            text.incomplete = true;
            return;
        };
        text.original.push_str(&piece.original);
        text.fixed.push_str(&piece.text);
        match &piece.rendered_from {
            Some(template) => {
                text.in_place.push_str(&piece.original);
                text.made_rendered.extend(piece.made.iter().cloned());
                if !piece.made.is_empty() && !text.rendered_from.contains(template) {
                    text.rendered_from.push(template.clone());
                }
            }
            None => {
                text.in_place.push_str(&piece.text);
                text.made.extend(piece.made.iter().cloned());
                text.also_cleared += piece.also_cleared;
                text.hidden += piece.hidden;
            }
        }
        text.refused.extend(piece.refused.iter().cloned());
        text.unfinished |= piece.unfinished;
    }

    /// The input's text, once every piece is added.
    pub fn finish(self) -> FixedText {
        self.text
    }
}
