//! Whether a container's stop signal reaches the program doing its job
//! (docs/lifecycle.md §2.7): the runtime signals PID 1 only, and a shell that stays
//! PID 1 without a TERM trap drops SIGTERM, so the container runs until SIGKILL.

use k8s_openapi::api::core::v1::Container;

use super::images;
use super::mounted_scripts::{MountedScript, ReadableCommand};
use super::shell::{self, ShellPid1, ShellRun};
use crate::load::JsonPath;

/// A container whose PID 1 is a shell that drops the stop signal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DroppedSignal {
    /// The `command` or `args` that runs the shell.
    pub path: JsonPath,
    /// The shell, and why it stays PID 1.
    pub shell: ShellPid1,
    /// The ConfigMap script it runs, when it runs one.
    pub file: Option<MountedScript>,
    /// The `sh -c` script as the manifest writes it, where a fix can edit it.
    pub script: Option<ScriptItem>,
    /// `shareProcessNamespace: true`: the shell is not a namespace's init, so SIGTERM's
    /// default action ends it at once, and the runtime kills what it started with it
    /// (runc `libcontainer/state_linux.go`, `destroy`: "This is not the case for a
    /// shared PID namespace container").
    pub shared_pids: bool,
}

/// A `command` or `args` item that holds an `sh -c` script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptItem {
    /// The item.
    pub item: JsonPath,
    /// The script.
    pub script: String,
}

/// Whether `container`, whose command the shell reader reads as `command`, runs a
/// shell that drops its stop signal. A script file the input does not hold (one baked
/// into the image) is not read: nothing is known of it.
pub fn dropped(
    container: &Container,
    path: &JsonPath,
    command: &ReadableCommand,
    shared_pids: bool,
) -> Option<DroppedSignal> {
    let at = shell::script_index(&command.argv)?;
    let shell_word = match command.argv.first().map(|w| shell::basename(w)) {
        Some("busybox") => "busybox",
        _ => command.argv.first()?.as_str(),
    };
    let run = ShellRun {
        shell: shell_word,
        script: &command.argv[at],
        file: command.mounted.is_some(),
    };
    let image_sh = container.image.as_deref().and_then(images::sh_family);
    let pid1 = shell::stays_pid1(run, image_sh)?;
    let script = command.as_written().then(|| ScriptItem {
        item: super::script_item(container, path, at),
        script: command.argv[at].clone(),
    });
    Some(DroppedSignal {
        path: super::command_path(container, path),
        shell: pid1,
        file: command.mounted.clone(),
        script,
        shared_pids,
    })
}
