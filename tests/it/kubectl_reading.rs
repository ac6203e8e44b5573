//! The real kubectl is the oracle of what a manifest means: this test reads every
//! manifest of `testdata/` (the corpus included) and a generated set of YAML and JSON
//! edge cases both with the linter's loader and with
//! `kubectl annotate --local -f FILE … -o json`, which works offline and prints the
//! objects kubectl would send (k8s.io/cli-runtime `pkg/resource/visitor.go`,
//! `StreamVisitor.Visit`, decodes each document with k8s.io/apimachinery
//! `pkg/util/yaml/decoder.go`, `YAMLOrJSONDecoder`, which converts YAML with
//! sigs.k8s.io/yaml on go-yaml v2). `annotate` rewrites only the annotations (dropping
//! null ones), so the annotations are taken from `kubectl label` instead where a file
//! may hold one.
//!
//! kubectl's JSON is then read as the API server reads it (Go's `encoding/json` into
//! the typed objects: a `null` is the zero value, an unknown field is dropped) and the
//! fields the simulator uses are compared: names, labels and annotations of the object
//! and its pod template, the grace period, and every container and init container with
//! its order, command, ports, hooks, probes, environment and restart policy.
//!
//! * Where kubectl reads an object, the linter must read the same.
//! * Where kubectl refuses the file, the linter must report an input error, with
//!   kubectl's own reason where kubectl gives one that is not a YAML syntax error.
//! * Where the API server would refuse what kubectl sends, the linter must report an
//!   input error.
//!
//! The few deliberate differences are the classes of [`Explained`], each listed with its
//! reason in docs/architecture.md ("Reading manifests as kubectl does"); any other difference
//! fails the test. The corpus runs against the `kubectl` on `PATH`; the generated cases
//! also against every older or newer kubectl release installed beside it
//! (`kubectl.1.27` … as the Google Cloud SDK installs them).
//!
//! Without kubectl the test is skipped with a note (`common::tools`), unless `.ci/run`
//! requires it.

use crate::common;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use k8s_openapi::api::core::v1::PodSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use mesh_lifecycle::load::{self, Limits, split};
use mesh_lifecycle::workload::{self, Kind};
use serde_json::{Value, json};

/// One kubectl binary and its minor version.
struct Kubectl {
    path: PathBuf,
    minor: u32,
}

impl Kubectl {
    /// `kubectl version --client`: the minor version (32 for v1.32.4).
    fn new(path: PathBuf) -> Option<Kubectl> {
        let output = Command::new(&path)
            .args(["version", "--client", "-o", "json"])
            .env("KUBECONFIG", "/nonexistent")
            .output()
            .ok()?;
        let version: Value = serde_json::from_slice(&output.stdout).ok()?;
        let minor = version["clientVersion"]["minor"]
            .as_str()?
            .trim_end_matches('+')
            .parse()
            .ok()?;
        Some(Kubectl { path, minor })
    }

    /// Runs `kubectl VERB --local -f F… x-mesh-lifecycle=read -o json` on `files`.
    fn read(&self, verb: &str, files: &[PathBuf]) -> Result<Vec<Value>, String> {
        let mut command = Command::new(&self.path);
        command.args([verb, "--local", "-o", "json"]);
        for file in files {
            command.arg("-f").arg(file);
        }
        let output = command
            .arg("x-mesh-lifecycle=read")
            .env("KUBECONFIG", "/nonexistent")
            .output()
            .expect("kubectl runs");
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let error = stderr
                .lines()
                .filter(|line| line.starts_with("error:"))
                .collect::<Vec<_>>()
                .join("\n");
            return Err(if error.is_empty() {
                stderr.into_owned()
            } else {
                error
            });
        }
        let mut objects = Vec::new();
        for value in serde_json::Deserializer::from_slice(&output.stdout).into_iter::<Value>() {
            let value = value.expect("kubectl prints JSON");
            match value["kind"].as_str() {
                Some("List") => {
                    objects.extend(value["items"].as_array().cloned().unwrap_or_default())
                }
                _ => objects.push(value),
            }
        }
        Ok(objects)
    }
}

/// The kubectl on PATH, and the other releases installed beside it.
fn kubectl_releases() -> Option<(Kubectl, Vec<Kubectl>)> {
    let main = Kubectl::new(common::kubectl_binary()?).expect("kubectl prints its version");
    let real = std::fs::canonicalize(&main.path).unwrap_or(main.path.clone());
    let mut others: Vec<Kubectl> = real
        .parent()
        .and_then(|dir| std::fs::read_dir(dir).ok())
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("kubectl.1."))
        })
        .filter_map(Kubectl::new)
        .collect();
    others.sort_by_key(|kubectl| kubectl.minor);
    Some((main, others))
}

