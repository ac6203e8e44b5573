//! The fix engine as the server uses it, and the one place that calls it: the fixes
//! offered are those `lint --fix` would make, checked the same way, on the buffer's
//! text with the document's context.

use crate::cli::fix as engine;
use crate::fix::Fix;
use crate::pipeline::Located;

use super::context::Context;

/// The fix of `located`, a finding of `text`, made alone and verified as `--fix`
/// verifies a round: the result reads as `text` with exactly the fix's changes, and
/// linting it shows the finding gone and no new one. `findings` are the text's
/// unsuppressed findings. Its edits are offsets in the whole text.
pub fn verified(
    context: &Context,
    text: &str,
    located: &Located,
    findings: &[Located],
) -> Result<Fix, String> {
    engine::verified_fix(
        &context.name,
        text,
        &context.settings,
        &context.options,
        context.limits,
        located,
        findings,
    )
}

/// `text` with every safe fix made (and the unsafe ones too with `unsafe_fixes`), in
/// verified rounds until none is left, as `lint --fix` writes it.
pub fn fix_all(context: &Context, text: &str, unsafe_fixes: bool) -> String {
    engine::fix_text(
        &context.name,
        text,
        &context.settings,
        &context.options,
        context.limits,
        unsafe_fixes,
    )
    .text
}
