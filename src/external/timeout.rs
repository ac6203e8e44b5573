//! A time limit given on the command line or in the config file, kept as written for
//! messages (and, for `--request-timeout`, for kubectl itself).

use std::time::Duration;

/// A duration given by the user; `None` for `0`, no limit (kubectl's meaning of
/// `--request-timeout 0`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeout {
    /// The duration, `None` for no limit.
    pub duration: Option<Duration>,
    /// The flag or key that gave it (`--request-timeout`, `renderTimeout`).
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
