//! The shapes a whole cluster arrives in — one `List` (`kubectl get -A -o yaml` or
//! `-o json`) or a stream of documents — are read alike: what is cheap in one shape
//! must not change what the other reports.
//!
//! A fix in a `List` item is checked on that item (the `List` with it alone), where a
//! fix in a stream is checked on its whole document: the verdicts must be the same.
//! The check's work is counted (`pipeline::fix::checks::checked_bytes`), process-wide: the test
//! that reads the count holds `crate::counting`, the others run the binary.

use crate::common;

use std::collections::BTreeMap;

use common::lists::{list_of, stream_of};
use mesh_lifecycle::load::parse::{Limits, parse_documents};
use mesh_lifecycle::pipeline::fix::checks::checked_bytes;

/// The workload kinds whose rule fixtures go into the `List`: objects the context pass
/// does not read (it reads a stream's Namespaces and Services, not a `List`'s items).
const WORKLOADS: [&str; 6] = [
    "Deployment",
    "StatefulSet",
    "DaemonSet",
    "Job",
    "CronJob",
    "Pod",
];

/// Every single-object workload fixture of the rules, each renamed `w{n}` so that no
/// two share a name (findings of one workload are compared as a group), without the
/// comments above its first key.
fn workload_fixtures() -> Vec<String> {
    let mut documents = Vec::new();
    for path in common::rule_fixtures() {
        let text = std::fs::read_to_string(&path).unwrap();
        if text.lines().any(|line| line.starts_with("---")) || text.contains('\r') {
            continue;
        }
        let body: Vec<&str> = text
            .lines()
            .skip_while(|line| line.starts_with('#') || line.trim().is_empty())
            .collect();
        let kind = body.iter().find_map(|line| line.strip_prefix("kind: "));
        if !kind.is_some_and(|kind| WORKLOADS.contains(&kind.trim())) {
            continue;
        }
        let Some(name) = body.iter().position(|line| line.starts_with("  name: ")) else {
            continue;
        };
        let mut lines: Vec<String> = body.iter().map(|line| line.to_string()).collect();
        lines[name] = format!("  name: w{}", documents.len());
        documents.push(lines.join("\n") + "\n");
    }
    // Fixes the check refuses: ML207's on a Linkerd pod would make ML202 longer, and
    // ML301's on this Job would bring an ML104.
    let linkerd = std::fs::read_to_string(common::testdata("fixes/linkerd-ml207.yaml")).unwrap();
    let linkerd: Vec<&str> = linkerd
        .lines()
        .filter(|line| !line.starts_with('#'))
        .collect();
    for n in 0..3 {
        documents.push(
            linkerd
                .join("\n")
                .replace("name: api\n", &format!("name: linkerd-{n}\n"))
                + "\n",
        );
        documents.push(format!(
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: job-{n}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: work\n        image: work:1\n        command: [sh, -c, 'echo done']\n      - name: cloud-sql-proxy\n        image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.11.0\n"
        ));
    }
    documents
}

/// `documents` as JSON: one `List`, as `kubectl get -o json` prints it, and a stream
/// of the same objects.
fn json_shapes(documents: &[String]) -> (String, String) {
    let items: Vec<serde_json::Value> = documents
        .iter()
        .map(|text| {
            let roots = parse_documents(text, 1, &Limits::default()).unwrap();
            roots[0].to_json()
        })
        .collect();
    let stream = items
        .iter()
        .map(|item| serde_json::to_string_pretty(item).unwrap() + "\n")
        .collect();
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
    (serde_json::to_string_pretty(&list).unwrap() + "\n", stream)
}

/// `reason` with the `List` item it names left out (`items[3].spec` is `spec` in a
/// stream).
fn without_item(reason: &str) -> String {
    let mut out = String::new();
    let mut rest = reason;
    while let Some(at) = rest.find("items[") {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match rest.find("].") {
            Some(end) if rest[6..end].bytes().all(|b| b.is_ascii_digit()) => {
                rest = &rest[end + 2..]
            }
            _ => {
                out.push_str("items[");
                rest = &rest[6..];
            }
        }
    }
    out + rest
}

/// Each finding's fix verdict, by workload, rule and container: `ok` for a fix that
/// passed its check, the reason for one refused, none for a finding without a fix.
fn verdicts(text: &str) -> BTreeMap<(String, &'static str, Option<String>), Vec<String>> {
    let mut verdicts: BTreeMap<_, Vec<String>> = BTreeMap::new();
    common::in_process::each_finding(text, |located| {
        let verdict = match &located.fix {
            None => "none".to_owned(),
            Some(Ok(_)) => "ok".to_owned(),
            Some(Err(reason)) => without_item(reason),
        };
        verdicts
            .entry((
                located.workload.name.clone(),
                located.finding.rule.id,
                located.finding.container.clone(),
            ))
            .or_default()
            .push(verdict);
    });
    for list in verdicts.values_mut() {
        list.sort();
    }
    verdicts
}

