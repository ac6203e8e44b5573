//! How a Job's work stops the proxy (docs/lifecycle.md §4.3): `POST :4191/shutdown` on
//! its admin port, or `linkerd-await --shutdown -- <work>`, which calls it once the work
//! exits; since 2.16 the endpoint answers 404 unless enabled. A signal to the proxy's
//! process, which runs as UID 2102. And the words of the proxy's commands, endpoints
//! and hooks the readers know.

use super::*;
use crate::resolve::mesh::{StopRequest, StopVerdict};
use crate::resolve::shell::{HttpMethod, StopTarget};
use crate::resolve::signal_permitted;
use crate::resolve::vocabulary::ShellLessImage;
use crate::resolve::vocabulary::{KnownHook, StartWait, StopAsked, StopCommand, Vocabulary};

/// The proxy's admin port, where `/shutdown` is.
const ADMIN_PORT: u16 = 4191;
/// The stop path.
const SHUTDOWN: &str = "/shutdown";
/// The pod annotation that turns the `/shutdown` endpoint on or off.
pub(super) const SHUTDOWN_ANNOTATION: &str = "config.linkerd.io/proxy-admin-shutdown";
/// The injected proxy's variable that says whether the endpoint is on.
const SHUTDOWN_ENV: &str = "LINKERD2_PROXY_SHUTDOWN_ENDPOINT_ENABLED";

/// What the readers know of the Linkerd proxy.
pub(super) static VOCABULARY: Vocabulary = Vocabulary {
    stop_paths: &[SHUTDOWN],
    stop_commands: &[StopCommand {
        program: "linkerd-await",
        read: await_shutdown,
    }],
    processes: &["linkerd"],
    readiness: &[":4191/ready"],
    start_waits: &[StartWait::Under("linkerd-await")],
    // `linkerd-await` polls every second for 2 min (`--timeout`).
    hooks: &[KnownHook::WaitsUntilReady {
        program: "linkerd-await",
        argument: None,
        timeout_flag: "--timeout",
        timeout: Millis::secs(120),
        poll: Millis::secs(1),
        poll_flag: None,
    }],
    // The proxy image has `/bin/sleep` for its injected wait-before-exit hook, and
    // nothing else.
    shell_less_images: &[ShellLessImage {
        mark: "linkerd/proxy:",
        has_sleep: true,
        shell_variants: &[],
    }],
};

/// `linkerd-await --shutdown -- <work>`: it runs the work, then calls `/shutdown`.
fn await_shutdown(argv: &[&str]) -> Option<StopAsked> {
    argv.iter()
        .any(|word| *word == "--shutdown" || *word == "-S")
        .then_some((
            StopTarget::Command {
                program: "linkerd-await",
                runs_work: true,
            },
            None,
        ))
}

/// The call to the proxy's `/shutdown`.
pub(super) fn stop_command() -> String {
    format!("curl -fsS -X POST http://localhost:{ADMIN_PORT}{SHUTDOWN}")
}

/// A call of the work that addresses the proxy: its `/shutdown`, `linkerd-await
/// --shutdown`, or a signal to its process.
pub(super) fn judge_stop(call: &StopRequest, b: &Builder) -> Option<StopVerdict> {
    let (method, effective) = match call.target {
        StopTarget::Http { port, path } if path.ends_with(SHUTDOWN) => {
            let method = StopMethod::Endpoint {
                sidecar: KIND,
                port: *port,
            };
            let effective = if *port != ADMIN_PORT {
                Err(StopFailure::WrongPort {
                    owner: MESH.title(),
                    endpoint: SHUTDOWN,
                    port: *port,
                    admin_port: ADMIN_PORT,
                })
            } else if call.method == Some(HttpMethod::Get) {
                Err(StopFailure::NeedsPost {
                    endpoint: "Linkerd's /shutdown",
                })
            } else {
                shutdown_enabled(b)
            };
            (method, effective)
        }
        StopTarget::Command {
            program: "linkerd-await",
            ..
        } => (StopMethod::Command { sidecar: KIND }, shutdown_enabled(b)),
        StopTarget::Signal { process } if answers_signal(&process.to_lowercase()) => {
            let method = StopMethod::Signal {
                target: process.clone(),
            };
            (method, signal_permitted(process, call.work_user, PROXY_UID))
        }
        _ => return None,
    };
    Some(StopVerdict::new(method, effective))
}

/// Whether a signal to `target` (lower case) reaches the proxy.
pub(super) fn answers_signal(target: &str) -> bool {
    target.contains("linkerd")
}

/// Whether the `/shutdown` endpoint answers: the pod's annotation, the injected proxy's
/// environment, the install value, the release's default (off since 2.16;
/// docs/lifecycle.md §4.3).
fn shutdown_enabled(b: &Builder) -> Result<(), StopFailure> {
    let off = |off| {
        Err(StopFailure::SwitchedOff {
            owner: MESH.title(),
            endpoint: SHUTDOWN,
            off,
        })
    };
    // Only "enabled" and "disabled" are read; anything else keeps the default.
    match b.workload.annotation(SHUTDOWN_ANNOTATION) {
        Some(("enabled", _)) => return Ok(()),
        Some(("disabled", _)) => {
            return off(SwitchedOff::Annotation {
                key: SHUTDOWN_ANNOTATION,
            });
        }
        _ => {}
    }
    let env_enabled = b
        .init
        .iter()
        .chain(&b.regular)
        .find(|c| c.name == PROXY)
        .and_then(|c| {
            b.manifest_container(c)?
                .env
                .iter()
                .flatten()
                .find_map(|var| {
                    (var.name == SHUTDOWN_ENV).then(|| var.value.clone().unwrap_or_default())
                })
        });
    if let Some(value) = env_enabled {
        return if value == "true" {
            Ok(())
        } else {
            off(SwitchedOff::ContainerEnv {
                variable: SHUTDOWN_ENV,
                value,
            })
        };
    }
    if let Some(setting) = &b.settings.linkerd.shutdown_endpoint {
        return if setting.value {
            Ok(())
        } else {
            off(SwitchedOff::InstallValue {
                setting: "proxy.enableShutdownEndpoint",
                source: setting.source.clone(),
            })
        };
    }
    match &b.settings.linkerd.version {
        Some(v) if !v.value.shutdown_endpoint_off_by_default() => Ok(()),
        Some(v) => off(SwitchedOff::ReleaseDefault {
            release: v.value.to_string(),
            since: "2.16",
            key: SHUTDOWN_ANNOTATION,
        }),
        None => off(SwitchedOff::UnknownRelease {
            since: "2.16",
            key: SHUTDOWN_ANNOTATION,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::images::missing_tools;
    use crate::resolve::vocabulary::Lexicon;

    #[test]
    fn the_proxy_image_has_sleep_but_no_shell() {
        let lexicon = Lexicon::new(vec![&VOCABULARY]);
        assert!(
            missing_tools("cr.l5d.io/linkerd/proxy", &lexicon).shell,
            "untagged"
        );
        let tools = missing_tools("cr.l5d.io/linkerd/proxy:edge-24.11.8", &lexicon);
        assert!(tools.lacks("sh") && !tools.lacks("sleep"));
    }
}
