//! Argo Workflows steps and Knative revisions as their controllers run them, through
//! the binary: each test pins event times or verdicts to the upstream function it
//! follows (repository, file, function, tag). The facts are in `docs/lifecycle.md`
//! §5.7 (Argo Workflows) and §5.6 (Knative Serving).

use crate::common;

use common::reports::findings;
use common::{cli, lint_json, rule_lines, testdata};
use serde_json::Value;

/// `explain --format json` of one file's only workload, with `flags`.
fn explained(file: &str, flags: &[&str]) -> Value {
    let output = cli()
        .args(["explain", "--no-config", "--format", "json"])
        .args(flags)
        .arg(testdata(file))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{file}: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    report["workloads"][0].clone()
}

/// When `container` (or the pod, for `None`) has the event `kind` in `phase`, in ms.
fn at(workload: &Value, phase: &str, container: Option<&str>, kind: &str) -> Option<i64> {
    workload["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            e["phase"] == phase
                && e["kind"] == kind
                && match container {
                    Some(name) => e["container"] == name,
                    None => e["container"].is_null(),
                }
        })
        .map(|e| e["atMs"].as_i64().unwrap())
}

/// The names of the plan's containers with their role and list, in start order.
fn containers(workload: &Value) -> Vec<(String, String, String)> {
    workload["plan"]["containers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let text = |key: &str| c[key].as_str().unwrap_or_default().to_owned();
            (text("name"), text("role"), text("list"))
        })
        .collect()
}

// argoproj/argo-workflows v4.1.2 (and v3.7.18) `workflow/controller/workflowpod.go`,
// `createWorkflowPod`: `pod.Spec.InitContainers = []apiv1.Container{initCtr}` then the
// template's, and `waitCtr` before `mainCtrs` and the `sidecars` (`addSidecars`);
// `workflow/common/common.go` `InitContainerName = "init"`, `WaitContainerName =
// "wait"`, `MainContainerName = "main"`. An injector's containers join them (Istio's
// `istio-init` after `init`, its proxy first under `holdApplicationUntilProxyStarts`).
#[test]
fn a_step_pod_has_argos_init_and_wait_containers() {
    let step = explained("workflows/istio-db-sidecar.yaml", &[]);
    let names: Vec<(String, String, String)> = containers(&step);
    let expected = [
        ("init", "init", "initContainers"),
        ("istio-init", "init", "initContainers"),
        ("istio-proxy", "proxy", "containers"),
        ("wait", "sidecar", "containers"),
        ("main", "app", "containers"),
        ("db", "sidecar", "containers"),
    ];
    let expected: Vec<(String, String, String)> = expected
        .iter()
        .map(|(a, b, c)| ((*a).to_owned(), (*b).to_owned(), (*c).to_owned()))
        .collect();
    assert_eq!(names, expected);
    // `init` runs first and exits before the template's work starts.
    let init_exit = at(&step, "startup", Some("init"), "exited").unwrap();
    let main_start = at(&step, "startup", Some("main"), "started").unwrap();
    assert!(init_exit <= main_start, "{init_exit} > {main_start}");
    // The text drawing names both lanes.
    let output = cli()
        .args(["explain", "--no-config"])
        .arg(testdata("workflows/istio-db-sidecar.yaml"))
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    for lane in ["  init        init", "  wait        sidecar"] {
        assert!(text.contains(lane), "no `{lane}` lane:\n{text}");
    }
    // So does the SVG (looked at in Chromium: both lanes in start-up, `wait` in
    // termination and completion).
    let output = cli()
        .args(["explain", "--no-config", "--format", "svg"])
        .arg(testdata("workflows/istio-db-sidecar.yaml"))
        .output()
        .unwrap();
    let svg = String::from_utf8(output.stdout).unwrap();
    for lane in [">init (init)<", ">wait (sidecar)<"] {
        assert!(svg.contains(lane), "no `{lane}` lane in the SVG");
    }
}