/// What a reader made of one file: the objects of the kinds the linter reads, each as
/// the compared fields or the API server's reason to refuse it, and the errors.
#[derive(Debug, Default)]
struct Reading {
    objects: Vec<Result<Value, String>>,
    errors: Vec<String>,
}

/// The linter's reading of `path`, through the loader and workload stages as the
/// pipeline runs them.
fn ours(path: &Path) -> Reading {
    let file: std::sync::Arc<str> = std::sync::Arc::from(path.to_string_lossy().as_ref());
    let limits = Limits::default();
    let mut reading = Reading::default();
    let reader = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    for (index, chunk) in split::Splitter::new(reader, limits.max_document_bytes).enumerate() {
        let documents = chunk
            .map_err(|error| load::chunk_error(&file, error))
            .and_then(|chunk| load::parse_chunk(&file, chunk, index, &limits));
        let documents = match documents {
            Ok(documents) => documents,
            Err(error) => {
                reading.errors.push(error.message);
                continue;
            }
        };
        for document in &documents {
            let found = workload::objects(document);
            reading
                .errors
                .extend(found.errors.into_iter().map(|e| e.message));
            // Custom resources are not decoded by kubectl here (no CRD is installed);
            // tests/it/kinds.rs checks how they are read.
            for workload in found.workloads.into_iter().filter(|w| !w.kind.is_custom()) {
                reading.objects.push(Ok(compared(
                    workload.kind,
                    &workload.metadata,
                    &workload.pod_metadata,
                    &workload.pod_spec,
                )));
            }
        }
    }
    reading
}

/// kubectl's objects as the API server reads them, keeping those the linter reads:
/// built-in workload kinds with containers (others are skipped by design).
fn theirs(objects: &[Value]) -> Reading {
    let mut reading = Reading::default();
    for object in objects {
        let Some(kind) = object["kind"].as_str().and_then(Kind::parse) else {
            continue;
        };
        let group = object["apiVersion"].as_str().unwrap_or("");
        if group
            .split_once('/')
            .is_some_and(|(group, _)| group.contains('.'))
        {
            continue;
        }
        let (template, spec) = match kind {
            Kind::Pod => ("/metadata", "/spec"),
            Kind::CronJob => (
                "/spec/jobTemplate/spec/template/metadata",
                "/spec/jobTemplate/spec/template/spec",
            ),
            _ => ("/spec/template/metadata", "/spec/template/spec"),
        };
        let spec = object.pointer(spec).cloned().unwrap_or(Value::Null);
        // Absent, null or empty, as the workload stage skips (a kustomize patch).
        let containers = &spec["containers"];
        if containers.is_null() || containers.as_array().is_some_and(Vec::is_empty) {
            continue;
        }
        let decoded = (|| {
            let metadata: ObjectMeta = as_api_server_reads(&object["metadata"])?;
            let template = object.pointer(template).unwrap_or(&Value::Null);
            let pod_metadata: ObjectMeta = as_api_server_reads(template)?;
            let pod_spec: PodSpec = as_api_server_reads(&spec)?;
            Ok(compared(kind, &metadata, &pod_metadata, &pod_spec))
        })();
        reading.objects.push(decoded);
    }
    reading
}

/// Go's `encoding/json` into the typed object, as the API server decodes what kubectl
/// sends: `null` leaves a field at its zero value (a string map's value is `""`, a
/// list's string is `""`, any other field is as if absent), and unknown fields are
/// dropped (k8s-openapi drops them too).
fn as_api_server_reads<T: serde::de::DeserializeOwned + Default>(
    value: &Value,
) -> Result<T, String> {
    fn zero_nulls(value: &Value, in_string_map: bool) -> Value {
        match value {
            Value::Object(map) => Value::Object(
                map.iter()
                    .filter(|(_, v)| in_string_map || !v.is_null())
                    .map(|(k, v)| {
                        let string_map = matches!(k.as_str(), "labels" | "annotations");
                        let v = if v.is_null() {
                            json!("")
                        } else {
                            zero_nulls(v, string_map)
                        };
                        (k.clone(), v)
                    })
                    .collect(),
            ),
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|item| {
                        if item.is_null() {
                            json!("")
                        } else {
                            zero_nulls(item, false)
                        }
                    })
                    .collect(),
            ),
            other => other.clone(),
        }
    }
    if value.is_null() {
        return Ok(T::default());
    }
    serde_json::from_value(zero_nulls(value, false)).map_err(|error| error.to_string())
}

