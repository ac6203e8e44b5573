//! One answer per setting: when one setting of a proxy clears several of its findings,
//! their helps and fixes give the same value, the smallest that clears them all,
//! computed from the timeline, and each says it clears the others. A proxy written in
//! the manifest gets the snippet its injector would have written.

use crate::common;

/// The findings of `rule` in the report of `fixture` linted with `flags`.
fn findings_of(fixture: &str, rule: &str, flags: &[&str]) -> Vec<serde_json::Value> {
    let (report, _) = common::lint_json(&common::testdata(fixture), flags);
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| finding["ruleId"] == rule)
        .cloned()
        .collect()
}

/// The one finding of `rule`.
fn only(fixture: &str, rule: &str, flags: &[&str]) -> serde_json::Value {
    let mut found = findings_of(fixture, rule, flags);
    assert_eq!(found.len(), 1, "{fixture}: one {rule}: {found:?}");
    found.remove(0)
}

#[test]
fn linkerd_wait_already_set_ml202_and_ml203_give_the_one_value_that_clears_both() {
    // Wait 3 s, app preStop 10 s then app-shutdown 5 s: the app exits at 15 s, after
    // endpoint removal at 5 s, so 15 clears both (not 15 - 3 = 12, nor a fixed 10),
    // and the fixes' 5 s of headroom make it 20.
    let fixture = "fixes/coverage/linkerd-wait-3-app-sleep-10.yaml";
    let ml202 = only(fixture, "ML202", &[]);
    let ml203 = only(fixture, "ML203", &[]);
    let wait = "config.alpha.linkerd.io/proxy-wait-before-exit-seconds: \"20\"";
    for (finding, other) in [(&ml202, "ML203"), (&ml203, "ML202")] {
        let help = finding["help"].as_str().unwrap();
        assert!(help.contains(wait), "{help}");
        assert!(
            help.contains(&format!("this one value also clears {other}")),
            "{help}"
        );
    }
    assert_eq!(ml202["fix"], ml203["fix"], "one fix, carried by both");
    assert!(
        ml202["fix"]["description"]
            .as_str()
            .unwrap()
            .contains("proxy-wait-before-exit-seconds: \"20\""),
        "{}",
        ml202["fix"]
    );
}

#[test]
fn the_value_follows_the_scenario() {
    // A longer app shutdown moves the app's exit, and so the one value, with it: 22 s
    // and a fifth of it as headroom.
    let fixture = "fixes/coverage/linkerd-wait-3-app-sleep-10.yaml";
    let flags = ["--app-shutdown", "12s"];
    for rule in ["ML202", "ML203"] {
        let help = only(fixture, rule, &flags)["help"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            help.contains("proxy-wait-before-exit-seconds: \"27\""),
            "{rule}: {help}"
        );
    }
    // Endpoint removal later than the app's exit decides instead; with the times and
    // the release given, the fix rests on nothing assumed.
    let flags = [
        "--app-shutdown",
        "1s",
        "--endpoint-propagation",
        "20s",
        "--mesh-version",
        "linkerd=2.19",
    ];
    let finding = only(fixture, "ML202", &flags);
    let help = finding["help"].as_str().unwrap();
    assert!(
        help.contains("proxy-wait-before-exit-seconds: \"25\""),
        "{help}"
    );
    assert_eq!(
        finding["fix"]["applicability"], "safe",
        "set times make the fix safe"
    );
    // A wait past the grace period (30 s) is still the answer, and the fix raises the
    // grace period with it, by the headroom again, so the proxy is not cut short.
    let flags = ["--app-shutdown", "1s", "--endpoint-propagation", "30s"];
    let finding = only(fixture, "ML202", &flags);
    let help = finding["help"].as_str().unwrap();
    assert!(
        help.contains("proxy-wait-before-exit-seconds: \"36\""),
        "{help}"
    );
    let description = finding["fix"]["description"].as_str().unwrap();
    assert!(
        description.contains("raise `terminationGracePeriodSeconds` to 44 s"),
        "{description}"
    );
}

#[test]
fn a_written_linkerd_proxy_gets_its_prestop_at_the_same_value_in_both_helps() {
    let fixture = "fixes/coverage/linkerd-written-proxy.yaml";
    let snippet = "command: [/bin/sleep, \"15\"]";
    for rule in ["ML202", "ML203"] {
        let help = only(fixture, rule, &[])["help"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(help.contains(snippet), "{rule}: {help}");
        assert!(help.contains("- name: linkerd-proxy"), "{rule}: {help}");
    }
}

#[test]
fn istio_drain_help_names_the_value_that_covers_the_app() {
    let help = only("fixes/coverage/istio-app-prestop.yaml", "ML202", &[])["help"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(help.contains("terminationDrainDuration: 30s"), "{help}");
    assert!(help.contains("EXIT_ON_ZERO_ACTIVE_CONNECTIONS"), "{help}");
}

#[test]
fn ml101_on_a_written_proxy_gives_the_snippet_its_injector_writes() {
    let finding = only(
        "corpus/linkerd-inject/linkerd2-b24cd40/inject_tap_deployment.input.yml",
        "ML101",
        &[],
    );
    let help = finding["help"].as_str().unwrap();
    assert!(
        help.contains(
            "  - name: linkerd-proxy\n    lifecycle:\n      postStart:\n        exec:\n          command: [/usr/lib/linkerd/linkerd-await, --timeout=2m, --port=4191]\n  - name: tap\n"
        ),
        "{help}"
    );
    assert!(
        finding["fix"].is_null(),
        "moving the proxy is left to the user"
    );
}
