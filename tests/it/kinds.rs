//! Custom-resource workloads through the binary: the built-in CRD kinds, the kinds a
//! config file declares, and the note that names an object of a kind not read.
//!
//! Upstream facts pinned here:
//! - Argo Workflows v4.1.2: a step's pod is done when every main container has exited;
//!   the controller then signals every running container, SIGTERM then SIGKILL after
//!   the grace period (`podHasContainerNeedingTermination`,
//!   `workflow/controller/operator.go`; `signalContainers`,
//!   `workflow/controller/pod/queue.go`; `killCommand`, `workflow/signal/signal.go`):
//!   an injected proxy does not keep a step running, so ML301 stays silent. The signal
//!   is delivered by exec'ing a command in each container (`killCommand`): `argoexec
//!   kill` where Argo's volume is mounted (`/var/run/argo`, `/argo-bin`), which
//!   `createWorkflowPod` mounts into the template's own containers, else the command of
//!   the pod's `workflows.argoproj.io/kill-cmd-<container>` annotation, else
//!   `/bin/sh -c 'kill -%d 1'`; an injected sidecar without a shell (Linkerd's proxy)
//!   cannot run it and keeps the step running (`docs/sidecar-injection.md`, which gives
//!   the kill-cmd of Linkerd's and Istio's proxies): ML304.
//! - Argo Rollouts v1.9.1: a Rollout with `spec.workloadRef` and no template runs the
//!   `spec.template` of the `apps` Deployment or ReplicaSet (or the core PodTemplate's
//!   `template`) of that name in its namespace (`rollout/templateref.go`, `Resolve`,
//!   `infoByGroupKind`); `scaleDown` only decides when that Deployment is scaled down
//!   (`rollout/replicaset.go`, `rollout/sync.go`).
//! - Knative Serving knative-v1.23.0: `BuildPodSpec`
//!   (`pkg/reconciler/revision/resources/deploy.go`) sets the pod's
//!   `terminationGracePeriodSeconds` to the revision's `timeoutSeconds` (default 300 s,
//!   `DefaultRevisionTimeoutSeconds`, `pkg/apis/config/defaults.go`), and
//!   `makeContainer` gives each user container a preStop `httpGet` on queue-proxy's
//!   `:8022/wait-for-drain`, replacing the user's lifecycle, and drops an HTTP, TCP or
//!   gRPC readiness probe (queue-proxy runs it); `makeServingContainer` gives the
//!   serving container the one port `user-port`. `makeQueueContainer`
//!   (`resources/queue.go`) adds `queue-proxy` with ports 9090, 9091, 8012 (8013 for
//!   h2c) and 8112, and a readiness probe on its own 8012 with `K-Network-Probe: queue`
//!   (the user container's probe, or the TCP one `applyUserContainerDefaultReadinessProbe`
//!   defaults to, `pkg/apis/serving/v1/revision_defaults.go`). On SIGTERM queue-proxy
//!   drains until no request has come for 30 s, then shuts its servers down
//!   (`pkg/queue/sharedmain/main.go`, `Main`, `drainSleepDuration`), and
//!   `/wait-for-drain` answers only once that drain is done (`handlers.go`,
//!   `adminHandler`): the user container gets SIGTERM 30 s after the last request at
//!   the earliest.

use crate::common;

use std::path::{Path, PathBuf};

use common::{cli, expectations, lint_json, rule_lines, testdata};

/// The fixtures of a directory of `testdata/kinds`.
fn fixtures(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.extension().is_some_and(|ext| ext == "yaml")
                && !path.file_name().unwrap().to_string_lossy().starts_with('.')
        })
        .collect();
    files.sort();
    files
}

/// Lints `path` with the config file beside it, if any.
fn lint(path: &Path) -> (serde_json::Value, i32) {
    let config = path.with_file_name(".mesh-lifecycle.yaml");
    let config = config.to_string_lossy().into_owned();
    let flags: Vec<&str> = if Path::new(&config).is_file() {
        vec!["--config", &config]
    } else {
        vec!["--no-config"]
    };
    lint_json(path, &flags)
}

