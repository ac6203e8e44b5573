//! Whether a command only idles: it sleeps or follows a file, with set-up commands
//! around it that only touch local files or print (`sleep infinity`, `touch /tmp/healthy;
//! sleep 3600`, `cat /config/app.conf; while true; do sleep 3600; done`, `tail -f
//! /dev/null`), so the container listens on nothing whatever a Service sends it.

use super::hook_length::is_noop;
use super::syntax::{Command, List};

/// Whether `list` (a container's command) does nothing but wait and set up files.
pub fn only_idles(list: &List) -> bool {
    let commands = list.simple_commands();
    !commands.is_empty()
        && list.0.iter().all(|item| {
            item.pipelines()
                .flat_map(|pipeline| &pipeline.commands)
                .all(|command| matches!(command, Command::Simple(_) | Command::Loop { .. }))
        })
        && commands.iter().all(|command| {
            is_noop(command)
                || matches!(
                    command.name(),
                    Some(
                        "sleep"
                            | "tail"
                            | "touch"
                            | "rm"
                            | "mkdir"
                            | "wait"
                            | "trap"
                            | "cat"
                            | "echo"
                            | "printf"
                            | "date"
                            | "ls"
                    )
                )
        })
        && commands
            .iter()
            .any(|command| matches!(command.name(), Some("sleep" | "tail" | "wait")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::shell::parse;

    #[test]
    fn idling_commands() {
        assert!(only_idles(&parse("sleep infinity")));
        assert!(only_idles(&parse(
            "touch /tmp/healthy; sleep 30; rm -rf /tmp/healthy; sleep 600"
        )));
        assert!(only_idles(&parse("tail -f /dev/null")));
        assert!(only_idles(&parse("while true; do sleep 5; done")));
        assert!(only_idles(&parse(
            "echo \"greeting=hello\" > /config/app.conf; cat /config/app.conf; while true; do sleep 3600; done"
        )));
        assert!(!only_idles(&parse("cat /config/app.conf")));
        assert!(!only_idles(&parse("nginx -g 'daemon off;'")));
        assert!(!only_idles(&parse("sleep 5; ./serve --port 8080")));
        assert!(!only_idles(&parse("touch /tmp/ready")));
    }
}
