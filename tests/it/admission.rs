//! `serve --admission`: the webhook answers real AdmissionReviews over TLS on loopback,
//! from a client in the test that trusts a certificate authority made for the run.
//! The reviews (`testdata/admission/`) are pods as the API server sends them after the
//! mesh's injector ran (Istio, Linkerd), a Job whose proxy never exits, a clean
//! Deployment, and a Deployment in a namespace the profile labels for injection.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::{Value, json};

use crate::common;

/// A certificate authority and a server certificate for `localhost` and 127.0.0.1,
/// made for the run, in a temporary directory.
struct Pki {
    dir: tempfile::TempDir,
    ca: CertificateDer<'static>,
    issuer: rcgen::Issuer<'static, rcgen::KeyPair>,
}

impl Pki {
    fn new() -> Pki {
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "mesh-lifecycle test CA");
        let key = rcgen::KeyPair::generate().unwrap();
        let ca = params.self_signed(&key).unwrap();
        let pki = Pki {
            dir: tempfile::tempdir().unwrap(),
            ca: ca.der().clone(),
            issuer: rcgen::Issuer::new(params, key),
        };
        pki.issue("first");
        pki
    }

    /// Writes a new server certificate and key, named `name`; returns its DER.
    fn issue(&self, name: &str) -> Vec<u8> {
        let mut params =
            rcgen::CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
                .unwrap();
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, name);
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        // Written beside, then moved in place, as the kubelet swaps a Secret's files.
        for (file, text) in [("tls.key", key.serialize_pem()), ("tls.crt", cert.pem())] {
            let staged = self.dir.path().join(format!("{file}.new"));
            std::fs::write(&staged, text).unwrap();
            std::fs::rename(&staged, self.dir.path().join(file)).unwrap();
        }
        cert.der().to_vec()
    }

    fn cert(&self) -> PathBuf {
        self.dir.path().join("tls.crt")
    }

    fn key(&self) -> PathBuf {
        self.dir.path().join("tls.key")
    }

    fn client(&self) -> Arc<rustls::ClientConfig> {
        let mut roots = rustls::RootCertStore::empty();
        roots.add(self.ca.clone()).unwrap();
        // The server's provider (src/admission/tls.rs says why ring).
        #[allow(deprecated)]
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        // Every connection a full handshake, which shows the certificate served now.
        config.resumption = rustls::client::Resumption::disabled();
        Arc::new(config)
    }
}

/// A running server, stopped when dropped.
struct Server {
    child: Child,
    address: SocketAddr,
    client: Arc<rustls::ClientConfig>,
    _config: Option<(tempfile::TempDir, PathBuf)>,
}

/// The profile the server is given: Istio 1.24, and `shop` labelled for injection.
/// The cluster's profile; its gate counts every possible loss in full, as an admission
/// gate that denies on findings is set to.
const PROFILE: &str = "assumedLosses: full\nistio:\n  version: '1.24'\nnamespaces:\n  shop:\n    labels: {istio-injection: enabled}\n  quiet:\n    labels: {mesh-lifecycle.io/admission: disabled}\n";

impl Server {
    fn start(pki: &Pki, flags: &[&str]) -> Server {
        let config = common::config_file(PROFILE);
        let binary = assert_cmd::cargo::cargo_bin("kubectl-mesh_lifecycle");
        let mut child = Command::new(binary)
            .args(["serve", "--admission", "--listen", "127.0.0.1:0"])
            .arg("--tls-cert")
            .arg(pki.cert())
            .arg("--tls-key")
            .arg(pki.key())
            .arg("--config")
            .arg(&config.1)
            .args(flags)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let stderr = child.stderr.take().unwrap();
        let mut lines = BufReader::new(stderr).lines();
        let address = loop {
            let line = lines
                .next()
                .expect("the server prints its address before it ends")
                .unwrap();
            if let Some(rest) = line.split("https://").nth(1) {
                break rest.trim_end_matches("/validate").parse().unwrap();
            }
        };
        // The rest of the log is drained, so that the server never blocks on it, and
        // shown with a failing test's output.
        std::thread::spawn(move || {
            lines
                .map_while(Result::ok)
                .for_each(|line| eprintln!("server: {line}"))
        });
        Server {
            child,
            address,
            client: pki.client(),
            _config: Some(config),
        }
    }

