//! Reads lifecycle hooks into [`Hook`]s: what they run and how long they last.

use k8s_openapi::api::core::v1::{Container, LifecycleHandler};

use super::plan::{Hook, HookAction, HookDuration, HookEffect};
use super::shell::{self, Env, Length};
use super::vocabulary::{KnownHook, Lexicon};
use crate::load::JsonPath;
use crate::time::Millis;

/// Which hook is being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookKind {
    /// `lifecycle.postStart`: runs as the container starts, and holds the next one.
    PostStart,
    /// `lifecycle.preStop`: runs at deletion, before the stop signal.
    PreStop,
}

impl HookKind {
    fn field(self) -> &'static str {
        match self {
            HookKind::PostStart => "postStart",
            HookKind::PreStop => "preStop",
        }
    }
}

/// Whose hook it is: a loop that waits for processes means different things in an app
/// (its own process) and in a sidecar (the app's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// An app container.
    App,
    /// A sidecar.
    Sidecar,
}

/// The container's environment as plain values (`valueFrom` entries are unknown).
pub fn env_of(container: &Container) -> Env {
    container
        .env
        .iter()
        .flatten()
        .filter_map(|var| {
            var.value
                .as_ref()
                .map(|value| (var.name.clone(), value.clone()))
        })
        .collect()
}

/// How a hook is read: which one, whose, the environment its command sees, and the
/// hooks the sidecars' injectors add, known by what they run.
#[derive(Clone, Copy)]
pub struct HookReading<'a> {
    /// Which hook.
    pub kind: HookKind,
    /// Whose hook it is.
    pub owner: Owner,
    /// The container's environment, for the lengths its command reads from it.
    pub env: &'a Env,
    /// The sidecars' words.
    pub lexicon: &'a Lexicon,
}

/// Reads one hook of a manifest container at `container_path`.
pub fn read(
    container: &Container,
    container_path: &JsonPath,
    kind: HookKind,
    owner: Owner,
    lexicon: &Lexicon,
) -> Option<Hook> {
    let lifecycle = container.lifecycle.as_ref()?;
    let handler = match kind {
        HookKind::PostStart => lifecycle.post_start.as_ref()?,
        HookKind::PreStop => lifecycle.pre_stop.as_ref()?,
    };
    let path = container_path.key("lifecycle").key(kind.field());
    let env = env_of(container);
    let how = HookReading {
        kind,
        owner,
        env: &env,
        lexicon,
    };
    Some(from_handler(handler, Some(path), how))
}

/// Interprets a handler.
pub fn from_handler(handler: &LifecycleHandler, path: Option<JsonPath>, how: HookReading) -> Hook {
    let HookReading {
        kind: _, lexicon, ..
    } = how;
    if let Some(sleep) = &handler.sleep {
        return Hook {
            path,
            asked_by: None,
            action: HookAction::Sleep(sleep.seconds),
            duration: HookDuration::Fixed(Millis::secs(sleep.seconds.max(0))),
            effect: HookEffect::None,
            rendered_from: None,
        };
    }
    if let Some(exec) = &handler.exec {
        let argv = exec.command.clone().unwrap_or_default();
        return from_argv(argv, path, how);
    }
    if let Some(http) = &handler.http_get {
        let port = match &http.port {
            k8s_openapi::apimachinery::pkg::util::intstr::IntOrString::Int(port) => {
                port.to_string()
            }
            k8s_openapi::apimachinery::pkg::util::intstr::IntOrString::String(name) => name.clone(),
        };
        let request_path = http.path.clone().unwrap_or_else(|| "/".to_owned());
        // A hook that answers once a sidecar has drained (the one Knative gives its
        // user containers): its quiet period after the deletion at the soonest; the
        // sidecar's model lengthens it by the requests that still arrive.
        let drain = lexicon.hooks().find_map(|hook| match *hook {
            KnownHook::AwaitsDrain {
                port: drain_port,
                path: drain_path,
                of,
                quiet,
            } if port == drain_port.to_string() && request_path == drain_path => Some((of, quiet)),
            _ => None,
        });
        let (duration, effect) = match drain {
            Some((of, quiet)) => (
                HookDuration::Fixed(quiet),
                HookEffect::AwaitsDrain { of, quiet },
            ),
            None => (HookDuration::Unknown, HookEffect::None),
        };
        return Hook {
            rendered_from: None,
            path,
            asked_by: None,
            action: HookAction::HttpGet {
                port,
                path: request_path,
            },
            duration,
            effect,
        };
    }
    Hook {
        path,
        asked_by: None,
        action: HookAction::TcpSocket,
        duration: HookDuration::Unknown,
        effect: HookEffect::None,
        rendered_from: None,
    }
}

