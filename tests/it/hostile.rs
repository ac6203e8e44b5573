//! What an input may try against the programs the tool runs: every program is started
//! by one module (`src/external/`, which builds each command line so that nothing
//! from an input is read as an option), and stand-in `helm` and `kubectl` executables
//! that log their arguments show that a chart's name or a directory named like a flag
//! reaches them as a value, never as an option (docs/reliability.md, "Programs the
//! tool runs").

use crate::common;

use std::path::Path;

use common::{cli, root, rust_files};

/// The lines of `text` that start a process: `Command::new`, or `std::process::Command`
/// named or imported.
fn spawns(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let code = line.split("//").next().unwrap_or_default();
            code.contains("Command::new(")
                || code.contains("process::Command")
                || (code.contains("std::process::{") && code.contains("Command"))
        })
        .map(|(at, _)| at + 1)
        .collect()
}

/// Where a process may be started, and why.
const STARTS_PROCESSES: [(&str, &str); 2] = [
    (
        "src/external",
        "the one module that builds command lines and runs them within bounds",
    ),
    (
        "src/bin/kubectl_complete-mesh_lifecycle.rs",
        "the completion helper does not link the library: it hands the words the user typed to the plugin's own __complete",
    ),
];

#[test]
fn spawns_are_found() {
    let text = "use std::process::{Child, Command};\nlet x = 1; // Command::new(\nstd::process::Command::new(\"helm\")\nlet c = Command::new(p);\n";
    assert_eq!(spawns(text), [1, 3, 4]);
    assert!(spawns("use crate::external::CommandLine;\nCommandLine::new(p)").is_empty());
}

#[test]
fn every_program_is_started_by_the_one_module_that_bounds_it() {
    let root = root();
    let mut offences = Vec::new();
    for file in rust_files(&root.join("src")) {
        let relative = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if STARTS_PROCESSES.iter().any(|(allowed, _)| {
            relative == *allowed || relative.starts_with(&format!("{allowed}/"))
        }) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for line in spawns(&text) {
            offences.push(format!("{relative}:{line}"));
        }
    }
    assert!(
        offences.is_empty(),
        "processes started outside src/external (build them with external::CommandLine and run them with external::run):\n{}",
        offences.join("\n")
    );
    for (allowed, why) in STARTS_PROCESSES {
        let files = match root.join(allowed) {
            dir if dir.is_dir() => rust_files(&dir),
            file => vec![file],
        };
        assert!(
            files
                .iter()
                .any(|file| !spawns(&std::fs::read_to_string(file).unwrap()).is_empty()),
            "{allowed} starts no process any more ({why}): drop it from STARTS_PROCESSES"
        );
    }
}

/// Writes an executable shell script.
fn script(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// A Deployment the stand-ins print, named `name`.
fn deployment(name: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  selector:\n    matchLabels: {{app: {name}}}\n  template:\n    metadata:\n      labels: {{app: {name}}}\n    spec:\n      containers:\n      - name: app\n        image: example/app:1\n"
    )
}

/// The arguments each stand-in was called with, one call a line, the arguments
/// separated by a tab.
fn calls(log: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|line| line.split('\t').map(str::to_owned).collect())
        .collect()
}

#[cfg(unix)]
#[test]
fn no_argument_from_a_chart_or_a_directory_name_reaches_a_tool_as_an_option() {
    let bin = tempfile::tempdir().unwrap();
    let log = bin.path().join("calls.log");
    // Each stand-in logs its arguments, then prints one Deployment.
    let logging = |name: &str| {
        format!(
            "#!/bin/sh\n{{ printf '%s' '{name}'; for arg in \"$@\"; do printf '\\t%s' \"$arg\"; done; echo; }} >> '{}'\ncat <<'EOF'\n{}EOF\n",
            log.display(),
            deployment(name)
        )
    };
    script(&bin.path().join("helm"), &logging("helm"));
    script(&bin.path().join("kubectl"), &logging("kubectl"));
    let work = tempfile::tempdir().unwrap();
    // A kustomization in a directory named like kustomize's flag that runs plugins...
    let flag_dir = work.path().join("--enable-alpha-plugins");
    std::fs::create_dir(&flag_dir).unwrap();
    std::fs::write(
        flag_dir.join("kustomization.yaml"),
        "resources:\n- app.yaml\n",
    )
    .unwrap();
    std::fs::write(flag_dir.join("app.yaml"), deployment("app")).unwrap();
    // ...and a chart, in a directory named like a flag, whose name is Helm's flag that
    // runs a program.
    let chart = work.path().join("-chart");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: \"--post-renderer=./evil.sh\"\nversion: 1.0.0\n",
    )
    .unwrap();
    std::fs::write(chart.join("templates/app.yaml"), deployment("chart")).unwrap();
    let path = std::env::join_paths(
        std::iter::once(bin.path().to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let output = cli()
        .current_dir(work.path())
        .env("PATH", &path)
        .env("KUBECTL", bin.path().join("kubectl"))
        .args(["lint", "--no-config", "--format", "json", "."])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.code().is_some_and(|code| code < 2),
        "{stderr}"
    );
    let calls = calls(&log);
    let tools: Vec<&str> = calls.iter().map(|call| call[0].as_str()).collect();
    assert!(
        tools.contains(&"helm") && tools.contains(&"kubectl"),
        "both tools ran: {calls:?}\n{stderr}"
    );
    for call in &calls {
        // The only argument beginning with `-` is the end of the options.
        let options: Vec<&String> = call[1..]
            .iter()
            .filter(|arg| arg.starts_with('-'))
            .collect();
        assert_eq!(options, ["--"], "{call:?}");
        let operands = &call[call.iter().position(|arg| arg == "--").unwrap() + 1..];
        assert!(!operands.is_empty(), "{call:?}");
        match call[0].as_str() {
            "helm" => assert_eq!(operands, ["release", "./-chart"], "{call:?}"),
            _ => assert!(
                operands == ["./--enable-alpha-plugins"]
                    || (operands.len() == 1 && operands[0].starts_with('/')),
                "{call:?}"
            ),
        }
    }
    // What the tools printed was linted, under the directories' names.
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["summary"]["workloads"], 2, "{report:#}\n{stderr}");
}
