//! Every `lint -o FORMAT` as a CI gate: the exit status contract, `--output-file`, `--quiet`,
//! `--select`/`--ignore`, suppressions, and what each format promises (JUnit read by a
//! real XML parser, GitHub's workflow commands, colour only on a terminal).

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::process::Output;

use common::{cli, lint_json, root, testdata};

const FORMATS: [&str; 6] = ["human", "table", "json", "sarif", "junit", "github"];

/// Runs `lint --format FORMAT ARGS...` from the repository root.
fn lint(format: &str, args: &[&str]) -> Output {
    cli()
        .current_dir(root())
        .args(["lint", "--format", format])
        .args(args)
        .output()
        .unwrap()
}

fn status(output: &Output) -> i32 {
    output.status.code().expect("exited normally")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

const ERROR: &str = "testdata/rules/ml206-fire-sleep-45.yaml";
const WARNING_ONLY: &str = "testdata/rules/ml208-fire-istio-distroless-proxy.yaml";
const CLEAN: &str = "testdata/rules/ml206-silent-short-sleep.yaml";
const ALL_SUPPRESSED: &str = "testdata/suppressions/all-suppressed.yaml";
const UNREADABLE: &str = "testdata/bad/unclosed-flow.yaml";
/// The rules the suppression fixtures are about. Tests that count findings in fixtures
/// outside `testdata/rules/` select the rules they are about, so that a new rule that
/// also fires there does not change what they check.
const SUPPRESSED_RULES: &str = "ML101,ML201,ML206,ML301";

#[test]
fn the_exit_status_is_the_same_in_every_format() {
    let cases: &[(&[&str], i32)] = &[
        (&[CLEAN], 0),
        (&[ERROR], 1),
        (&[WARNING_ONLY], 0),
        (&["--fail-on", "warning", WARNING_ONLY], 1),
        (&["--fail-on", "info", WARNING_ONLY], 1),
        (&["--fail-on", "never", ERROR], 0),
        (&["--fail-on", "error", ERROR, CLEAN], 1),
        (&[ALL_SUPPRESSED], 0),
        (
            &[
                "--fail-on",
                "info",
                "--select",
                SUPPRESSED_RULES,
                ALL_SUPPRESSED,
            ],
            0,
        ),
        (&["testdata/suppressions/partly-suppressed.yaml"], 1),
        (&["--select", "ML201,ML206", "--ignore", "ML206", ERROR], 0),
        (
            &[
                "--select",
                "ML201,ML206",
                "--ignore",
                "prestop-outlives-grace",
                ERROR,
            ],
            0,
        ),
        (&["--select", "ML101", ERROR], 0),
        (&["--select", "ML206", ERROR], 1),
        // Input errors win over findings, and over --fail-on never.
        (&[UNREADABLE, ERROR], 2),
        (&["--fail-on", "never", UNREADABLE, ERROR], 2),
        (&["does/not/exist.yaml"], 2),
        (&["does/not/exist.yaml", CLEAN], 2),
        (&["--select", "ML999", CLEAN], 2),
    ];
    for format in FORMATS {
        for (args, expected) in cases {
            let output = lint(format, args);
            assert_eq!(
                status(&output),
                *expected,
                "--format {format} {args:?}\nstderr: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
}

#[test]
fn stdout_holds_only_the_report() {
    for format in ["json", "sarif", "junit"] {
        let output = lint(format, &[UNREADABLE, ERROR, "does/not/exist.yaml"]);
        let text = stdout(&output);
        match format {
            "junit" => {
                roxmltree::Document::parse(&text).expect("stdout is only XML");
            }
            _ => {
                serde_json::from_str::<serde_json::Value>(&text).expect("stdout is only JSON");
            }
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("unclosed-flow.yaml:9:27"), "{stderr}");
        assert!(stderr.contains("does/not/exist.yaml: no such file or directory"));
    }
}

#[test]
fn output_writes_the_report_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    for format in FORMATS {
        let path = dir.path().join(format!("report.{format}"));
        let output = lint(format, &["--output-file", path.to_str().unwrap(), ERROR]);
        assert_eq!(status(&output), 1, "{format}");
        assert!(output.stdout.is_empty(), "{format}: nothing on stdout");
        let report = std::fs::read_to_string(&path).unwrap();
        assert!(report.contains("ML206"), "{format}: {report}");
        // A file is not a terminal: no colour, whatever the format.
        assert!(!report.contains('\u{1b}'), "{format}");
    }
    let json = std::fs::read_to_string(dir.path().join("report.json")).unwrap();
    serde_json::from_str::<serde_json::Value>(&json).unwrap();

    let output = lint("json", &["--output-file", "no/such/dir/report.json", ERROR]);
    assert_eq!(status(&output), 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot write no/such/dir/report.json"),
        "{stderr}"
    );
}

#[test]
fn quiet_leaves_out_the_summary_and_notes_but_what_was_not_linted() {
    // A workload without containers is not linted: a note on stderr that --quiet keeps.
    // A note of the cluster read about what it assumes (tests/it/cluster.rs) is left out.
    let no_containers = "apiVersion: v1\nkind: Pod\nmetadata: {name: partial}\nspec: {}\n";
    for format in ["human", "table", "github"] {
        let loud = cli()
            .current_dir(root())
            .args(["lint", "--format", format, "-"])
            .write_stdin(no_containers)
            .output()
            .unwrap();
        assert!(stdout(&loud).contains("checked"), "{format}: summary line");
        assert!(String::from_utf8_lossy(&loud.stderr).contains("note:"));
        let quiet = cli()
            .current_dir(root())
            .args(["lint", "--quiet", "--format", format, "-"])
            .write_stdin(no_containers)
            .output()
            .unwrap();
        let annotations = if format == "github" { 1 } else { 0 };
        assert_eq!(
            stdout(&quiet).lines().count(),
            annotations,
            "{format}: {}",
            stdout(&quiet)
        );
        assert_eq!(
            String::from_utf8_lossy(&quiet.stderr),
            "note: -:4:7: Pod partial has no containers at `spec.containers`; not linted (a kustomize patch or a partial object?)\n",
            "{format}"
        );

        let findings = lint(format, &["--quiet", ERROR]);
        assert!(stdout(&findings).contains("ML206"), "{format}");
        assert!(!stdout(&findings).contains("checked"), "{format}");
    }
}

#[test]
fn select_and_ignore_take_ids_and_names_in_every_format() {
    let both = "testdata/rules/ml101-fire-job.yaml";
    let (ml101, ml301) = (
        ("ML101", "app-starts-before-proxy"),
        ("ML301", "job-sidecar-never-exits"),
    );
    for format in FORMATS {
        for (flags, expect, reject) in [
            (["--select", "ML301"], ml301, ml101),
            (["--select", "job-sidecar-never-exits"], ml301, ml101),
            (["--ignore", "ml301"], ml101, ml301),
            (["--ignore", "job-sidecar-never-exits"], ml101, ml301),
        ] {
            let output = lint(format, &[flags[0], flags[1], both]);
            let text = stdout(&output);
            // SARIF results name rules by id (its rule table lists them all); the
            // other formats name them (an id may also appear in a YAML excerpt).
            let (text, expect, reject) = match format {
                "sarif" => {
                    let log: serde_json::Value = serde_json::from_str(&text).unwrap();
                    (log["runs"][0]["results"].to_string(), expect.0, reject.0)
                }
                _ => (text, expect.1, reject.1),
            };
            assert!(text.contains(expect), "{format} {flags:?}: {text}");
            assert!(!text.contains(reject), "{format} {flags:?}: {text}");
        }
    }
    let (report, _) = lint_json(
        &testdata("rules/ml101-fire-job.yaml"),
        &["--select", "ML101,ML301", "--ignore", "ML101"],
    );
    let ids: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["ruleId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["ML301"]);
}

#[test]
fn suppressed_findings_are_counted_and_kept_out_of_the_gate() {
    let (report, status) = lint_json(&testdata("suppressions"), &["--select", SUPPRESSED_RULES]);
    assert_eq!(status, 1, "partly-suppressed.yaml still has ML101");
    assert_eq!(report["summary"]["suppressed"], 5);
    assert_eq!(report["summary"]["errors"], 1);
    let listed: Vec<(&str, &str)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["ruleId"].as_str().unwrap(), f["file"].as_str().unwrap()))
        .collect();
    assert_eq!(
        listed,
        [(
            "ML101",
            testdata("suppressions/partly-suppressed.yaml")
                .to_str()
                .unwrap()
        )]
    );
    for format in ["human", "table", "github"] {
        let text = stdout(&lint(
            format,
            &["--select", SUPPRESSED_RULES, ALL_SUPPRESSED],
        ));
        assert!(text.contains("4 suppressed"), "{format}: {text}");
        assert!(!text.contains("::error"), "{format}");
    }
}

/// The JUnit report, parsed by a real XML parser, at `--fail-on info`, where every
/// finding is a failing case (below the gate it is skipped: `tests/it/accidents.rs`).
/// (Kustomizations read as files: a rendered workload's findings may lie in several
/// source files, which the count of passing cases below, by file, would not follow.)
#[test]
fn junit_is_well_formed_with_unique_test_case_names() {
    let output = lint("junit", &["--no-render", "--fail-on", "info", "testdata"]);
    assert_eq!(status(&output), 2);
    let text = stdout(&output);
    let xml = roxmltree::Document::parse(&text).expect("well-formed XML");
    let root = xml.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let count = |node: roxmltree::Node, attribute: &str| -> usize {
        node.attribute(attribute).unwrap().parse().unwrap()
    };
    let (mut failures, mut skipped, mut not_linted, mut errors, mut passed) = (0, 0, 0, 0, 0);
    let mut suites = BTreeSet::new();
    for suite in root.children().filter(|n| n.has_tag_name("testsuite")) {
        let name = suite.attribute("name").unwrap();
        assert!(suites.insert(name.to_owned()), "one suite per file: {name}");
        let cases: Vec<_> = suite
            .children()
            .filter(|n| n.has_tag_name("testcase"))
            .collect();
        assert_eq!(count(suite, "tests"), cases.len(), "{name}");
        let mut names = BTreeSet::new();
        for case in &cases {
            let case_name = case.attribute("name").unwrap();
            assert!(
                names.insert(case_name.to_owned()),
                "duplicate test case {case_name:?} in {name}"
            );
            assert_eq!(case.attribute("file"), Some(name), "{case_name}");
            let child = |tag| case.children().find(|n| n.has_tag_name(tag));
            if let Some(failure) = child("failure") {
                failures += 1;
                assert!(!failure.attribute("message").unwrap().is_empty());
                assert!(failure.attribute("type").unwrap().starts_with("ML"));
                assert!(failure.text().unwrap().contains("help:"), "{case_name}");
            } else if let Some(skip) = child("skipped") {
                // A suppressed finding, or a workload that was not linted (a note).
                if skip.attribute("type") == Some("not-linted") {
                    not_linted += 1;
                } else {
                    skipped += 1;
                    assert!(
                        skip.attribute("message")
                            .unwrap()
                            .starts_with("suppressed: ")
                    );
                }
            } else if let Some(error) = child("error") {
                errors += 1;
                assert!(!error.attribute("message").unwrap().is_empty());
            } else {
                passed += 1;
            }
        }
    }
    assert!(suites.contains("testdata/bad/unclosed-flow.yaml"));

    // The counts agree with the JSON report of the same inputs.
    let (report, _) = lint_json(std::path::Path::new("testdata"), &["--no-render"]);
    let summary = &report["summary"];
    let findings = report["findings"].as_array().unwrap();
    let groups: BTreeSet<(String, u64, String, String)> = findings
        .iter()
        .map(|f| {
            (
                f["file"].as_str().unwrap().to_owned(),
                f["document"].as_u64().unwrap(),
                f["workload"].to_string(),
                format!("{}{}", f["ruleId"], f["container"]),
            )
        })
        .collect();
    assert_eq!(failures, groups.len());
    assert_eq!(
        skipped as u64,
        summary["suppressed"].as_u64().unwrap(),
        "a skipped case per suppressed finding"
    );
    assert!(skipped >= 5, "the suppression fixtures");
    assert_eq!(errors as u64, summary["inputErrors"].as_u64().unwrap());
    assert_eq!(count(root, "failures"), failures);
    assert_eq!(
        not_linted,
        report["notes"].as_array().unwrap().len(),
        "a skipped case per note"
    );
    assert_eq!(count(root, "skipped"), skipped + not_linted);
    assert_eq!(count(root, "errors"), errors);
    let workloads = summary["workloads"].as_u64().unwrap() as usize;
    let failing: BTreeSet<(String, u64, String)> = groups
        .iter()
        .map(|(file, document, workload, _)| (file.clone(), *document, workload.clone()))
        .collect();
    assert_eq!(
        passed,
        workloads - failing.len(),
        "a passing case per clean workload"
    );
}

#[test]
fn junit_tells_apart_workloads_with_the_same_name() {
    let pod = |grace: u32| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: twin}}\nspec:\n  terminationGracePeriodSeconds: {grace}\n  containers:\n  - name: app\n    image: x\n    lifecycle: {{preStop: {{exec: {{command: [sleep, '40']}}}}}}\n"
        )
    };
    let stream = format!("{}---\n{}", pod(10), pod(20));
    let output = cli()
        .args(["lint", "--format", "junit", "--select", "ML206", "-"])
        .write_stdin(stream)
        .output()
        .unwrap();
    let text = stdout(&output);
    let xml = roxmltree::Document::parse(&text).unwrap();
    let names: Vec<&str> = xml
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|n| n.attribute("name").unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "Pod twin (document 1): ML206 prestop-outlives-grace (app)",
            "Pod twin (document 2): ML206 prestop-outlives-grace (app)"
        ]
    );
    // Standard input has no file to name.
    assert!(!text.contains("file="));
}

