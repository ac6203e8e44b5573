//! A stand-in for a Kubernetes API server, for running the real kubectl against it: a
//! plain HTTP server on 127.0.0.1 (an ephemeral port), started by a test and stopped
//! when the test drops it, that answers what kubectl 1.32 asks with recorded JSON in
//! the shape a real API server gives.
//!
//! What kubectl asks, found by logging its requests (`kubectl -v=6` shows the same):
//!
//! * `GET /version` for `kubectl version`.
//! * `GET /api` and `GET /apis` with `Accept: application/json;g=apidiscovery.k8s.io;
//!   v=v2;as=APIGroupDiscoveryList,…` before any `get`: aggregated discovery, v2 from
//!   API servers 1.30 on, v2beta1 before (client-go `discovery_client.go`,
//!   `downloadLegacy`, `downloadAPIs`). Answered in the first version the client
//!   accepts, kubectl learns every resource from these two and asks for nothing else
//!   (no `/api/v1`, no `/openapi`). kubectl caches them under `$HOME/.kube/cache`, so
//!   each test gives it its own `HOME`.
//! * `GET /version?timeout=5s` before each command when `kubectl` is the Google Cloud
//!   SDK's dispatcher, which then runs the `kubectl.1.N` closest to the server's
//!   version: a fixture's `version.json` picks the kubectl too.
//! * Lists, `GET /apis/apps/v1/namespaces/shop/deployments?limit=500`, with
//!   `labelSelector` for `-l`; a real server leaves `kind` and `apiVersion` out of
//!   the items, and kubectl puts them back. `-A` lists `/apis/apps/v1/deployments`.
//! * Single objects, `GET /api/v1/namespaces/istio-system/configmaps/istio`; after a
//!   404 kubectl also gets the namespace, to say whether that is what is missing.
//!
//! Failures are `Status` objects as the API server writes them (apimachinery
//! `NewNotFound`, `NewForbidden`; apiserver `forbiddenMessage`). Lists are paged as
//! the API server pages them: `limit` items, and a `continue` token in the list's
//! metadata while more remain (here, the offset of the next item).
//!
//! For the hostile cases a fixture may make a path misbehave ([`Hostile`]): never
//! answer, answer forever, or answer with something that is not JSON.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use serde_json::{Value, json};

/// One request kubectl made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The path and query, as sent.
    pub target: String,
    /// `Impersonate-User` (`kubectl --as`).
    pub user: Option<String>,
    /// `Impersonate-Group` headers (`kubectl --as-group`).
    pub groups: Vec<String>,
}

impl Request {
    /// The path without the query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }
}

/// A request the server refuses as RBAC would: `verb` on `resource` (its plural),
/// in `namespace` or at the cluster scope.
#[derive(Clone, Debug)]
pub struct Forbidden {
    /// `get` or `list`.
    pub verb: &'static str,
    /// `nodes`, `configmaps`…
    pub resource: &'static str,
    /// `None`: in every namespace and at the cluster scope.
    pub namespace: Option<&'static str>,
}

/// How a path misbehaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hostile {
    /// The request is read and never answered; the connection stays open.
    Stall,
    /// A list whose body never ends.
    Endless,
    /// A 200 answer whose body is not JSON.
    Garbage,
}

/// What the server holds.
#[derive(Clone, Debug)]
pub struct Fixture {
    /// Paths (without the query) that misbehave, and how.
    pub hostile: Vec<(String, Hostile)>,
    /// The objects, each as the API server stores it (with `kind` and `apiVersion`).
    pub objects: Vec<Value>,
    /// What `/version` answers.
    pub version: Value,
    /// Requests refused with 403.
    pub forbidden: Vec<Forbidden>,
    /// A warning `/version` sends in a `Warning` header, which kubectl prints on
    /// standard error (as the API server sends deprecation warnings).
    pub version_warning: Option<String>,
    /// The API groups served beyond Kubernetes' own (those of installed CRDs), as
    /// aggregated discovery lists them under `/apis`.
    pub groups: Vec<Value>,
}

