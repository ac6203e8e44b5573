//! How inputs are read: each exactly once whatever it is (a file, `-`, `/dev/stdin`,
//! `<(…)`, a FIFO), within limits that name the flag raising them, never overwritten by
//! the report, named the same way in every format, and with an exit status that a
//! closed pipe or a refused thread cannot change.

use crate::common;

use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{cli, testdata};
use serde_json::Value;

/// A pod in namespace `shop`, then the Namespace that turns on Istio injection there.
/// The Namespace comes second: only a reader that saw the whole input before linting
/// the pod finds ML101 (the app starts before the injected proxy) at line 3.
const POD_THEN_NAMESPACE: &str = "apiVersion: v1
kind: Pod
metadata:
  name: api
  namespace: shop
spec:
  containers:
  - name: app
    image: example/app:1.0
    ports: [{containerPort: 8080}]
---
apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels:
    istio-injection: enabled
";

/// `(ruleId, line)` of each finding, sorted.
fn found(report: &Value) -> Vec<(String, u64)> {
    common::rule_lines(report)
}

fn json(stdout: &[u8]) -> Value {
    serde_json::from_slice(stdout)
        .unwrap_or_else(|error| panic!("not JSON ({error}): {}", String::from_utf8_lossy(stdout)))
}

/// Standard error with the human renderer's wrapping undone, to search for sentences.
fn unwrapped(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr)
        .replace("\n  │ ", " ")
        .replace("- ", "-")
}

fn binary() -> PathBuf {
    assert_cmd::cargo::cargo_bin("kubectl-mesh_lifecycle")
}

/// Runs `script` in bash with the binary as `$LINT`, a hang turned into a failure.
fn bash(script: &str) -> std::process::Output {
    let mut command = assert_cmd::Command::new("bash");
    command
        .arg("-c")
        .arg(script)
        .env("LINT", binary())
        .env_remove("NO_COLOR")
        .timeout(Duration::from_secs(120));
    command.output().expect("bash runs")
}

fn context_applied(report: &Value) {
    assert_eq!(report["summary"]["workloads"], 1, "{report:#}");
    assert_eq!(report["summary"]["inputErrors"], 0, "{report:#}");
    assert!(
        found(report).contains(&("ML101".to_owned(), 3)),
        "the Namespace after the pod must apply to it: {:?}",
        found(report)
    );
}

#[test]
fn dev_stdin_on_a_pipe_is_read_once() {
    let output = cli()
        .args(["lint", "--format", "json", "/dev/stdin"])
        .write_stdin(POD_THEN_NAMESPACE)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "a warning");
    context_applied(&json(&output.stdout));
}

#[test]
fn process_substitution_is_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rendered.yaml");
    fs::write(&file, POD_THEN_NAMESPACE).unwrap();
    let output = bash(&format!(
        "\"$LINT\" lint --format json <(cat '{}')",
        file.display()
    ));
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    context_applied(&json(&output.stdout));
}

#[test]
fn a_fifo_named_on_the_command_line_is_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("rendered.yaml");
    let Some(mkfifo) = common::tools::program("mkfifo") else {
        return;
    };
    assert!(
        Command::new(mkfifo)
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success()),
        "mkfifo makes a FIFO"
    );
    // One writer, once: a second open by the linter would wait for a writer forever.
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::write(fifo, POD_THEN_NAMESPACE).unwrap())
    };
    let mut command = cli();
    command
        .args(["lint", "--format", "json"])
        .arg(&fifo)
        .timeout(Duration::from_secs(60));
    let output = command.output().unwrap();
    writer.join().unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    context_applied(&json(&output.stdout));
}

#[test]
fn standard_input_named_twice_is_read_once() {
    let output = cli()
        .args(["lint", "--format", "json", "-", "/dev/stdin", "-"])
        .write_stdin(POD_THEN_NAMESPACE)
        .output()
        .unwrap();
    let report = json(&output.stdout);
    assert_eq!(report["summary"]["files"], 1, "{report:#}");
    context_applied(&report);
}