// The worked example. `main` starts once the proxy is ready (2 s, hold) and runs the
// assumed job duration (10 s): done at 12. argo-workflows v4.1.2
// `workflow/controller/operator.go` `podHasContainerNeedingTermination` →
// `cleanUpPod` → `TerminateContainers`; `workflow/controller/pod/queue.go`
// `processNextPodCleanupItem` (`terminateContainers`: SIGTERM to every running
// container); `workflow/signal/signal.go` `killCommand` (`argoexec kill 15 1` where
// `/var/run/argo` is mounted, else `/bin/sh -c "kill -15 1"`). `db` (a template
// sidecar) shuts down in the assumed 5 s → 17; the classic Istio proxy drains for
// `terminationDrainDuration` (5 s) → 17. The step (node) completes when the pod does:
// `assessNodeStatus` sets `FinishedAt = getLatestFinishedAt(pod)`, the latest exit of
// every container → 17, not 12.
#[test]
fn the_step_ends_when_its_sidecars_have_exited_not_when_main_does() {
    let step = explained("workflows/istio-db-sidecar.yaml", &[]);
    let completion = |container| at(&step, "completion", container, "exited");
    assert_eq!(at(&step, "completion", None, "workDone"), Some(12_000));
    assert_eq!(completion(Some("main")), Some(12_000));
    assert_eq!(completion(Some("wait")), Some(12_000));
    assert_eq!(completion(Some("db")), Some(17_000));
    assert_eq!(completion(Some("istio-proxy")), Some(17_000));
    assert_eq!(at(&step, "completion", None, "jobComplete"), Some(17_000));
    let (report, status) = lint_json(&testdata("workflows/istio-db-sidecar.yaml"), &[]);
    assert_eq!(status, 0, "{report}");
    assert!(rule_lines(&report).is_empty(), "{report}");
}

// `db` takes 60 s over SIGTERM (the annotation's app shutdown) and the grace period is
// 30 s: its emissary SIGKILLs its process group at 12 + 30 = 42
// (`cmd/argoexec/commands/emissary.go`, v4.1.2 l.228-262: SIGTERM to its own signal
// file once `main`'s exit code is written, then `ARGO_TERMINATION_GRACE_PERIOD_SECONDS`
// (30 s unset), then SIGKILL; `osspecific.Kill`: `syscall.Kill(-pgid, s)`; PR #14633,
// v3.6.11/v3.7.1/v4.0.0 on). The proxy with `EXIT_ON_ZERO_ACTIVE_CONNECTIONS` sleeps
// `MINIMUM_DRAIN_DURATION` (5 s) and exits at its first 1 s poll with no connection
// (istio/istio 1.30.3 `pkg/istio-agent/agent.go` / `pilot/cmd/pilot-agent/app/cmd.go`,
// `terminate` → `drainAndExit`... as docs/lifecycle.md §3.6 cites): 12 + 5 + 1 = 18.
#[test]
fn a_template_sidecar_is_killed_after_the_grace_period_and_istio_waits_for_its_first_poll() {
    let step = explained("workflows/istio-db-slow-drain-on-zero.yaml", &[]);
    let completion = |container| at(&step, "completion", Some(container), "exited");
    assert_eq!(at(&step, "completion", None, "workDone"), Some(12_000));
    assert_eq!(completion("istio-proxy"), Some(18_000));
    assert_eq!(completion("db"), Some(42_000));
    assert_eq!(at(&step, "completion", None, "jobComplete"), Some(42_000));
}

