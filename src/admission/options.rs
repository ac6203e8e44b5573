//! How the admission server listens and what bounds it keeps: what `serve --admission`'s
//! flags become.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// How the server listens and what bounds it keeps.
#[derive(Clone, Debug)]
pub struct Options {
    /// The address to listen on (port 0: any free port, printed at start).
    pub listen: SocketAddr,
    /// The PEM certificate chain.
    pub tls_cert: PathBuf,
    /// The PEM private key.
    pub tls_key: PathBuf,
    /// How often the certificate and key are read again.
    pub tls_reload: Duration,
    /// The most time one review takes, from its body read to its answer.
    pub review_timeout: Duration,
    /// The largest review body read.
    pub max_review_bytes: usize,
    /// The most requests whose bodies are held at once; more are answered 503 at once.
    pub max_in_flight: usize,
    /// How long the server keeps answering after SIGTERM, not ready, so that the
    /// Service stops sending it reviews before it stops listening.
    pub shutdown_delay: Duration,
}