/// `lint /dev/zero`: no line ever ends, so only the NUL bytes can stop it, at once.
#[test]
fn dev_zero_is_refused_at_once() {
    let mut command = cli();
    command
        .args(["lint", "--format", "json", "/dev/zero"])
        .timeout(Duration::from_secs(30));
    let output = command.output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let report = json(&output.stdout);
    assert_eq!(report["errors"][0]["file"], "/dev/zero");
    assert!(
        report["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("contains NUL bytes"),
        "{report:#}"
    );
}

/// `yes 'a: b' | lint -`: an endless stream ends at the input limit, with a diagnostic
/// that names the limit and the flag. (The default limit, 256 MiB, is measured in
/// docs/reliability.md; a small one keeps the debug build quick.)
#[test]
fn an_endless_stream_ends_at_the_input_limit() {
    let output = bash("yes 'a: b' | \"$LINT\" lint --format json --max-input-size 8MiB -");
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let report = json(&output.stdout);
    names_the_limit(&report, "input larger than 8 MiB", "--max-input-size");
    assert_eq!(
        report["errors"][0]["line"], 1,
        "the unread part starts with the document"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("-:1:1: input larger than 8 MiB"),
        "{stderr}"
    );
}

/// The same limit on a regular file, refused before reading.
#[test]
fn a_file_over_the_input_limit_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.yaml");
    fs::write(&big, "a: b\n".repeat(1000)).unwrap();
    let (report, status) = common::lint_json(&big, &["--max-input-size", "4KiB"]);
    assert_eq!(status, 2);
    names_the_limit(
        &report,
        "larger than 4 KiB, the limit on one input",
        "--max-input-size",
    );
}

/// The one input error of `report` says what limit was reached and which flag raises it.
fn names_the_limit(report: &Value, limit: &str, flag: &str) {
    let errors = report["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{report:#}");
    let message = errors[0]["message"].as_str().unwrap();
    assert!(
        message.contains(limit) && message.contains(flag),
        "{message}"
    );
}

#[test]
fn a_line_over_the_limit_skips_its_document_only() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("wide.yaml");
    let pod = fs::read_to_string(testdata("rules/ml206-fire-sleep-45.yaml")).unwrap();
    let wide = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: wide}}\ndata: {{blob: {}}}\n",
        "x".repeat(3000)
    );
    fs::write(&file, format!("{wide}---\n{pod}")).unwrap();
    let (report, status) = common::lint_json(&file, &["--max-line-length", "2KiB"]);
    assert_eq!(status, 2);
    names_the_limit(&report, "line longer than 2 KiB", "--max-line-length");
    let error = &report["errors"][0];
    assert_eq!((&error["line"], &error["column"]), (&4.into(), &1.into()));
    assert_eq!(
        report["summary"]["workloads"], 1,
        "the pod after it is linted"
    );
}

#[test]
fn a_document_over_the_limit_names_the_flag() {
    let (report, status) = common::lint_json(
        &testdata("rules/ml206-fire-sleep-45.yaml"),
        &["--max-document-size", "100"],
    );
    assert_eq!(status, 2);
    names_the_limit(
        &report,
        "document larger than 100 bytes",
        "--max-document-size",
    );
}

