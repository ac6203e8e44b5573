//! How pilot-agent and Envoy shut down (docs/lifecycle.md §3.6), as an exit policy and
//! traffic cuts, and the drain settings a mode leaves without effect.

use super::*;

/// docs/lifecycle.md §3.6: how pilot-agent shuts down, as an exit policy and traffic cuts.
pub(super) fn apply_shutdown(
    proxy: &mut PlannedContainer,
    config: &Effective,
    native: bool,
    intercepts: bool,
) {
    let drains_on_prestop = drains_on_pre_stop(proxy);
    proxy.exit = if native && drains_on_prestop {
        // `/drain` was called: the agent exits as soon as SIGTERM comes.
        ExitPolicy::Immediately
    } else if config.exit_on_zero_applies {
        ExitPolicy::WhenIdle {
            minimum: config.minimum_drain.clone(),
            poll: Millis::secs(1),
        }
    } else {
        ExitPolicy::After(config.termination_drain.clone())
    };
    // Envoy keeps accepting inbound connections while it drains, until its drain
    // time (`drainDuration`, 45 s) ends or it is killed (docs/lifecycle.md §3.6).
    proxy.traffic = Some(TrafficCuts {
        inbound_refused: if intercepts {
            Cut::AfterSignal(config.drain_duration.value)
        } else {
            Cut::Never
        },
        inbound_drained: match (intercepts, drains_on_prestop) {
            (false, _) => Cut::Never,
            (true, true) => Cut::PreStop,
            (true, false) => Cut::Signal,
        },
        outbound_refused: Cut::Exit,
    });
}

/// The ports `pilot-agent request` calls; it refuses any other `--debug-port` in
/// cobra's `PreRunE`, before making a request (`allowedPorts`,
/// `pilot/cmd/pilot-agent/app/request.go`, 1.13.0 to 1.28.0).
const REQUEST_PORTS: &[u16] = &[15000, 15004, 15020, 15021];

/// `pilot-agent request`'s port without `--debug-port`: Envoy's admin, which serves no
/// `/drain` (its 404 counts as success).
const REQUEST_DEFAULT_PORT: u16 = 15000;

/// The native proxy's drain preStop as pilot-agent answers it (docs/lifecycle.md
/// §3.3): the injector renders `--debug-port=<status.sidecar.istio.io/port>`, but
/// `pilot-agent request` refuses a port outside [`REQUEST_PORTS`] and the hook fails at
/// once, and an accepted port other than the agent's status port (`status_port`)
/// reaches no `/drain`. Either way `/drain` is never called, the agent's `skipDrain`
/// stays false, and SIGTERM runs the whole drain (§3.6).
pub(super) fn judge_drain_request(proxy: &mut PlannedContainer, status_port: u16) {
    let Some(hook) = proxy.pre_stop.as_mut() else {
        return;
    };
    let HookAction::Exec(argv) = &hook.action else {
        return;
    };
    if hook.effect != HookEffect::DrainsInbound {
        return;
    }
    let words: Vec<&str> = argv.iter().flat_map(|a| a.split_whitespace()).collect();
    let written = words.iter().enumerate().find_map(|(i, word)| {
        word.strip_prefix("--debug-port=").or_else(|| {
            (*word == "--debug-port")
                .then(|| words.get(i + 1).copied())
                .flatten()
        })
    });
    let port = match written {
        None => Some(i64::from(REQUEST_DEFAULT_PORT)),
        Some(text) => text.trim_matches(['"', '\'']).parse::<i64>().ok(),
    };
    let accepted = port
        .and_then(|p| u16::try_from(p).ok())
        .filter(|p| REQUEST_PORTS.contains(p));
    let miss = match accepted {
        None => DrainMiss::PortRefused {
            port,
            accepted: REQUEST_PORTS,
        },
        Some(port) if port == status_port => return,
        Some(port) => DrainMiss::NotServedThere {
            port,
            served_on: status_port,
        },
    };
    hook.effect = HookEffect::MissesDrain(miss);
    hook.duration = HookDuration::Fixed(Millis::ZERO);
}

/// Whether the proxy's preStop starts its drain (`pilot-agent request POST drain`, the
/// native sidecar's injected hook).
pub(super) fn drains_on_pre_stop(proxy: &PlannedContainer) -> bool {
    proxy
        .pre_stop
        .as_ref()
        .is_some_and(|h| h.effect == HookEffect::DrainsInbound)
}

/// Whether the proxy receives inbound traffic: not with
/// `sidecar.istio.io/interceptionMode: NONE`, where nothing redirects to it
/// (docs/lifecycle.md §3.2) and Envoy builds no inbound listeners without a Sidecar
/// ingress.
pub(super) fn intercepts_inbound(b: &Builder) -> bool {
    b.workload
        .pod_annotation("sidecar.istio.io/interceptionMode")
        .is_none_or(|(mode, _)| mode != "NONE")
}

/// Drain settings the agent does not use in this mode. `exits_on_signal`: a
/// native proxy whose preStop drained it exits as soon as SIGTERM comes, so none of
/// the drain settings is used.
pub(super) fn note_moot_drain(b: &mut Builder, config: &Effective, exits_on_signal: bool) {
    if config.exit_on_zero.value && !has(b, 12) {
        b.moot.push(MootSetting {
            source: config.exit_on_zero.source.clone(),
            why: Moot::Drain(DrainMoot::TooNew {
                setting: "EXIT_ON_ZERO_ACTIVE_CONNECTIONS",
                since: "Istio 1.12",
            }),
        });
    }
    if exits_on_signal {
        let unused = [
            (
                config.termination_drain_set,
                &config.termination_drain.source,
                "terminationDrainDuration",
            ),
            (
                config.exit_on_zero_applies,
                &config.exit_on_zero.source,
                "EXIT_ON_ZERO_ACTIVE_CONNECTIONS",
            ),
            (
                config.minimum_drain_set,
                &config.minimum_drain.source,
                "MINIMUM_DRAIN_DURATION",
            ),
        ];
        for (_, source, setting) in unused.into_iter().filter(|(set, ..)| *set) {
            b.moot.push(MootSetting {
                source: source.clone(),
                why: Moot::Drain(DrainMoot::UnusedWhenNative { setting }),
            });
        }
        return;
    }
    if config.exit_on_zero_applies && config.termination_drain_set {
        b.moot.push(MootSetting {
            source: config.termination_drain.source.clone(),
            why: Moot::Drain(DrainMoot::Replaced {
                setting: "terminationDrainDuration",
                value: config.termination_drain.value,
                by: "MINIMUM_DRAIN_DURATION",
                by_value: config.minimum_drain.value,
                by_set: config.minimum_drain_set,
                mode: "EXIT_ON_ZERO_ACTIVE_CONNECTIONS",
            }),
        });
    }
    if !config.exit_on_zero_applies && config.minimum_drain_set {
        b.moot.push(MootSetting {
            source: config.minimum_drain.source.clone(),
            why: Moot::Drain(DrainMoot::ModeOff {
                setting: "MINIMUM_DRAIN_DURATION",
                mode: "EXIT_ON_ZERO_ACTIVE_CONNECTIONS",
            }),
        });
    }
}