// argo-workflows v4.1.2 `workflow/signal/signal.go` `killCommand`: the
// `workflows.argoproj.io/kill-cmd-<container>` annotation is `json.Unmarshal`ed into
// the command, `%d` replaced by the signal, and exec'd as it is
// (`ExecPodContainerAndGetOutput`): its argv[0] must be in the image. Linkerd's proxy
// image is distroless (`/usr/lib/linkerd/linkerd-await`, `/bin/sleep`, no shell): the
// exec fails, nothing is signalled, the pod stays Running and the step hangs.
#[test]
fn a_kill_command_that_needs_a_shell_hangs_a_linkerd_step() {
    let (report, status) = lint_json(
        &testdata("workflows/linkerd-kill-cmd-shell.yaml"),
        &["--linkerd-version", "2.15"],
    );
    assert_eq!(status, 1);
    let ml304 = findings(&report, "ML304");
    assert_eq!(ml304.len(), 1, "{report}");
    let message = ml304[0]["message"].as_str().unwrap();
    assert!(
        message.contains("`/bin/sh -c 'kill -15 1'`")
            && message.contains("that image has no `sh`")
            && message.contains("the step never completes"),
        "{message}"
    );
    // At the annotation that names the command.
    assert_eq!(ml304[0]["line"], 14);
    let step = explained("workflows/linkerd-kill-cmd-shell.yaml", &[]);
    assert_eq!(at(&step, "completion", None, "jobComplete"), None);
    // `main` starts once `linkerd-await` has the proxy ready (2 s): done at 12 s.
    assert_eq!(
        at(&step, "completion", None, "neverCompletes"),
        Some(12_000)
    );
    // Without the annotation Argo runs `/bin/sh -c 'kill -15 1'` (the image has no
    // shell either), and the help offers Argo's documented kill command with what it
    // needs: the proxy's `/shutdown`, off by default since Linkerd 2.16.
    let (report, _) = lint_json(&testdata("kinds/workflow-linkerd-fire.yaml"), &[]);
    let help = findings(&report, "ML304")[0]["help"].as_str().unwrap();
    assert!(
        help.contains("workflows.argoproj.io/kill-cmd-linkerd-proxy")
            && help.contains("config.linkerd.io/proxy-admin-shutdown: enabled"),
        "{help}"
    );
}

// Argo's documented kill command for Linkerd (`docs/sidecar-injection.md`, v4.1.2)
// runs `linkerd-await --shutdown`, which POSTs the proxy's `/shutdown`: served by
// default up to 2.15, only with `config.linkerd.io/proxy-admin-shutdown: enabled`
// from 2.16 (linkerd/linkerd2 `charts/partials/templates/_proxy.tpl`,
// `LINKERD2_PROXY_SHUTDOWN_ENDPOINT_ENABLED`; docs/lifecycle.md §4.3). The kill command
// is judged as the same call in the work would be.
#[test]
fn argos_linkerd_kill_command_works_only_where_shutdown_answers() {
    let file = testdata("workflows/linkerd-kill-cmd-await.yaml");
    let (report, _) = lint_json(&file, &["--linkerd-version", "2.16"]);
    let ml304 = findings(&report, "ML304");
    assert_eq!(ml304.len(), 1, "{report}");
    let message = ml304[0]["message"].as_str().unwrap();
    assert!(
        message.contains("`/usr/lib/linkerd/linkerd-await sleep 1 --shutdown`")
            && message.contains("proxy-admin-shutdown"),
        "{message}"
    );
    assert_eq!(ml304[0]["line"], 15);
    let (report, _) = lint_json(&file, &["--linkerd-version", "2.15"]);
    assert!(findings(&report, "ML304").is_empty(), "{report}");
    let step = explained(
        "workflows/linkerd-kill-cmd-await.yaml",
        &["--linkerd-version", "2.15"],
    );
    assert!(at(&step, "completion", None, "jobComplete").is_some());
}

// `killCommand`: `json.Unmarshal([]byte(v), &command)` fails on an argv that is not a
// JSON list of strings, `signalContainer` returns the error and nothing is exec'd.
#[test]
fn an_unreadable_kill_command_signals_nothing() {
    let (report, status) = lint_json(
        &testdata("workflows/linkerd-kill-cmd-unreadable.yaml"),
        &["--linkerd-version", "2.15"],
    );
    assert_eq!(status, 1);
    let ml304 = findings(&report, "ML304");
    assert_eq!(ml304.len(), 1, "{report}");
    let message = ml304[0]["message"].as_str().unwrap();
    assert!(message.contains("as a JSON list of strings"), "{message}");
    assert_eq!(ml304[0]["line"], 13);
}

