//! The linter never opens a network connection and never writes a file it was not asked
//! to write — what a CI gate may assume of a tool it runs on untrusted manifests.
//!
//! * In a network namespace with no interfaces (`unshare -n`, or `unshare -rn` as an
//!   unprivileged user) every command behaves byte for byte as it does outside.
//! * Traced with strace, no command makes a network system call, and no command opens a
//!   file for writing, creates, renames or removes one — except the report `--output-file`
//!   names.
//! * Run with its working directory, HOME and TMPDIR in empty directories, it leaves them
//!   empty.
//!
//! Without unshare or strace (or where the machine forbids namespaces or ptrace) those
//! checks are skipped with a message (`common::tools`), unless `.ci/run` requires the
//! sandbox: it does where they work, so there a skip is a failure.

use crate::common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::testdata;

fn binary() -> PathBuf {
    assert_cmd::cargo::cargo_bin("kubectl-mesh_lifecycle")
}

/// Every command the linter has, over every input in `testdata/` (rule fixtures, the
/// corpus of real manifests, the bad-input catalogue) and over standard input. The
/// directories of `testdata/` that hold a kustomization or a Helm chart are read as
/// files (`--no-render`): rendering runs kubectl and helm, other programs, and writes a
/// temporary kustomization (see [`nothing_is_left_behind`]).
fn commands() -> Vec<(Vec<OsString>, Option<Vec<u8>>)> {
    let all: OsString = testdata("").into();
    let rules: OsString = testdata("rules").into();
    let corpus: OsString = testdata("corpus").into();
    let stdin = std::fs::read(testdata("rules/ml201-fire-prestop-plus-drain.yaml")).unwrap();
    let args = |items: &[&str], paths: &[&OsString]| -> Vec<OsString> {
        items
            .iter()
            .map(OsString::from)
            .chain(paths.iter().map(|p| (*p).clone()))
            .collect()
    };
    vec![
        (args(&["lint", "--no-render"], &[&all]), None),
        (
            args(&["lint", "--no-render", "--format", "json"], &[&all]),
            None,
        ),
        (args(&["lint", "--format", "html"], &[&rules]), None),
        (args(&["explain"], &[&rules]), None),
        (
            args(&["explain", "--format", "json"], &[&rules, &corpus]),
            None,
        ),
        (args(&["explain", "--format", "svg"], &[&rules]), None),
        (args(&["lint", "--format", "json", "-"], &[]), Some(stdin)),
        (args(&["rules"], &[]), None),
        (args(&["rules", "ML201"], &[]), None),
        (args(&["completions", "bash"], &[]), None),
        (args(&["--help"], &[]), None),
    ]
}

/// Skips a check this machine cannot make, or fails it where `.ci/run` says it must
/// work ([`common::tools::unavailable`]).
fn unavailable(what: &str) {
    common::tools::unavailable("sandbox", what);
}

fn run(mut command: Command, stdin: Option<&[u8]>) -> Output {
    use std::io::Write;
    command
        .env_remove("NO_COLOR")
        .env("COLUMNS", "100")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("the command starts");
    if let Some(bytes) = stdin {
        child.stdin.take().unwrap().write_all(bytes).unwrap();
    }
    child.wait_with_output().unwrap()
}

/// The first of `unshare -n` and `unshare -rn` that works here.
fn network_namespace() -> Option<Vec<&'static str>> {
    let unshare = common::tools::find("unshare")?;
    [&["-n"][..], &["-r", "-n"][..]]
        .into_iter()
        .find(|flags| {
            Command::new(&unshare)
                .args(*flags)
                .arg("true")
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|status| status.success())
        })
        .map(<[&str]>::to_vec)
}

#[test]
fn no_network_is_needed() {
    let Some(flags) = network_namespace() else {
        unavailable("unshare cannot make a network namespace here");
        return;
    };
    for (args, stdin) in commands() {
        let mut outside = Command::new(binary());
        outside.args(&args);
        let mut inside = Command::new(common::tools::path_of("unshare"));
        inside.args(&flags).arg(binary()).args(&args);
        let expected = run(outside, stdin.as_deref());
        let isolated = run(inside, stdin.as_deref());
        let shown = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(
            isolated.status.code(),
            expected.status.code(),
            "{shown}: exit status without a network"
        );
        assert!(
            isolated.stdout == expected.stdout,
            "{shown}: stdout differs without a network"
        );
        assert_eq!(
            String::from_utf8_lossy(&isolated.stderr),
            String::from_utf8_lossy(&expected.stderr),
            "{shown}: stderr differs without a network"
        );
    }
}

/// System calls that touch the network.
const NETWORK_CALLS: &[&str] = &[
    "socket",
    "socketpair",
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    "sendto",
    "sendmsg",
    "sendmmsg",
    "recvfrom",
    "recvmsg",
    "recvmmsg",
    "getsockname",
    "getpeername",
    "setsockopt",
    "getsockopt",
    "shutdown",
];

/// File system calls that change the file system whatever their flags.
const CHANGING_CALLS: &[&str] = &[
    "creat",
    "mkdir",
    "mkdirat",
    "rmdir",
    "unlink",
    "unlinkat",
    "rename",
    "renameat",
    "renameat2",
    "link",
    "linkat",
    "symlink",
    "symlinkat",
    "truncate",
    "mknod",
    "mknodat",
    "chmod",
    "fchmodat",
    "chown",
    "lchown",
    "fchownat",
    "utime",
    "utimes",
    "utimensat",
    "futimesat",
];

