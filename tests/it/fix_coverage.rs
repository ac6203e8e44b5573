//! Fix coverage: the table in docs/usage.md of findings with a safe fix, an unsafe fix or none
//! over `testdata/corpus` is what `lint` reports (regenerated with
//! `MESH_LIFECYCLE_UPDATE_DOCS=1 cargo test --test it fix_coverage::`); each fix added for
//! coverage is made through the binary where it is offered, read back by kubectl, and
//! clears its finding without a new or worse one; where it is not offered, the file
//! is left as it was.

use crate::common;

use std::collections::BTreeMap;

const COVERAGE_START: &str = "<!-- fix-coverage:start -->\n";
const COVERAGE_END: &str = "<!-- fix-coverage:end -->";

/// Per rule: findings, with a safe fix, with an unsafe fix, with none.
type Counts = BTreeMap<String, [usize; 4]>;

const SUMMARY_START: &str = "<!-- fix-coverage-summary:start -->\n";
const SUMMARY_END: &str = "<!-- fix-coverage-summary:end -->";

/// What a repository cannot show, given as the values the defaults assume: with them
/// the same findings rest on nothing assumed, and their fixes can be safe.
const SETTLED: [&str; 10] = [
    "--kubernetes-version",
    "1.36",
    "--endpoint-propagation",
    "5s",
    "--app-shutdown",
    "5s",
    "--mesh-version",
    "istio=1.26",
    "--mesh-version",
    "linkerd=2.19",
];

/// The coverage of `lint --format json` over the corpus, linted as one directory.
fn corpus_coverage() -> (Counts, String) {
    corpus_coverage_with(&[])
}

/// [`corpus_coverage`] with `flags`.
fn corpus_coverage_with(flags: &[&str]) -> (Counts, String) {
    let (report, _) = common::lint_json(&common::testdata("corpus"), flags);
    let mut counts = Counts::new();
    let mut severities = BTreeMap::new();
    for finding in report["findings"].as_array().unwrap() {
        let rule = finding["ruleId"].as_str().unwrap().to_owned();
        severities
            .entry(rule.clone())
            .or_insert_with(Vec::new)
            .push(finding["severity"].as_str().unwrap().to_owned());
        let row = counts.entry(rule).or_default();
        row[0] += 1;
        match finding["fix"]["applicability"].as_str() {
            Some("safe") => row[1] += 1,
            Some("unsafe") => row[2] += 1,
            _ => row[3] += 1,
        }
    }
    let mut table = String::from(
        "| Rule | Severity | Findings | Safe fix | Unsafe fix | No fix |\n|------|----------|---------:|---------:|-----------:|-------:|\n",
    );
    let mut total = [0; 4];
    for (rule, row) in &counts {
        let mut kinds = severities[rule].clone();
        kinds.sort();
        kinds.dedup();
        table.push_str(&format!(
            "| {rule} | {} | {} | {} | {} | {} |\n",
            kinds.join(", "),
            row[0],
            row[1],
            row[2],
            row[3]
        ));
        for (sum, value) in total.iter_mut().zip(row) {
            *sum += value;
        }
    }
    table.push_str(&format!(
        "| **all** | | **{}** | **{}** | **{}** | **{}** |\n",
        total[0], total[1], total[2], total[3]
    ));
    (counts, table)
}

#[test]
fn documented_coverage_table_is_what_lint_reports_over_the_corpus() {
    let (counts, table) = corpus_coverage();
    documented("docs/usage.md", (COVERAGE_START, COVERAGE_END), &table);
    // Every finding the corpus shows with a mechanical remedy carries a fix: ML202 on
    // a Job through ML301's native sidecar, which clears both.
    for rule in ["ML202", "ML203", "ML301"] {
        assert!(
            counts.get(rule).is_some_and(|row| row[0] > 0),
            "the corpus shows {rule}"
        );
    }
    let (report, _) = common::lint_json(&common::testdata("corpus"), &[]);
    let findings = report["findings"].as_array().unwrap();
    let fixed_by_native = |finding: &serde_json::Value| {
        findings.iter().any(|other| {
            other["ruleId"] == "ML301"
                && other["file"] == finding["file"]
                && other["workload"] == finding["workload"]
                && !other["fix"].is_null()
        })
    };
    for finding in findings {
        let rule = finding["ruleId"].as_str().unwrap();
        if ["ML202", "ML203", "ML301"].contains(&rule) && finding["fix"].is_null() {
            assert!(
                rule == "ML202" && fixed_by_native(finding),
                "{rule} without a fix: {finding}"
            );
        }
    }
}

