//! The sidecar patterns of real repositories, through the binary: each fixture of
//! `testdata/patterns/` yields exactly the findings its `# expect:` comments name.
//!
//! Upstream facts pinned here:
//! - Cloud SQL Proxy v1.38.3 (GoogleCloudPlatform/cloud-sql-proxy, tag v1.38.3): the
//!   image is `gcr.io/cloudsql-docker/gce-proxy`, distroless by default (`Dockerfile`,
//!   README "Container Images"); the binary is `/cloud_sql_proxy`, instances come in
//!   `-instances=`; `-term_timeout` defaults to 0 (`cmd/cloud_sql_proxy/cloud_sql_proxy.go`).
//!   On SIGTERM `runProxy` calls `Client.Shutdown(termTimeout)` (`proxy/proxy/client.go`),
//!   which polls every 100 ms until no connection is open or the timeout passes, while
//!   the listeners keep accepting; the exit status is 0, or 2 with connections left. v1
//!   serves no `/quitquitquit` (no such string in the tree at v1.38.3): its only HTTP
//!   server is the health check (`/startup`, `/readiness`, `/liveness`,
//!   `cmd/cloud_sql_proxy/internal/healthcheck/healthcheck.go`), and `runProxy` stops
//!   only on SIGTERM or SIGINT. v2 (tag v2.25.3, `cmd/root.go`) serves `/quitquitquit`
//!   (GET or POST, handler `quitquitquit`) and `cloud-sql-proxy shutdown` only with
//!   `--quitquitquit`.

use crate::common;

use std::path::PathBuf;

use common::{cli, expectations, lint_json, profile_flags, rule_lines, testdata};

/// The fixtures of `testdata/patterns` whose name starts with `prefix`.
fn fixtures(prefix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(testdata("patterns"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            path.extension().is_some_and(|ext| ext == "yaml") && name.starts_with(prefix)
        })
        .collect();
    files.sort();
    assert!(files.len() >= 2, "fixtures for {prefix}: {files:?}");
    files
}

