//! Placing a finding costs what the finding shows, not what the document around it
//! holds: a `List` of a whole cluster (`kubectl get -A -o yaml`) is one document with
//! every workload and every finding in it, and anything that walked its text for each
//! finding made every report quadratic in the cluster's size.
//!
//! Every mapping between positions and byte offsets of a document goes through its one
//! line index (`load::lines`), whose work this counts: linting such a List in every
//! format, with every finding's fix built and its edits placed, and explaining it in
//! every format, indexes each byte a small, fixed number of times, however many
//! workloads and findings the List holds. One walk of the document per finding would
//! index it once per finding. Not timed: the count is the same on any machine.
//!
//! This file holds one test, so that no other test of the process adds to the count.

use mesh_lifecycle::load::Inputs;
use mesh_lifecycle::load::lines::indexed_bytes;
use mesh_lifecycle::pipeline::{self, Analysis, RunOptions};
use mesh_lifecycle::report::explain;
use mesh_lifecycle::report::github::GithubReporter;
use mesh_lifecycle::report::human::{HumanReporter, Style};
use mesh_lifecycle::report::json::JsonReporter;
use mesh_lifecycle::report::junit::JunitReporter;
use mesh_lifecycle::report::paths::PathBase;
use mesh_lifecycle::report::sarif::SarifReporter;
use mesh_lifecycle::report::table::TableReporter;
use mesh_lifecycle::report::{Reporter, Summary};
use mesh_lifecycle::settings::Settings;

/// `workloads` injected Deployments with `containers` serving containers each (an
/// ML207 per container, with its fix) and a Job whose Cloud SQL proxy never exits
/// (ML301, whose fix moves it and then sets it: changes made in turn), as one YAML
/// `List`.
fn yaml_list(workloads: usize, containers: usize) -> String {
    let mut out = String::from("apiVersion: v1\nkind: List\nitems:\n");
    for i in 0..workloads {
        out.push_str(&format!(
            "- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {{name: web-{i}, namespace: shop}}\n  spec:\n    template:\n      metadata:\n        labels: {{app: web-{i}, sidecar.istio.io/inject: \"true\"}}\n      spec:\n        containers:\n"
        ));
        for c in 0..containers {
            out.push_str(&format!(
                "        - name: c{c}\n          image: example/web:1.0\n          ports: [{{containerPort: {}}}]\n",
                8000 + c
            ));
        }
        out.push_str(&format!(
            "- apiVersion: batch/v1\n  kind: Job\n  metadata:\n    name: job-{i}\n  spec:\n    template:\n      spec:\n        restartPolicy: Never\n        containers:\n        - name: work\n          image: work:1\n          command: [sh, -c, 'echo done']\n        - name: cloud-sql-proxy\n          image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.11.0\n"
        ));
    }
    out
}

/// The same objects as `kubectl get -o json` prints them.
fn json_list(workloads: usize, containers: usize) -> String {
    let mut items = Vec::new();
    for i in 0..workloads {
        let serving: Vec<serde_json::Value> = (0..containers)
            .map(|c| serde_json::json!({"name": format!("c{c}"), "image": "example/web:1.0", "ports": [{"containerPort": 8000 + c}]}))
            .collect();
        items.push(serde_json::json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": format!("web-{i}"), "namespace": "shop"},
            "spec": {"template": {
                "metadata": {"labels": {"app": format!("web-{i}"), "sidecar.istio.io/inject": "true"}},
                "spec": {"containers": serving},
            }},
        }));
        items.push(serde_json::json!({
            "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": format!("job-{i}")},
            "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
                {"name": "work", "image": "work:1", "command": ["sh", "-c", "echo done"]},
                {"name": "cloud-sql-proxy", "image": "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.11.0"},
            ]}}},
        }));
    }
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
    serde_json::to_string_pretty(&list).unwrap() + "\n"
}

/// Lints and explains `text` in every format, placing every fix's edits; returns the
/// findings and how many of them have a fix.
fn report_everything(text: &str) -> (usize, usize) {
    let inputs = Inputs::from_bytes(text.as_bytes().to_vec());
    let settings = Settings::default();
    let options = RunOptions {
        threads: 1,
        ..RunOptions::default()
    };
    let mut buffers: Vec<Vec<u8>> = vec![Vec::new(); 6];
    let mut reporters: Vec<Box<dyn Reporter + '_>> = Vec::new();
    for (index, out) in buffers.iter_mut().enumerate() {
        reporters.push(match index {
            0 => Box::new(
                HumanReporter::new(out, Style::plain(), false, Vec::new()).show_infos(true),
            ),
            1 => Box::new(TableReporter::new(out, Style::plain(), false)),
            2 => Box::new(JsonReporter::new(out)),
            3 => Box::new(SarifReporter::new(out, PathBase::new("/"))),
            4 => Box::new(JunitReporter::new(out, PathBase::new("/"))),
            _ => Box::new(GithubReporter::new(out, PathBase::new("/"), false, None)),
        });
    }
    let mut summary = Summary::default();
    let mut analyses: Vec<Analysis> = Vec::new();
    let (mut findings, mut fixes) = (0, 0);
    pipeline::run(&inputs, &settings, &options, |report| {
        assert!(report.errors.is_empty(), "{:?}", report.errors);
        summary.add(&report);
        for reporter in &mut reporters {
            reporter.document(&report.analyses).unwrap();
        }
        for located in report.analyses.iter().flat_map(|a| &a.findings) {
            findings += 1;
            if let Some((_, edits)) = located.fix_edits() {
                fixes += 1;
                assert!(!edits.is_empty(), "{}", located.finding.message);
            }
        }
        analyses.extend(report.analyses);
    });
    for reporter in &mut reporters {
        reporter.finish(&summary).unwrap();
    }
    drop(reporters);
    assert!(buffers.iter().all(|out| !out.is_empty()));
    let drawn = [
        analyses
            .iter()
            .map(|a| explain::text(a, Style::plain()))
            .collect::<String>(),
        explain::json(&analyses, &settings).to_string(),
        explain::svg(&analyses),
        explain::html(&analyses, &settings),
    ];
    assert!(drawn.iter().all(|out| !out.is_empty()));
    (findings, fixes)
}

#[test]
fn a_list_of_a_whole_cluster_is_indexed_a_fixed_number_of_times_whatever_its_findings() {
    let workloads = 60;
    for (name, text) in [
        ("YAML", yaml_list(workloads, 20)),
        ("JSON", json_list(workloads, 20)),
    ] {
        let before = indexed_bytes();
        let (findings, fixes) = report_everything(&text);
        let indexed = indexed_bytes() - before;
        // Each Deployment's ML101 and twenty ML207s, each Job's ML301: the work to place.
        assert!(findings >= workloads * 22, "{name}: {findings} findings");
        assert!(fixes >= workloads * 21, "{name}: {fixes} fixes");
        // The document is indexed once; a fix made of changes in turn reads the text
        // of its own item again after each change (two per Job here). Walking the
        // document for each finding would index it about 1,300 times.
        let per_byte = indexed as f64 / text.len() as f64;
        assert!(
            per_byte <= 2.0,
            "{name}: {indexed} bytes indexed for a document of {}: {per_byte:.1} times each",
            text.len()
        );
        assert!(
            indexed >= text.len() as u64,
            "{name}: the document was indexed"
        );
    }
}