impl Fixture {
    /// The objects of `testdata/cluster/<scenario>/*.json` (an object or a `List` per
    /// file), with the version in its `version.json` and the API groups of its
    /// `discovery.json`, if any.
    pub fn load(scenario: &str) -> Fixture {
        let (objects, version, groups) = Fixture::read(scenario);
        Fixture {
            hostile: Vec::new(),
            objects,
            version: version.expect("a version.json in the scenario"),
            forbidden: Vec::new(),
            version_warning: None,
            groups,
        }
    }

    /// The same with the objects and API groups of `scenario` too.
    pub fn with(mut self, scenario: &str) -> Fixture {
        let (objects, _, groups) = Fixture::read(scenario);
        self.objects.extend(objects);
        self.groups.extend(groups);
        self
    }

    fn read(scenario: &str) -> (Vec<Value>, Option<Value>, Vec<Value>) {
        let dir = super::testdata("cluster").join(scenario);
        let mut objects = Vec::new();
        let mut version = None;
        let mut groups = Vec::new();
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|e| e == "json"))
            .collect();
        paths.sort();
        for path in paths {
            let value: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
                .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
            if path.file_name().is_some_and(|name| name == "version.json") {
                version = Some(value);
            } else if path
                .file_name()
                .is_some_and(|name| name == "discovery.json")
            {
                groups.extend(value["items"].as_array().cloned().unwrap_or_default());
            } else if let Some(items) = value.get("items").and_then(Value::as_array) {
                objects.extend(items.iter().cloned());
            } else {
                objects.push(value);
            }
        }
        (objects, version, groups)
    }

    /// The same, refusing `verb` on `resource` in `namespace` (or everywhere).
    pub fn forbid(
        mut self,
        verb: &'static str,
        resource: &'static str,
        namespace: Option<&'static str>,
    ) -> Fixture {
        self.forbidden.push(Forbidden {
            verb,
            resource,
            namespace,
        });
        self
    }

    /// The same, with requests for `path` answered as `how` says.
    pub fn hostile(mut self, path: &str, how: Hostile) -> Fixture {
        self.hostile.push((path.to_owned(), how));
        self
    }

    /// The same without the objects `keep` says no to.
    pub fn without(mut self, keep: impl Fn(&Value) -> bool) -> Fixture {
        self.objects.retain(|object| keep(object));
        self
    }
}

/// A resource as discovery lists it.
#[derive(Clone, Debug)]
struct Resource {
    group: String,
    version: String,
    plural: String,
    kind: String,
    namespaced: bool,
}

