//! How a kubectl call ended, and why it failed in words the user can act on: kubectl's
//! own when it gave any, ours when it was killed, stopped or silent.

use super::Bounds;
use super::end::End;

/// What one kubectl call printed, and how it ended.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The command as the user could type it, for messages.
    pub command: String,
    /// How it ended.
    pub end: End,
    /// Its standard output (at most the input limit).
    pub stdout: Vec<u8>,
    /// Its standard error, as it printed it (at most 64 KiB).
    pub stderr: String,
    /// Whether `stderr` was already passed on to the user as it came.
    pub shown: bool,
    /// The bounds it ran under, for messages.
    pub(super) bounds: Bounds,
}

impl Reply {
    /// A reply that ended as `end` having printed `stdout` and `stderr`, under the
    /// default bounds: for tests of what reads replies.
    #[cfg(test)]
    pub(crate) fn printed(end: End, stdout: Vec<u8>, stderr: &str) -> Reply {
        Reply {
            command: "kubectl".into(),
            end,
            stdout,
            stderr: stderr.into(),
            shown: false,
            bounds: Bounds::defaults(),
        }
    }

    /// Whether kubectl exited with status 0.
    pub fn success(&self) -> bool {
        self.end == End::Exited(0)
    }

    /// Why the call failed, in kubectl's words when it gave any; `None` when it did
    /// not. A failure is never silent: a kubectl that exits 1 or is killed without a
    /// word still fails, said in ours.
    pub fn failure(&self) -> Option<String> {
        let said = self.stderr.trim_end();
        let ours = match self.end {
            End::Exited(0) => return None,
            End::Exited(_) if !said.is_empty() => return Some(said.to_owned()),
            End::Exited(code) => {
                format!("kubectl exited with status {code} without saying why")
            }
            End::Signalled(signal) => {
                format!(
                    "kubectl was killed by signal {signal}{}",
                    signal_name(signal)
                )
            }
            End::TimedOut => format!(
                "kubectl was stopped after running twice its request timeout ({}) without finishing",
                self.bounds.request_timeout
            ),
            End::Deadline => format!(
                "kubectl was stopped: the cluster read ran out of time ({})",
                self.bounds.total
            ),
            End::TooLarge => format!(
                "kubectl was stopped: it printed more than {} (--max-input-size raises the limit)",
                crate::load::size(self.bounds.max_output)
            ),
        };
        Some(if said.is_empty() {
            ours
        } else {
            format!("{said}\n{ours}")
        })
    }
}

/// ` (SIGKILL)` for the signals a killed kubectl usually got.
fn signal_name(signal: i32) -> &'static str {
    match signal {
        1 => " (SIGHUP)",
        2 => " (SIGINT)",
        6 => " (SIGABRT)",
        9 => " (SIGKILL: out of memory, or killed by a supervisor)",
        11 => " (SIGSEGV)",
        13 => " (SIGPIPE)",
        15 => " (SIGTERM)",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds() -> Bounds {
        Bounds::defaults()
    }

    #[test]
    fn a_silent_failure_is_still_a_failure() {
        let reply = |end, stderr: &str| Reply {
            command: "kubectl get pods".into(),
            end,
            stdout: Vec::new(),
            stderr: stderr.into(),
            shown: false,
            bounds: bounds(),
        };
        assert_eq!(reply(End::Exited(0), "").failure(), None);
        assert_eq!(
            reply(End::Exited(1), "").failure().as_deref(),
            Some("kubectl exited with status 1 without saying why")
        );
        assert_eq!(
            reply(End::Exited(1), "error: boom\n").failure().as_deref(),
            Some("error: boom")
        );
        let killed = reply(End::Signalled(9), "").failure().unwrap();
        assert!(killed.contains("signal 9 (SIGKILL"), "{killed}");
        let late = reply(End::TimedOut, "").failure().unwrap();
        assert!(late.contains("--request-timeout 30s"), "{late}");
        let big = reply(End::TooLarge, "").failure().unwrap();
        assert!(
            big.contains("256 MiB") && big.contains("--max-input-size"),
            "{big}"
        );
    }
}