/// `::error file=…,line=…::message` lines, as GitHub parses them.
fn workflow_commands(text: &str) -> Vec<(String, BTreeMap<String, String>, String)> {
    text.lines()
        .filter_map(|line| line.strip_prefix("::"))
        .map(|command| {
            let (head, message) = command.split_once("::").expect("a `::` before the message");
            let (name, properties) = head.split_once(' ').unwrap_or((head, ""));
            let properties = properties
                .split(',')
                .filter(|p| !p.is_empty())
                .map(|p| {
                    let (key, value) = p.split_once('=').unwrap();
                    (key.to_owned(), value.to_owned())
                })
                .collect();
            (name.to_owned(), properties, message.to_owned())
        })
        .collect()
}

fn unescape(text: &str) -> String {
    text.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
}

#[test]
fn github_annotations_point_at_the_node() {
    let output = lint(
        "github",
        &[
            "--fail-on",
            "never",
            "testdata/rules/ml201-fire-prestop-plus-drain.yaml",
            WARNING_ONLY,
            UNREADABLE,
        ],
    );
    assert_eq!(status(&output), 2);
    let commands = workflow_commands(&stdout(&output));
    let find = |title: &str| {
        commands
            .iter()
            .find(|(_, p, _)| p.get("title").is_some_and(|t| t.starts_with(title)))
            .unwrap_or_else(|| panic!("no {title} in {commands:#?}"))
    };
    let (level, properties, message) = find("ML201");
    assert_eq!(level, "error");
    assert_eq!(
        properties["file"],
        "testdata/rules/ml201-fire-prestop-plus-drain.yaml"
    );
    assert_eq!(
        (
            &properties["line"][..],
            &properties["col"][..],
            &properties["endColumn"][..]
        ),
        ("18", "37", "40")
    );
    assert_eq!(properties["title"], "ML201 grace-period-exceeded");
    let message = unescape(message);
    assert!(message.starts_with("Deployment api: `istio-proxy` needs until 35 s"));
    assert!(message.contains("\n\nFix: raise `terminationGracePeriodSeconds`"));
    let (level, properties, _) = find("ML208");
    assert_eq!(level, "warning");
    assert_eq!(properties["line"], "32");
    let (level, properties, message) = find("input error");
    assert_eq!(level, "error");
    assert_eq!(
        (&properties["line"][..], &properties["col"][..]),
        ("9", "27")
    );
    assert!(message.starts_with("invalid YAML"));
    for (_, properties, message) in &commands {
        for value in properties.values() {
            assert!(!value.contains([',', ':', '\n', '\r']), "escaped: {value}");
        }
        assert!(!message.contains(['\n', '\r']));
    }
}

