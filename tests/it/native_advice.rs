//! "Make it native" is said only through the version-aware switch of the sidecar's
//! model: ML101's help and ML301's fix name the annotation the release in force reads,
//! and none where it reads none (docs/lifecycle.md §3.3 and §4.2). One case per version
//! boundary: Istio's per-pod `sidecar.istio.io/nativeSidecar` from 1.24; Linkerd's alpha
//! key from 2.15 and beta key from 2.19 (from 2.20 its proxy is native by default and
//! ML101 has nothing to advise); Dapr's `dapr.io/enable-native-sidecar` from 1.18;
//! istiod's `ENABLE_NATIVE_SIDECARS` where an Istio release reads no pod switch.

use crate::common;

use std::path::{Path, PathBuf};

/// Every native-sidecar annotation any release reads.
const NATIVE_KEYS: [&str; 4] = [
    "sidecar.istio.io/nativeSidecar",
    "config.alpha.linkerd.io/proxy-enable-native-sidecar",
    "config.beta.linkerd.io/proxy-enable-native-sidecar",
    "config.linkerd.io/proxy-enable-native-sidecar",
];

/// The native-sidecar annotations `text` names.
fn keys_in(text: &str) -> Vec<&'static str> {
    NATIVE_KEYS
        .into_iter()
        // The GA key is the others' suffix: a whole key, after a non-key character.
        .filter(|key| {
            text.match_indices(key).any(|(at, _)| {
                text[..at]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !c.is_ascii_alphanumeric() && c != '.')
            })
        })
        .collect()
}

/// The help of `rule`'s finding and its fix's description, linting `fixture` with
/// `flags`.
fn advice(fixture: &str, flags: &[&str], rule: &str) -> (String, String) {
    advice_at(&common::testdata(fixture), flags, rule)
}

/// [`advice`] for the manifest at `path`.
fn advice_at(path: &Path, flags: &[&str], rule: &str) -> (String, String) {
    let (report, _) = common::lint_json(path, flags);
    let finding = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["ruleId"] == rule)
        .unwrap_or_else(|| panic!("{rule} on {} with {flags:?}: {report}", path.display()));
    let help = finding["help"].as_str().unwrap().to_owned();
    let fix = finding["fix"]["description"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    (help, fix)
}

