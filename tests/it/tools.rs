//! Every test runs or says why not, on any machine: a test that runs an optional
//! program asks `common::tools` for it, and the whole suite passes with every optional
//! program hidden, each of them named by a skip line.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::tools::{OPTIONAL, REQUIRE};

/// The test that runs the suite again; the run it makes leaves it out.
const HIDDEN_RUN: &str = "tools::the_suite_passes_with_the_optional_programs_hidden";

/// The test sources: this binary's and the counting binary's.
fn test_sources() -> Vec<PathBuf> {
    let tests = common::root().join("tests");
    let files = common::rust_files(&tests);
    assert!(files.len() > 50, "{} test sources", files.len());
    files
}

#[test]
fn every_optional_program_is_run_through_the_one_helper() {
    let helper = common::root().join("tests/it/common/tools.rs");
    let mut problems = Vec::new();
    for file in test_sources() {
        if file == helper || file.ends_with("tests/it/tools.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for (number, line) in text.lines().enumerate() {
            let at = format!("{}:{}", file.display(), number + 1);
            for program in OPTIONAL {
                for call in [
                    format!("Command::new(\"{program}\")"),
                    format!("which(\"{program}\")"),
                ] {
                    if line.contains(&call) {
                        problems.push(format!("{at}: {call}: ask common::tools"));
                    }
                }
            }
            // One variable says what a run requires; the helper alone reads it.
            if line.contains("MESH_LIFECYCLE_REQUIRE_") || line.contains(&format!("\"{REQUIRE}\""))
            {
                problems.push(format!("{at}: reads what the run requires itself"));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// `PATH` with the optional programs taken out: each directory holding one is replaced
/// by a directory of links to everything else in it.
fn path_without_optional_programs(shadows: &Path) -> (std::ffi::OsString, BTreeSet<String>) {
    let hidden = |name: &str| {
        OPTIONAL.contains(&name) || name.starts_with("kubectl.") || name.starts_with("chromium")
    };
    let mut found = BTreeSet::new();
    let mut dirs = Vec::new();
    let path = std::env::var_os("PATH").unwrap_or_default();
    for (index, dir) in std::env::split_paths(&path).enumerate() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let names: Vec<std::ffi::OsString> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.file_name())
            .collect();
        if !names.iter().any(|name| hidden(&name.to_string_lossy())) {
            dirs.push(dir);
            continue;
        }
        let shadow = shadows.join(index.to_string());
        std::fs::create_dir(&shadow).unwrap();
        for name in names {
            let shown = name.to_string_lossy();
            if hidden(&shown) {
                if OPTIONAL.contains(&shown.as_ref()) {
                    found.insert(shown.into_owned());
                }
                continue;
            }
            std::os::unix::fs::symlink(dir.join(&name), shadow.join(&name)).unwrap();
        }
        dirs.push(shadow);
    }
    (std::env::join_paths(dirs).unwrap(), found)
}

/// The suite again, with every optional program gone from `PATH` and nothing required:
/// it passes, and each program that was there is named by a skip line.
#[test]
fn the_suite_passes_with_the_optional_programs_hidden() {
    let shadows = tempfile::tempdir().unwrap();
    let (path, hidden) = path_without_optional_programs(shadows.path());
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--skip", HIDDEN_RUN, "--test-threads", "2"])
        .env("PATH", &path)
        .env_remove(REQUIRE)
        .env_remove("KUBECTL")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the suite fails without {hidden:?}:\n{stdout}\n{stderr}"
    );
    let skips: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("skipped: "))
        .collect();
    let unnamed: Vec<&String> = hidden
        .iter()
        .filter(|program| {
            !skips
                .iter()
                .any(|line| line.contains(&format!("`{program}`")))
        })
        .collect();
    assert!(
        unnamed.is_empty(),
        "hidden, yet no test said it skipped for them: {unnamed:?}\n{}",
        skips.join("\n")
    );
    // What the run without them did not check, for whoever reads this run's output.
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "with {} hidden, the suite passed and skipped:\n  {}",
        hidden.iter().cloned().collect::<Vec<_>>().join(", "),
        skips.join("\n  ")
    );
}
