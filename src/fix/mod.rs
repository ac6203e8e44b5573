//! Fixes as text edits: typed edits to a manifest's text, applied, verified against
//! the original, written back without risk, or shown as a unified diff. The loop that
//! checks them against the timeline and makes them in rounds re-runs the stages, so it
//! lives with the driver ([`crate::pipeline::fix`]); this module reads only the loader's
//! tree and a workload's paths.
//!
//! A rule that knows the remedy for its finding states it as a [`Remedy`]: how safe it
//! is to apply ([`Applicability`]), one line saying what it does, and the [`Change`]s
//! to the decoded object. The [`Editor`] turns it, on the document's positioned tree,
//! into a [`Fix`] of [`Edit`]s, byte ranges of the text with their replacements, so
//! everything outside the edited spans stays byte for byte what the user wrote:
//! comments, quoting, key order, anchors, line endings and the other documents of the
//! stream.
//!
//! * [`vocabulary`]: those words, apart from the editor.
//! * [`edit`] and [`plan`]: the edit builders (replace a scalar in its own quoting style,
//!   insert a key or a whole nested block following the file's indentation, remove a
//!   key or an item, move an item, edit inside an annotation that holds YAML or JSON),
//!   and a remedy made concrete ([`Editor::plan`]).
//! * [`verify`]: re-reads the fixed text with the loader and checks that it decodes to
//!   the original object with exactly the intended change.
//! * [`apply`]: picks the fixes of a round that do not overlap and applies them.
//! * [`write`]: writes a fixed file back atomically.
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
pub mod authored;
pub mod diff;
pub mod edit;
pub mod plan;
mod render;
pub mod verify;
pub mod vocabulary;
pub mod write;

pub use apply::{Applied, Outcome, apply_fixes};
pub use diff::{unified_diff, unified_diff_without_prefix};
pub use edit::{EditError, Editor};
pub use verify::{Rejection, verify, verify_all};
pub use vocabulary::{Applicability, Change, Edit, Fix, Planned, Remedy};
