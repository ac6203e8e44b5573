//! `lsp`: the language server, on standard input and output.

use std::io;

use super::{LspArgs, diagnostic, usage_error};
use crate::lsp::{ConfigChoice, Overrides};

pub fn run(args: LspArgs) -> io::Result<u8> {
    // Wrong rule names are refused here, where the editor's log shows them, rather
    // than on every document.
    if let Err(message) = args.rules.policy() {
        return usage_error(message);
    }
    let profile = &args.profile;
    let overrides = Overrides {
        config: match (&profile.config, profile.no_config) {
            (_, true) => ConfigChoice::Without,
            (Some(file), false) => ConfigChoice::File(file.clone()),
            (None, false) => ConfigChoice::Nearest,
        },
        mesh_configs: profile.mesh_config.iter().cloned().collect(),
        flags: profile.flags(),
        select: args.rules.select,
        ignore: args.rules.ignore,
        ..Overrides::default()
    };
    match crate::lsp::run(overrides) {
        Ok(status) => Ok(status),
        Err(error) => {
            diagnostic(&format!("error: language server: {error}\n"));
            Ok(1)
        }
    }
}
