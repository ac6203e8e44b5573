//! `lint --fix` through the binary where it writes, and where it must not: a full
//! disk, a read-only file, a file changed while the run went on, a symbolic link, a
//! signal during the write, an input over the size limit; each input on its own terms
//! (Helm-rendered documents, standard input, streams); and the exit status of every
//! `--fix` and `--diff` situation the table of docs/usage.md lists.
//!
//! The full disk and the read-only file need a private mount namespace (`unshare -rm`,
//! a small tmpfs, a read-only bind mount): without one the checks are skipped with a
//! message (`common::tools`), unless `.ci/run` requires the sandbox, where a skip is a
//! failure.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A Deployment with ML101 (a warning with a safe fix) and ML207 (an info).
const SAFE: &str = "rules/ml101-fire-inject-label.yaml";
/// A pod with ML201 (an error whose fix is unsafe, as its value rests on the app's
/// assumed shutdown time): it remains after `--fix`.
const UNSAFE: &str = "rules/ml201-fire-assumed-app-shutdown.yaml";
/// A gate on warnings that counts every finding in full: these tests are about what
/// is written, and their status must not hang on the evidence of `SAFE`'s finding.
const WARNINGS_IN_FULL: [&str; 4] = ["--fail-on", "warning", "--assumed-losses", "full"];

fn binary() -> PathBuf {
    assert_cmd::cargo::cargo_bin("kubectl-mesh_lifecycle")
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(common::testdata(name)).unwrap()
}

/// `fixture` copied into `dir` as `name`.
fn copy(dir: &Path, fixture_name: &str, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, fixture(fixture_name)).unwrap();
    path
}

/// What `lint --fix` writes for `fixture` alone: the expected content of a fixed copy.
fn fixed_text(fixture_name: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = copy(dir.path(), fixture_name, "alone.yaml");
    lint(&["--fix", path.to_str().unwrap()]);
    let fixed = std::fs::read_to_string(&path).unwrap();
    assert_ne!(
        fixed,
        fixture(fixture_name),
        "{fixture_name} has a safe fix"
    );
    fixed
}

/// `lint --fix path` with `hook` run by the writer just before it checks and replaces
/// the file (`$1` is the file).
fn fix_with_hook(path: &Path, hook: &str) -> Output {
    common::cli()
        .args(["lint", "--fix"])
        .arg(path)
        .env("MESH_LIFECYCLE_TEST_BEFORE_WRITE", hook)
        .output()
        .unwrap()
}

fn lint(args: &[&str]) -> Output {
    common::cli().arg("lint").args(args).output().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Files in `dir` that are not `keep`: temporary files left behind.
fn strays(dir: &Path, keep: &[&str]) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !keep.contains(&name.as_str()))
        .collect()
}

/// Runs `script` with `sh` as root of a private user and mount namespace, where it may
/// mount; `None` (the check skipped) where the machine does not allow one.
fn in_namespace(script: &str, envs: &[(&str, &Path)]) -> Option<Output> {
    let Some(unshare) = common::tools::find("unshare") else {
        common::tools::unavailable("sandbox", "`unshare` is not installed");
        return None;
    };
    let probe = Command::new(&unshare)
        .args(["-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"])
        .output();
    if !probe.as_ref().is_ok_and(|output| output.status.success()) {
        common::tools::unavailable(
            "sandbox",
            &format!("no private mount namespace here ({probe:?})"),
        );
        return None;
    }
    let mut command = Command::new(unshare);
    command
        .args(["-rm", "sh", "-euc", script])
        .env("BIN", binary())
        .env("COLUMNS", "100");
    for (name, path) in envs {
        command.env(name, path);
    }
    Some(command.output().unwrap())
}

