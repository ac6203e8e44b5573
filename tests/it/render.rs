//! What users keep in their repositories is linted as it renders: a directory holding a
//! kustomization is what the real `kubectl kustomize` prints for it, a Helm chart what
//! `helm template` prints (a stand-in `helm` on PATH here: the real one is not
//! installable from the registries this project reaches). Findings point into the source
//! file that says what the rendered output does (the patch that adds injection), or at
//! the rendered line, naming the file it came from. A patch linted alone is named one;
//! a tool that fails is an input error in its words; no `helm` is one note. A tool
//! that hangs (a remote base that never answers) is stopped at `--render-timeout`,
//! with all it started, and only its directory is an input error.

use crate::common;

use std::path::{Path, PathBuf};

use common::{cli, kubectl_binary, root};
use serde_json::Value;

/// `lint --format json` over `paths` from the repository root with `env`: the report,
/// standard error and the exit status.
/// Lints `paths` as JSON. Rendering is what these tests are about: every finding counts
/// in full, so that the status follows what the rendered manifests show.
fn lint(paths: &[&str], flags: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> (Value, String, i32) {
    let mut command = cli();
    command
        .current_dir(root())
        .args([
            "lint",
            "--no-config",
            "--assumed-losses",
            "full",
            "--format",
            "json",
        ])
        .args(flags)
        .args(paths);
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let report =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("{error}: {stderr}"));
    (report, stderr, output.status.code().unwrap())
}

/// `(rule, file, line, workload)` of each finding.
fn findings(report: &Value) -> Vec<(String, String, u64, String)> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let w = &f["workload"];
            let namespace = w["namespace"]
                .as_str()
                .map(|n| format!("{n}/"))
                .unwrap_or_default();
            (
                f["ruleId"].as_str().unwrap().to_owned(),
                f["file"].as_str().unwrap().to_owned(),
                f["line"].as_u64().unwrap(),
                format!(
                    "{} {namespace}{}",
                    w["kind"].as_str().unwrap(),
                    w["name"].as_str().unwrap()
                ),
            )
        })
        .collect()
}

/// The 1-based line of the first line of `text` holding `needle` after one holding
/// `after`.
fn line_of(text: &str, after: &str, needle: &str) -> u64 {
    let start = text.lines().position(|l| l.contains(after)).unwrap();
    let offset = text
        .lines()
        .skip(start)
        .position(|l| l.contains(needle))
        .unwrap();
    (start + offset + 1) as u64
}

