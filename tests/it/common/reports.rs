//! Reports through the binary, as JSON: `explain` and `lint` of a manifest read from
//! standard input, and the event times and findings in them.

use serde_json::Value;

use super::cli;

/// `explain --format json` of `yaml` (read from standard input) with `flags`.
pub fn explain(yaml: &str, flags: &[&str]) -> Value {
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
pub fn lint(yaml: &str, flags: &[&str]) -> (Value, i32) {
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
pub fn events(report: &Value) -> &Vec<Value> {
    report["workloads"][0]["events"]
        .as_array()
        .expect("events is an array")
}

/// When `container` (or the pod, for `None`) first has event `kind` in `phase`, in ms.
pub fn at(report: &Value, phase: &str, container: Option<&str>, kind: &str) -> Option<i64> {
    events(report)
        .iter()
        .find(|e| e["phase"] == phase && e["kind"] == kind && e["container"].as_str() == container)
        .and_then(|e| e["atMs"].as_i64())
}

/// Every event of `container` in `phase`, as `(atMs, kind)`.
pub fn of(report: &Value, phase: &str, container: &str) -> Vec<(i64, String)> {
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
pub fn findings<'a>(report: &'a Value, id: &str) -> Vec<&'a Value> {
    report["findings"]
        .as_array()
        .expect("findings is an array")
        .iter()
        .filter(|f| f["ruleId"] == id)
        .collect()
}

/// Every rule id found, sorted.
pub fn rule_ids(report: &Value) -> Vec<String> {
    let mut ids: Vec<String> = report["findings"]
        .as_array()
        .expect("findings is an array")
        .iter()
        .map(|f| f["ruleId"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

/// The first workload's containers of `list` (`initContainers`, `containers`) in the
/// plan, in order.
pub fn names_in(report: &Value, list: &str) -> Vec<String> {
    report["workloads"][0]["plan"]["containers"]
        .as_array()
        .expect("containers is an array")
        .iter()
        .filter(|c| c["list"] == list)
        .map(|c| c["name"].as_str().unwrap().to_owned())
        .collect()
}

/// The notes of the first workload's assumptions block in `explain`.
pub fn notes(report: &Value) -> Vec<String> {
    report["workloads"][0]["assumptions"]["notes"]
        .as_array()
        .expect("notes is an array")
        .iter()
        .map(|n| n.as_str().unwrap().to_owned())
        .collect()
}