/// A full disk: the file on it keeps every byte and no temporary file is left; the
/// other file is fixed, the report printed, the status 2. The disk is a tmpfs of 64 KiB
/// filled to the last block once the manifest is on it.
#[test]
fn a_full_disk_loses_nothing_and_the_other_files_are_fixed() {
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full");
    std::fs::create_dir(&full).unwrap();
    let other = copy(dir.path(), SAFE, "other.yaml");
    let script = r#"
        mount -t tmpfs -o size=64k tmpfs "$FULL"
        cp "$SOURCE" "$FULL/web.yaml"
        dd if=/dev/zero of="$FULL/filler" bs=4096 2>/dev/null || true
        set +e
        "$BIN" lint --fix "$FULL/web.yaml" "$OTHER"
        echo "status=$?"
        cmp "$SOURCE" "$FULL/web.yaml" && echo unchanged
        ls -A "$FULL"
    "#;
    let source = common::testdata(SAFE);
    let Some(output) = in_namespace(
        script,
        &[("FULL", &full), ("OTHER", &other), ("SOURCE", &source)],
    ) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let errors = stderr(&output);
    assert!(output.status.success(), "{stdout}\n{errors}");
    assert!(stdout.contains("status=2"), "{stdout}\n{errors}");
    assert!(stdout.contains("unchanged"), "{stdout}\n{errors}");
    assert!(
        errors.contains("web.yaml: 1 fix not written") && errors.contains("no space left"),
        "{errors}"
    );
    let listing: Vec<&str> = stdout
        .lines()
        .skip_while(|line| *line != "unchanged")
        .skip(1)
        .collect();
    assert_eq!(listing, ["filler", "web.yaml"], "no temporary file is left");
    assert_eq!(std::fs::read_to_string(&other).unwrap(), fixed_text(SAFE));
    assert!(
        stdout.contains("Found 4 findings (1 fixed, 3 remaining)."),
        "the report is printed: {stdout}"
    );
}

/// A read-only file (on a read-only mount: root may write any file whatever its mode)
/// is an error of that file: the others are fixed, the report printed, the status 2.
#[test]
fn a_read_only_file_is_an_error_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    let kept = copy(&locked, SAFE, "web.yaml");
    let other = copy(dir.path(), SAFE, "other.yaml");
    let script = r#"
        mount --bind "$LOCKED" "$LOCKED"
        mount -o remount,bind,ro "$LOCKED"
        set +e
        "$BIN" lint --fix --format json "$KEPT" "$OTHER"
        echo "status=$?" >&2
    "#;
    let Some(output) = in_namespace(
        script,
        &[("LOCKED", &locked), ("KEPT", &kept), ("OTHER", &other)],
    ) else {
        return;
    };
    let errors = stderr(&output);
    assert!(errors.contains("status=2"), "{errors}");
    assert!(errors.contains("read-only file system"), "{errors}");
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), fixture(SAFE));
    assert_eq!(std::fs::read_to_string(&other).unwrap(), fixed_text(SAFE));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    common::validate_lint_json(&report);
    assert_eq!(report["summary"]["fixes"]["fixed"], 1);
    let errors = report["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{report}");
    assert!(
        errors[0]["message"]
            .as_str()
            .unwrap()
            .contains("not written"),
        "{report}"
    );
}

/// An edit made to the file while the run went on is kept: the file is not written,
/// the error says why, and the status is 2.
#[test]
fn a_file_changed_between_read_and_write_is_left_to_its_editor() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy(dir.path(), SAFE, "web.yaml");
    let output = fix_with_hook(&path, r##"echo "# edited meanwhile" >> "$1""##);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("changed on disk since it was read"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        format!("{}# edited meanwhile\n", fixture(SAFE))
    );
    assert_eq!(strays(dir.path(), &["web.yaml"]), Vec::<String>::new());
}

/// A file removed while the run went on is not created again.
#[test]
fn a_file_removed_during_the_run_is_not_recreated() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy(dir.path(), SAFE, "web.yaml");
    let output = fix_with_hook(&path, r#"rm "$1""#);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(!path.exists());
    assert_eq!(strays(dir.path(), &[]), Vec::<String>::new());
}

/// SIGINT while the fixed text is being written: the file is the one that was read,
/// no temporary file is left, and the run ends as SIGINT says.
#[test]
fn a_signal_during_the_write_leaves_the_old_file_and_nothing_else() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let path = copy(dir.path(), SAFE, "web.yaml");
    // The hook runs as a child of the linter, with the new text in its temporary file:
    // it interrupts its parent there.
    let output = fix_with_hook(
        &path,
        "kill -INT $PPID; exec sleep 10 </dev/null >/dev/null 2>&1",
    );
    assert_eq!(output.status.signal(), Some(2), "{output:?}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), fixture(SAFE));
    assert_eq!(strays(dir.path(), &["web.yaml"]), Vec::<String>::new());
}