/// The running server; dropping it stops it.
pub struct ApiServer {
    address: SocketAddr,
    log: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

struct State {
    fixture: Fixture,
    resources: Vec<Resource>,
    discovery: BTreeMap<&'static str, String>,
}

/// The versions of aggregated discovery served, newest first: v2 (GA in 1.30), and
/// v2beta1, which older kubectls ask for.
const DISCOVERY_VERSIONS: [&str; 2] = ["v2", "v2beta1"];

impl ApiServer {
    /// Serves `fixture` on 127.0.0.1, on a port the system picks.
    pub fn start(fixture: Fixture) -> ApiServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let address = listener.local_addr().unwrap();
        let discovery: BTreeMap<&'static str, String> =
            [("/api", "api.json"), ("/apis", "apis.json")]
                .into_iter()
                .map(|(path, file)| {
                    let text =
                        std::fs::read_to_string(super::testdata("cluster/discovery").join(file))
                            .unwrap();
                    if path != "/apis" || fixture.groups.is_empty() {
                        return (path, text);
                    }
                    // The groups of installed CRDs follow Kubernetes' own, as the
                    // aggregator lists them.
                    let mut document: Value = serde_json::from_str(&text).unwrap();
                    document["items"]
                        .as_array_mut()
                        .unwrap()
                        .extend(fixture.groups.iter().cloned());
                    (path, document.to_string())
                })
                .collect();
        let resources = discovery
            .values()
            .flat_map(|text| resources(&serde_json::from_str(text).unwrap()))
            .collect();
        let state = Arc::new(State {
            fixture,
            resources,
            discovery,
        });
        let log = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (log, stop) = (Arc::clone(&log), Arc::clone(&stop));
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let (state, log) = (Arc::clone(&state), Arc::clone(&log));
                    let stop = Arc::clone(&stop);
                    std::thread::spawn(move || serve(stream, &state, &log, &stop));
                }
            })
        };
        ApiServer {
            address,
            log,
            stop,
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Every request so far, in the order they arrived.
    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }

    /// Writes a kubeconfig for this server into `dir`: context `fixture` on cluster
    /// `fixture-cluster`, with `namespace` as the context's namespace. (kubectl sends no
    /// credentials to an `http://` server, client-go `getUserIdentificationPartialConfig`
    /// being for TLS only, so the user's token is never seen.)
    pub fn kubeconfig(&self, dir: &Path, namespace: Option<&str>) -> PathBuf {
        let path = dir.join("kubeconfig");
        let namespace = namespace.map_or(String::new(), |ns| format!(", namespace: {ns}"));
        std::fs::write(
            &path,
            format!(
                "apiVersion: v1\nkind: Config\nclusters:\n- name: fixture-cluster\n  cluster:\n    server: {}\ncontexts:\n- name: fixture\n  context: {{cluster: fixture-cluster, user: tester{namespace}}}\ncurrent-context: fixture\nusers:\n- name: tester\n  user: {{token: not-a-secret}}\n",
                self.url()
            ),
        )
        .unwrap();
        path
    }
}

impl Drop for ApiServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accepting thread so that it sees the flag.
        let _ = TcpStream::connect(self.address);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The resources an aggregated discovery document lists.
fn resources(document: &Value) -> Vec<Resource> {
    let mut found = Vec::new();
    for group in document["items"].as_array().unwrap() {
        let name = group["metadata"]["name"].as_str().unwrap_or_default();
        for version in group["versions"].as_array().unwrap() {
            for resource in version["resources"].as_array().unwrap() {
                found.push(Resource {
                    group: name.to_owned(),
                    version: version["version"].as_str().unwrap().to_owned(),
                    plural: resource["resource"].as_str().unwrap().to_owned(),
                    kind: resource["responseKind"]["kind"]
                        .as_str()
                        .unwrap()
                        .to_owned(),
                    namespaced: resource["scope"] == "Namespaced",
                });
            }
        }
    }
    found
}

fn serve(stream: TcpStream, state: &State, log: &Mutex<Vec<Request>>, stop: &AtomicBool) {
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(stream) => stream,
        Err(_) => return,
    });
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() || request_line.is_empty() {
        return;
    }
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).is_err() || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let header = |name: &str| -> Vec<String> {
        headers
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .collect()
    };
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let request = Request {
        target: target.to_owned(),
        user: header("impersonate-user").into_iter().next(),
        groups: header("impersonate-group"),
    };
    log.lock().unwrap().push(request.clone());
    let hostile = state
        .fixture
        .hostile
        .iter()
        .find(|(path, _)| path == request.path())
        .map(|(_, how)| *how);
    if let Some(how) = hostile {
        misbehave(reader.into_inner(), how, stop);
        return;
    }
    let accept = header("accept").join(",");
    let warning = match &state.fixture.version_warning {
        Some(text) if request.path() == "/version" => format!("Warning: 299 - {text:?}\r\n"),
        _ => String::new(),
    };
    let (status, content_type, body) = if method != "GET" {
        (
            405,
            "application/json",
            status_body(405, "MethodNotAllowed", "only GET is served", json!({})),
        )
    } else {
        answer(state, &request, &accept)
    };
    let mut stream = reader.into_inner();
    let reason = match status {
        200 => "OK",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        _ => "Not Acceptable",
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n{warning}Connection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(body.as_bytes());
    let _ = stream.flush();
    // Reading what is left lets the client see a clean close.
    let _ = stream.set_read_timeout(Some(std::time::Duration::from_millis(50)));
    let _ = stream.read(&mut [0u8; 64]);
}

