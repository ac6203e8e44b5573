//! How a Job's work stops the proxy (docs/lifecycle.md §3.4): pilot-agent's
//! `/quitquitquit` on its status port, POST only, which disables draining and exits at
//! once (`handleQuit`); Envoy's own `:15000/quitquitquit`, which ends pilot-agent too
//! from Istio 1.4 ("No more active epochs, terminating"; istio#11659); a signal to
//! `pilot-agent` or `envoy`, which run as UID 1337. And the words of the proxy's
//! commands, endpoints and hooks the readers know.

use super::*;
use crate::resolve::mesh::{StopRequest, StopVerdict};
use crate::resolve::shell::{HttpMethod, StopTarget};
use crate::resolve::signal_permitted;
use crate::resolve::vocabulary::{KnownHook, StartWait, StopAsked, StopCommand, Vocabulary};

/// Envoy's admin port, where its own `/quitquitquit` is.
const ENVOY_ADMIN_PORT: u16 = 15000;
/// The stop path pilot-agent (and Envoy) serve.
const QUIT: &str = "/quitquitquit";

/// What the readers know of the Istio proxy.
pub(super) static VOCABULARY: Vocabulary = Vocabulary {
    stop_paths: &[QUIT],
    stop_commands: &[StopCommand {
        program: "pilot-agent",
        read: agent_request,
    }],
    processes: &["envoy", "pilot-agent"],
    readiness: &[
        ":15021/healthz/ready",
        ":15020/healthz/ready",
        ":15000/ready",
        ":15000/server_info",
    ],
    start_waits: &[StartWait::First("pilot-agent")],
    hooks: &[
        // `pilot-agent wait` polls every 500 ms for 60 s (`--timeoutSeconds`,
        // `--periodMillis`).
        KnownHook::WaitsUntilReady {
            program: "pilot-agent",
            argument: Some("wait"),
            timeout_flag: "--timeoutSeconds",
            timeout: Millis::secs(60),
            poll: Millis(500),
            poll_flag: Some("--periodMillis="),
        },
        // The native proxy's preStop, `pilot-agent request POST drain`.
        KnownHook::StartsDrain {
            program: "pilot-agent",
            argument: "drain",
        },
    ],
    shell_less_images: &[],
};

/// `pilot-agent request [--debug-port N] POST quitquitquit`: an HTTP call to Envoy's
/// admin port unless told otherwise.
fn agent_request(argv: &[&str]) -> Option<StopAsked> {
    if !argv.contains(&"request") || !argv.iter().any(|word| word.contains("quitquitquit")) {
        return None;
    }
    let port = argv
        .iter()
        .enumerate()
        .find_map(|(i, word)| {
            word.strip_prefix("--debug-port=").or_else(|| {
                (*word == "--debug-port")
                    .then(|| argv.get(i + 1).copied())
                    .flatten()
            })
        })
        .and_then(|port| port.parse().ok())
        .unwrap_or(ENVOY_ADMIN_PORT);
    let target = StopTarget::Http {
        port,
        path: QUIT.into(),
    };
    Some((target, Some(HttpMethod::Post)))
}

/// pilot-agent's status port in this pod (15020 unless the pod moves it).
pub(super) fn status_port(b: &Builder) -> u16 {
    annotated_status_port(b).unwrap_or(DEFAULT_STATUS_PORT)
}

/// The status port the pod's annotation gives pilot-agent: a value `strconv.Atoi`
/// cannot read is logged and leaves 0, no status server (`applyAnnotations`,
/// `pilot/cmd/pilot-agent/config/config.go`, 1.28.0; docs/lifecycle.md §3.3).
pub(super) fn annotated_status_port(b: &Builder) -> Option<u16> {
    b.workload
        .pod_annotation(STATUS_PORT)
        .map(|(value, _)| value.parse().unwrap_or(0))
}

/// The call to pilot-agent's `/quitquitquit`, or, with the status port 0 (no status
/// server), Envoy's own on its admin port, which stops pilot-agent too where
/// [`envoy_exit_stops_agent`].
pub(super) fn stop_command(b: &Builder) -> Option<String> {
    let port = match status_port(b) {
        0 => ENVOY_ADMIN_PORT,
        port => port,
    };
    Some(format!("curl -fsS -X POST http://localhost:{port}{QUIT}"))
}

/// Where pilot-agent serves `path`.
pub(super) fn serves(path: &str, b: &Builder) -> Option<Served> {
    path.ends_with(QUIT).then(|| Served {
        by: "pilot-agent",
        port: status_port(b),
    })
}

/// Whether a signal to `target` (lower case) reaches the proxy.
pub(super) fn answers_signal(target: &str) -> bool {
    target.contains("envoy") || target.contains("pilot-agent")
}

/// A call of the work that addresses the proxy: pilot-agent's or Envoy's
/// `/quitquitquit`, or a signal to one of its processes.
pub(super) fn judge_stop(call: &StopRequest, b: &Builder) -> Option<StopVerdict> {
    match call.target {
        StopTarget::Http { port, path } if path.ends_with(QUIT) => {
            let method = StopMethod::Endpoint {
                sidecar: KIND,
                port: *port,
            };
            let effective = if *port == status_port(b) {
                match call.method {
                    Some(HttpMethod::Get) => Err(StopFailure::NeedsPost {
                        endpoint: "pilot-agent's /quitquitquit",
                    }),
                    _ => Ok(()),
                }
            } else if *port == ENVOY_ADMIN_PORT {
                envoy_exit_stops_agent(b)
            } else {
                return None;
            };
            Some(StopVerdict {
                method,
                effective,
                exits_at_once: true,
            })
        }
        StopTarget::Signal { process } => {
            let lower = process.to_lowercase();
            if !answers_signal(&lower) {
                return None;
            }
            let effective = signal_permitted(process, call.work_user, PROXY_UID).and_then(|()| {
                if lower.contains("envoy") && !lower.contains("pilot-agent") {
                    envoy_exit_stops_agent(b)
                } else {
                    Ok(())
                }
            });
            let method = StopMethod::Signal {
                target: process.clone(),
            };
            Some(StopVerdict::new(method, effective))
        }
        _ => None,
    }
}

/// Whether Envoy exiting (its own `:15000/quitquitquit`, a signal to `envoy`) stops
/// the sidecar: from Istio 1.4 pilot-agent exits once Envoy has ("No more active
/// epochs, terminating"); before, it kept running (istio#11659). docs/lifecycle.md §3.4.
fn envoy_exit_stops_agent(b: &Builder) -> Result<(), StopFailure> {
    match version(b) {
        Some(version) if version.minor < 4 => Err(StopFailure::PartStops {
            release: format!("{} {version}", MESH.title()),
            stopped: "Envoy",
            running: "pilot-agent",
            issue: "istio#11659",
            instead: format!(":{}{QUIT}", status_port(b)),
        }),
        _ => Ok(()),
    }
}
