//! Settings that ask for something the pod already has or cannot use: a start gate
//! and the settings without effect.

use crate::settings::Source;
use crate::time::Millis;

/// A setting that asks for the app to be held until a proxy is ready.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GateRequest {
    /// Where the setting is.
    pub source: Source,
    /// What asks for the hold.
    pub asked_by: GateSetting,
}

/// What asks for the app to be held until a proxy is ready.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GateSetting {
    /// The proxy's own postStart hook that waits for it, by its command
    /// (`pilot-agent wait`).
    PostStart {
        /// The waiting command.
        command: &'static str,
    },
    /// A setting of the pod or the mesh.
    Setting {
        /// The setting's name (`holdApplicationUntilProxyStarts`).
        name: &'static str,
        /// Its value as written in YAML (`true`, `"true"`, `enabled`); `None` where
        /// the setting asks by being on, set or by default (Linkerd's `proxy-await`).
        value: Option<&'static str>,
    },
}

/// A setting that has no effect in this pod: where it is, and what makes it moot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MootSetting {
    /// Where the setting is.
    pub source: Source,
    /// What makes it moot.
    pub why: Moot,
}

/// What makes a setting moot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Moot {
    /// A drain setting the proxy does not use.
    Drain(DrainMoot),
    /// A start gate that holds the app no longer than something else already does.
    Gate(GateMoot),
}

/// Why a proxy does not use a drain setting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DrainMoot {
    /// A drain setting that arrived in a later release of the mesh than this one.
    TooNew {
        /// The setting (`EXIT_ON_ZERO_ACTIVE_CONNECTIONS`).
        setting: &'static str,
        /// The first release that reads it (`Istio 1.12`).
        since: &'static str,
    },
    /// A drain setting a native proxy does not use: it drains from its preStop and
    /// exits on SIGTERM, after the app.
    UnusedWhenNative {
        /// The setting (`terminationDrainDuration`).
        setting: &'static str,
    },
    /// A drain length replaced by another while a mode is on.
    Replaced {
        /// The setting not used, and its value.
        setting: &'static str,
        /// Its value.
        value: Millis,
        /// The setting used instead.
        by: &'static str,
        /// Its value.
        by_value: Millis,
        /// Whether that value is set somewhere (not the mesh's default): a fix that
        /// carries the removed value over must not overwrite it.
        by_set: bool,
        /// The mode that makes the difference (`EXIT_ON_ZERO_ACTIVE_CONNECTIONS`).
        mode: &'static str,
    },
    /// A drain setting that applies only while a mode is on, and it is off.
    ModeOff {
        /// The setting (`MINIMUM_DRAIN_DURATION`).
        setting: &'static str,
        /// The mode (`EXIT_ON_ZERO_ACTIVE_CONNECTIONS`).
        mode: &'static str,
    },
}

/// Why a start gate adds nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GateMoot {
    /// A postStart that waits for a native proxy its startup probe already holds the
    /// app for.
    WaitUnderStartupProbe {
        /// The waiting command (`pilot-agent wait`).
        command: &'static str,
    },
    /// A hold setting the injector ignores for a native sidecar, whose startup probe
    /// holds the app.
    HoldIgnoredWhenNative {
        /// The setting (`holdApplicationUntilProxyStarts`).
        setting: &'static str,
    },
}
