//! `lint --cluster` and `explain --cluster` through the binary and the real kubectl,
//! against a stand-in API server on loopback (`common::apiserver`) holding recorded
//! objects (`testdata/cluster/`).

use crate::common;

use std::path::PathBuf;
use std::process::Output;

use common::apiserver::{ApiServer, Fixture, Hostile, Request};
use serde_json::Value;

/// A cluster for one test: the server, and a home and kubeconfig for kubectl.
struct Cluster {
    server: ApiServer,
    home: tempfile::TempDir,
    kubeconfig: PathBuf,
}

impl Cluster {
    /// Serves `fixture`, with `namespace` the context's namespace. `None` when kubectl
    /// is missing (and not required).
    fn start(fixture: Fixture, namespace: Option<&str>) -> Option<Cluster> {
        common::kubectl_binary()?;
        let server = ApiServer::start(fixture);
        let home = tempfile::tempdir().unwrap();
        let kubeconfig = server.kubeconfig(home.path(), namespace);
        Some(Cluster {
            server,
            home,
            kubeconfig,
        })
    }

    /// The recorded cluster of `testdata/cluster/mesh`, its context in namespace `shop`.
    fn mesh() -> Option<Cluster> {
        Cluster::start(Fixture::load("mesh"), Some("shop"))
    }

    /// The plugin, kubectl finding the cluster through KUBECONFIG.
    fn command(&self) -> assert_cmd::Command {
        let mut command = common::cli();
        command
            .env("HOME", self.home.path())
            .env("KUBECONFIG", &self.kubeconfig)
            .env_remove("KUBECTL");
        command
    }

    /// Runs the plugin with `args`, kubectl finding the cluster through KUBECONFIG.
    fn run(&self, args: &[&str]) -> Output {
        self.command().args(args).output().expect("the binary runs")
    }

    /// `lint --cluster --format json` with `args`: the report and the exit status.
    fn lint_json(&self, args: &[&str]) -> (Value, i32, String) {
        let mut all = vec!["lint", "--cluster", "--format", "json"];
        all.extend(args);
        let output = self.run(&all);
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
            panic!(
                "invalid JSON ({error})\nstdout: {}\nstderr: {stderr}",
                String::from_utf8_lossy(&output.stdout)
            )
        });
        (report, output.status.code().unwrap_or(-1), stderr)
    }

    fn requests(&self) -> Vec<Request> {
        self.server.requests()
    }

    /// `lint --cluster --format json` with `args`, through a `$KUBECTL` that runs
    /// `script` (sh) first, then the real kubectl unless the script ended the call:
    /// the report, the exit status and standard error.
    #[cfg(unix)]
    fn through(&self, script: &str, args: &[&str]) -> (Value, i32, String) {
        use std::os::unix::fs::PermissionsExt;
        let wrapper = self.home.path().join("kubectl-stand-in");
        std::fs::write(
            &wrapper,
            format!("#!/bin/sh\n{script}\nexec kubectl \"$@\"\n"),
        )
        .unwrap();
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
        let output = self
            .command()
            .args(["lint", "--cluster", "--format", "json"])
            .args(args)
            .env("KUBECTL", &wrapper)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let report = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|error| panic!("{error}: {stderr}"));
        (report, output.status.code().unwrap_or(-1), stderr)
    }

    /// `lint --cluster --format json` with `args`, through a `$KUBECTL` that logs each
    /// call before running the real kubectl: the report and the calls' arguments.
    #[cfg(unix)]
    fn logged(&self, args: &[&str]) -> (Value, Vec<String>) {
        use std::os::unix::fs::PermissionsExt;
        let log = self.home.path().join("calls.log");
        let _ = std::fs::remove_file(&log);
        let wrapper = self.home.path().join("kubectl-logged");
        std::fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\nexec kubectl \"$@\"\n",
                log.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
        let output = self
            .command()
            .args(["lint", "--cluster", "--format", "json"])
            .args(args)
            .env("KUBECTL", &wrapper)
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|error| panic!("{error}: {}", String::from_utf8_lossy(&output.stderr)));
        let calls = std::fs::read_to_string(&log).unwrap();
        (report, calls.lines().map(str::to_owned).collect())
    }
}

/// `text` with its lines joined and every run of spaces made one: what it says, whatever
/// the width it was wrapped to.
fn unwrapped(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `(ruleId, file, workload kind/name, container)` of every finding, in report order.
fn findings(report: &Value) -> Vec<(String, String, String, String)> {
    report["findings"]
        .as_array()
        .expect("findings is an array")
        .iter()
        .map(|f| {
            (
                f["ruleId"].as_str().unwrap().to_owned(),
                f["file"].as_str().unwrap().to_owned(),
                format!(
                    "{}/{}",
                    f["workload"]["kind"].as_str().unwrap(),
                    f["workload"]["name"].as_str().unwrap()
                ),
                f["container"].as_str().unwrap_or("-").to_owned(),
            )
        })
        .collect()
}

fn finding(
    rule: &str,
    file: &str,
    workload: &str,
    container: &str,
) -> (String, String, String, String) {
    (rule.into(), file.into(), workload.into(), container.into())
}

#[test]
fn lint_reads_every_workload_and_reports_each_finding_once_under_its_owner() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    let (report, code, stderr) = cluster.lint_json(&["-A"]);
    assert_eq!(code, 1, "errors found: {stderr}");
    common::validate_lint_json(&report);
    assert_eq!(
        findings(&report),
        [
            // istiod is a workload like any other.
            finding(
                "ML207",
                "Deployment/istio-system/istiod",
                "Deployment/istiod",
                "discovery"
            ),
            finding(
                "ML207",
                "Deployment/istio-system/istiod-canary",
                "Deployment/istiod-canary",
                "discovery"
            ),
            // From the template, and again in both ReplicaSets' pods: reported once.
            finding("ML207", "Deployment/shop/web", "Deployment/web", "hello"),
            // Only the pod of the old ReplicaSet shows it: injected before the mesh
            // held apps, it belongs to the Deployment.
            finding(
                "ML101",
                "Pod/shop/web-58f7d9c6b4-h2w8n",
                "Deployment/web",
                "istio-proxy"
            ),
            // `checkout` selects the revision tag `prod`, which names revision canary.
            finding(
                "ML203",
                "Deployment/checkout/orders",
                "Deployment/orders",
                "istio-proxy"
            ),
            finding(
                "ML205",
                "Deployment/checkout/orders",
                "Deployment/orders",
                "-"
            ),
            finding(
                "ML207",
                "Deployment/checkout/orders",
                "Deployment/orders",
                "orders"
            ),
            finding(
                "ML202",
                "Deployment/emojivoto/emoji",
                "Deployment/emoji",
                "linkerd-proxy"
            ),
            finding(
                "ML203",
                "Deployment/emojivoto/emoji",
                "Deployment/emoji",
                "linkerd-proxy"
            ),
            finding(
                "ML207",
                "Deployment/emojivoto/emoji",
                "Deployment/emoji",
                "emoji-svc"
            ),
            finding(
                "ML203",
                "StatefulSet/payments/db",
                "StatefulSet/db",
                "istio-proxy"
            ),
            finding("ML205", "StatefulSet/payments/db", "StatefulSet/db", "-"),
            finding("ML207", "StatefulSet/payments/db", "StatefulSet/db", "db"),
            // The Job's pod runs to completion as its CronJob's pods do: ML301 comes
            // from both the template and the pod, once; the pod alone shows ML101.
            finding(
                "ML301",
                "CronJob/batch/nightly",
                "CronJob/nightly",
                "istio-proxy"
            ),
            finding(
                "ML101",
                "Pod/batch/nightly-29395620-8xk2q",
                "CronJob/nightly",
                "istio-proxy"
            ),
            // A bare pod is itself.
            finding("ML207", "Pod/shop/debug", "Pod/debug", "hello"),
            finding("ML207", "Pod/shop/debug", "Pod/debug", "world"),
        ]
    );
    // ML101 is an error in a Job's pod, one level lower while the pod shows no call out.
    let job_pod = &report["findings"][14];
    assert_eq!(job_pod["severity"], "warning", "{job_pod}");
    assert_eq!(
        job_pod["evidence"]["premises"][0]["kind"], "callsOut",
        "{job_pod}"
    );
    // Owned objects are never linted as themselves, nor reported under their own name.
    for f in report["findings"].as_array().unwrap() {
        let kind = f["workload"]["kind"].as_str().unwrap();
        assert!(kind != "ReplicaSet" && kind != "Job", "{f}");
    }
    assert_eq!(
        report["findings"][3]["source"],
        serde_json::json!({
            "cluster": "fixture-cluster",
            "context": "fixture",
            "namespace": "shop",
            "kind": "Pod",
            "name": "web-58f7d9c6b4-h2w8n"
        })
    );
    // 7 workloads and 4 pods (one per ReplicaSet revision, the Job's, the bare one) were
    // read; the owned pods' analyses are merged into their owners', leaving 8.
    assert_eq!(report["summary"]["files"], 11);
    assert_eq!(report["summary"]["workloads"], 8);
    assert_eq!(report["summary"]["inputErrors"], 0);
}