/// What `kubectl kustomize DIR` prints.
fn kustomize(dir: &str) -> String {
    let output = std::process::Command::new(common::tools::path_of("kubectl"))
        .arg("kustomize")
        .arg(root().join(dir))
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// The rule and workload of each finding, which rendering cannot change.
fn verdicts(report: &Value) -> Vec<(String, String)> {
    let mut verdicts: Vec<(String, String)> = findings(report)
        .into_iter()
        .map(|(rule, _, _, workload)| (rule, workload))
        .collect();
    verdicts.sort();
    verdicts
}

#[test]
fn an_overlay_whose_patch_adds_injection_is_linted_as_it_renders() {
    if kubectl_binary().is_none() {
        return;
    }
    // The directory as the walk finds it: the app, and its overlay into the mesh.
    let (report, stderr, status) = lint(&["testdata/kustomize"], &[], &[]);
    assert_eq!(status, 1, "{stderr}");
    let meshed: Vec<_> = findings(&report)
        .into_iter()
        .filter(|f| f.3 == "Deployment shop/web")
        .collect();
    // The findings of the rendered output, as piping it in gives them...
    let rendered = kustomize("testdata/kustomize/meshed");
    let piped = cli()
        .args(["lint", "--no-config", "--format", "json", "-"])
        .write_stdin(rendered)
        .output()
        .unwrap();
    let piped: Value = serde_json::from_slice(&piped.stdout).unwrap();
    let mut expected = verdicts(&piped);
    expected.retain(|(_, workload)| workload == "Deployment shop/web");
    let mut found: Vec<_> = meshed.iter().map(|f| (f.0.clone(), f.3.clone())).collect();
    found.sort();
    assert_eq!(found, expected);
    // ...at the line of the patch that adds the injection, not in the rendered stream.
    let patch =
        std::fs::read_to_string(root().join("testdata/kustomize/meshed/inject.yaml")).unwrap();
    let label = line_of(&patch, "labels:", "sidecar.istio.io/inject");
    assert!(
        meshed.contains(&(
            "ML101".to_owned(),
            "testdata/kustomize/meshed/inject.yaml".to_owned(),
            label,
            "Deployment shop/web".to_owned()
        )),
        "{meshed:?}"
    );
    // The app alone has no sidecar: nothing about one.
    assert!(
        findings(&report).iter().all(|f| f.3 != "Deployment web"),
        "{report:#}"
    );
    // A value changed on the way (a grace period cut by an inline patch) is reported
    // at the rendered line, naming the file its resource came from.
    let prod = kustomize("testdata/kustomize/prod");
    let drain = line_of(&prod, "kind: Deployment", "terminationDrainDuration");
    assert!(
        findings(&report).contains(&(
            "ML201".to_owned(),
            "testdata/kustomize/prod".to_owned(),
            drain,
            "Deployment shop/prod-api".to_owned()
        )),
        "{report:#}"
    );
    let human = cli()
        .current_dir(root())
        .args([
            "lint",
            "--no-config",
            "--select",
            "ML201",
            "testdata/kustomize/prod",
        ])
        .output()
        .unwrap();
    let human = String::from_utf8(human.stdout).unwrap();
    assert!(
        human.contains(&format!(
            "[testdata/kustomize/prod (from testdata/kustomize/base/deployment.yaml):{drain}:"
        )),
        "{human}"
    );
}

#[test]
fn without_rendering_the_files_are_read_as_they_are() {
    let (report, stderr, _) = lint(&["testdata/kustomize"], &["--no-render"], &[]);
    // The patch is a fragment with no containers; the app alone is linted, unmeshed.
    assert!(
        findings(&report)
            .iter()
            .all(|f| !f.1.ends_with("inject.yaml")),
        "{report:#}"
    );
    assert!(stderr.contains("testdata/kustomize/meshed/inject.yaml: a kustomize patch, applied by testdata/kustomize/meshed/kustomization.yaml"), "{stderr}");
    assert!(
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["file"].as_str().unwrap().ends_with(".yaml")),
        "files, not renderings"
    );
}

/// A patch linted on its own, strategic merge or JSON 6902, gets a note in every
/// format naming the kustomization that applies it.
#[test]
fn a_patch_linted_alone_names_its_kustomization() {
    for patch in ["inject.yaml", "grace.yaml"] {
        let path = format!("testdata/kustomize/meshed/{patch}");
        let (report, stderr, status) = lint(&[&path], &[], &[]);
        assert_eq!(status, 0, "{stderr}");
        let notes = report["notes"].as_array().unwrap();
        let note = notes
            .iter()
            .find(|n| n["file"] == path.as_str())
            .unwrap_or_else(|| panic!("{patch}: {notes:?}"));
        let message = note["message"].as_str().unwrap();
        assert!(
            message.starts_with(
                "a kustomize patch, applied by testdata/kustomize/meshed/kustomization.yaml"
            ) && message.contains("lint the kustomization's directory (testdata/kustomize/meshed)"),
            "{message}"
        );
        assert!(stderr.contains(message), "{stderr}");
    }
}

