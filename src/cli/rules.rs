//! `rules`: the catalog, or one rule's documentation.

use std::io::{self, Write};

use super::output::Stream;
use super::{RulesArgs, RulesFormat, usage_error};
use crate::rules::{self, RULES};

pub fn run(args: RulesArgs) -> io::Result<u8> {
    let style = args.color.style(Some(Stream::Stdout));
    let mut out = io::stdout().lock();
    match &args.rule {
        Some(key) => {
            let Some(rule) = rules::find(key) else {
                return usage_error(format!(
                    "unknown rule `{key}` (see `kubectl mesh-lifecycle rules`)"
                ));
            };
            let meta = rule.meta();
            match args.format {
                RulesFormat::Json => {
                    serde_json::to_writer_pretty(
                        &mut out,
                        &crate::report::catalog::rule_json(meta),
                    )
                    .map_err(io::Error::other)?;
                    writeln!(out)?;
                }
                RulesFormat::Table => {
                    out.write_all(crate::report::catalog::text(meta, style).as_bytes())?
                }
                RulesFormat::Markdown => {
                    out.write_all(crate::report::catalog::markdown(meta).as_bytes())?
                }
            }
        }
        None => match args.format {
            RulesFormat::Table => {
                out.write_all(crate::report::catalog::table(RULES, style).as_bytes())?
            }
            RulesFormat::Json => {
                let all: Vec<_> = RULES
                    .iter()
                    .map(|r| crate::report::catalog::rule_json(r.meta()))
                    .collect();
                serde_json::to_writer_pretty(&mut out, &all).map_err(io::Error::other)?;
                writeln!(out)?;
            }
            RulesFormat::Markdown => {
                for rule in RULES {
                    out.write_all(crate::report::catalog::markdown(rule.meta()).as_bytes())?;
                    writeln!(out)?;
                }
            }
        },
    }
    out.flush()?;
    Ok(0)
}
