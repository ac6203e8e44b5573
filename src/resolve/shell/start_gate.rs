//! Whether an app's own command waits for its proxy before the real process starts.

use super::hook_length::is_noop;
use super::syntax::{Command, List, SimpleCommand};

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

/// Readiness endpoints of the proxies an app may poll before starting.
const READINESS_ENDPOINTS: [&str; 5] = [
    ":15021/healthz/ready",
    ":15020/healthz/ready",
    ":15000/ready",
    ":4191/ready",
    ":15000/server_info",
];

/// How an app's own command waits for its proxy, if it does: a loop polling a proxy's
/// readiness endpoint before the real process, a retrying `curl`, or a wrapper
/// (`linkerd-await`, `cloud-sql-proxy wait`, `pilot-agent wait`).
pub fn start_gate(list: &List) -> Option<GateWait> {
    for item in &list.0 {
        for pipeline in item.pipelines() {
            for command in &pipeline.commands {
                match command {
                    Command::Loop {
                        condition, body, ..
                    } => {
                        if let Some(endpoint) =
                            polls_readiness(condition).or_else(|| polls_readiness(body))
                        {
                            return Some(GateWait::Polls { endpoint });
                        }
                    }
                    Command::Simple(simple) => {
                        if let Some(gate) = wrapper_gate(simple) {
                            return Some(gate);
                        }
                        if is_retrying_fetch(simple)
                            && let Some(endpoint) = readiness_endpoint(simple)
                        {
                            return Some(GateWait::Polls { endpoint });
                        }
                        if !is_noop(simple) && simple.name() != Some("sleep") {
                            // The real work started before any wait.
                            return None;
                        }
                    }
                    Command::Group(inner) => {
                        if let Some(gate) = start_gate(inner) {
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

fn wrapper_gate(command: &SimpleCommand) -> Option<GateWait> {
    let argv = command.argv();
    let second = argv.get(1).map(|w| w.0.as_str());
    match command.name()? {
        "linkerd-await" => Some(GateWait::Under("linkerd-await")),
        "cloud-sql-proxy" if second == Some("wait") => Some(GateWait::First("cloud-sql-proxy")),
        "pilot-agent" if second == Some("wait") => Some(GateWait::First("pilot-agent")),
        _ => None,
    }
}

fn polls_readiness(list: &List) -> Option<String> {
    list.simple_commands()
        .into_iter()
        .find_map(readiness_endpoint)
}

fn readiness_endpoint(command: &SimpleCommand) -> Option<String> {
    if !matches!(command.name(), Some("curl" | "wget" | "nc" | "http")) {
        return None;
    }
    command.argv().iter().find_map(|word| {
        READINESS_ENDPOINTS
            .iter()
            .find(|endpoint| word.0.contains(*endpoint))
            .map(|_| word.0.clone())
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
        let gate = |script: &str| start_gate(&parse(script));
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