/// The text between `markers` in the file at `path` (from the repository's root) is
/// `text`, or is made so with `MESH_LIFECYCLE_UPDATE_DOCS`.
fn documented(path: &str, (start_marker, end_marker): (&str, &str), text: &str) {
    let path = common::root().join(path);
    let doc = std::fs::read_to_string(&path).unwrap();
    let start = doc
        .find(start_marker)
        .unwrap_or_else(|| panic!("{} has {start_marker}", path.display()))
        + start_marker.len();
    let end = doc
        .find(end_marker)
        .unwrap_or_else(|| panic!("{} has {end_marker}", path.display()));
    if std::env::var_os("MESH_LIFECYCLE_UPDATE_DOCS").is_some() {
        let updated = format!("{}{text}{}", &doc[..start], &doc[end..]);
        std::fs::write(&path, updated).unwrap();
    } else {
        assert_eq!(
            doc[start..end],
            *text,
            "the fix coverage in {} is stale; run MESH_LIFECYCLE_UPDATE_DOCS=1 cargo test --test it fix_coverage::",
            path.display()
        );
    }
}

/// The findings of every rule and those with a safe and an unsafe fix, summed.
fn totals(counts: &Counts) -> [usize; 3] {
    counts.values().fold([0; 3], |[all, safe, unsafe_], row| {
        [all + row[0], safe + row[1], unsafe_ + row[2]]
    })
}

/// The README says how much of the corpus default `--fix` fixes, and how much once
/// the run is given what the repository cannot show: a fix is safe only where nothing
/// it rests on is assumed, and giving the assumed values as facts makes the same
/// findings' fixes safe.
#[test]
fn readme_states_the_default_fix_coverage_of_the_corpus() {
    let [all, safe, unsafe_] = totals(&corpus_coverage().0);
    let [settled_all, settled_safe, _] = totals(&corpus_coverage_with(&SETTLED).0);
    assert!(
        settled_safe > safe,
        "settling the premises makes fixes safe: {settled_safe} against {safe}"
    );
    let summary = format!(
        "On the real manifests of `testdata/corpus`, `lint` reports {all} findings: `--fix`\n\
         makes the safe fixes of {safe}, and `--unsafe-fixes` those of {unsafe_} more. A fix is\n\
         safe only where nothing it rests on is assumed (an unsafe one says what it assumes);\n\
         given what the repository cannot show, here the very values the defaults assume\n\
         (`{}`),\n\
         `--fix` fixes {settled_safe} of the {settled_all} findings it reports.\n",
        SETTLED.join(" ")
    );
    documented("README.md", (SUMMARY_START, SUMMARY_END), &summary);
}

/// A fixture of `testdata/fixes/coverage/` copied into a fresh directory.
fn copy(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::copy(common::testdata(&format!("fixes/coverage/{name}")), &path).unwrap();
    (dir, path)
}

/// The value at a `/`-separated pointer of what kubectl read.
fn at<'a>(object: &'a serde_json::Value, pointer: &str) -> &'a serde_json::Value {
    object.pointer(pointer).unwrap_or(&serde_json::Value::Null)
}

/// Fixes the fixture `name` of `testdata/fixes/coverage/` as
/// [`common::fixing::fix_fixture`] does; returns the fixed file and what kubectl reads
/// before and after.
fn fixed(
    name: &str,
    rule: &str,
    flags: &[&str],
) -> (String, Option<(serde_json::Value, serde_json::Value)>) {
    let fixed = common::fixing::fix_fixture(&format!("fixes/coverage/{name}"), rule, flags);
    (fixed.text, fixed.reads)
}