#[test]
fn github_escapes_data_and_properties() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("odd, name: 100%.yaml");
    std::fs::copy(testdata(ERROR.trim_start_matches("testdata/")), &path).unwrap();
    let output = cli()
        .current_dir(dir.path())
        .env("GITHUB_WORKSPACE", dir.path())
        .args([
            "lint",
            "--format",
            "github",
            "--select",
            "ML206",
            "odd, name: 100%.yaml",
        ])
        .output()
        .unwrap();
    let text = stdout(&output);
    assert!(
        text.contains("::error file=odd%2C name%3A 100%25.yaml,line=19,"),
        "{text}"
    );
}

#[test]
fn github_paths_are_relative_to_the_workspace() {
    let output = cli()
        .current_dir(root())
        .env("GITHUB_WORKSPACE", testdata(""))
        .args(["lint", "--format", "github", ERROR])
        .output()
        .unwrap();
    let commands = workflow_commands(&stdout(&output));
    assert_eq!(commands[0].1["file"], "rules/ml206-fire-sleep-45.yaml");
}

#[test]
fn github_standard_input_names_the_line_in_the_message() {
    let text = std::fs::read_to_string(testdata("rules/ml206-fire-sleep-45.yaml")).unwrap();
    let output = cli()
        .args(["lint", "--format", "github", "--select", "ML206", "-"])
        .write_stdin(text)
        .output()
        .unwrap();
    let commands = workflow_commands(&stdout(&output));
    let (level, properties, message) = &commands[0];
    assert_eq!(level, "error");
    assert!(!properties.contains_key("file") && !properties.contains_key("line"));
    assert!(
        message.starts_with("-:19:11: Deployment worker: "),
        "{message}"
    );
}

