//! Timelines and verdicts checked against the upstream code, through the binary: each
//! test feeds a manifest to `explain --format json` or `lint --format json` and reads
//! the event times or findings a user would see. Each names the upstream source it
//! follows (repository, file, function, release) and the section of
//! `docs/lifecycle.md` that states the fact.

mod common;

use common::cli;
use serde_json::Value;

/// `explain --format json` of `yaml` (read from standard input) with `flags`.
fn explain(yaml: &str, flags: &[&str]) -> Value {
    let output = cli()
        .args(["explain", "--format", "json"])
        .args(flags)
        .arg("-")
        .write_stdin(yaml)
        .output()
        .expect("the binary runs");
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "invalid JSON: {error}\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// `lint --format json` of `yaml` with `flags`: the report and the exit status.
fn lint(yaml: &str, flags: &[&str]) -> (Value, i32) {
    let output = cli()
        .args(["lint", "--format", "json"])
        .args(flags)
        .arg("-")
        .write_stdin(yaml)
        .output()
        .expect("the binary runs");
    let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "invalid JSON: {error}\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (report, output.status.code().unwrap_or(-1))
}

/// The first workload's events.
fn events(report: &Value) -> &Vec<Value> {
    report["workloads"][0]["events"]
        .as_array()
        .expect("events is an array")
}

/// When `container` (or the pod, for `None`) first has event `kind` in `phase`, in ms.
fn at(report: &Value, phase: &str, container: Option<&str>, kind: &str) -> Option<i64> {
    events(report)
        .iter()
        .find(|e| e["phase"] == phase && e["kind"] == kind && e["container"].as_str() == container)
        .and_then(|e| e["atMs"].as_i64())
}

/// Every event of `container` in `phase`, as `(atMs, kind)`.
fn of(report: &Value, phase: &str, container: &str) -> Vec<(i64, String)> {
    events(report)
        .iter()
        .filter(|e| e["phase"] == phase && e["container"] == container)
        .map(|e| {
            (
                e["atMs"].as_i64().unwrap(),
                e["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The findings of rule `id`.
fn findings<'a>(report: &'a Value, id: &str) -> Vec<&'a Value> {
    report["findings"]
        .as_array()
        .expect("findings is an array")
        .iter()
        .filter(|f| f["ruleId"] == id)
        .collect()
}

/// Every rule id found, sorted.
fn rule_ids(report: &Value) -> Vec<String> {
    let mut ids: Vec<String> = report["findings"]
        .as_array()
        .expect("findings is an array")
        .iter()
        .map(|f| f["ruleId"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

// --- Probe timing (docs/lifecycle.md §1.3) ---------------------------------------------

/// A pod with a native sidecar `agent` (a startup probe with `probe` fields), an init
/// container `setup` before it when `with_setup`, and an app.
fn native_agent(probe: &str, with_setup: bool) -> String {
    let setup = if with_setup {
        "  - name: setup\n    image: setup\n"
    } else {
        ""
    };
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  initContainers:\n{setup}  - name: agent\n    image: agent\n    restartPolicy: Always\n    startupProbe:\n      httpGet: {{path: /ready, port: 8080}}\n{probe}  containers:\n  - name: app\n    image: app\n"
    )
}

/// kubernetes/kubernetes `pkg/kubelet/prober/worker.go`, `run` and `doProbe` (v1.29 to
/// v1.35; `worker_legacy.go` on master): the worker starts its ticker when the kubelet
/// adds the pod (`pkg/kubelet/kubelet.go`, `SyncPod`: `probeManager.AddPod` before
/// `containerRuntime.SyncPod`), probes at once and on every tick, and
/// `initialDelaySeconds` only skips ticks while the container's age in whole seconds is
/// below it ("Probe disabled for InitialDelaySeconds"). Delay 3, period 5, ready at 2:
/// the first probe runs at 5 and passes there, not at 3; the app starts at 5.
#[test]
fn a_startup_probe_with_delay_3_and_period_5_first_passes_at_5() {
    let yaml = native_agent(
        "      initialDelaySeconds: 3\n      periodSeconds: 5\n",
        false,
    );
    let report = explain(&yaml, &[]);
    assert_eq!(
        at(&report, "startup", Some("agent"), "startupProbePassed"),
        Some(5000)
    );
    assert_eq!(at(&report, "startup", Some("app"), "started"), Some(5000));
    // Ready only at 6: the probe at 5 fails, the one at 10 passes.
    let report = explain(&yaml, &["--proxy-startup", "6s"]);
    assert_eq!(
        at(&report, "startup", Some("agent"), "startupProbePassed"),
        Some(10_000)
    );
}

/// The same worker, for a container started late by an init container (8 s): its
/// ticks stay on the pod's clock (0, 5, 10, 15); at 10 the container is 2 s old, under
/// the delay of 3, so the first probe runs at 15 (start + delay would say 11).
/// `worker.go`, `doProbe`, v1.29–v1.35.
#[test]
fn probe_ticks_stay_on_the_pods_clock_behind_init_containers() {
    let yaml = native_agent(
        "      initialDelaySeconds: 3\n      periodSeconds: 5\n",
        true,
    );
    let yaml = yaml.replace(
        "metadata: {name: p}",
        "metadata:\n  name: p\n  annotations: {mesh-lifecycle.io/init-duration: 8s}",
    );
    let report = explain(&yaml, &[]);
    assert_eq!(
        of(&report, "startup", "agent"),
        [
            (8000, "started".to_owned()),
            (10_000, "ready".to_owned()),
            (15_000, "startupProbePassed".to_owned()),
        ]
    );
    assert_eq!(at(&report, "startup", Some("app"), "started"), Some(15_000));
}

/// `failureThreshold` counts the probes the worker runs (`doProbe`'s `resultRun`
/// against `FailureThreshold`, v1.29–v1.35): with period 1 and threshold 3 the run at
/// the pod's add (0) finds no running container, and the probes at 1, 2 and 3 fail:
/// the kubelet gives up at 3 and nothing after the sidecar starts.
#[test]
fn the_failure_threshold_counts_probes_run() {
    let yaml = native_agent("      periodSeconds: 1\n      failureThreshold: 3\n", false);
    let report = explain(&yaml, &["--proxy-startup", "10s"]);
    assert_eq!(
        at(&report, "startup", Some("agent"), "startupProbeFailed"),
        Some(3000)
    );
    assert_eq!(at(&report, "startup", Some("app"), "started"), None);
}

/// kubernetes `pkg/kubelet/prober/prober_manager.go`, `UpdatePodStatus` ("Trigger an
/// immediate run of the readinessProbe to update ready state") and `worker.go`, `run`
/// (`probeTicker.Reset` on a manual run, v1.29+, kubernetes#119089): the sync after a
/// startup probe's success runs the readiness probe at once, so an app whose startup
/// probe passes at 10 is ready at 10, not at its readiness period's tick (30); the
/// e2e oracle is `test/e2e/common/node/container_probe.go`, "should be ready
/// immediately after startupProbe succeeds".
#[test]
fn readiness_is_probed_the_moment_the_startup_probe_passes() {
    let yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: app\n    image: app\n    startupProbe:\n      httpGet: {path: /started, port: 8080}\n    readinessProbe:\n      httpGet: {path: /ready, port: 8080}\n      periodSeconds: 30\n";
    let report = explain(yaml, &[]);
    assert_eq!(
        at(&report, "startup", Some("app"), "startupProbePassed"),
        Some(10_000)
    );
    assert_eq!(at(&report, "startup", None, "podReady"), Some(10_000));
}
