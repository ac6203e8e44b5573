//! Time on the simulated timeline, in milliseconds from a reference instant.
//!
//! Milliseconds keep the arithmetic exact: the kubelet counts grace in whole seconds,
//! `pilot-agent wait` polls every 500 ms, and probes tick every second.

use std::fmt;
use std::ops::{Add, Sub};

/// A duration or an instant on a timeline, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Millis(pub i64);

/// In machine output a duration is a whole number of milliseconds (`"fromMs": 5000`).
impl serde::Serialize for Millis {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i64(self.0)
    }
}

impl Millis {
    /// The start of a timeline, or no time at all.
    pub const ZERO: Millis = Millis(0);

    /// Whole seconds.
    pub const fn secs(seconds: i64) -> Millis {
        Millis(seconds.saturating_mul(1000))
    }

    /// Whole seconds, truncated toward zero, as the kubelet counts elapsed grace.
    pub fn whole_secs(self) -> i64 {
        self.0 / 1000
    }

    /// The first multiple of `step` after `from` that is at or after `self`
    /// (`from` itself when `self <= from`).
    pub fn round_up_from(self, from: Millis, step: Millis) -> Millis {
        if self <= from {
            return from;
        }
        let step = step.0.max(1);
        let steps = self.0.saturating_sub(from.0).saturating_add(step - 1) / step;
        Millis(from.0.saturating_add(steps.saturating_mul(step)))
    }

    /// `self` repeated `count` times, saturating: probe periods times thresholds from a
    /// manifest can be absurd, and the timeline must still be drawn.
    pub fn times(self, count: i64) -> Millis {
        Millis(self.0.saturating_mul(count))
    }

    /// `self - other`, never wrapping (spelled out where the reader should see it).
    pub fn saturating_sub(self, other: Millis) -> Millis {
        Millis(self.0.saturating_sub(other.0))
    }
}

impl Add for Millis {
    type Output = Millis;
    fn add(self, other: Millis) -> Millis {
        Millis(self.0.saturating_add(other.0))
    }
}

impl Sub for Millis {
    type Output = Millis;
    fn sub(self, other: Millis) -> Millis {
        Millis(self.0.saturating_sub(other.0))
    }
}

impl fmt::Display for Millis {
    /// `5 s`, `2.5 s`, `500 ms`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0;
        if ms != 0 && ms.abs() < 1000 {
            write!(f, "{ms} ms")
        } else if ms % 1000 == 0 {
            write!(f, "{} s", ms / 1000)
        } else {
            // Integer arithmetic: a float loses the fraction of large values.
            let fraction = format!("{:03}", (ms % 1000).abs());
            write!(f, "{}.{} s", ms / 1000, fraction.trim_end_matches('0'))
        }
    }
}

/// The longest duration Go can hold, in milliseconds: `i64::MAX` nanoseconds.
const MAX_GO_DURATION_MS: f64 = i64::MAX as f64 / 1e6;

/// Parses a Go `time.Duration` string (`5s`, `1m30s`, `1.5s`, `500ms`), the format of
/// Istio's ProxyConfig durations and Linkerd's duration annotations.
pub fn parse_go_duration(text: &str) -> Option<Millis> {
    go_duration(text).ok()
}

/// Why a text is not a Go duration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoDurationError {
    /// Not the syntax at all.
    Syntax,
    /// The syntax, but longer than Go can hold (int64 nanoseconds).
    TooLong,
}

/// [`parse_go_duration`], saying why a text is not a duration.
pub fn go_duration(text: &str) -> Result<Millis, GoDurationError> {
    use GoDurationError::{Syntax, TooLong};
    let text = text.trim();
    if text == "0" {
        return Ok(Millis::ZERO);
    }
    let (negative, mut rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if rest.is_empty() {
        return Err(Syntax);
    }
    let mut total = 0f64;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if number_len == 0 {
            return Err(Syntax);
        }
        let number: f64 = rest[..number_len].parse().map_err(|_| Syntax)?;
        rest = &rest[number_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "ns" => 1e-6,
            "us" | "µs" | "μs" => 1e-3,
            "ms" => 1.0,
            "s" => 1e3,
            "m" => 60e3,
            "h" => 3600e3,
            _ => return Err(Syntax),
        };
        rest = &rest[unit_len..];
        total += number * scale;
    }
    // Go keeps a duration in int64 nanoseconds and rejects what does not fit ("invalid
    // duration", about 2562047h47m16s): Istio reads ProxyConfig durations with
    // `time.ParseDuration` too (golang/protobuf's jsonpb), so such a value is an error
    // there, not a long time.
    if !total.is_finite() || total > MAX_GO_DURATION_MS {
        return Err(TooLong);
    }
    let millis = total.round() as i64;
    Ok(Millis(if negative { -millis } else { millis }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations() {
        assert_eq!(parse_go_duration("5s"), Some(Millis::secs(5)));
        assert_eq!(parse_go_duration("1m30s"), Some(Millis::secs(90)));
        assert_eq!(parse_go_duration("1.5s"), Some(Millis(1500)));
        assert_eq!(parse_go_duration("500ms"), Some(Millis(500)));
        // Go's limit: int64 nanoseconds.
        assert_eq!(
            parse_go_duration("2562047h47m16s"),
            Some(Millis(9_223_372_036_000))
        );
        assert_eq!(parse_go_duration("2562047h47m17s"), None);
        assert_eq!(parse_go_duration("99999999999h"), None);
        assert_eq!(parse_go_duration("0"), Some(Millis::ZERO));
        assert_eq!(parse_go_duration("-3s"), Some(Millis::secs(-3)));
        assert_eq!(parse_go_duration("5"), None);
        assert_eq!(parse_go_duration("five seconds"), None);
        assert_eq!(parse_go_duration(""), None);
    }

    #[test]
    fn display_is_compact() {
        assert_eq!(Millis::secs(5).to_string(), "5 s");
        assert_eq!(Millis(2500).to_string(), "2.5 s");
        assert_eq!(Millis(500).to_string(), "500 ms");
        assert_eq!(Millis::ZERO.to_string(), "0 s");
        assert_eq!(Millis(-2500).to_string(), "-2.5 s");
        assert_eq!(Millis(i64::MAX).to_string(), "9223372036854775.807 s");
    }

    #[test]
    fn whole_seconds_truncate() {
        assert_eq!(Millis(2999).whole_secs(), 2);
    }
}