#[test]
fn config_and_mesh_config_files_are_bounded() {
    let mut command = cli();
    command
        .args(["lint", "--mesh-config", "/dev/zero"])
        .arg(testdata("rules/ml206-fire-sleep-45.yaml"))
        .timeout(Duration::from_secs(30));
    let output = command.output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = unwrapped(&output.stderr);
    assert!(
        stderr.contains(
            "/dev/zero: larger than 4 MiB, the limit on config and mesh-config files; not read"
        ) && stderr.contains("--max-config-size"),
        "{stderr}"
    );
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join(".mesh-lifecycle.yaml");
    fs::write(
        &config,
        "kubernetesVersion: \"1.30\"\n# padding\n".repeat(50),
    )
    .unwrap();
    let output = cli()
        .args(["lint", "--max-config-size", "1KiB", "--config"])
        .arg(&config)
        .arg(testdata("rules/ml206-fire-sleep-45.yaml"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("larger than 1 KiB"), "{stderr}");
    // A mesh config given through process substitution is read once, too.
    let output = bash(&format!(
        "\"$LINT\" lint --format json --mesh-config <(printf 'defaultConfig:\\n  terminationDrainDuration: 40s\\n') '{}'",
        testdata("rules/ml206-fire-sleep-45.yaml").display()
    ));
    assert_eq!(output.status.code(), Some(1), "{output:?}");
}

#[test]
fn sizes_are_checked_as_flags() {
    for bad in ["0", "12XB", "-1", "99999999999999999999"] {
        let output = cli()
            .args(["lint", &format!("--max-input-size={bad}"), "x.yaml"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{bad}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("is not a size such as"), "{bad}: {stderr}");
    }
}

/// A directory of `count` copies of a manifest with an error finding each.
fn many_findings(dir: &Path, count: usize) -> PathBuf {
    let manifests = dir.join("manifests");
    fs::create_dir(&manifests).unwrap();
    let pod = fs::read_to_string(testdata("rules/ml206-fire-sleep-45.yaml")).unwrap();
    for index in 0..count {
        fs::write(manifests.join(format!("pod-{index:03}.yaml")), &pod).unwrap();
    }
    manifests
}

/// Runs `lint` with `args`, reads one line of its standard output and closes it, as
/// `| head -1` does; returns the exit status.
fn status_after_closing_the_pipe(args: &[&str], stderr: Stdio) -> Option<i32> {
    let mut child = Command::new(binary())
        .args(args)
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(!first.is_empty(), "the report starts");
    // The read end is dropped here: every later write fails with EPIPE.
    child.wait().unwrap().code()
}

/// `lint dir/ | head -1`: the report is cut, the exit status is the findings'.
#[test]
fn the_exit_status_survives_a_closed_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let manifests = many_findings(dir.path(), 200);
    let path = manifests.to_str().unwrap();
    // 200 findings make far more than a pipe holds (64 KiB), in every format.
    for format in ["human", "table", "json", "sarif", "junit", "github"] {
        let status =
            status_after_closing_the_pipe(&["lint", "--format", format, path], Stdio::null());
        assert_eq!(status, Some(1), "--format {format}");
    }
    let status =
        status_after_closing_the_pipe(&["lint", "--fail-on", "never", path], Stdio::null());
    assert_eq!(status, Some(0));
    // An input error after the cut still makes it 2, with standard error closed as well
    // (`2>&1 | head -1`), where a panic would make it 101.
    fs::write(manifests.join("zz-broken.yaml"), "a: [\n").unwrap();
    let status = status_after_closing_the_pipe(&["lint", path], Stdio::piped());
    assert_eq!(status, Some(2));
    let output = bash(&format!(
        "\"$LINT\" lint '{path}' 2>&1 | head -1 >/dev/null; exit ${{PIPESTATUS[0]}}"
    ));
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let output = bash(&format!(
        "\"$LINT\" explain '{path}' | head -1 >/dev/null; exit ${{PIPESTATUS[0]}}"
    ));
    assert_eq!(output.status.code(), Some(2), "{output:?}");
}

#[test]
fn the_report_never_overwrites_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("web.yaml");
    let original = fs::read_to_string(testdata("rules/ml206-fire-sleep-45.yaml")).unwrap();
    fs::write(&manifest, &original).unwrap();
    std::os::unix::fs::symlink(&manifest, dir.path().join("link.yaml")).unwrap();
    fs::hard_link(&manifest, dir.path().join("hard.yaml")).unwrap();
    let config = dir.path().join("config.yaml");
    fs::write(&config, "kubernetesVersion: \"1.30\"\n").unwrap();
    let cases: [(&str, Vec<&str>); 5] = [
        ("the same path", vec!["web.yaml"]),
        ("another spelling", vec!["./web.yaml"]),
        ("a directory holding it", vec!["."]),
        ("a hard link", vec!["hard.yaml"]),
        (
            "the config file",
            vec!["--config", "config.yaml", "link.yaml"],
        ),
    ];
    for (output, (case, inputs)) in [
        "web.yaml",
        "link.yaml",
        "web.yaml",
        "web.yaml",
        "config.yaml",
    ]
    .iter()
    .zip(cases)
    {
        for command in ["lint", "explain"] {
            let result = cli()
                .current_dir(dir.path())
                .args([command, "--output-file", output])
                .args(&inputs)
                .output()
                .unwrap();
            assert_eq!(result.status.code(), Some(2), "{case}, {command}");
            let stderr = String::from_utf8_lossy(&result.stderr);
            assert!(
                stderr.contains("is the same file as the input")
                    && stderr.contains("would overwrite it"),
                "{case}: {stderr}"
            );
            // Only a file the search found, not one named, gets the way out.
            assert_eq!(
                stderr.contains("--exclude 'web.yaml'"),
                case == "a directory holding it",
                "{case}: {stderr}"
            );
        }
    }
    assert_eq!(fs::read_to_string(&manifest).unwrap(), original);
    assert_eq!(
        fs::read_to_string(&config).unwrap(),
        "kubernetesVersion: \"1.30\"\n"
    );
    // Standard input redirected from the file the report would replace.
    let result = Command::new(binary())
        .current_dir(dir.path())
        .args(["lint", "--output-file", "web.yaml", "-"])
        .stdin(fs::File::open(&manifest).unwrap())
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&result.stderr).contains("standard input"));
    assert_eq!(fs::read_to_string(&manifest).unwrap(), original);
    // A new file, or an old report that is no input, is written.
    for output in ["report.txt", "report.txt"] {
        let result = cli()
            .current_dir(dir.path())
            .args(["lint", "--output-file", output, "web.yaml"])
            .output()
            .unwrap();
        assert_eq!(result.status.code(), Some(1));
    }
    assert!(
        fs::read_to_string(dir.path().join("report.txt"))
            .unwrap()
            .contains("ML206")
    );
}