/// `lint --cluster --format html` is the same page as for files: its overview counts
/// what the JSON report counts, and each workload's section names the object it was
/// read from, as an object (no document number).
#[test]
fn the_html_report_of_a_cluster_counts_what_json_counts() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    let (report, code, _) = cluster.lint_json(&["-A"]);
    let output = cluster.run(&["lint", "--cluster", "-A", "--format", "html"]);
    assert_eq!(output.status.code(), Some(code));
    let page = String::from_utf8(output.stdout).unwrap();
    let summary = &report["summary"];
    for key in ["errors", "warnings", "infos", "workloads", "suppressed"] {
        let marker = format!("data-count=\"{key}\"><b>{}</b>", summary[key]);
        assert!(page.contains(&marker), "{key}: {marker}");
    }
    assert_eq!(
        page.matches("<details").count() as u64,
        summary["workloads"].as_u64().unwrap()
    );
    assert!(
        page.contains("<span class=\"origin\">Deployment/shop/web</span>"),
        "the object, named as such"
    );
    if let Some(at) = page.find("(document ") {
        panic!(
            "objects are not documents: {}",
            &page[at.saturating_sub(200)..at + 40]
        );
    }
    assert!(
        page.contains("objects checked"),
        "the summary counts objects"
    );
}

#[test]
fn a_finding_points_into_the_object_as_kubectl_prints_it() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    let (report, _, _) = cluster.lint_json(&["deploy/web"]);
    let ml207 = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["ruleId"] == "ML207")
        .expect("ML207 on web");
    // kubectl's own rendering of the object: the finding's line holds the container's name.
    let printed =
        std::process::Command::new(common::kubectl_binary().expect("the cluster runs kubectl"))
            .args(["get", "deployment", "web", "-n", "shop", "-o", "json"])
            .env("HOME", cluster.home.path())
            .env("KUBECONFIG", &cluster.kubeconfig)
            .output()
            .unwrap();
    assert!(printed.status.success());
    let text = String::from_utf8(printed.stdout).unwrap();
    let line = text
        .lines()
        .nth(ml207["line"].as_u64().unwrap() as usize - 1)
        .unwrap();
    let column = ml207["column"].as_u64().unwrap() as usize;
    assert_eq!(&line[column - 1..], "\"hello\",", "{line}");
}