    /// A TLS connection to the server.
    fn connect(&self) -> rustls::StreamOwned<rustls::ClientConnection, TcpStream> {
        let tcp = TcpStream::connect(self.address).unwrap();
        tcp.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let name = ServerName::try_from("localhost").unwrap();
        let connection = rustls::ClientConnection::new(self.client.clone(), name).unwrap();
        rustls::StreamOwned::new(connection, tcp)
    }

    /// Sends `head` (request line and headers, without the blank line) and `body`;
    /// returns the status and the body of the answer.
    fn request(&self, head: &str, body: &[u8]) -> (u16, Vec<u8>) {
        let mut stream = self.connect();
        let mut request =
            format!("{head}\r\nHost: localhost\r\nConnection: close\r\n\r\n").into_bytes();
        request.extend_from_slice(body);
        // The server may answer and close before a refused body is all sent.
        let _ = stream.write_all(&request);
        let _ = stream.flush();
        response(&mut stream)
    }

    fn post(&self, body: &[u8]) -> (u16, Vec<u8>) {
        self.request(
            &format!(
                "POST /validate HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: {}",
                body.len()
            ),
            body,
        )
    }

    fn get(&self, path: &str) -> (u16, String) {
        let (status, body) = self.request(&format!("GET {path} HTTP/1.1"), b"");
        (status, String::from_utf8(body).unwrap())
    }

    /// Posts the review in `testdata/admission/NAME`; returns its answer's `response`.
    fn review(&self, name: &str) -> Value {
        let body = std::fs::read(common::testdata("admission").join(name)).unwrap();
        let (status, answer) = self.post(&body);
        assert_eq!(status, 200, "{name}: {}", String::from_utf8_lossy(&answer));
        let answer: Value = serde_json::from_slice(&answer).unwrap();
        assert_eq!(answer["apiVersion"], "admission.k8s.io/v1");
        assert_eq!(answer["kind"], "AdmissionReview");
        let sent: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            answer["response"]["uid"], sent["request"]["uid"],
            "{name}: the uid comes back"
        );
        answer["response"].clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads an HTTP/1.1 answer to its end: the status, and the body (by Content-Length,
/// else to the close).
fn response(stream: &mut impl Read) -> (u16, Vec<u8>) {
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let split = raw
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP answer: {:?}", String::from_utf8_lossy(&raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let mut body = raw[split + 4..].to_vec();
    if let Some(length) = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse::<usize>().ok())?
    }) {
        body.truncate(length);
    }
    (status, body)
}

