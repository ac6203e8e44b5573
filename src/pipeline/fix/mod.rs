//! The fix loop: fixes checked against the timeline and made in rounds, by analysing
//! each fixed text again with the pipeline's own stages. The text editing it drives —
//! remedies made concrete as edits, applied, verified, shown as a diff, written back —
//! is [`crate::fix`], below every stage.
//!
//! * [`analysed`]: how the loop asks the pipeline for an analysis of a fixed text.
//! * [`compare`]: whether a fix makes the pod worse, on every rule's findings.
//! * [`checks`]: each fix checked against the timeline before it is offered or made
//!   (alone, or in groups where one text carries many).
//! * [`rounds`]: the fix loop over one piece of an input: each fix checked, fixes made
//!   in rounds until none passes.
//! * [`fixed`]: what the loop made of a piece, carried by its document's report.
//! * [`session`]: the entry points for a front end (the command line, an editor's
//!   language server): the findings of a text with their checked fixes, and the text
//!   with every fix of a chosen safety made.

pub mod analysed;
pub mod checks;
pub mod compare;
pub mod fixed;
pub mod rounds;
pub mod session;

pub use analysed::{Analysed, Analyze, Purpose};
pub use fixed::{FixedPiece, Made, Refused};
pub use session::{Checked, FixedText, InputFix, check, fix_all, fix_in_text};