#[test]
fn the_environment_is_read_from_the_cluster() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    let output = cluster.run(&["lint", "--cluster", "-A", "--color", "never"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    // The assumptions, a paragraph wrapped to the width.
    let assumed = unwrapped(
        &stdout
            .lines()
            .skip_while(|line| !line.starts_with("Assumed: "))
            .enumerate()
            .take_while(|(index, line)| *index == 0 || line.starts_with(' '))
            .map(|(_, line)| line)
            .collect::<Vec<_>>()
            .join("\n"),
    );
    assert!(!assumed.is_empty(), "an assumptions line in\n{stdout}");
    for expected in [
        // The oldest of the server and the kubelets (istiod's DetectNativeSidecar looks
        // at every node).
        "Kubernetes 1.31 (server v1.32.3, kubelets v1.31.6 to v1.32.3, from the cluster)",
        "Istio 1.24 (istiod image docker.io/istio/pilot:1.24.2, from the cluster)",
        "Istio revision canary: 1.27 (istiod image docker.io/istio/pilot:1.27.1-distroless, from the cluster), ENABLE_NATIVE_SIDECARS true",
        "Istio revision prod: 1.27",
        "mesh-wide holdApplicationUntilProxyStarts true (ConfigMap istio-system/istio, from the cluster)",
        "Linkerd 2.14 (ConfigMap linkerd/linkerd-config, from the cluster)",
        "namespace labels known for 9 namespaces (from the cluster)",
    ] {
        assert!(assumed.contains(expected), "{expected}\nnot in\n{assumed}");
    }
    assert!(
        stdout.contains("(11 objects checked)"),
        "the summary counts objects: {stdout}"
    );
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn the_same_template_offline_rests_on_other_assumptions() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    // The cluster's mesh holds apps until their proxy is ready: the template of web
    // gets no ML101 there, and does when linted as a file under upstream defaults.
    let (report, _, _) = cluster.lint_json(&["deploy/web"]);
    let from_template = |rule: &str| {
        findings(&report)
            .iter()
            .any(|(id, file, _, _)| id == rule && file == "Deployment/shop/web")
    };
    assert!(!from_template("ML101"));
    assert!(from_template("ML207"));
    let printed =
        std::process::Command::new(common::kubectl_binary().expect("the cluster runs kubectl"))
            .args(["get", "deployment", "web", "-n", "shop", "-o", "json"])
            .env("HOME", cluster.home.path())
            .env("KUBECONFIG", &cluster.kubeconfig)
            .output()
            .unwrap();
    // Offline, with the namespace's labels given as the cluster has them, Istio's
    // upstream default (no hold) is assumed.
    let namespace = "{\"apiVersion\": \"v1\", \"kind\": \"Namespace\", \"metadata\": {\"name\": \"shop\", \"labels\": {\"istio-injection\": \"enabled\"}}}\n";
    let file = cluster.home.path().join("web.json");
    let mut text = namespace.as_bytes().to_vec();
    text.extend(b"---\n");
    text.extend(&printed.stdout);
    std::fs::write(&file, text).unwrap();
    let (offline, _) = common::lint_json(&file, &["--no-config"]);
    let rules = common::rule_lines(&offline);
    assert!(rules.iter().any(|(id, _)| id == "ML101"), "{rules:?}");
}

#[test]
fn explain_shows_each_value_from_the_cluster_and_the_revision_a_namespace_selects() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    let output = cluster.run(&["explain", "--cluster", "-n", "payments", "sts/db"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = unwrapped(&String::from_utf8_lossy(&output.stdout));
    for expected in [
        "StatefulSet payments/db · StatefulSet/payments/db",
        "Istio revision canary",
        "namespace labels from Namespace payments, from the cluster",
        "ENABLE_NATIVE_SIDECARS=true from istiod Deployment istio-system/istiod-canary, from the cluster",
        "Kubernetes 1.31 (server v1.32.3, kubelets v1.31.6 to v1.32.3, from the cluster)",
    ] {
        assert!(text.contains(expected), "{expected}\nnot in\n{text}");
    }
    // The default revision, 1.24, injects a classic proxy into `shop`; the running
    // pods of web are drawn as the injector produced them.
    let output = cluster.run(&["explain", "--cluster", "deploy/web", "--format", "json"]);
    let explained: Value = serde_json::from_slice(&output.stdout).unwrap();
    let workloads = explained["workloads"].as_array().unwrap();
    let files: Vec<&str> = workloads
        .iter()
        .map(|w| w["file"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        [
            "Deployment/shop/web",
            "Pod/shop/web-6d5f8c7b9-x7k2p",
            "Pod/shop/web-58f7d9c6b4-h2w8n"
        ]
    );
    let mode = workloads[0]["plan"]["meshes"][0]["mode"].as_str().unwrap();
    assert!(mode.starts_with("classic, held"), "{mode}");
    assert_eq!(workloads[1]["plan"]["meshes"][0]["injection"], "inManifest");
    assert_eq!(explained["profile"]["istioVersion"], "1.24");
}

/// The paths of the requests that read objects (not discovery, not `/version`).
fn object_requests(requests: &[Request]) -> Vec<String> {
    requests
        .iter()
        .map(|request| request.path().to_owned())
        .filter(|path| path.starts_with("/api/") || path.starts_with("/apis/"))
        .collect()
}

#[test]
fn without_a_namespace_the_contexts_is_read_else_default() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    let (report, _, _) = cluster.lint_json(&[]);
    let files: std::collections::BTreeSet<String> =
        findings(&report).into_iter().map(|f| f.1).collect();
    assert_eq!(
        files.into_iter().collect::<Vec<_>>(),
        [
            "Deployment/shop/web",
            "Pod/shop/debug",
            "Pod/shop/web-58f7d9c6b4-h2w8n"
        ]
    );
    let paths = object_requests(&cluster.requests());
    assert!(paths.contains(&"/apis/apps/v1/namespaces/shop/deployments".to_owned()));
    assert!(
        paths.contains(&"/api/v1/namespaces/shop".to_owned()),
        "{paths:?}"
    );
    let Some(cluster) = Cluster::start(Fixture::load("mesh"), None) else {
        return;
    };
    let (report, code, _) = cluster.lint_json(&[]);
    assert_eq!(code, 0);
    assert_eq!(report["summary"]["workloads"], 0);
    let paths = object_requests(&cluster.requests());
    assert!(
        paths.contains(&"/api/v1/namespaces/default/pods".to_owned()),
        "{paths:?}"
    );
    // An empty namespace is no error, as `kubectl get` finds "No resources", but a
    // note that survives --quiet says so; one that does not exist is an error, in
    // kubectl's words.
    let (report, code, stderr) = cluster.lint_json(&["-n", "default", "-q"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr, "note: no workloads found in namespace default\n");
    assert_eq!(
        report["notes"][0]["message"],
        "no workloads found in namespace default"
    );
    // The note is in every format, and --strict fails the gate on it.
    let empty = "no workloads found in namespace default";
    let output = cluster.run(&["lint", "--cluster", "-n", "default", "-o", "sarif"]);
    assert_eq!(output.status.code(), Some(0));
    let sarif: Value = serde_json::from_slice(&output.stdout).unwrap();
    common::validate_sarif(&sarif);
    let invocation = &sarif["runs"][0]["invocations"][0];
    let notification = &invocation["toolExecutionNotifications"][0];
    assert_eq!(notification["level"], "warning", "{invocation}");
    assert!(
        notification["message"]["text"]
            .as_str()
            .unwrap()
            .contains(empty),
        "{invocation}"
    );
    let output = cluster.run(&["lint", "--cluster", "-n", "default", "-o", "github", "-q"]);
    assert_eq!(output.status.code(), Some(0));
    let github = String::from_utf8(output.stdout).unwrap();
    assert!(
        github.lines().any(|line| line.starts_with("::warning ")
            && line.contains("title=not linted::")
            && line.contains(empty)),
        "{github}"
    );
    let output = cluster.run(&["lint", "--cluster", "-n", "default", "-o", "junit"]);
    assert_eq!(output.status.code(), Some(0));
    let junit = String::from_utf8(output.stdout).unwrap();
    roxmltree::Document::parse(&junit).unwrap();
    assert!(
        junit.contains("<skipped") && junit.contains(empty),
        "{junit}"
    );
    let (report, code, stderr) = cluster.lint_json(&["-n", "default", "--strict"]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(report["notes"], serde_json::json!([]));
    let message = report["errors"][0]["message"].as_str().unwrap();
    assert!(
        message.starts_with(empty) && message.contains("--strict"),
        "{message}"
    );
    let (report, code, stderr) = cluster.lint_json(&["-n", "typo"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.starts_with("Error from server (NotFound): namespaces \"typo\" not found\nerror: `kubectl get namespace typo -o json` failed"),
        "{stderr}"
    );
    assert_eq!(report["summary"]["inputErrors"], 1);
    assert!(!stderr.contains("no workloads found"), "{stderr}");
}

#[test]
fn type_name_arguments_are_kubectls() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    for arguments in [
        &["deploy/web"][..],
        &["deployment.apps/web"],
        &["deployments.v1.apps/web"],
        &["Deployment/web"],
        &["deploy", "web"],
    ] {
        let (report, _, stderr) = cluster.lint_json(arguments);
        let workloads: std::collections::BTreeSet<String> =
            findings(&report).into_iter().map(|f| f.2).collect();
        assert_eq!(
            workloads.into_iter().collect::<Vec<_>>(),
            ["Deployment/web"],
            "{arguments:?}: {stderr}"
        );
    }
    let (report, _, _) =
        cluster.lint_json(&["-n", "batch", "cronjob/nightly", "job/nightly-29395620"]);
    let rules: Vec<(String, String)> = findings(&report).into_iter().map(|f| (f.0, f.2)).collect();
    assert!(
        rules.contains(&("ML301".into(), "CronJob/nightly".into())),
        "{rules:?}"
    );
    assert!(
        rules.contains(&("ML301".into(), "Job/nightly-29395620".into())),
        "{rules:?}"
    );
    let paths = object_requests(&cluster.requests());
    assert!(
        paths.contains(&"/apis/batch/v1/namespaces/batch/cronjobs/nightly".to_owned()),
        "{paths:?}"
    );
    // A kind: every CronJob, and nothing else.
    let (report, _, _) = cluster.lint_json(&["-A", "cronjobs"]);
    let workloads: std::collections::BTreeSet<String> =
        findings(&report).into_iter().map(|f| f.2).collect();
    assert_eq!(
        workloads.into_iter().collect::<Vec<_>>(),
        ["CronJob/nightly"]
    );
}

#[test]
fn a_missing_object_is_kubectls_error() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    let (report, code, stderr) = cluster.lint_json(&["deploy/nope", "deploy/web"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("Error from server (NotFound): deployments.apps \"nope\" not found"),
        "{stderr}"
    );
    assert!(!findings(&report).is_empty(), "web is still linted");
    assert_eq!(report["summary"]["inputErrors"], 1);
    assert!(
        report["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("deployments.apps \"nope\" not found")
    );
}

#[test]
fn selectors_go_to_the_api_server() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    let (report, _, _) = cluster.lint_json(&["-A", "-l", "app=hello"]);
    let targets: Vec<String> = cluster.requests().into_iter().map(|r| r.target).collect();
    assert!(
        targets.contains(
            &"/apis/apps/v1/deployments?labelSelector=app%3Dhello&limit=500&timeout=30s".to_owned()
        ),
        "{targets:?}"
    );
    // The Deployment, and the pods that carry the label; the ReplicaSets lack it, so
    // their pods name them from their owner references.
    let found: std::collections::BTreeSet<(String, String)> =
        findings(&report).into_iter().map(|f| (f.1, f.2)).collect();
    assert!(
        found.contains(&("Deployment/shop/web".into(), "Deployment/web".into())),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .all(|(_, workload)| workload != "Deployment/orders")
    );
}

#[test]
fn kubectls_flags_pass_through() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    let output = common::cli()
        .args([
            "lint",
            "--cluster",
            "--format",
            "json",
            "--context",
            "fixture",
        ])
        .arg("--kubeconfig")
        .arg(&cluster.kubeconfig)
        .args(["--as", "jane", "--as-group", "dev", "--as-group", "ops"])
        .env("HOME", cluster.home.path())
        .env("KUBECONFIG", cluster.home.path().join("no-such-kubeconfig"))
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let reads: Vec<Request> = cluster
        .requests()
        .into_iter()
        .filter(|r| r.path().starts_with("/api/") || r.path().starts_with("/apis/"))
        .collect();
    assert!(!reads.is_empty());
    for request in reads {
        assert_eq!(request.user.as_deref(), Some("jane"), "{request:?}");
        assert_eq!(request.groups, ["dev", "ops"], "{request:?}");
    }
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["findings"][0]["source"]["context"], "fixture");
    // kubectl's own words for a context that does not exist, and exit 2.
    let output = cluster.run(&["lint", "--cluster", "--context", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("error: context \"nope\" does not exist\n"),
        "{stderr}"
    );
}

#[test]
fn an_unreachable_cluster_is_kubectls_error_and_exit_2() {
    if common::kubectl_binary().is_none() {
        return;
    }
    // A port nothing listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let home = tempfile::tempdir().unwrap();
    let kubeconfig = home.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: gone\n  cluster: {{server: 'http://127.0.0.1:{port}'}}\ncontexts:\n- name: gone\n  context: {{cluster: gone, user: u}}\ncurrent-context: gone\nusers:\n- name: u\n  user: {{token: t}}\n"
        ),
    )
    .unwrap();
    let run = |format: &str| {
        common::cli()
            .args(["lint", "--cluster", "--format", format])
            .env("HOME", home.path())
            .env("KUBECONFIG", &kubeconfig)
            .output()
            .unwrap()
    };
    let output = run("json");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let refused = format!(
        "The connection to the server 127.0.0.1:{port} was refused - did you specify the right host or port?"
    );
    assert!(
        stderr.starts_with(&refused),
        "kubectl's words first:\n{stderr}"
    );
    assert!(
        stderr.contains("error: `kubectl version -o json` failed; nothing was linted"),
        "{stderr}"
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    common::validate_lint_json(&report);
    assert_eq!(report["errors"][0]["file"], "kubectl version -o json");
    assert_eq!(report["errors"][0]["message"], refused.as_str());
    assert_eq!(report["summary"]["inputErrors"], 1);
    let sarif: Value = serde_json::from_slice(&run("sarif").stdout).unwrap();
    common::validate_sarif(&sarif);
    let invocation = &sarif["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    assert_eq!(
        invocation["toolExecutionNotifications"][0]["message"]["text"],
        format!("kubectl version -o json: {refused}").as_str()
    );
}

#[test]
fn workloads_that_cannot_be_read_are_input_errors_in_kubectls_words() {
    let fixture = Fixture::load("mesh").forbid("list", "pods", Some("shop"));
    let Some(cluster) = Cluster::start(fixture, Some("shop")) else {
        return;
    };
    let (report, code, stderr) = cluster.lint_json(&[]);
    assert_eq!(code, 2);
    let forbidden = "Error from server (Forbidden): pods is forbidden: User \"tester\" cannot list resource \"pods\" in API group \"\" in the namespace \"shop\"";
    assert!(stderr.starts_with(forbidden), "{stderr}");
    assert!(
        stderr.contains("failed; the objects it did print are linted"),
        "{stderr}"
    );
    assert_eq!(report["errors"][0]["message"], forbidden);
    // The Deployment was readable, and is linted.
    assert!(
        findings(&report)
            .iter()
            .any(|f| f.1 == "Deployment/shop/web")
    );
}

#[test]
fn what_the_environment_cannot_read_falls_back_to_the_default_with_a_note() {
    let fixture = Fixture::load("mesh")
        .forbid("list", "nodes", None)
        .forbid("get", "namespaces", None)
        .forbid("get", "configmaps", Some("istio-system"))
        .forbid("list", "deployments", Some("istio-system"))
        .forbid("get", "configmaps", Some("linkerd"))
        .forbid("list", "mutatingwebhookconfigurations", None);
    let Some(cluster) = Cluster::start(fixture, Some("shop")) else {
        return;
    };
    let output = cluster.run(&["lint", "--cluster", "--color", "never"]);
    // Not a failure of the run: the notes say what is assumed instead.
    assert_eq!(output.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&output.stderr);
    for note in [
        "note: cannot read the nodes (Error from server (Forbidden): nodes is forbidden: User \"tester\" cannot list resource \"nodes\" in API group \"\" at the cluster scope): their kubelets are taken to run the server's Kubernetes v1.32.3",
        "note: cannot read namespace shop (Error from server (Forbidden): namespaces \"shop\" is forbidden: User \"tester\" cannot get resource \"namespaces\" in API group \"\" at the cluster scope): its labels are unknown",
        "note: cannot read istiod (Deployments in istio-system: Error from server (Forbidden): deployments.apps is forbidden:",
        "note: cannot read Istio's ConfigMaps in istio-system (Error from server (Forbidden): configmaps \"istio\" is forbidden:",
        "note: cannot read ConfigMap linkerd/linkerd-config (Error from server (Forbidden): configmaps \"linkerd-config\" is forbidden:",
    ] {
        assert!(stderr.contains(note), "{note}\nnot in\n{stderr}");
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(
            "Kubernetes 1.32 (server v1.32.3; the nodes' kubelet versions unread, from the cluster)"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("Istio version unknown"), "{stdout}");
    assert!(stdout.contains("Linkerd version unknown"), "{stdout}");
    // Without its namespace's labels, web's template is not known to be injected; its
    // running pods still show the proxy they were given.
    let (report, code, _) = cluster.lint_json(&[]);
    assert_eq!(code, 0);
    let ml101: Vec<String> = findings(&report)
        .into_iter()
        .filter(|f| f.0 == "ML101")
        .map(|f| f.1)
        .collect();
    assert_eq!(ml101, ["Pod/shop/web-58f7d9c6b4-h2w8n"]);
}

#[test]
fn a_missing_mesh_configmap_means_istios_defaults() {
    let fixture = Fixture::load("mesh")
        .without(|object| object["kind"] != "ConfigMap" || object["metadata"]["name"] != "istio");
    let Some(cluster) = Cluster::start(fixture, Some("shop")) else {
        return;
    };
    let (report, _, stderr) = cluster.lint_json(&["deploy/web"]);
    assert!(
        stderr.contains("note: ConfigMap istio-system/istio not found: Istio's upstream mesh defaults are assumed for revision default"),
        "{stderr}"
    );
    // No mesh-wide hold now: the template itself starts its app before the proxy.
    assert!(
        findings(&report).contains(&finding(
            "ML101",
            "Deployment/shop/web",
            "Deployment/web",
            "istio-proxy"
        )),
        "{:?}",
        findings(&report)
    );
}

#[test]
fn without_kubectl_the_run_says_so() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    let output = common::cli()
        .args(["lint", "--cluster"])
        .env("HOME", cluster.home.path())
        .env("KUBECONFIG", &cluster.kubeconfig)
        .env("KUBECTL", cluster.home.path().join("no-kubectl-here"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr
            .contains("not found: --cluster reads the cluster with kubectl, from PATH or $KUBECTL"),
        "{stderr}"
    );
    assert!(cluster.requests().is_empty());
}

/// `fixture` with `copies` more namespaces, each holding a copy of web: a Deployment,
/// its ReplicaSet and three pods.
fn grown(fixture: Fixture, copies: usize) -> Fixture {
    let find = |kind: &str, name: &str| {
        fixture
            .objects
            .iter()
            .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
            .unwrap()
            .clone()
    };
    let deployment = find("Deployment", "web");
    let replicaset = find("ReplicaSet", "web-6d5f8c7b9");
    let pod = find("Pod", "web-6d5f8c7b9-x7k2p");
    let namespace = find("Namespace", "shop");
    let mut objects = fixture.objects.clone();
    for copy in 0..copies {
        let ns = format!("team-{copy}");
        let place = |object: &Value, suffix: &str| {
            let mut object = object.clone();
            object["metadata"]["namespace"] = Value::from(ns.as_str());
            object["metadata"]["uid"] = Value::from(format!("{ns}-{suffix}"));
            object
        };
        let mut n = place(&namespace, "ns");
        n["metadata"]["name"] = Value::from(ns.as_str());
        n["metadata"].as_object_mut().unwrap().remove("namespace");
        objects.push(n);
        objects.push(place(&deployment, "deploy"));
        let mut rs = place(&replicaset, "rs");
        rs["metadata"]["ownerReferences"][0]["uid"] = Value::from(format!("{ns}-deploy"));
        objects.push(rs);
        for index in 0..3 {
            let mut p = place(&pod, &format!("pod-{index}"));
            p["metadata"]["name"] = Value::from(format!("web-6d5f8c7b9-{index}"));
            p["metadata"]["ownerReferences"][0]["uid"] = Value::from(format!("{ns}-rs"));
            objects.push(p);
        }
    }
    Fixture { objects, ..fixture }
}

#[cfg(unix)]
#[test]
fn a_run_makes_the_same_calls_however_much_the_cluster_holds() {
    let mut counts = Vec::new();
    for copies in [0, 60] {
        let Some(cluster) = Cluster::start(grown(Fixture::load("mesh"), copies), Some("shop"))
        else {
            return;
        };
        let (report, calls) = cluster.logged(&["-A"]);
        assert_eq!(
            report["summary"]["files"],
            11 + 2 * copies,
            "one pod per ReplicaSet"
        );
        let requests = cluster.requests();
        let mut paths = object_requests(&requests);
        paths.sort();
        counts.push((calls.len(), requests.len(), paths));
    }
    let (calls, requests, paths) = &counts[0];
    assert_eq!(
        *calls,
        3 + 5 + 8 + 1,
        "version, context, resources; 5 reads of the environment and one page of each of the 8 kinds, side by side; ConfigMaps"
    );
    assert_eq!(counts[1].0, *calls, "kubectl calls");
    assert_eq!(counts[1].1, *requests, "HTTP requests");
    assert_eq!(counts[1].2, *paths);
    // What -A reads: lists, never one workload at a time.
    let expected = [
        "/api/v1/namespaces",
        "/api/v1/namespaces/istio-system/configmaps/istio",
        "/api/v1/namespaces/istio-system/configmaps/istio-canary",
        "/api/v1/namespaces/istio-system/configmaps/istio-sidecar-injector",
        "/api/v1/namespaces/istio-system/configmaps/istio-sidecar-injector-canary",
        "/api/v1/namespaces/linkerd/configmaps/linkerd-config",
        "/api/v1/nodes",
        "/api/v1/pods",
        "/api/v1/replicationcontrollers",
        "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
        "/apis/apps/v1/daemonsets",
        "/apis/apps/v1/deployments",
        "/apis/apps/v1/namespaces/istio-system/deployments",
        "/apis/apps/v1/replicasets",
        "/apis/apps/v1/statefulsets",
        "/apis/batch/v1/cronjobs",
        "/apis/batch/v1/jobs",
    ];
    assert_eq!(paths, &expected);
}

/// What the plugin run with `args` (a shell word list) writes to a terminal, through
/// util-linux `script`. Every Linux has it, so there it must work; elsewhere (BSD
/// `script` takes other flags) the check is skipped.
fn on_a_terminal(cluster: &Cluster, kubeconfig: &std::path::Path, args: &str) -> Option<String> {
    if !cfg!(target_os = "linux") {
        common::tools::unavailable(
            "script",
            "util-linux `script` runs the plugin on a terminal on Linux only",
        );
        return None;
    }
    let script = common::tools::program("script")?;
    let binary = assert_cmd::cargo::cargo_bin("kubectl-mesh_lifecycle");
    let output = std::process::Command::new(script)
        .arg("-qec")
        .arg(format!("{} {args}", binary.display()))
        .arg("/dev/null")
        .env("HOME", cluster.home.path())
        .env("KUBECONFIG", kubeconfig)
        .env("COLUMNS", "200")
        .output()
        .expect("util-linux `script` gives the plugin a terminal");
    Some(String::from_utf8_lossy(&output.stdout).into_owned())
}

#[test]
fn the_progress_line_is_for_terminals_only() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    let output = cluster.run(&["lint", "--cluster", "-A", "--format", "json"]);
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let Some(terminal) = on_a_terminal(
        &cluster,
        &cluster.kubeconfig,
        "lint --cluster -A --format json --output-file /dev/null",
    ) else {
        return;
    };
    for step in [
        "kubectl mesh-lifecycle: connecting (kubectl version)…",
        "kubectl mesh-lifecycle: reading workloads and pods in all namespaces, and the environment…",
        "kubectl mesh-lifecycle: reading Istio's ConfigMaps…",
    ] {
        assert!(terminal.contains(step), "{step:?} not in {terminal:?}");
    }
    assert!(
        terminal.ends_with("\r\x1b[2K"),
        "the line is cleared: {terminal:?}"
    );
}

#[test]
fn paths_and_cluster_do_not_mix() {
    for (args, expected) in [
        (
            &["lint", "--cluster", "testdata/rules"][..],
            "`testdata/rules` is a path, and paths and --cluster do not mix",
        ),
        (
            &["lint", "--cluster", "-"],
            "paths and --cluster do not mix",
        ),
        (
            &["lint", "--cluster", "svc/web"],
            "`svc/web`: `svc` is not a workload type kubectl mesh-lifecycle reads",
        ),
        (
            &["lint", "--cluster", "-A", "deploy/web"],
            "a resource cannot be retrieved by name across all namespaces",
        ),
        (
            &["lint", "--cluster", "-l", "app=web", "deploy/web"],
            "name cannot be provided when a selector is specified",
        ),
        (&["lint", "-n", "shop", "testdata/rules"], "--cluster"),
        (&["explain", "-A"], "--cluster"),
    ] {
        let output = common::cli()
            .current_dir(common::root())
            .args(args)
            .env("KUBECTL", "/nonexistent/kubectl")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("/nonexistent"),
            "{args:?}: kubectl was not run"
        );
    }
}