/// The calls in an strace log (`-f -o`) that touch the network or write a file other
/// than `allowed`.
fn violations(log: &str, allowed: Option<&Path>) -> Vec<String> {
    let mut found = Vec::new();
    for line in log.lines() {
        // `1234 openat(AT_FDCWD, "x", O_RDONLY) = 3`, or a resumed call.
        let call = line.split_once(' ').map_or(line, |(_, rest)| rest).trim();
        let name = call
            .strip_prefix("<... ")
            .map_or_else(|| call.split('(').next(), |rest| rest.split(' ').next())
            .unwrap_or("");
        let opens_for_writing = matches!(name, "open" | "openat" | "openat2")
            && ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC"]
                .iter()
                .any(|flag| call.contains(flag));
        let is_allowed =
            allowed.is_some_and(|path| call.contains(&format!("\"{}\"", path.display())));
        if NETWORK_CALLS.contains(&name)
            || ((opens_for_writing || CHANGING_CALLS.contains(&name)) && !is_allowed)
        {
            found.push(line.to_owned());
        }
    }
    found
}

fn strace_works() -> bool {
    Command::new(common::tools::path_of("strace"))
        .args(["-f", "-qq", "-o", "/dev/null", "true"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

fn traced(args: &[OsString], stdin: Option<&[u8]>, log: &Path) -> (Output, String) {
    let mut command = Command::new(common::tools::path_of("strace"));
    command
        .args(["-f", "-qq", "-e", "trace=%network,%file", "-o"])
        .arg(log)
        .arg(binary())
        .args(args);
    let output = run(command, stdin);
    (output, std::fs::read_to_string(log).unwrap())
}

#[test]
fn no_network_call_and_no_write_is_made() {
    if common::tools::find("strace").is_none() {
        unavailable("`strace` is not installed");
        return;
    }
    if !strace_works() {
        unavailable("`strace` cannot trace here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("strace.log");
    for (args, stdin) in commands() {
        let (output, trace) = traced(&args, stdin.as_deref(), &log);
        assert!(
            output.status.code().is_some(),
            "{args:?} did not exit normally"
        );
        assert!(
            trace.contains("openat(") || args[0] != "lint",
            "the trace records file calls: {trace}"
        );
        let bad = violations(&trace, None);
        assert!(
            bad.is_empty(),
            "{args:?} made these calls:\n{}",
            bad.join("\n")
        );
    }
    // With --output-file, the report file is the one file written.
    let report = dir.path().join("report.json");
    let args: Vec<OsString> = vec![
        "lint".into(),
        "-o".into(),
        "json".into(),
        "--output-file".into(),
        report.clone().into(),
        testdata("rules").into(),
    ];
    let (_, trace) = traced(&args, None, &log);
    assert!(report.is_file(), "the report was written");
    assert!(
        trace.contains(&format!("\"{}\"", report.display())),
        "{trace}"
    );
    let bad = violations(&trace, Some(&report));
    assert!(
        bad.is_empty(),
        "--output-file made these calls:\n{}",
        bad.join("\n")
    );
}

/// Every entry below `dir`, recursively.
fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path.clone());
            }
            found.push(path);
        }
    }
    found
}

#[test]
fn nothing_is_left_behind() {
    let work = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let isolate = |command: &mut Command| {
        command
            .current_dir(work.path())
            .env("HOME", home.path())
            .env("TMPDIR", tmp.path())
            .env("XDG_CONFIG_HOME", home.path().join(".config"))
            .env("XDG_CACHE_HOME", home.path().join(".cache"));
    };
    for (args, stdin) in commands() {
        let mut command = Command::new(binary());
        command.args(&args);
        isolate(&mut command);
        let output = run(command, stdin.as_deref());
        assert!(output.status.code().is_some());
        for dir in [work.path(), home.path(), tmp.path()] {
            assert_eq!(entries(dir), Vec::<PathBuf>::new(), "{args:?} left files");
        }
    }
    // Rendering a kustomization writes a temporary one, in TMPDIR, and removes it.
    if common::kubectl_binary().is_some() {
        let mut command = Command::new(binary());
        command
            .args(["lint", "--assumed-losses", "full"])
            .arg(testdata("kustomize"));
        isolate(&mut command);
        let output = run(command, None);
        assert_eq!(output.status.code(), Some(1), "{output:?}");
        for dir in [work.path(), home.path(), tmp.path()] {
            assert_eq!(entries(dir), Vec::<PathBuf>::new(), "rendering left files");
        }
    }
    // `--output-file` writes exactly the file it names, relative to the working directory.
    let mut command = Command::new(binary());
    command
        .args(["lint", "-o", "json", "--output-file", "report.json"])
        .arg(testdata("rules"));
    isolate(&mut command);
    run(command, None);
    assert_eq!(entries(work.path()), vec![work.path().join("report.json")]);
    assert_eq!(entries(home.path()), Vec::<PathBuf>::new());
    assert_eq!(entries(tmp.path()), Vec::<PathBuf>::new());
}

#[test]
fn the_trace_check_sees_what_it_looks_for() {
    let log = "\
12 openat(AT_FDCWD, \"/etc/passwd\", O_RDONLY|O_CLOEXEC) = 3
12 socket(AF_INET, SOCK_STREAM, IPPROTO_TCP) = 4
13 openat(AT_FDCWD, \"out.json\", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 5
13 <... connect resumed>) = 0
14 unlinkat(AT_FDCWD, \"x\", 0) = 0
";
    let found = violations(log, None);
    assert_eq!(found.len(), 4, "{found:#?}");
    let found = violations(log, Some(Path::new("out.json")));
    assert_eq!(found.len(), 3, "{found:#?}");
}