/// The fields the simulator uses, as JSON.
fn compared(kind: Kind, metadata: &ObjectMeta, pod: &ObjectMeta, spec: &PodSpec) -> Value {
    let containers = |list: &Option<Vec<k8s_openapi::api::core::v1::Container>>| -> Value {
        list.iter()
            .flatten()
            .map(|c| {
                json!({
                    "name": c.name, "image": c.image, "command": c.command, "args": c.args,
                    "env": c.env, "ports": c.ports, "lifecycle": c.lifecycle,
                    "startupProbe": c.startup_probe, "readinessProbe": c.readiness_probe,
                    "livenessProbe": c.liveness_probe, "restartPolicy": c.restart_policy,
                })
            })
            .collect()
    };
    json!({
        "kind": kind.as_str(),
        "name": metadata.name, "generateName": metadata.generate_name,
        "namespace": metadata.namespace,
        "labels": metadata.labels, "annotations": metadata.annotations,
        "podLabels": pod.labels, "podAnnotations": pod.annotations,
        "terminationGracePeriodSeconds": spec.termination_grace_period_seconds,
        "shareProcessNamespace": spec.share_process_namespace,
        "containers": containers(&Some(spec.containers.clone())),
        "initContainers": containers(&spec.init_containers),
    })
}

/// The deliberate differences: what the linter reports where kubectl accepts a file, or
/// accepts where kubectl refuses it. Each is in docs/architecture.md with its reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Explained {
    /// A duplicate key: kubectl keeps the later value, the linter refuses the document.
    DuplicateKey,
    /// Content kubectl never reads (after `...`, with CR-only line ends, a directive or
    /// a second node after the first document of a piece): the linter reports it
    /// instead of ignoring it.
    IgnoredByKubectl,
    /// A document that is not an object, or has no `kind`: kubectl refuses the file, the
    /// linter skips the document (other YAML lives beside manifests).
    NotAnObject,
    /// A stream that starts with `{` but is YAML, or JSON followed by YAML: kubectl 1.32
    /// and older refuse it; the linter reads it as kubectl 1.33 and newer do.
    JsonFallback,
    /// Bytes that are not UTF-8: kubectl sends each as U+FFFD, the linter refuses them.
    NotUtf8,
}

/// Why the linter's error on a file kubectl reads is deliberate, if it is.
fn explain_our_error(message: &str) -> Option<Explained> {
    if message.starts_with("duplicate key") {
        return Some(Explained::DuplicateKey);
    }
    if message.starts_with("not valid UTF-8") {
        return Some(Explained::NotUtf8);
    }
    // What follows the first document of a piece, which go-yaml never reads: another
    // document, or a directive.
    if message.starts_with("kubectl ignores this document")
        || message.contains("did not find expected <document start>")
        || message.contains("missing explicit document end marker before directive")
    {
        return Some(Explained::IgnoredByKubectl);
    }
    None
}

/// Why kubectl's refusal of a file the linter reads without error is deliberate.
fn explain_their_error(message: &str, kubectl: &Kubectl) -> Option<Explained> {
    if message.contains("into Go value of type unstructured.detector")
        || message.contains("Object 'Kind' is missing")
    {
        return Some(Explained::NotAnObject);
    }
    if kubectl.minor < 33 && message.contains("json: offset") {
        return Some(Explained::JsonFallback);
    }
    None
}

/// kubectl's reason for refusing a file, when the linter must say the same: everything
/// but YAML syntax errors (go-yaml's wording is not the parser's) and the decoding of
/// objects the linter skips.
fn their_reason(message: &str) -> Option<String> {
    // Decoding into Go types after the conversion: serde's wording, not Go's.
    if message.contains("unable to decode") {
        return None;
    }
    let message = message.strip_prefix("error: ").unwrap_or(message);
    let reason = message
        .rsplit("error converting YAML to JSON: ")
        .next()
        .unwrap_or(message);
    let reason = reason.rsplit(": json: offset ").next().unwrap_or(reason);
    let reason = match reason.split_once(": ") {
        Some((offset, rest)) if offset.chars().all(|c| c.is_ascii_digit()) => rest,
        _ => reason,
    };
    let reason = reason
        .strip_prefix("error parsing ")
        .map_or(reason, |rest| {
            rest.split_once(": ").map_or(rest, |(_, reason)| reason)
        });
    if reason.starts_with("yaml: ") || reason.contains("unstructured.detector") {
        return None;
    }
    // Go prints a nil map key's type as `%!s(<nil>)`.
    let reason = reason.replace("%!s(<nil>)", "<nil>");
    let reason = match reason.find(", key: ") {
        Some(at) => reason[..at].to_owned(),
        None => reason,
    };
    Some(reason.trim().to_owned())
}