/// A stream of `count` pods named `{prefix}{n}`, each with one ML206 error: a preStop
/// hook longer than its grace period.
fn pods_past_their_grace(count: usize, prefix: &str) -> String {
    let pod = |n: usize| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: {prefix}{n}}}\nspec:\n  terminationGracePeriodSeconds: 5\n  containers:\n  - name: app\n    image: x\n    lifecycle: {{preStop: {{exec: {{command: [sleep, '9']}}}}}}\n"
        )
    };
    (0..count).map(pod).collect::<Vec<_>>().join("---\n")
}

/// More findings than GitHub shows: a notice first, every annotation still printed,
/// and the full list in the job summary.
#[test]
fn github_says_when_there_are_more_findings_than_annotations() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pods.yaml"), pods_past_their_grace(12, "p")).unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let output = cli()
        .current_dir(dir.path())
        .env("GITHUB_WORKSPACE", dir.path())
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_SERVER_URL", "https://github.example")
        .env("GITHUB_REPOSITORY", "shop/deploy")
        .env("GITHUB_SHA", "0123abc")
        .args([
            "lint",
            "--format",
            "github",
            "--select",
            "ML206",
            "pods.yaml",
        ])
        .output()
        .unwrap();
    assert_eq!(status(&output), 1);
    let commands = workflow_commands(&stdout(&output));
    let (level, _, message) = &commands[0];
    assert_eq!(level, "notice");
    assert!(
        unescape(message).starts_with("12 errors; GitHub shows at most 10"),
        "{message}"
    );
    assert_eq!(commands.iter().filter(|(l, _, _)| l == "error").count(), 12);

    let markdown = std::fs::read_to_string(&summary).unwrap();
    assert!(
        markdown.starts_with("earlier step\n"),
        "appended, not replaced"
    );
    assert!(markdown.contains("### kubectl mesh-lifecycle"));
    assert_eq!(
        markdown
            .matches("| error | ML206 prestop-outlives-grace |")
            .count(),
        12
    );
    assert!(
        markdown.contains(
            "[`pods.yaml:9:17`](https://github.example/shop/deploy/blob/0123abc/pods.yaml#L9)"
        ),
        "{markdown}"
    );
}