#[test]
fn offline_lint_never_contacts_the_cluster() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    for args in [
        &["lint", "testdata/rules"][..],
        &[
            "explain",
            "testdata/rules/ml201-fire-prestop-plus-drain.yaml",
        ],
    ] {
        let output = common::cli()
            .current_dir(common::root())
            .args(args)
            .env("HOME", cluster.home.path())
            .env("KUBECONFIG", &cluster.kubeconfig)
            .output()
            .unwrap();
        assert!(output.status.code().is_some());
    }
    assert_eq!(
        cluster.requests(),
        [],
        "the kubeconfig's server is never asked"
    );
}

#[test]
fn sarif_names_cluster_objects_by_logical_location() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    let output = cluster.run(&["lint", "--cluster", "--format", "sarif"]);
    let log: Value = serde_json::from_slice(&output.stdout).unwrap();
    common::validate_sarif(&log);
    let results = log["runs"][0]["results"].as_array().unwrap();
    let from_pod = results
        .iter()
        .find(|r| {
            r["properties"]["source"]["kind"] == "Pod"
                && r["properties"]["source"]["name"] == "web-58f7d9c6b4-h2w8n"
        })
        .expect("the old pod's finding");
    let location = &from_pod["locations"][0];
    assert!(
        location.get("physicalLocation").is_none(),
        "no file to point at"
    );
    let names: Vec<&str> = location["logicalLocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["fullyQualifiedName"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "fixture-cluster/shop/Pod/web-58f7d9c6b4-h2w8n",
            "fixture-cluster/shop/Deployment/web"
        ]
    );
    assert_eq!(from_pod["properties"]["source"]["context"], "fixture");
}

