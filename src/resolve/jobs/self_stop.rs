//! Sidecars that stop themselves: the signal each one's own command waits for (a file,
//! a kubexit tombstone, a process ending), and whether the work leaves it where the
//! sidecar looks.

use super::*;

/// The signal each regular sidecar's own command waits for before it exits: a kubexit
/// death dependency, or a wait in its script (`shell::awaited_signal`).
pub(super) fn sidecar_waits(b: &mut Builder) {
    for (index, container, path) in written_regular(b, |c| c.sidecar().is_some()) {
        let argv = b.readable_command(container).argv;
        let self_stop = if kubexit::runs_under(&argv) {
            let graveyard = kubexit::graveyard(container);
            let deaths = kubexit::deps(container, "KUBEXIT_DEATH_DEPS");
            Some(SelfStop {
                path: command_path(container, &path),
                written: format!("kubexit (KUBEXIT_DEATH_DEPS={})", deaths.join(",")),
                trigger: SelfStopTrigger::Kubexit {
                    deaths,
                    at: volume_path(container, &graveyard),
                    graveyard,
                },
            })
        } else {
            shell::awaited_signal(&shell::parse_argv(&argv)).and_then(|wait| {
                let trigger = match wait.awaited {
                    Awaited::File(file) => SelfStopTrigger::File {
                        at: volume_path(container, &file),
                        path: file,
                    },
                    // Without a shared process namespace the sidecar sees none of the
                    // work's processes.
                    Awaited::ProcessGone(process)
                        if b.workload.pod_spec.share_process_namespace == Some(true) =>
                    {
                        SelfStopTrigger::ProcessGone { process }
                    }
                    Awaited::ProcessGone(_) => return None,
                };
                Some(SelfStop {
                    path: command_path(container, &path),
                    trigger,
                    written: wait.written,
                })
            })
        };
        b.regular[index].self_stop = self_stop;
    }
}

/// Where `path` lies in a pod volume, through the deepest of the container's
/// `volumeMounts` that holds it; `None` when it is in the container's own filesystem.
pub(in crate::resolve) fn volume_path(container: &Container, path: &str) -> Option<VolumePath> {
    let path = path.trim_end_matches('/');
    container
        .volume_mounts
        .iter()
        .flatten()
        .filter_map(|mount| {
            let root = mount.mount_path.trim_end_matches('/');
            let below = path.strip_prefix(root)?;
            (below.is_empty() || below.starts_with('/')).then_some((root.len(), mount, below))
        })
        .max_by_key(|(depth, ..)| *depth)
        .map(|(_, mount, below)| {
            let sub = mount
                .sub_path
                .as_deref()
                .unwrap_or_default()
                .trim_matches('/');
            let below = below.trim_start_matches('/');
            let path = [sub, below]
                .into_iter()
                .filter(|part| !part.is_empty())
                .collect::<Vec<_>>()
                .join("/");
            VolumePath {
                volume: mount.name.clone(),
                path,
            }
        })
}

/// Whether a signal left at `left` is seen by a wait at `watched`: the same volume, and
/// the same path or one below the watched directory (`inotifywait /shared`).
pub(super) fn meets(watched: &Option<VolumePath>, left: &Option<VolumePath>) -> bool {
    match (watched, left) {
        (Some(watched), Some(left)) => {
            watched.volume == left.volume
                && (watched.path == left.path
                    || watched.path.is_empty()
                    || left
                        .path
                        .strip_prefix(&watched.path)
                        .is_some_and(|rest| rest.starts_with('/')))
        }
        _ => false,
    }
}

/// The regular sidecars written in the manifest, with their manifest containers.
pub(super) fn manifest_sidecars<'b>(
    b: &'b Builder,
) -> impl Iterator<Item = (&'b PlannedContainer, &'b Container)> {
    b.regular
        .iter()
        .filter(|c| c.sidecar().is_some())
        .filter_map(|c| Some((c, b.manifest_container(c)?)))
}

/// `touch FILE` in the work: the self-stop of the sidecar that waits for it, or, when a
/// sidecar that cannot see it or does not wait for it was meant, why it stops nothing.
/// A file no sidecar is concerned with is not a stop call, nor one created before the
/// work (`after_work` false) in a volume a sidecar merely shares.
pub(super) fn file_stop(
    b: &Builder,
    work: &Container,
    file: &str,
    after_work: bool,
) -> Option<(StopMethod, Result<(), StopFailure>)> {
    let left = volume_path(work, file);
    let method = |sidecar: &PlannedContainer| StopMethod::SelfStop {
        sidecar: sidecar.name.clone(),
        by_signal: false,
    };
    let waiting_for_a_file = || {
        manifest_sidecars(b).filter_map(|(sidecar, _)| match &sidecar.self_stop {
            Some(SelfStop {
                trigger: SelfStopTrigger::File { path, at },
                ..
            }) => Some((sidecar, path, at)),
            _ => None,
        })
    };
    if let Some((sidecar, ..)) = waiting_for_a_file().find(|(_, _, at)| meets(at, &left)) {
        return Some((method(sidecar), Ok(())));
    }
    // The same file name where the sidecar cannot see it: another volume, or none.
    let name = file.rsplit('/').next().unwrap_or(file);
    if let Some((sidecar, path, at)) = waiting_for_a_file()
        .find(|(_, path, _)| path.trim_end_matches('/').rsplit('/').next() == Some(name))
    {
        return Some((
            method(sidecar),
            Err(StopFailure::SignalNotShared {
                sidecar: sidecar.name.clone(),
                waits_at: path.clone(),
                waits_in: at.as_ref().map(|at| at.volume.clone()),
                leaves_at: file.to_owned(),
                leaves_in: left.as_ref().map(|at| at.volume.clone()),
            }),
        ));
    }
    // A sidecar that shares the volume but does not wait for anything in it.
    let left_in = left.as_ref().filter(|_| after_work)?;
    let (sidecar, container) = manifest_sidecars(b).find(|(sidecar, container)| {
        sidecar.self_stop.is_none()
            && container
                .volume_mounts
                .iter()
                .flatten()
                .any(|mount| mount.name == left_in.volume)
    })?;
    Some((
        method(sidecar),
        Err(StopFailure::SidecarIgnoresSignal {
            sidecar: sidecar.name.clone(),
            file: file.to_owned(),
            own_entrypoint: container.command.is_none(),
        }),
    ))
}

