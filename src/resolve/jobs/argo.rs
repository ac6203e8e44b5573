//! A controller that stops the sidecars itself once the work is done: Argo Workflows
//! (docs/lifecycle.md §5.7).

use super::*;
use crate::time::Millis;
use crate::workload::argo::{CONTROLLER, EMISSARY, INIT, MAIN, WAIT};

/// Argo's volume, where `argoexec` is (`VarRunArgoPath`, `ArgoExecBinMountPath`).
pub(super) const ARGO_MOUNTS: [&str; 2] = ["/var/run/argo", "/argo-bin"];

/// The pod annotation whose JSON argv Argo execs instead of its own kill command
/// (`common.AnnotationKeyKillCmd`).
const KILL_CMD: &str = "workflows.argoproj.io/kill-cmd-";

/// The grace Argo gives a container it signals when the pod sets none
/// (`GetTerminationGracePeriodDuration`: 30 s).
const DEFAULT_GRACE: i64 = 30;

/// The roles of a step's containers as Argo runs them (`createWorkflowPod`,
/// `workflow/controller/workflowpod.go`, v3.7.18 and v4.1.2): `main` is the work;
/// every other container of the template is a sidecar, which Argo stops once `main`
/// has exited (`podHasContainerNeedingTermination`, `operator.go`), whether its command
/// would end or not; Argo's `init` is an init step, and `wait` no work of its own: it
/// waits for `main` to exit, saves the outputs and exits, and is signalled with the
/// sidecars.
pub(super) fn executor_roles(b: &mut Builder) {
    if b.workload.sidecar_stop.is_none() || b.find(MAIN).is_none() {
        return;
    }
    if let Some(init) = b.init.iter_mut().find(|c| c.name == INIT) {
        init.role = Role::INIT_STEP;
    }
    let sidecars: Vec<usize> = (0..b.regular.len())
        .filter(|&index| b.regular[index].role == Role::App && b.regular[index].name != MAIN)
        .collect();
    for index in sidecars {
        let container = &b.regular[index];
        if container.name == WAIT {
            let wait = &mut b.regular[index];
            wait.role = wait.role.with_sidecar(Sidecar {
                kind: SidecarKind::Declared(WAIT.to_owned()),
                carries_traffic: false,
            });
            wait.exit = ExitPolicy::Immediately;
            wait.runs_for = None;
        } else {
            b.make_sidecar(ContainerList::Regular, index, SidecarKind::Generic, false);
        }
    }
}

/// A controller that signals the sidecars once the work is done (Argo Workflows) stops
/// them as a call in the work would: the first work container carries one stop per
/// sidecar. Argo delivers the signal by exec'ing a kill command in each container
/// (argo-workflows v4.1.2 `workflow/signal/signal.go`, `killCommand`; v3.7.18
/// `SignalContainer`): `argoexec kill 15 1` where its volume is mounted, which it
/// mounts into every container of the template (`createWorkflowPod`), the argv of the
/// pod's `workflows.argoproj.io/kill-cmd-<container>` annotation (with `%d` the signal)
/// over either, else `/bin/sh -c 'kill -15 1'`. The exec fails when the image lacks
/// the program, and a kill command that is a sidecar's stop call is judged as one.
///
/// A container under Argo's emissary (it mounts the volume) has the emissary as PID 1,
/// which passes signals to the user's process group: no shell of the user's drops the
/// SIGTERM, and the emissary SIGKILLs the group after the grace period
/// (`cmd/argoexec/commands/emissary.go`, v3.6.11, v3.7.1, v4.0.0 on). An injected
/// sidecar's PID 1 is never killed: the kernel ignores the controller's `kill 9 1`
/// from inside the container (docs/lifecycle.md §2.7).
pub(super) fn controller_stop(b: &mut Builder, models: &Registry) {
    let Some(stop) = &b.workload.sidecar_stop else {
        return;
    };
    let grace = Millis::secs(
        b.workload
            .pod_spec
            .termination_grace_period_seconds
            .unwrap_or(DEFAULT_GRACE)
            .max(0),
    );
    let mut stops = Vec::new();
    let mut wrapped = Vec::new();
    for (index, container) in b.regular.iter().enumerate() {
        let Some(sidecar) = container.sidecar() else {
            continue;
        };
        let emissary = under_emissary(b, container);
        // A template's own sidecar is stopped by its emissary once `main` has exited,
        // whatever the controller's exec in it does; any other container only by what
        // the controller execs.
        let (by, delivery, command, effective, annotated) = if emissary {
            wrapped.push(index);
            let delivery = format!("to its process group, once `{MAIN}` has exited");
            (EMISSARY, delivery, String::new(), Ok(()), None)
        } else {
            let (command, effective) = kill_command(b, models, container);
            // A kill command of the pod's own is where its failure lies.
            let annotated = b
                .workload
                .pod_annotation(&format!("{KILL_CMD}{}", container.name))
                .map(|(_, path)| path);
            let delivery = format!("`{command}` exec'd in it");
            (CONTROLLER, delivery, command, effective, annotated)
        };
        stops.push(SidecarStop {
            path: annotated.unwrap_or_else(|| stop.path.clone()),
            method: StopMethod::Controller {
                sidecar: sidecar.kind.clone(),
                container: container.name.clone(),
                by,
                delivery,
                kill_after: emissary.then_some(grace),
            },
            status: ExitStatus::Kept,
            // What runs in the sidecar when it cannot work; how Argo stops it when it can.
            written: match effective {
                Ok(()) => stop.description.to_owned(),
                Err(_) => command,
            },
            effective,
            exits_at_once: false,
            script: None,
        });
    }
    for index in wrapped {
        b.regular[index].dropped_signal = None;
    }
    let Some(work) = b.regular.iter_mut().find(|c| c.role == Role::App) else {
        return;
    };
    work.sidecar_stops.extend(stops);
}

