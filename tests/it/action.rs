//! The GitHub Action (`action.yml`): valid against the published schema of action
//! metadata, every input documented in docs/ci.md, and its two steps run here as a
//! runner would run them: the install step against a release directory made for the
//! test (the archive name of packaging/package.sh and krew-manifest.yaml, its
//! checksum checked), the lint step on a rule fixture.

use std::path::Path;
use std::process::Command;

use crate::common;

fn action() -> String {
    std::fs::read_to_string(common::root().join("action.yml")).unwrap()
}

/// The names of the action's inputs, in order.
fn inputs(text: &str) -> Vec<String> {
    let block = text
        .split("\ninputs:\n")
        .nth(1)
        .and_then(|rest| rest.split("\noutputs:\n").next())
        .expect("action.yml has inputs, then outputs");
    block
        .lines()
        .filter_map(|line| line.strip_prefix("  ")?.strip_suffix(':'))
        .filter(|name| !name.starts_with(' '))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_action_validates_against_the_published_schema() {
    let Some(validator) = common::tools::program("check-jsonschema") else {
        return;
    };
    let check = |path: &Path| {
        Command::new(&validator)
            .args(["--builtin-schema", "vendor.github-actions"])
            .arg(path)
            .output()
            .unwrap()
    };
    let valid = check(&common::root().join("action.yml"));
    assert!(
        valid.status.success(),
        "{}{}",
        String::from_utf8_lossy(&valid.stdout),
        String::from_utf8_lossy(&valid.stderr)
    );
    // The validator refuses what the schema does: a composite action without steps.
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("action.yml");
    std::fs::write(
        &broken,
        action().replace("using: composite", "using: compositee"),
    )
    .unwrap();
    assert!(
        !check(&broken).status.success(),
        "the schema let a wrong `using` through"
    );
}

#[test]
fn every_input_is_described_and_documented() {
    let text = action();
    let names = inputs(&text);
    assert!(names.len() >= 8, "{names:?}");
    let docs = std::fs::read_to_string(common::root().join("docs/ci.md")).unwrap();
    for name in &names {
        let described = text.contains(&format!("\n  {name}:\n    description: "));
        assert!(described, "input {name} has no description");
        assert!(
            docs.contains(&format!("`{name}`")),
            "docs/ci.md does not document the input `{name}`"
        );
    }
    assert!(
        docs.contains("uses: mesh-lifecycle/kubectl-mesh-lifecycle@v"),
        "docs/ci.md does not use the action"
    );
}

/// A release directory as the install step downloads from: `vVERSION/ARCHIVE` and
/// its `.sha256`, for linux/amd64, holding a stand-in for the binary.
fn release(dir: &Path, version: &str) -> std::path::PathBuf {
    let archive = format!("kubectl-mesh_lifecycle-{version}-linux-amd64.tar.gz");
    // The name packaging/package.sh writes, and krew downloads.
    let manifest = std::fs::read_to_string(common::root().join("krew-manifest.yaml")).unwrap();
    assert!(
        manifest.contains(&format!("/releases/download/{version}/{archive}")),
        "{archive}"
    );
    let staging = dir.join("staging");
    std::fs::create_dir_all(&staging).unwrap();
    let binary = staging.join("kubectl-mesh_lifecycle");
    std::fs::write(
        &binary,
        format!("#!/bin/sh\necho \"kubectl-mesh_lifecycle {version} (stand-in)\"\n"),
    )
    .unwrap();
    let releases = dir.join("releases");
    let folder = releases.join(version);
    std::fs::create_dir_all(&folder).unwrap();
    let tar = Command::new("tar")
        .arg("-czf")
        .arg(folder.join(&archive))
        .arg("-C")
        .arg(&staging)
        .arg("kubectl-mesh_lifecycle")
        .status()
        .unwrap();
    assert!(tar.success());
    let sum = Command::new("sha256sum")
        .arg(&archive)
        .current_dir(&folder)
        .output()
        .unwrap();
    std::fs::write(folder.join(format!("{archive}.sha256")), sum.stdout).unwrap();
    releases
}

/// Runs the install step as a runner of `os`/`arch` would, with `env`; returns the
/// status, the log, and the directory put on PATH.
fn install(
    dir: &Path,
    releases: &Path,
    os: &str,
    arch: &str,
    env: &[(&str, &str)],
) -> (bool, String, String) {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let runner = dir.join(format!("runner-{run}"));
    std::fs::create_dir_all(&runner).unwrap();
    let path_file = runner.join("path");
    let output_file = runner.join("output");
    let run = Command::new("bash")
        .arg(common::root().join("packaging/action/install.sh"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap())
        .env("RUNNER_OS", os)
        .env("RUNNER_ARCH", arch)
        .env("RUNNER_TEMP", &runner)
        .env("GITHUB_PATH", &path_file)
        .env("GITHUB_OUTPUT", &output_file)
        .env(
            "MESH_LIFECYCLE_RELEASES",
            format!("file://{}", releases.display()),
        )
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let path = std::fs::read_to_string(&path_file).unwrap_or_default();
    if run.status.success() {
        let output = std::fs::read_to_string(&output_file).unwrap();
        assert!(output.contains("version=v0.1.0"), "{output}");
    }
    (run.status.success(), log, path.trim().to_owned())
}

#[test]
fn the_install_step_installs_the_runners_release_and_checks_its_checksum() {
    if common::tools::program("curl").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let releases = release(dir.path(), "v0.1.0");
    // The version given, or the action's own tag.
    for env in [
        &[("INPUT_VERSION", "0.1.0")][..],
        &[("ACTION_REF", "v0.1.0")][..],
    ] {
        let (ok, log, path) = install(dir.path(), &releases, "Linux", "X64", env);
        assert!(ok, "{log}");
        assert!(
            log.contains("kubectl-mesh_lifecycle v0.1.0 (stand-in)"),
            "{log}"
        );
        assert!(
            Path::new(&path).join("kubectl-mesh_lifecycle").is_file(),
            "{path}"
        );
    }
    // Another runner asks for its own archive.
    let (ok, log, _) = install(
        dir.path(),
        &releases,
        "macOS",
        "ARM64",
        &[("INPUT_VERSION", "v0.1.0")],
    );
    assert!(!ok);
    assert!(
        log.contains("kubectl-mesh_lifecycle-v0.1.0-darwin-arm64.tar.gz"),
        "{log}"
    );
    // An archive that is not the one released is refused, and nothing is installed.
    let archive = releases.join("v0.1.0/kubectl-mesh_lifecycle-v0.1.0-linux-amd64.tar.gz");
    let mut bytes = std::fs::read(&archive).unwrap();
    bytes.extend_from_slice(b"tampered");
    std::fs::write(&archive, bytes).unwrap();
    let (ok, log, path) = install(
        dir.path(),
        &releases,
        "Linux",
        "X64",
        &[("INPUT_VERSION", "v0.1.0")],
    );
    assert!(!ok, "{log}");
    assert!(log.contains("does not match its checksum"), "{log}");
    assert!(path.is_empty(), "{path}");
}

#[test]
fn the_lint_step_annotates_writes_sarif_and_gates() {
    let work = tempfile::tempdir().unwrap();
    std::fs::copy(
        common::testdata("rules/ml101-fire-job.yaml"),
        work.path().join("job.yaml"),
    )
    .unwrap();
    let binary = assert_cmd::cargo::cargo_bin("kubectl-mesh_lifecycle");
    let path = std::env::join_paths(
        std::iter::once(binary.parent().unwrap().to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let step = |fail_on: &str| {
        Command::new("bash")
            .arg(common::root().join("packaging/action/lint.sh"))
            .current_dir(work.path())
            .env("PATH", &path)
            .env("INPUT_PATHS", "job.yaml")
            .env("INPUT_FAIL_ON", fail_on)
            .env("INPUT_SARIF", "out.sarif")
            .env("INPUT_ARGS", "--no-config --istio-version 1.26")
            .env_remove("GITHUB_OUTPUT")
            .env_remove("GITHUB_STEP_SUMMARY")
            .output()
            .unwrap()
    };
    let gated = step("error");
    let log = String::from_utf8_lossy(&gated.stdout);
    assert_eq!(
        gated.status.code(),
        Some(1),
        "{log}{}",
        String::from_utf8_lossy(&gated.stderr)
    );
    assert!(log.contains("::error file=job.yaml,line="), "{log}");
    let sarif: serde_json::Value =
        serde_json::from_slice(&std::fs::read(work.path().join("out.sarif")).unwrap()).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    assert!(!sarif["runs"][0]["results"].as_array().unwrap().is_empty());
    assert_eq!(step("never").status.code(), Some(0));
}