/// `human` draws in colour only on a terminal, and never with NO_COLOR set.
#[test]
fn colour_only_on_a_terminal_without_no_color() {
    // util-linux `script` gives the plugin a terminal; every Linux has it, so there the
    // terminal half must run (BSD `script` takes other flags).
    let has_script = cfg!(target_os = "linux") && common::tools::program("script").is_some();
    let binary = assert_cmd::cargo::cargo_bin("kubectl-mesh_lifecycle");
    let command = format!("{} lint {ERROR}", binary.display());
    let on_terminal = |no_color: bool| {
        let mut script = std::process::Command::new(common::tools::path_of("script"));
        script
            .current_dir(root())
            .args(["-qec", &command, "/dev/null"])
            .stdin(std::process::Stdio::null())
            .env("COLUMNS", "100")
            .env("TERM", "xterm");
        if no_color {
            script.env("NO_COLOR", "1");
        } else {
            script.env_remove("NO_COLOR");
        }
        let output = script.output().expect("util-linux `script` is on PATH");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    if has_script {
        let coloured = on_terminal(false);
        assert!(coloured.contains("ML206"), "{coloured}");
        assert!(coloured.contains("\u{1b}["), "colour on a terminal");
        let plain = on_terminal(true);
        assert!(plain.contains("ML206"), "{plain}");
        assert!(
            !plain.contains("\u{1b}["),
            "NO_COLOR is honoured: {plain:?}"
        );
    } else if !cfg!(target_os = "linux") {
        common::tools::unavailable(
            "script",
            "not Linux: the terminal half of this test is skipped",
        );
    }
    // A pipe is not a terminal; --color always overrides that, NO_COLOR or not.
    let piped = stdout(&lint("human", &[ERROR]));
    assert!(!piped.contains('\u{1b}'));
    let forced = cli()
        .current_dir(root())
        .env("NO_COLOR", "1")
        .args(["lint", "--color", "always", ERROR])
        .output()
        .unwrap();
    assert!(stdout(&forced).contains("\u{1b}["));
}

/// GitHub drops a step summary larger than 1 MiB whole (actions/runner,
/// `FileCommandManager.cs`, `CreateStepSummaryCommand.AttachmentSizeLimit`): with
/// thousands of findings, and with what earlier commands of the step wrote, the file
/// stays under it, the table says how many rows it left out and where they all are,
/// and the annotations still name every finding.
#[test]
fn the_github_job_summary_stays_under_one_mebibyte() {
    let findings = 4000;
    let dir = tempfile::tempdir().unwrap();
    let pods = pods_past_their_grace(findings, "pod-with-a-long-name-");
    std::fs::write(dir.path().join("pods.yaml"), pods).unwrap();
    for (earlier, output_file) in [(0usize, None), (600 * 1024, Some("annotations.txt"))] {
        let summary = dir.path().join(format!("summary-{earlier}.md"));
        std::fs::write(&summary, "x".repeat(earlier)).unwrap();
        let mut command = cli();
        command
            .current_dir(dir.path())
            .env("GITHUB_WORKSPACE", dir.path())
            .env("GITHUB_STEP_SUMMARY", &summary)
            .args([
                "lint",
                "--format",
                "github",
                "--select",
                "ML206",
                "pods.yaml",
            ]);
        if let Some(file) = output_file {
            command.args(["--output-file", file]);
        }
        let output = command.output().unwrap();
        assert_eq!(status(&output), 1);
        let annotations = match output_file {
            Some(file) => std::fs::read_to_string(dir.path().join(file)).unwrap(),
            None => stdout(&output),
        };
        let errors = workflow_commands(&annotations)
            .iter()
            .filter(|(level, _, _)| level == "error")
            .count();
        assert_eq!(errors, findings, "every finding is annotated");

        let size = std::fs::metadata(&summary).unwrap().len();
        assert!(size <= 1024 * 1024, "{size} bytes after {earlier}");
        assert!(
            size > 1024 * 1024 - 16 * 1024,
            "the table fills the room: {size}"
        );
        let markdown = std::fs::read_to_string(&summary).unwrap();
        let rows = markdown
            .matches("| error | ML206 prestop-outlives-grace |")
            .count();
        let note = markdown
            .lines()
            .find(|line| line.contains("not shown here"))
            .expect("a line says rows were left out");
        let left_out: usize = note
            .trim_start_matches("**")
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(rows > 100, "{rows} rows");
        assert_eq!(rows + left_out, findings, "{note}");
        assert!(note.contains("at most 1 MiB"), "{note}");
        let place = match output_file {
            Some(file) => format!("`{file}`"),
            None => "this step's log".to_owned(),
        };
        assert!(note.contains(&place), "{note}");
    }
}

/// Infos are worth knowing, not worth drowning errors in: the human report gives one
/// line per rule with its count and workloads; `--show-infos` or `--fail-on info` print
/// each in full; JSON keeps them all.
#[test]
fn the_human_report_groups_infos_by_rule() {
    let fixtures = [
        "testdata/rules/ml207-fire-no-prestop.yaml",
        "testdata/rules/ml207-fire-short-prestop.yaml",
        "testdata/rules/ml207-fire-tcp-socket-prestop.yaml",
        "testdata/rules/ml208-fire-istio-distroless-proxy.yaml",
        "testdata/rules/ml201-fire-prestop-plus-drain.yaml",
    ];
    let run = |extra: &[&str]| {
        let output = cli()
            .current_dir(root())
            .args(["lint", "--no-config", "--color", "never"])
            .args(extra)
            .args(fixtures)
            .output()
            .unwrap();
        (stdout(&output), status(&output))
    };
    let (grouped, status_grouped) = run(&[]);
    assert_eq!(status_grouped, 1);
    assert!(
        grouped.contains("ML201(grace-period-exceeded)"),
        "{grouped}"
    );
    assert!(grouped.contains("ML208(prestop-needs-shell)"), "{grouped}");
    assert!(
        !grouped.contains("ML207(app-without-prestop-delay)"),
        "{grouped}"
    );
    let line = grouped
        .lines()
        .find(|line| {
            line.trim_start()
                .starts_with("ML207 app-without-prestop-delay")
        })
        .unwrap_or_else(|| panic!("no group line: {grouped}"));
    assert!(line.contains(": 4 in 4 workloads ("), "{line}");
    let names = &grouped[grouped.find(line).unwrap()..];
    assert!(names.contains("Deployment web/frontend"), "{names}");
    assert!(
        names.contains("and 1 more)"),
        "three names, then the count: {names}"
    );
    assert!(
        grouped.contains("--show-infos prints each in full"),
        "{grouped}"
    );
    assert!(
        grouped.contains("4 infos in"),
        "the summary counts them: {grouped}"
    );
    for full in [&["--show-infos"][..], &["--fail-on", "info"]] {
        let (text, _) = run(full);
        assert_eq!(
            text.matches("ML207(app-without-prestop-delay)").count(),
            4,
            "{full:?}: {text}"
        );
        assert!(!text.contains("one line per rule"), "{full:?}");
    }
    let json = lint("json", &fixtures);
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let infos = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "info")
        .count();
    assert_eq!(infos, 4);
}

