//! Timelines and verdicts checked against the upstream code, through the binary: each
//! test feeds a manifest to `explain --format json` or `lint --format json` and reads
//! the event times or findings a user would see. Each names the upstream source it
//! follows (repository, file, function, release) and the section of
//! `docs/lifecycle.md` that states the fact.

use crate::common;

use common::cli;
use common::reports::{at, events, explain, findings, lint, of, rule_ids};

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

// --- PID 1 and SIGTERM (docs/lifecycle.md §2.7) -----------------------------------------

/// A Deployment whose container runs `command` (a flow list) in `image`, serving 8080,
/// with a 5 s preStop sleep; `pod_spec` lines go before `containers`.
fn server(image: &str, command: &str, pod_spec: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: api}}\nspec:\n  selector:\n    matchLabels: {{app: api}}\n  template:\n    metadata:\n      labels: {{app: api}}\n    spec:\n{pod_spec}      containers:\n      - name: api\n        image: {image}\n        command: {command}\n        ports:\n        - containerPort: 8080\n        lifecycle:\n          preStop:\n            exec:\n              command: [sleep, \"5\"]\n"
    )
}

/// man-pages 6.03 `pid_namespaces(7)` and Linux `kernel/signal.c`, `sig_task_ignored`
/// (a namespace's init gets only the signals it has a handler for; SIGKILL from the
/// ancestor namespace is forced); Debian's dash 0.5.12-2 never replaces itself with the
/// last command of `-c` (measured: the shell stays PID 1). The SIGTERM after the 5 s
/// preStop is dropped and the server runs until SIGKILL at 30 s (`killContainer`'s
/// grace, pkg/kubelet/kuberuntime/kuberuntime_container.go, v1.29–v1.34).
#[test]
fn a_dash_pid_1_drops_sigterm_and_the_server_runs_until_sigkill() {
    let yaml = server(
        "example/api:1.0-bookworm",
        "[sh, -c, \"./migrate && ./serve --port 8080\"]",
        "",
    );
    let report = explain(&yaml, &[]);
    assert_eq!(
        of(&report, "termination", "api"),
        [
            (0, "preStopStarted".to_owned()),
            (5000, "preStopDone".to_owned()),
            (5000, "sigtermDropped".to_owned()),
            (30_000, "sigkill".to_owned()),
            (30_000, "exited".to_owned()),
        ]
    );
    let (report, _) = lint(&yaml, &[]);
    let finding = findings(&report, "ML210");
    assert_eq!(finding.len(), 1);
    assert_eq!(finding[0]["severity"], "warning");
    assert!(
        finding[0]["fix"]["edits"]
            .to_string()
            .contains("exec ./serve"),
        "{}",
        finding[0]["fix"]
    );
}

/// BusyBox ash (`shell/ash.c` tag 1_36_1, `evalstring` with `EV_EXIT`, `evalcommand`:
/// "very last command in a script … we can just exec it"; measured with BusyBox 1.35)
/// replaces itself with `./serve`: the server is PID 1, gets SIGTERM at 5 s and exits
/// after its shutdown (5 s assumed), at 10 s. A `|` block's final newline stops that
/// (`parser_eof()`): the shell stays and drops the signal.
#[test]
fn alpine_sh_replaces_itself_unless_the_script_ends_in_a_newline() {
    let yaml = server(
        "example/api:1.0-alpine3.20",
        "[sh, -c, \"./migrate && ./serve --port 8080\"]",
        "",
    );
    let report = explain(&yaml, &[]);
    assert_eq!(
        at(&report, "termination", Some("api"), "sigterm"),
        Some(5000)
    );
    assert_eq!(
        at(&report, "termination", Some("api"), "exited"),
        Some(10_000)
    );
    let block = server(
        "example/api:1.0-alpine3.20",
        "[sh, -c, \"./migrate && ./serve --port 8080\\n\"]",
        "",
    );
    let report = explain(&block, &[]);
    assert_eq!(
        at(&report, "termination", Some("api"), "sigtermDropped"),
        Some(5000)
    );
    assert_eq!(
        at(&report, "termination", Some("api"), "exited"),
        Some(30_000)
    );
}

/// bash 5.2 (`builtins/evalstring.c`, `should_suppress_fork`/`optimize_connection_fork`;
/// measured with bash 5.2.15) does not replace itself with a command that follows `&`:
/// it stays PID 1 and the proxy it started in the background is never signalled.
#[test]
fn a_proxy_in_the_background_of_bash_is_never_signalled() {
    let yaml = server(
        "example/reports:4.0",
        "[bash, -c, \"cloud_sql_proxy -instances=p:r:db=tcp:5432 & ./reports --port 8080\"]",
        "",
    );
    let (report, _) = lint(&yaml, &[]);
    let message = findings(&report, "ML210")[0]["message"].as_str().unwrap();
    assert!(message.contains("follows `&`"), "{message}");
    assert!(
        message.contains("`cloud_sql_proxy -instances=p:r:db=tcp:5432` started in the background is never signalled"),
        "{message}"
    );
}