fn warnings(response: &Value) -> Vec<String> {
    response["warnings"]
        .as_array()
        .map(|all| all.iter().map(|w| w.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default()
}

/// The findings `lint --format json` reports for the object of a review, under the
/// server's profile, at or above `at_least`: `(ruleId, severity, message)`, worst
/// first, as the server's warnings must word them.
fn lint_findings(name: &str, at_least: &str) -> Vec<String> {
    let review: Value =
        serde_json::from_slice(&std::fs::read(common::testdata("admission").join(name)).unwrap())
            .unwrap();
    let object = serde_json::to_vec(&review["request"]["object"]).unwrap();
    let (_dir, config) = common::config_file(PROFILE);
    let output = common::cli()
        .args(["lint", "--format", "json", "--config"])
        .arg(&config)
        .arg("-")
        .write_stdin(object)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let rank = |severity: &str| {
        ["info", "warning", "error"]
            .iter()
            .position(|s| *s == severity)
            .unwrap()
    };
    let mut found: Vec<(usize, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| rank(f["severity"].as_str().unwrap()) >= rank(at_least))
        .map(|f| {
            let severity = f["severity"].as_str().unwrap();
            let message = f["message"]
                .as_str()
                .unwrap()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            (
                rank(severity),
                format!("{} {severity}: {message}", f["ruleId"].as_str().unwrap()),
            )
        })
        .collect();
    found.sort_by_key(|(rank, _)| std::cmp::Reverse(*rank));
    found.into_iter().map(|(_, line)| line).collect()
}

/// The warnings a server must give: `lint`'s findings, each cut to 256 characters.
fn assert_same_as_lint(response: &Value, name: &str, at_least: &str) {
    let expected = lint_findings(name, at_least);
    let got = warnings(response);
    assert_eq!(
        got.len(),
        expected.len(),
        "{name}: {got:#?}\nlint: {expected:#?}"
    );
    for (warning, line) in got.iter().zip(&expected) {
        assert!(
            warning.chars().count() <= 256,
            "{name}: too long: {warning}"
        );
        let kept = warning.trim_end_matches('…');
        assert!(
            line.starts_with(kept),
            "{name}: {warning:?} is not lint's {line:?}"
        );
    }
}

#[test]
fn reviews_over_tls_carry_the_findings_of_lint_as_warnings() {
    let pki = Pki::new();
    let server = Server::start(&pki, &["--warn-on", "info"]);

    let istio = server.review("pod-istio.json");
    assert_eq!(istio["allowed"], true);
    let lines = warnings(&istio);
    assert!(
        lines[0]
            .starts_with("ML101 warning: app container `hello` starts at 0 s but `istio-proxy`"),
        "{lines:#?}"
    );
    assert!(
        lines.iter().any(|line| line.starts_with("ML207 info: ")),
        "{lines:#?}"
    );
    assert_eq!(istio["auditAnnotations"]["rules"], "ML101,ML207");
    assert_same_as_lint(&istio, "pod-istio.json", "info");

    let linkerd = server.review("pod-linkerd.json");
    assert_eq!(linkerd["allowed"], true, "warn mode denies nothing");
    assert!(
        warnings(&linkerd)[0].starts_with("ML202 error: `linkerd-proxy` refuses new connections"),
        "{linkerd:#}"
    );
    assert_same_as_lint(&linkerd, "pod-linkerd.json", "info");

    let job = server.review("job-istio.json");
    assert_eq!(job["allowed"], true);
    let ids: Vec<String> = warnings(&job).iter().map(|w| w[..5].to_owned()).collect();
    assert_eq!(ids, ["ML101", "ML301"]);
    assert!(
        warnings(&job)[1].contains("the Job never completes"),
        "{job:#}"
    );
    assert_same_as_lint(&job, "job-istio.json", "info");

    let clean = server.review("deployment-clean.json");
    assert_eq!(clean["allowed"], true);
    assert_eq!(clean.get("warnings"), None, "{clean:#}");
    assert_eq!(clean.get("auditAnnotations"), None, "{clean:#}");

    // A dry run, in a namespace the profile labels for injection: the template is
    // linted as the injector will run it, and answered as any other review.
    let shop = server.review("deployment-shop.json");
    assert!(
        warnings(&shop)[0].starts_with("ML101 warning: app container `web`"),
        "{shop:#}"
    );
    assert_same_as_lint(&shop, "deployment-shop.json", "info");
}

#[test]
fn warn_on_leaves_out_the_findings_below_it() {
    let pki = Pki::new();
    let server = Server::start(&pki, &[]);
    let istio = server.review("pod-istio.json");
    let lines = warnings(&istio);
    assert_eq!(
        lines.len(),
        1,
        "the default shows warnings and errors: {lines:#?}"
    );
    assert!(lines[0].starts_with("ML101 warning: "));
    assert_same_as_lint(&istio, "pod-istio.json", "warning");
}

#[test]
fn deny_on_denies_with_the_findings_as_the_reason() {
    let pki = Pki::new();
    let server = Server::start(&pki, &["--deny-on", "error"]);
    let linkerd = server.review("pod-linkerd.json");
    assert_eq!(linkerd["allowed"], false);
    assert_eq!(linkerd["status"]["code"], 403);
    let message = linkerd["status"]["message"].as_str().unwrap();
    assert!(
        message.contains("ML202 error: `linkerd-proxy` refuses"),
        "{message}"
    );
    assert!(
        !message.contains("ML203"),
        "a warning does not deny: {message}"
    );
    assert!(!warnings(&linkerd).is_empty(), "the warnings stay");
    // Only a warning: admitted, with it.
    let istio = server.review("pod-istio.json");
    assert_eq!(istio["allowed"], true);
    assert_eq!(warnings(&istio).len(), 1);
    // A namespace that opts out by label is not linted.
    let mut quiet: Value = serde_json::from_slice(
        &std::fs::read(common::testdata("admission/pod-linkerd.json")).unwrap(),
    )
    .unwrap();
    quiet["request"]["namespace"] = json!("quiet");
    let (status, answer) = server.post(&serde_json::to_vec(&quiet).unwrap());
    assert_eq!(status, 200);
    let answer: Value = serde_json::from_slice(&answer).unwrap();
    assert_eq!(answer["response"]["allowed"], true, "{answer:#}");
    assert_eq!(answer["response"].get("warnings"), None, "{answer:#}");
}

#[test]
fn hostile_bodies_are_all_answered() {
    let pki = Pki::new();
    let server = Server::start(&pki, &["--max-review-size", "1MiB"]);
    let review = std::fs::read(common::testdata("admission/pod-linkerd.json")).unwrap();
    let is_error_review = |status: u16, body: &[u8], expected: u16, says: &str| {
        assert_eq!(status, expected, "{}", String::from_utf8_lossy(body));
        let answer: Value = serde_json::from_slice(body)
            .unwrap_or_else(|error| panic!("{error}: {}", String::from_utf8_lossy(body)));
        assert_eq!(answer["kind"], "AdmissionReview");
        let message = answer["response"]["status"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{message}");
    };
    // Cut in the middle of the JSON.
    let (status, body) = server.post(&review[..review.len() / 2]);
    is_error_review(status, &body, 400, "not an AdmissionReview");
    // Shorter than it says: the client stops writing before the end.
    let mut stream = server.connect();
    let head = format!(
        "POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Length: {}\r\n\r\n",
        review.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(&review[..100]).unwrap();
    stream.conn.send_close_notify();
    let _ = stream.flush();
    let (status, body) = response(&mut stream);
    is_error_review(status, &body, 400, "could not be read");
    // 100 MB declared: refused before a byte of it is read.
    let (status, body) = server.request(
        "POST /validate HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 100000000",
        b"{",
    );
    is_error_review(status, &body, 413, "larger than 1048576 bytes");
    // 100 MB sent in chunks, with no length: refused at the limit.
    let mut stream = server.connect();
    stream
        .write_all(
            b"POST /validate HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n",
        )
        .unwrap();
    let chunk = vec![b' '; 1 << 20];
    for _ in 0..100 {
        let mut framed = format!("{:x}\r\n", chunk.len()).into_bytes();
        framed.extend_from_slice(&chunk);
        framed.extend_from_slice(b"\r\n");
        if stream.write_all(&framed).is_err() {
            break;
        }
    }
    // The server answers once the limit is passed and closes the connection with the
    // rest unread, which TCP may turn into a reset that loses the answer: either is
    // a refusal, and the server goes on answering (below).
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    if !raw.is_empty() {
        let (status, body) = response(&mut raw.as_slice());
        is_error_review(status, &body, 413, "larger than");
    }
    // Not UTF-8.
    let (status, body) = server.post(&[0xff, 0xfe, b'{', 0x80, b'}']);
    is_error_review(status, &body, 400, "not an AdmissionReview");
    // Empty.
    let (status, body) = server.post(b"");
    is_error_review(status, &body, 400, "not an AdmissionReview");
    // The wrong kind: a Pod, not a review.
    let pod: Value = serde_json::from_slice(&review).unwrap();
    let (status, body) = server.post(&serde_json::to_vec(&pod["request"]["object"]).unwrap());
    is_error_review(status, &body, 400, "expected kind AdmissionReview");
    // A review of another version.
    let mut old = pod.clone();
    old["apiVersion"] = json!("admission.k8s.io/v1beta1");
    let (status, body) = server.post(&serde_json::to_vec(&old).unwrap());
    is_error_review(status, &body, 400, "admission.k8s.io/v1beta1");
    // A review without a request.
    let (status, body) =
        server.post(br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}"#);
    is_error_review(status, &body, 400, "no request");
    // A request whose object is not a Kubernetes object: allowed, no words.
    let mut odd = pod.clone();
    odd["request"]["object"] =
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}, "spec": "not a spec"});
    let (status, body) = server.post(&serde_json::to_vec(&odd).unwrap());
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    // Other paths and methods.
    assert_eq!(server.get("/validate").0, 405);
    assert_eq!(server.get("/").0, 404);
    // After all that, the server still answers, and counted it.
    let (status, healthz) = server.get("/healthz");
    assert_eq!((status, healthz.as_str()), (200, "ok\n"));
    assert_eq!(server.get("/readyz").0, 200);
    let linkerd = server.review("pod-linkerd.json");
    assert_eq!(linkerd["allowed"], true);
    let (status, metrics) = server.get("/metrics");
    assert_eq!(status, 200);
    for expected in [
        "mesh_lifecycle_admission_reviews_total{kind=\"Pod\",verdict=\"warned\"} 1",
        "mesh_lifecycle_admission_reviews_total{kind=\"unknown\",verdict=\"invalid\"}",
        "mesh_lifecycle_admission_findings_total{rule=\"ML202\",severity=\"error\"} 1",
        "mesh_lifecycle_admission_review_duration_seconds_bucket",
    ] {
        assert!(metrics.contains(expected), "{expected} not in\n{metrics}");
    }
}

#[test]
fn a_review_past_its_time_is_admitted_with_a_warning() {
    let pki = Pki::new();
    let server = Server::start(&pki, &["--review-timeout", "20ms"]);
    // A meshed pod of 3,000 small containers takes far longer than 20 ms to lint, and
    // its review arrives well within them.
    let mut review: Value = serde_json::from_slice(
        &std::fs::read(common::testdata("admission/pod-linkerd.json")).unwrap(),
    )
    .unwrap();
    let spec = &mut review["request"]["object"]["spec"];
    let mut containers = spec["containers"].as_array().unwrap().clone();
    containers
        .extend((0..3000).map(|index| json!({"name": format!("app-{index}"), "image": "app"})));
    spec["containers"] = json!(containers);
    let started = Instant::now();
    let (status, body) = server.post(&serde_json::to_vec(&review).unwrap());
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let answer: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(answer["response"]["allowed"], true);
    assert_eq!(answer["response"]["uid"], review["request"]["uid"]);
    let lines = warnings(&answer["response"]);
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert!(
        lines[0].contains("not checked, the review took longer than 20 ms"),
        "{lines:#?}"
    );
}

#[test]
fn a_renewed_certificate_is_served_without_a_restart() {
    let pki = Pki::new();
    let server = Server::start(&pki, &["--tls-reload-interval", "100ms"]);
    let served = |server: &Server| {
        let mut stream = server.connect();
        stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            .unwrap();
        let _ = response(&mut stream);
        stream.conn.peer_certificates().unwrap()[0].to_vec()
    };
    let before = served(&server);
    let renewed = pki.issue("second");
    assert_ne!(before, renewed);
    let deadline = Instant::now() + Duration::from_secs(10);
    while served(&server) != renewed {
        assert!(
            Instant::now() < deadline,
            "the renewed certificate was not served within 10 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // A broken renewal keeps the pair in use.
    std::fs::write(pki.cert(), "not a certificate").unwrap();
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(served(&server), renewed);
}

#[test]
fn the_webhook_refuses_to_start_on_a_missing_key_or_a_long_timeout() {
    let pki = Pki::new();
    let missing = pki.dir.path().join("absent.key");
    common::cli()
        .args([
            "serve",
            "--admission",
            "--listen",
            "127.0.0.1:0",
            "--no-config",
        ])
        .arg("--tls-cert")
        .arg(pki.cert())
        .arg("--tls-key")
        .arg(&missing)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("absent.key"));
    common::cli()
        .args([
            "serve",
            "--admission",
            "--no-config",
            "--review-timeout",
            "12s",
        ])
        .arg("--tls-cert")
        .arg(pki.cert())
        .arg("--tls-key")
        .arg(pki.key())
        .assert()
        .code(2)
        .stderr(predicates::str::contains("at most 9 s"));
}

/// The deployment manifests read as kubectl reads them.
#[test]
fn the_deployment_manifests_are_read_by_kubectl() {
    let Some(kubectl) = common::tools::program("kubectl") else {
        return;
    };
    let dir = common::root().join("deploy/admission");
    let output = Command::new(kubectl)
        .args(["label", "--local", "-o", "json", "checked=yes", "-f"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // One object after another, each as kubectl read it.
    let read: Vec<Value> = serde_json::Deserializer::from_slice(&output.stdout)
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(
        read.iter()
            .all(|object| object["metadata"]["labels"]["checked"] == "yes")
    );
    let kinds: Vec<&str> = read
        .iter()
        .map(|item| item["kind"].as_str().unwrap())
        .collect();
    for kind in [
        "Deployment",
        "Service",
        "ValidatingWebhookConfiguration",
        "Certificate",
        "Issuer",
    ] {
        assert!(kinds.contains(&kind), "{kind} not in {kinds:?}");
    }
    let webhook = read
        .iter()
        .find(|item| item["kind"] == "ValidatingWebhookConfiguration")
        .unwrap();
    for hook in webhook["webhooks"].as_array().unwrap() {
        assert_eq!(hook["admissionReviewVersions"], json!(["v1"]));
        assert_eq!(hook["sideEffects"], "None");
        assert_eq!(hook["failurePolicy"], "Ignore");
        assert!(hook["timeoutSeconds"].as_u64().unwrap() <= 5);
        assert!(!hook["matchConditions"].as_array().unwrap().is_empty());
    }
    // The server's own deployment lints clean.
    let (report, status) = common::lint_json(&dir, &["--no-config"]);
    assert_eq!(status, 0, "{report:#}");
}
