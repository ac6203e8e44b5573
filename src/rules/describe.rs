//! How a hook, an app's start gate and a plan's assumed readings are named in messages,
//! explain and the evidence: resolve says what they are, these words say it short.

use crate::resolve::shell::{self, GateWait};
use crate::resolve::{Assumed, DrainMiss, Hook, HookAction, HookEffect};

/// The longest hook text quoted whole; a longer one is cut with `…`.
const MAX_HOOK_CHARS: usize = 60;

/// A hook in one line: its command (a shell script with its whitespace folded), or
/// the handler (`sleep action 5 s`, `HTTP GET :8022/wait-for-drain`, `tcpSocket`).
pub fn hook(hook: &Hook) -> String {
    match &hook.action {
        HookAction::Exec(argv) => match hook.rendered_from {
            // An injector's hook is named by its program and the setting it comes
            // from, not by the injector's install path (`sleep 5
            // (proxy-wait-before-exit-seconds)`).
            Some(setting) => {
                let mut words: Vec<&str> = argv.iter().map(String::as_str).collect();
                if let Some(program) = words.first_mut() {
                    *program = program.rsplit('/').next().unwrap_or(program);
                }
                format!("{} ({setting})", words.join(" "))
            }
            None => shortened(&match shell::shell_script(argv) {
                Some(script) => script.split_whitespace().collect::<Vec<_>>().join(" "),
                None => argv.join(" "),
            }),
        },
        HookAction::HttpGet { port, path } => match hook.effect {
            HookEffect::AwaitsDrain { of, quiet } => format!(
                "HTTP GET :{port}{path}: {of} answers once no request has come for {} s",
                quiet.0 / 1000
            ),
            _ => format!("HTTP GET :{port}{path}"),
        },
        HookAction::TcpSocket => "tcpSocket".to_owned(),
        HookAction::Sleep(seconds) => format!("sleep action {seconds} s"),
    }
}

/// What a hook written to start a drain does instead, when it starts none, after
/// "preStop " (`fails: `pilot-agent` refuses port 15030 (…), so no drain starts`).
pub fn drain_miss(hook: &Hook) -> Option<String> {
    let HookEffect::MissesDrain(miss) = hook.effect else {
        return None;
    };
    let program = match &hook.action {
        HookAction::Exec(argv) => argv.first().map(|p| shell::basename(p)),
        _ => None,
    }
    .unwrap_or("the program");
    Some(match miss {
        DrainMiss::PortRefused {
            port: Some(port),
            accepted,
        } => format!(
            "fails: `{program}` refuses port {port} (it calls only {}), so no drain starts",
            ports(accepted)
        ),
        DrainMiss::PortRefused { port: None, .. } => {
            format!("fails: `{program}` cannot read its port, so no drain starts")
        }
        DrainMiss::NotServedThere { port, served_on: 0 } => format!(
            "returns without draining: port {port} serves no drain (status port 0: no status server)"
        ),
        DrainMiss::NotServedThere { port, served_on } => format!(
            "returns without draining: port {port} serves no drain (the status port is {served_on})"
        ),
    })
}

/// `15000, 15004, 15020 or 15021`.
fn ports(ports: &[u16]) -> String {
    let words: Vec<String> = ports.iter().map(u16::to_string).collect();
    match words.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => words.join(""),
    }
}

/// What an app's own command waits on before its real process starts.
pub fn start_gate(wait: &GateWait) -> String {
    match wait {
        GateWait::Polls { endpoint } => format!("waits for {endpoint} before starting"),
        GateWait::Under(program) => format!("runs under {program}"),
        GateWait::First(program) => format!("runs {program} wait first"),
        GateWait::KubexitBirth { deps } => format!(
            "kubexit starts it once {} is Ready (KUBEXIT_BIRTH_DEPS)",
            deps.join(", ")
        ),
    }
}

/// `text`, cut to [`MAX_HOOK_CHARS`] characters with `…` when longer.
fn shortened(text: &str) -> String {
    if text.chars().count() > MAX_HOOK_CHARS {
        let cut: String = text.chars().take(MAX_HOOK_CHARS - 1).collect();
        format!("{cut}…")
    } else {
        text.to_owned()
    }
}

/// Why a setting has no effect, in the words of the rule that reports it (ML205,
/// ML403).
pub fn moot(why: &crate::resolve::Moot) -> String {
    match why {
        crate::resolve::Moot::Drain(drain) => super::termination::drain_setting_ignored::why(drain),
        crate::resolve::Moot::Gate(gate) => super::configuration::redundant_gate::why(gate),
    }
}

