//! A Pod of many containers carries a fix per container: checking each on its own
//! analysis of the whole pod would cost the pod's size squared, so fixes of one rule
//! are checked in groups (`fix::checks`). The verdicts must be those each fix gets
//! where it is checked alone, and the work must stay a few analyses of the pod.
//!
//! The work is counted (`fix::checks::checked_bytes`), process-wide: this file's one
//! test runs alone in its process.

use std::collections::BTreeSet;

use mesh_lifecycle::fix::checks::checked_bytes;
use mesh_lifecycle::load::Inputs;
use mesh_lifecycle::pipeline::{self, RunOptions};
use mesh_lifecycle::settings::Settings;

/// A Pod of `containers` serving containers with no preStop delay (ML207 on each),
/// injected by `mesh`'s label or annotation.
fn pod(containers: usize, mesh: &str) -> String {
    let inject = match mesh {
        "istio" => "  labels: {sidecar.istio.io/inject: \"true\"}\n",
        "linkerd" => "  annotations: {linkerd.io/inject: enabled}\n",
        other => panic!("no such mesh: {other}"),
    };
    let mut text = format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: wide\n  namespace: shop\n{inject}spec:\n  containers:\n"
    );
    for n in 0..containers {
        text.push_str(&format!(
            "  - name: c{n}\n    image: example/app:1.0\n    ports: [{{containerPort: {}}}]\n",
            8000 + n
        ));
    }
    text
}

/// Each ML207 finding's fix verdict, by container: `ok`, or the reason it was refused.
fn ml207_verdicts(text: &str) -> Vec<(String, String)> {
    let inputs = Inputs::from_bytes(text.as_bytes().to_vec());
    let mut verdicts = Vec::new();
    pipeline::run(
        &inputs,
        &Settings::default(),
        &RunOptions {
            threads: 1,
            ..RunOptions::default()
        },
        |report| {
            for located in report.analyses.iter().flat_map(|a| &a.findings) {
                if located.finding.rule.id != "ML207" {
                    continue;
                }
                let verdict = match &located.fix {
                    Some(Ok(_)) => "ok".to_owned(),
                    Some(Err(reason)) => reason.clone(),
                    None => "none".to_owned(),
                };
                verdicts.push((located.finding.container.clone().unwrap(), verdict));
            }
        },
    );
    verdicts
}

#[test]
fn fixes_checked_in_groups_get_their_verdicts_alone_for_a_few_analyses_of_the_pod() {
    for mesh in ["istio", "linkerd"] {
        // Three containers are checked one by one; forty in groups.
        let alone: BTreeSet<String> = ml207_verdicts(&pod(3, mesh))
            .into_iter()
            .map(|(_, verdict)| verdict)
            .collect();
        assert_eq!(alone.len(), 1, "{mesh}: {alone:?}");
        let wide = ml207_verdicts(&pod(40, mesh));
        assert_eq!(wide.len(), 40, "{mesh}: {wide:?}");
        for (container, verdict) in &wide {
            assert!(alone.contains(verdict), "{mesh}: {container}: {verdict}");
        }
    }
    // Both verdicts occur: Istio's fixes pass, Linkerd's widen ML202 and are refused.
    assert_eq!(ml207_verdicts(&pod(40, "istio"))[0].1, "ok");
    let refused = &ml207_verdicts(&pod(40, "linkerd"))[0].1;
    assert!(refused.contains("ML202"), "{refused}");

    let text = pod(200, "istio");
    let before = checked_bytes();
    let verdicts = ml207_verdicts(&text);
    let checked = checked_bytes() - before;
    assert_eq!(verdicts.len(), 200);
    assert!(verdicts.iter().all(|(_, verdict)| verdict == "ok"));
    // One at a time, the 200 checks would read the pod 200 times.
    assert!(
        checked < 4 * text.len() as u64,
        "{checked} bytes analysed to check the fixes of a {}-byte pod",
        text.len()
    );
}
