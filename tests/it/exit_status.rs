//! The exit status of every mode in every situation, as the table of docs/usage.md
//! ("Exit status") gives it: one test per row, through the binary, with the
//! pipes and files a CI job meets (a reader that goes away, a full disk, standard error
//! closed). `every_row_of_the_table_is_tested` keeps the table and these tests the same.

use crate::common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{root, testdata};

/// An error finding (ML206).
const ERROR_FINDING: &str = "rules/ml206-fire-sleep-45.yaml";
/// An info finding only (ML207).
const INFO_ONLY: &str = "rules/ml207-fire-no-prestop.yaml";
/// A document with a tab in its indentation: an input error.
const UNREADABLE: &str = "bad/tab-indentation.yaml";
/// A Deployment without containers: a note that it was not linted.
const NOT_LINTED: &str = "bad/no-containers.yaml";
/// An Istio workload before injection, whose findings change with the sidecar mode.
const DIFF: &str = "diff/istio-classic.yaml";

/// Where the program's standard output or error goes.
#[derive(Clone, Copy, Debug)]
enum Sink {
    /// Read to the end by the test.
    Read,
    /// A pipe whose reader has gone away (`… | head -1` once head has exited): every
    /// write fails with EPIPE.
    Closed,
    /// `/dev/full`: every write fails with ENOSPC, as on a full disk.
    Full,
}

/// The plugin run with `args`, stdout and stderr going to `out` and `err`, in the
/// repository, with no config file; its exit status.
fn status(args: &[&str], out: Sink, err: Sink) -> i32 {
    status_in(&root(), args, out, err, &[])
}

fn status_in(dir: &Path, args: &[&str], out: Sink, err: Sink, env: &[(&str, &OsStr)]) -> i32 {
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("kubectl-mesh_lifecycle"));
    command
        .args(args)
        .current_dir(dir)
        .env("COLUMNS", "100")
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdin(Stdio::null());
    for (name, value) in env {
        command.env(name, value);
    }
    command.stdout(stdio(out));
    command.stderr(stdio(err));
    let output = command.output().expect("the binary runs");
    output.status.code().expect("an exit status, not a signal")
}

fn stdio(sink: Sink) -> Stdio {
    match sink {
        Sink::Read => Stdio::piped(),
        Sink::Closed => {
            let (reader, writer) = std::io::pipe().expect("a pipe");
            drop(reader);
            Stdio::from(writer)
        }
        Sink::Full => Stdio::from(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .expect("/dev/full, as on every Linux"),
        ),
    }
}

fn data(relative: &str) -> String {
    testdata(relative).to_string_lossy().into_owned()
}

/// A directory holding `.mesh-lifecycle.yaml` with `text`.
fn with_config(text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".mesh-lifecycle.yaml"), text).unwrap();
    dir
}