/// With `shareProcessNamespace: true` the shell is not its namespace's init: SIGTERM's
/// default action ends it at once, and the runtime kills what it started with it (runc
/// `libcontainer/state_linux.go`, `destroy`: "This is not the case for a shared PID
/// namespace container"): the container is gone at the signal, without a shutdown.
#[test]
fn in_a_shared_process_namespace_the_shell_dies_at_the_signal() {
    let yaml = server(
        "example/api:1.0-bookworm",
        "[sh, -c, \"./migrate && ./serve --port 8080\"]",
        "      shareProcessNamespace: true\n",
    );
    let report = explain(&yaml, &[]);
    assert_eq!(
        at(&report, "termination", Some("api"), "sigtermDropped"),
        Some(5000)
    );
    assert_eq!(
        at(&report, "termination", Some("api"), "exited"),
        Some(5000)
    );
    assert_eq!(at(&report, "termination", Some("api"), "sigkill"), None);
}

/// A native sidecar of a Job (kubernetes `kuberuntime_manager.go`, `computePodActions`:
/// once the regular containers are done the pod is killed, sidecars in reverse order,
/// docs/lifecycle.md §2.6) whose shell drops the kubelet's SIGTERM holds the Job until
/// its SIGKILL, the pod's 30 s later: the Job completes at 40 s, not at 10 s.
#[test]
fn a_native_sidecar_whose_shell_drops_sigterm_holds_its_job_until_sigkill() {
    let yaml =
        std::fs::read_to_string(common::testdata("rules/ml210-fire-native-sidecar-job.yaml"))
            .unwrap();
    let report = explain(&yaml, &[]);
    assert_eq!(at(&report, "completion", None, "workDone"), Some(10_000));
    assert_eq!(
        at(&report, "completion", Some("shipper"), "sigtermDropped"),
        Some(10_000)
    );
    assert_eq!(at(&report, "completion", None, "jobComplete"), Some(40_000));
}

// --- Scripts from ConfigMaps, and a container that only stops others (§2.8) -------------

/// A Job whose `wait-to-complete` container runs a ConfigMap script that waits for the
/// work's process to end and then signals the Cloud SQL proxy, in a shared process
/// namespace; `script` is the script, `mode` the volume's `defaultMode`.
fn stopper_job(script: &str, mode: &str) -> String {
    let script: String = script.lines().map(|l| format!("    {l}\n")).collect();
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: scripts}}\ndata:\n  wait-to-complete.sh: |\n{script}---\napiVersion: batch/v1\nkind: Job\nmetadata: {{name: etl}}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      shareProcessNamespace: true\n      containers:\n      - name: main\n        image: example/etl:2.0\n        command: [python, /app/main.py]\n      - name: cloud-sql-proxy\n        image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1\n        args: [--exit-zero-on-sigterm, \"p:r:db\"]\n      - name: wait-to-complete\n        image: busybox:1.36\n        command: [/scripts/wait-to-complete.sh]\n        volumeMounts:\n        - {{name: scripts, mountPath: /scripts}}\n      volumes:\n      - name: scripts\n        configMap: {{name: scripts{mode}}}\n"
    )
}

const WAIT_AND_KILL: &str = "#!/bin/sh\nwhile pgrep -f /app/main.py > /dev/null; do sleep 1; done\necho work done\npkill -TERM -f cloud-sql-proxy\n";

/// Item 7: the script is read as if inline (its `pkill` reaches the proxy, visible in
/// the shared process namespace: pkg/kubelet `shareProcessNamespace`, docs/lifecycle.md
/// §2.6), so the Job completes when the work is done (the proxy, started with
/// `--exit-zero-on-sigterm`, exits 0 at once: cloud-sql-proxy v2.14 `cmd/root.go`,
/// docs/lifecycle.md §5.4). Without an executable mode the runtime cannot run the file
/// (core/v1 `ConfigMapVolumeSourceDefaultMode` 0644), nothing is read, and the proxy is
/// never stopped.
#[test]
fn a_configmap_script_that_kills_the_proxy_is_the_stop_it_is() {
    let yaml = stopper_job(WAIT_AND_KILL, ", defaultMode: 0755");
    // A classic Cloud SQL proxy races the work at start and refuses it at stop, as
    // anywhere (docs/lifecycle.md §5.4); nothing names the stopper as the work.
    let (report, _) = lint(&yaml, &[]);
    assert_eq!(rule_ids(&report), ["ML101", "ML202"], "{report}");
    assert!(!report.to_string().contains("wait-to-complete"), "{report}");
    let report = explain(&yaml, &[]);
    assert_eq!(at(&report, "completion", None, "jobComplete"), Some(10_000));
    let (report, _) = lint(&stopper_job(WAIT_AND_KILL, ""), &[]);
    assert_eq!(rule_ids(&report), ["ML101", "ML202", "ML301"]);
}