/// An `istio` mesh ConfigMap among the inputs is checked like `--mesh-config`: the same
/// error at the same place, exit 2, and the rest is still linted.
#[test]
fn mesh_config_in_the_input_is_validated_like_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let operator = dir.path().join("istio-operator.yaml");
    fs::write(
        &operator,
        "apiVersion: install.istio.io/v1alpha1
kind: IstioOperator
metadata:
  name: control-plane
spec:
  meshConfig:
    defaultConfig:
      terminationDrainDuration: soon
",
    )
    .unwrap();
    let pod = testdata("rules/ml206-fire-sleep-45.yaml");
    let output = cli()
        .args(["lint", "--format", "json"])
        .arg(&operator)
        .arg(&pod)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let report = json(&output.stdout);
    let errors = report["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{report:#}");
    assert_eq!(
        (&errors[0]["line"], &errors[0]["column"]),
        (&8.into(), &33.into()),
        "at the value"
    );
    let message = errors[0]["message"].as_str().unwrap().to_owned();
    assert!(message.contains("`soon` is not a duration"), "{message}");
    assert_eq!(report["summary"]["workloads"], 1, "the pod is still linted");
    let flagged = cli()
        .args(["lint", "--mesh-config"])
        .arg(&operator)
        .arg(&pod)
        .output()
        .unwrap();
    assert_eq!(flagged.status.code(), Some(2));
    let stderr = unwrapped(&flagged.stderr).replace("  ", " ");
    assert!(
        stderr.contains(&format!("{}:8:33: {message}", operator.display()).replace("  ", " ")),
        "{stderr}"
    );
    // The same object inside a `List` (`kubectl get cm,istiooperator -o yaml`), on
    // standard input.
    let listed = format!(
        "apiVersion: v1\nkind: List\nitems:\n- {}",
        fs::read_to_string(&operator)
            .unwrap()
            .replace('\n', "\n  ")
            .trim_end()
    );
    let output = cli()
        .args(["lint", "--format", "json", "-"])
        .write_stdin(listed)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let report = json(&output.stdout);
    assert_eq!(
        (&report["errors"][0]["line"], &report["errors"][0]["column"]),
        (&11.into(), &35.into()),
        "{report:#}"
    );
}