/// A `$KUBECTL` that exits 1 without a word.
#[cfg(unix)]
fn silent_kubectl(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("kubectl");
    std::fs::write(&path, "#!/bin/sh\nexit 1\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// One row of the table: the mode and situation as docs/usage.md writes them, and the
/// status.
struct Row {
    mode: &'static str,
    situation: &'static str,
    status: &'static str,
}

macro_rules! rows {
    ($($test:ident: $mode:literal, $situation:literal => $status:literal $body:block)*) => {
        /// Every row these tests check.
        const ROWS: &[Row] = &[$(Row { mode: $mode, situation: $situation, status: $status }),*];
        $(
            #[test]
            fn $test() $body
        )*
    };
}

rows! {
    lint_clean: "`lint`", "nothing at or above `--fail-on`" => "0" {
        assert_eq!(status(&["lint", "--no-config", &data(INFO_ONLY)], Sink::Read, Sink::Read), 0);
    }
    lint_findings: "`lint`", "a finding at or above `--fail-on` (`error` by default)" => "1" {
        assert_eq!(status(&["lint", "--no-config", &data(ERROR_FINDING)], Sink::Read, Sink::Read), 1);
        let info = ["lint", "--no-config", "--fail-on", "info", &data(INFO_ONLY)];
        assert_eq!(status(&info, Sink::Read, Sink::Read), 1);
    }
    lint_never: "`lint`", "findings, with `--fail-on never`" => "0" {
        let args = ["lint", "--no-config", "--fail-on", "never", &data(ERROR_FINDING)];
        assert_eq!(status(&args, Sink::Read, Sink::Read), 0);
    }
    lint_exit_zero: "`lint --exit-zero`", "findings (an input error, or a workload `--strict` refuses, still exits 2)" => "0" {
        let args = ["lint", "--no-config", "--exit-zero", &data(ERROR_FINDING)];
        assert_eq!(status(&args, Sink::Read, Sink::Read), 0);
        let args = ["lint", "--no-config", "--exit-zero", &data(ERROR_FINDING), &data(UNREADABLE)];
        assert_eq!(status(&args, Sink::Read, Sink::Read), 2);
    }
    lint_input_error: "`lint`", "an input that cannot be read or parsed, whatever else is found and whatever `--fail-on` says" => "2" {
        let args = ["lint", "--no-config", "--fail-on", "never", &data(ERROR_FINDING), &data(UNREADABLE)];
        assert_eq!(status(&args, Sink::Read, Sink::Read), 2);
        assert_eq!(status(&["lint", "--no-config", "no/such/path.yaml"], Sink::Read, Sink::Read), 2);
    }
    lint_usage: "`lint`", "a usage error: an unknown flag, `-j` above 1024, a path with `--cluster`" => "2" {
        assert_eq!(status(&["lint", "--no-such-flag"], Sink::Read, Sink::Read), 2);
        assert_eq!(status(&["lint", "-j", "1025", &data(INFO_ONLY)], Sink::Read, Sink::Read), 2);
        assert_eq!(status(&["lint", "-j", "9223372036854775808", &data(INFO_ONLY)], Sink::Read, Sink::Read), 2);
        assert_eq!(status(&["lint", "--cluster", &data(INFO_ONLY)], Sink::Read, Sink::Read), 2);
    }
    lint_config: "`lint`", "the config file cannot be read, or holds an unknown key or a wrong value" => "2" {
        let dir = with_config("rules:\n  ML206: offf\n");
        assert_eq!(status_in(dir.path(), &["lint", &data(INFO_ONLY)], Sink::Read, Sink::Read, &[]), 2);
    }
    lint_output_input: "`lint`", "`--output-file` names a file the run reads" => "2" {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("web.yaml");
        std::fs::copy(testdata(INFO_ONLY), &manifest).unwrap();
        let manifest = manifest.to_string_lossy().into_owned();
        let args = ["lint", "--no-config", &manifest, "--output-file", &manifest];
        assert_eq!(status(&args, Sink::Read, Sink::Read), 2);
    }
    lint_note: "`lint`", "a workload not linted (a note: no containers, a kind it does not read, a kind `--cluster` may not list, no workload in scope)" => "as without it" {
        assert_eq!(status(&["lint", "--no-config", &data(NOT_LINTED)], Sink::Read, Sink::Read), 0);
        let args = ["lint", "--no-config", &data(NOT_LINTED), &data(ERROR_FINDING)];
        assert_eq!(status(&args, Sink::Read, Sink::Read), 1);
    }
    lint_strict: "`lint --strict` (or `strict: true`)", "a workload not linted" => "2" {
        let args = ["lint", "--no-config", "--strict", &data(NOT_LINTED)];
        assert_eq!(status(&args, Sink::Read, Sink::Read), 2);
        let dir = with_config("strict: true\n");
        let args = ["lint", &data(NOT_LINTED)];
        assert_eq!(status_in(dir.path(), &args, Sink::Read, Sink::Read, &[]), 2);
    }
    lint_strict_unrendered: "`lint --strict`", "a Helm chart or kustomization whose tool is not installed (without `--strict`: a note)" => "2" {
        let empty = tempfile::tempdir().unwrap();
        let kubectl = empty.path().join("kubectl");
        let env = [("PATH", empty.path().as_os_str()), ("KUBECTL", kubectl.as_os_str())];
        for chart in ["helm/shop", "kustomize/app"] {
            let args = ["lint", "--no-config", "--strict", &data(chart)];
            assert_eq!(status_in(&root(), &args, Sink::Read, Sink::Read, &env), 2, "{chart}");
        }
    }
    lint_closed: "`lint`", "the report's reader goes away (`lint … | head -1`)" => "the whole run's: every input is still checked" {
        for format in ["human", "table", "json", "sarif", "junit", "github"] {
            let args = ["lint", "--no-config", "-o", format, &data(INFO_ONLY), &data(ERROR_FINDING)];
            assert_eq!(status(&args, Sink::Closed, Sink::Read), 1, "{format}");
            let args = ["lint", "--no-config", "-o", format, &data(INFO_ONLY)];
            assert_eq!(status(&args, Sink::Closed, Sink::Read), 0, "{format}");
            let args = ["lint", "--no-config", "-o", format, &data(INFO_ONLY), &data(UNREADABLE)];
            assert_eq!(status(&args, Sink::Closed, Sink::Read), 2, "{format}");
        }
    }
    lint_unwritable: "`lint`", "the report cannot be written (a full disk: `--output-file /dev/full`)" => "2" {
        for format in ["human", "json", "sarif", "junit", "github"] {
            let args = ["lint", "--no-config", "-o", format, &data(INFO_ONLY)];
            assert_eq!(status(&args, Sink::Full, Sink::Read), 2, "{format}");
            let args = ["lint", "--no-config", "-o", format, "--output-file", "/dev/full", &data(INFO_ONLY)];
            assert_eq!(status(&args, Sink::Read, Sink::Read), 2, "{format}");
        }
    }
    lint_stderr_closed: "`lint`", "standard error closed or full" => "the run's" {
        let args = ["lint", "--no-config", &data(ERROR_FINDING), &data(UNREADABLE)];
        assert_eq!(status(&args, Sink::Read, Sink::Closed), 2);
        assert_eq!(status(&args, Sink::Read, Sink::Full), 2);
        let args = ["lint", "--no-config", &data(ERROR_FINDING)];
        assert_eq!(status(&args, Sink::Read, Sink::Closed), 1);
    }
    lint_cluster_call: "`lint --cluster`", "a kubectl call fails, times out, is killed, prints more than `--max-input-size` or what is not JSON; a namespace that does not exist; kubectl not found" => "2" {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no-kubectl");
        let args = ["lint", "--no-config", "--cluster"];
        let env = [("KUBECTL", missing.as_os_str())];
        assert_eq!(status_in(dir.path(), &args, Sink::Read, Sink::Read, &env), 2);
        #[cfg(unix)]
        {
            let silent = silent_kubectl(dir.path());
            let env = [("KUBECTL", silent.as_os_str())];
            assert_eq!(status_in(dir.path(), &args, Sink::Read, Sink::Read, &env), 2);
        }
    }
    lint_baselined: "`lint --baseline FILE`", "findings the baseline holds: counted, never failing" => "as without them" {
        let dir = tempfile::tempdir().unwrap();
        let baseline = dir.path().join("baseline.json");
        let baseline = baseline.to_str().unwrap();
        let write = ["lint", "--no-config", "--write-baseline", baseline, &data(ERROR_FINDING)];
        assert_eq!(status(&write, Sink::Read, Sink::Read), 0);
        let args = ["lint", "--no-config", "--baseline", baseline, &data(ERROR_FINDING)];
        assert_eq!(status(&args, Sink::Read, Sink::Read), 0);
        // A finding it does not hold still fails the gate, and input errors still win.
        let write = ["lint", "--no-config", "--write-baseline", baseline, &data(INFO_ONLY)];
        assert_eq!(status(&write, Sink::Read, Sink::Read), 0);
        let args = ["lint", "--no-config", "--baseline", baseline, &data(ERROR_FINDING)];
        assert_eq!(status(&args, Sink::Read, Sink::Read), 1);
        let args = ["lint", "--no-config", "--baseline", baseline, &data(INFO_ONLY), &data(UNREADABLE)];
        assert_eq!(status(&args, Sink::Read, Sink::Read), 2);
    }
    baseline_written: "`lint --write-baseline FILE`", "every input read: its findings recorded" => "0" {
        let dir = tempfile::tempdir().unwrap();
        let baseline = dir.path().join("baseline.json");
        let args = ["lint", "--no-config", "--write-baseline", baseline.to_str().unwrap(), &data(ERROR_FINDING)];
        assert_eq!(status(&args, Sink::Read, Sink::Read), 0);
        assert!(baseline.is_file());
    }
    baseline_refused: "`lint --write-baseline FILE`", "an input that cannot be read: nothing written" => "2" {
        let dir = tempfile::tempdir().unwrap();
        let baseline = dir.path().join("baseline.json");
        let args = ["lint", "--no-config", "--write-baseline", baseline.to_str().unwrap(), &data(ERROR_FINDING), &data(UNREADABLE)];
        assert_eq!(status(&args, Sink::Read, Sink::Read), 2);
        assert!(!baseline.exists());
    }
    diff_clean: "`diff`", "nothing at or above `--fail-on-new` (`error` by default) added, or raised to it" => "0" {
        // Towards native sidecars only infos are added.
        let args = ["diff", "--no-config", "--to", "istio=1.27", "--to", "kubernetes=1.33", &data(DIFF)];
        assert_eq!(status(&args, Sink::Read, Sink::Read), 0);
        assert_eq!(status(&args, Sink::Closed, Sink::Read), 0);
    }
    diff_added: "`diff`", "a finding at or above `--fail-on-new` added, or raised to it" => "1" {
        // Back to classic sidecars an error is added, whoever reads the report.
        let args = ["diff", "--no-config", "--from", "istio=1.27", "--from", "kubernetes=1.33", "--to", "istio=1.26", &data(DIFF)];
        assert_eq!(status(&args, Sink::Read, Sink::Read), 1);
        assert_eq!(status(&args, Sink::Closed, Sink::Read), 1);
        let args = ["diff", "--no-config", "--to", "istio=1.27", "--to", "kubernetes=1.33", "--fail-on-new", "info", &data(DIFF)];
        assert_eq!(status(&args, Sink::Read, Sink::Read), 1);
    }
    diff_input_error: "`diff`", "an input of either side that cannot be read" => "2" {
        let args = ["diff", "--no-config", "--to", "istio=1.27", &data(DIFF), &data(UNREADABLE)];
        assert_eq!(status(&args, Sink::Read, Sink::Read), 2);
    }
    explain_drawn: "`explain`", "every input read" => "0" {
        for format in ["text", "json", "svg", "html"] {
            let args = ["explain", "--no-config", "-o", format, &data(ERROR_FINDING)];
            assert_eq!(status(&args, Sink::Read, Sink::Read), 0, "{format}");
        }
    }
    explain_input_error: "`explain`", "an input that cannot be read or parsed" => "2" {
        let args = ["explain", "--no-config", &data(ERROR_FINDING), &data(UNREADABLE)];
        assert_eq!(status(&args, Sink::Read, Sink::Read), 2);
    }
    explain_closed: "`explain`", "the drawing's reader goes away" => "the whole run's" {
        for format in ["text", "json", "svg", "html"] {
            let args = ["explain", "--no-config", "-o", format, &data(ERROR_FINDING)];
            assert_eq!(status(&args, Sink::Closed, Sink::Read), 0, "{format}");
            let args = ["explain", "--no-config", "-o", format, &data(ERROR_FINDING), &data(UNREADABLE)];
            assert_eq!(status(&args, Sink::Closed, Sink::Read), 2, "{format}");
        }
    }
    explain_unwritable: "`explain`", "the drawing cannot be written" => "2" {
        for format in ["text", "json", "svg", "html"] {
            let args = ["explain", "--no-config", "-o", format, &data(ERROR_FINDING)];
            assert_eq!(status(&args, Sink::Full, Sink::Read), 2, "{format}");
        }
    }
    explain_unmatched: "`explain --workload NAME` (or `--kind`)", "no workload matches" => "2" {
        let args = ["explain", "--no-config", "--workload", "no-such-name", &data(ERROR_FINDING)];
        assert_eq!(status(&args, Sink::Read, Sink::Read), 2);
        let args = ["explain", "--no-config", "--kind", "CronJob", &data(ERROR_FINDING)];
        assert_eq!(status(&args, Sink::Read, Sink::Read), 2);
    }
    printed: "`rules`, `completions`", "printed" => "0" {
        assert_eq!(status(&["rules"], Sink::Read, Sink::Read), 0);
        assert_eq!(status(&["completions", "bash"], Sink::Read, Sink::Read), 0);
    }
    printed_closed: "`rules`, `completions`", "the reader goes away: it has what it read, and there is nothing to gate" => "0" {
        assert_eq!(status(&["rules"], Sink::Closed, Sink::Read), 0);
        assert_eq!(status(&["rules", "ML201"], Sink::Closed, Sink::Read), 0);
        assert_eq!(status(&["completions", "zsh"], Sink::Closed, Sink::Read), 0);
    }
    printed_unwritable: "`rules`, `completions`", "the output cannot be written" => "2" {
        assert_eq!(status(&["rules"], Sink::Full, Sink::Read), 2);
        assert_eq!(status(&["completions", "bash"], Sink::Full, Sink::Read), 2);
    }
    rules_unknown: "`rules`", "a rule that does not exist" => "2" {
        assert_eq!(status(&["rules", "ML999"], Sink::Read, Sink::Read), 2);
    }
    lsp_shutdown: "`lsp`", "the editor asks it to shut down, then to exit" => "0" {
        let session = [initialize(), request(2, "shutdown"), notification("exit")].concat();
        assert_eq!(lsp_status(&session), 0);
    }
    lsp_no_shutdown: "`lsp`", "the editor asks it to exit without shutting down, or its input ends" => "1" {
        let session = [initialize(), notification("exit")].concat();
        assert_eq!(lsp_status(&session), 1);
        assert_eq!(lsp_status(&initialize()), 1);
    }
}

/// One message of the language server protocol, framed.
fn framed(message: serde_json::Value) -> Vec<u8> {
    let body = message.to_string();
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

fn request(id: u64, method: &str) -> Vec<u8> {
    framed(serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method}))
}

fn notification(method: &str) -> Vec<u8> {
    framed(serde_json::json!({"jsonrpc": "2.0", "method": method}))
}

/// `initialize` and `initialized`, as an editor opens a session.
fn initialize() -> Vec<u8> {
    let initialize = framed(serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"processId": null, "rootUri": null, "capabilities": {}}
    }));
    let initialized = framed(serde_json::json!({
        "jsonrpc": "2.0", "method": "initialized", "params": {}
    }));
    [initialize, initialized].concat()
}