/// Compares both readings of one file; returns the unexplained differences.
fn compare(
    file: &Path,
    kubectl: &Kubectl,
    their: &Result<Vec<Value>, String>,
    our: &Reading,
    explained: &mut BTreeMap<Explained, Vec<String>>,
) -> Vec<String> {
    let name = file.display().to_string();
    let mut found = Vec::new();
    let mut explain = |class: Explained| explained.entry(class).or_default().push(name.clone());
    match their {
        Err(message) => {
            if our.errors.is_empty() {
                match explain_their_error(message, kubectl) {
                    Some(class) => explain(class),
                    None => found.push(format!(
                        "{name}: kubectl {} refuses it ({message}), the linter reads it without error",
                        kubectl.minor
                    )),
                }
            } else if let Some(reason) = their_reason(message)
                // Older sigs.k8s.io/yaml capitalised some messages (`Unsupported map key`).
                && !our.errors.iter().any(|error| error.to_lowercase().contains(&reason.to_lowercase()))
            {
                found.push(format!(
                    "{name}: kubectl refuses it ({reason}); the linter's errors do not say so: {:?}",
                    our.errors
                ));
            }
        }
        Ok(objects) => {
            let their = theirs(objects);
            let mut unexplained_errors: Vec<&String> = Vec::new();
            let mut deliberate = 0;
            for error in &our.errors {
                match explain_our_error(error) {
                    Some(class) => {
                        deliberate += 1;
                        explain(class);
                    }
                    None => unexplained_errors.push(error),
                }
            }
            let refused = their.objects.iter().filter(|o| o.is_err()).count();
            // Errors the API server would give account for as many of ours.
            if unexplained_errors.len() > refused {
                found.push(format!(
                    "{name}: kubectl reads it, the linter reports {:?}",
                    unexplained_errors
                ));
            }
            for reason in their.objects.iter().filter_map(|o| o.as_ref().err()) {
                if our.errors.is_empty() {
                    found.push(format!(
                        "{name}: the API server would refuse an object ({reason}), the linter reads it"
                    ));
                }
            }
            let their_objects: Vec<&Value> = their
                .objects
                .iter()
                .filter_map(|o| o.as_ref().ok())
                .collect();
            let our_objects: Vec<&Value> =
                our.objects.iter().filter_map(|o| o.as_ref().ok()).collect();
            if deliberate == 0 {
                if their_objects.len() != our_objects.len() {
                    found.push(format!(
                        "{name}: kubectl reads {} workloads, the linter {}",
                        their_objects.len(),
                        our_objects.len()
                    ));
                }
                for (theirs, ours) in their_objects.iter().zip(&our_objects) {
                    if theirs != ours {
                        found.push(format!(
                            "{name}: kubectl reads\n{theirs}\nthe linter reads\n{ours}"
                        ));
                    }
                }
            } else {
                // The documents refused on purpose are missing from ours; the rest must
                // be kubectl's, in order.
                let mut rest = their_objects.iter();
                for ours in &our_objects {
                    if !rest.any(|theirs| theirs == ours) {
                        found.push(format!("{name}: kubectl reads no object like\n{ours}"));
                    }
                }
            }
        }
    }
    found
}

/// Reads `files` with `kubectl`, many at a time: a batch is split into files by the
/// linter's workload counts where the linter read every file without error; a batch that
/// fails, or whose counts do not add up, is halved until each file is read alone.
fn read_with_kubectl(
    kubectl: &Kubectl,
    files: &[PathBuf],
    ours: &[Reading],
) -> Vec<Result<Vec<Value>, String>> {
    if files.len() == 1 {
        return vec![read_file(kubectl, &files[0], &ours[0])];
    }
    if ours.iter().all(|reading| reading.errors.is_empty()) {
        let wanted: Vec<usize> = ours.iter().map(|r| r.objects.len()).collect();
        if let Some(per_file) = read_batch(kubectl, files, &wanted) {
            return per_file.into_iter().map(Ok).collect();
        }
    }
    let half = files.len() / 2;
    let mut results = read_with_kubectl(kubectl, &files[..half], &ours[..half]);
    results.extend(read_with_kubectl(kubectl, &files[half..], &ours[half..]));
    results
}

/// One file: `annotate` for the objects, `label` for their annotations where the linter
/// found any.
fn read_file(kubectl: &Kubectl, file: &Path, ours: &Reading) -> Result<Vec<Value>, String> {
    let files = [file.to_path_buf()];
    let annotated = kubectl.read("annotate", &files)?;
    let has_annotations = ours
        .objects
        .iter()
        .flatten()
        .any(|object| !object["annotations"].is_null() || !object["podAnnotations"].is_null());
    if !has_annotations && !ours.errors.is_empty() {
        return Ok(without_marker(annotated));
    }
    let labelled = kubectl.read("label", &files)?;
    Ok(with_annotations(annotated, &labelled))
}

/// Several files at once, split by `wanted` workloads per file; `None` when kubectl
/// fails or the counts do not add up.
fn read_batch(kubectl: &Kubectl, files: &[PathBuf], wanted: &[usize]) -> Option<Vec<Vec<Value>>> {
    let annotated = kubectl.read("annotate", files).ok()?;
    let labelled = kubectl.read("label", files).ok()?;
    let mut per_file = vec![Vec::new(); files.len()];
    let mut taken = vec![0; files.len()];
    let mut file = 0;
    for object in with_annotations(annotated, &labelled) {
        let is_workload = !theirs(std::slice::from_ref(&object)).objects.is_empty();
        if is_workload {
            while file < files.len() && taken[file] == wanted[file] {
                file += 1;
            }
            if file == files.len() {
                return None;
            }
            taken[file] += 1;
        }
        per_file[file.min(files.len() - 1)].push(object);
    }
    (taken == wanted).then_some(per_file)
}