// knative/pkg `network/handlers/drain.go` (521cb33, the version knative/serving
// knative-v1.23.0 pins), `Drainer.ServeHTTP` → `resetTimer`: every request that is not
// a probe restarts the quiet period (`drainSleepDuration`, 30 s,
// `pkg/queue/sharedmain/main.go`) at its arrival; `Drain` returns once it has passed
// with no request, and `/wait-for-drain` (`handlers.go`, `adminHandler`) with it.
// Requests arrive until endpoint removal has propagated: 5 s by default → 35 s, 12 s
// (the fixture's annotation) → 42 s, 0 s → 30 s.
#[test]
fn knatives_drain_ends_thirty_seconds_after_the_last_request() {
    for (file, flags, drain) in [
        ("kinds/knative-silent.yaml", &[][..], 35_000),
        ("workflows/knative-drain.yaml", &[][..], 42_000),
        (
            "kinds/knative-silent.yaml",
            &["--endpoint-propagation", "0s"][..],
            30_000,
        ),
    ] {
        let pod = explained(file, flags);
        let user = "user-container";
        assert_eq!(
            at(&pod, "termination", Some(user), "preStopDone"),
            Some(drain),
            "{file} {flags:?}"
        );
        assert_eq!(at(&pod, "termination", Some(user), "sigterm"), Some(drain));
        assert_eq!(
            at(&pod, "termination", Some("queue-proxy"), "exited"),
            Some(drain),
            "{file} {flags:?}"
        );
    }
}

// knative/serving knative-v1.23.0 `pkg/apis/serving/fieldmask.go` `ContainerMask`
// (`Lifecycle` is among the disallowed fields) and `pkg/apis/serving/k8s_validation.go`
// `validate`: `apis.CheckDisallowedFields(container, *ContainerMask(&container))` for
// every container, `ViaFieldIndex("containers", i)`; knative/pkg `apis/field_error.go`
// `ErrDisallowedFields`: "must not set the field(s)". The object is refused: no pod is
// simulated, and the rejection is reported at the field.
#[test]
fn a_knative_container_with_its_own_lifecycle_is_refused_at_the_field() {
    let file = testdata("rules/ml406-fire-knative-prestop-sleep.yaml");
    let (report, status) = lint_json(&file, &[]);
    assert_eq!(status, 1);
    assert_eq!(rule_lines(&report), [("ML406".to_owned(), 16)]);
    let message = report["findings"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("must not set the field(s): spec.template.spec.containers[0].lifecycle"),
        "{message}"
    );
    let pod = explained("rules/ml406-fire-knative-prestop-sleep.yaml", &[]);
    let rejection = &pod["plan"]["rejection"];
    assert_eq!(rejection["by"], "Knative Serving's webhook", "{pod}");
    assert_eq!(
        rejection["path"],
        "spec.template.spec.containers[0].lifecycle"
    );
    assert!(
        pod["events"].as_array().unwrap().is_empty(),
        "a refused object has no timeline: {}",
        pod["events"]
    );
}