/// `kubectl get pods -o yaml` prints a `PodList` for some clients; kubectl reads any
/// object with `items` as a list, whatever its kind.
#[test]
fn typed_lists_are_read_like_list() {
    let pod = "  - apiVersion: v1
    kind: Pod
    metadata: {name: NAME}
    spec:
      terminationGracePeriodSeconds: 5
      containers:
      - name: app
        image: example/app:1.0
        lifecycle: {preStop: {exec: {command: [sleep, '9']}}}
";
    for kind in ["PodList", "DeploymentList", "JobList", "List"] {
        let text = format!(
            "apiVersion: v1\nkind: {kind}\nmetadata: {{resourceVersion: \"1\"}}\nitems:\n{}{}",
            pod.replace("NAME", "a"),
            pod.replace("NAME", "b")
        );
        let output = cli()
            .args(["lint", "--format", "json", "-"])
            .write_stdin(text.clone())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{kind}");
        let report = json(&output.stdout);
        assert_eq!(report["summary"]["workloads"], 2, "{kind}: {report:#}");
        assert_eq!(
            found(&report),
            vec![("ML206".to_owned(), 13), ("ML206".to_owned(), 22)],
            "{kind}"
        );
        // What kubectl reads from the same text: the same two pods.
        if let Some(kubectl) = common::kubectl_binary() {
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("list.yaml");
            fs::write(&file, &text).unwrap();
            let names = Command::new(kubectl)
                .args(["label", "--local", "-o", "name", "x=y", "-f"])
                .arg(&file)
                .output()
                .unwrap();
            assert_eq!(
                String::from_utf8_lossy(&names.stdout),
                "pod/a\npod/b\n",
                "{kind}: {names:?}"
            );
        }
    }
}

#[test]
fn a_file_named_twice_is_linted_once_and_named_alike_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    fs::create_dir(&input).unwrap();
    fs::copy(
        testdata("rules/ml206-fire-sleep-45.yaml"),
        input.join("a.yaml"),
    )
    .unwrap();
    std::os::unix::fs::symlink("a.yaml", input.join("b.yml")).unwrap();
    let run = |format: &str, args: &[&str]| {
        let output = cli()
            .current_dir(dir.path())
            .env("GITHUB_WORKSPACE", dir.path())
            .args(["lint", "--format", format])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{format} {args:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    for args in [
        &["in/a.yaml", "./in/a.yaml"][..],
        &["./in/", "in/a.yaml"][..],
        &["in/b.yml", "./in"][..],
    ] {
        let report = json(run("json", args).as_bytes());
        assert_eq!(report["summary"]["files"], 1, "{args:?}");
        assert_eq!(report["findings"].as_array().unwrap().len(), 1, "{args:?}");
    }
    // Walking `./in/` writes `in/a.yaml` in every format.
    let args = ["./in/"];
    let report = json(run("json", &args).as_bytes());
    assert_eq!(report["findings"][0]["file"], "in/a.yaml");
    let sarif = json(run("sarif", &args).as_bytes());
    assert_eq!(
        sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "in/a.yaml"
    );
    assert!(run("human", &args).contains("[in/a.yaml:19:"));
    assert!(run("table", &args).contains("in/a.yaml:19:"));
    assert!(run("junit", &args).contains("file=\"in/a.yaml\""));
    assert!(run("github", &args).contains("file=in/a.yaml,"));
}

/// `--stdin-filename` names standard input in every format; without it, every format
/// calls it `-`.
#[test]
fn standard_input_has_one_name_in_every_format() {
    let manifest = fs::read(testdata("rules/ml206-fire-sleep-45.yaml")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = |format: &str, name: Option<&str>| {
        let mut command = cli();
        command
            .current_dir(dir.path())
            .env("GITHUB_WORKSPACE", dir.path())
            .args(["lint", "--format", format]);
        if let Some(name) = name {
            command.args(["--stdin-filename", name]);
        }
        let output = command
            .arg("-")
            .write_stdin(manifest.clone())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{format}");
        String::from_utf8(output.stdout).unwrap()
    };
    for (name, uri) in [
        (
            Some("./charts/web/rendered.yaml"),
            "charts/web/rendered.yaml",
        ),
        (None, "-"),
    ] {
        let report = json(run("json", name).as_bytes());
        assert_eq!(report["findings"][0]["file"], uri);
        let sarif = json(run("sarif", name).as_bytes());
        let location = &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], uri, "{sarif:#}");
        assert!(run("human", name).contains(&format!("[{uri}:19:")));
        let junit = run("junit", name);
        assert!(
            junit.contains(&format!("<testsuite name=\"{uri}\"")),
            "{junit}"
        );
        let github = run("github", name);
        match name {
            Some(_) => assert!(github.contains(&format!("file={uri},line=19")), "{github}"),
            None => {
                assert!(!github.contains("file="), "{github}");
                assert!(github.contains("::-:19:"), "{github}");
            }
        }
    }
    assert!(run("table", None).contains("│ -:19:11 "));
    let sarif = json(run("sarif", Some("charts/web/rendered.yaml")).as_bytes());
    assert_eq!(
        sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"],
        "%SRCROOT%"
    );
    let junit = run("junit", Some("charts/web/rendered.yaml"));
    assert!(
        junit.contains("file=\"charts/web/rendered.yaml\""),
        "{junit}"
    );
}

