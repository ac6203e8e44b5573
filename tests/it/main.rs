//! The integration tests, one binary: the program through its command line (`common::cli`)
//! and the library through its public API, with the shared helpers in `common`. A test
//! that needs a program which may be missing asks `common::tools`, which skips it with
//! a visible line or, where `.ci/run` requires the program, fails it.
//!
//! The tests that count the library's own work process-wide are in `tests/counts/`, a
//! binary of their own, since other tests running beside them would add to the counts.

mod common;
mod lsp_client;
mod man;

mod accidents;
mod action;
#[cfg(feature = "admission")]
mod admission;
mod bad_input;
mod baseline;
mod browser;
mod cli;
mod cluster;
mod completions;
mod config_discovery;
mod corpus;
mod diff;
mod discovery;
mod docs;
mod exit_status;
mod explain;
mod fidelity;
mod fidelity_cli;
mod fidelity_meshes;
mod fidelity_workflows;
mod fix_availability;
mod fix_cli;
mod fix_coverage;
mod fix_engine;
mod fix_properties;
mod fix_writes;
mod formats;
mod fuzz_replay;
mod hostile;
mod hostile_text;
mod html_report;
mod input_fidelity;
mod inputs;
mod kinds;
mod kubectl_habits;
mod kubectl_reading;
mod list;
mod lsp;
#[cfg(feature = "mcp")]
mod mcp;
mod mesh_versions;
mod native_advice;
mod neovim;
mod not_linted;
mod one_answer;
mod packaging;
mod patterns;
mod precision;
mod properties;
mod reading;
mod references;
mod registry;
mod render;
mod ruff_habits;
mod rule_messages;
mod rules;
mod sandbox;
mod sarif;
mod semantics;
mod shell;
mod skim;
mod snapshots;
mod stages;
mod terminal;
mod tools;
mod versions;
mod worked_examples;