/// A work run under kubexit records its death in its tombstone however it ends; kubexit
/// in a sidecar that lists its name in `KUBEXIT_DEATH_DEPS` and watches the same
/// graveyard then stops its child (`ShutdownWithTimeout`,
/// `pkg/supervisor/supervisor.go`, karlkfi/kubexit v0.3.2; see [`kubexit`]).
pub(super) fn kubexit_stops(
    b: &Builder,
    work: &Container,
    path: &crate::load::JsonPath,
) -> Vec<SidecarStop> {
    if !kubexit::runs_under(&argv_of(work)) {
        return Vec::new();
    }
    let Some(name) = kubexit::name(work) else {
        return Vec::new();
    };
    let graveyard = kubexit::graveyard(work);
    let left = volume_path(work, &graveyard);
    manifest_sidecars(b)
        .filter_map(|(sidecar, _)| {
            let Some(SelfStop {
                trigger:
                    SelfStopTrigger::Kubexit {
                        deaths,
                        graveyard: watched,
                        at,
                    },
                ..
            }) = &sidecar.self_stop
            else {
                return None;
            };
            let dependent = deaths.iter().any(|d| d == name);
            let shared = meets(at, &left);
            let effective = match (dependent, shared) {
                (true, true) => Ok(()),
                (true, false) => Err(StopFailure::SignalNotShared {
                    sidecar: sidecar.name.clone(),
                    waits_at: watched.clone(),
                    waits_in: at.as_ref().map(|at| at.volume.clone()),
                    leaves_at: graveyard.clone(),
                    leaves_in: left.as_ref().map(|at| at.volume.clone()),
                }),
                (false, true) => Err(StopFailure::KubexitNotADeathDep {
                    sidecar: sidecar.name.clone(),
                    name: name.to_owned(),
                    deaths: deaths.clone(),
                }),
                (false, false) => return None,
            };
            Some(SidecarStop {
                path: command_path(work, path),
                method: StopMethod::SelfStop {
                    sidecar: sidecar.name.clone(),
                    by_signal: true,
                },
                status: ExitStatus::Kept,
                written: format!("kubexit (KUBEXIT_NAME={name})"),
                effective,
                exits_at_once: false,
                script: None,
            })
        })
        .collect()
}

/// A sidecar that waits for a process to end, in a shared process namespace, stops
/// once the work's process has exited, however it ends.
pub(super) fn process_stops(
    b: &Builder,
    work: &Container,
    path: &crate::load::JsonPath,
) -> Vec<SidecarStop> {
    let argv = b.readable_command(work).argv.join(" ");
    manifest_sidecars(b)
        .filter_map(|(sidecar, _)| match &sidecar.self_stop {
            Some(SelfStop {
                trigger: SelfStopTrigger::ProcessGone { process },
                ..
            }) if argv.contains(process.as_str()) => Some(SidecarStop {
                path: command_path(work, path),
                method: StopMethod::SelfStop {
                    sidecar: sidecar.name.clone(),
                    by_signal: false,
                },
                status: ExitStatus::Kept,
                written: process.clone(),
                effective: Ok(()),
                exits_at_once: false,
                script: None,
            }),
            _ => None,
        })
        .collect()
}

/// A missed signal matters only for a sidecar nothing else stops: a file the work
/// leaves for one sidecar is no fault when another way stops it.
pub(super) fn drop_misses_of_stopped_sidecars(b: &mut Builder) {
    let stopped: Vec<String> = b
        .regular
        .iter()
        .filter(|c| c.sidecar().is_some())
        .filter(|sidecar| {
            b.regular
                .iter()
                .flat_map(|app| &app.sidecar_stops)
                .any(|stop| stop.effective.is_ok() && stop.method.reaches_container(sidecar))
        })
        .map(|sidecar| sidecar.name.clone())
        .collect();
    for app in &mut b.regular {
        app.sidecar_stops.retain(|stop| match &stop.method {
            StopMethod::SelfStop { sidecar, .. } => {
                stop.effective.is_ok() || !stopped.contains(sidecar)
            }
            _ => true,
        });
    }
}
