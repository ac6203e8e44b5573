//! `serve --admission`: a validating admission webhook that lints each Pod and workload
//! as it is admitted, with the pipeline `lint` runs, and answers with the findings as
//! warnings (`kubectl apply` prints `Warning: ML201 …`) or, under `--deny-on`, a
//! denial.
//!
//! A webhook must never hurt the cluster it guards: each review has a time budget well
//! under the API server's 10 s (past it the object is admitted with a warning that it
//! was not checked), bodies and requests in flight are bounded, linting runs on at most
//! one thread per core, and any body, however hostile, gets a well-formed answer.
//!
//! | Module | Does |
//! |--------|------|
//! | `options` | how the server listens and the bounds it keeps |
//! | `review` | one AdmissionReview read and answered (no I/O, no waiting) |
//! | `wording` | findings as warning lines, the denial message, the audit annotation |
//! | `http` | HTTPS on hyper and rustls: routes, bounds, the time budget |
//! | `tls` | the certificate and key, read again when cert-manager renews them |
//! | `metrics` | Prometheus metrics at `/metrics` |

mod http;
mod metrics;
mod options;
pub mod review;
mod tls;
pub mod wording;

use std::sync::Arc;

pub use options::Options;
pub use review::{Answer, Reviewer, Verdict};

/// Runs the server until SIGTERM or SIGINT. Prints the address it listens on to
/// standard error once it does; returns an error when it cannot start.
pub fn serve(options: Options, reviewer: Reviewer) -> Result<(), String> {
    let certificates = Arc::new(tls::Certificates::load(
        &options.tls_cert,
        &options.tls_key,
    )?);
    let lint_threads = std::thread::available_parallelism().map_or(1, usize::from);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .thread_name("admission")
        .worker_threads(lint_threads.min(4))
        // Linting runs on blocking threads, at most one a core (`http::State::lint`); a
        // review that outlives its budget keeps its thread until it ends.
        .max_blocking_threads(lint_threads * 4)
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the server's runtime: {error}"))?;
    runtime.block_on(http::run(options, reviewer, certificates, lint_threads))
}