/// Answers as `how` says, until the client goes away or the server stops.
fn misbehave(mut stream: TcpStream, how: Hostile, stop: &AtomicBool) {
    let wait = std::time::Duration::from_millis(20);
    match how {
        Hostile::Stall => {
            while !stop.load(Ordering::SeqCst) {
                std::thread::sleep(wait);
            }
        }
        Hostile::Garbage => {
            let body = "<html><body>502 Bad Gateway</body></html>\x1b]0;owned\x07";
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
        Hostile::Endless => {
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"items\":["
            );
            let item = "{\"metadata\":{\"name\":\"endless\",\"namespace\":\"shop\"}},".repeat(1000);
            while !stop.load(Ordering::SeqCst) {
                if stream.write_all(item.as_bytes()).is_err() {
                    break;
                }
            }
        }
    }
}

fn status_body(code: u16, reason: &str, message: &str, details: Value) -> String {
    json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "details": details,
        "code": code,
    })
    .to_string()
}

fn answer(state: &State, request: &Request, accept: &str) -> (u16, &'static str, String) {
    let (path, query) = request
        .target
        .split_once('?')
        .unwrap_or((&request.target, ""));
    if path == "/version" {
        return (200, "application/json", state.fixture.version.to_string());
    }
    if let Some(document) = state.discovery.get(path) {
        // The first of the client's accepted types that is served, as the API server
        // negotiates it.
        let version = accept.split(',').find_map(|media| {
            let parameters: Vec<&str> = media.split(';').map(str::trim).collect();
            if !parameters.contains(&"as=APIGroupDiscoveryList") {
                return None;
            }
            DISCOVERY_VERSIONS
                .into_iter()
                .find(|version| parameters.contains(&format!("v={version}").as_str()))
        });
        let Some(version) = version else {
            return (
                406,
                "application/json",
                status_body(
                    406,
                    "NotAcceptable",
                    "only aggregated discovery is served",
                    json!({}),
                ),
            );
        };
        let content_type = match version {
            "v2" => "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
            _ => "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
        };
        let body = document.replacen(
            "\"apidiscovery.k8s.io/v2\"",
            &format!("\"apidiscovery.k8s.io/{version}\""),
            1,
        );
        return (200, content_type, body);
    }
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let (group, version, rest) = match segments.as_slice() {
        ["api", version, rest @ ..] => ("", *version, rest),
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        _ => return not_found_path(),
    };
    let (namespace, plural, name) = match rest {
        // `/api/v1/namespaces/shop` is the Namespace `shop`.
        ["namespaces", name] if group.is_empty() => (None, "namespaces", Some(*name)),
        ["namespaces", namespace, plural, name @ ..] => {
            (Some(*namespace), *plural, name.first().copied())
        }
        [plural, name @ ..] => (None, *plural, name.first().copied()),
        [] => return not_found_path(),
    };
    let Some(resource) = state
        .resources
        .iter()
        .find(|r| r.group == group && r.version == version && r.plural == plural)
    else {
        return not_found_path();
    };
    let verb = if name.is_some() { "get" } else { "list" };
    let qualified = if group.is_empty() {
        plural.to_owned()
    } else {
        format!("{plural}.{group}")
    };
    let refused = state.fixture.forbidden.iter().any(|rule| {
        rule.verb == verb
            && rule.resource == plural
            && (rule.namespace.is_none() || rule.namespace == namespace)
    });
    if refused {
        let user = request.user.clone().unwrap_or_else(|| "tester".to_owned());
        let scope = match namespace {
            Some(namespace) => format!("in the namespace {namespace:?}"),
            None => "at the cluster scope".to_owned(),
        };
        let reason = format!(
            "User {user:?} cannot {verb} resource {plural:?} in API group {group:?} {scope}"
        );
        let message = match name {
            Some(name) => format!("{qualified} {name:?} is forbidden: {reason}"),
            None => format!("{qualified} is forbidden: {reason}"),
        };
        let mut details = json!({"kind": plural});
        if !group.is_empty() {
            details["group"] = json!(group);
        }
        if let Some(name) = name {
            details["name"] = json!(name);
        }
        return (
            403,
            "application/json",
            status_body(403, "Forbidden", &message, details),
        );
    }
    let selector = query
        .split('&')
        .find_map(|pair| pair.strip_prefix("labelSelector="))
        .map(percent_decode);
    let matching = state.fixture.objects.iter().filter(|object| {
        let api_version = object["apiVersion"].as_str().unwrap_or_default();
        let object_group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
        object_group == group
            && object["kind"] == resource.kind.as_str()
            && (!resource.namespaced
                || namespace.is_none()
                || object["metadata"]["namespace"].as_str() == namespace)
            && name.is_none_or(|name| object["metadata"]["name"] == name)
            && selector
                .as_deref()
                .is_none_or(|selector| selects(selector, &object["metadata"]["labels"]))
    });
    match name {
        Some(name) => match matching.into_iter().next() {
            Some(object) => (200, "application/json", object.to_string()),
            None => {
                let mut details = json!({"name": name, "kind": plural});
                if !group.is_empty() {
                    details["group"] = json!(group);
                }
                (
                    404,
                    "application/json",
                    status_body(
                        404,
                        "NotFound",
                        &format!("{qualified} {name:?} not found"),
                        details,
                    ),
                )
            }
        },
        None => {
            // A real server's list items carry neither kind nor apiVersion.
            let items: Vec<Value> = matching
                .map(|object| {
                    let mut item = object.clone();
                    if let Some(map) = item.as_object_mut() {
                        map.remove("kind");
                        map.remove("apiVersion");
                    }
                    item
                })
                .collect();
            let api_version = if group.is_empty() {
                version.to_owned()
            } else {
                format!("{group}/{version}")
            };
            let parameter = |name: &str| {
                query
                    .split('&')
                    .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
                    .and_then(|value| value.parse::<usize>().ok())
            };
            let from = parameter("continue").unwrap_or(0).min(items.len());
            let to = parameter("limit")
                .filter(|limit| *limit > 0)
                .map_or(items.len(), |limit| (from + limit).min(items.len()));
            let mut metadata = json!({"resourceVersion": "4242"});
            if to < items.len() {
                metadata["continue"] = json!(to.to_string());
            }
            let list = json!({
                "kind": format!("{}List", resource.kind),
                "apiVersion": api_version,
                "metadata": metadata,
                "items": items[from..to],
            });
            (200, "application/json", list.to_string())
        }
    }
}

fn not_found_path() -> (u16, &'static str, String) {
    (
        404,
        "application/json",
        status_body(
            404,
            "NotFound",
            "the server could not find the requested resource",
            json!({}),
        ),
    )
}

/// `%2C` and friends, as kubectl encodes a selector.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(byte) = u8::from_str_radix(&text[i + 1..i + 3], 16)
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(if bytes[i] == b'+' { b' ' } else { bytes[i] });
        i += 1;
    }
    String::from_utf8(out).unwrap()
}

/// Whether `labels` match a selector of `key=value`, `key==value`, `key!=value`, `key`
/// and `!key` requirements, as the API server reads them.
fn selects(selector: &str, labels: &Value) -> bool {
    selector.split(',').map(str::trim).all(|requirement| {
        let label = |key: &str| labels.get(key).and_then(Value::as_str);
        if let Some((key, value)) = requirement.split_once("!=") {
            label(key.trim()) != Some(value.trim())
        } else if let Some((key, value)) = requirement
            .split_once("==")
            .or_else(|| requirement.split_once('='))
        {
            label(key.trim()) == Some(value.trim())
        } else if let Some(key) = requirement.strip_prefix('!') {
            label(key.trim()).is_none()
        } else {
            label(requirement).is_some()
        }
    })
}
