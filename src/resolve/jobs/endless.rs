//! Sidecars in all but name: in a Job, a second container that runs forever (a log
//! shipper running `tail -F`, `sleep infinity`, `while true`) keeps the pod running as
//! a sidecar would.

use crate::resolve::plan::*;
use crate::resolve::shell::{self, Command};
use crate::resolve::{Builder, argv_of};

/// In a Job, a second container that runs forever (`tail -F`, `sleep infinity`,
/// `while true`) is a sidecar in all but name: it keeps the pod running.
pub(super) fn mark_endless_job_containers(b: &mut Builder) {
    let apps: Vec<usize> = (0..b.regular.len())
        .filter(|&i| b.regular[i].role == Role::App)
        .collect();
    if apps.len() < 2 {
        return;
    }
    let endless: Vec<usize> = apps
        .iter()
        .copied()
        .filter(|&i| {
            b.manifest_container(&b.regular[i])
                .is_some_and(|c| runs_forever(&argv_of(c)))
        })
        .collect();
    if endless.len() == apps.len() {
        return;
    }
    for index in endless {
        b.make_sidecar(ContainerList::Regular, index, SidecarKind::Generic, false);
    }
}

/// Whether a command never ends by itself.
fn runs_forever(argv: &[String]) -> bool {
    let list = shell::parse_argv(argv);
    list.0.iter().any(|item| {
        item.first.commands.iter().any(|command| match command {
            Command::Simple(simple) => {
                let words = simple.argv();
                match simple.name() {
                    Some("tail") => words.iter().any(|w| {
                        matches!(w.0.as_str(), "-f" | "-F" | "--follow")
                            || w.0.starts_with("--follow")
                    }),
                    Some("sleep") => matches!(
                        shell::sleep_length(simple, &Default::default()),
                        Some(shell::Sleep::Forever)
                    ),
                    _ => false,
                }
            }
            Command::Loop {
                kind: shell::LoopKind::While,
                condition,
                body,
            } => {
                let endless_condition = condition
                    .simple_commands()
                    .iter()
                    .all(|c| matches!(c.name(), Some("true" | ":")));
                let exits = body
                    .simple_commands()
                    .iter()
                    .any(|c| matches!(c.name(), Some("exit" | "break" | "return")));
                endless_condition && !exits
            }
            _ => false,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".into(), "-c".into(), script.into()]
    }

    #[test]
    fn endless_commands() {
        assert!(runs_forever(&sh("tail -F /var/log/app.log")));
        assert!(runs_forever(&["sleep".into(), "infinity".into()]));
        assert!(runs_forever(&sh("while true; do sleep 5; done")));
        assert!(!runs_forever(&sh(
            "while true; do sleep 5; [ -f /done ] && exit 0; done"
        )));
        assert!(!runs_forever(&sh("./run-migration")));
    }
}