fn check(dir: &Path) {
    let mut failures = Vec::new();
    let all = fixtures(dir);
    assert!(!all.is_empty(), "no fixtures in {}", dir.display());
    for path in all {
        let text = std::fs::read_to_string(&path).unwrap();
        let (report, status) = lint(&path);
        let expected = expectations(&text);
        let found = rule_lines(&report);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if found != expected {
            failures.push(format!("{name}: expected {expected:?}, found {found:?}"));
        }
        if name.contains("silent") && status != 0 {
            failures.push(format!("{name}: exit status {status}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn built_in_custom_kinds_fire_and_stay_silent() {
    check(&testdata("kinds"));
}

#[test]
fn declared_kinds_are_linted_where_the_entry_says() {
    check(&testdata("kinds/declared-template"));
    check(&testdata("kinds/declared-spec"));
}

#[test]
fn a_fixture_exists_for_every_built_in_kind_firing_and_silent() {
    let names: Vec<String> = fixtures(&testdata("kinds"))
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for stem in [
        "rollout",
        "workflow",
        "cronworkflow",
        "knative",
        "scaledjob",
        "cloneset",
        "kruise-statefulset",
        "kruise-daemonset",
        "broadcastjob",
    ] {
        for outcome in ["fire", "silent"] {
            let name = format!("{stem}-{outcome}.yaml");
            assert!(names.contains(&name), "missing {name}");
        }
    }
}

#[test]
fn argo_steps_are_run_to_completion_pods_named_by_template() {
    let (report, _) = lint(&testdata("kinds/workflow-fire.yaml"));
    let finding = &report["findings"][0];
    assert_eq!(finding["workload"]["kind"], "Workflow");
    assert_eq!(finding["workload"]["name"], "export-/export");
    let message = finding["message"].as_str().unwrap();
    assert!(
        message.contains("`main`"),
        "Argo names the step's container: {message}"
    );
    assert!(
        !rule_lines(&report).iter().any(|(id, _)| id == "ML301"),
        "Argo stops the step's sidecars: {report}"
    );
}

#[test]
fn a_rollout_runs_the_template_of_the_deployment_it_refers_to() {
    let dir = testdata("kinds/rollout-ref");
    let (report, _) = lint_json(&dir, &["--no-config"]);
    let mut found: Vec<(String, String, u64)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let file = f["file"].as_str().unwrap();
            (
                file.rsplit('/').next().unwrap().to_owned(),
                f["ruleId"].as_str().unwrap().to_owned(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    found.sort();
    let mut expected = Vec::new();
    for name in ["deployment.yaml", "rollout.yaml"] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        expected.extend(
            expectations(&text)
                .into_iter()
                .map(|(rule, line)| (name.to_owned(), rule, line)),
        );
    }
    expected.sort();
    assert_eq!(found, expected);
    let rollout = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["workload"]["kind"] == "Rollout")
        .unwrap();
    assert!(
        rollout["message"].as_str().unwrap().contains("`api`"),
        "the Deployment's container: {rollout}"
    );
    // Without the Deployment, a note says the template could not be read.
    let (report, status) = lint_json(&dir.join("rollout.yaml"), &["--no-config"]);
    assert_eq!(status, 0);
    assert!(rule_lines(&report).is_empty());
    let note = report["notes"][0]["message"].as_str().unwrap();
    assert!(
        note.contains("Deployment api is not in the input, so its pod template could not be read"),
        "{note}"
    );
    assert_eq!(report["notes"][0]["line"], 12);
    // The summary says what is wrong with it: not a kind to declare in `workloadKinds`.
    let output = cli()
        .args(["lint", "--no-config"])
        .arg(dir.join("rollout.yaml"))
        .output()
        .unwrap();
    let human = String::from_utf8(output.stdout).unwrap();
    // Whatever the width the summary line is wrapped to.
    let unwrapped = human.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        unwrapped.contains(
            "1 Rollout not linted (`spec.workloadRef` names no pod template among the inputs: see the note)"
        ),
        "{human}"
    );
    assert!(!human.contains("workloadKinds"), "{human}");
}

#[test]
fn argo_cannot_kill_a_sidecar_without_a_shell_unless_told_how() {
    let (report, _) = lint(&testdata("kinds/workflow-linkerd-fire.yaml"));
    let finding = &report["findings"][0];
    assert_eq!(finding["ruleId"], "ML304");
    let message = finding["message"].as_str().unwrap();
    assert!(
        message.contains("`/bin/sh -c 'kill -15 1'`") && message.contains("no shell"),
        "{message}"
    );
    let help = finding["help"].as_str().unwrap();
    assert!(
        help.contains("workflows.argoproj.io/kill-cmd-linkerd-proxy"),
        "{help}"
    );
    // With the annotation Argo runs its command instead, and the step completes.
    let (report, status) = lint(&testdata("kinds/workflow-linkerd-silent.yaml"));
    assert_eq!(status, 0, "{report}");
    assert!(rule_lines(&report).is_empty(), "{report}");
}

#[test]
fn knative_grace_period_is_the_revision_timeout() {
    for (file, grace) in [("knative-fire.yaml", "300"), ("knative-silent.yaml", "60")] {
        let output = cli()
            .args(["explain", "--no-config", "--format", "json", "--kind"])
            .arg(if file.contains("fire") {
                "Service"
            } else {
                "Configuration"
            })
            .arg(testdata("kinds").join(file))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{file}: {text}");
        let explained: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let plan = &explained["workloads"][0]["plan"];
        assert_eq!(plan["gracePeriodSeconds"].to_string(), grace, "{file}");
    }
}

/// The pod Knative runs for a revision, as `explain --format json` shows it.
fn knative_pod(file: &str) -> serde_json::Value {
    let output = cli()
        .args(["explain", "--no-config", "--format", "json"])
        .arg(testdata("kinds").join(file))
        .output()
        .unwrap();
    assert!(output.status.success(), "{file}");
    let explained: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    explained["workloads"][0].clone()
}

#[test]
fn knative_adds_queue_proxy_and_holds_the_user_container_until_it_drains() {
    let pod = knative_pod("knative-fire.yaml");
    let containers = pod["plan"]["containers"].as_array().unwrap();
    let named = |name: &str| {
        containers
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {containers:?}"))
    };
    let queue = named("queue-proxy");
    assert_eq!(queue["role"], "sidecar");
    assert_eq!(queue["sidecar"], "Knative queue-proxy");
    // The drain's quiet period restarts with each request, the last arriving when
    // endpoint removal has propagated (5 s): it ends at 35 s (knative/pkg
    // `network/handlers/drain.go`, `resetTimer`; tests/it/fidelity_workflows.rs).
    assert_eq!(queue["exit"]["whenRequestsDone"]["acceptingMs"], 35000);
    let user = named("user-container");
    assert_eq!(user["role"], "app");
    assert_eq!(user["preStop"]["duration"]["fixedMs"], 35000);
    let at = |container: &str, kind: &str| -> i64 {
        pod["events"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| {
                e["phase"] == "termination" && e["container"] == container && e["kind"] == kind
            })
            .unwrap_or_else(|| panic!("no {kind} of {container}"))["atMs"]
            .as_i64()
            .unwrap()
    };
    assert_eq!(at("user-container", "sigterm"), 35000);
    assert_eq!(at("queue-proxy", "sigterm"), 0);
    assert!(at("queue-proxy", "exited") >= 35000);
    // queue-proxy keeps serving while it drains: no ML207 for it, nor for the user
    // container, held by its preStop; Istio's proxy, gone at 5 s, is ML202.
    let hazards: Vec<&str> = pod["hazards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["ruleId"].as_str().unwrap())
        .collect();
    assert_eq!(hazards, ["ML101", "ML202"]);
}

#[test]
fn a_bad_declaration_is_an_error_at_its_line() {
    let dir = testdata("kinds/declared-bad");
    let output = cli()
        .args(["lint", "--config"])
        .arg(dir.join(".mesh-lifecycle.yaml"))
        .arg(dir.join("webapp.yaml"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(".mesh-lifecycle.yaml:4:16") && stderr.contains("`spec..template`"),
        "{stderr}"
    );
}

#[test]
fn a_declaration_needs_exactly_one_pod_path() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = testdata("kinds/unknown-kind.yaml");
    for (body, wanted) in [
        ("  podTemplate: spec.a\n  podSpec: spec.b\n", "not both"),
        ("  runsToCompletion: true\n", "missing `podTemplate`"),
    ] {
        let config = dir.path().join("c.yaml");
        std::fs::write(
            &config,
            format!("workloadKinds:\n- apiVersion: platform.example.com\n  kind: WebApp\n{body}"),
        )
        .unwrap();
        let output = cli()
            .args(["lint", "--config"])
            .arg(&config)
            .arg(&manifest)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(wanted) && stderr.contains("c.yaml:2:"),
            "{stderr}"
        );
    }
}

#[test]
fn an_unread_kind_holding_a_pod_is_named_in_every_report() {
    let path = testdata("kinds/unknown-kind.yaml");
    let (report, status) = lint(&path);
    assert_eq!(status, 0, "a note does not change the exit status");
    let note = &report["notes"][0];
    assert_eq!(note["line"], 13);
    let message = note["message"].as_str().unwrap();
    assert!(
        message.contains("WebApp shop")
            && message.contains("kind: WebApp")
            && message.contains("podTemplate: spec.runtime.template"),
        "{message}"
    );
    common::validate_lint_json(&report);
    let run = |format: &str| {
        let output = cli()
            .args(["lint", "--no-config", "--format", format])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{format}");
        String::from_utf8(output.stdout).unwrap()
    };
    let sarif: serde_json::Value = serde_json::from_str(&run("sarif")).unwrap();
    let notification = &sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"][0];
    assert_eq!(notification["level"], "warning");
    assert_eq!(
        sarif["runs"][0]["invocations"][0]["executionSuccessful"],
        true
    );
    assert!(
        notification["message"]["text"]
            .as_str()
            .unwrap()
            .contains("workloadKinds"),
        "{notification}"
    );
    let human = run("human");
    assert!(
        human.contains("1 object holding a pod not linted"),
        "{human}"
    );
    let github = run("github");
    assert!(
        github.contains("::warning") && github.contains("line=13"),
        "{github}"
    );
}

#[test]
fn declared_kinds_are_read_by_explain_kind() {
    let dir = testdata("kinds/declared-template");
    let output = cli()
        .args(["explain", "--kind", "webapp", "--config"])
        .arg(dir.join(".mesh-lifecycle.yaml"))
        .arg(dir.join("webapp.yaml"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("WebApp shop"),
        "{stdout}"
    );
}