/// A symbolic link is followed: its target is replaced, the link kept. The file's
/// permission bits are kept.
#[test]
fn a_symbolic_link_stays_a_link_and_the_mode_is_kept() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let target = copy(dir.path(), SAFE, "target.yaml");
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.path().join("link.yaml");
    std::os::unix::fs::symlink("target.yaml", &link).unwrap();
    let output = lint(&["--fix", link.to_str().unwrap()]);
    assert!(
        output.status.code().is_some_and(|code| code < 2),
        "{output:?}"
    );
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        Path::new("target.yaml"),
        "the link is kept"
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), fixed_text(SAFE));
    let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
}

/// A directory search does not follow a link out of the directory: the file outside
/// is neither read nor fixed, and a note says so.
#[test]
fn a_search_does_not_follow_a_link_out_of_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    std::fs::create_dir(&tree).unwrap();
    let inside = copy(&tree, SAFE, "inside.yaml");
    let outside = copy(dir.path(), SAFE, "outside.yaml");
    std::os::unix::fs::symlink(&outside, tree.join("out.yaml")).unwrap();
    std::os::unix::fs::symlink("inside.yaml", tree.join("again.yaml")).unwrap();
    let output = lint(&["--fix", tree.to_str().unwrap()]);
    assert!(
        output.status.code().is_some_and(|code| code < 2),
        "{output:?}"
    );
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), fixture(SAFE));
    assert_eq!(std::fs::read_to_string(&inside).unwrap(), fixed_text(SAFE));
    assert!(
        stderr(&output).contains("out.yaml: a symbolic link out of"),
        "{}",
        stderr(&output)
    );
}

/// A file over `--max-input-size` is not read, so not fixed or rewritten; the others
/// are.
#[test]
fn a_file_over_the_input_limit_is_not_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let big = copy(dir.path(), SAFE, "big.yaml");
    let mut text = fixture(SAFE);
    text.push_str(&format!("# {}\n", "x".repeat(2000)));
    std::fs::write(&big, &text).unwrap();
    let small = copy(
        dir.path(),
        "rules/ml101-fire-inject-label.yaml",
        "small.yaml",
    );
    let output = lint(&[
        "--fix",
        "--max-input-size",
        "1500",
        big.to_str().unwrap(),
        small.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(
        stderr(&output).contains("larger than"),
        "{}",
        stderr(&output)
    );
    assert_eq!(std::fs::read_to_string(&big).unwrap(), text);
    assert_eq!(std::fs::read_to_string(&small).unwrap(), fixed_text(SAFE));
}

/// A Helm-rendered document beside an ordinary file, in every format: the ordinary
/// file is fixed in place, the rendered one gets the diff (on standard error), the
/// report goes to `--output` in the chosen format, and the status is that of the
/// findings as they stand (the rendered file still has its error). A hand-written
/// file whose comment starts with `# Source:` is fixed in place.
#[test]
fn helm_output_gets_the_diff_and_every_other_file_is_fixed_in_every_format() {
    for format in ["human", "table", "json", "sarif", "junit", "github"] {
        let dir = tempfile::tempdir().unwrap();
        let rendered = copy(dir.path(), "fixes/helm-rendered.yaml", "rendered.yaml");
        let plain = copy(dir.path(), SAFE, "plain.yaml");
        let hand = copy(dir.path(), "fixes/source-comment.yaml", "hand.yaml");
        let report = dir.path().join("report.out");
        let output = common::cli()
            .current_dir(dir.path())
            .args(["lint", "--fix"])
            .args(WARNINGS_IN_FULL)
            .args(["--format", format, "--output-file", "report.out"])
            .args(["rendered.yaml", "plain.yaml", "hand.yaml"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{format}: {output:?}");
        assert_eq!(
            std::fs::read_to_string(&rendered).unwrap(),
            fixture("fixes/helm-rendered.yaml"),
            "{format}"
        );
        assert_eq!(std::fs::read_to_string(&plain).unwrap(), fixed_text(SAFE));
        assert_ne!(
            std::fs::read_to_string(&hand).unwrap(),
            fixture("fixes/source-comment.yaml"),
            "{format}: a `# Source:` comment written by hand does not stop the fix"
        );
        let errors = stderr(&output);
        assert!(
            errors.contains("rendered.yaml: not written back, rendered by Helm from web/templates/deployment.yaml")
                && errors.contains("+++ b/rendered.yaml")
                && errors.contains("+        proxy.istio.io/config"),
            "{format}: {errors}"
        );
        let text = std::fs::read_to_string(&report).unwrap();
        assert!(
            text.contains("ML101"),
            "{format}: the rendered file's finding is reported: {text}"
        );
        match format {
            "json" => {
                let report: serde_json::Value = serde_json::from_str(&text).unwrap();
                common::validate_lint_json(&report);
                assert_eq!(report["summary"]["fixes"]["fixed"], 2);
            }
            "sarif" => {
                let log: serde_json::Value = serde_json::from_str(&text).unwrap();
                common::validate_sarif(&log);
            }
            "human" | "table" => {
                assert!(text.contains("(2 fixed,"), "{format}: {text}");
            }
            _ => {}
        }
    }
}

/// Standard input with `--fix`: the fixed stream on standard output, byte for byte
/// what the file would get, the report on standard error; the report and the status
/// are those of the stream printed, as ruff reports a fixed standard input.
#[test]
fn standard_input_round_trips_and_its_status_is_the_fixed_stream_s() {
    let output = common::cli()
        .args(["lint", "--fix", "-"])
        .write_stdin(fixture(UNSAFE))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), fixture(UNSAFE));
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let output = common::cli()
        .args(["lint", "--fix"])
        .args(WARNINGS_IN_FULL)
        .arg("-")
        .write_stdin(fixture(SAFE))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), fixed_text(SAFE));
    let report = stderr(&output);
    assert!(
        report.contains("Found 2 findings (1 fixed, 1 remaining)") && !report.contains("ML101"),
        "the report of the fixed stream goes to standard error: {report}"
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "ML101 is fixed in the stream printed, and an info does not fail: {output:?}"
    );
}

