//! `diff` and `explain --compare` through the binary: two profiles of the same
//! manifests, two git revisions made in the test with the real `git`, two rendered
//! trees; the JSON contract, the SARIF of added findings, the pull-request comment
//! rendered by a CommonMark renderer, and the exit status.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

use serde_json::Value;

const ISTIO_CLASSIC: &str = "diff/istio-classic.yaml";
const TO_NATIVE: [&str; 4] = ["--to", "istio=1.27", "--to", "kubernetes=1.33"];

/// Runs the binary in `dir` with `args`: stdout, stderr and the exit status.
fn run_in(dir: &Path, args: &[&str]) -> (String, String, i32) {
    let output = common::cli()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("the binary runs");
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        output.status.code().unwrap_or(-1),
    )
}

/// `diff --no-config --format json ARGS` in `dir`: the report, validated against
/// docs/diff-output.schema.json, and the exit status.
fn diff_json(dir: &Path, args: &[&str]) -> (Value, i32) {
    let mut all = vec!["diff", "--no-config", "--format", "json"];
    all.extend(args);
    let (stdout, stderr, code) = run_in(dir, &all);
    let report: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("invalid JSON ({e})\nstdout: {stdout}\nstderr: {stderr}"));
    validate(&report);
    (report, code)
}

fn validate(report: &Value) {
    common::validate_against("docs/diff-output.schema.json", report);
}

/// `(change, ruleId, container)` of every finding change of every workload.
fn changes(report: &Value) -> BTreeSet<(String, String, String)> {
    let mut found = BTreeSet::new();
    for workload in report["workloads"].as_array().unwrap() {
        for change in workload["findings"].as_array().unwrap() {
            let side = change.get("after").unwrap_or(&change["before"]);
            found.insert((
                change["change"].as_str().unwrap().to_owned(),
                side["ruleId"].as_str().unwrap().to_owned(),
                side["container"].as_str().unwrap_or("-").to_owned(),
            ));
        }
    }
    found
}

/// `(ruleId, container)` of the unsuppressed findings `lint` reports with `flags`.
fn lint_findings(path: &Path, flags: &[&str]) -> BTreeSet<(String, String)> {
    let mut all = vec!["--no-config"];
    all.extend(flags);
    let (report, _) = common::lint_json(path, &all);
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["ruleId"].as_str().unwrap().to_owned(),
                f["container"].as_str().unwrap_or("-").to_owned(),
            )
        })
        .collect()
}