#[test]
fn a_fix_in_a_list_item_is_judged_as_in_a_stream() {
    let _counting = crate::counting();
    let documents = workload_fixtures();
    assert!(documents.len() >= 50, "{} fixtures", documents.len());
    let (json_list, json_stream) = json_shapes(&documents);
    let in_stream = verdicts(&stream_of(&documents));
    for (shape, list, stream) in [
        ("YAML", list_of(&documents), None),
        ("JSON", json_list, Some(verdicts(&json_stream))),
    ] {
        let in_stream = stream.as_ref().unwrap_or(&in_stream);
        let before = checked_bytes();
        let in_list = verdicts(&list);
        // Dozens of fixes were checked, each on its item: together less than the List
        // twice over, where checks on the whole List would read it once each.
        let checked = checked_bytes() - before;
        assert!(
            checked < 2 * list.len() as u64,
            "{shape}: {checked} bytes analysed to check fixes in a List of {}",
            list.len()
        );
        assert_eq!(in_list.len(), in_stream.len(), "{shape}");
        for (key, stream) in in_stream {
            assert_eq!(in_list.get(key), Some(stream), "{shape}: {key:?}");
        }
    }
    // Both verdicts occur, so the comparison weighs something.
    let all: Vec<&String> = in_stream.values().flatten().collect();
    assert!(all.iter().filter(|v| **v == "ok").count() >= 10, "{all:?}");
    assert!(
        all.iter()
            .filter(|v| ***v != "ok" && ***v != "none")
            .count()
            >= 5,
        "{all:?}"
    );
}

/// Lints `text` with a document limit of 64 KiB: the exit status, the findings, and
/// what standard error says.
fn lint_within_64k(text: &str) -> (i32, usize, String) {
    let output = common::cli()
        .args([
            "lint",
            "--format",
            "json",
            "--max-document-size",
            "64KiB",
            "-",
        ])
        .write_stdin(text.as_bytes().to_vec())
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    (
        output.status.code().unwrap(),
        report["findings"].as_array().unwrap().len(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `kubectl get -A -o json` of a whole cluster is one document, far above any one
/// object's size: the document limit holds for each item of a `List`, and for its own
/// keys, not for the whole.
#[test]
fn the_document_limit_holds_for_each_item_of_a_list() {
    let documents: Vec<String> = (0..200)
        .map(|n| common::deployment(&format!("web-{n}"), Some("shop"), true))
        .collect();
    let yaml = list_of(&documents);
    let (json, _) = json_shapes(&documents);
    let (_, in_stream, _) = lint_within_64k(&stream_of(&documents));
    assert!(in_stream >= 200, "{in_stream} findings");
    for (shape, list) in [("YAML", &yaml), ("JSON", &json)] {
        assert!(list.len() > 64 << 10, "{shape}: {} bytes", list.len());
        let (status, findings, stderr) = lint_within_64k(list);
        assert_eq!((status, findings), (1, in_stream), "{shape}: {stderr}");
        assert!(!stderr.contains("larger than"), "{shape}: {stderr}");
    }
    // One item over the limit: the List is refused whole, as a document would be.
    let mut large = documents.clone();
    large[40] = large[40].replacen(
        "metadata:\n",
        &format!(
            "metadata:\n  annotations:\n    note: \"{}\"\n",
            "x".repeat(70 << 10)
        ),
        1,
    );
    let (status, findings, stderr) = lint_within_64k(&list_of(&large));
    assert_eq!((status, findings), (2, 0), "{stderr}");
    assert!(stderr.contains("document larger than 64 KiB"), "{stderr}");
    // A document that is not a List is held to the limit as a whole.
    let (status, _, stderr) = lint_within_64k(&large[40]);
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("document larger than 64 KiB"), "{stderr}");
}

/// A `List` read item by item holds one item's tree per worker at a time, however many
/// items it has: what keeps `kubectl get -A -o yaml` of a whole cluster within a few
/// times its size (BENCHMARKS.md).
#[test]
fn a_list_read_item_by_item_holds_an_item_per_worker() {
    let _counting = crate::counting();
    let pods = 20_000;
    let yaml: String = (0..pods)
        .map(|n| {
            format!(
                "- apiVersion: v1\n  kind: Pod\n  metadata: {{name: p{n}}}\n  spec:\n    containers: [{{name: a, image: x}}]\n"
            )
        })
        .collect();
    let yaml = format!("apiVersion: v1\nkind: List\nitems:\n{yaml}");
    let documents: Vec<String> = (0..pods)
        .map(|n| format!("kind: Pod\napiVersion: v1\nmetadata:\n  name: p{n}\n"))
        .collect();
    let (json, _) = json_shapes(&documents);
    for (shape, text) in [("YAML", &yaml), ("JSON", &json)] {
        mesh_lifecycle::load::items::most_alive();
        for threads in [1, 2, 4] {
            common::in_process::each_finding_on(text, threads, |_| {});
            let most = mesh_lifecycle::load::items::most_alive();
            assert!(
                (1..=threads).contains(&most),
                "{shape}, -j {threads}: {most} item trees alive at once"
            );
        }
    }
}
