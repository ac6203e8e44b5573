//! Shell completion and the man pages: the committed files are what the command line
//! generates today, each script loads in its shell and completes, and kubectl completes
//! the plugin's arguments through `kubectl_complete-mesh_lifecycle`.
//!
//! `MESH_LIFECYCLE_UPDATE_COMPLETIONS=1 cargo test --test it completions::` rewrites
//! `completions/` and `docs/man/` from the current command line.
//!
//! A shell that is not installed is skipped with a note (`common::tools`), unless
//! `.ci/run` requires it; a shell that is installed must load its script and complete.

use crate::common;
use crate::common::tools;
use crate::man;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use clap::CommandFactory;
use clap_complete::Shell;
use common::{cli, kubectl, root};
use mesh_lifecycle::cli::{Cli, completions};

const UPDATE: &str = "MESH_LIFECYCLE_UPDATE_COMPLETIONS";
const SHELLS: [Shell; 5] = [
    Shell::Bash,
    Shell::Zsh,
    Shell::Fish,
    Shell::PowerShell,
    Shell::Elvish,
];
const SUBCOMMANDS: [&str; 5] = ["lint", "explain", "rules", "lsp", "completions"];

fn updating() -> bool {
    std::env::var_os(UPDATE).is_some_and(|v| v == "1")
}

/// Compares `path` with what it should hold, or rewrites it when updating.
fn check(path: &Path, expected: &[u8]) -> Result<(), String> {
    if updating() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, expected).unwrap();
        return Ok(());
    }
    match std::fs::read(path) {
        Ok(actual) if actual == expected => Ok(()),
        Ok(_) => Err(format!("{} is stale", path.display())),
        Err(error) => Err(format!("{}: {error}", path.display())),
    }
}

fn completions_dir() -> PathBuf {
    root().join("completions")
}

fn script_path(shell: Shell) -> PathBuf {
    completions_dir().join(completions::file_name(shell))
}

#[test]
fn completion_scripts_are_up_to_date() {
    let problems: Vec<String> = SHELLS
        .iter()
        .filter_map(|shell| check(&script_path(*shell), &completions::script(*shell)).err())
        .collect();
    assert!(
        problems.is_empty(),
        "{problems:#?}\nregenerate with: {UPDATE}=1 cargo test --test it completions::"
    );
    let mut files: Vec<String> = std::fs::read_dir(completions_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut expected: Vec<String> = SHELLS.iter().map(|s| completions::file_name(*s)).collect();
    expected.sort();
    assert_eq!(files, expected, "completions/ holds one script per shell");
}

#[test]
fn the_completions_command_prints_the_committed_scripts() {
    for shell in SHELLS {
        let output = cli()
            .args(["completions", &shell.to_string()])
            .output()
            .unwrap();
        assert!(output.status.success());
        assert_eq!(output.stdout, completions::script(shell), "{shell}");
    }
}

#[test]
fn man_pages_are_up_to_date() {
    let pages = man::pages(Cli::command());
    let man = root().join("docs/man");
    let mut names: Vec<String> = pages.iter().map(|(name, _)| name.clone()).collect();
    names.sort();
    assert!(
        names.contains(&"kubectl-mesh_lifecycle.1".to_owned()),
        "{names:?}"
    );
    for command in ["lint", "lsp"] {
        assert!(
            names.contains(&format!("kubectl-mesh_lifecycle-{command}.1")),
            "{names:?}"
        );
    }
    if updating() && man.is_dir() {
        std::fs::remove_dir_all(&man).unwrap();
    }
    let problems: Vec<String> = pages
        .iter()
        .filter_map(|(name, page)| check(&man.join(name), page.as_bytes()).err())
        .collect();
    assert!(
        problems.is_empty(),
        "{problems:#?}\nregenerate with: {UPDATE}=1 cargo test --test it completions::"
    );
    let mut committed: Vec<String> = std::fs::read_dir(&man)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    committed.sort();
    assert_eq!(
        committed, names,
        "docs/man holds exactly the generated pages"
    );
}

/// Whether the program `name` is on PATH; its test is skipped when not
/// ([`tools::program`]).
fn installed(name: &str) -> bool {
    tools::program(name).is_some()
}

/// `PATH` with the built plugin first: the scripts ask it to complete.
fn path_with_plugin() -> std::ffi::OsString {
    let plugin = assert_cmd::cargo::cargo_bin("kubectl-mesh_lifecycle");
    let dir = plugin.parent().unwrap().to_path_buf();
    std::env::join_paths(
        std::iter::once(dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap()
}

/// Runs `command`, killing it if it takes longer than 30 s (a shell waiting on a
/// pseudo-terminal must not hang the test run).
fn run(command: &mut Command) -> Output {
    let mut child = command
        .env("PATH", path_with_plugin())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        stdout.read_to_end(&mut bytes).map(|_| bytes)
    });
    let err = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        stderr.read_to_end(&mut bytes).map(|_| bytes)
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{command:?} did not finish in 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out.join().unwrap().unwrap(),
        stderr: err.join().unwrap().unwrap(),
    }
}