/// The completion events of `container`, in order, as (ms, kind).
fn completion_events(workload: &Value, container: &str) -> Vec<(i64, String)> {
    workload["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["phase"] == "completion" && e["container"] == container)
        .map(|e| {
            let kind = e["kind"].as_str().unwrap().to_owned();
            (e["atMs"].as_i64().unwrap(), kind)
        })
        .collect()
}

// Who signals what, once `main` has exited (12 s). argo-workflows v4.1.2
// `workflow/controller/pod/queue.go` `signalContainers`: every running container
// (`pod.Status.ContainerStatuses`, regular containers only) gets the exec of
// `workflow/signal/signal.go` `killCommand`, so the injected proxy gets
// `/bin/sh -c 'kill -15 1'`; `cmd/argoexec/commands/emissary.go` (l.240-262, for each
// of `template.GetSidecarNames()`): a template sidecar's emissary waits for the main
// containers and then `em.Kill`s its own container (SIGTERM through its signal file,
// SIGKILL after `TerminationGracePeriodDuration`). The text names each signaller and
// puts the work's end before what it sets off.
#[test]
fn the_completion_timeline_shows_who_signals_each_sidecar() {
    let step = explained("workflows/istio-db-sidecar.yaml", &[]);
    let signal = |events: Vec<(i64, String)>| events.first().cloned();
    for container in ["istio-proxy", "wait", "db"] {
        assert_eq!(
            signal(completion_events(&step, container)),
            Some((12_000, "controllerSigterm".to_owned())),
            "{container}"
        );
    }
    // The work's own container gets no signal: it has exited.
    assert_eq!(
        completion_events(&step, "main"),
        [(12_000, "exited".to_owned())]
    );
    let output = cli()
        .args(["explain", "--no-config"])
        .arg(testdata("workflows/istio-db-sidecar.yaml"))
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    let completion = &text[text.find("Completion (").unwrap()..];
    let lines = [
        "12 s  main         exits",
        "12 s  istio-proxy  Argo's controller sends SIGTERM (`/bin/sh -c 'kill -15 1'` exec'd in it)",
        "12 s  db           Argo's emissary sends SIGTERM (to its process group, once `main` has",
    ];
    let mut from = 0;
    for line in lines {
        let at = completion[from..]
            .find(line)
            .unwrap_or_else(|| panic!("no `{line}` after the previous line:\n{completion}"));
        from += at + line.len();
    }
    // The lanes mark the signal and draw the stopping.
    assert!(completion.contains("▼──"), "{completion}");
}

// A template sidecar with a kill command its image cannot run (a shell, in a
// distroless image): the controller's exec fails, but its emissary stops it all the
// same (`emissary.go`, as above), so the step completes and no rule fires. Before, the
// annotation was judged as the only stop, and ML304 said the step never completes.
#[test]
fn a_template_sidecars_emissary_stops_it_whatever_its_kill_command() {
    let step = explained(
        "rules/ml304-silent-argo-template-sidecar-kill-cmd.yaml",
        &[],
    );
    assert_eq!(
        completion_events(&step, "metrics"),
        [
            (10_000, "controllerSigterm".to_owned()),
            (15_000, "exited".to_owned())
        ]
    );
    assert_eq!(at(&step, "completion", None, "jobComplete"), Some(15_000));
    let (report, status) = lint_json(
        &testdata("rules/ml304-silent-argo-template-sidecar-kill-cmd.yaml"),
        &[],
    );
    assert_eq!(status, 0, "{report}");
    assert!(rule_lines(&report).is_empty(), "{report}");
}

// The injected proxy has no emissary: only the controller's exec can stop it, and
// Linkerd's proxy image has no shell for `/bin/sh -c 'kill -15 1'`. The event says
// the exec fails; the template's `db` is stopped by its emissary; the step never
// completes (ML304).
#[test]
fn an_injected_proxy_the_controller_cannot_signal_runs_on() {
    let step = explained("rules/ml304-fire-argo-step-injected-proxy.yaml", &[]);
    assert_eq!(
        completion_events(&step, "linkerd-proxy"),
        [(12_000, "controllerSigtermFails".to_owned())]
    );
    assert_eq!(
        completion_events(&step, "db").first(),
        Some(&(12_000, "controllerSigterm".to_owned()))
    );
    assert_eq!(at(&step, "completion", None, "jobComplete"), None);
    assert_eq!(
        at(&step, "completion", None, "neverCompletes"),
        Some(12_000)
    );
}

// A failing stop call in `main` is moot where Argo stops the sidecar anyway: a GET to
// pilot-agent's `/quitquitquit` (405) and a `pkill` without a shared process namespace
// leave no proxy running, since the controller execs `/bin/sh -c 'kill -15 1'` in it
// (`signalContainers`, as above). ML304 and ML303 stay silent; the step completes.
#[test]
fn a_failing_stop_call_of_main_is_moot_when_argo_stops_the_sidecar() {
    for file in [
        "rules/ml304-silent-argo-step-get-to-pilot-agent.yaml",
        "rules/ml303-silent-argo-step-pkill.yaml",
    ] {
        let (report, status) = lint_json(&testdata(file), &[]);
        assert_eq!(status, 0, "{file}: {report}");
        assert!(rule_lines(&report).is_empty(), "{file}: {report}");
        let step = explained(file, &[]);
        assert!(
            at(&step, "completion", None, "jobComplete").is_some(),
            "{file}"
        );
    }
}
