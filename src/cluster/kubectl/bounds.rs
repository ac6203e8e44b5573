//! What bounds every kubectl call of a run: kubectl's own `--request-timeout`, the
//! deadline of the whole read, and the most a call may print. A gate must never wait
//! forever nor fill the machine's memory on what a cluster (or something posing as
//! one) sends; these are the limits `process` enforces on each call.

use std::time::{Duration, Instant};

use super::end::End;
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

/// A duration given on the command line, kept as written for messages and for
/// kubectl; `None` for `0`, no limit (kubectl's meaning of `--request-timeout 0`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeout {
    /// The duration, `None` for no limit.
    pub duration: Option<Duration>,
    /// The flag that gave it (`--request-timeout`).
    pub flag: &'static str,
    /// The text it was given as (`30s`).
    pub text: String,
}

impl std::fmt::Display for Timeout {
    /// `--request-timeout 30s`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.flag, self.text)
    }
}

/// The request timeout when `--request-timeout` is not given: kubectl itself has
/// none, and a list that never answers would keep a gate waiting forever.
pub const DEFAULT_REQUEST_TIMEOUT: &str = "30s";

/// The deadline of a whole read when `--cluster-timeout` is not given: room for a
/// listing of a few hundred thousand objects, page by page.
pub const DEFAULT_CLUSTER_TIMEOUT: &str = "10m";

impl Timeout {
    /// Reads a duration as kubectl reads `--request-timeout`: a whole number of
    /// seconds (`30`) or a Go duration (`30s`, `1m30s`); `0` is no limit.
    pub fn parse(flag: &'static str, text: &str) -> Result<Timeout, String> {
        let text = text.trim();
        let millis = if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
            text.parse::<i64>()
                .ok()
                .and_then(|seconds| seconds.checked_mul(1000))
        } else {
            crate::time::parse_go_duration(text).map(|millis| millis.0)
        };
        let millis = millis.filter(|ms| *ms >= 0).ok_or_else(|| {
            format!("`{text}` is not a duration such as 30s, 2m or 0 (no limit) for {flag}")
        })?;
        Ok(Timeout {
            duration: (millis > 0).then(|| Duration::from_millis(millis.unsigned_abs())),
            flag,
            text: text.to_owned(),
        })
    }
}

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

    fn bounds() -> Bounds {
        Bounds::defaults()
    }

    #[test]
    fn timeouts_read_as_kubectl_reads_them() {
        let parse = |text| Timeout::parse("--request-timeout", text).map(|t| t.duration);
        assert_eq!(parse("30"), Ok(Some(Duration::from_secs(30))));
        assert_eq!(parse("1m30s"), Ok(Some(Duration::from_secs(90))));
        assert_eq!(parse("250ms"), Ok(Some(Duration::from_millis(250))));
        assert_eq!(parse("0"), Ok(None));
        assert!(parse("soon").is_err());
        assert!(parse("-5s").is_err());
        assert!(parse("").is_err());
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