/// Whether `container` runs under Argo's emissary: it mounts Argo's volume, as
/// `createWorkflowPod` has every container of the template do (a running pod shows
/// the mount), and is not Argo's `wait`.
fn under_emissary(b: &Builder, container: &PlannedContainer) -> bool {
    container.name != WAIT
        && b.manifest_container(container).is_some_and(|manifest| {
            manifest
                .volume_mounts
                .iter()
                .flatten()
                .any(|mount| ARGO_MOUNTS.contains(&mount.mount_path.as_str()))
        })
}

/// The command Argo's controller execs in `container`, one not under the emissary, to
/// send SIGTERM, shell-quoted, and whether it stops the container.
fn kill_command(
    b: &Builder,
    models: &Registry,
    container: &PlannedContainer,
) -> (String, Result<(), StopFailure>) {
    let annotation = format!("{KILL_CMD}{}", container.name);
    let missing = container
        .image
        .as_deref()
        .map_or(container.missing_tools, |image| {
            crate::resolve::images::missing_tools(image, b.lexicon)
        });
    if let Some((text, _)) = b.workload.pod_annotation(&annotation) {
        let Ok(argv) = serde_json::from_str::<Vec<String>>(text) else {
            // `json.Unmarshal` fails and nothing is exec'd.
            let failure = StopFailure::KillCommandUnreadable {
                container: container.name.clone(),
                annotation,
            };
            return (text.to_owned(), Err(failure));
        };
        let argv: Vec<String> = argv.iter().map(|word| word.replace("%d", "15")).collect();
        let effective = judge_kill(b, models, container, &argv);
        return (shell_words(&argv), effective);
    }
    if container.name == WAIT {
        // Argo's own container: `argoexec` is in its image.
        return ("/var/run/argo/argoexec kill 15 1".to_owned(), Ok(()));
    }
    let written = "/bin/sh -c 'kill -15 1'".to_owned();
    if missing.shell {
        // Whether the command the sidecar's model offers for the annotation would
        // itself need a switch turned on.
        let offered_fails = container
            .remedies()
            .kill_command
            .and_then(|json| serde_json::from_str::<Vec<String>>(json).ok())
            .is_some_and(|argv| judge_kill(b, models, container, &argv).is_err());
        let failure = StopFailure::NoShellForArgoKill {
            container: container.name.clone(),
            offered_fails,
        };
        return (written, Err(failure));
    }
    (written, Ok(()))
}

/// Whether exec'ing `argv` in `container` stops it: its program must be in the image,
/// and a sidecar's own stop call (`linkerd-await --shutdown`) works only where its
/// model says it does.
fn judge_kill(
    b: &Builder,
    models: &Registry,
    container: &PlannedContainer,
    argv: &[String],
) -> Result<(), StopFailure> {
    let missing = container
        .image
        .as_deref()
        .map_or(container.missing_tools, |image| {
            crate::resolve::images::missing_tools(image, b.lexicon)
        });
    let program = argv.first().map(|word| shell::basename(word));
    if let Some(program) = program.filter(|program| missing.lacks(program)) {
        return Err(StopFailure::KillProgramMissing {
            container: container.name.clone(),
            program: program.to_owned(),
        });
    }
    shell::stop_calls(argv, b.known_stops())
        .into_iter()
        .map(|call| judge_call(b, models, &call, None))
        .find(|verdict| verdict.method.reaches_container(container))
        .map_or(Ok(()), |verdict| verdict.effective)
}

/// `argv` as one shell command line, each word that needs it in single quotes.
fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|word| {
            let plain = !word.is_empty()
                && word
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./:=%@,+".contains(c));
            if plain {
                word.clone()
            } else {
                format!("'{}'", word.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
