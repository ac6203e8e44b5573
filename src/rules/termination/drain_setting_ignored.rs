use serde_json::Value as Json;

use crate::fix::{Applicability, Change, Remedy};
use crate::load::JsonPath;
use crate::load::path::Segment;
use crate::resolve::{DrainMoot, Moot, MootSetting};
use crate::rules::help::source_label;
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Violation, declare_rule};
use crate::settings::Source;
use crate::time::Millis;

declare_rule! {
    /// ## What it detects
    /// A drain setting that has no effect in this pod: `terminationDrainDuration` while
    /// `EXIT_ON_ZERO_ACTIVE_CONNECTIONS` is on (the agent uses `MINIMUM_DRAIN_DURATION`
    /// instead), `MINIMUM_DRAIN_DURATION` while it is off, any of the three on a native
    /// sidecar whose preStop drains it (it exits as soon as SIGTERM comes), or
    /// `EXIT_ON_ZERO_ACTIVE_CONNECTIONS` on an Istio older than 1.12.
    ///
    /// ## Why it loses traffic
    /// A drain that was tuned for the app never happens: the proxy leaves at another
    /// time than its owner expects (docs/lifecycle.md §3.6; istio#44690). The setting misleads
    /// whoever reads the manifest next.
    ///
    /// ## Example
    /// ```yaml
    /// proxy.istio.io/config: |
    ///   terminationDrainDuration: 60s
    ///   proxyMetadata:
    ///     EXIT_ON_ZERO_ACTIVE_CONNECTIONS: "true"
    /// ```
    ///
    /// ## Fix
    /// Remove the setting, or set the one in effect (`MINIMUM_DRAIN_DURATION` with
    /// `EXIT_ON_ZERO_ACTIVE_CONNECTIONS`).
    ///
    /// `lint --fix` removes the setting where the manifest holds it as a key (an
    /// annotation, a key of `proxy.istio.io/config` edited in its own format): safe when
    /// the pod's own settings make it moot (a native sidecar, the other drain mode),
    /// unsafe (`--unsafe-fixes`) when only the mesh's version does, which an upgrade
    /// changes. A `terminationDrainDuration` longer than the `MINIMUM_DRAIN_DURATION`
    /// that `EXIT_ON_ZERO_ACTIVE_CONNECTIONS` reads instead keeps its intent: where that
    /// entry is unset, the value moves to `proxyMetadata.MINIMUM_DRAIN_DURATION`
    /// (unsafe: the proxy then drains at least that long). A proxy container's `env`
    /// entry is left for the user: removing its value would set the variable to the
    /// empty string.
    ///
    /// ## Evidence
    /// Info, proven or assumed; an assumed one names the reading it needs (a hook of
    /// unknown length, a version's default) and how to settle it.
    ///
    /// ## References
    /// - docs/lifecycle.md §3.3 (a native proxy's drain preStop, and when it fails and the drain settings are used again), §3.6 (the two shutdown paths of pilot-agent), §3.8 (1.12), §7 F12, F18
    /// - https://github.com/istio/istio/issues/44690
    pub struct DrainSettingIgnored {
        id: "ML205",
        name: "drain-setting-ignored",
        severity: Info,
        fix: Sometimes,
        group: Termination,
        summary: "a drain setting that has no effect in this pod",
        since: "0.1.0",
    }
}

/// A drain setting the proxy does not use.
struct IgnoredDrainSetting<'a>(&'a DrainMoot);

/// Why the proxy does not use the setting, in the rule's words (`diff` says it of a
/// setting that becomes moot).
pub fn why(moot: &DrainMoot) -> String {
    IgnoredDrainSetting(moot).message()
}

impl Violation for IgnoredDrainSetting<'_> {
    const RULE: &'static RuleMeta = &DrainSettingIgnored::META;

    fn message(&self) -> String {
        match self.0 {
            DrainMoot::TooNew { setting, since } => {
                format!("{setting} needs {since} or newer; this version ignores it")
            }
            DrainMoot::UnusedWhenNative { setting } => format!(
                "{setting} is not used by a native sidecar: it drains from its preStop and exits on SIGTERM, after the app"
            ),
            DrainMoot::Replaced {
                setting,
                value,
                by,
                by_value,
                mode,
                ..
            } => format!("{setting} ({value}) is not used when {mode} is on; {by} ({by_value}) is"),
            DrainMoot::ModeOff { setting, mode } => {
                format!("{setting} only applies when {mode} is on")
            }
        }
    }

    fn help(&self) -> String {
        "remove it, or set the drain setting the proxy uses in this mode".into()
    }
}