/// `$GITHUB_STEP_SUMMARY` naming a file the run reads: the manifest is left as it was
/// (never appended to), and the run is refused as a report over an input is, exit 2,
/// saying why.
#[test]
fn a_step_summary_that_is_an_input_is_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("pods.yaml");
    let text = pods_past_their_grace(2, "p");
    std::fs::write(&manifest, &text).unwrap();
    for named in [manifest.clone(), dir.path().join(".").join("pods.yaml")] {
        let output = cli()
            .current_dir(dir.path())
            .env("GITHUB_WORKSPACE", dir.path())
            .env("GITHUB_STEP_SUMMARY", &named)
            .args(["lint", "--format", "github", "--select", "ML206", "."])
            .output()
            .unwrap();
        assert_eq!(status(&output), 2);
        assert_eq!(std::fs::read_to_string(&manifest).unwrap(), text);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!(
                "error: $GITHUB_STEP_SUMMARY {} is the same file as the input pods.yaml",
                named.display()
            )) && stderr.contains("writing the job summary there would overwrite it"),
            "{stderr}"
        );
        assert!(workflow_commands(&stdout(&output)).is_empty());
    }
}

/// The human report opens each finding where every machine format places it: the
/// first excerpt of a diagnostic is at the finding's line and column, even when a
/// related place lies above it (a Job's work container above its proxy).
#[test]
fn the_human_report_opens_each_finding_where_json_places_it() {
    let inputs = [
        "testdata/rules",
        "testdata/corpus/istio-inject/istio-1.24.0/job.yaml.injected",
    ];
    let output = cli()
        .current_dir(root())
        .env("COLUMNS", "200")
        .args(["lint", "--no-config", "--show-infos", "--color", "never"])
        .args(inputs)
        .output()
        .unwrap();
    let human = String::from_utf8(output.stdout).unwrap();
    // Each diagnostic starts with its rule (`ML101(app-starts-before-proxy)`); its
    // first excerpt names `file:line:column`.
    let mut opened: Vec<(String, String)> = Vec::new();
    let mut rule: Option<String> = None;
    for line in human.lines() {
        if let Some((id, _)) = line.split_once('(')
            && id.len() == 5
            && id.starts_with("ML")
            && !line.starts_with(' ')
        {
            rule = Some(id.to_owned());
        } else if let Some(at) = line.find("╭─[")
            && let Some(id) = rule.take()
        {
            let place = &line[at + "╭─[".len()..line.rfind(']').unwrap()];
            let mut parts = place.rsplitn(3, ':');
            let (column, line) = (parts.next().unwrap(), parts.next().unwrap());
            opened.push((id, format!("{line}:{column}")));
        }
    }
    let output = cli()
        .current_dir(root())
        .args(["lint", "--no-config", "-o", "json"])
        .args(inputs)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let placed: Vec<(String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f.get("suppressed").is_none_or(|s| s.is_null()))
        .map(|f| {
            (
                f["ruleId"].as_str().unwrap().to_owned(),
                format!("{}:{}", f["line"], f["column"]),
            )
        })
        .collect();
    assert!(opened.len() > 100, "{} diagnostics", opened.len());
    let job = opened
        .iter()
        .zip(&placed)
        .position(|(human, json)| human != json);
    assert_eq!(
        job.map(|at| (&opened[at], &placed[at])),
        None,
        "the human report and JSON disagree"
    );
    assert_eq!(opened.len(), placed.len());
}
