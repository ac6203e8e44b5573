//! The Linkerd part of the environment profile (docs/lifecycle.md §4).

use super::{LinkerdVersion, Sourced};
use crate::time::Millis;

/// Control-plane values that decide how the Linkerd injector sets up a proxy.
#[derive(Clone, Debug, Default)]
pub struct LinkerdSettings {
    /// Unknown by default: the classic proxy (the reading that can lose traffic) is
    /// assumed unless the version or a setting says native.
    pub version: Option<Sourced<LinkerdVersion>>,
    /// Helm `proxy.await` (default on).
    pub proxy_await: Option<Sourced<bool>>,
    /// Helm `proxy.nativeSidecar`.
    pub native_sidecar: Option<Sourced<bool>>,
    /// Helm `proxy.shutdownGracePeriod`.
    pub shutdown_grace_period: Option<Sourced<Millis>>,
    /// Helm `proxy.waitBeforeExitSeconds`.
    pub wait_before_exit: Option<Sourced<Millis>>,
    /// Helm `proxy.enableShutdownEndpoint`.
    pub shutdown_endpoint: Option<Sourced<bool>>,
}
