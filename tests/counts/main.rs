//! Tests that count the library's own work (`pipeline::fix::checks::checked_bytes`,
//! `load::lines::indexed_bytes`): the counters are process-wide, so these tests run in
//! a binary of their own, one at a time ([`counting`]), with nothing else analysing
//! in the process.

#[path = "../it/common/mod.rs"]
mod common;

mod locate;
mod perf_shapes;
mod wide_pods;

/// Held by each test that reads a counter, so that no other test adds to it meanwhile.
pub fn counting() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
