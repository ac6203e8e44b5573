//! One version of a document, linted: the pipeline `lint` runs, over the buffer's
//! text, with the document's context. A document being typed often does not parse; its
//! snapshot then keeps, besides the error, the findings the last snapshot had in the
//! part that no longer parses, moved to where their lines are now.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use lsp_types::Uri;

use super::context::{Context, Prepared, Workspace};
use super::document::OpenDocument;
use super::position::{Encoding, LineIndex};
use crate::load::{Document, EntryPart, InputError, Piece, Pos, Span};
use crate::pipeline::{self, Analysis, Located, Place};

/// A document's text at one version and what linting it found.
pub struct Snapshot {
    /// The document.
    pub uri: Uri,
    /// The editor's version of the text.
    pub version: i32,
    /// The text linted.
    pub text: Arc<str>,
    /// Its lines, for the editor's positions.
    pub lines: LineIndex,
    /// What came of it.
    pub verdict: Verdict,
}

/// What linting a document came to.
pub enum Verdict {
    /// Nothing to say: not a manifest, or left out by the config's `exclude:`.
    Silent,
    /// The config file is wrong, so nothing is linted, as `lint` refuses to run.
    Unusable {
        /// The config file.
        config: Option<PathBuf>,
        /// What is wrong in it.
        errors: Vec<InputError>,
    },
    /// Linted.
    Linted(Box<Linted>),
}

/// The pipeline's results for a document.
pub struct Linted {
    /// What it was linted with.
    pub context: Context,
    /// Each workload's analysis: plan, timeline and findings.
    pub analyses: Vec<Analysis>,
    /// What could not be read or understood.
    pub errors: Vec<InputError>,
    /// Objects holding a pod that are not linted, with why and what to do.
    pub notes: Vec<InputError>,
    /// Workloads left out on purpose (no containers: a kustomize patch).
    pub skipped: Vec<InputError>,
    /// Findings of the previous snapshot in the documents that no longer parse, at
    /// their lines in this text; they carry no fix, whose edits were for the old text.
    pub carried: Vec<Located>,
    workloads: OnceLock<Vec<Workload>>,
}

/// Where a workload's `kind` and `metadata.name` are, for hovers over them.
#[derive(Clone, Debug)]
pub struct Workload {
    /// Its analysis, an index in [`Linted::analyses`].
    pub analysis: usize,
    /// The values of `kind` and `metadata.name`.
    pub spans: Vec<Span>,
}

impl Linted {
    /// The findings to show: those of this text that no annotation suppresses, then the
    /// carried ones.
    pub fn findings(&self) -> impl Iterator<Item = &Located> {
        self.analyses
            .iter()
            .flat_map(|analysis| &analysis.findings)
            .filter(|located| located.suppressed.is_none())
            .chain(&self.carried)
    }

    /// Calls `each` with every document of the buffer, parsed again: the pipeline does
    /// not keep the trees.
    pub fn each_document(&self, mut each: impl FnMut(&Document)) {
        let limits = self.context.options.limits;
        self.context.inputs.read_all(|unit| {
            if let Ok(parsed) = unit.documents(&limits, 1) {
                parsed.documents.iter().for_each(&mut each);
            }
        });
    }

    /// Where each workload's `kind` and `metadata.name` are, found the first time this
    /// is asked.
    pub fn workloads(&self) -> &[Workload] {
        self.workloads.get_or_init(|| {
            let mut found = Vec::new();
            self.each_document(|document| {
                for (at, analysis) in self.analyses.iter().enumerate() {
                    if analysis.document != document.index {
                        continue;
                    }
                    let paths = &analysis.plan.paths;
                    let spans = [paths.object.key("kind"), paths.metadata.key("name")]
                        .iter()
                        .map(|path| document.locate(path, EntryPart::Value))
                        .filter(|located| located.exact)
                        .map(|located| located.span)
                        .collect();
                    found.push(Workload {
                        analysis: at,
                        spans,
                    });
                }
            });
            found
        })
    }
}

/// Lints `document` as it is now, with `open` the other open documents' buffers and
/// `previous` the last snapshot of the same document.
pub fn analyse(
    workspace: &Workspace,
    document: &OpenDocument,
    open: &[(PathBuf, Arc<str>)],
    previous: Option<&Snapshot>,
    encoding: Encoding,
) -> Snapshot {
    let text = document.text.clone();
    let verdict = if !looks_like_manifest(&text) {
        Verdict::Silent
    } else {
        match workspace.prepare(document.path.as_deref(), &text, open) {
            Prepared::Excluded => Verdict::Silent,
            Prepared::Unusable { config, errors } => Verdict::Unusable { config, errors },
            Prepared::Lint(context) => Verdict::Linted(Box::new(lint(context, &text, previous))),
        }
    };
    Snapshot {
        uri: document.uri.clone(),
        version: document.version,
        lines: LineIndex::new(&text, encoding),
        text,
        verdict,
    }
}

