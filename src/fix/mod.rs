//! Fixes that apply themselves: typed edits to a manifest's text, applied in rounds,
//! verified against the decoded object, shown as a unified diff.
//!
//! A rule that knows the remedy for its finding describes it as a [`Fix`]: how safe it
//! is to apply ([`Applicability`]), one line saying what it does, and the [`Edit`]s,
//! byte ranges of the file's text with their replacements. The edits are built with an
//! [`Editor`] over the document's positioned tree, so everything outside the edited
//! spans stays byte for byte what the user wrote: comments, quoting, key order, anchors,
//! line endings and the other documents of the stream.
//!
//! * [`apply`]: picks the fixes that do not overlap and applies them together; the
//!   others are deferred to the next round, after the caller has linted again, as ruff
//!   does.
//! * [`edit`]: the edit builders: replace a scalar in its own quoting style, insert a
//!   key or a whole nested block following the file's indentation (two or four spaces,
//!   indented or not-indented sequences, block or flow mappings), remove a key, and
//!   edit inside an annotation that holds YAML or JSON in that value's own format.
//! * [`verify`]: re-reads the fixed text with the loader and checks that it decodes to
//!   the original object with exactly the intended change.
//! * [`diff`]: the unified diff `--diff` prints.
//!
//! # Why the edits are built on our own tree, not with a YAML editing crate
//!
//! `yaml-edit` (0.3.6, a lossless rowan-based YAML editor) was tried on the cases this
//! module has to get right. It keeps comments, CRLF line ends and flow mappings, but:
//!
//! * it parses the text with its own parser, while what a manifest means is what
//!   kubectl reads, which [`crate::load`] reproduces (YAML 1.1 scalars, merge keys,
//!   quoted scalars continued at any indentation, kubectl's document cuts). An edit
//!   located by a second reading can land on a node the linter never saw;
//! * a nested mapping it inserts into a file indented with four spaces is indented with
//!   two (`metadata:\n    name: web` gets `    annotations:\n      key: value`), and
//!   setting a single-quoted scalar drops its quotes;
//! * it edits a whole document in memory and prints it again, while findings need byte
//!   ranges with replacement text (JSON `fix.edits`, SARIF `replacements`, edits applied
//!   in rounds), which would have to be recovered by diffing its output;
//! * it adds rowan and about 14 000 lines of a fast-moving 0.x crate for a job that
//!   the positions the loader already keeps make small.
//!
//! So the builders read node spans from [`crate::load::tree`] and write text
//! themselves; every fix is then checked by [`verify`], which re-reads the result with
//! the same loader the linter uses.

pub mod apply;
pub mod diff;
pub mod edit;
mod render;
pub mod verify;

use std::ops::Range;

use crate::load::JsonPath;
use crate::load::path::Segment;

pub use apply::{Applied, Outcome, apply_fixes};
pub use diff::unified_diff;
pub use edit::{EditError, Editor};
pub use verify::{Change, Rejection, verify, verify_all};

/// How safe a fix is to apply without a human looking at it, ordered from least to
/// most (ruff's three levels).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Applicability {
    /// Shown as a suggestion, never applied: the remedy needs a choice only the user
    /// can make.
    DisplayOnly,
    /// Changes behaviour a human should review (a longer grace period, a different
    /// stop command); applied with `--unsafe-fixes`.
    Unsafe,
    /// Keeps the pod's meaning apart from removing the hazard; applied by `--fix`.
    Safe,
}

impl Applicability {
    /// The name machine formats and docs use: `safe`, `unsafe`, `display-only`.
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::Safe => "safe",
            Applicability::Unsafe => "unsafe",
            Applicability::DisplayOnly => "display-only",
        }
    }

    /// Whether a fix of this applicability is applied, with or without
    /// `--unsafe-fixes`.
    pub fn is_applied(self, unsafe_fixes: bool) -> bool {
        match self {
            Applicability::Safe => true,
            Applicability::Unsafe => unsafe_fixes,
            Applicability::DisplayOnly => false,
        }
    }
}

/// One change to a file's text: the bytes of `range` replaced by `replacement`. An
/// empty range inserts; an empty replacement deletes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Edit {
    /// Byte offsets in the file's text, start inclusive, end exclusive.
    pub range: Range<usize>,
    /// The text put in place of the range.
    pub replacement: String,
}

impl Edit {
    /// Replaces `range` with `replacement`.
    pub fn replace(range: Range<usize>, replacement: impl Into<String>) -> Edit {
        Edit {
            range,
            replacement: replacement.into(),
        }
    }

    /// Inserts `text` at byte offset `at`.
    pub fn insert(at: usize, text: impl Into<String>) -> Edit {
        Edit::replace(at..at, text)
    }

