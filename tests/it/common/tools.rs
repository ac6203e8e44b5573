//! The programs a test runs that a machine may not have, and the capabilities it may
//! not grant (a private mount namespace, another user's file): one place decides what a
//! missing one means.
//!
//! A test asks [`program`] for what it runs, or reports a failed probe with
//! [`unavailable`]. Where the program or capability is missing the test is skipped with a
//! line on the terminal naming it — written past the test harness's capture, so that a
//! passing run still shows what it did not check — unless `MESH_LIFECYCLE_REQUIRE` names
//! it: `.ci/run` lists there what it installed, and there a skip is a failure.
//! `tests/it/tools.rs` checks that no test runs an optional program without asking here,
//! and runs the whole suite with them hidden.

use std::io::Write;
use std::path::PathBuf;

/// The variable listing what must not be skipped (words separated by spaces or commas).
pub const REQUIRE: &str = "MESH_LIFECYCLE_REQUIRE";

/// The programs a test may run that a machine may lack. `tests/it/tools.rs` holds every
/// test to asking [`program`] for them, and hides them all from one run of the suite.
pub const OPTIONAL: &[&str] = &[
    "zsh",
    "fish",
    "elvish",
    "chromium",
    "nvim",
    "strace",
    "kubectl",
    "helm",
    "script",
    "mkfifo",
    "python3",
    "setpriv",
    "prlimit",
    "unshare",
    "git",
    "curl",
    "check-jsonschema",
    "patch",
];

/// What the run requires, from [`REQUIRE`].
fn required() -> Vec<String> {
    std::env::var(REQUIRE)
        .unwrap_or_default()
        .split([' ', ','])
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Whether the run requires `what` (a program or a capability such as `sandbox`).
pub fn is_required(what: &str) -> bool {
    required().iter().any(|word| word == what)
}

/// `name` on `PATH`; `None` after a visible skip line when it is not there, and a
/// failure when the run requires it.
pub fn program(name: &str) -> Option<PathBuf> {
    let found = find(name);
    if found.is_none() {
        unavailable(name, &format!("`{name}` is not installed"));
    }
    found
}

/// The path of `name`, which the test has already asked [`program`] for.
pub fn path_of(name: &str) -> PathBuf {
    find(name).unwrap_or_else(|| panic!("`{name}` was checked with tools::program first"))
}

/// `name` on `PATH`, quietly: for a test that skips one case of many and reports
/// what it skipped with [`unavailable`].
pub fn find(name: &str) -> Option<PathBuf> {
    assert!(
        OPTIONAL.contains(&name),
        "{name} is not listed in tools::OPTIONAL"
    );
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join(name))
        .find(|path| is_executable(path))
}

/// Whether `path` is a file this process may run.
fn is_executable(path: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

/// Says that the calling test is skipped because `what` is unavailable (`why`); fails it
/// instead where the run requires `what`.
pub fn unavailable(what: &str, why: &str) {
    let test = std::thread::current().name().unwrap_or("a test").to_owned();
    assert!(
        !is_required(what),
        "{test}: {why}, and {REQUIRE} requires {what}"
    );
    // Past the harness's capture: a passing test's own output is not shown.
    let _ = writeln!(std::io::stderr(), "skipped: {test}: {why}");
}
