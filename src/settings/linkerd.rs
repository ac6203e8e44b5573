//! The Linkerd part of the environment profile (docs/lifecycle.md §4).

use super::{LinkerdVersion, Source, Sourced};
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

/// What one layer of the profile (the config file, Helm values) says of Linkerd's
/// control plane, all from one place: each value it sets replaces the one below
/// ([`LinkerdOverlay::lay`]).
#[derive(Clone, Debug, Default)]
pub struct LinkerdOverlay {
    /// Linkerd's version.
    pub version: Option<LinkerdVersion>,
    /// Helm `proxy.await`.
    pub proxy_await: Option<bool>,
    /// Helm `proxy.nativeSidecar`.
    pub native_sidecar: Option<bool>,
    /// Helm `proxy.shutdownGracePeriod`.
    pub shutdown_grace_period: Option<Millis>,
    /// Helm `proxy.waitBeforeExitSeconds`.
    pub wait_before_exit: Option<Millis>,
    /// Helm `proxy.enableShutdownEndpoint`.
    pub shutdown_endpoint: Option<bool>,
}

impl LinkerdOverlay {
    /// Lays this layer, read from `source`, over `linkerd`.
    pub fn lay(self, linkerd: &mut LinkerdSettings, source: &Source) {
        fn over<T>(value: Option<T>, to: &mut Option<Sourced<T>>, source: &Source) {
            if let Some(value) = value {
                *to = Some(Sourced::new(value, source.clone()));
            }
        }
        over(self.version, &mut linkerd.version, source);
        over(self.proxy_await, &mut linkerd.proxy_await, source);
        over(self.native_sidecar, &mut linkerd.native_sidecar, source);
        over(
            self.shutdown_grace_period,
            &mut linkerd.shutdown_grace_period,
            source,
        );
        over(self.wait_before_exit, &mut linkerd.wait_before_exit, source);
        over(
            self.shutdown_endpoint,
            &mut linkerd.shutdown_endpoint,
            source,
        );
    }
}