/// Runs the pipeline over the buffer.
fn lint(context: Context, text: &str, previous: Option<&Snapshot>) -> Linted {
    let mut linted = Linted {
        analyses: Vec::new(),
        errors: Vec::new(),
        notes: Vec::new(),
        skipped: Vec::new(),
        carried: Vec::new(),
        workloads: OnceLock::new(),
        context,
    };
    pipeline::run(
        &linted.context.inputs,
        &linted.context.settings,
        &linted.context.options,
        |report| {
            linted.analyses.extend(report.analyses);
            linted.errors.extend(report.errors);
            for note in report.notes {
                match note.why {
                    crate::workload::Unlinted::NoContainers => linted.skipped.push(note.error),
                    _ => linted.notes.push(note.error),
                }
            }
        },
    );
    if let Some(previous) = previous
        && let Verdict::Linted(before) = &previous.verdict
        && !linted.errors.is_empty()
    {
        linted.carried = carry(before, &previous.text, &linted, text);
    }
    linted
}

/// The findings of `before`, linted from `old`, that lie in the documents of `new`
/// that now fail, at their new lines: those whose lines are unchanged, and that `now`
/// does not report itself.
fn carry(before: &Linted, old: &str, now: &Linted, new: &str) -> Vec<Located> {
    let failing: Vec<(u32, u32)> = failing_spans(now);
    if failing.is_empty() {
        return Vec::new();
    }
    let lines = line_map(old, new);
    let moved = |place: &Place| -> Option<Place> {
        let start = *lines.get(&place.start.line)?;
        let end = *lines.get(&place.end.line)?;
        Some(Place {
            start: Pos {
                line: start,
                column: place.start.column,
            },
            end: Pos {
                line: end,
                column: place.end.column,
            },
            ..place.clone()
        })
    };
    let fresh: HashSet<(&str, Pos)> = now
        .analyses
        .iter()
        .flat_map(|analysis| &analysis.findings)
        .map(|located| (located.finding.rule.id, located.primary.start))
        .collect();
    before
        .findings()
        .filter_map(|located| {
            let primary = moved(&located.primary)?;
            let inside = failing
                .iter()
                .any(|&(first, last)| (first..=last).contains(&primary.start.line));
            if !inside || fresh.contains(&(located.finding.rule.id, primary.start)) {
                return None;
            }
            Some(Located {
                related: located.related.iter().filter_map(&moved).collect(),
                primary,
                fix: None,
                ..located.clone()
            })
        })
        .collect()
}

/// The first and last lines of each piece of the buffer in which something could not
/// be read, as the pipeline cut the buffer.
fn failing_spans(linted: &Linted) -> Vec<(u32, u32)> {
    let error_lines: Vec<u32> = linted
        .errors
        .iter()
        .filter_map(|error| error.pos.map(|pos| pos.line))
        .collect();
    let mut spans = Vec::new();
    for source in linted.context.inputs.sources() {
        for piece in source.pieces(&linted.context.limits) {
            let Piece::Text {
                first_line, text, ..
            } = piece
            else {
                continue;
            };
            let last = first_line + text.lines().count().saturating_sub(1) as u32;
            if error_lines
                .iter()
                .any(|line| (first_line..=last).contains(line))
            {
                spans.push((first_line, last));
            }
        }
    }
    spans
}

/// Where each line of `old` that is unchanged is in `new`, by 1-based line numbers.
fn line_map(old: &str, new: &str) -> HashMap<u32, u32> {
    let diff = similar::TextDiff::from_lines(old, new);
    let mut lines = HashMap::new();
    for op in diff.ops() {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = *op
        {
            for offset in 0..len {
                lines.insert(
                    (old_index + offset + 1) as u32,
                    (new_index + offset + 1) as u32,
                );
            }
        }
    }
    lines
}

/// Whether the text can be a Kubernetes manifest: it states an `apiVersion`, which every
/// object kubectl reads has. A workflow, a Compose file or a chart's values get nothing,
/// not even when they do not parse.
pub fn looks_like_manifest(text: &str) -> bool {
    let mut rest = text;
    while let Some(at) = rest.find("apiVersion") {
        let after = rest[at + "apiVersion".len()..]
            .trim_start_matches(['"', '\''])
            .trim_start_matches([' ', '\t']);
        if after.starts_with(':') {
            return true;
        }
        rest = &rest[at + "apiVersion".len()..];
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifests_state_an_api_version() {
        assert!(looks_like_manifest("apiVersion: v1\nkind: Pod\n"));
        assert!(looks_like_manifest("{\"apiVersion\": \"v1\"}"));
        assert!(looks_like_manifest("items:\n- apiVersion : apps/v1\n"));
        assert!(!looks_like_manifest(
            "on: push\njobs:\n  build: {runs-on: x}\n"
        ));
        assert!(!looks_like_manifest("# apiVersion of the chart\nname: x\n"));
    }

    #[test]
    fn unchanged_lines_are_followed_through_an_edit() {
        let old = "a: 1\nb: 2\nc: 3\n";
        let new = "a: 1\nnew: 0\nb: 2\nc: [\n";
        let lines = line_map(old, new);
        assert_eq!(lines.get(&1), Some(&1));
        assert_eq!(lines.get(&2), Some(&3));
        assert_eq!(lines.get(&3), None, "an edited line has no place");
    }
}