/// A stream (`<(…)`, here `/dev/stdin` named as a path) is not written back: it gets
/// the diff, and its findings decide the status.
#[test]
fn a_stream_gets_the_diff_and_its_status() {
    let output = common::cli()
        .args(["lint", "--fix"])
        .args(WARNINGS_IN_FULL)
        .arg("/dev/stdin")
        .write_stdin(fixture(SAFE))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let errors = stderr(&output);
    assert!(
        errors.contains("not written back, it is a stream") && errors.contains("+++ b/"),
        "{errors}"
    );
}

/// A reader that goes away does not stop `--fix`: every file is still fixed, and the
/// status is that of what remains.
#[test]
fn a_closed_output_does_not_stop_the_fixes() {
    let dir = tempfile::tempdir().unwrap();
    let first = copy(dir.path(), UNSAFE, "a.yaml");
    let second = copy(dir.path(), SAFE, "b.yaml");
    let mut child = Command::new(binary())
        .args(["lint", "--fix", "--show-infos"])
        .arg(&first)
        .arg(&second)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "ML201 remains");
    assert_eq!(std::fs::read_to_string(&second).unwrap(), fixed_text(SAFE));
}

/// `--diff` whose reader went away after the first line: the status says there was
/// something to change.
#[test]
fn a_closed_pipe_after_a_diff_still_says_there_is_something_to_fix() {
    let output = Command::new("bash")
        .arg("-c")
        .arg(r#""$BIN" lint --diff "$A" "$B" 2>/dev/null | head -1 >/dev/null; echo "${PIPESTATUS[0]}""#)
        .env("BIN", binary())
        .env("A", common::testdata(SAFE))
        .env("B", common::testdata("fixes/source-comment.yaml"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "1");
}

/// The `--fix` and `--diff` rows of the exit-status table of docs/usage.md.
#[test]
fn fix_and_diff_exit_statuses() {
    let status = |args: &[&str], fixture_name: &str| -> i32 {
        let dir = tempfile::tempdir().unwrap();
        let path = copy(dir.path(), fixture_name, "web.yaml");
        let mut all: Vec<&str> = args.to_vec();
        all.push(path.to_str().unwrap());
        lint(&all).status.code().unwrap()
    };
    // Every warning fixed (ML207, an info, remains): 0.
    assert_eq!(status(&["--fix", "--fail-on", "warning"], SAFE), 0);
    // An error remains (its fix is unsafe): 1.
    assert_eq!(status(&["--fix"], UNSAFE), 1);
    // Fixed, nothing at --fail-on remains, but --exit-non-zero-on-fix: 1.
    assert_eq!(status(&["--fix", "--exit-non-zero-on-fix"], SAFE), 1);
    // --fix-only reports nothing of what remains: 0; with --exit-non-zero-on-fix and
    // a fix made: 1.
    assert_eq!(status(&["--fix-only"], UNSAFE), 0);
    assert_eq!(status(&["--fix-only", "--exit-non-zero-on-fix"], SAFE), 1);
    // --diff: 1 when something would change, 0 when nothing would.
    assert_eq!(status(&["--diff"], SAFE), 1);
    assert_eq!(
        status(&["--diff"], "rules/ml101-silent-hold-annotation.yaml"),
        0
    );
    // An input that cannot be read: 2, with --fix, --fix-only and --diff.
    for flag in ["--fix", "--fix-only", "--diff"] {
        let output = lint(&[flag, "/nonexistent/web.yaml"]);
        assert_eq!(output.status.code(), Some(2), "{flag}");
    }
    // --diff prints a diff, not a report: another format is a usage error.
    assert_eq!(status(&["--diff", "--format", "json"], SAFE), 2);
}

/// `--diff` ends with the count, as ruff does, and the unsafe fixes it leaves (ML207's,
/// which rests on assumed times).
#[test]
fn diff_says_how_many_findings_it_would_fix() {
    let output = lint(&["--diff", common::testdata(SAFE).to_str().unwrap()]);
    assert!(
        stderr(&output).ends_with(
            "Would fix 1 finding (1 hidden fix can be enabled with the `--unsafe-fixes` option).\n"
        ),
        "{}",
        stderr(&output)
    );
}

/// `--fix` writes its inputs back, never a file the run reads as something else: a
/// manifest that is also the mesh config (`--mesh-config`) is left as it was, an error
/// of that file (exit 2); the fix is not made.
#[test]
fn a_fix_is_never_written_over_a_file_the_run_reads_as_settings() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("all.yaml");
    let text = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: istio\n  namespace: istio-system\ndata:\n  mesh: |\n    defaultConfig:\n      terminationDrainDuration: 5s\n---\n{}",
        fixture(SAFE)
    );
    std::fs::write(&path, &text).unwrap();
    let named = path.to_str().unwrap();
    let output = lint(&["--fix", "--no-config", "--mesh-config", named, named]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = stderr(&output);
    assert!(
        stderr.contains("1 fix not written: --fix: the fixed file")
            && stderr.contains("a mesh config; writing the fixes there would overwrite it"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    assert_eq!(strays(dir.path(), &["all.yaml"]), Vec::<String>::new());
}

/// A JSON manifest is written back whole, its final line break (or none) kept: the
/// text after its last value is the file's as much as the value.
#[test]
fn a_json_manifest_is_fixed_with_or_without_a_final_newline() {
    let value = r#"{
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  "metadata": {"name": "web", "namespace": "shop"},
  "spec": {
    "selector": {"matchLabels": {"app": "web"}},
    "template": {
      "metadata": {
        "labels": {"app": "web", "sidecar.istio.io/inject": "true"},
        "annotations": {"sidecar.istio.io/nativeSidecar": "false"}
      },
      "spec": {"containers": [{"name": "web", "image": "example/web:1.0"}]}
    }
  }
}"#;
    for tail in ["", "\n", "\n\n"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("web.json");
        std::fs::write(&path, format!("{value}{tail}")).unwrap();
        let output = lint(&["--fix", "--no-config", path.to_str().unwrap()]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{tail:?}: {}",
            stderr(&output)
        );
        let fixed = std::fs::read_to_string(&path).unwrap();
        assert!(
            fixed.contains("holdApplicationUntilProxyStarts: true")
                && fixed.ends_with(&format!("}}{tail}")),
            "{tail:?}: {fixed}"
        );
    }
}