#[test]
fn github_annotations_of_cluster_objects_name_no_file() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    // An object's name is no path of the checkout: GitHub would attach the annotation
    // to whatever file it named.
    let output = cluster.run(&["lint", "--cluster", "--format", "github"]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let annotations: Vec<&str> = stdout
        .lines()
        .filter(|line| line.starts_with("::") && line.contains(" title=ML"))
        .collect();
    assert_eq!(annotations.len(), 4, "{stdout}");
    for annotation in &annotations {
        assert!(!annotation.contains("file="), "{annotation}");
    }
    // Each names its object, and the place in it, in its message.
    assert!(
        annotations
            .iter()
            .any(|annotation| annotation.contains("::Pod/shop/web-58f7d9c6b4-h2w8n:189:25: ")),
        "{stdout}"
    );
}

#[test]
fn the_first_calls_messages_reach_a_terminal_as_kubectl_writes_them() {
    // kubectl prints the API server's warnings on standard error, as it prints what a
    // credential plugin asks the user while the first call authenticates.
    let mut fixture = Fixture::load("mesh");
    fixture.version_warning = Some("this control plane is being upgraded".into());
    let Some(cluster) = Cluster::start(fixture, Some("shop")) else {
        return;
    };
    let warning = "Warning: this control plane is being upgraded";
    // Off a terminal, a successful call's messages are kubectl's business.
    let (report, _, stderr) = cluster.lint_json(&[]);
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(report["summary"]["inputErrors"], 0);
    let Some(terminal) = on_a_terminal(
        &cluster,
        &cluster.kubeconfig,
        "lint --cluster --format json --output-file /dev/null",
    ) else {
        return;
    };
    // From the first call only, on a line of its own: the progress line is cleared first.
    assert_eq!(terminal.matches(warning).count(), 1, "{terminal:?}");
    assert!(
        terminal.contains(&format!("\r\x1b[2K{warning}")),
        "{terminal:?}"
    );
}

