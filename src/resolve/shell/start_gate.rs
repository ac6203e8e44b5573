//! Whether an app's own command waits for its proxy before the real process starts.

use super::hook_length::is_noop;
use super::syntax::{Command, List, SimpleCommand};
use crate::resolve::vocabulary::{Lexicon, StartWait};

/// What an app's own command waits on before its real process starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GateWait {
    /// It polls a proxy's readiness endpoint (the URL as written) until it answers.
    Polls {
        /// The endpoint, as written.
        endpoint: String,
    },
    /// It runs the work under this waiting wrapper (`linkerd-await -- /app`).
    Under(&'static str),
    /// It runs this program's `wait` first (`pilot-agent wait && /app`).
    First(&'static str),
    /// kubexit starts it once these containers are Ready (`KUBEXIT_BIRTH_DEPS`).
    KubexitBirth {
        /// The containers named in `KUBEXIT_BIRTH_DEPS`.
        deps: Vec<String>,
    },
}

/// How an app's own command waits for its proxy, if it does: a loop polling a proxy's
/// readiness endpoint before the real process, a retrying `curl`, or a wrapper
/// (`linkerd-await`, `pilot-agent wait`): the sidecars' readiness endpoints and waits
/// are in `lexicon`.
pub fn start_gate(list: &List, lexicon: &Lexicon) -> Option<GateWait> {
    for item in &list.0 {
        for pipeline in item.pipelines() {
            for command in &pipeline.commands {
                match command {
                    Command::Loop {
                        condition, body, ..
                    } => {
                        if let Some(endpoint) = polls_readiness(condition, lexicon)
                            .or_else(|| polls_readiness(body, lexicon))
                        {
                            return Some(GateWait::Polls { endpoint });
                        }
                    }
                    Command::Simple(simple) => {
                        if let Some(gate) = wrapper_gate(simple, lexicon) {
                            return Some(gate);
                        }
                        if is_retrying_fetch(simple)
                            && let Some(endpoint) = readiness_endpoint(simple, lexicon)
                        {
                            return Some(GateWait::Polls { endpoint });
                        }
                        if !is_noop(simple) && simple.name() != Some("sleep") {
                            // The real work started before any wait.
                            return None;
                        }
                    }
                    Command::Group(inner) => {
                        if let Some(gate) = start_gate(inner, lexicon) {
                            return Some(gate);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    None
}

fn wrapper_gate(command: &SimpleCommand, lexicon: &Lexicon) -> Option<GateWait> {
    let name = command.name()?;
    let second = command.argv().get(1).map(|w| w.0.as_str());
    lexicon.start_waits().find_map(|wait| match wait {
        StartWait::Under(program) if program == name => Some(GateWait::Under(program)),
        StartWait::First(program) if program == name && second == Some("wait") => {
            Some(GateWait::First(program))
        }
        _ => None,
    })
}

fn polls_readiness(list: &List, lexicon: &Lexicon) -> Option<String> {
    list.simple_commands()
        .into_iter()
        .find_map(|command| readiness_endpoint(command, lexicon))
}

fn readiness_endpoint(command: &SimpleCommand, lexicon: &Lexicon) -> Option<String> {
    if !matches!(command.name(), Some("curl" | "wget" | "nc" | "http")) {
        return None;
    }
    command.argv().iter().find_map(|word| {
        lexicon
            .readiness()
            .any(|endpoint| word.0.contains(endpoint))
            .then(|| word.0.clone())
    })
}

fn is_retrying_fetch(command: &SimpleCommand) -> bool {
    command
        .argv()
        .iter()
        .any(|w| w.0.starts_with("--retry") || w.0.starts_with("--tries") || w.0 == "-t")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::shell::parse;

    #[test]
    fn start_gates_in_app_commands() {
        let lexicon = &crate::resolve::Registry::standard().lexicon;
        let gate = |script: &str| start_gate(&parse(script), lexicon);
        assert!(
            gate(
                "until curl -fsI http://localhost:15021/healthz/ready; do sleep 1; done; exec /app"
            )
            .is_some()
        );
        assert!(
            gate("while ! wget -q -O- localhost:15000/ready; do sleep 1; done\n/app").is_some()
        );
        assert!(gate("linkerd-await -- /app").is_some());
        assert!(gate("curl --retry 30 --retry-connrefused http://127.0.0.1:15020/healthz/ready && exec /app").is_some());
        assert!(gate("/app; until curl localhost:15021/healthz/ready; do sleep 1; done").is_none());
        assert!(gate("exec /app").is_none());
    }
}