/// What a plan assumes, as `explain` prints it under the timeline.
pub fn assumed(assumed: &Assumed) -> String {
    match assumed {
        Assumed::SleepActionDropped {
            container,
            kubernetes,
        } => format!(
            "{container}: Kubernetes {kubernetes} drops the sleep action (PodLifecycleSleepAction is alpha and off): the pod runs without this hook"
        ),
        Assumed::ContainerRestartPolicyDropped {
            container,
            kubernetes,
        } => format!(
            "{container}: Kubernetes {kubernetes} drops its restartPolicy (ContainerRestartRules is off): the pod is admitted and the container restarts by the pod's policy"
        ),
        Assumed::SleepActionBeta {
            container,
            kubernetes,
        } => format!(
            "{container}: the sleep action is beta in Kubernetes {kubernetes}; taken as enabled"
        ),
        Assumed::DeletionGraceZero => "a deletion grace period of 0 is taken as 1 s, as `kubectl delete --grace-period=0` sends it without --force".to_owned(),
        Assumed::HookProgramMissing {
            container,
            hook,
            image,
            program,
        } => format!(
            "{container}: `{}` most likely fails at once (`{image}` has no `{program}`); taken as instant",
            self::hook(hook)
        ),
        Assumed::HookLengthUnknown { container, hook } => {
            format!(
                "{container}: `{}` is of unknown length; taken as instant",
                self::hook(hook)
            )
        }
        Assumed::SettingTooNew {
            setting,
            layer,
            since,
        } => {
            let layer = layer.map(|layer| format!(" in {layer}")).unwrap_or_default();
            format!("{setting}{layer} needs {since}; this version ignores it")
        }
        Assumed::NamespaceLabelsUnknown { namespace } => {
            let labels = match namespace {
                Some(namespace) => format!("namespace {namespace}: labels unknown"),
                None => "namespace unknown".to_owned(),
            };
            format!("{labels}; a pod that asks for injection is taken to get it")
        }
        Assumed::NamespaceAnnotationsUnknown { mesh, namespace } => format!(
            "namespace {namespace}: annotations unknown; the pod's own {mesh} settings are used"
        ),
        Assumed::MeshVersionUnknown {
            mesh,
            native_since,
            native_nodes,
            flag_name,
            api_server,
        } => {
            let (proxy, _) = mesh.words().classic;
            let product = native_since.product();
            let nodes = native_nodes
                .map(|nodes| match api_server {
                    true => format!(", or where the API server is before Kubernetes {nodes}"),
                    false => format!(", or on nodes before Kubernetes {nodes}"),
                })
                .unwrap_or_default();
            format!(
                "{mesh} version unknown: read as a release before {native_since} (classic {proxy}); holds for {product} before {native_since}{nodes}; {}",
                crate::settings::version::mesh::how_to_give(flag_name)
            )
        }
    }
}

/// What a plan assumes as a short phrase after "it assumes", for a fix's title.
pub fn assumed_briefly(assumed: &Assumed) -> String {
    match assumed {
        Assumed::SleepActionDropped { kubernetes, .. } => {
            format!("Kubernetes {kubernetes}, which drops the sleep action")
        }
        Assumed::ContainerRestartPolicyDropped { kubernetes, .. } => {
            format!("Kubernetes {kubernetes}, which drops a container's restartPolicy")
        }
        Assumed::SleepActionBeta { kubernetes, .. } => {
            format!("the sleep action enabled in Kubernetes {kubernetes}")
        }
        Assumed::DeletionGraceZero => "a deletion grace period of 1 s".to_owned(),
        Assumed::HookProgramMissing { image, program, .. } => {
            format!("`{image}` has no `{program}`")
        }
        Assumed::HookLengthUnknown { container, .. } => {
            format!("`{container}`'s preStop hook is instant")
        }
        Assumed::SettingTooNew { setting, since, .. } => {
            format!("a release before {since}, which ignores {setting}")
        }
        Assumed::NamespaceLabelsUnknown { .. } => {
            "a pod that asks for injection gets it".to_owned()
        }
        Assumed::NamespaceAnnotationsUnknown { mesh, .. } => {
            format!("no {mesh} settings on the namespace")
        }
        Assumed::MeshVersionUnknown {
            mesh, native_since, ..
        } => format!("{mesh} before {native_since}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::HookDuration;
    use crate::resolve::hooks::{self, HookKind, Owner};

    fn exec(argv: &[&str]) -> Hook {
        let how = hooks::HookReading {
            kind: HookKind::PreStop,
            owner: Owner::App,
            env: &shell::Env::new(),
            lexicon: &crate::resolve::Registry::standard().lexicon,
        };
        hooks::from_argv(argv.iter().map(|s| s.to_string()).collect(), None, how)
    }

    #[test]
    fn a_long_script_is_cut_to_sixty_characters() {
        let long = "x ".repeat(100);
        let words = hook(&exec(&["sh", "-c", &long]));
        assert_eq!(words.chars().count(), MAX_HOOK_CHARS);
        assert!(words.ends_with('…'), "{words}");
        assert_eq!(hook(&exec(&["sh", "-c", "sleep   5\n"])), "sleep 5");
    }

    #[test]
    fn an_injected_hook_is_named_by_its_program_and_setting() {
        let mut wait = exec(&["/bin/sleep", "5"]);
        assert_eq!(hook(&wait), "/bin/sleep 5");
        wait.rendered_from = Some("proxy-wait-before-exit-seconds");
        assert_eq!(hook(&wait), "sleep 5 (proxy-wait-before-exit-seconds)");
        assert_eq!(
            wait.duration,
            HookDuration::Fixed(crate::time::Millis::secs(5))
        );
    }
}