/// The `atMs` of the first event of `kind` in `phase` for `container`, as `explain
/// --format json` with `flags` gives it.
fn event(path: &Path, flags: &[&str], phase: &str, container: &str, kind: &str) -> Option<i64> {
    let mut args = vec!["explain", "--no-config", "--format", "json"];
    args.extend(flags);
    let output = common::cli().args(&args).arg(path).output().unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    report["workloads"][0]["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["phase"] == phase && e["container"] == container && e["kind"] == kind)
        .and_then(|e| e["atMs"].as_i64())
}

#[test]
fn istio_native_by_default_moves_the_proxy_and_changes_the_findings() {
    let path = common::testdata(ISTIO_CLASSIC);
    let (report, code) = diff_json(
        &common::root(),
        &[&TO_NATIVE[..], &[path.to_str().unwrap()]].concat(),
    );
    assert_eq!(code, 0, "only infos are added: {report:#}");
    assert_eq!(report["before"]["label"], "today's profile");
    assert_eq!(report["after"]["label"], "--to istio=1.27, kubernetes=1.33");
    let workloads = report["workloads"].as_array().unwrap();
    assert_eq!(workloads.len(), 1);
    let web = &workloads[0];
    assert_eq!(web["status"], "changed");
    // The findings that go away and those that appear are exactly what `lint` finds
    // under each profile.
    let before = lint_findings(&path, &[]);
    let after = lint_findings(
        &path,
        &["--istio-version", "1.27", "--kubernetes-version", "1.33"],
    );
    let expected: BTreeSet<(String, String, String)> = after
        .difference(&before)
        .map(|(rule, container)| ("added".to_owned(), rule.clone(), container.clone()))
        .chain(
            before
                .difference(&after)
                .map(|(rule, container)| ("removed".to_owned(), rule.clone(), container.clone())),
        )
        .collect();
    assert_eq!(changes(&report), expected);
    assert!(expected.contains(&("removed".into(), "ML201".into(), "istio-proxy".into())));
    assert!(expected.contains(&("added".into(), "ML403".into(), "-".into())));
    // The proxy becomes native: the app waits for its startup probe, it stops after
    // the app.
    let timeline = web["timeline"].as_array().unwrap();
    let of =
        |kind: &str| -> Vec<&Value> { timeline.iter().filter(|m| m["kind"] == kind).collect() };
    let role = of("role");
    assert_eq!(role.len(), 1, "{timeline:#?}");
    assert_eq!(
        (&role[0]["container"], &role[0]["from"], &role[0]["to"]),
        (
            &Value::from("istio-proxy"),
            &Value::from("classic-sidecar"),
            &Value::from("native-sidecar")
        )
    );
    assert_eq!(of("gate")[0]["from"], "post-start");
    assert_eq!(of("gate")[0]["to"], "startup-probe");
    assert_eq!(of("stopOrder")[0]["to"], "after-apps");
    // Every moment that moved is where each of the simulator's two runs puts it.
    let native = ["--istio-version", "1.27", "--kubernetes-version", "1.33"];
    let kinds = [
        ("starts", "startup", "started"),
        ("ready", "startup", "ready"),
        ("sigterm", "termination", "sigterm"),
        ("exits", "termination", "exited"),
    ];
    let mut checked = 0;
    for moved in of("time") {
        let Some(container) = moved["container"].as_str() else {
            continue;
        };
        let Some(&(_, phase, kind)) = kinds.iter().find(|(m, ..)| moved["moment"] == *m) else {
            continue;
        };
        assert_eq!(
            moved["fromMs"].as_i64(),
            event(&path, &[], phase, container, kind),
            "{moved}"
        );
        assert_eq!(
            moved["toMs"].as_i64(),
            event(&path, &native, phase, container, kind),
            "{moved}"
        );
        checked += 1;
    }
    assert!(checked >= 2, "the proxy's SIGTERM and exit: {timeline:#?}");
    let exits = of("time")
        .into_iter()
        .find(|m| m["container"] == "istio-proxy" && m["moment"] == "exits")
        .expect("the proxy's exit moves");
    assert_eq!(
        (exits["fromMs"].as_i64(), exits["toMs"].as_i64()),
        (Some(30_000), Some(5_000))
    );
    // The hold and the drain the native proxy ignores become moot.
    let settings: Vec<&str> = web["settings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["change"].as_str().unwrap())
        .collect();
    assert_eq!(settings, ["moot", "moot"]);
    // Today's profile does not know the release, so the overrun only the classic
    // proxy has is a warning there (as lint reports it); it is removed.
    assert_eq!(report["summary"]["removed"]["warnings"], 1);
}

#[test]
fn the_human_report_groups_by_workload_and_says_moves_in_seconds() {
    let path = common::testdata(ISTIO_CLASSIC);
    let mut args = vec!["diff", "--no-config", "--color", "always"];
    args.extend(TO_NATIVE);
    args.push(path.to_str().unwrap());
    let (stdout, _, code) = run_in(&common::root(), &args);
    assert_eq!(code, 0);
    assert!(stdout.contains("Deployment shop/web"), "{stdout}");
    assert!(
        stdout.contains("`istio-proxy` becomes a native sidecar (was a classic sidecar)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("termination: `istio-proxy` exits 30 s → 5 s"),
        "{stdout}"
    );
    // Added in red, removed in green.
    assert!(stdout.contains("\x1b[31m  + info ML403"), "{stdout}");
    assert!(stdout.contains("\x1b[32m  - warning ML201"), "{stdout}");
    assert!(
        stdout.ends_with("1 workload changed, 0 unchanged; findings +3 infos, −1 warning\n"),
        "{stdout}"
    );
}

#[test]
fn removed_findings_never_fail_and_added_ones_fail_at_their_threshold() {
    let path = common::testdata(ISTIO_CLASSIC);
    let file = path.to_str().unwrap();
    let root = common::root();
    // Towards native: only infos added.
    let (_, code) = diff_json(
        &root,
        &[&TO_NATIVE[..], &["--fail-on-new", "warning", file]].concat(),
    );
    assert_eq!(code, 0);
    let (_, code) = diff_json(
        &root,
        &[&TO_NATIVE[..], &["--fail-on-new", "info", file]].concat(),
    );
    assert_eq!(code, 1);
    // Back to classic: ML201 (an error) is added.
    let back = [
        "--from",
        "istio=1.27",
        "--from",
        "kubernetes=1.33",
        "--to",
        "istio=1.26",
        file,
    ];
    let (report, code) = diff_json(&root, &back);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(report["summary"]["added"]["errors"], 1);
    let (_, code) = diff_json(&root, &[&back[..], &["--fail-on-new", "never"]].concat());
    assert_eq!(code, 0);
}

#[test]
fn sarif_carries_only_the_added_findings() {
    let path = common::testdata(ISTIO_CLASSIC);
    let mut args = vec!["diff", "--no-config", "--format", "sarif"];
    args.extend(TO_NATIVE);
    args.push(path.to_str().unwrap());
    let (stdout, _, _) = run_in(&common::root(), &args);
    let log: Value = serde_json::from_str(&stdout).unwrap();
    common::validate_sarif(&log);
    let results = log["runs"][0]["results"].as_array().unwrap();
    let rules: BTreeSet<&str> = results
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert_eq!(rules, BTreeSet::from(["ML203", "ML205", "ML403"]));
    assert!(results.iter().all(|r| r["baselineState"] == "new"));
}

/// A git repository in a temporary directory, driven with the real `git`.
struct Repo(tempfile::TempDir, PathBuf);

impl Repo {
    /// `None` without git ([`common::tools::program`]).
    fn new() -> Option<Repo> {
        let git = common::tools::program("git")?;
        let repo = Repo(tempfile::tempdir().unwrap(), git);
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.email", "test@example.com"]);
        repo.git(&["config", "user.name", "test"]);
        Some(repo)
    }

    fn path(&self) -> &Path {
        self.0.path()
    }

    fn git(&self, args: &[&str]) {
        let status = Process::new(&self.1)
            .arg("-C")
            .arg(self.path())
            .args(args)
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }

    fn write(&self, path: &str, text: &str) {
        let path = self.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn commit(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
    }
}

/// A Deployment named `name` in namespace `shop`; with `hazard`, ML206.
fn deployment(name: &str, hazard: bool) -> String {
    common::deployment(name, Some("shop"), hazard)
}

#[test]
fn a_hazard_added_by_the_last_commit_is_the_only_finding_and_fails() {
    let Some(repo) = Repo::new() else { return };
    repo.write("deploy/web.yaml", &deployment("web", false));
    repo.write("deploy/db.yaml", &deployment("db", true));
    repo.commit("first");
    repo.write("deploy/web.yaml", &deployment("web", true));
    repo.commit("second: web's preStop outlives its grace period");
    let (report, code) = diff_json(repo.path(), &["--base", "HEAD~1"]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(report["before"]["label"], "HEAD~1");
    assert_eq!(report["after"]["label"], "the working tree");
    assert_eq!(
        changes(&report),
        BTreeSet::from([("added".to_owned(), "ML206".to_owned(), "web".to_owned())])
    );
    assert_eq!(report["workloads"][0]["file"], "deploy/web.yaml");
    assert_eq!(
        report["summary"]["workloadsUnchanged"], 1,
        "db has its hazard on both sides"
    );
    // The same revision on both sides: nothing changes.
    let (report, code) = diff_json(repo.path(), &["--base", "HEAD"]);
    assert_eq!(code, 0);
    assert_eq!(report["summary"]["workloadsChanged"], 0);
    assert_eq!(report["summary"]["workloadsUnchanged"], 2);
    // A revision that does not exist is git's error, exit 2.
    let (_, stderr, code) = run_in(repo.path(), &["diff", "--no-config", "--base", "nope"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("`nope` is not a revision"), "{stderr}");
}

#[test]
fn renamed_files_are_followed_and_deleted_ones_go_away() {
    let Some(repo) = Repo::new() else { return };
    repo.write("deploy/web.yaml", &deployment("web", true));
    repo.write("deploy/db.yaml", &deployment("db", true));
    repo.commit("first");
    repo.git(&["mv", "deploy/web.yaml", "deploy/frontend.yaml"]);
    repo.commit("rename");
    let (report, code) = diff_json(repo.path(), &["--base", "HEAD~1"]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["summary"]["workloadsChanged"], 0, "{report:#}");
    assert_eq!(report["summary"]["workloadsUnchanged"], 2);
    // Renamed and changed in the same commit: still one workload, with its change.
    repo.git(&["mv", "deploy/frontend.yaml", "deploy/web-frontend.yaml"]);
    repo.write(
        "deploy/web-frontend.yaml",
        &deployment("web", true).replace("sleep, '10'", "sleep, '20'"),
    );
    repo.git(&["rm", "-q", "deploy/db.yaml"]);
    repo.commit("rename and change web, delete db");
    let (report, code) = diff_json(repo.path(), &["--base", "HEAD~1", "deploy"]);
    assert_eq!(code, 0, "{report:#}");
    let workloads = report["workloads"].as_array().unwrap();
    let statuses: Vec<(&str, &str, &str)> = workloads
        .iter()
        .map(|w| {
            (
                w["workload"]["name"].as_str().unwrap(),
                w["file"].as_str().unwrap(),
                w["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        [
            ("web", "deploy/web-frontend.yaml", "changed"),
            ("db", "deploy/db.yaml", "goesAway")
        ]
    );
    assert_eq!(
        changes(&report),
        BTreeSet::from([
            ("changed".to_owned(), "ML206".to_owned(), "web".to_owned()),
            ("removed".to_owned(), "ML206".to_owned(), "db".to_owned()),
        ])
    );
}

#[test]
fn two_rendered_trees_are_matched_by_their_paths() {
    let dir = tempfile::tempdir().unwrap();
    for (tree, hazard) in [("v1", false), ("v2", true)] {
        std::fs::create_dir_all(dir.path().join(tree).join("templates")).unwrap();
        std::fs::write(
            dir.path().join(tree).join("templates/web.yaml"),
            deployment("web", hazard),
        )
        .unwrap();
    }
    let (report, code) = diff_json(dir.path(), &["--base-dir", "v1", "v2"]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(report["before"]["label"], "v1");
    assert_eq!(report["workloads"][0]["file"], "v2/templates/web.yaml");
    assert_eq!(
        changes(&report),
        BTreeSet::from([("added".to_owned(), "ML206".to_owned(), "web".to_owned())])
    );
}

#[test]
fn a_diff_without_two_sides_is_a_usage_error() {
    let path = common::testdata(ISTIO_CLASSIC);
    let (_, stderr, code) = run_in(&common::root(), &["diff", path.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("diff compares two sides"), "{stderr}");
    let (_, stderr, code) = run_in(
        &common::root(),
        &["diff", "--to", "istio", path.to_str().unwrap()],
    );
    assert_eq!(code, 2);
    assert!(stderr.contains("expected KEY=VALUE"), "{stderr}");
    let (_, stderr, code) = run_in(
        &common::root(),
        &[
            "diff",
            "--no-config",
            "--to",
            "istio.versoin=1.27",
            path.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown setting `versoin`"), "{stderr}");
}

#[test]
fn a_flag_of_cluster_without_it_is_a_usage_error_saying_so() {
    let path = common::testdata(ISTIO_CLASSIC);
    let (_, stderr, code) = run_in(
        &common::root(),
        &[
            "diff",
            "-n",
            "shop",
            "--to",
            "istio=1.27",
            path.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("`-n shop` chooses what --cluster reads from a live cluster")
            && stderr.contains("diff --cluster -n shop"),
        "{stderr}"
    );
}

/// `count` Istio Deployments written for classic sidecars, one file.
fn many_workloads(count: usize) -> String {
    let one = std::fs::read_to_string(common::testdata(ISTIO_CLASSIC)).unwrap();
    (0..count)
        .map(|i| one.replace("name: web\n", &format!("name: web-{i:04}\n")))
        .collect::<Vec<_>>()
        .join("---\n")
}

#[test]
fn the_pull_request_comment_fits_github_on_a_thousand_workloads() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("all.yaml"), many_workloads(1000)).unwrap();
    let mut args = vec!["diff", "--no-config", "--format", "markdown"];
    args.extend(TO_NATIVE);
    args.push("all.yaml");
    let (comment, stderr, code) = run_in(dir.path(), &args);
    assert_eq!(code, 0, "{stderr}");
    let characters = comment.chars().count();
    assert!(characters <= 65_536, "{characters} characters");
    assert!(
        characters > 60_000,
        "the comment uses the room it has: {characters}"
    );
    // Rendered as CommonMark (GitHub's dialect is a superset): one collapsed section
    // per workload shown, and a closing note that counts the rest.
    let parser = pulldown_cmark::Parser::new_ext(&comment, pulldown_cmark::Options::ENABLE_TABLES);
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, parser);
    let shown = html.matches("<details><summary>").count();
    assert!(shown > 10, "{shown} workloads shown");
    assert_eq!(html.matches("</details>").count(), shown);
    let left = 1000 - shown;
    let note = format!(
        "{left} more workloads changed (+{} infos, −{left} warnings) and are not shown",
        3 * left
    );
    assert!(
        html.contains(&note),
        "no note `{note}` in the rendered comment's end: {}",
        &html[html.len() - 600..]
    );
    assert!(
        html.contains("1000 workloads changed, 0 unchanged"),
        "{}",
        &html[..600]
    );
    // Every list item of a shown workload is rendered as one (no stray HTML from a
    // message broke the structure).
    assert_eq!(
        html.matches("<strong>removed</strong> warning").count(),
        shown
    );
}

#[test]
fn explain_compare_draws_the_two_timelines_one_above_the_other() {
    let path = common::testdata(ISTIO_CLASSIC);
    for format in ["text", "svg", "html"] {
        let mut args = vec!["explain", "--compare", "--no-config", "--format", format];
        args.extend(TO_NATIVE);
        args.push(path.to_str().unwrap());
        let (stdout, stderr, code) = run_in(&common::root(), &args);
        assert_eq!(code, 0, "{format}: {stderr}");
        let before = stdout
            .find("before (today&#39;s profile)")
            .or_else(|| stdout.find("before (today's profile)"))
            .unwrap_or_else(|| panic!("{format}: no first side"));
        let after = stdout
            .find("after (--to istio=1.27, kubernetes=1.33)")
            .unwrap_or_else(|| panic!("{format}: no second side"));
        assert!(before < after, "{format}: the first side is drawn first");
    }
    let (_, stderr, code) = run_in(
        &common::root(),
        &["explain", "--to", "istio=1.27", path.to_str().unwrap()],
    );
    assert_eq!(code, 2);
    assert!(stderr.contains("give the sides of --compare"), "{stderr}");
}