/// Runs `lint --fix --unsafe-fixes` on `name`, where `rule` fires but has no fix: the
/// file is left as it was.
fn not_fixed(name: &str, rule: &str) {
    let (_dir, path) = copy(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let flags = common::profile_flags(&text);
    let lint_flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let (report, _) = common::lint_json(&path, &lint_flags);
    let offered: Vec<_> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| finding["ruleId"] == rule)
        .collect();
    assert!(!offered.is_empty(), "{name} fires {rule}");
    assert!(
        offered.iter().all(|finding| finding["fix"].is_null()),
        "{name}: {rule} offers no fix: {offered:?}"
    );
    common::cli()
        .arg("lint")
        .args(&flags)
        .args(["--fix", "--unsafe-fixes", "--select", rule])
        .arg(&path)
        .assert()
        .code(predicates::ord::lt(2));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        text,
        "{name} changed"
    );
}

/// The container named `name` in what kubectl read.
fn container<'a>(object: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    at(object, "/spec/template/spec/containers")
        .as_array()
        .unwrap()
        .iter()
        .find(|container| container["name"] == name)
        .unwrap_or_else(|| panic!("no container {name}"))
}

#[test]
fn ml202_and_ml203_linkerd_wait_is_set_once_to_the_value_that_clears_both() {
    let (text, reads) = fixed(
        "linkerd-wait-3-app-sleep-10.yaml",
        "ML202",
        &["--unsafe-fixes"],
    );
    assert!(
        text.contains("config.alpha.linkerd.io/proxy-wait-before-exit-seconds: \"20\""),
        "{text}"
    );
    if let Some((before, after)) = reads {
        let annotations = "/spec/template/metadata/annotations";
        let mut expected = before.clone();
        expected.pointer_mut(annotations).unwrap()["config.alpha.linkerd.io/proxy-wait-before-exit-seconds"] =
            "20".into();
        assert_eq!(after, expected, "exactly the wait changed");
    }
}

#[test]
fn ml202_and_ml203_fix_is_safe_once_the_times_it_rests_on_are_set() {
    // The times, and the release: on a native proxy (Linkerd 2.20) neither fires.
    let flags = [
        "--app-shutdown",
        "5s",
        "--endpoint-propagation",
        "5s",
        "--mesh-version",
        "linkerd=2.19",
    ];
    let (text, _) = fixed("linkerd-wait-3-app-sleep-10.yaml", "ML203", &flags);
    assert!(
        text.contains("proxy-wait-before-exit-seconds: \"20\""),
        "plain --fix sets the wait: {text}"
    );
}

#[test]
fn ml202_and_ml203_on_a_written_linkerd_proxy_edit_its_prestop() {
    let (text, reads) = fixed("linkerd-written-proxy.yaml", "ML203", &["--unsafe-fixes"]);
    assert!(
        !text.contains("proxy-wait-before-exit-seconds: "),
        "no annotation the injector will not read again: {text}"
    );
    if let Some((before, after)) = reads {
        let proxy = container(&after, "linkerd-proxy");
        assert_eq!(
            proxy["lifecycle"]["preStop"],
            serde_json::json!({"exec": {"command": ["/bin/sleep", "15"]}})
        );
        assert_eq!(
            proxy["lifecycle"]["postStart"],
            container(&before, "linkerd-proxy")["lifecycle"]["postStart"],
            "the postStart is kept"
        );
    }
}

#[test]
fn ml202_istio_sets_termination_drain_duration_in_the_proxy_config() {
    let (text, reads) = fixed("istio-app-prestop.yaml", "ML202", &["--unsafe-fixes"]);
    assert!(text.contains("terminationDrainDuration: 30s"), "{text}");
    if let Some((_, after)) = reads {
        let config = at(
            &after,
            "/spec/template/metadata/annotations/proxy.istio.io~1config",
        )
        .as_str()
        .unwrap();
        assert!(
            config.contains("holdApplicationUntilProxyStarts: true")
                && config.contains("terminationDrainDuration: 30s"),
            "{config}"
        );
    }
}

#[test]
fn ml202_and_ml203_dapr_sets_block_shutdown_duration() {
    let (text, reads) = fixed("dapr-invocation.yaml", "ML203", &["--unsafe-fixes"]);
    assert!(
        text.contains("dapr.io/block-shutdown-duration: 15s"),
        "{text}"
    );
    if let Some((_, after)) = reads {
        assert_eq!(
            at(
                &after,
                "/spec/template/metadata/annotations/dapr.io~1block-shutdown-duration"
            ),
            "15s"
        );
    }
}

#[test]
fn ml202_has_no_fix_for_a_sidecar_configured_by_its_flags() {
    not_fixed("cloudsql-classic.yaml", "ML202");
}