/// The exit status of `lsp` given `session` on its standard input.
fn lsp_status(session: &[u8]) -> i32 {
    let output = common::cli()
        .args(["lsp", "--no-config"])
        .current_dir(root())
        .write_stdin(session.to_vec())
        .output()
        .unwrap();
    output.status.code().expect("an exit status")
}

/// The rows of the table in docs/usage.md, as `(mode, situation, status)`.
fn documented_rows() -> Vec<(String, String, String)> {
    let usage = std::fs::read_to_string(root().join("docs/usage.md")).unwrap();
    let table = usage
        .split("<!-- exit-status:start -->")
        .nth(1)
        .and_then(|rest| rest.split("<!-- exit-status:end -->").next())
        .expect("the exit status table of docs/usage.md, between its markers");
    table
        .lines()
        .filter(|line| line.starts_with('|'))
        .skip(2)
        .map(|line| {
            let cells: Vec<String> = line
                .trim_matches('|')
                .split(" | ")
                .map(|cell| cell.trim().replace("\\|", "|"))
                .collect();
            assert_eq!(cells.len(), 3, "three cells: {line}");
            (cells[0].clone(), cells[1].clone(), cells[2].clone())
        })
        .collect()
}

#[test]
fn every_row_of_the_table_is_tested() {
    let tested: Vec<(String, String, String)> = ROWS
        .iter()
        .map(|row| (row.mode.into(), row.situation.into(), row.status.into()))
        .collect();
    // `--fix`, `--fix-only` and `--diff` have their rows in the same table, tested with
    // the fixes (tests/it/fix_writes.rs).
    let documented: Vec<(String, String, String)> = documented_rows()
        .into_iter()
        .filter(|(mode, _, _)| !mode.contains("--fix") && !mode.contains("--diff"))
        .collect();
    assert_eq!(documented, tested);
}