/// The words a shell offered, one per line (descriptions after a tab dropped).
fn offered(output: &Output, what: &str) -> Vec<String> {
    assert!(
        output.status.success(),
        "{what} failed: {}\n{}",
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| line.split('\t').next().unwrap().trim().to_owned())
        .filter(|word| !word.is_empty())
        .collect()
}

fn assert_offers(offered: &[String], expected: &[&str], what: &str) {
    for word in expected {
        assert!(
            offered.iter().any(|o| o == word),
            "{what}: `{word}` not offered in {offered:?}"
        );
    }
}

const FORMATS: [&str; 7] = ["human", "table", "json", "sarif", "junit", "github", "html"];

/// Sources the bash script and calls its completion function as bash's `complete -F`
/// would, for the words of `line` (a trailing space starts a new, empty word).
fn bash_complete(line: &str) -> Output {
    let script = std::fs::read_to_string(script_path(Shell::Bash)).unwrap();
    let function = script
        .lines()
        .find_map(|l| l.trim().strip_prefix("complete -F "))
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the script registers a completion function")
        .to_owned();
    let driver = r#"
source "$1" || exit 3
read -r -a COMP_WORDS <<< "$2"
[[ "$2" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMP_LINE="$2"
COMP_POINT=${#COMP_LINE}
prev=""
(( COMP_CWORD > 0 )) && prev="${COMP_WORDS[COMP_CWORD-1]}"
"$3" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "$prev"
printf '%s\n' "${COMPREPLY[@]}"
"#;
    run(Command::new("bash")
        .args(["--norc", "--noprofile", "-c", driver, "bash"])
        .arg(script_path(Shell::Bash))
        .arg(line)
        .arg(function))
}

#[test]
fn bash_completes_subcommands_flags_and_values() {
    let words = offered(&bash_complete("kubectl-mesh_lifecycle "), "bash");
    assert_offers(&words, &SUBCOMMANDS, "bash subcommands");
    let words = offered(&bash_complete("kubectl-mesh_lifecycle li"), "bash");
    assert_eq!(words, ["lint"]);
    let words = offered(&bash_complete("kubectl-mesh_lifecycle lint --fa"), "bash");
    assert_eq!(words, ["--fail-on"]);
    let words = offered(
        &bash_complete("kubectl-mesh_lifecycle lint --format "),
        "bash",
    );
    assert_offers(&words, &FORMATS, "bash --format values");
    // bash splits `--format=` off the word and completes the rest.
    let words = offered(
        &bash_complete("kubectl-mesh_lifecycle lint --format=j"),
        "bash",
    );
    assert_eq!(words, ["json", "junit"]);
    assert_values(&|line| offered(&bash_complete(line), "bash"), "bash");
}

/// The values every shell offers, through the program's own answers: presets, rule ids
/// and names (a comma list without what it already holds), kinds, explain's formats.
fn assert_values(complete: &dyn Fn(&str) -> Vec<String>, shell: &str) {
    let words = complete("kubectl-mesh_lifecycle lint --preset ");
    assert_eq!(words, ["alibaba-asm"], "{shell} --preset");
    let words = complete("kubectl-mesh_lifecycle rules ");
    assert_offers(
        &words,
        &["ML101", "ML207", "app-without-prestop-delay"],
        &format!("{shell} rules"),
    );
    let words = complete("kubectl-mesh_lifecycle lint --select ML101,ML20");
    assert_offers(
        &words,
        &["ML101,ML201", "ML101,ML209"],
        &format!("{shell} --select"),
    );
    assert!(
        words.iter().all(|w| w.starts_with("ML101,ML20")),
        "{shell}: {words:?}"
    );
    let words = complete("kubectl-mesh_lifecycle lint --ignore ML201,grace");
    assert!(
        words.is_empty(),
        "{shell}: ML201 is listed already: {words:?}"
    );
    let words = complete("kubectl-mesh_lifecycle explain --kind ");
    assert_offers(
        &words,
        &["Deployment", "Job", "CronJob"],
        &format!("{shell} --kind"),
    );
    let words = complete("kubectl-mesh_lifecycle explain --format ");
    assert_offers(
        &words,
        &["text", "svg", "html"],
        &format!("{shell} explain --format"),
    );
}

fn zsh_complete(line: &str) -> Output {
    run(Command::new(common::tools::path_of("zsh"))
        .arg("-f")
        .arg(root().join("tests/it/shells/zsh-complete.zsh"))
        .arg(completions_dir())
        .arg(line)
        .env("TERM", "xterm"))
}

#[test]
fn zsh_completes_subcommands_flags_and_values() {
    if !installed("zsh") {
        return;
    }
    // The script loads on its own, and defines the completion function.
    let load = run(Command::new(common::tools::path_of("zsh")).arg("-fc").arg(format!(
        "autoload -Uz compinit && compinit -u -D && source {} && (( $+functions[_kubectl-mesh_lifecycle] ))",
        script_path(Shell::Zsh).display()
    )));
    assert!(
        load.status.success(),
        "{}",
        String::from_utf8_lossy(&load.stderr)
    );
    let words = offered(&zsh_complete("kubectl-mesh_lifecycle "), "zsh");
    assert_offers(&words, &SUBCOMMANDS, "zsh subcommands");
    let words = offered(&zsh_complete("kubectl-mesh_lifecycle lint --fa"), "zsh");
    assert_eq!(words, ["--fail-on"]);
    let words = offered(
        &zsh_complete("kubectl-mesh_lifecycle lint --format "),
        "zsh",
    );
    assert_offers(&words, &FORMATS, "zsh --format values");
    assert_values(&|line| offered(&zsh_complete(line), "zsh"), "zsh");
}

fn fish_complete(line: &str) -> Output {
    run(Command::new(common::tools::path_of("fish"))
        .args(["--no-config", "-c"])
        .arg("source $argv[1]; and complete -C $argv[2]")
        .arg(script_path(Shell::Fish))
        .arg(line))
}

#[test]
fn fish_completes_subcommands_flags_and_values() {
    if !installed("fish") {
        return;
    }
    let words = offered(&fish_complete("kubectl-mesh_lifecycle "), "fish");
    assert_offers(&words, &SUBCOMMANDS, "fish subcommands");
    let words = offered(&fish_complete("kubectl-mesh_lifecycle lint --fa"), "fish");
    assert_eq!(words, ["--fail-on"]);
    let words = offered(
        &fish_complete("kubectl-mesh_lifecycle lint --format "),
        "fish",
    );
    assert_offers(&words, &FORMATS, "fish --format values");
    assert_values(&|line| offered(&fish_complete(line), "fish"), "fish");
}

/// Calls the elvish script's argument completer for the words of `line` (a trailing
/// space starts a new, empty word). Outside the interactive editor there is no `edit:`
/// module: the script runs in a namespace that provides the names it uses, with
/// `complete-filename` offering two files and a directory.
fn elvish_complete(line: &str) -> Output {
    let driver = r#"
var script = (slurp < $args[0])
fn complex-candidate {|text &display='' &code-suffix=''| put $text }
fn complete-filename {|prefix| put [&stem=$prefix'a.yaml'] [&stem=$prefix'b.txt'] [&stem=$prefix'dir/'] }
var edit = (ns [&complex-candidate~=$complex-candidate~ &complete-filename~=$complete-filename~ &completion:=(ns [&arg-completer=[&]])])
var words = $args[1..]
var call = 'each {|c| if (eq (kind-of $c) map) { echo $c[stem] } else { echo $c } } [($edit:completion:arg-completer[kubectl-mesh_lifecycle] $@words)]'
eval $script"\n"$call &ns=(ns [&edit:=$edit &words=$words])
"#;
    let mut words: Vec<&str> = line.split_whitespace().collect();
    if line.ends_with(' ') {
        words.push("");
    }
    run(Command::new(common::tools::path_of("elvish"))
        .args(["-norc", "-c", driver])
        .arg(script_path(Shell::Elvish))
        .args(words))
}

#[test]
fn elvish_completes_subcommands_flags_and_values() {
    if !installed("elvish") {
        return;
    }
    let words = offered(&elvish_complete("kubectl-mesh_lifecycle "), "elvish");
    assert_offers(&words, &SUBCOMMANDS, "elvish subcommands");
    let words = offered(
        &elvish_complete("kubectl-mesh_lifecycle lint --fa"),
        "elvish",
    );
    assert_eq!(words, ["--fail-on"]);
    assert_values(&|line| offered(&elvish_complete(line), "elvish"), "elvish");
    // Manifests: directories and YAML files, not other files.
    let words = offered(
        &elvish_complete("kubectl-mesh_lifecycle lint deploy/"),
        "elvish",
    );
    assert_eq!(words, ["deploy/a.yaml", "deploy/dir/"]);
    let words = offered(
        &elvish_complete("kubectl-mesh_lifecycle lint --output-file out/"),
        "elvish",
    );
    assert_eq!(words, ["out/a.yaml", "out/b.txt", "out/dir/"]);
}

/// `kubectl_complete-mesh_lifecycle WORDS…`, as kubectl runs it.
#[test]
fn the_kubectl_completion_helper_answers_in_cobras_protocol() {
    let helper = assert_cmd::cargo::cargo_bin("kubectl_complete-mesh_lifecycle");
    let complete = |words: &[&str]| {
        let output = run(Command::new(&helper).args(words));
        assert!(output.status.success());
        String::from_utf8(output.stdout).unwrap()
    };
    let top = complete(&[""]);
    let lines: Vec<&str> = top.lines().collect();
    assert_eq!(*lines.last().unwrap(), ":4", "NoFileComp: {top}");
    assert!(
        lines
            .contains(&"lint\tLint manifests and report every hazard at its YAML line, with a fix")
    );
    for subcommand in SUBCOMMANDS {
        assert!(
            lines
                .iter()
                .any(|l| l.split('\t').next() == Some(subcommand)),
            "{top}"
        );
    }
    assert_eq!(
        complete(&["lint", "--fail-on", "w"]),
        "warning\tWarnings and errors\n:36\n"
    );
    assert_eq!(
        complete(&["lint", "--format=s"]),
        "--format=sarif\tSARIF 2.1.0, for GitHub code scanning and other SARIF viewers\n:36\n"
    );
    assert_eq!(complete(&["lint", "deploy/", ""]), "yaml\nyml\njson\n:8\n");
    // kubectl's -o: the formats; the report file completes as a path.
    assert!(complete(&["lint", "-o", ""]).starts_with("human\tDiagnostics"));
    assert_eq!(complete(&["lint", "--output-file", ""]), ":0\n");
    let rules = complete(&["rules", ""]);
    for rule in mesh_lifecycle::rules::RULES {
        assert!(rules.contains(&format!("{}\t", rule.meta().id)), "{rules}");
        assert!(
            rules.contains(&format!("{}\t", rule.meta().name)),
            "{rules}"
        );
    }
    // Without descriptions, as Cobra's `__completeNoDesc`.
    let plain = cli()
        .args(["__completeNoDesc", "lint", "--fail-on", ""])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(plain.stdout).unwrap(),
        "error\nwarning\ninfo\nnever\n:36\n"
    );
}

/// The real kubectl finds the helper on PATH and passes its answer on.
#[test]
fn kubectl_completes_the_plugins_arguments() {
    let Some((_, dir)) = kubectl() else {
        return;
    };
    let complete = |words: &[&str]| {
        let mut kubectl = Command::new(tools::program("kubectl").expect("kubectl is there"));
        let path = std::env::join_paths(
            std::iter::once(dir.path().to_path_buf())
                .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
        )
        .unwrap();
        kubectl
            .env("PATH", path)
            .env("KUBECONFIG", dir.path().join("no-kubeconfig"))
            .arg("__complete")
            .args(words);
        let output = run(&mut kubectl);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    let plugins = complete(&["mesh-l"]);
    assert!(plugins.starts_with("mesh-lifecycle\t"), "{plugins}");
    let top = complete(&["mesh-lifecycle", ""]);
    for subcommand in SUBCOMMANDS {
        assert!(
            top.contains(&format!("\n{subcommand}\t"))
                || top.starts_with(&format!("{subcommand}\t")),
            "{top}"
        );
    }
    assert!(top.ends_with(":4\n"), "{top}");
    assert_eq!(
        complete(&["mesh-lifecycle", "lint", "--format", "j"])
            .lines()
            .collect::<Vec<_>>(),
        [
            "json\tThe JSON output contract (schemaVersion 1)",
            "junit\tJUnit XML, for GitLab and other CI test reports",
            ":36"
        ]
    );
    // The values the shell scripts offer, through kubectl too.
    let select = complete(&["mesh-lifecycle", "lint", "--select", "ML101,ML20"]);
    assert!(select.contains("ML101,ML201\t"), "{select}");
    assert!(!select.contains("ML101,ML101"), "{select}");
    let preset = complete(&["mesh-lifecycle", "lint", "--preset", ""]);
    assert!(preset.starts_with("alibaba-asm\n"), "{preset}");
    let kinds = complete(&["mesh-lifecycle", "explain", "--kind", "Cron"]);
    assert_eq!(kinds, "CronJob\nCronWorkflow\n:36\n");
}

/// Each page files its options under OPTIONS, in the groups `--help` shows, documents
/// `-j/--threads`, and lists the environment variables and exit statuses.
#[test]
fn man_pages_have_options_environment_and_exit_status() {
    let pages = man::pages(Cli::command());
    let lint = &pages
        .iter()
        .find(|(name, _)| name == "kubectl-mesh_lifecycle-lint.1")
        .unwrap()
        .1;
    let sections: Vec<&str> = lint
        .lines()
        .filter_map(|line| line.strip_prefix(".SH "))
        .collect();
    assert_eq!(
        sections,
        [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "OPTIONS",
            "ENVIRONMENT",
            "\"EXIT STATUS\"",
            "\"SEE ALSO\""
        ]
    );
    let groups: Vec<&str> = lint
        .lines()
        .filter_map(|line| line.strip_prefix(".SS "))
        .collect();
    assert_eq!(
        groups,
        [
            "Arguments",
            "Options",
            "Inputs",
            "Limits",
            "\"Live cluster\"",
            "\"Cluster and mesh\"",
            "Scenario",
            "Report",
            "Rules",
            "Fixes",
            "Baseline"
        ]
    );
    let threads = lint.find("\\-\\-threads").unwrap();
    assert!(
        lint[threads..].contains("Worker threads"),
        "-j is described"
    );
    for (_, page) in &pages {
        for variable in [
            "NO_COLOR",
            "COLUMNS",
            "GITHUB_WORKSPACE",
            "GITHUB_STEP_SUMMARY",
            "KUBECONFIG",
            "KUBECTL",
        ] {
            assert!(page.contains(&format!("\\fB{variable}")), "{variable}");
        }
        // kubectl and its kubeconfig are read with --cluster, and only then.
        for variable in ["KUBECONFIG", "KUBECTL"] {
            let entry = page
                .split(".TP\n")
                .find(|entry| entry.starts_with(&format!("\\fB{variable}\\fR\n")))
                .unwrap_or_else(|| panic!("an entry for {variable}"));
            assert!(
                entry.contains("With \\-\\-cluster")
                    && entry.contains("Without \\-\\-cluster, not read"),
                "{entry}"
            );
        }
        assert!(page.contains(".SH \"EXIT STATUS\""));
    }
}