#[test]
fn a_kustomization_that_does_not_render_is_an_input_error_in_kustomizes_words() {
    if kubectl_binary().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("kustomization.yaml"),
        "resources:\n- missing.yaml\n",
    )
    .unwrap();
    let (report, stderr, status) = lint(&[dir.path().to_str().unwrap()], &[], &[]);
    assert_eq!(status, 2, "{stderr}");
    let errors = report["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let message = errors[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("`kubectl kustomize ") && message.contains("missing.yaml"),
        "kustomize's own message: {message}"
    );
    assert!(stderr.contains("missing.yaml"), "{stderr}");
}

/// Without kubectl, a kustomization's files are linted as they are, with a note.
#[test]
fn without_kubectl_a_kustomization_is_read_as_files_with_a_note() {
    let empty = tempfile::tempdir().unwrap();
    let env: [(&str, &std::ffi::OsStr); 2] = [
        ("PATH", empty.path().as_os_str()),
        ("KUBECTL", std::ffi::OsStr::new("")),
    ];
    let (report, stderr, _) = lint(&["testdata/kustomize/base"], &[], &env);
    assert!(
        stderr.contains("a kustomization, not rendered: `kubectl` was not found"),
        "{stderr}"
    );
    let files: Vec<String> = findings(&report).into_iter().map(|f| f.1).collect();
    assert!(
        files.contains(&"testdata/kustomize/base/job.yaml".to_owned())
            && files
                .iter()
                .all(|f| f.starts_with("testdata/kustomize/base/")),
        "{files:?}"
    );
}

/// A directory on PATH holding a stand-in `helm` that prints `output` and exits with
/// `status` when asked to template the shop chart.
fn stand_in_helm(output: &Path, status: i32, stderr: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("helm");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n# helm template -- RELEASE CHART, for the shop chart only.\n[ \"$1\" = template ] && [ \"$2\" = -- ] && [ \"$3\" = shop ] || exit 64\ncase \"$4\" in *helm/shop) ;; *) exit 65 ;; esac\ncat '{}'\nprintf '%s' '{stderr}' >&2\nexit {status}\n",
            output.display()
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

fn path_with(dir: &Path) -> std::ffi::OsString {
    std::env::join_paths(
        std::iter::once(dir.to_path_buf()).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )),
    )
    .unwrap()
}

#[cfg(unix)]
#[test]
fn a_chart_is_rendered_by_helm_and_findings_name_its_templates() {
    let rendered: PathBuf = root().join("testdata/helm/shop-rendered.yaml");
    let helm = stand_in_helm(&rendered, 0, "");
    let path = path_with(helm.path());
    let (report, stderr, status) = lint(&["testdata/helm"], &[], &[("PATH", path.as_os_str())]);
    assert_eq!(status, 1, "{stderr}");
    let text = std::fs::read_to_string(&rendered).unwrap();
    let drain = line_of(&text, "kind: Deployment", "terminationDrainDuration");
    let ml201: Vec<_> = findings(&report)
        .into_iter()
        .filter(|f| f.0 == "ML201" && f.1 == "testdata/helm/shop")
        .collect();
    assert_eq!(
        ml201,
        [(
            "ML201".to_owned(),
            "testdata/helm/shop".to_owned(),
            drain,
            "Deployment shop".to_owned()
        )]
    );
    // The template it came from, as a path of the chart's directory.
    let human = cli()
        .current_dir(root())
        .env("PATH", &path)
        .args(["lint", "--no-config", "--select", "ML201", "testdata/helm"])
        .output()
        .unwrap();
    let human = String::from_utf8(human.stdout).unwrap();
    assert!(
        human.contains(&format!(
            "[testdata/helm/shop (from testdata/helm/shop/templates/deployment.yaml):{drain}:37]"
        )),
        "{human}"
    );
    // The rendered output beside the chart is linted as a file of its own.
    assert!(
        findings(&report)
            .iter()
            .any(|f| f.1 == "testdata/helm/shop-rendered.yaml")
    );
}

#[cfg(unix)]
#[test]
fn a_chart_that_does_not_render_is_an_input_error_in_helms_words() {
    let nothing = tempfile::NamedTempFile::new().unwrap();
    let message = "Error: template: shop/templates/deployment.yaml:18:52: executing: nil pointer evaluating interface {}.terminationDrainDuration";
    let helm = stand_in_helm(nothing.path(), 1, message);
    let path = path_with(helm.path());
    let (report, stderr, status) =
        lint(&["testdata/helm/shop"], &[], &[("PATH", path.as_os_str())]);
    assert_eq!(status, 2, "{stderr}");
    let error = &report["errors"][0];
    assert_eq!(error["file"], "testdata/helm/shop");
    assert_eq!(
        error["message"].as_str().unwrap(),
        format!("`helm template -- shop ./testdata/helm/shop` failed: {message}")
    );
}

#[test]
fn without_helm_a_chart_gets_one_note_saying_how() {
    let empty = tempfile::tempdir().unwrap();
    let (report, stderr, status) = lint(
        &["testdata/helm/shop"],
        &[],
        &[("PATH", empty.path().as_os_str())],
    );
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(report["summary"]["workloads"], 0);
    assert_eq!(
        report["errors"],
        serde_json::json!([]),
        "templates are not read as manifests"
    );
    let notes = report["notes"].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0]["file"], "testdata/helm/shop");
    let message = notes[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("a Helm chart, not rendered: `helm` is not on PATH")
            && message.ends_with(
                "helm template -- shop ./testdata/helm/shop | kubectl mesh-lifecycle lint -"
            ),
        "{message}"
    );
    assert_eq!(stderr.matches("note:").count(), 1, "{stderr}");
}

/// The temporary kustomization that asks for origins is gone when the run ends.
#[test]
fn rendering_leaves_nothing_behind() {
    if kubectl_binary().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (_, stderr, status) = lint(
        &["testdata/kustomize"],
        &[],
        &[("TMPDIR", tmp.path().as_os_str())],
    );
    assert_eq!(status, 1, "{stderr}");
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

/// Two versions of a kustomization: the app alone, then the app with the `meshed`
/// overlay's patches (Istio injection, a 10 s grace period), both in namespace `shop`.
fn two_kustomizations() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let app = root().join("testdata/kustomize/app/deployment.yaml");
    let patches = "patches:\n- path: inject.yaml\n- path: grace.yaml\n  target: {kind: Deployment, name: web}\n";
    for (tree, patches) in [("v1", ""), ("v2", patches)] {
        let at = dir.path().join(tree);
        std::fs::create_dir_all(&at).unwrap();
        std::fs::copy(&app, at.join("deployment.yaml")).unwrap();
        std::fs::write(
            at.join("kustomization.yaml"),
            format!("namespace: shop\nresources:\n- deployment.yaml\n{patches}"),
        )
        .unwrap();
    }
    for patch in ["inject.yaml", "grace.yaml"] {
        std::fs::copy(
            root().join("testdata/kustomize/meshed").join(patch),
            dir.path().join("v2").join(patch),
        )
        .unwrap();
    }
    dir
}

#[test]
fn diff_compares_two_kustomizations_as_they_render() {
    if kubectl_binary().is_none() {
        return;
    }
    let dir = two_kustomizations();
    let output = cli()
        .current_dir(dir.path())
        .args([
            "diff",
            "--no-config",
            "--assumed-losses",
            "full",
            "--format",
            "json",
        ])
        .args(["--base-dir", "v1", "v2"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    assert_eq!(output.status.code(), Some(1), "{report:#}\n{stderr}");
    // One workload, matched across the two renderings rather than added and removed.
    let workloads = report["workloads"].as_array().unwrap();
    assert_eq!(workloads.len(), 1, "{report:#}");
    assert_eq!(workloads[0]["status"], "changed", "{report:#}");
    assert_eq!(workloads[0]["workload"]["namespace"], "shop", "{report:#}");
    // The proxy the overlay injects brings its findings; none goes away.
    let added: Vec<&str> = workloads[0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|change| {
            assert_eq!(change["change"], "added", "{change:#}");
            change["after"]["ruleId"].as_str().unwrap()
        })
        .collect();
    assert!(
        added.contains(&"ML101") && added.contains(&"ML202"),
        "{added:?}"
    );
    // Read as files, neither side has a proxy: there is nothing to compare.
    let output = cli()
        .current_dir(dir.path())
        .args(["diff", "--no-config", "--no-render", "--format", "json"])
        .args(["--base-dir", "v1", "v2"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{report:#}");
}

/// A directory holding the stand-in `helm` and `kubectl` that hang: each starts a child
/// that would outlive it, writes the child's pid to `NAME.pid`, and waits for it.
#[cfg(unix)]
fn hanging_tools() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in ["helm", "kubectl"] {
        let script = dir.path().join(name);
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\nsleep 300 &\necho $! > '{}'\nwait\n",
                dir.path().join(format!("{name}.pid")).display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

/// A tree with a kustomization whose remote base never answers, a chart, and a file
/// with a finding beside them.
#[cfg(unix)]
fn tree_with_renders() -> tempfile::TempDir {
    let tree = tempfile::tempdir().unwrap();
    let remote = tree.path().join("remote");
    std::fs::create_dir(&remote).unwrap();
    std::fs::write(
        remote.join("kustomization.yaml"),
        "resources:\n- https://git.example.invalid/never/answers//base?ref=v1\n",
    )
    .unwrap();
    let chart = tree.path().join("chart");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: chart\nversion: 1.0.0\n",
    )
    .unwrap();
    std::fs::copy(
        root().join("testdata/rules/ml101-fire-inject-label.yaml"),
        tree.path().join("web.yaml"),
    )
    .unwrap();
    tree
}

/// Runs `lint --format json .` in `tree` with the hanging tools; stops it after a
/// minute, which fails the test, rather than hang. Returns the report, standard
/// error, the exit status and how long it took.
#[cfg(unix)]
fn lint_with_hanging_tools(
    tree: &Path,
    tools: &Path,
    flags: &[&str],
) -> (Value, String, i32, std::time::Duration) {
    let started = std::time::Instant::now();
    let output = cli()
        .current_dir(tree)
        .env("PATH", path_with(tools))
        .env("KUBECTL", tools.join("kubectl"))
        .args(["lint", "--format", "json"])
        .args(flags)
        .arg(".")
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let elapsed = started.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let report = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error} after {elapsed:?}: {stderr}"));
    (report, stderr, output.status.code().unwrap_or(-1), elapsed)
}

/// Whether process `pid` (from `file`) still runs.
#[cfg(unix)]
fn still_runs(file: &Path) -> bool {
    let pid: i32 = std::fs::read_to_string(file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // Reaped or a zombie: gone either way.
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .split(") ")
            .nth(1)
            .is_some_and(|rest| rest.starts_with('Z'))
    })
}

#[cfg(unix)]
#[test]
fn a_hanging_helm_and_a_remote_base_that_never_answers_end_at_the_render_timeout() {
    let tools = hanging_tools();
    let tree = tree_with_renders();
    let (report, stderr, status, elapsed) = lint_with_hanging_tools(
        tree.path(),
        tools.path(),
        &["--no-config", "--render-timeout", "2s"],
    );
    assert_eq!(status, 2, "{report:#}\n{stderr}");
    // Two renders of 2 s each, then the rest: well under the minute the test allows.
    assert!(elapsed < std::time::Duration::from_secs(30), "{elapsed:?}");
    let errors = report["errors"].as_array().unwrap();
    let mut failed: Vec<&str> = errors.iter().map(|e| e["file"].as_str().unwrap()).collect();
    failed.sort();
    assert_eq!(failed, ["chart", "remote"], "{errors:#?}");
    for error in errors {
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains("did not finish within --render-timeout 2s and was stopped"),
            "{message}"
        );
    }
    // The file beside them is linted and reported.
    assert!(
        findings(&report)
            .iter()
            .any(|f| f.0 == "ML101" && f.1 == "web.yaml"),
        "{report:#}"
    );
    // What each tool started was stopped with it.
    for name in ["helm", "kubectl"] {
        let pid = tools.path().join(format!("{name}.pid"));
        assert!(
            !still_runs(&pid),
            "the child of the stand-in {name} outlived it"
        );
    }
}

#[cfg(unix)]
#[test]
fn the_render_timeout_comes_from_the_config_file_and_the_flag_wins() {
    let tools = hanging_tools();
    let tree = tree_with_renders();
    std::fs::remove_dir_all(tree.path().join("chart")).unwrap();
    let config = tree.path().join("limits.yaml");
    std::fs::write(&config, "renderTimeout: 1s\n").unwrap();
    let config = config.to_str().unwrap();
    let (report, stderr, status, elapsed) =
        lint_with_hanging_tools(tree.path(), tools.path(), &["--config", config]);
    assert_eq!(status, 2, "{report:#}\n{stderr}");
    assert!(elapsed < std::time::Duration::from_secs(20), "{elapsed:?}");
    let message = report["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains("within renderTimeout 1 s"), "{message}");
    let (report, stderr, status, _) = lint_with_hanging_tools(
        tree.path(),
        tools.path(),
        &["--config", config, "--render-timeout", "1500ms"],
    );
    assert_eq!(status, 2, "{stderr}");
    let message = report["errors"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("within --render-timeout 1500ms"),
        "{message}"
    );
}