    /// Deletes `range`.
    pub fn delete(range: Range<usize>) -> Edit {
        Edit::replace(range, "")
    }
}

/// The remedy for one finding. Its edits are applied all together or not at all.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fix {
    /// How safe it is to apply unreviewed.
    pub applicability: Applicability,
    /// What the fix does, as one line for the user ("set
    /// `terminationGracePeriodSeconds` to 45").
    pub description: String,
    /// The edits, in any order; they must not overlap.
    pub edits: Vec<Edit>,
}

impl Fix {
    /// A fix of `applicability` made of `edits`.
    pub fn new(
        applicability: Applicability,
        description: impl Into<String>,
        edits: Vec<Edit>,
    ) -> Fix {
        Fix {
            applicability,
            description: description.into(),
            edits,
        }
    }
}

/// A rule's remedy for its finding, stated as changes to the decoded object: what the
/// rule knows without the text. The pipeline turns it into a [`Fix`] on the document's
/// positioned tree ([`Remedy::build`]), and `--fix` checks the result against these same
/// changes ([`verify`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Remedy {
    /// How safe it is to apply unreviewed.
    pub applicability: Applicability,
    /// What it does, as one line for the user.
    pub description: String,
    /// The changes to the document's object, paths from the document's root.
    pub changes: Vec<Change>,
}

impl Remedy {
    /// A remedy of `applicability` making `changes`.
    pub fn new(
        applicability: Applicability,
        description: impl Into<String>,
        changes: Vec<Change>,
    ) -> Remedy {
        Remedy {
            applicability,
            description: description.into(),
            changes,
        }
    }

    /// The edits that make the changes in the text `editor` edits, with the changes as
    /// made: a value set inside an annotation that holds YAML (`proxy.istio.io/config`)
    /// which the document does not have yet becomes the new annotation, holding that
    /// value as YAML. `Err` says why the manifest is not shaped for it (a value from an
    /// anchor, a scalar where a mapping is needed).
    ///
    /// Changes are made in their order. Each is built on the text the previous ones
    /// made, read again, whenever an earlier change moves or removes a sequence item
    /// (a later path means the sequence as it is then) or two changes' edits touch
    /// (a key removed from a mapping another change inserts into); the edits are then
    /// composed into edits of the original text ([`apply::compose`]).
    pub fn build(&self, editor: &Editor<'_>) -> Result<Planned, EditError> {
        let changes: Vec<Change> = self
            .changes
            .iter()
            .map(|change| match change {
                Change::Set(path, value) if !editor.has(path) => new_embedded(path, value),
                other => other.clone(),
            })
            .collect();
        let shifts = |change: &Change| match change {
            Change::Move { .. } => true,
            Change::Remove(path) => matches!(path.segments().last(), Some(Segment::Index(_))),
            Change::Set(..) => false,
        };
        let mut independent = !changes[..changes.len().saturating_sub(1)]
            .iter()
            .any(shifts);
        let mut edits: Vec<Edit> = Vec::new();
        if independent {
            for change in &changes {
                let step = editor.change(change)?;
                independent &= !step.iter().any(|edit| {
                    edits
                        .iter()
                        .any(|other| apply::touch(&edit.range, &other.range))
                });
                edits.extend(step);
            }
        }
        if !independent {
            edits = editor.in_steps(&changes)?;
        }
        Ok(Planned {
            fix: Fix::new(self.applicability, self.description.clone(), edits),
            changes,
        })
    }
}

/// A remedy made concrete for one document: the edits, and the changes they make, for
/// [`verify`] to check.
#[derive(Clone, Debug, PartialEq)]
pub struct Planned {
    /// The edits, offsets in the text the editor edited.
    pub fix: Fix,
    /// The changes to the decoded document.
    pub changes: Vec<Change>,
}

/// `Set(a.b⟨embedded⟩.c.d, v)` on a document without `a.b`: `a.b` set to the YAML text
/// `c:\n  d: v\n`. Other changes are returned as they are.
fn new_embedded(path: &JsonPath, value: &serde_json::Value) -> Change {
    let segments = path.segments();
    let Some(at) = segments
        .iter()
        .position(|segment| *segment == Segment::Embedded)
    else {
        return Change::Set(path.clone(), value.clone());
    };
    let mut inner = value.clone();
    for segment in segments[at + 1..].iter().rev() {
        let Segment::Key(key) = segment else {
            return Change::Set(path.clone(), value.clone());
        };
        inner = serde_json::Value::Object([(key.clone(), inner)].into_iter().collect());
    }
    let serde_json::Value::Object(entries) = &inner else {
        return Change::Set(path.clone(), value.clone());
    };
    let text = render::block_document(entries);
    Change::Set(
        JsonPath::from_segments(&segments[..at]),
        serde_json::Value::String(text),
    )
}
