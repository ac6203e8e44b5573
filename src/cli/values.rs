//! Arguments whose values come from a list the tool knows (rule ids and names, presets,
//! workload kinds): their parsers name the values, so that `--help` stays short (the
//! lists are hidden there), every completion script offers them, and the errors for
//! an unknown value stay the tool's own, with a pointer to where the list is.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, TypedValueParser};

use crate::rules::RULES;
use crate::settings::preset::PRESETS;
use crate::workload::kinds::ROWS;

/// A value parser that takes any text and names `values` as the possible ones.
#[derive(Clone, Copy, Debug)]
pub struct Known(fn() -> Vec<PossibleValue>);

/// Rule ids, then rule names, each with what it is.
pub const RULE: Known = Known(|| {
    let ids = RULES
        .iter()
        .map(|r| PossibleValue::new(r.meta().id).help(r.meta().summary));
    let names = RULES
        .iter()
        .map(|r| PossibleValue::new(r.meta().name).help(r.meta().id));
    ids.chain(names).collect()
});

/// The presets of managed meshes.
pub const PRESET: Known = Known(|| {
    PRESETS
        .iter()
        .map(|name| PossibleValue::new(*name))
        .collect()
});

/// The workload kinds the tool reads, then kubectl's short names for them (`deploy`).
pub const KIND: Known = Known(|| {
    let mut names: Vec<&str> = ROWS.iter().map(|row| row.name).collect();
    names.extend(
        crate::cluster::kinds::RESOURCES
            .iter()
            .flat_map(|resource| resource.short_names.iter().copied()),
    );
    let mut seen = std::collections::BTreeSet::new();
    names.retain(|name| seen.insert(*name));
    names.into_iter().map(PossibleValue::new).collect()
});

impl TypedValueParser for Known {
    type Value = String;

    fn parse_ref(
        &self,
        command: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(command, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new((self.0)().into_iter()))
    }
}