/// `fixture` with each `(from, to)` replaced once, written to a temporary directory.
fn variant(fixture: &str, changes: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let mut text = std::fs::read_to_string(common::testdata(fixture)).expect("the fixture reads");
    for (from, to) in changes {
        assert!(text.contains(from), "{fixture} has {from:?}");
        text = text.replacen(from, to, 1);
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("variant.yaml");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

#[test]
fn ml101_help_names_the_key_the_release_reads() {
    let cases: [(&str, &[&str], &[&str]); 2] = [
        (
            "rules/ml301-fire-no-native-sidecars.yaml",
            &["--istio-version", "1.23"],
            &[],
        ),
        (
            "rules/ml301-fire-no-native-sidecars.yaml",
            &["--istio-version", "1.24"],
            &["sidecar.istio.io/nativeSidecar"],
        ),
    ];
    for (fixture, flags, expected) in cases {
        let (help, _) = advice(fixture, flags, "ML101");
        assert_eq!(keys_in(&help), expected, "{fixture} {flags:?}: {help}");
    }
}

/// Linkerd's injector gives a native proxy its startupProbe only with proxy-await on
/// (docs/lifecycle.md §4.2): where the pod turns await off, ML101 asks for await and
/// offers no native proxy as the hold, on every release that reads a switch, nor ML103
/// as the proxy its init containers wait for; the
/// switch each release reads is still what ML202 offers for the proxy's exit.
#[test]
fn a_native_linkerd_proxy_holds_the_app_only_with_await() {
    for version in ["2.14", "2.15", "2.18", "2.19"] {
        let flags = ["--linkerd-version", version];
        let (help, fix) = advice(
            "rules/ml101-fire-linkerd-await-disabled.yaml",
            &flags,
            "ML101",
        );
        assert_eq!(keys_in(&help), [] as [&str; 0], "{version}: {help}");
        assert!(
            help.contains("config.linkerd.io/proxy-await: enabled")
                && fix.contains("config.linkerd.io/proxy-await: enabled"),
            "{version}: {help} / {fix}"
        );
    }
    // Nor as the proxy that holds the pod's init containers (ML103), which it is with
    // await on.
    let init_call = "rules/ml103-fire-linkerd-classic.yaml";
    let (_dir, without_await) = variant(
        init_call,
        &[(
            "        linkerd.io/inject: enabled\n",
            "        linkerd.io/inject: enabled\n        config.linkerd.io/proxy-await: disabled\n",
        )],
    );
    for version in ["2.15", "2.19"] {
        let (help, _) = advice_at(&without_await, &["--linkerd-version", version], "ML103");
        assert_eq!(keys_in(&help), [] as [&str; 0], "{version}: {help}");
    }
    let (help, _) = advice(init_call, &["--linkerd-version", "2.19"], "ML103");
    assert_eq!(
        keys_in(&help),
        ["config.beta.linkerd.io/proxy-enable-native-sidecar"],
        "{help}"
    );
    let cases: [(&str, &[&str]); 4] = [
        ("2.14", &[]),
        (
            "2.15",
            &["config.alpha.linkerd.io/proxy-enable-native-sidecar"],
        ),
        (
            "2.18",
            &["config.alpha.linkerd.io/proxy-enable-native-sidecar"],
        ),
        (
            "2.19",
            &["config.beta.linkerd.io/proxy-enable-native-sidecar"],
        ),
    ];
    for (version, expected) in cases {
        let flags = ["--linkerd-version", version, "--kubernetes-version", "1.33"];
        let (help, _) = advice(
            "rules/ml202-fire-linkerd-no-wait-before-exit.yaml",
            &flags,
            "ML202",
        );
        assert_eq!(keys_in(&help), expected, "{version}: {help}");
    }
}

#[test]
fn ml301_help_and_fix_name_the_same_key() {
    let cases: [(&str, &[&str], Option<&str>); 5] = [
        (
            "rules/ml301-fire-no-native-sidecars.yaml",
            &["--istio-version", "1.23"],
            None,
        ),
        (
            "rules/ml301-fire-no-native-sidecars.yaml",
            &["--istio-version", "1.24"],
            Some("sidecar.istio.io/nativeSidecar"),
        ),
        (
            "rules/ml301-fire-linkerd-job.yaml",
            &["--linkerd-version", "2.14"],
            None,
        ),
        (
            "rules/ml301-fire-linkerd-job.yaml",
            &["--linkerd-version", "2.15"],
            Some("config.alpha.linkerd.io/proxy-enable-native-sidecar"),
        ),
        (
            "rules/ml301-fire-linkerd-job.yaml",
            &["--linkerd-version", "2.19"],
            Some("config.beta.linkerd.io/proxy-enable-native-sidecar"),
        ),
    ];
    for (fixture, flags, expected) in cases {
        let (help, fix) = advice(fixture, flags, "ML301");
        let expected: Vec<_> = expected.into_iter().collect();
        assert_eq!(keys_in(&fix), expected, "fix, {fixture} {flags:?}: {fix}");
        // The help says nothing of a key the fix would not write.
        assert!(
            keys_in(&help).iter().all(|key| expected.contains(key)),
            "help, {fixture} {flags:?}: {help}"
        );
    }
}

#[test]
fn keys_are_told_apart() {
    // The checker itself: the GA key is not found inside the alpha one.
    assert_eq!(
        keys_in("(`config.alpha.linkerd.io/proxy-enable-native-sidecar: \"true\"`)"),
        ["config.alpha.linkerd.io/proxy-enable-native-sidecar"]
    );
    assert_eq!(
        keys_in("`config.linkerd.io/proxy-enable-native-sidecar`"),
        ["config.linkerd.io/proxy-enable-native-sidecar"]
    );
}

/// Consul's dataplane (docs/lifecycle.md §5.2): injected, it is made native by the
/// pod's `enable-consul-dataplane-as-sidecar`, not by a move, and a native dataplane is
/// signalled after the apps and still waits its shutdown grace period (30 s), past the
/// pod's: the switch comes with that period set to "0". Before Kubernetes 1.29 neither.
#[test]
fn consuls_switch_comes_with_a_shutdown_grace_of_zero() {
    const SWITCH: &str = "consul.hashicorp.com/enable-consul-dataplane-as-sidecar";
    const GRACE: &str =
        "consul.hashicorp.com/sidecar-proxy-lifecycle-shutdown-grace-period-seconds";
    let fixture = "rules/ml301-fire-consul-job.yaml";
    for rule in ["ML101", "ML301"] {
        let (help, _) = advice(fixture, &[], rule);
        assert!(
            help.contains(&format!("`{SWITCH}: \"true\"`"))
                && help.contains(&format!("`{GRACE}: \"0\"`")),
            "{rule}: {help}"
        );
        let (help, _) = advice(fixture, &["--kubernetes-version", "1.28"], rule);
        assert!(!help.contains(SWITCH), "{rule} on 1.28: {help}");
    }
    let (_, fix) = advice(fixture, &["--unsafe-fixes"], "ML301");
    assert!(fix.contains(SWITCH) && fix.contains(GRACE), "{fix}");

    // Made (and checked as every fix is), the fix leaves a Job that completes and a
    // dataplane that is not killed.
    let fixed = common::fixing::fix_fixture(fixture, "ML301", &["--unsafe-fixes"]);
    assert!(
        fixed.text.contains(&format!("{SWITCH}: \"true\""))
            && fixed.text.contains(&format!("{GRACE}: \"0\"")),
        "{}",
        fixed.text
    );
}

/// Dapr's daprd (docs/lifecycle.md §5.1): from Dapr 1.18 the pod's
/// `dapr.io/enable-native-sidecar` makes it native, and the kubelet then stops it after
/// the apps; but the injector gives it no startup probe, so a native daprd holds no app.
/// The switch is named where it stops daprd (ML202, ML301), with the release it needs,
/// and never as a hold (ML101); ML301's fix is daprd's stop call, which works on every
/// release, not a switch that would trade the finding for ML104's.
#[test]
fn daprs_switch_stops_daprd_after_the_apps_but_holds_no_app() {
    const SWITCH: &str = "`dapr.io/enable-native-sidecar: \"true\"`";
    const READY: &str = "GET :3500/v1.0/healthz/outbound";
    let job = "rules/ml301-fire-dapr-job.yaml";

    let (help, fix) = advice(job, &["--unsafe-fixes"], "ML301");
    assert!(
        help.contains(SWITCH) && help.contains("Dapr 1.18 or later"),
        "{help}"
    );
    assert!(
        help.contains("trap 'curl -fsS -X POST http://localhost:3500/v1.0/shutdown' EXIT"),
        "{help}"
    );
    assert!(
        fix.contains("/v1.0/shutdown") && !fix.contains("enable-native-sidecar"),
        "{fix}"
    );
    let fixed = common::fixing::fix_fixture(job, "ML301", &["--unsafe-fixes"]);
    assert!(
        fixed
            .text
            .contains("trap 'curl -fsS -X POST http://localhost:3500/v1.0/shutdown' EXIT; curl"),
        "{}",
        fixed.text
    );

    let (help, _) = advice(job, &[], "ML202");
    assert!(
        help.contains(SWITCH) && help.contains("Dapr 1.18 or later"),
        "{help}"
    );

    let (help, _) = advice(job, &[], "ML101");
    assert!(help.contains(READY), "{help}");
    assert!(
        !help.contains("run `daprd` as a native sidecar") && !help.contains("init container"),
        "{help}"
    );

    // Native already, daprd's missing probe is the injector's: the app waits for it.
    let (help, _) = advice("rules/ml104-fire-dapr-native.yaml", &[], "ML104");
    assert!(
        help.contains(READY) && !help.contains("give `daprd` a startupProbe"),
        "{help}"
    );
}

/// A release whose injector reads no pod switch gets no "run it as a native sidecar"
/// that the pod cannot follow: Istio 1.19 to 1.23 name istiod's `ENABLE_NATIVE_SIDECARS`
/// instead (for a proxy's exit and for a Job's), Istio 1.18 and Linkerd 2.14, which
/// have no native mode, nothing.
#[test]
fn a_release_without_a_pod_switch_gets_only_native_advice_it_can_follow() {
    let istio = "rules/ml202-fire-istio-app-prestop.yaml";
    let linkerd = "rules/ml202-fire-linkerd-no-wait-before-exit.yaml";
    let cases: [(&str, &[&str], bool); 4] = [
        (istio, &["--istio-version", "1.22"], true),
        (istio, &["--istio-version", "1.18"], false),
        (
            istio,
            &["--istio-version", "1.22", "--kubernetes-version", "1.28"],
            false,
        ),
        (linkerd, &["--linkerd-version", "2.14"], false),
    ];
    for (fixture, flags, install) in cases {
        let (help, _) = advice(fixture, flags, "ML202");
        assert!(keys_in(&help).is_empty(), "{flags:?}: {help}");
        assert!(!help.contains("native sidecar, which"), "{flags:?}: {help}");
        assert_eq!(
            help.contains("`ENABLE_NATIVE_SIDECARS=true` in its environment"),
            install,
            "{flags:?}: {help}"
        );
    }
    // From 1.24 the pod's own switch, not istiod's.
    let (help, _) = advice(istio, &["--istio-version", "1.24"], "ML202");
    assert_eq!(keys_in(&help), ["sidecar.istio.io/nativeSidecar"], "{help}");
    assert!(!help.contains("ENABLE_NATIVE_SIDECARS"), "{help}");

    // A Job's proxy: istiod's switch beside the stop call, which stays the fix (no fix
    // changes the installation); on 1.18, the stop call alone.
    let job = "rules/ml301-fire-no-native-sidecars.yaml";
    for (version, install) in [("1.22", true), ("1.18", false)] {
        let (help, fix) = advice(job, &["--istio-version", version], "ML301");
        assert_eq!(
            help.contains("`ENABLE_NATIVE_SIDECARS=true` in its environment"),
            install,
            "{version}: {help}"
        );
        assert!(keys_in(&help).is_empty(), "{version}: {help}");
        assert!(fix.contains("trap '"), "{version}: {fix}");
    }
}

/// ML103: a native proxy helps an init container's call only if it starts before it.
/// Istio's and Linkerd's injectors put theirs first (through the pod's switch, or for
/// Istio 1.19 to 1.23 istiod's); Consul's appends it after the pod's own init
/// containers, so its switch is not offered there (docs/lifecycle.md §5.2).
#[test]
fn ml103_offers_only_a_native_proxy_that_starts_before_the_init_containers() {
    let istio = "rules/ml103-fire-istio-migration.yaml";
    let (help, _) = advice(istio, &["--istio-version", "1.24"], "ML103");
    assert_eq!(keys_in(&help), ["sidecar.istio.io/nativeSidecar"], "{help}");
    let (help, _) = advice(istio, &["--istio-version", "1.22"], "ML103");
    assert!(help.contains("`ENABLE_NATIVE_SIDECARS=true`"), "{help}");
    let (help, _) = advice(istio, &["--istio-version", "1.18"], "ML103");
    assert!(!help.contains("native"), "{help}");

    let (help, _) = advice("rules/ml103-fire-consul-init-call.yaml", &[], "ML103");
    assert!(
        !help.contains("native") && help.contains("do the call in the app"),
        "{help}"
    );
    // ML101 on the same pod still names the switch: there it holds the app.
    let (help, _) = advice("rules/ml103-fire-consul-init-call.yaml", &[], "ML101");
    assert!(
        help.contains("consul.hashicorp.com/enable-consul-dataplane-as-sidecar"),
        "{help}"
    );
}

/// A native proxy without a startupProbe holds neither the app nor the init containers
/// after it: Istio's with the status port turned off (`status.sidecar.istio.io/port:
/// "0"` drops every probe of the proxy), whether the pod's switch (1.24) or istiod's
/// (1.22) would make it native, is offered as neither.
#[test]
fn a_native_proxy_without_a_startup_probe_is_offered_as_no_hold() {
    let fixture = "rules/ml103-fire-istio-migration.yaml";
    let without_probes = (
        "      annotations:\n",
        "      annotations:\n        status.sidecar.istio.io/port: \"0\"\n",
    );
    let without_hold = (
        "        proxy.istio.io/config: |\n          holdApplicationUntilProxyStarts: true\n",
        "",
    );
    let (_held_dir, held) = variant(fixture, &[without_probes]);
    let (_unheld_dir, unheld) = variant(fixture, &[without_probes, without_hold]);
    for version in ["1.22", "1.24"] {
        for (path, rule) in [(&held, "ML103"), (&unheld, "ML103"), (&unheld, "ML101")] {
            let (help, _) = advice_at(path, &["--istio-version", version], rule);
            // Named only to say that it would not hold the app either.
            let said_no_hold = help.contains(
                "gets no startupProbe from its injector, and would not hold the app either",
            );
            assert!(
                (keys_in(&help).is_empty() || said_no_hold)
                    && !help.contains("ENABLE_NATIVE_SIDECARS"),
                "{version} {rule}: {help}"
            );
        }
        // Nor is the hold, which polls the status port that is off: the app polls
        // Envoy's admin, and there is no fix.
        let (help, fix) = advice_at(&unheld, &["--istio-version", version], "ML101");
        assert!(
            help.contains("poll `GET :15000/ready`")
                && !help.contains("holdApplicationUntilProxyStarts: true"),
            "{version}: {help}"
        );
        assert_eq!(fix, "", "{version}");
    }
}

/// Helm's `global.proxy.startupProbe.enabled: false` (the configuration's
/// `istio.startupProbe`) is what leaves an injected native Istio proxy without the
/// startupProbe that holds the next container (docs/lifecycle.md §3.2): ML104's help
/// names it and where it is set. With the status port off as well, dropping the
/// annotation alone brings no startupProbe back, and the help asks for both changes;
/// without the Helm setting, for the annotation alone.
#[test]
fn ml104_names_helms_startup_probe_switch_where_it_is_off() {
    let (_dir, config) =
        common::config_file("istio:\n  version: \"1.26\"\n  startupProbe: false\n");
    let helm_off = ["--config", config.to_str().unwrap()];
    let fixture = "rules/ml104-fire-istio-status-port-off.yaml";
    let helm_back_on = format!(
        "turn Helm `global.proxy.startupProbe.enabled` back on (false in config {})",
        config.display()
    );
    let (help, _) = advice(fixture, &helm_off, "ML104");
    assert!(
        help.starts_with(&format!(
            "drop `status.sidecar.istio.io/port: \"0\"` and {helm_back_on}:"
        )),
        "{help}"
    );
    let port_on = (
        "        status.sidecar.istio.io/port: \"0\"  # expect: ML104\n",
        "",
    );
    let (_dir, with_port) = variant(fixture, &[port_on]);
    let (help, _) = advice_at(&with_port, &helm_off, "ML104");
    assert!(help.starts_with(&helm_back_on), "{help}");
    assert!(help.contains("poll `GET :15021/healthz/ready`"), "{help}");
    let (help, _) = advice(fixture, &["--istio-version", "1.26"], "ML104");
    assert!(
        help.starts_with("drop `status.sidecar.istio.io/port: \"0\"`: with it,")
            && !help.contains("global.proxy.startupProbe.enabled"),
        "{help}"
    );
}