impl Rule for DrainSettingIgnored {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        for (moot, why) in plan.moot_settings.iter().filter_map(|m| match &m.why {
            Moot::Drain(why) => Some((m, why)),
            Moot::Gate(_) => None,
        }) {
            let primary = source_label(&moot.source, "has no effect").unwrap_or_else(|| {
                Label::key(
                    plan.paths.pod_metadata.clone(),
                    format!("from {}: has no effect", moot.source),
                )
            });
            findings
                .push(Finding::new(&IgnoredDrainSetting(why), primary).with_fix(remove(moot, why)));
        }
    }
}

/// The setting removed, where the manifest holds it. Safe when the pod's own settings
/// make it moot (native sidecar mode, the other drain mode); unsafe when only the
/// mesh's version does, which an upgrade changes. A drain length the mode replaces
/// keeps its intent: where the setting read instead is at its default and shorter,
/// the removed value moves to it (`terminationDrainDuration: 40s` beside
/// `EXIT_ON_ZERO_ACTIVE_CONNECTIONS` becomes `proxyMetadata.MINIMUM_DRAIN_DURATION:
/// 40s`, which that mode reads); unsafe, as the proxy then drains that long.
fn remove(moot: &MootSetting, why: &DrainMoot) -> Option<Remedy> {
    let Source::Manifest(path) = &moot.source else {
        return None;
    };
    // An environment variable is an item of `env`: removing its `value` would leave
    // it set to the empty string, not unset.
    if let [.., Segment::Key(list), Segment::Index(_), Segment::Key(_)] = path.segments()
        && list == "env"
    {
        return None;
    }
    if let Some(carried) = carry_over(path, why) {
        return Some(carried);
    }
    let applicability = match why {
        DrainMoot::TooNew { .. } => Applicability::Unsafe,
        DrainMoot::UnusedWhenNative { .. }
        | DrainMoot::Replaced { .. }
        | DrainMoot::ModeOff { .. } => Applicability::Safe,
    };
    let setting = match why {
        DrainMoot::TooNew { setting, .. }
        | DrainMoot::UnusedWhenNative { setting }
        | DrainMoot::Replaced { setting, .. }
        | DrainMoot::ModeOff { setting, .. } => setting,
    };
    Some(Remedy::new(
        applicability,
        format!("remove {setting}, which has no effect here"),
        vec![Change::Remove(path.clone())],
    ))
}

/// The replaced drain length at `path` moved to the `proxyMetadata` entry the mode
/// reads instead, where that entry is unset and the mesh's default for it shorter.
fn carry_over(path: &JsonPath, why: &DrainMoot) -> Option<Remedy> {
    let DrainMoot::Replaced {
        setting,
        value,
        by,
        by_value,
        by_set: false,
        mode,
    } = why
    else {
        return None;
    };
    let [config @ .., Segment::Key(key)] = path.segments() else {
        return None;
    };
    if key != setting || value <= by_value {
        return None;
    }
    let metadata = JsonPath::from_segments(config).key("proxyMetadata").key(by);
    let written = go_duration(*value);
    Some(Remedy::new(
        Applicability::Unsafe,
        format!(
            "move {setting} to `proxyMetadata.{by}: {written}`, which {mode} reads instead (risk: the proxy then drains at least {written})"
        ),
        vec![
            Change::Remove(path.clone()),
            Change::Set(metadata, Json::String(written)),
        ],
    ))
}

/// A length as Go's `time.ParseDuration` reads it, as Istio's settings are written.
fn go_duration(length: Millis) -> String {
    if length.0 % 1000 == 0 {
        format!("{}s", length.0 / 1000)
    } else {
        format!("{}ms", length.0)
    }
}
