//! kubectl mesh-lifecycle: finds the traffic a service mesh loses when pods start and
//! stop.
//!
//! The pipeline (docs/architecture.md, Design notes), one module per stage, data flowing one way:
//! [`load`] → [`workload`] → [`resolve`] → [`simulate`] → [`rules`] → [`report`],
//! driven by [`pipeline`] and configured by [`settings`]. With `--cluster`, [`cluster`]
//! reads the inputs and a layer of the settings from a live cluster, before the first
//! stage; it knows the workload kinds of [`workload`] and nothing of the later stages.
//! After the last stage, [`baseline`] marks the findings a baseline accepts, and
//! [`diff`] compares the results of two runs over two sides of the same workloads.
//! [`cli`] and [`lsp`] are the front ends: the command line, and the language server
//! that shows the same findings in an editor; [`admission`] (`serve --admission`) and
//! [`mcp`] put the linter where manifests land: the API server's admission, and an
//! assistant's tools. Every program the tool runs (`helm`, `kubectl`, `git`, and itself
//! for `mcp`) is started by [`external`], within bounds, with nothing from an input read
//! as an option.

#![warn(missing_docs)]
#[cfg(feature = "admission")]
pub mod admission;
pub mod baseline;
pub mod cli;
pub mod cluster;
pub mod diff;
pub mod documented;
pub mod escape;
pub mod external;
pub mod fan_out;
pub mod fix;
pub mod load;
pub mod lsp;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod pipeline;
pub mod render;
pub mod report;
pub mod resolve;
pub mod rules;
pub mod settings;
pub mod simulate;
pub mod time;
pub mod workload;

/// The name kubectl users type: every stage that prints the tool's name uses it.
pub const PLUGIN_NAME: &str = "kubectl mesh-lifecycle";

/// The executable's name, which makes it a kubectl plugin: the command line and the
/// language server (its `serverInfo`) name it.
pub const BINARY_NAME: &str = "kubectl-mesh_lifecycle";
