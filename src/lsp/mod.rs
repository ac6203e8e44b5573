//! `kubectl mesh-lifecycle lsp`: the findings where the manifest is written, through
//! the Language Server Protocol over standard input and output.
//!
//! A front end of the same library as `lint`: each open document's buffer goes through
//! the same pipeline, with the settings `lint` would use for it ([`context`]), and the
//! results become the editor's diagnostics ([`diagnostics`]), code actions whose edits
//! are the fixes `lint --fix` makes ([`actions`], through [`fixes`]) and hovers that
//! show a rule or a workload's timeline ([`hover`]). [`server`] is the loop that turns
//! the editor's messages into lints and answers; nothing here decides what a finding is.
//!
//! Built on `lsp-server` and `lsp-types`, as rust-analyzer and ruff's server are: the
//! protocol's plumbing (the handshake, request bookkeeping, message types) from a
//! maintained crate, and a synchronous loop with worker threads, since linting is CPU
//! work that an async runtime would only wrap. The framing on standard input and
//! output is the server's own ([`transport`]), bounded and resynchronised, so that no
//! frame can exhaust its memory or end it.

mod actions;
mod analysis;
mod context;
mod diagnostics;
mod document;
mod fixes;
mod framing;
mod handshake;
mod hover;
mod position;
mod server;
mod transport;
mod uri;

pub use context::{ConfigChoice, Overrides};
pub use handshake::Ending;
pub use server::DEBOUNCE;

/// Serves the editor on standard input and output until it exits: `Ok` with the
/// process's exit status (0 after `shutdown` then `exit`, 1 when the editor left
/// without `shutdown`), `Err` when the conversation broke down.
pub fn run(overrides: Overrides) -> Result<u8, String> {
    // A frame is at most the largest document the command line parses.
    let max_frame = crate::load::ReadLimits::default().document_bytes;
    let (connection, io_threads) = transport::stdio(max_frame);
    let ending = handshake::serve(&connection, overrides)?;
    drop(connection);
    // The reader has stopped at `exit`; the writer stops once every message is out.
    io_threads.join().map_err(|error| error.to_string())?;
    Ok(match ending {
        Ending::Clean => 0,
        Ending::Abrupt => 1,
    })
}