#[test]
fn ml208_sleep_in_a_shell_becomes_the_sleep_action() {
    // Safe on a Kubernetes version the run is given; on the default one it is unsafe,
    // and says that it assumes the version.
    let path = common::testdata("fixes/coverage/distroless-sh.yaml");
    let (report, _) = common::lint_json(&path, &[]);
    let fix = &common::reports::findings(&report, "ML208")[0]["fix"];
    assert_eq!(fix["applicability"], "unsafe", "{fix}");
    assert_eq!(fix["restsOn"][0]["kind"], "kubernetesVersion", "{fix}");
    let (text, reads) = fixed(
        "distroless-sh.yaml",
        "ML208",
        &["--kubernetes-version", "1.33"],
    );
    assert!(!text.contains("[\"/bin/sh\", \"-c\""), "{text}");
    if let Some((_, after)) = reads {
        assert_eq!(
            container(&after, "api")["lifecycle"]["preStop"],
            serde_json::json!({"sleep": {"seconds": 5}})
        );
    }
}

#[test]
fn ml208_without_the_sleep_action_runs_sleep_where_only_the_shell_is_missing() {
    let (_, reads) = fixed("linkerd-proxy-shell-1.29.yaml", "ML208", &[]);
    if let Some((_, after)) = reads {
        assert_eq!(
            container(&after, "linkerd-proxy")["lifecycle"]["preStop"],
            serde_json::json!({"exec": {"command": ["sleep", "10"]}})
        );
    }
}

#[test]
fn ml208_has_no_fix_without_sleep_or_for_a_hook_that_does_more() {
    not_fixed("distroless-sh-1.28.yaml", "ML208");
    not_fixed("distroless-sh-and-more.yaml", "ML208");
}

#[test]
fn ml204_istio_drain_lets_the_longest_request_finish_with_the_grace_period_it_needs() {
    let (_, reads) = fixed("istio-long-requests.yaml", "ML204", &["--unsafe-fixes"]);
    if let Some((_, after)) = reads {
        let config = at(
            &after,
            "/spec/template/metadata/annotations/proxy.istio.io~1config",
        )
        .as_str()
        .unwrap();
        assert!(
            config.contains("\"terminationDrainDuration\": \"78s\""),
            "{config}"
        );
        assert_eq!(
            at(&after, "/spec/template/spec/terminationGracePeriodSeconds"),
            94
        );
    }
}

#[test]
fn ml204_cut_by_sigkill_raises_the_grace_period() {
    let (_, reads) = fixed("grace-long-requests.yaml", "ML204", &["--unsafe-fixes"]);
    if let Some((_, after)) = reads {
        assert_eq!(
            at(&after, "/spec/template/spec/terminationGracePeriodSeconds"),
            120
        );
    }
}

#[test]
fn ml104_turns_the_mesh_gate_back_on() {
    let (text, reads) = fixed("linkerd-native-await-disabled.yaml", "ML104", &[]);
    assert!(
        text.contains("config.linkerd.io/proxy-await: enabled"),
        "{text}"
    );
    if let Some((_, after)) = reads {
        assert_eq!(
            at(
                &after,
                "/spec/template/metadata/annotations/config.linkerd.io~1proxy-await"
            ),
            "enabled"
        );
    }
}

#[test]
fn ml104_written_sidecar_gets_a_startup_probe_on_its_own_readiness_check() {
    let (_, reads) = fixed(
        "cloudsql-native-no-startup-probe.yaml",
        "ML104",
        &["--unsafe-fixes"],
    );
    if let Some((before, after)) = reads {
        let sidecar = &at(&after, "/spec/template/spec/initContainers")[0];
        assert_eq!(
            sidecar["startupProbe"],
            serde_json::json!({
                "httpGet": {"path": "/readiness", "port": 9090},
                "periodSeconds": 1,
                "failureThreshold": 120
            })
        );
        let mut unchanged = after.clone();
        unchanged
            .pointer_mut("/spec/template/spec/initContainers/0")
            .unwrap()
            .as_object_mut()
            .unwrap()
            .remove("startupProbe");
        assert_eq!(unchanged, before, "only the probe is added");
    }
}

#[test]
fn ml104_has_no_fix_without_a_readiness_check() {
    not_fixed("native-sidecar-without-readiness.yaml", "ML104");
}
