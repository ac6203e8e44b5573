//! Which files `lint DIR` reads, in a real git repository: like ripgrep, hidden files
//! and what `.gitignore`, `.ignore` and `.git/info/exclude` ignore are passed over, and
//! so is what `--exclude` and the config file's `exclude:` name; `--no-ignore` reads
//! all of it; a path named on the command line is always read.
//!
//! Every file that should be passed over is broken YAML: reading it would be an input
//! error and exit 2, which is how one stray file in `node_modules/` used to fail a run.

use crate::common;

use std::fs;
use std::path::Path;
use std::process::Command;

use common::{cli, testdata};
use serde_json::Value;

const BROKEN: &str = "a: [\n";

/// A repository with one manifest to lint and broken files everywhere it should not
/// look. Returns `None` when git is missing ([`common::tools::program`]).
fn repository(dir: &Path) -> Option<()> {
    let program = common::tools::program("git")?;
    let git = |args: &[&str]| {
        Command::new(&program)
            .args(args)
            .current_dir(dir)
            .env("HOME", dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
    };
    match git(&["init", "--quiet"]) {
        Ok(output) if output.status.success() => {}
        failed => panic!("git init: {failed:?}"),
    }
    let write = |path: &str, text: &str| {
        let path = dir.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    };
    let manifest = fs::read_to_string(testdata("rules/ml206-fire-sleep-45.yaml")).unwrap();
    write("deploy/web.yaml", &manifest);
    write(".gitignore", "node_modules/\n*.rendered.yaml\n");
    write("node_modules/chart/values.yaml", BROKEN);
    write("deploy/web.rendered.yaml", BROKEN);
    write(".ignore", "target/\n");
    write("target/out.yaml", BROKEN);
    write(".git/info/exclude", "scratch/\n");
    write("scratch/try.yaml", BROKEN);
    write(".github/workflows/ci.yaml", BROKEN);
    write("deploy/.draft.yaml", BROKEN);
    write("charts/web/templates/deployment.yaml", BROKEN);
    write("generated/all.json", BROKEN);
    write(".mesh-lifecycle.yaml", "exclude:\n- charts/*/templates/\n");
    Some(())
}

/// `lint --format json ARGS` in `dir`, with git's and the user's own ignore files out of
/// reach: `(report, exit status)`.
fn lint(dir: &Path, args: &[&str]) -> (Value, i32) {
    let output = cli()
        .current_dir(dir)
        .env("HOME", dir)
        .env("XDG_CONFIG_HOME", dir.join(".config"))
        .args(["lint", "--format", "json"])
        .args(args)
        .output()
        .unwrap();
    let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "{error}: {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (report, output.status.code().unwrap())
}

/// The files of the report's input errors, sorted.
fn error_files(report: &Value) -> Vec<String> {
    let mut files: Vec<String> = report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["file"].as_str().unwrap().to_owned())
        .collect();
    files.sort();
    files
}

#[test]
fn ignore_rules_and_hidden_files_are_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let Some(()) = repository(dir.path()) else {
        return;
    };
    let (report, status) = lint(dir.path(), &["--exclude", "generated/", "."]);
    assert_eq!(error_files(&report), Vec::<String>::new(), "{report:#}");
    assert_eq!(status, 1);
    assert_eq!(report["summary"]["files"], 1);
    assert_eq!(report["findings"][0]["file"], "deploy/web.yaml");

    // Without --exclude, its directory is read.
    let (report, status) = lint(dir.path(), &["."]);
    assert_eq!(status, 2);
    assert_eq!(error_files(&report), ["generated/all.json"]);

    // --no-ignore reads hidden and ignored files; excludes still apply.
    let (report, _) = lint(dir.path(), &["--no-ignore", "--exclude", "generated", "."]);
    assert_eq!(
        error_files(&report),
        [
            ".github/workflows/ci.yaml",
            "deploy/.draft.yaml",
            "deploy/web.rendered.yaml",
            "node_modules/chart/values.yaml",
            "scratch/try.yaml",
            "target/out.yaml",
        ]
    );
    // The config's exclude is relative to its directory, from wherever the run starts.
    let (report, _) = lint(&dir.path().join("charts"), &["--no-config", "."]);
    assert_eq!(error_files(&report), ["web/templates/deployment.yaml"]);
    let (report, _) = lint(&dir.path().join("charts"), &["."]);
    assert_eq!(
        report["errors"][0]["message"],
        "directory contains no .yaml, .yml or .json files that are not hidden or ignored (--no-ignore reads those too)"
    );
}

#[test]
fn a_path_named_on_the_command_line_is_always_read() {
    let dir = tempfile::tempdir().unwrap();
    let Some(()) = repository(dir.path()) else {
        return;
    };
    for path in [
        "node_modules/chart/values.yaml",
        "deploy/.draft.yaml",
        "charts/web/templates/deployment.yaml",
        "node_modules",
        "scratch/",
    ] {
        let (report, status) = lint(dir.path(), &["--exclude", "templates/", path]);
        assert_eq!(status, 2, "{path}");
        assert_eq!(
            report["errors"].as_array().unwrap().len(),
            1,
            "{path}: {report:#}"
        );
    }
}

/// Outside a git repository `.gitignore` means nothing (as for git and ripgrep);
/// `.ignore` still applies.
#[test]
fn gitignore_needs_a_git_repository() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = fs::read_to_string(testdata("rules/ml206-fire-sleep-45.yaml")).unwrap();
    fs::write(dir.path().join("web.yaml"), &manifest).unwrap();
    fs::write(dir.path().join(".gitignore"), "out.yaml\n").unwrap();
    fs::write(dir.path().join("out.yaml"), BROKEN).unwrap();
    fs::write(dir.path().join(".ignore"), "tmp.yaml\n").unwrap();
    fs::write(dir.path().join("tmp.yaml"), BROKEN).unwrap();
    let (report, _) = lint(dir.path(), &["--no-config", "."]);
    assert_eq!(error_files(&report), ["out.yaml"]);
}

#[test]
fn a_bad_exclude_glob_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let output = cli()
        .current_dir(dir.path())
        .args(["lint", "--exclude", "{a,b", "."])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--exclude: exclude `{a,b` is not a valid glob"),
        "{stderr}"
    );
}
