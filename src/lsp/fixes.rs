//! The fix engine as the server uses it, and the one place that calls it: the fixes
//! offered are those `lint --fix` would make, checked the same way (against the
//! timeline: [`crate::pipeline::fix::session`]), on the buffer's text with the document's
//! context.

use crate::fix::{Applicability, Fix};
use crate::pipeline::Located;
use crate::pipeline::fix as engine;

use super::context::Context;

/// The fix of `located`, a finding of `text` linted with the context's options (which
/// check every fix against the timeline), with its edits at offsets in the whole text;
/// `Err` says why it is not offered.
pub fn verified(text: &str, located: &Located) -> Result<Fix, String> {
    engine::fix_in_text(text, located)
}

/// `text` with every safe fix made (and the unsafe ones too with `unsafe_fixes`), in
/// verified rounds until none is left, as `lint --fix` writes it.
pub fn fix_all(context: &Context, text: &str, unsafe_fixes: bool) -> String {
    let at_least = if unsafe_fixes {
        Applicability::Unsafe
    } else {
        Applicability::Safe
    };
    engine::fix_all(
        &context.name,
        text,
        &context.settings,
        &context.options,
        at_least,
    )
    .fixed
}