/// Item 7: the container whose only job is to stop the others is not "the work": a
/// sidecar nothing stops is reported as left running when `main` finishes, not when
/// `main` and `wait-to-complete` do, and the stopper's own `;` loses no work status
/// (kubernetes `pkg/kubelet/kubelet_pods.go`, `getPhase`: each container's exit code
/// counts on its own).
#[test]
fn a_container_that_only_stops_others_is_not_the_work() {
    let yaml = stopper_job(WAIT_AND_KILL, ", defaultMode: 0755").replace(
        "      - name: wait-to-complete\n",
        "      - name: log-shipper\n        image: example/shipper:1.0\n      - name: wait-to-complete\n",
    );
    let (report, _) = lint(&yaml, &["--select", "ML301,ML302"]);
    let ml301 = findings(&report, "ML301");
    assert_eq!(ml301.len(), 0, "the shipper is an app here: {report}");
    // Declared as a sidecar, the shipper is never stopped, and only `main` is the work.
    let config = "sidecars:\n  - name: log-shipper\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mesh-lifecycle.yaml");
    std::fs::write(&path, config).unwrap();
    let (report, _) = lint(
        &yaml,
        &[
            "--config",
            path.to_str().unwrap(),
            "--select",
            "ML301,ML302",
        ],
    );
    let ml301 = findings(&report, "ML301");
    assert_eq!(ml301.len(), 1, "{report}");
    let message = ml301[0]["message"].as_str().unwrap();
    assert!(message.contains("when `main` finishes"), "{message}");
    assert!(!message.contains("wait-to-complete"), "{message}");
    assert!(findings(&report, "ML302").is_empty(), "{report}");
}