/// The objects without the annotation `annotate` added.
fn without_marker(mut objects: Vec<Value>) -> Vec<Value> {
    for object in &mut objects {
        let Some(metadata) = object["metadata"].as_object_mut() else {
            continue;
        };
        if let Some(annotations) = metadata
            .get_mut("annotations")
            .and_then(Value::as_object_mut)
        {
            annotations.remove("x-mesh-lifecycle");
            if annotations.is_empty() {
                metadata.remove("annotations");
            }
        }
    }
    objects
}

/// `annotate` adds its annotation and drops the annotations it cannot read as strings
/// (nulls), `label` does the same to labels: the objects of the first with the
/// annotations of the second are what kubectl read.
fn with_annotations(mut annotated: Vec<Value>, labelled: &[Value]) -> Vec<Value> {
    for (object, labelled) in annotated.iter_mut().zip(labelled) {
        let metadata = object["metadata"]
            .as_object_mut()
            .expect("objects have metadata");
        match labelled.pointer("/metadata/annotations") {
            Some(annotations) => metadata.insert("annotations".into(), annotations.clone()),
            None => metadata.remove("annotations"),
        };
    }
    annotated
}

/// Every file of `testdata/` that may hold manifests.
fn testdata_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![common::root().join("testdata")];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| matches!(e, "yaml" | "yml" | "json" | "injected"))
            {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Runs the comparison over `files` with `kubectl`; returns the unexplained
/// differences and records the explained ones.
fn differences(
    kubectl: &Kubectl,
    files: &[PathBuf],
    explained: &mut BTreeMap<Explained, Vec<String>>,
) -> Vec<String> {
    let readings: Vec<Reading> = files.iter().map(|file| ours(file)).collect();
    let results = read_with_kubectl(kubectl, files, &readings);
    assert_eq!(results.len(), files.len());
    let mut found = Vec::new();
    for ((file, our), their) in files.iter().zip(&readings).zip(&results) {
        found.extend(compare(file, kubectl, their, our, explained));
    }
    found
}

fn report(found: &[String], explained: &BTreeMap<Explained, Vec<String>>) -> String {
    let mut text = String::new();
    for (class, files) in explained {
        let _ = writeln!(text, "explained {class:?}: {} files", files.len());
    }
    for difference in found {
        let _ = writeln!(text, "{difference}\n");
    }
    text
}

#[test]
fn the_corpus_reads_as_kubectl_reads_it() {
    let Some((kubectl, _)) = kubectl_releases() else {
        eprintln!("kubectl not on PATH: the differential reading test did not run");
        return;
    };
    let files = testdata_files();
    assert!(files.len() > 250, "testdata/ holds the corpus");
    let mut explained = BTreeMap::new();
    let found = differences(&kubectl, &files, &mut explained);
    assert!(found.is_empty(), "{}", report(&found, &explained));
    // The comparison sees what it must: the corpus has workloads and bad input.
    assert!(
        explained.contains_key(&Explained::DuplicateKey),
        "{explained:?}"
    );
}

#[test]
fn generated_edge_cases_read_as_every_kubectl_release_reads_them() {
    let Some((kubectl, others)) = kubectl_releases() else {
        eprintln!("kubectl not on PATH: the differential reading test did not run");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = edge_cases()
        .into_iter()
        .map(|(name, text)| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        })
        .collect();
    // The release on PATH, then each other release once, side by side.
    let releases: Vec<&Kubectl> = std::iter::once(&kubectl)
        .chain(others.iter().filter(|other| other.minor != kubectl.minor))
        .collect();
    let failures: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = releases
            .iter()
            .map(|kubectl| {
                let files = &files;
                scope.spawn(move || {
                    let mut explained = BTreeMap::new();
                    let found = differences(kubectl, files, &mut explained);
                    (!found.is_empty()).then(|| {
                        format!(
                            "== kubectl 1.{}\n{}",
                            kubectl.minor,
                            report(&found, &explained)
                        )
                    })
                })
            })
            .collect();
        runs.into_iter()
            .filter_map(|run| run.join().unwrap())
            .collect()
    });
    eprintln!(
        "compared {} cases with kubectl {}",
        files.len(),
        releases
            .iter()
            .map(|k| format!("1.{}", k.minor))
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A pod named `name`, with `metadata` lines added to its metadata, `spec` lines to its
/// spec and `container` lines to its one container.
fn pod(name: &str, metadata: &str, spec: &str, container: &str) -> String {
    let indent = |text: &str, by: usize| -> String {
        text.lines()
            .map(|line| format!("{}{line}\n", " ".repeat(by)))
            .collect()
    };
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n{}spec:\n{}  containers:\n  - name: app\n    image: example/app:1.0\n{}",
        indent(metadata, 2),
        indent(spec, 2),
        indent(container, 4)
    )
}

