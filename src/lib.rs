//! kubectl mesh-lifecycle: finds the traffic a service mesh loses when pods start and
//! stop.
//!
//! The pipeline (README, Design notes), one module per stage, data flowing one way:
//! [`load`] → [`workload`] → [`resolve`] → [`simulate`] → [`rules`] → [`report`],
//! driven by [`pipeline`] and configured by [`settings`].

#![warn(missing_docs)]
pub mod cli;
pub mod load;
pub mod pipeline;
pub mod report;
pub mod resolve;
pub mod rules;
pub mod settings;
pub mod simulate;
pub mod time;
pub mod workload;