/// Interprets an exec hook's argv.
pub fn from_argv(argv: Vec<String>, path: Option<JsonPath>, how: HookReading) -> Hook {
    let HookReading {
        kind,
        owner,
        env,
        lexicon,
    } = how;
    let list = shell::parse_argv(&argv);
    let name = list
        .simple_commands()
        .first()
        .and_then(|c| c.name())
        .unwrap_or("");
    let has_arg = |arg: &str| argv.iter().any(|a| a == arg);
    // Hooks the sidecars' injectors add, recognised by what they run.
    let known = lexicon.hooks().find_map(|hook| match *hook {
        KnownHook::WaitsUntilReady {
            program,
            argument,
            timeout_flag,
            timeout,
            poll,
            poll_flag,
        } if kind == HookKind::PostStart && name == program && argument.is_none_or(&has_arg) => {
            let waits = wait_timeout(&argv, timeout_flag, timeout, poll, poll_flag);
            Some((waits, HookEffect::None))
        }
        KnownHook::StartsDrain { program, argument }
            if kind == HookKind::PreStop
                && name == program
                && argv.iter().any(|a| a.eq_ignore_ascii_case(argument)) =>
        {
            Some((HookDuration::Fixed(Millis::ZERO), HookEffect::DrainsInbound))
        }
        _ => None,
    });
    let (duration, effect) = known.unwrap_or_else(|| {
        let duration = match shell::length(&list, env) {
            Length::Known { total, .. } => HookDuration::Fixed(total),
            Length::Forever => HookDuration::Fixed(HookDuration::NEVER_RETURNS),
            Length::WaitsForExit => match owner {
                Owner::App => HookDuration::UntilSelfExits,
                Owner::Sidecar => HookDuration::UntilAppsExit,
            },
            Length::Unknown => HookDuration::Unknown,
        };
        (duration, HookEffect::None)
    });
    Hook {
        path,
        asked_by: None,
        action: HookAction::Exec(argv),
        duration,
        effect,
        rendered_from: None,
    }
}

/// `--timeoutSeconds=90`, `--timeout=2m`, `--timeout 2m`.
fn wait_timeout(
    argv: &[String],
    flag: &str,
    default: Millis,
    poll: Millis,
    poll_flag: Option<&str>,
) -> HookDuration {
    let value = argv.iter().enumerate().find_map(|(i, arg)| {
        arg.strip_prefix(flag)
            .and_then(|rest| rest.strip_prefix('='))
            .map(str::to_owned)
            .or_else(|| (arg == flag).then(|| argv.get(i + 1).cloned()).flatten())
    });
    let timeout = value
        .and_then(|v| {
            crate::time::parse_go_duration(&v).or_else(|| v.parse::<i64>().ok().map(Millis::secs))
        })
        .unwrap_or(default);
    let poll = poll_flag
        .and_then(|flag| argv.iter().find_map(|arg| arg.strip_prefix(flag)))
        .and_then(|v| v.parse::<i64>().ok())
        .map_or(poll, Millis);
    HookDuration::UntilReady {
        timeout,
        poll,
        unanswered: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exec(argv: &[&str], kind: HookKind, owner: Owner) -> Hook {
        let how = HookReading {
            kind,
            owner,
            env: &Env::new(),
            lexicon: &crate::resolve::Registry::standard().lexicon,
        };
        from_argv(argv.iter().map(|s| s.to_string()).collect(), None, how)
    }

    #[test]
    fn recognises_injected_hooks() {
        // The postStart waits, with their timeouts and polls.
        let waits: [(&[&str], i64, i64); 4] = [
            (&["pilot-agent", "wait"], 60, 500),
            (&["pilot-agent", "wait", "--timeoutSeconds=90"], 90, 500),
            (
                &[
                    "/usr/lib/linkerd/linkerd-await",
                    "--timeout=2m",
                    "--port=4191",
                ],
                120,
                1000,
            ),
            (&["/cloud-sql-proxy", "wait", "--max", "1m"], 60, 1000),
        ];
        for (argv, timeout, poll) in waits {
            let hook = exec(argv, HookKind::PostStart, Owner::Sidecar);
            let until = HookDuration::UntilReady {
                timeout: Millis::secs(timeout),
                poll: Millis(poll),
                unanswered: false,
            };
            assert_eq!(hook.duration, until, "{argv:?}");
        }
        let drain = exec(
            &[
                "pilot-agent",
                "request",
                "--debug-port=15020",
                "POST",
                "drain",
            ],
            HookKind::PreStop,
            Owner::Sidecar,
        );
        assert_eq!(drain.effect, HookEffect::DrainsInbound);
        assert_eq!(drain.duration, HookDuration::Fixed(Millis::ZERO));
    }

    #[test]
    fn waiting_loops_depend_on_the_owner() {
        let script = [
            "sh",
            "-c",
            "while [ $(netstat -plunt | grep tcp | grep -v envoy | wc -l) -ne 0 ]; do sleep 1; done",
        ];
        assert_eq!(
            exec(&script, HookKind::PreStop, Owner::Sidecar).duration,
            HookDuration::UntilAppsExit
        );
        assert_eq!(
            exec(&script, HookKind::PreStop, Owner::App).duration,
            HookDuration::UntilSelfExits
        );
    }
}
