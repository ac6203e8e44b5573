//! A Pod of many containers carries a fix per container: checking each on its own
//! analysis of the whole pod would cost the pod's size squared, so fixes of one rule
//! are checked in groups (`pipeline::fix::checks`). The verdicts must be those each fix gets
//! where it is checked alone, and the work must stay a few analyses of the pod.
//!
//! The work is counted (`pipeline::fix::checks::checked_bytes`), process-wide: the test holds
//! `crate::counting` while it counts.

use crate::common;

use std::collections::BTreeSet;

use mesh_lifecycle::pipeline::fix::checks::checked_bytes;

/// A Pod of `containers` serving containers with no preStop delay (ML207 on each).
/// With `first_waits`, an Istio-injected one whose first container's preStop sleeps
/// 15 s: each other container's delay goes with the proxy's drain, and every fix
/// passes. Without, one beside a Cloud SQL proxy that stops on SIGTERM and has no
/// setting to stay (its flags are the user's): each delay would leave its app serving
/// longer without the proxy (ML202), and every fix is refused.
fn pod(containers: usize, first_waits: bool) -> String {
    let labels = if first_waits {
        "{sidecar.istio.io/inject: \"true\"}"
    } else {
        "{app: wide}"
    };
    let mut text = format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: wide\n  namespace: shop\n  labels: {labels}\nspec:\n  terminationGracePeriodSeconds: 45\n  containers:\n"
    );
    for n in 0..containers {
        text.push_str(&format!(
            "  - name: c{n}\n    image: example/app:1.0\n    ports: [{{containerPort: {}}}]\n",
            8000 + n
        ));
        if n == 0 && first_waits {
            text.push_str(
                "    lifecycle:\n      preStop:\n        exec: {command: [sleep, '15']}\n",
            );
        }
    }
    if !first_waits {
        text.push_str("  - name: cloud-sql-proxy\n    image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.8.0\n    args: [\"--port=5432\", \"project:region:db\"]\n");
    }
    text
}

/// `reason` with container names (`c17`) written `c*`, so that the verdicts of
/// different containers compare.
fn any_container(reason: &str) -> String {
    let mut out = String::new();
    let mut chars = reason.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '`' && chars.peek() == Some(&'c') {
            let rest: String = chars.clone().skip(1).take_while(|c| *c != '`').collect();
            if !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()) {
                out.push_str("c*");
                for _ in 0..=rest.len() {
                    chars.next();
                }
            }
        }
    }
    out
}

/// Each ML207 finding's fix verdict, by container: `ok`, or the reason it was refused.
fn ml207_verdicts(text: &str) -> Vec<(String, String)> {
    ml207_verdicts_on(text, 1)
}

/// [`ml207_verdicts`] of a run on `threads` threads.
fn ml207_verdicts_on(text: &str, threads: usize) -> Vec<(String, String)> {
    let mut verdicts = Vec::new();
    common::in_process::each_finding_on(text, threads, |located| {
        if located.finding.rule.id != "ML207" {
            return;
        }
        let verdict = match &located.fix {
            Some(Ok(_)) => "ok".to_owned(),
            Some(Err(reason)) => any_container(reason),
            None => "none".to_owned(),
        };
        verdicts.push((located.finding.container.clone().unwrap(), verdict));
    });
    verdicts
}

#[test]
fn fixes_checked_in_groups_get_their_verdicts_alone_for_a_few_analyses_of_the_pod() {
    let _counting = crate::counting();
    for first_waits in [true, false] {
        // Three containers are checked one by one; forty in groups.
        let alone: BTreeSet<String> = ml207_verdicts(&pod(3, first_waits))
            .into_iter()
            .map(|(_, verdict)| verdict)
            .collect();
        assert_eq!(alone.len(), 1, "{first_waits}: {alone:?}");
        let wide = ml207_verdicts(&pod(40, first_waits));
        let expected = if first_waits { 39 } else { 40 };
        assert_eq!(wide.len(), expected, "{first_waits}: {wide:?}");
        for (container, verdict) in &wide {
            assert!(
                alone.contains(verdict),
                "{first_waits}: {container}: {verdict}"
            );
        }
    }
    // Both verdicts occur: each fix passes, or each would make ML202 worse and is
    // refused.
    assert_eq!(ml207_verdicts(&pod(40, true))[0].1, "ok");
    let refused = &ml207_verdicts(&pod(40, false))[0].1;
    assert!(refused.contains("would make ML202 worse"), "{refused}");

    let text = pod(200, true);
    let before = checked_bytes();
    let verdicts = ml207_verdicts(&text);
    let checked = checked_bytes() - before;
    assert_eq!(verdicts.len(), 199);
    assert!(verdicts.iter().all(|(_, verdict)| verdict == "ok"));
    // One at a time, the 199 checks would read the pod 199 times.
    assert!(
        checked < 4 * text.len() as u64,
        "{checked} bytes analysed to check the fixes of a {}-byte pod",
        text.len()
    );

    // Every fix refused, and each failing group names the members whose ML202 it makes
    // worse: split, the groups stay at about two checks per fix, never a check of
    // what is left per fix (which would read the pod 200 × 200 / 2 times).
    let text = pod(200, false);
    let before = checked_bytes();
    let verdicts = ml207_verdicts(&text);
    let checked = checked_bytes() - before;
    assert_eq!(verdicts.len(), 200);
    assert!(
        verdicts
            .iter()
            .all(|(_, verdict)| verdict.contains("would make ML202 worse"))
    );
    assert!(
        checked < 2 * 210 * text.len() as u64,
        "{checked} bytes analysed to check 200 refused fixes of a {}-byte pod",
        text.len()
    );

    // A `List` of wide pods, its items' fixes checked on two threads, gets the verdicts
    // of one thread, which are those of each pod alone.
    let mut list = "apiVersion: v1\nkind: List\nitems:\n".to_owned();
    let mut alone = Vec::new();
    for (index, first_waits) in [true, false, true, false].into_iter().enumerate() {
        let pod = pod(12, first_waits).replace("name: wide", &format!("name: wide-{index}"));
        alone.extend(ml207_verdicts(&pod));
        for (line, text) in pod.lines().enumerate() {
            list.push_str(if line == 0 { "- " } else { "  " });
            list.push_str(text);
            list.push('\n');
        }
    }
    let one = ml207_verdicts_on(&list, 1);
    assert_eq!(one, alone);
    assert_eq!(ml207_verdicts_on(&list, 2), one);
}
