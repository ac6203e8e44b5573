//! Lists of the same objects in the shapes kubectl prints them: a YAML `List`
//! (`kubectl get -o yaml`), a JSON `List` (`-o json`), and a stream of documents.

/// `workloads` injected Deployments with `containers` serving containers each (an
/// ML207 per container, with its fix) and a Job whose Cloud SQL proxy never exits
/// (ML301, whose fix moves it and then sets it: changes made in turn), as one YAML
/// `List`.
pub fn yaml_list(workloads: usize, containers: usize) -> String {
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
pub fn json_list(workloads: usize, containers: usize) -> String {
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

/// `documents` (each one object, no `---`) as the items of one YAML `List`.
pub fn list_of(documents: &[String]) -> String {
    let mut out = String::from("apiVersion: v1\nkind: List\nitems:\n");
    for document in documents {
        for (index, line) in document.lines().enumerate() {
            out.push_str(if index == 0 { "- " } else { "  " });
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// `documents` as a stream, one document each.
pub fn stream_of(documents: &[String]) -> String {
    documents
        .iter()
        .map(|document| format!("---\n{document}"))
        .collect()
}
