//! How the proxy shuts down (docs/lifecycle.md §4.3): it refuses new connections from
//! its signal and lets in-flight ones finish, up to its shutdown grace period.

use super::*;

/// The setting the injector renders the proxy's preStop sleep from.
pub(super) const WAIT_BEFORE_EXIT: &str = "config.alpha.linkerd.io/proxy-wait-before-exit-seconds";

/// How long the proxy drains in-flight requests after SIGTERM.
pub(super) const SHUTDOWN_GRACE: &str = "config.linkerd.io/shutdown-grace-period";

/// The proxy's own default shutdown grace period (`DEFAULT_SHUTDOWN_GRACE_PERIOD`).
pub(super) const DEFAULT_SHUTDOWN_GRACE: Millis = Millis::secs(120);

pub(super) fn wait_before_exit(b: &mut Builder) -> Option<Sourced<Millis>> {
    let written = setting(b, WAIT_BEFORE_EXIT);
    if let Some(wait) = b.read_setting(WAIT_BEFORE_EXIT, written, &Reading::unsigned_seconds()) {
        return Some(wait);
    }
    b.settings
        .linkerd
        .wait_before_exit
        .clone()
        .filter(|w| w.value > Millis::ZERO)
}

pub(super) fn shutdown_grace(b: &mut Builder, env: Option<&str>) -> Sourced<Millis> {
    let written = setting(b, SHUTDOWN_GRACE);
    if let Some(grace) = b.read_setting(SHUTDOWN_GRACE, written, &Reading::duration("30s")) {
        return grace;
    }
    if let Some(grace) = env.and_then(parse_go_duration) {
        return Sourced::new(grace, Source::Default);
    }
    b.settings
        .linkerd
        .shutdown_grace_period
        .clone()
        .unwrap_or_else(|| Sourced::default_value(DEFAULT_SHUTDOWN_GRACE))
}

/// docs/lifecycle.md §4.3: refuses new connections from the signal, exits when in-flight ones
/// are done or the grace period ends.
pub(super) fn apply_shutdown(proxy: &mut PlannedContainer, grace: Sourced<Millis>) {
    proxy.exit = ExitPolicy::WhenRequestsDone {
        accepting: Millis::ZERO,
        cap: Some(grace),
    };
    proxy.traffic = Some(TrafficCuts {
        inbound_refused: Cut::Signal,
        inbound_drained: Cut::Signal,
        outbound_refused: Cut::Signal,
    });
}