/// Lints each fixture (with the flags of its `# profile:` line) and checks its findings.
fn check(prefix: &str) {
    let mut failures = Vec::new();
    let mut outcomes = (false, false);
    for path in fixtures(prefix) {
        let text = std::fs::read_to_string(&path).unwrap();
        let flags = profile_flags(&text);
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        let (report, status) = lint_json(&path, &flags);
        let expected = expectations(&text);
        let found = rule_lines(&report);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if found != expected {
            failures.push(format!(
                "{name}: expected {expected:?}, found {found:?}\n  {}",
                common::messages(&report, "  ")
            ));
        }
        if expected.is_empty() {
            outcomes.1 = true;
            if status != 0 {
                failures.push(format!("{name}: exit status {status}"));
            }
        } else {
            outcomes.0 = true;
        }
    }
    assert!(
        outcomes.0 && outcomes.1,
        "{prefix}: fixtures must fire and stay silent"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The one finding of `rule` in a fixture.
fn finding(file: &str, rule: &str) -> serde_json::Value {
    let path = testdata("patterns").join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let flags = profile_flags(&text);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let (report, _) = lint_json(&path, &flags);
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["ruleId"] == rule)
        .unwrap_or_else(|| panic!("no {rule} in {file}: {report}"))
        .clone()
}

#[test]
fn cloud_sql_proxy_v1_is_a_sidecar_like_v2() {
    check("cloudsql-v1");
}

#[test]
fn cloud_sql_proxy_v1_advice_uses_its_own_flags() {
    let ml202 = finding("cloudsql-v1-fire.yaml", "ML202");
    let text = ml202.to_string();
    assert!(text.contains("-term_timeout="), "{text}");
    assert!(
        !text.contains("--min-sigterm-delay"),
        "v2 flags do not exist in v1: {text}"
    );
}

/// A quit call to v1 is named for what v1 lacks, and the help offers the signal v1
/// does answer, not a v2 flag alone.
#[test]
fn a_quit_call_to_cloud_sql_proxy_v1_says_v1_has_none() {
    let ml304 = finding("cloudsql-v1-quit-fire.yaml", "ML304");
    let message = ml304["message"].as_str().unwrap();
    assert!(
        message.contains("Cloud SQL proxy v1 has no /quitquitquit"),
        "{message}"
    );
    assert!(!message.contains("only when started with"), "{message}");
    let help = ml304["help"].as_str().unwrap();
    assert!(help.contains("pkill -TERM cloud_sql_proxy"), "{help}");
}

/// A Job's sidecar that stops itself on a signal the work leaves keeps ML301 silent,
/// and the ways the signal fails are named. kubexit (karlkfi/kubexit v0.3.2,
/// `cmd/kubexit/main.go` `main`/`onDeathOfAny`, `pkg/supervisor/supervisor.go`
/// `ShutdownWithTimeout`): the supervised work records its death in
/// `$KUBEXIT_GRAVEYARD/$KUBEXIT_NAME` however it exits (`fatalf` too); a sidecar's
/// kubexit watching the same directory SIGTERMs its child on the death of a
/// `KUBEXIT_DEATH_DEPS` name and exits with the child's code; `KUBEXIT_BIRTH_DEPS`
/// holds the child until those containers are Ready.
#[test]
fn self_stopping_sidecars() {
    check("self-stop-");
}

#[test]
fn a_sidecar_waiting_for_a_file_nobody_creates_is_named_with_its_file() {
    let ml301 = finding("self-stop-file-never-created-fire.yaml", "ML301");
    let message = ml301["message"].as_str().unwrap();
    assert!(
        message.contains("its command waits for /shared/done, which no work container leaves"),
        "{message}"
    );
    let help = ml301["help"].as_str().unwrap();
    assert!(help.contains("trap 'touch /shared/done' EXIT"), "{help}");
}

#[test]
fn a_signal_left_in_another_volume_names_both_volumes() {
    let ml304 = finding("self-stop-file-other-volume-fire.yaml", "ML304");
    let message = ml304["message"].as_str().unwrap();
    assert!(message.contains("(volume `shared`)"), "{message}");
    assert!(message.contains("(volume `scratch`)"), "{message}");
    let kubexit = finding("self-stop-kubexit-wrong-death-dep-fire.yaml", "ML304");
    let message = kubexit["message"].as_str().unwrap();
    assert!(message.contains("the death of `report`"), "{message}");
    assert!(message.contains("`psql` (KUBEXIT_NAME)"), "{message}");
}

/// Istio ambient mode (istio/istio 1.29.6). The sidecar injector never reads
/// `istio.io/dataplane-mode` (no mention in `pkg/kube/inject`, `injectRequired` in
/// `inject.go`): injection is decided as anywhere else. istio-cni's default
/// `ambient.enablementSelectors` (`manifests/charts/istio-cni/values.yaml`) enrol a pod
/// labelled `ambient`, or one in a namespace so labelled unless the pod says `none`;
/// `CompiledEnablementSelectors.Matches` (`cni/pkg/util/enablement_selector.go`) opts out
/// a pod with a sidecar (`podHasSidecar`, the `sidecar.istio.io/status` annotation the
/// injector sets): "Ztunnel and sidecar for a single pod is currently not supported".
#[test]
fn ambient_pods_have_no_sidecar_unless_they_ask_for_one() {
    check("ambient-");
}

/// The explain header of a fixture, in text.
fn explain_text(file: &str) -> String {
    let output = cli()
        .args(["explain", "--no-config", "--format", "json"])
        .arg(testdata("patterns").join(file))
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn explain_says_whether_ambient_or_the_sidecar_wins() {
    let ambient = explain_text("ambient-namespace-job-silent.yaml");
    assert!(
        ambient.contains("ambient mode: namespace reports has `istio.io/dataplane-mode: ambient`"),
        "{ambient}"
    );
    assert!(
        ambient.contains("no sidecar ordering hazard applies"),
        "{ambient}"
    );
    let wins = explain_text("ambient-with-injection-fire.yaml");
    assert!(
        wins.contains("but the sidecar wins: ztunnel leaves a pod with a sidecar alone"),
        "{wins}"
    );
    let none = explain_text("namespace-istio-fire.yaml");
    assert!(!none.contains("ambient"), "{none}");
}

/// A Service in the input that selects a pod (same namespace, selector within the pod
/// template's labels) makes a container that declares no port serve on a numeric
/// `targetPort`; a named one reaches only a container declaring that port name (the
/// EndpointSlice controller, kubernetes `pkg/controller/endpointslice`, finds no port
/// for a pod without it: `podutil.FindPort`).
#[test]
fn pods_a_service_selects_serve() {
    check("service-selected");
}

#[test]
fn explain_names_the_service_and_files_can_be_apart() {
    // The header in words, on lines wide enough not to wrap.
    let output = cli()
        .env("COLUMNS", "400")
        .args(["explain", "--no-config"])
        .arg(testdata("patterns").join("service-selected-fire.yaml"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("Service shop/legacy-api selects the pod on targetPort 8080"),
        "{text}"
    );
    // The Service in one file, the Deployment in another.
    let dir = tempfile::tempdir().unwrap();
    let whole =
        std::fs::read_to_string(testdata("patterns").join("service-selected-fire.yaml")).unwrap();
    let (service, deployment) = whole.split_once("---\n").unwrap();
    std::fs::write(dir.path().join("service.yaml"), service).unwrap();
    std::fs::write(dir.path().join("deployment.yaml"), deployment).unwrap();
    let (report, _) = lint_json(dir.path(), &["--no-config"]);
    assert_eq!(
        rule_lines(&report).len(),
        1,
        "ML207 from a Service in another file: {report}"
    );
    assert_eq!(report["findings"][0]["ruleId"], "ML207", "{report}");
}

/// Namespace objects in the input inject as their mesh's webhook reads them: Kuma's
/// `KumaInjector.needToInject` (`pkg/plugins/runtime/k8s/webhooks/injector/precheck.go`,
/// kumahq/kuma v2.14.3) takes the pod's `kuma.io/sidecar-injection` label when it has
/// one, else the namespace's; Istio's and Linkerd's readings are pinned in
/// `tests/it/semantics.rs`.
#[test]
fn namespaces_in_the_input_inject() {
    check("namespace-");
}

#[test]
fn explain_says_the_namespace_asked_for_kuma() {
    let output = cli()
        .args(["explain", "--no-config", "--format", "json"])
        .arg(testdata("patterns").join("namespace-kuma-fire.yaml"))
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("namespace payments has `kuma.io/sidecar-injection: enabled`"),
        "{text}"
    );
}
