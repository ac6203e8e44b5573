//! A controller that stops the sidecars itself once the work is done: Argo Workflows.

use super::*;

/// A controller that signals the sidecars once the work is done (Argo Workflows) stops
/// them as a call in the work would: the first work container carries one stop per
/// sidecar. Argo delivers the signal by exec'ing a kill command in each container
/// (argo-workflows v4.1.2 `workflow/signal/signal.go`, `killCommand`): `argoexec kill`
/// where its volume is mounted, which it mounts into the template's own containers
/// (`workflow/controller/workflowpod.go`, `createWorkflowPod`), the command of the
/// pod's `workflows.argoproj.io/kill-cmd-<container>` annotation, else
/// `/bin/sh -c 'kill -15 1'`, which an injected sidecar without a shell cannot run.
pub(super) fn controller_stop(b: &mut Builder) {
    let Some(stop) = &b.workload.sidecar_stop else {
        return;
    };
    let sidecars: Vec<(SidecarKind, Result<(), StopFailure>)> = b
        .regular
        .iter()
        .filter_map(|container| {
            let kind = container.sidecar()?.kind.clone();
            let effective = if argo_can_signal(b, container) {
                Ok(())
            } else {
                Err(StopFailure::NoShellForArgoKill {
                    container: container.name.clone(),
                })
            };
            Some((kind, effective))
        })
        .collect();
    let Some(work) = b.regular.iter_mut().find(|c| c.role == Role::App) else {
        return;
    };
    for (kind, effective) in sidecars {
        // What runs in the sidecar when it cannot work: the shell's kill.
        let written = match effective {
            Ok(()) => stop.description.to_owned(),
            Err(_) => "/bin/sh -c 'kill -15 1'".to_owned(),
        };
        work.sidecar_stops.push(SidecarStop {
            path: stop.path.clone(),
            method: StopMethod::Controller { sidecar: kind },
            status: ExitStatus::Kept,
            written,
            effective,
            exits_at_once: false,
            script: None,
        });
    }
}

/// Argo's volume, where `argoexec` is (`VarRunArgoPath`, `ArgoExecBinMountPath`).
pub(super) const ARGO_MOUNTS: [&str; 2] = ["/var/run/argo", "/argo-bin"];

/// Whether Argo's kill command can run in `container`.
pub(super) fn argo_can_signal(b: &Builder, container: &PlannedContainer) -> bool {
    let annotation = format!("workflows.argoproj.io/kill-cmd-{}", container.name);
    if b.workload.pod_annotation(&annotation).is_some() {
        return true;
    }
    let mounts_argo = |manifest: &Container| {
        manifest
            .volume_mounts
            .iter()
            .flatten()
            .any(|mount| ARGO_MOUNTS.contains(&mount.mount_path.as_str()))
    };
    match b.manifest_container(container) {
        // A template's own sidecar gets Argo's volume; a running pod shows it.
        Some(manifest)
            if b.workload.kind != crate::workload::Kind::Pod || mounts_argo(manifest) =>
        {
            true
        }
        // An injected sidecar: what its image lacks, as the mesh names the image.
        _ => {
            !container
                .image
                .as_deref()
                .map_or(
                    container.missing_tools,
                    crate::resolve::images::missing_tools,
                )
                .shell
        }
    }
}