/// Item 7: ML301's help never asks for what the pod already has. Linkerd's `/shutdown`
/// enabled by `config.linkerd.io/proxy-admin-shutdown: enabled` (linkerd2
/// `pkg/inject/inject.go`, 2.16+: the endpoint is off unless enabled, docs/lifecycle.md
/// §4.3); a Cloud SQL proxy v1 (only a signal stops it, docs/lifecycle.md §5.4) in a pod
/// that already shares its process namespace; a v2 proxy already started with
/// `--quitquitquit`.
#[test]
fn ml301_help_never_advises_what_the_pod_already_does() {
    let linkerd = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    metadata:\n      annotations:\n        linkerd.io/inject: enabled\n        config.linkerd.io/proxy-admin-shutdown: enabled\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: work\n        image: example/work:1.0\n        command: [./work]\n";
    let (report, _) = lint(
        linkerd,
        &["--linkerd-version", "2.16", "--kubernetes-version", "1.28"],
    );
    let help = findings(&report, "ML301")[0]["help"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(!help.contains("enable"), "{help}");
    assert!(help.contains("already answers"), "{help}");
    let cloudsql = |image: &str, args: &str, spec: &str| {
        format!(
            "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: j}}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n{spec}      containers:\n      - name: work\n        image: example/work:1.0\n        command: [./work]\n      - name: cloudsql-proxy\n        image: {image}\n        args: {args}\n"
        )
    };
    let v1 = cloudsql(
        "gcr.io/cloudsql-docker/gce-proxy:1.33.2",
        "[/cloud_sql_proxy, -instances=p:r:db=tcp:5432]",
        "      shareProcessNamespace: true\n",
    );
    let (report, _) = lint(&v1, &["--kubernetes-version", "1.28"]);
    let help = findings(&report, "ML301")[0]["help"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(!help.contains("set `shareProcessNamespace"), "{help}");
    assert!(help.contains("already shares"), "{help}");
    let v2 = cloudsql(
        "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1",
        "[--quitquitquit, --exit-zero-on-sigterm, p:r:db]",
        "",
    );
    let (report, _) = lint(&v2, &["--kubernetes-version", "1.28"]);
    let help = findings(&report, "ML301")[0]["help"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(!help.contains("start the proxy with"), "{help}");
    assert!(help.contains("localhost:9091/quitquitquit"), "{help}");
}

// --- A verdict on an assumption (ML201) --------------------------------------------------

/// kubernetes `pkg/kubelet/pod_workers.go`, `calculateEffectiveGracePeriod` (1 s floor)
/// and `kuberuntime_container.go`, `killContainer` (2 s minimum after the signal,
/// v1.22+): an HTTP server with a 1 s grace period gets SIGTERM at 0 and SIGKILL at 2;
/// with the assumed 5 s shutdown it is cut. The verdict is reported at ML201's
/// severity, naming the assumption and how to set it; set to 1 s, it is gone.
#[test]
fn ml201_reports_a_verdict_that_rests_on_the_assumed_shutdown() {
    let yaml = std::fs::read_to_string(common::testdata(
        "rules/ml201-fire-assumed-app-shutdown.yaml",
    ))
    .unwrap();
    let (report, status) = lint(&yaml, &[]);
    let ml201 = findings(&report, "ML201");
    assert_eq!(ml201.len(), 1);
    assert_eq!(ml201[0]["severity"], "error");
    let message = ml201[0]["message"].as_str().unwrap();
    assert!(message.contains("app shutdown 5 s (assumed)"), "{message}");
    assert!(
        message.contains("mesh-lifecycle.io/app-shutdown"),
        "{message}"
    );
    assert_eq!(status, 1);
    let report = explain(&yaml, &[]);
    assert_eq!(
        at(&report, "termination", Some("web"), "sigkill"),
        Some(2000)
    );
    let (report, _) = lint(&yaml, &["--app-shutdown", "1s"]);
    assert!(findings(&report, "ML201").is_empty());
}

// --- Smaller truths (item 10) -------------------------------------------------------------

/// A CronJob has no completion of its own; each Job it creates completes or not
/// (kubernetes `pkg/controller/cronjob`, the CronJob controller creates Jobs; the Job
/// controller completes them on `Succeeded` pods).
#[test]
fn a_cronjobs_jobs_never_complete() {
    let yaml = std::fs::read_to_string(common::testdata("rules/ml301-fire-cronjob.yaml")).unwrap();
    let (report, _) = lint(&yaml, &[]);
    let message = findings(&report, "ML301")[0]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.ends_with("its Jobs never complete"), "{message}");
    assert!(
        !message.contains("the CronJob never completes"),
        "{message}"
    );
}

/// A pod with no port, no readiness probe and no Service of the input selecting it
/// joins no endpoints (the EndpointSlice controller adds pods that Services select): no
/// endpoints lane, no "endpoints removed" event. One that serves has both.
#[test]
fn explain_draws_endpoints_only_for_a_pod_something_can_reach() {
    let worker = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec:\n  selector:\n    matchLabels: {app: w}\n  template:\n    metadata:\n      labels: {app: w}\n    spec:\n      containers:\n      - name: worker\n        image: example/worker:1.0\n";
    let report = explain(worker, &[]);
    assert_eq!(at(&report, "termination", None, "endpointsRemoved"), None);
    let text = cli()
        .args(["explain", "-"])
        .write_stdin(worker)
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        !text
            .lines()
            .any(|line| line.trim_start().starts_with("endpoints ")),
        "{text}"
    );
    let service = format!(
        "{worker}---\napiVersion: v1\nkind: Service\nmetadata: {{name: w}}\nspec:\n  selector: {{app: w}}\n  ports:\n  - port: 80\n    targetPort: 8080\n"
    );
    let report = explain(&service, &[]);
    assert_eq!(
        at(&report, "termination", None, "endpointsRemoved"),
        Some(5000)
    );
}

/// kubernetes/website `deprecation-guide.md` ("The extensions/v1beta1, apps/v1beta1,
/// and apps/v1beta2 API versions of Deployment are no longer served as of v1.16";
/// CronJob `batch/v1beta1` as of v1.25): rejected at `apiVersion` by the version in
/// force, as the admission rules report rejections, with nothing simulated; a version
/// that still serves it lints the pod (the Linkerd CronJob of the corpus, at 1.24).
#[test]
fn a_removed_workload_api_is_rejected_by_the_version_in_force() {
    let deployment = "apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata: {name: legacy}\nspec:\n  template:\n    metadata:\n      labels: {app: legacy}\n    spec:\n      containers:\n      - name: legacy\n        image: example/legacy:0.9\n";
    let (report, status) = lint(deployment, &["--kubernetes-version", "1.34"]);
    assert_eq!(rule_ids(&report), ["ML405"]);
    assert_eq!(report["findings"][0]["line"], 1);
    assert!(
        report["findings"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("Kubernetes 1.34 does not serve Deployment in `extensions/v1beta1`")
    );
    assert_eq!(status, 1);
    let report = explain(deployment, &[]);
    assert!(
        events(&report).is_empty(),
        "no timeline for a rejected object"
    );
    let cronjob = common::testdata(
        "corpus/linkerd-inject/linkerd2-b24cd40/inject_emojivoto_cronjob.golden.yml",
    );
    let yaml = std::fs::read_to_string(cronjob).unwrap();
    let (report, _) = lint(&yaml, &["--kubernetes-version", "1.25"]);
    assert_eq!(rule_ids(&report), ["ML405"]);
    let (report, _) = lint(&yaml, &["--kubernetes-version", "1.24"]);
    assert_eq!(rule_ids(&report), ["ML202", "ML301"]);
}
