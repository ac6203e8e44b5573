//! How the proxy shuts down (docs/lifecycle.md §4.3): it refuses new connections from
//! its signal and lets in-flight ones finish, up to its shutdown grace period.

use super::*;

/// The proxy's own default shutdown grace period (`DEFAULT_SHUTDOWN_GRACE_PERIOD`).
pub(super) const DEFAULT_SHUTDOWN_GRACE: Millis = Millis::secs(120);

pub(super) fn wait_before_exit(b: &mut Builder) -> Option<Sourced<Millis>> {
    if let Some((value, source)) = setting(b, WAIT_BEFORE_EXIT) {
        // `strconv.ParseUint(value, 10, 64)`: digits only.
        let digits = !value.is_empty() && value.bytes().all(|c| c.is_ascii_digit());
        match value.parse::<i64>() {
            Ok(seconds) if digits => {
                return Some(Sourced::new(Millis::secs(seconds), source));
            }
            _ => {
                if let Source::Manifest(path) = &source {
                    b.problem(
                        path.clone(),
                        Fault::Unreadable(Unreadable::Value {
                            setting: WAIT_BEFORE_EXIT.to_owned(),
                            value: value.to_owned(),
                            expected: Expected::WholeSeconds { fallback: None },
                        }),
                    );
                }
            }
        }
    }
    b.settings
        .linkerd
        .wait_before_exit
        .clone()
        .filter(|w| w.value > Millis::ZERO)
}

pub(super) fn shutdown_grace(b: &mut Builder, env: Option<&str>) -> Sourced<Millis> {
    if let Some((value, source)) = setting(b, SHUTDOWN_GRACE) {
        match parse_go_duration(&value).filter(|d| *d >= Millis::ZERO) {
            Some(grace) => return Sourced::new(grace, source),
            None => {
                if let Source::Manifest(path) = &source {
                    b.problem(
                        path.clone(),
                        Fault::Unreadable(Unreadable::Value {
                            setting: SHUTDOWN_GRACE.to_owned(),
                            value: value.to_owned(),
                            expected: Expected::Duration { example: "30s" },
                        }),
                    );
                }
            }
        }
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