#[test]
fn objects_are_read_within_the_read_limits() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    // web's Deployment, as kubectl prints it, is larger than 2 KiB: kubectl is
    // stopped once it has printed that much.
    let (report, code, stderr) = cluster.lint_json(&["deploy/web", "--max-input-size", "2KiB"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        findings(&report).is_empty(),
        "nothing was read past the limit"
    );
    let errors = report["errors"].as_array().unwrap();
    assert!(
        errors
            .iter()
            .any(|e| e["file"] == "kubectl get deployments.apps/web -n shop -o json"),
        "{errors:?}"
    );
    assert!(
        stderr.contains(
            "kubectl was stopped: it printed more than 2 KiB (--max-input-size raises the limit)"
        ),
        "{stderr}"
    );
    // An object larger than the document limit, within the input limit: an input
    // error naming the object and its flag.
    let (report, code, stderr) = cluster.lint_json(&["deploy/web", "--max-document-size", "1KiB"]);
    assert_eq!(code, 2, "{stderr}");
    let errors = report["errors"].as_array().unwrap();
    assert!(
        errors.iter().any(|e| e["file"] == "Deployment/shop/web"
            && e["message"]
                .as_str()
                .unwrap()
                .contains("--max-document-size")),
        "{errors:?}"
    );
    // The same objects within the default limits.
    let (report, code, stderr) = cluster.lint_json(&["deploy/web"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(report["summary"]["inputErrors"], 0);
    assert!(!findings(&report).is_empty());
}

#[test]
fn the_report_file_and_the_flags_of_file_inputs() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    // A cluster run has no input file to protect, but the config file is one.
    let config = cluster.home.path().join("mesh-lifecycle.yaml");
    std::fs::write(&config, "scenario:\n  proxyStartup: 3s\n").unwrap();
    let output = cluster.run(&[
        "lint",
        "--cluster",
        "--config",
        config.to_str().unwrap(),
        "--output-file",
        config.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("would overwrite it"), "{stderr}");
    assert!(cluster.requests().is_empty(), "refused before kubectl ran");
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        "scenario:\n  proxyStartup: 3s\n"
    );
    let report = cluster.home.path().join("report.json");
    let output = cluster.run(&[
        "lint",
        "--cluster",
        "deploy/web",
        "--format",
        "json",
        "--output-file",
        report.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0));
    let written: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(written["findings"][0]["file"], "Deployment/shop/web");
    // What names standard input or searches directories has nothing to do with a cluster.
    for flag in [
        &["--stdin-filename", "web.yaml"][..],
        &["--exclude", "charts/"],
        &["--no-ignore"],
    ] {
        let mut args = vec!["lint", "--cluster"];
        args.extend(flag);
        let output = cluster.run(&args);
        assert_eq!(output.status.code(), Some(2), "{flag:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!("'--cluster' cannot be used with '{}", flag[0])),
            "{stderr}"
        );
    }
}

#[test]
fn what_is_wrong_in_the_clusters_mesh_config_is_an_input_error_at_its_place() {
    let mut fixture = Fixture::load("mesh");
    for object in &mut fixture.objects {
        if object["kind"] == "ConfigMap" && object["metadata"]["name"] == "istio" {
            let mesh = object["data"]["mesh"].as_str().unwrap().replace(
                "  holdApplicationUntilProxyStarts: true\n",
                "  holdApplicationUntilProxyStarts: true\n  terminationDrainDurationn: 5s\n",
            );
            object["data"]["mesh"] = Value::from(mesh);
        }
    }
    let Some(cluster) = Cluster::start(fixture, Some("shop")) else {
        return;
    };
    let (report, code, stderr) = cluster.lint_json(&["deploy/web"]);
    assert_eq!(code, 2, "{stderr}");
    let errors = report["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["file"], "ConfigMap/istio-system/istio");
    let message = errors[0]["message"].as_str().unwrap();
    assert!(
        message.contains("unknown ProxyConfig field `terminationDrainDurationn`")
            && message.contains("did you mean `terminationDrainDuration`?"),
        "{message}"
    );
    assert!(stderr.contains("ConfigMap/istio-system/istio"), "{stderr}");
    // The run goes on without the `defaultConfig` in error, as with the same ConfigMap
    // among the files linted: web's template loses the mesh-wide hold, and gets ML101.
    assert!(
        findings(&report)
            .iter()
            .any(|(id, file, _, _)| id == "ML101" && file == "Deployment/shop/web"),
        "{:?}",
        findings(&report)
    );
    // SARIF names the object, which is no file.
    let output = cluster.run(&["lint", "--cluster", "deploy/web", "--format", "sarif"]);
    let log: Value = serde_json::from_slice(&output.stdout).unwrap();
    common::validate_sarif(&log);
    let notification = &log["runs"][0]["invocations"][0]["toolExecutionNotifications"][0];
    let location = &notification["locations"][0];
    assert!(location.get("physicalLocation").is_none(), "{notification}");
    assert_eq!(
        location["logicalLocations"][0]["fullyQualifiedName"],
        "fixture-cluster/istio-system/ConfigMap/istio"
    );
}

/// The recorded cluster with the CRDs of Argo, Knative, KEDA and OpenKruise installed,
/// and a kind of the user's own (`testdata/cluster/crds`).
fn with_crds() -> Option<Cluster> {
    Cluster::start(Fixture::load("mesh").with("crds"), Some("apps"))
}

#[test]
fn crd_workloads_are_read_where_the_cluster_serves_them_and_own_their_pods() {
    let Some(cluster) = with_crds() else {
        return;
    };
    let config = declare_webapp(&cluster);
    let (report, code, stderr) = cluster.lint_json(&["--config", &config]);
    assert_eq!(code, 1, "{stderr}");
    common::validate_lint_json(&report);
    assert_eq!(
        findings(&report),
        [
            // The Deployment a Rollout refers to, scaled down but still there.
            finding("ML207", "Deployment/apps/api", "Deployment/api", "api"),
            // The template, and its two pods (pod → ReplicaSet → Rollout): once.
            finding("ML207", "Rollout/apps/web", "Rollout/web", "web"),
            // `spec.workloadRef`: the Deployment's template, read from the cluster.
            finding("ML207", "Rollout/apps/api", "Rollout/api", "api"),
            // pod → Workflow: the template the pod runs (`ARGO_TEMPLATE`); Argo stops
            // its sidecar, so no ML301, but it was injected without the hold.
            finding("ML101", "Pod/apps/etl", "Workflow/etl/build", "istio-proxy"),
            // pod → ReplicaSet → Deployment → Revision → Configuration → Service: the
            // Service's template, as Knative builds its pod, says what its pod says.
            finding(
                "ML202",
                "Service/apps/hello",
                "Service/hello",
                "istio-proxy"
            ),
            // pod → Job → ScaledJob; the pod alone was injected without the hold.
            finding(
                "ML301",
                "ScaledJob/apps/worker",
                "ScaledJob/worker",
                "istio-proxy"
            ),
            finding(
                "ML101",
                "Pod/apps/worker-r7x2m-5hq8z",
                "ScaledJob/worker",
                "istio-proxy"
            ),
            finding("ML207", "CloneSet/apps/cache", "CloneSet/cache", "cache"),
            // A kind of `workloadKinds`, and its pod.
            finding("ML207", "WebApp/apps/portal", "WebApp/portal", "portal"),
        ]
    );
    // Neither Knative's Configuration, Revision and Deployment, nor the ReplicaSets and
    // the Job, are linted again: eight workloads, and one pod per revision of each
    // (of the Rollout's two pods and the CloneSet's two, one).
    assert_eq!(report["summary"]["workloads"], 8, "{}", report["summary"]);
    assert_eq!(report["summary"]["files"], 14);
    let source = &report["findings"][1]["source"];
    assert_eq!(source["kind"], "Rollout");
    assert_eq!(source["namespace"], "apps");
}

/// Writes a config declaring the recorded cluster's own kind, `WebApp`.
fn declare_webapp(cluster: &Cluster) -> String {
    let config = cluster.home.path().join(".mesh-lifecycle.yaml");
    std::fs::write(
        &config,
        "workloadKinds:\n- apiVersion: platform.example.com/v1\n  kind: WebApp\n  podTemplate: spec.runtime.template\n",
    )
    .unwrap();
    config.to_string_lossy().into_owned()
}

#[cfg(unix)]
#[test]
fn each_kind_served_is_listed_page_by_page() {
    let Some(cluster) = with_crds() else {
        return;
    };
    let config = declare_webapp(&cluster);
    let (report, calls) = cluster.logged(&["-A", "--config", &config]);
    assert!(report["summary"]["workloads"].as_u64().unwrap() > 8);
    // One page of each kind served, Kubernetes' own and the custom ones (the first
    // pages side by side, so in no set order).
    let mut listings: Vec<&str> = calls
        .iter()
        .filter_map(|call| call.split_once(" get --raw ").map(|(_, path)| path))
        .collect();
    listings.sort();
    let mut expected = vec![
        "/apis/platform.example.com/v1/webapps?limit=500",
        "/apis/serving.knative.dev/v1/services?limit=500",
        "/apis/serving.knative.dev/v1/configurations?limit=500",
        "/apis/serving.knative.dev/v1/revisions?limit=500",
        "/apis/argoproj.io/v1alpha1/cronworkflows?limit=500",
        "/apis/argoproj.io/v1alpha1/workflows?limit=500",
        "/apis/argoproj.io/v1alpha1/workflowtemplates?limit=500",
        "/apis/argoproj.io/v1alpha1/clusterworkflowtemplates?limit=500",
        "/apis/batch/v1/cronjobs?limit=500",
        "/apis/argoproj.io/v1alpha1/rollouts?limit=500",
        "/apis/keda.sh/v1alpha1/scaledjobs?limit=500",
        "/apis/apps/v1/deployments?limit=500",
        "/apis/apps.kruise.io/v1alpha1/clonesets?limit=500",
        "/apis/apps.kruise.io/v1beta1/statefulsets?limit=500",
        "/apis/apps.kruise.io/v1alpha1/daemonsets?limit=500",
        "/apis/apps.kruise.io/v1alpha1/broadcastjobs?limit=500",
        "/apis/apps/v1/statefulsets?limit=500",
        "/apis/apps/v1/daemonsets?limit=500",
        "/api/v1/replicationcontrollers?limit=500",
        "/apis/apps/v1/replicasets?limit=500",
        "/apis/batch/v1/jobs?limit=500",
        "/api/v1/pods?limit=500",
    ];
    expected.sort();
    assert_eq!(listings, expected, "{calls:#?}");
    // Version, context, resources; five reads of the environment; the listings; the
    // ConfigMaps.
    assert_eq!(calls.len(), 3 + 5 + listings.len() + 1, "{calls:#?}");
}

#[test]
fn without_the_crds_their_kinds_are_not_asked_for() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    let (_, code, _) = cluster.lint_json(&["-A"]);
    assert_eq!(code, 1);
    let paths = object_requests(&cluster.requests());
    assert!(
        !paths.iter().any(|path| {
            ["argoproj.io", "knative.dev", "keda.sh", "kruise.io"]
                .iter()
                .any(|group| path.contains(group))
        }),
        "{paths:?}"
    );
    // Asked for by name, the kind is kubectl's to refuse.
    let (report, code, stderr) = cluster.lint_json(&["ro/web"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("the server doesn't have a resource type \"rollouts\""),
        "{stderr}"
    );
    assert_eq!(report["summary"]["inputErrors"], 1);
}

#[test]
fn type_name_arguments_take_the_crds_names() {
    let Some(cluster) = with_crds() else {
        return;
    };
    let config = declare_webapp(&cluster);
    for (arguments, workload) in [
        (&["ro/web"][..], "Rollout/web"),
        (&["rollout/web"], "Rollout/web"),
        (&["rollouts.argoproj.io/web"], "Rollout/web"),
        (&["ksvc/hello"], "Service/hello"),
        (&["kservice", "hello"], "Service/hello"),
        (&["sj/worker"], "ScaledJob/worker"),
        (&["clone/cache"], "CloneSet/cache"),
        (&["wf/etl"], "Workflow/etl/build"),
        (&["wa/portal"], "WebApp/portal"),
        (&["webapp/portal"], "WebApp/portal"),
    ] {
        let mut args = vec!["--config", &config];
        args.extend(arguments);
        let (report, _, stderr) = cluster.lint_json(&args);
        let workloads: std::collections::BTreeSet<String> =
            findings(&report).into_iter().map(|f| f.2).collect();
        assert_eq!(
            workloads.into_iter().collect::<Vec<_>>(),
            [workload],
            "{arguments:?}: {stderr}"
        );
    }
    // A TYPE that names neither a built-in kind nor a declared one the server serves.
    let (report, code, stderr) = cluster.lint_json(&["--config", &config, "svc/web"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("`svc` is not a workload type kubectl mesh-lifecycle reads"),
        "{stderr}"
    );
    assert!(findings(&report).is_empty());
    // A kind: every Rollout and nothing else.
    let (report, _, _) = cluster.lint_json(&["-A", "rollouts"]);
    let workloads: std::collections::BTreeSet<String> =
        findings(&report).into_iter().map(|f| f.2).collect();
    assert_eq!(workloads.into_iter().collect::<Vec<_>>(), ["Rollout/web"]);
}

#[test]
fn a_crd_the_user_may_not_list_is_left_out_with_a_note() {
    let fixture = Fixture::load("mesh")
        .with("crds")
        .forbid("list", "rollouts", Some("apps"));
    let Some(cluster) = Cluster::start(fixture, Some("apps")) else {
        return;
    };
    let (report, code, stderr) = cluster.lint_json(&[]);
    // Not an input error: what could be listed is linted.
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(report["summary"]["inputErrors"], 0);
    let note = "cannot list rollouts.argoproj.io (Error from server (Forbidden): rollouts.argoproj.io is forbidden: User \"tester\" cannot list resource \"rollouts\" in API group \"argoproj.io\" in the namespace \"apps\"): no Rollout is linted";
    assert!(stderr.contains(&format!("note: {note}")), "{stderr}");
    // In every format: a note of JSON, naming the call.
    assert_eq!(
        report["notes"][0]["file"],
        "kubectl get --raw '/apis/argoproj.io/v1alpha1/namespaces/apps/rollouts?limit=500'"
    );
    assert!(
        report["notes"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with(note)
    );
    // --strict makes it fail the run, as an input error.
    let (report, code, stderr) = cluster.lint_json(&["--strict"]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(report["notes"], serde_json::json!([]));
    assert!(
        report["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("--strict")
    );
    let found = findings(&report);
    // The Rollout's ReplicaSet, whose owner could not be read, speaks for it.
    assert!(
        found.contains(&finding(
            "ML207",
            "ReplicaSet/apps/web-7c9d8f6b5",
            "ReplicaSet/web-7c9d8f6b5",
            "web"
        )),
        "{found:?}"
    );
    assert!(found.iter().any(|f| f.2 == "Service/hello"));
}

#[test]
fn explain_draws_the_knative_pod_with_queue_proxy() {
    let Some(cluster) = with_crds() else {
        return;
    };
    let output = cluster.run(&["explain", "--cluster", "--format", "json", "ksvc/hello"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let explained: Value = serde_json::from_slice(&output.stdout).unwrap();
    let names = |index: usize| -> Vec<String> {
        explained["workloads"][index]["plan"]["containers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_owned())
            .collect()
    };
    // The Service's template as Knative builds its pod, and the running pod: the same
    // containers.
    assert_eq!(explained["workloads"][0]["file"], "Service/apps/hello");
    let pod = (0..explained["workloads"].as_array().unwrap().len())
        .find(|&i| {
            explained["workloads"][i]["file"]
                .as_str()
                .is_some_and(|file| file.starts_with("Pod/apps/hello-00001"))
        })
        .expect("the Service's pod");
    let (mut template, mut running) = (names(0), names(pod));
    template.sort();
    running.sort();
    assert_eq!(
        template,
        ["istio-init", "istio-proxy", "queue-proxy", "user-container"]
    );
    assert_eq!(running, template);
}

// Hostile clusters: a gate must end, within its bounds, with exit 2 and the call that
// failed named, whatever the API server or kubectl does.

/// The errors of a report, as `(file, message)`.
fn errors(report: &Value) -> Vec<(String, String)> {
    report["errors"]
        .as_array()
        .expect("errors is an array")
        .iter()
        .map(|e| {
            (
                e["file"].as_str().unwrap().to_owned(),
                e["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The one error of a report about the call that lists `path`.
fn error_of_call(report: &Value, path: &str) -> String {
    let found: Vec<(String, String)> = errors(report)
        .into_iter()
        .filter(|(file, _)| file.starts_with(&format!("kubectl get --raw '{path}?")))
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one error for {path}: {:#?}",
        errors(report)
    );
    found[0].1.clone()
}

#[test]
fn a_list_that_never_answers_ends_at_the_request_timeout() {
    let fixture = Fixture::load("mesh").hostile("/api/v1/namespaces/shop/pods", Hostile::Stall);
    let Some(cluster) = Cluster::start(fixture, Some("shop")) else {
        return;
    };
    // Long enough for the other calls on a loaded machine.
    let (report, code, stderr) = cluster.lint_json(&["--request-timeout", "5s"]);
    assert_eq!(code, 2, "{stderr}");
    let message = error_of_call(&report, "/api/v1/namespaces/shop/pods");
    // kubectl's own words for its timeout.
    assert!(
        message.contains("Timeout")
            || message.contains("deadline")
            || message.contains("timed out"),
        "{message}"
    );
    // Never "no workloads": the workloads that could be read are linted.
    assert!(
        findings(&report)
            .iter()
            .any(|f| f.1 == "Deployment/shop/web"),
        "{report}"
    );
    assert!(!stderr.contains("no workloads found"), "{stderr}");
}

#[cfg(unix)]
#[test]
fn a_kubectl_that_outlives_its_timeout_is_stopped_with_what_it_started() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    // The listing of pods hangs in a child of the stand-in, which ignores its timeout.
    let pid = cluster.home.path().join("child.pid");
    let script = format!(
        "case \"$*\" in *--raw*/pods*) sleep 600 & echo $! > '{}'; wait; exit 0;; esac",
        pid.display()
    );
    let started = std::time::Instant::now();
    let (report, code, stderr) = cluster.through(&script, &["--request-timeout", "3s"]);
    assert_eq!(code, 2, "{stderr}");
    let message = error_of_call(&report, "/api/v1/namespaces/shop/pods");
    assert_eq!(
        message,
        "kubectl was stopped after running twice its request timeout (--request-timeout 3s) without finishing"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    // Its whole process group was stopped: the `sleep` is gone too.
    let child = std::fs::read_to_string(&pid).unwrap();
    let proc = std::path::Path::new("/proc").join(child.trim());
    if std::path::Path::new("/proc/self").exists() {
        let gone = (0..50).any(|_| {
            let status = std::fs::read_to_string(proc.join("status")).unwrap_or_default();
            let dead = status.is_empty() || status.contains("State:\tZ");
            if !dead {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            dead
        });
        assert!(gone, "the stand-in's child {} still runs", child.trim());
    }
}

#[test]
fn the_whole_read_has_a_deadline() {
    let fixture = Fixture::load("mesh").hostile("/api/v1/namespaces/shop/pods", Hostile::Stall);
    let Some(cluster) = Cluster::start(fixture, Some("shop")) else {
        return;
    };
    // No request timeout at all: the deadline of the read still ends it.
    let (report, code, stderr) =
        cluster.lint_json(&["--request-timeout", "0", "--cluster-timeout", "8s"]);
    assert_eq!(code, 2, "{stderr}");
    let message = error_of_call(&report, "/api/v1/namespaces/shop/pods");
    assert_eq!(
        message,
        "kubectl was stopped: the cluster read ran out of time (--cluster-timeout 8s)"
    );
}

#[test]
fn endless_output_is_read_to_the_input_limit_and_no_further() {
    let fixture = Fixture::load("mesh").hostile(
        "/apis/apps/v1/namespaces/shop/replicasets",
        Hostile::Endless,
    );
    let Some(cluster) = Cluster::start(fixture, Some("shop")) else {
        return;
    };
    let (report, code, stderr) = cluster.lint_json(&["--max-input-size", "1MiB"]);
    assert_eq!(code, 2, "{stderr}");
    let message = error_of_call(&report, "/apis/apps/v1/namespaces/shop/replicasets");
    assert_eq!(
        message,
        "kubectl was stopped: it printed more than 1 MiB (--max-input-size raises the limit)"
    );
    assert!(
        findings(&report)
            .iter()
            .any(|f| f.1 == "Deployment/shop/web"),
        "the rest is linted: {report}"
    );
}

#[test]
fn a_body_that_is_not_json_is_an_error_naming_the_call() {
    let fixture = Fixture::load("mesh").hostile(
        "/apis/apps/v1/namespaces/shop/deployments",
        Hostile::Garbage,
    );
    let Some(cluster) = Cluster::start(fixture, Some("shop")) else {
        return;
    };
    let (report, code, stderr) = cluster.lint_json(&[]);
    assert_eq!(code, 2, "{stderr}");
    let message = error_of_call(&report, "/apis/apps/v1/namespaces/shop/deployments");
    assert!(
        message.starts_with("kubectl printed something that is not JSON"),
        "{message}"
    );
    // The pods are still read and linted, as themselves now.
    assert!(
        findings(&report)
            .iter()
            .any(|f| f.1.starts_with("Pod/shop/")),
        "{report}"
    );
}

#[cfg(unix)]
#[test]
fn a_kubectl_killed_or_failing_without_a_word_is_an_error() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    for (script, expected) in [
        (
            "case \"$*\" in *--raw*/pods*) kill -9 $$;; esac",
            "kubectl was killed by signal 9 (SIGKILL: out of memory, or killed by a supervisor)",
        ),
        (
            "case \"$*\" in *--raw*/pods*) exit 1;; esac",
            "kubectl exited with status 1 without saying why",
        ),
        (
            "case \"$*\" in *--raw*/pods*) printf 'Error from server: \\033]0;owned\\007\\033[2J' >&2; exit 1;; esac",
            "Error from server: \u{1b}]0;owned\u{7}\u{1b}[2J",
        ),
    ] {
        let (report, code, stderr) = cluster.through(script, &[]);
        assert_eq!(code, 2, "{script}: {stderr}");
        let message = error_of_call(&report, "/api/v1/namespaces/shop/pods");
        assert_eq!(message, expected, "{script}");
        assert!(!stderr.contains("no workloads found"), "{stderr}");
        // What kubectl said reaches the terminal with its control characters shown.
        assert!(!stderr.contains('\u{1b}'), "{stderr:?}");
        if expected.contains("owned") {
            assert!(
                stderr.contains("Error from server: \\x1b]0;owned\\x07\\x1b[2J"),
                "{stderr:?}"
            );
        }
    }
}

#[test]
fn pages_are_read_one_after_the_other_with_the_same_result() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    let (whole, code, stderr) = cluster.lint_json(&["-A"]);
    assert_eq!(code, 1, "{stderr}");
    let (paged, code, stderr) = cluster.lint_json(&["-A", "--chunk-size", "2"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(findings(&paged), findings(&whole));
    assert_eq!(paged["summary"], whole["summary"]);
    let targets: Vec<String> = cluster.requests().into_iter().map(|r| r.target).collect();
    assert!(
        targets
            .iter()
            .any(|t| t.starts_with("/api/v1/pods?continue=2&limit=2")),
        "{targets:?}"
    );
}
#[test]
fn diff_compares_what_is_deployed_with_the_files_that_would_replace_it() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    // `shop/web` as deployed, with a preStop that outlives a shorter grace period: the
    // file names no namespace, so it replaces the object in the context's namespace.
    let workloads: Value = serde_json::from_str(
        &std::fs::read_to_string(common::testdata("cluster/mesh/workloads.json")).unwrap(),
    )
    .unwrap();
    let mut web = workloads["items"][0].clone();
    assert_eq!(web["metadata"]["name"], "web");
    web["metadata"] = serde_json::json!({"name": "web"});
    web.as_object_mut().unwrap().remove("status");
    let pod = &mut web["spec"]["template"]["spec"];
    pod["terminationGracePeriodSeconds"] = Value::from(5);
    pod["containers"][0]["lifecycle"] =
        serde_json::json!({"preStop": {"exec": {"command": ["sleep", "10"]}}});
    let file = cluster.home.path().join("web.json");
    std::fs::write(&file, serde_json::to_string_pretty(&web).unwrap()).unwrap();
    let output = cluster.run(&[
        "diff",
        "--cluster",
        "--format",
        "json",
        file.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    assert_eq!(
        output.status.code(),
        Some(1),
        "an error is added: {report:#}\n{stderr}"
    );
    // Only the workload the file replaces is compared: the cluster's others are not
    // going away.
    let workloads = report["workloads"].as_array().unwrap();
    assert_eq!(workloads.len(), 1, "{report:#}");
    assert_eq!(workloads[0]["workload"]["name"], "web");
    assert_eq!(workloads[0]["status"], "changed");
    let added: Vec<(&str, &str)> = workloads[0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["change"] == "added")
        .map(|f| {
            (
                f["after"]["ruleId"].as_str().unwrap(),
                f["after"]["container"].as_str().unwrap_or("-"),
            )
        })
        .collect();
    assert!(added.contains(&("ML206", "hello")), "{added:?}");
    assert!(
        report["before"]["label"]
            .as_str()
            .unwrap()
            .starts_with("deployed ("),
        "{report:#}"
    );
    // Both sides run in the cluster's environment: no assumption tells them apart.
    assert_eq!(report["before"]["assumptions"], serde_json::json!([]));
    assert_eq!(report["after"]["assumptions"], serde_json::json!([]));
}

#[test]
fn a_kubernetes_newer_than_the_model_is_checked_as_the_newest_with_a_note() {
    let mut fixture = Fixture::load("mesh");
    fixture.version["minor"] = Value::from("37");
    fixture.version["gitVersion"] = Value::from("v1.37.0");
    for object in &mut fixture.objects {
        if object["kind"] == "Node" {
            object["status"]["nodeInfo"]["kubeletVersion"] = Value::from("v1.37.0");
        }
    }
    let Some(cluster) = Cluster::start(fixture, Some("shop")) else {
        return;
    };
    let (report, _, stderr) = cluster.lint_json(&[]);
    let notes: Vec<&str> = report["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["message"].as_str().unwrap())
        .collect();
    assert!(
        notes.iter().any(|n| n.starts_with("Kubernetes 1.37 (") && n.ends_with("is newer than the releases the linter models: it is checked as Kubernetes 1.36, the newest it knows")),
        "{notes:#?}\n{stderr}"
    );
    assert!(stderr.contains("note: Kubernetes 1.37"), "{stderr}");
    // The same findings as the newest modelled release, given as a flag.
    let (newest, _, _) = cluster.lint_json(&["--kubernetes-version", "1.36"]);
    assert_eq!(findings(&report), findings(&newest));
    // Offline, the same version given as a flag is taken the same way.
    let (offline, _) = common::lint_json(
        &common::testdata(ISTIO_HELLO),
        &["--no-config", "--kubernetes-version", "1.37"],
    );
    let (offline_newest, _) = common::lint_json(
        &common::testdata(ISTIO_HELLO),
        &["--no-config", "--kubernetes-version", "1.36"],
    );
    assert_eq!(offline["findings"], offline_newest["findings"]);
    assert_eq!(offline["notes"][0]["file"], "--kubernetes-version");
}

/// An Istio workload before injection.
const ISTIO_HELLO: &str = "diff/istio-classic.yaml";

/// `--fix` on objects read from a cluster: nothing is written anywhere (there is no file
/// to write back to), the fixes are shown as a diff of each object as kubectl printed
/// it, and the status is that of the findings as they stand in the cluster.
#[test]
fn fix_on_cluster_objects_prints_the_diff_and_writes_nothing() {
    let Some(cluster) = Cluster::mesh() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let output = cluster
        .command()
        .current_dir(work.path())
        .args([
            "lint",
            "--cluster",
            "-A",
            "--fix",
            "--unsafe-fixes",
            "--select",
            "ML207",
            "--fail-on",
            "info",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The findings as they stand in the cluster decide the status.
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("(0 fixed, 8 remaining)"), "{stdout}");
    // Another `--fix` would not make them either: the summary says where they go.
    let shown = stderr.matches("+++ b/").count();
    assert!(shown > 0, "{stderr}");
    assert!(!stdout.contains("fixable with `--fix`"), "{stdout}");
    let fixable = stdout
        .lines()
        .find_map(|line| {
            line.strip_prefix("[*] ")?
                .strip_suffix(" fixable in the manifests the objects come from: objects read from a cluster are not written back, so the fixes are shown as a diff.")
        })
        .unwrap_or_else(|| panic!("no line for the fixes shown:\n{stdout}"));
    let fixable: usize = fixable.parse().unwrap();
    assert!(
        fixable >= shown,
        "{fixable} fixes for {shown} objects\n{stdout}"
    );
    assert!(
        stderr.contains(
            "note: Deployment/istio-system/istiod: not written back, it was read from the cluster"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("+++ b/Deployment/istio-system/istiod\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains(r#"+                        "terminationMessagePolicy": "File", "lifecycle": {"preStop": {"sleep": {"seconds": 10}}}"#),
        "{stderr}"
    );
    // ML207's delay on a Linkerd pod goes with the proxy's own wait, as for a file.
    assert!(
        stderr.contains(
            r#"}, "annotations": {"config.alpha.linkerd.io/proxy-wait-before-exit-seconds": "20"}"#
        ),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_dir(work.path()).unwrap().count(),
        0,
        "nothing is written"
    );
}
