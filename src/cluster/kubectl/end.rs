//! How a kubectl call ended: what its bounds stop it for and what its reply reports.

/// How a kubectl call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// It exited with this status.
    Exited(i32),
    /// A signal ended it (the kernel's OOM killer, a `timeout` wrapper).
    Signalled(i32),
    /// It ran twice its request timeout and was stopped.
    TimedOut,
    /// The read's deadline passed while it ran, or before it could start; stopped.
    Deadline,
    /// It printed more than the input limit and was stopped.
    TooLarge,
}
