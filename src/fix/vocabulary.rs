//! The words every stage uses to speak about a fix, apart from the editor that makes
//! one: how safe it is ([`Applicability`]), what it changes in the decoded object
//! ([`Change`], gathered in a rule's [`Remedy`]), and what it writes in the text
//! ([`Edit`], gathered in a [`Fix`]; with the changes, a [`Planned`] fix).
//!
//! Rules (and the mesh models that know each sidecar's remedies) build [`Remedy`]s
//! from what they know without the text; the editor ([`super::Editor::plan`]) turns
//! one into a [`Planned`] fix on a document's positioned tree; verification checks
//! the result against the same [`Change`]s.

use std::ops::Range;

use serde_json::Value as Json;

use crate::load::JsonPath;

/// How safe a fix is to apply without a human looking at it, ordered from least to
/// most (ruff's three levels).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Applicability {
    /// Shown as a suggestion, never applied: the remedy needs a choice only the user
    /// can make.
    DisplayOnly,
    /// Changes behaviour a human should review (a different stop command), or rests on
    /// what the input does not show (an assumed version, time or namespace); applied
    /// with `--unsafe-fixes`.
    Unsafe,
    /// Keeps the pod's meaning apart from removing the hazard, and rests on nothing
    /// assumed; applied by `--fix`.
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

/// One intended change to a document's decoded object.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// The value at the path becomes this one (created with the mappings on its way).
    Set(JsonPath, Json),
    /// The key or sequence item at the path is removed.
    Remove(JsonPath),
    /// The sequence item at `from` is taken out of its sequence and put at `to`, an
    /// index in another sequence (created as the value of a missing key when needed).
    /// Changes listed after it see the item at `to`.
    Move {
        /// The item's path before the move.
        from: JsonPath,
        /// Its path after the move.
        to: JsonPath,
    },
}

impl Change {
    /// The paths the change reads or writes.
    pub fn paths(&self) -> Vec<&JsonPath> {
        match self {
            Change::Set(path, _) | Change::Remove(path) => vec![path],
            Change::Move { from, to } => vec![from, to],
        }
    }
}

/// A rule's remedy for its finding, stated as changes to the decoded object: what the
/// rule knows without the text. The pipeline turns it into a [`Planned`] fix on the
/// document's positioned tree ([`super::Editor::plan`]), and verification checks the
/// result against these same changes.
#[derive(Clone, Debug, PartialEq)]
pub struct Remedy {
    /// How safe it is to apply unreviewed.
    pub applicability: Applicability,
    /// What it does, as one line for the user; an unsafe remedy says what it risks.
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

/// The remedy for one finding as text edits. Its edits are applied all together or
/// not at all.
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

/// A remedy made concrete for one document: the edits, and the changes they make, for
/// verification to check.
#[derive(Clone, Debug, PartialEq)]
pub struct Planned {
    /// The edits, offsets in the text the editor edited.
    pub fix: Fix,
    /// The changes to the decoded document.
    pub changes: Vec<Change>,
}