/// `lint` with nothing to read on a terminal says so at once instead of waiting for
/// input (run in a pseudo-terminal made by `script`).
#[test]
fn no_path_on_a_terminal_exits_at_once() {
    let Some(script) = common::tools::program("script") else {
        return;
    };
    for command in ["lint", "explain"] {
        let mut run = assert_cmd::Command::new(&script);
        run.args(["--quiet", "--return", "--command"])
            .arg(format!("{} {command}", binary().display()))
            .arg("/dev/null")
            .timeout(Duration::from_secs(30));
        let output = run.output().unwrap();
        let text = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(2), "{command}: {text}");
        assert!(
            text.contains("no input: give a path") && text.contains("or pipe manifests"),
            "{command}: {text}"
        );
    }
    // With a path, or with standard input not a terminal, nothing changes.
    let output = cli().arg("lint").write_stdin("").output().unwrap();
    assert!(String::from_utf8_lossy(&output.stderr).contains("standard input is empty"));
}

/// A chart template given as a manifest: one diagnostic saying what it is.
#[test]
fn a_helm_template_is_named_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let templates = dir.path().join("web/templates");
    fs::create_dir_all(&templates).unwrap();
    let template = templates.join("deployment.yaml");
    fs::write(
        &template,
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include \"web.fullname\" . }}
  labels:
    {{- include \"web.labels\" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicaCount }}
",
    )
    .unwrap();
    let (report, status) = common::lint_json(&template, &[]);
    assert_eq!(status, 2);
    let errors = report["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{report:#}");
    assert_eq!(
        (&errors[0]["line"], &errors[0]["column"]),
        (&4.into(), &9.into())
    );
    let message = errors[0]["message"].as_str().unwrap();
    assert!(
        message.contains("a Helm template") && message.contains("helm template"),
        "{message}"
    );
}

/// The pre-commit hooks leave chart templates alone: pre-commit matches `exclude`
/// (a Python regular expression, searched) against each staged path.
#[test]
fn the_pre_commit_hooks_exclude_chart_templates() {
    if common::tools::program("python3").is_none() {
        return;
    }
    let hooks = fs::read_to_string(common::root().join(".pre-commit-hooks.yaml")).unwrap();
    let excludes: Vec<&str> = hooks
        .lines()
        .filter_map(|line| line.trim().strip_prefix("exclude: "))
        .collect();
    assert_eq!(excludes.len(), 2, "one per hook:\n{hooks}");
    for exclude in excludes {
        assert_eq!(exclude, excludes_first(&hooks), "the hooks agree");
        let regex = exclude.trim_matches('\'');
        for (path, excluded) in [
            ("charts/web/templates/deployment.yaml", true),
            ("templates/deployment.yaml", true),
            ("deploy/charts/api/charts/db/templates/sts.yaml", true),
            ("deploy/web.yaml", false),
            ("deploy/my-templates/web.yaml", false),
            ("charts/web/values.yaml", false),
        ] {
            assert_eq!(python_search(regex, path), excluded, "{regex} on {path}");
        }
    }
}

fn excludes_first(hooks: &str) -> &str {
    hooks
        .lines()
        .find_map(|line| line.trim().strip_prefix("exclude: "))
        .unwrap()
}

/// `re.search(regex, path)`, as pre-commit applies `exclude`.
fn python_search(regex: &str, path: &str) -> bool {
    let output = Command::new(common::tools::path_of("python3"))
        .args([
            "-c",
            "import re, sys; sys.exit(0 if re.search(sys.argv[1], sys.argv[2]) else 1)",
            regex,
            path,
        ])
        .output()
        .expect("python3 runs");
    output.status.success()
}

/// When the system refuses threads, the run goes on in the calling thread, says so,
/// and reports exactly what a one-thread run reports. As root the limit on processes is
/// not enforced, so the linter runs as nobody (setpriv) with at most one process of
/// nobody's (prlimit --nproc=1): every thread it asks for is refused.
#[test]
fn refused_threads_mean_fewer_threads_not_a_panic() {
    let [Some(setpriv), Some(prlimit)] = ["setpriv", "prlimit"].map(common::tools::program) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let manifests = many_findings(dir.path(), 20);
    let mut permissions = fs::metadata(dir.path()).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    fs::set_permissions(dir.path(), permissions).unwrap();
    let lint = |threads: &str| {
        let mut command = Command::new(&setpriv);
        command
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(&prlimit)
            .args(["--nproc=1", "--"])
            .arg(binary())
            .args(["lint", "--format", "json", "-j", threads])
            .arg(&manifests)
            .stdin(Stdio::null());
        command.output().unwrap()
    };
    let starved = lint("4");
    let stderr = String::from_utf8_lossy(&starved.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(starved.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("note: could not start 4 worker threads")
            && stderr.contains("checked the inputs on one thread instead"),
        "{stderr}"
    );
    let single = lint("1");
    assert_eq!(single.status.code(), Some(1));
    assert_eq!(starved.stdout, single.stdout, "the same report");
    let mut buffer = Vec::new();
    std::io::Cursor::new(&single.stdout)
        .read_to_end(&mut buffer)
        .unwrap();
    assert_eq!(json(&buffer)["summary"]["errors"], 20);
}

/// An object without `metadata.namespace` lands, as `kubectl apply` puts it where the
/// context names no namespace, in `default`: a `Namespace default` of the input that
/// enables injection injects it, and the assumptions say so; another namespace's
/// labels do not.
#[test]
fn an_object_without_a_namespace_is_read_in_default() {
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: example/web:1.0\n";
    let namespace = |name: &str| {
        format!(
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n  labels:\n    istio-injection: enabled\n---\n"
        )
    };
    let lint = |text: String| {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("all.yaml"), text).unwrap();
        let json = cli()
            .current_dir(dir.path())
            .args(["lint", "--no-config", "-o", "json", "all.yaml"])
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
        let rules: Vec<String> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["ruleId"].as_str().unwrap().to_owned())
            .collect();
        let human = cli()
            .current_dir(dir.path())
            .args(["explain", "--no-config", "all.yaml"])
            .output()
            .unwrap();
        (rules, String::from_utf8(human.stdout).unwrap())
    };
    let (rules, explain) = lint(namespace("default") + deployment);
    assert!(rules.contains(&"ML101".to_owned()), "{rules:?}");
    assert!(
        explain.contains("namespace default has injection enabled"),
        "{explain}"
    );
    let (rules, explain) = lint(namespace("shop") + deployment);
    assert!(!rules.contains(&"ML101".to_owned()), "{rules:?}");
    assert!(!explain.contains("added by the injector"), "{explain}");
}
