//! The margin every duration a fix sets carries beyond what the timeline needs.
//!
//! A value set to the exact second a container exits makes the next event fall on that
//! second too: the kubelet's SIGKILL on the proxy's exit, the proxy's exit on the app's
//! last response. Real shutdowns vary from run to run, so a fix sets the time needed plus
//! a fifth of it, at least [`FLOOR_SECONDS`], in whole seconds: 35 s needed becomes 42 s,
//! 5 s becomes 10 s. The fix's title shows both parts.

use std::fmt;

/// The least margin, in seconds: below it, one slow start of the app's shutdown (a
/// garbage collection, a cold cache) eats the margin.
pub const FLOOR_SECONDS: i64 = 5;

/// The margin's share of the time needed, in percent.
pub const SHARE_PERCENT: i64 = 20;

/// A duration a fix sets: what the timeline needs and the margin on top.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Headroom {
    /// What the timeline needs, in whole seconds.
    pub needed: i64,
    /// The margin added, in whole seconds.
    pub margin: i64,
}

impl Headroom {
    /// `needed` whole seconds with the policy's margin.
    pub fn over(needed: i64) -> Self {
        let share = needed
            .max(0)
            .saturating_mul(SHARE_PERCENT)
            .saturating_add(99)
            / 100;
        Headroom {
            needed,
            margin: share.max(FLOOR_SECONDS),
        }
    }

    /// The value to set.
    pub fn seconds(self) -> i64 {
        self.needed.saturating_add(self.margin)
    }
}

/// How a fix's title gives the value: `42 s (35 s needed plus 7 s headroom)`.
impl fmt::Display for Headroom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} s ({} s needed plus {} s headroom)",
            self.seconds(),
            self.needed,
            self.margin
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifth_on_top_at_least_five_seconds() {
        assert_eq!(Headroom::over(35).seconds(), 42);
        assert_eq!(Headroom::over(5).seconds(), 10);
        assert_eq!(Headroom::over(1).seconds(), 6);
        // A fifth that is not whole is rounded up: 26 s needs 5.2 s more.
        assert_eq!(Headroom::over(26).margin, 6);
        assert_eq!(Headroom::over(100).seconds(), 120);
    }

    #[test]
    fn the_title_names_both_parts() {
        assert_eq!(
            Headroom::over(35).to_string(),
            "42 s (35 s needed plus 7 s headroom)"
        );
    }
}
