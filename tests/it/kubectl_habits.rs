//! What a kubectl user types means what kubectl means: `-o FORMAT` picks the format
//! (`-o json` prints JSON on standard output, never a file named `json`), `-f PATH`
//! names a file to read, and every subcommand's `--help` ends with examples that
//! parse.

use crate::common;

use clap::CommandFactory;
use common::{cli, testdata};
use mesh_lifecycle::cli::Cli;

/// A pod whose proxy the manifest puts after the app: an error the input proves.
const PROXY_NOT_FIRST: &str = "rules/ml102-fire-proxy-not-first.yaml";
const ERROR: &str = "rules/ml206-fire-sleep-45.yaml";

/// The files in `dir`, by name, sorted.
fn names(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn dash_o_json_prints_json_on_standard_output_and_writes_no_file() {
    let dir = tempfile::tempdir().unwrap();
    for spelling in ["-o", "--output", "--output-format", "--format"] {
        let output = cli()
            .current_dir(dir.path())
            .args(["lint", spelling, "json"])
            .arg(testdata(PROXY_NOT_FIRST))
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{spelling} json printed no JSON: {e}"));
        assert_eq!(report["schemaVersion"], 1, "{spelling}");
        assert_eq!(output.status.code(), Some(1), "{spelling}");
        assert!(names(dir.path()).is_empty(), "{spelling} wrote a file");
    }
    // As kubectl spells it too: `-ojson`, `--output=json`.
    for spelling in ["-ojson", "--output=json"] {
        let output = cli()
            .arg("lint")
            .arg(spelling)
            .arg(testdata(PROXY_NOT_FIRST))
            .output();
        let output = output.unwrap();
        assert!(output.stdout.starts_with(b"{"), "{spelling}");
    }
}

#[test]
fn a_file_name_given_as_the_format_is_refused_with_the_flag_that_writes_it() {
    let dir = tempfile::tempdir().unwrap();
    for spelling in ["-o", "--output"] {
        let output = cli()
            .current_dir(dir.path())
            .args(["lint", spelling, "report.sarif"])
            .arg(testdata(PROXY_NOT_FIRST))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{spelling}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("use --output-file report.sarif"),
            "{spelling}: {stderr}"
        );
        assert!(output.stdout.is_empty());
        assert!(names(dir.path()).is_empty(), "{spelling} wrote a file");
    }
    // The report file has its own flag.
    cli()
        .current_dir(dir.path())
        .args(["lint", "-o", "sarif", "--output-file", "report.sarif"])
        .arg(testdata(PROXY_NOT_FIRST))
        .assert()
        .code(1)
        .stdout("");
    let sarif = std::fs::read_to_string(dir.path().join("report.sarif")).unwrap();
    assert!(sarif.contains("\"version\": \"2.1.0\""), "{sarif}");
    // kubectl's `-o yaml` is answered with the machine format there is.
    let output = cli()
        .args(["lint", "-o", "yaml"])
        .arg(testdata(PROXY_NOT_FIRST))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("-o json"));
}

#[test]
fn every_command_takes_dash_o_for_its_format() {
    let json = |args: &[&str]| {
        let output = cli().args(args).output().unwrap();
        serde_json::from_slice::<serde_json::Value>(&output.stdout).unwrap_or_else(|e| {
            panic!("{args:?}: {e}\n{}", String::from_utf8_lossy(&output.stderr))
        })
    };
    let job = testdata(PROXY_NOT_FIRST);
    let job = job.to_str().unwrap();
    assert!(json(&["rules", "-o", "json"]).is_array());
    assert!(json(&["explain", "-o", "json", job]).is_object());
    assert!(json(&["diff", "-o", "json", "--to", "istio=1.27", job]).is_object());
}

#[test]
fn dash_f_reads_files_as_arguments_do() {
    let (job, error) = (testdata(PROXY_NOT_FIRST), testdata(ERROR));
    let files = |args: &[&std::ffi::OsStr]| -> Vec<String> {
        let output = cli()
            .args(["lint", "-o", "json"])
            .args(args)
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let mut files: Vec<String> = Vec::new();
        for finding in report["findings"].as_array().unwrap() {
            let file = finding["file"].as_str().unwrap().to_owned();
            if files.last() != Some(&file) {
                files.push(file);
            }
        }
        files
    };
    let name = |path: &std::path::Path| path.to_string_lossy().into_owned();
    // Reports list inputs in name order, however they were given.
    let both = [name(&job), name(&error)];
    let f = std::ffi::OsStr::new("-f");
    assert_eq!(files(&[job.as_os_str(), error.as_os_str()]), both);
    assert_eq!(files(&[f, error.as_os_str(), f, job.as_os_str()]), both);
    let filename = std::ffi::OsStr::new("--filename");
    assert_eq!(files(&[error.as_os_str(), filename, job.as_os_str()]), both);
    // `-f -` reads standard input, as kubectl's does.
    let output = cli()
        .args(["lint", "-o", "json", "-f", "-"])
        .write_stdin(std::fs::read(testdata(ERROR)).unwrap())
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["findings"][0]["ruleId"], "ML206");
    // With --cluster the arguments are TYPE/NAME: a file there is refused.
    let output = cli()
        .args(["lint", "--cluster", "-f"])
        .arg(testdata(PROXY_NOT_FIRST))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("TYPE/NAME"));
}

#[test]
fn every_subcommand_help_ends_with_examples_that_parse() {
    let mut checked = 0;
    let subcommands: Vec<String> = Cli::command()
        .get_subcommands()
        .map(|sub| sub.get_name().to_owned())
        .filter(|name| name != "help")
        .collect();
    assert!(subcommands.len() >= 6, "{subcommands:?}");
    for sub in &subcommands {
        let sub = sub.as_str();
        for help in ["-h", "--help"] {
            let output = cli().args([sub, help]).output().unwrap();
            let text = String::from_utf8(output.stdout).unwrap();
            let (_, examples) = text
                .split_once("\nExamples:\n")
                .unwrap_or_else(|| panic!("`{sub} {help}` has no Examples: section\n{text}"));
            let commands: Vec<&str> = examples
                .lines()
                .map(str::trim)
                .filter(|line| !line.is_empty() && !line.starts_with('#'))
                .collect();
            assert!(commands.len() >= 2, "`{sub} {help}`: {commands:?}");
            for line in commands {
                // The plugin's part of a pipeline or a command substitution, up to a
                // redirection.
                let start = ["kubectl mesh-lifecycle ", "kubectl-mesh_lifecycle "]
                    .iter()
                    .filter_map(|name| line.find(name).map(|at| at + name.len()))
                    .next()
                    .unwrap_or_else(|| panic!("`{line}` does not run the plugin"));
                let words: Vec<&str> = line[start..]
                    .split_whitespace()
                    .take_while(|word| *word != ">" && *word != "|")
                    .map(|word| word.trim_end_matches(')'))
                    .collect();
                assert_eq!(words.first(), Some(&sub), "`{line}` is not `{sub}`");
                let argv = std::iter::once("kubectl-mesh_lifecycle").chain(words);
                if let Err(error) = Cli::command().try_get_matches_from(argv) {
                    panic!("the example `{line}` does not parse:\n{error}");
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 20, "{checked} examples");
}

#[test]
fn a_report_file_that_cannot_be_written_is_named() {
    if !std::path::Path::new("/dev/full").exists() {
        return;
    }
    let output = cli()
        .args(["lint", "--output-file", "/dev/full"])
        .arg(testdata(PROXY_NOT_FIRST))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot write /dev/full"), "{stderr}");
}