/// The generated cases: `(file name, text)`.
fn edge_cases() -> Vec<(String, String)> {
    let mut cases = Vec::new();
    let mut add = |name: &str, text: String| cases.push((format!("{name}.yaml"), text));

    // Merge keys, in every position and order, for a scalar field and for a map.
    let merges = [
        ("inline", "<<: {terminationGracePeriodSeconds: 60}"),
        ("tagged", "!!merge <<: {terminationGracePeriodSeconds: 60}"),
        (
            "list",
            "<<: [{terminationGracePeriodSeconds: 60}, {terminationGracePeriodSeconds: 70}]",
        ),
        (
            "list-reversed",
            "<<: [{terminationGracePeriodSeconds: 70}, {terminationGracePeriodSeconds: 60}]",
        ),
        (
            "two",
            "<<: {terminationGracePeriodSeconds: 60}\n<<: {terminationGracePeriodSeconds: 70}",
        ),
        ("quoted", "\"<<\": {terminationGracePeriodSeconds: 60}"),
        ("empty", "<<: {}"),
        ("null", "<<: ~"),
        ("scalar", "<<: 60"),
        (
            "list-with-scalar",
            "<<: [{terminationGracePeriodSeconds: 60}, 5]",
        ),
    ];
    for (form, merge) in merges {
        for (position, spec) in [
            (
                "before",
                format!("{merge}\nterminationGracePeriodSeconds: 5"),
            ),
            (
                "after",
                format!("terminationGracePeriodSeconds: 5\n{merge}"),
            ),
            ("alone", merge.to_owned()),
        ] {
            let name = format!("merge-{form}-{position}");
            add(&name, pod(&name, "", &spec, ""));
        }
    }
    for (form, labels) in [
        ("alias-before", "labels:\n  <<: *base\n  app: web\n"),
        ("alias-after", "labels:\n  app: web\n  <<: *base\n"),
        (
            "alias-list",
            "labels:\n  <<: [*base, {tier: db, app: api}]\n",
        ),
        (
            "alias-list-inline-first",
            "labels:\n  <<: [{tier: db, app: api}, *base]\n",
        ),
    ] {
        let name = format!("merge-labels-{form}");
        let text = pod(
            &name,
            &format!("annotations: &base {{app: base, tier: front}}\n{labels}"),
            "",
            "",
        );
        add(&name, text);
    }
    let name = "merge-nested";
    add(
        name,
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n  containers:\n  - &app\n    <<: {{name: base, image: example/app:1.0}}\n    name: app\n    lifecycle: &hooks\n      preStop: {{exec: {{command: [sleep, '5']}}}}\n  - <<: *app\n    name: proxy\n    lifecycle:\n      <<: *hooks\n      postStart: {{exec: {{command: [wait]}}}}\n"
        ),
    );

    // Duplicate keys, where a value and where a map is written twice.
    for (form, spec, container) in [
        (
            "scalar",
            "terminationGracePeriodSeconds: 5\nterminationGracePeriodSeconds: 6",
            "",
        ),
        ("container", "", "image: a\nimage: b"),
        (
            "merged-then-written",
            "<<: {terminationGracePeriodSeconds: 60}\nterminationGracePeriodSeconds: 6",
            "",
        ),
    ] {
        let name = format!("duplicate-{form}");
        add(&name, pod(&name, "", spec, container));
    }
    let name = "duplicate-labels";
    add(name, pod(name, "labels: {app: a, app: b}", "", ""));
    let name = "duplicate-same-json-key";
    add(name, pod(name, "labels: {true: a, yes: b}", "", ""));

    // YAML 1.1 scalars, floats and strings in an integer field.
    let numbers = [
        "30",
        "0x1E",
        "036",
        "0o36",
        "0b11110",
        "-0b1",
        "1_0",
        "+30",
        "30.0",
        "3e1",
        "3.0e+1",
        "08",
        "09.5",
        ".5",
        "1.",
        "-0",
        "1e400",
        ".inf",
        "-.inf",
        ".nan",
        ".NaN",
        "~",
        "null",
        "Null",
        "''",
        "\"30\"",
        "!!int \"30\"",
        "!!float 30",
        "!!str 30",
        "!foo 30",
        "! 30",
        "!!int 3.5",
        "!!null x",
        "30s",
        "yes",
        "y",
        "on",
        "0.5",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775809",
        "18446744073709551615",
        "18446744073709551616",
        "+18446744073709551615",
        "100000000000000000000",
        "1e21",
        "2001-12-14",
        "!!timestamp 2001-12-14",
        "0x_1E",
        "1__0",
    ];
    for (index, number) in numbers.iter().enumerate() {
        let name = format!("grace-{index:02}");
        add(
            &name,
            pod(
                &name,
                "",
                &format!("terminationGracePeriodSeconds: {number}"),
                "",
            ),
        );
    }
    // Scalars where a string belongs, and in lists of strings.
    let strings = [
        "yes",
        "'yes'",
        "1.10",
        "0755",
        "2001-12-14",
        "!!binary aGVsbG8=",
        "!!binary |\n  aGVs\n  bG8=",
        "!!binary ***",
        "~",
        "",
        "!!str",
        "12e3",
        "0x10",
        ":",
        "- x",
        "!!str 1.5",
    ];
    for (index, value) in strings.iter().enumerate() {
        let name = format!("string-{index:02}");
        let annotation = if value.contains('\n') {
            format!("annotations:\n  note: {}", value.replace('\n', "\n  "))
        } else {
            format!("annotations: {{note: {value}}}")
        };
        add(&name, pod(&name, &annotation, "", ""));
        let name = format!("command-{index:02}");
        if !value.contains('\n') {
            add(
                &name,
                pod(&name, "", "", &format!("command: [sleep, {value}]")),
            );
        }
    }
    // Keys as JSON spells them.
    let keys = [
        "1.5",
        "123456789.0",
        "1e3",
        "0x10",
        "true",
        "y",
        "~",
        "null",
        "18446744073709551615",
        "9223372036854775807",
        ".inf",
        "-.inf",
        ".nan",
        "0.1",
        "1e-5",
        "1e6",
        "!!str 1.5",
        "'1.5'",
        "2001-12-14",
    ];
    for (index, key) in keys.iter().enumerate() {
        let name = format!("key-{index:02}");
        add(&name, pod(&name, &format!("labels: {{{key}: v}}"), "", ""));
    }

    // Nulls.
    for (index, (metadata, spec, container)) in [
        ("labels: {app: }", "", ""),
        ("labels: {app: ~, tier: web}", "", ""),
        ("annotations: {note: null}", "", ""),
        ("labels: ~", "", ""),
        ("", "terminationGracePeriodSeconds:", ""),
        ("", "initContainers: ~", ""),
        ("", "", "command: [sleep, ~]"),
        ("", "", "lifecycle: ~"),
        ("", "", "lifecycle: {preStop: ~}"),
        ("", "", "ports: ~"),
        ("", "", "ports: [{containerPort: 8080, name: ~}]"),
        ("", "", "env: [{name: A, value: ~}]"),
        ("", "", "readinessProbe: {httpGet: {port: ~, path: /}}"),
    ]
    .iter()
    .enumerate()
    {
        let name = format!("null-{index:02}");
        add(&name, pod(&name, metadata, spec, container));
    }

    // Anchors and aliases.
    let name = "anchor-hooks";
    add(
        name,
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n  containers:\n  - name: a\n    image: x\n    lifecycle: &hooks {{preStop: {{sleep: {{seconds: 5}}}}}}\n  - name: b\n    image: x\n    lifecycle: *hooks\n"
        ),
    );
    let name = "anchor-key";
    add(
        name,
        pod(name, "labels:\n  &k app: web\n  tier: *k", "", ""),
    );
    let name = "anchor-scalar-as-key";
    add(
        name,
        pod(name, "annotations: {a: &k note}\nlabels: {*k : v}", "", ""),
    );
    let name = "anchor-container";
    add(
        name,
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n  initContainers:\n  - &c {{name: init, image: x, restartPolicy: Always}}\n  containers: [{{name: app, image: x}}]\n"
        ),
    );

    // JSON streams.
    let object = |name: &str, spec: &str| {
        format!(
            r#"{{"apiVersion": "v1", "kind": "Pod", "metadata": {{"name": "{name}"}}, "spec": {{"containers": [{{"name": "app", "image": "x"}}]{spec}}}}}"#
        )
    };
    let json_cases = [
        ("json-two-on-a-line", format!("{}{}\n", object("a", ""), object("b", ""))),
        ("json-two-on-lines", format!("{}\n{}\n", object("a", ""), object("b", ""))),
        ("json-indented", format!("\n\n   {}\n", object("a", ""))),
        ("json-pretty-tabs", "{\n\t\"apiVersion\": \"v1\",\n\t\"kind\": \"Pod\",\n\t\"metadata\": {\"name\": \"t\"},\n\t\"spec\": {\"containers\": [{\"name\": \"app\", \"image\": \"x\"}]}\n}\n".to_owned()),
        ("json-float", format!("{}\n", object("a", r#", "terminationGracePeriodSeconds": 12.0"#))),
        ("json-fraction", format!("{}\n", object("a", r#", "terminationGracePeriodSeconds": 12.5"#))),
        ("json-huge", format!("{}\n", object("a", r#", "terminationGracePeriodSeconds": 1e400"#))),
        ("json-big-int", format!("{}\n", object("a", r#", "terminationGracePeriodSeconds": 18446744073709551615"#))),
        ("json-escapes", object("a", r#", "hostname": "\ud83d\ude00\u00e9\/""#).replace("\"name\": \"a\"", "\"name\": \"a\", \"annotations\": {\"e\": \"\\ud83d\\ude00 \\u00e9\\/\"}")),
        ("json-duplicate", format!("{}\n", object("a", r#", "terminationGracePeriodSeconds": 1, "terminationGracePeriodSeconds": 2"#))),
        ("json-then-yaml", format!("{}\n---\n{}", object("a", ""), pod("b", "", "", ""))),
        ("json-then-garbage", format!("{}\nnot json\n", object("a", ""))),
        ("json-two-then-garbage", format!("{}\n{} trailing\n", object("a", ""), object("b", ""))),
        ("json-null-between", format!("{}\nnull\n{}\n", object("a", ""), object("b", ""))),
        ("json-bom", format!("\u{feff}{}\n", object("a", ""))),
        ("json-after-comment", format!("# generated\n{}\n", object("a", ""))),
        ("json-after-comment-two", format!("# generated\n{}\n{}\n", object("a", ""), object("b", ""))),
        ("yaml-flow-at-start", "{apiVersion: v1, kind: Pod, metadata: {name: f}, spec: {containers: [{name: app, image: x}]}}\n".to_owned()),
        ("json-unclosed", format!("{}\n", &object("a", "")[..40])),
        ("json-array", format!("[{}]\n", object("a", ""))),
    ];
    for (name, text) in json_cases {
        add(name, text);
    }

    // Quoted scalars with odd indentation, and document markers.
    let name = "quoted-less-indented";
    add(
        name,
        pod(
            name,
            "annotations:\n  note: \"first line\nsecond line\"\n  other: 'one\n two'",
            "",
            "",
        ),
    );
    let name = "quoted-escaped-break";
    add(
        name,
        pod(name, "annotations:\n  note: \"first \\\n  second\"", "", ""),
    );
    let name = "quoted-in-container";
    add(
        name,
        pod(
            name,
            "",
            "",
            "command:\n- sh\n- -c\n- \"sleep 5 &&\n  echo done\"\nargs: [\"a\nb\"]",
        ),
    );
    let name = "quoted-key-column";
    add(
        name,
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  annotations:\n    a: \"x\n y\"\n    b: \"p\nq\"\nspec:\n  containers: [{{name: app, image: x}}]\n"
        ),
    );
    let two_pods = |separator: &str| {
        format!(
            "{}{separator}{}",
            pod("a", "", "", ""),
            pod("b", "", "", "")
        )
    };
    for (name, text) in [
        ("marker-document-end", two_pods("...\n")),
        ("marker-end-then-start", two_pods("...\n---\n")),
        ("marker-comment", two_pods("--- # next\n")),
        (
            "marker-with-content",
            format!("{}--- {{a: 1}}\n", pod("a", "", "", "")),
        ),
        ("marker-four-dashes", two_pods("----\n")),
        (
            "marker-directive",
            format!("%YAML 1.1\n---\n{}", pod("a", "", "", "")),
        ),
        (
            "marker-directive-after-separator",
            format!("---\n%YAML 1.1\n---\n{}", pod("a", "", "", "")),
        ),
        (
            "marker-end-first",
            format!("---\n...\n---\n{}", pod("a", "", "", "")),
        ),
        ("marker-end-after-document", two_pods("---\n...\n---\n")),
        (
            "marker-end-after-comment",
            format!("# c\n...\n---\n{}", pod("a", "", "", "")),
        ),
        (
            "marker-end-after-two-separators",
            format!("---\n---\n# c\n...\n---\n{}", pod("a", "", "", "")),
        ),
        (
            "marker-end-after-three-separators",
            format!("---\n---\n---\n...\n---\n{}", pod("a", "", "", "")),
        ),
        (
            "marker-blank-between-separators",
            two_pods("---\n\n---\n...\n---\n"),
        ),
        ("marker-cr-only", two_pods("---\n").replace('\n', "\r")),
        (
            "marker-cr-only-one",
            pod("a", "", "", "").replace('\n', "\r"),
        ),
        ("marker-crlf", two_pods("---\n").replace('\n', "\r\n")),
    ] {
        add(name, text);
    }
    // Lists.
    let name = "list";
    add(
        name,
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a, labels: {app: }}\n  spec: {containers: [{name: app, image: x}]}\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: b}\n  spec:\n    template:\n      metadata: {labels: {app: b}}\n      spec: {terminationGracePeriodSeconds: 12.0, containers: [{name: app, image: x}]}\n".to_owned(),
    );
    cases
}
