//! What bounds every kubectl call of a run: kubectl's own `--request-timeout`, the
//! deadline of the whole read, and the most a call may print. A gate must never wait
//! forever nor fill the machine's memory on what a cluster (or something posing as
//! one) sends; these are the limits `process` enforces on each call.

use std::time::Instant;

use super::End;
use crate::external::Timeout;
use crate::load::ReadLimits;

/// What bounds every kubectl call of a run.
#[derive(Clone, Debug)]
pub struct Bounds {
    /// kubectl's `--request-timeout`, as the user wrote it (`30s`, `1m`, `0`).
    pub request_timeout: Timeout,
    /// How long the whole read may take, and from when.
    pub total: Timeout,
    /// When the read started.
    pub started: Instant,
    /// The most one call may print on standard output (`--max-input-size`).
    pub max_output: u64,
}

/// The request timeout when `--request-timeout` is not given: kubectl itself has
/// none, and a list that never answers would keep a gate waiting forever.
pub const DEFAULT_REQUEST_TIMEOUT: &str = "30s";

/// The deadline of a whole read when `--cluster-timeout` is not given: room for a
/// listing of a few hundred thousand objects, page by page.
pub const DEFAULT_CLUSTER_TIMEOUT: &str = "10m";

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds::defaults()
    }
}

impl Bounds {
    /// The bounds of the defaults, started now: for tests and callers without flags.
    pub fn defaults() -> Bounds {
        Bounds {
            request_timeout: Timeout::parse("--request-timeout", DEFAULT_REQUEST_TIMEOUT)
                .expect("the default is a duration"),
            total: Timeout::parse("--cluster-timeout", DEFAULT_CLUSTER_TIMEOUT)
                .expect("the default is a duration"),
            started: Instant::now(),
            max_output: ReadLimits::default().input_bytes,
        }
    }

    /// When the whole read must be over; `None` without a limit.
    fn deadline(&self) -> Option<Instant> {
        self.started.checked_add(self.total.duration?)
    }

    /// When a call started at `start` is stopped, and why.
    pub(super) fn stop_at(&self, start: Instant) -> Option<(Instant, End)> {
        let call = self
            .request_timeout
            .duration
            .and_then(|timeout| start.checked_add(timeout.saturating_mul(2)))
            .map(|at| (at, End::TimedOut));
        let run = self.deadline().map(|at| (at, End::Deadline));
        match (call, run) {
            (Some(call), Some(run)) => Some(if run.0 <= call.0 { run } else { call }),
            (one, other) => one.or(other),
        }
    }

    /// Whether the read's deadline has passed.
    pub fn expired(&self) -> bool {
        self.deadline().is_some_and(|at| Instant::now() >= at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn bounds() -> Bounds {
        Bounds::defaults()
    }

    #[test]
    fn a_call_stops_at_twice_its_timeout_or_the_deadline_whichever_is_first() {
        let mut bounds = bounds();
        let start = bounds.started;
        let (at, why) = bounds.stop_at(start).unwrap();
        assert_eq!((at - start, why), (Duration::from_secs(60), End::TimedOut));
        bounds.total = Timeout::parse("--cluster-timeout", "45s").unwrap();
        let (at, why) = bounds.stop_at(start).unwrap();
        assert_eq!((at - start, why), (Duration::from_secs(45), End::Deadline));
        bounds.request_timeout = Timeout::parse("--request-timeout", "0").unwrap();
        bounds.total = Timeout::parse("--cluster-timeout", "0").unwrap();
        assert_eq!(bounds.stop_at(start), None);
    }
}
