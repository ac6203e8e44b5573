//! How a Job's work container stops its sidecars (docs/lifecycle.md §2.6 and §7, F1–F4).
//!
//! A Job pod completes only when every regular container has exited, so a classic
//! sidecar must be told to stop. This module finds the calls that do it in the work
//! container's command, decides which sidecar each reaches, and whether it can work.

use k8s_openapi::api::core::v1::Container;

use super::istio::DEFAULT_STATUS_PORT;
use super::plan::*;
use super::shell::{self, Awaited, HttpMethod, StopCall, StopTarget};
use super::{Builder, argv_of, command_path, kubexit, script_item};
use crate::load::JsonPath;

/// Linkerd's admin port, where `/shutdown` lives.
const LINKERD_ADMIN_PORT: u16 = 4191;
const ENVOY_ADMIN_PORT: u16 = 15000;
const CLOUD_SQL_ADMIN_PORT: u16 = 9091;
const DAPR_HTTP_PORT: u16 = 3500;

/// Finds the stop calls of every work container of a Job pod.
pub fn resolve(b: &mut Builder) {
    if !b.workload.runs_to_completion() {
        return;
    }
    // A Job's work runs to its end: how its shell takes a deletion's SIGTERM is not
    // what the Job rules judge (docs/lifecycle.md §2.7); its sidecars' is.
    for container in b.regular.iter_mut().filter(|c| c.role == Role::App) {
        container.dropped_signal = None;
    }
    sidecar_waits(b);
    for (index, container, path) in written_regular(b, |c| c.role == Role::App) {
        let command = b.readable_command(container);
        let argv = &command.argv;
        let calls = shell::stop_calls(argv, &b.settings.stop_wrappers);
        let work_user = b.run_as_user(container);
        let mut stops: Vec<SidecarStop> = calls
            .into_iter()
            .filter_map(|call| {
                let (method, mut effective) = judge(b, container, &call, work_user)?;
                if let Some(exec) = &call.replaced_by {
                    effective = Err(StopFailure::ReplacedByExec { exec: exec.clone() });
                }
                Some(SidecarStop {
                    // A script from a ConfigMap is not the manifest's to rewrite.
                    script: command
                        .mounted
                        .is_none()
                        .then(|| script_call(container, &path, argv, &call))
                        .flatten(),
                    path: call_path(container, &path, &call),
                    // pilot-agent's `/quitquitquit` disables draining and exits at once
                    // (`handleQuit`); Envoy's own exits at once too (docs/lifecycle.md §3.4).
                    exits_at_once: matches!(
                        method,
                        StopMethod::IstioAgentQuit { .. } | StopMethod::EnvoyAdminQuit
                    ),
                    method,
                    status: call.status,
                    written: call.written,
                    effective,
                })
            })
            .collect();
        stops.extend(kubexit_stops(b, container, &path));
        stops.extend(process_stops(b, container, &path));
        let only_stops = !stops.is_empty()
            && shell::only_stops_others(&shell::parse_argv(argv), &b.settings.stop_wrappers);
        b.regular[index].sidecar_stops = stops;
        b.regular[index].only_stops = only_stops;
    }
    drop_misses_of_stopped_sidecars(b);
    controller_stop(b);
    b.stop_endpoints = stop_endpoints(b);
}

/// The call that stops each classic Istio or Linkerd proxy or Cloud SQL proxy in
/// `containers`, where the resolver judges it would work if the work made it, and the
/// work's script to make it in. Istio: pilot-agent's `/quitquitquit` on the status port
/// in use (none when the port is 0). Linkerd: the proxy's `/shutdown` on its admin port
/// 4191, which answers only where it is enabled (`linkerd_shutdown_enabled`). Cloud SQL
/// v2: its `/quitquitquit` on its admin port, served only with `--quitquitquit`.
fn stop_endpoints(b: &Builder) -> Vec<StopEndpoint> {
    let work = written_regular(b, |c| c.role == Role::App);
    let work_script = match work.as_slice() {
        [(_, container, path)] => work_script(container, path),
        _ => None,
    };
    b.regular
        .iter()
        .filter(|sidecar| sidecar.list() == ContainerList::Regular)
        .filter_map(|sidecar| {
            let call = match sidecar.sidecar()?.kind {
                SidecarKind::IstioProxy if istio_status_port(b) != 0 => format!(
                    "curl -fsS -X POST http://localhost:{}/quitquitquit",
                    istio_status_port(b)
                ),
                SidecarKind::LinkerdProxy => {
                    format!("curl -fsS -X POST http://localhost:{LINKERD_ADMIN_PORT}/shutdown")
                }
                // Served only when the proxy runs with `--quitquitquit` (`cloud_sql_quit`).
                SidecarKind::CloudSqlProxy => format!(
                    "curl -fsS -X POST http://localhost:{}/quitquitquit",
                    cloud_sql_admin_port(b)
                ),
                _ => return None,
            };
            let argv = ["sh".to_owned(), "-c".to_owned(), call.clone()];
            let parsed = shell::stop_calls(&argv, &[]).into_iter().next()?;
            let (method, effective) = judge_call(b, &parsed, None);
            (effective.is_ok() && method.reaches_container(sidecar)).then(|| StopEndpoint {
                sidecar: sidecar.name.clone(),
                call,
                work_script: work_script.clone(),
            })
        })
        .collect()
}

/// The work's `sh -c` script, when it runs `curl` itself (so its image has it) and
/// an EXIT trap set first would run ([`shell::takes_exit_trap`]).
fn work_script(container: &Container, path: &JsonPath) -> Option<WorkScript> {
    let argv = argv_of(container);
    let at = shell::script_index(&argv)?;
    let script = &argv[at];
    let runs_curl = shell::parse(script)
        .simple_commands()
        .iter()
        .any(|command| command.name() == Some("curl"));
    if !runs_curl || !shell::takes_exit_trap(script) {
        return None;
    }
    Some(WorkScript {
        item: script_item(container, path, at),
        script: script.clone(),
    })
}

/// The signal each regular sidecar's own command waits for before it exits: a kubexit
/// death dependency, or a wait in its script (`shell::awaited_signal`).
fn sidecar_waits(b: &mut Builder) {
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
pub(super) fn volume_path(container: &Container, path: &str) -> Option<VolumePath> {
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

/// The regular containers written in the manifest that `keep` selects: their index,
/// their manifest container and its path.
fn written_regular<'a>(
    b: &Builder<'a>,
    keep: fn(&PlannedContainer) -> bool,
) -> Vec<(usize, &'a Container, crate::load::JsonPath)> {
    b.regular
        .iter()
        .enumerate()
        .filter(|(_, planned)| keep(planned))
        .filter_map(|(index, planned)| {
            Some((
                index,
                b.manifest_container(planned)?,
                planned.manifest_path()?.clone(),
            ))
        })
        .collect()
}

/// Whether a signal left at `left` is seen by a wait at `watched`: the same volume, and
/// the same path or one below the watched directory (`inotifywait /shared`).
fn meets(watched: &Option<VolumePath>, left: &Option<VolumePath>) -> bool {
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
fn manifest_sidecars<'b>(
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
fn file_stop(
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
fn kubexit_stops(b: &Builder, work: &Container, path: &crate::load::JsonPath) -> Vec<SidecarStop> {
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
fn process_stops(b: &Builder, work: &Container, path: &crate::load::JsonPath) -> Vec<SidecarStop> {
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
fn drop_misses_of_stopped_sidecars(b: &mut Builder) {
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

/// A controller that signals the sidecars once the work is done (Argo Workflows) stops
/// them as a call in the work would: the first work container carries one stop per
/// sidecar. Argo delivers the signal by exec'ing a kill command in each container
/// (argo-workflows v4.1.2 `workflow/signal/signal.go`, `killCommand`): `argoexec kill`
/// where its volume is mounted, which it mounts into the template's own containers
/// (`workflow/controller/workflowpod.go`, `createWorkflowPod`), the command of the
/// pod's `workflows.argoproj.io/kill-cmd-<container>` annotation, else
/// `/bin/sh -c 'kill -15 1'`, which an injected sidecar without a shell cannot run.
fn controller_stop(b: &mut Builder) {
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
const ARGO_MOUNTS: [&str; 2] = ["/var/run/argo", "/argo-bin"];

/// Whether Argo's kill command can run in `container`.
fn argo_can_signal(b: &Builder, container: &PlannedContainer) -> bool {
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
                .map_or(container.missing_tools, super::images::missing_tools)
                .shell
        }
    }
}

/// The script item of `argv` (the container's `command` then `args`) and the call's
/// place in it, when the call is written there as a command of its own.
fn script_call(
    container: &Container,
    path: &JsonPath,
    argv: &[String],
    call: &StopCall,
) -> Option<ScriptCall> {
    let call_span = call.span.clone()?;
    let at = shell::script_index(argv)?;
    Some(ScriptCall {
        item: script_item(container, path, at),
        script: argv[at].clone(),
        call: call_span,
    })
}

/// Where the call is written: the `command` or `args` item that holds it, narrowed to
/// the script line that shares the most words with the call.
fn call_path(container: &Container, path: &JsonPath, call: &StopCall) -> JsonPath {
    let words: Vec<&str> = call
        .written
        .split_whitespace()
        .map(|word| word.trim_matches(|c| c == '\'' || c == '"'))
        .filter(|word| !word.is_empty())
        .collect();
    let score = |line: &str| words.iter().filter(|word| line.contains(*word)).count();
    let lists = [("command", &container.command), ("args", &container.args)];
    let best = lists
        .iter()
        .flat_map(|(field, list)| {
            list.iter()
                .flatten()
                .enumerate()
                .flat_map(move |(index, item)| {
                    item.lines()
                        .enumerate()
                        .map(move |(line, text)| (*field, index, item.lines().count(), line, text))
                })
        })
        .map(|(field, index, lines, line, text)| (score(text), field, index, lines, line))
        .filter(|(score, ..)| *score > 0)
        // The first of the best lines: `max_by_key` would keep the last.
        .fold(
            None,
            |best: Option<(usize, &str, usize, usize, usize)>, candidate| match best {
                Some(best) if best.0 >= candidate.0 => Some(best),
                _ => Some(candidate),
            },
        );
    match best {
        Some((_, field, index, 1, _)) => path.key(field).index(index),
        Some((_, field, index, _, line)) => path.key(field).index(index).line(line),
        None => command_path(container, path),
    }
}

/// The sidecar a call reaches, and whether it can stop it.
fn judge(
    b: &Builder,
    work: &Container,
    call: &StopCall,
    work_user: Option<i64>,
) -> Option<(StopMethod, Result<(), StopFailure>)> {
    if let StopTarget::File { path } = &call.target {
        // Only a file created after the work reads as a signal that it is done.
        return file_stop(b, work, path, call.status != ExitStatus::BeforeWork);
    }
    Some(judge_call(b, call, work_user))
}

/// The sidecar a call addresses (a file is left to `file_stop`), and whether it can
/// stop it.
fn judge_call(
    b: &Builder,
    call: &StopCall,
    work_user: Option<i64>,
) -> (StopMethod, Result<(), StopFailure>) {
    let post_only = |method: StopMethod, endpoint: &'static str| {
        let verdict = match call.method {
            Some(HttpMethod::Get) => Err(StopFailure::NeedsPost { endpoint }),
            _ => Ok(()),
        };
        (method, verdict)
    };
    match &call.target {
        StopTarget::Http { port, path } if path.ends_with("/quitquitquit") => {
            if *port == istio_status_port(b) {
                post_only(
                    StopMethod::IstioAgentQuit { port: *port },
                    "pilot-agent's /quitquitquit",
                )
            } else if *port == ENVOY_ADMIN_PORT {
                (StopMethod::EnvoyAdminQuit, envoy_exit_stops_agent(b))
            } else if let Some(proxy) = cloud_sql_generation(b).or_else(|| {
                (*port == cloud_sql_admin_port(b)).then_some(SidecarKind::CloudSqlProxy)
            }) {
                cloud_sql_quit(b, *port, proxy, false)
            } else {
                (
                    StopMethod::Other {
                        called: format!(":{port}{path}"),
                    },
                    Err(StopFailure::NothingOnPort {
                        port: *port,
                        agent_port: istio_status_port(b),
                    }),
                )
            }
        }
        StopTarget::Http { port, path } if path.ends_with("/v1.0/shutdown") => post_only(
            StopMethod::DaprShutdown { port: *port },
            "Dapr's /v1.0/shutdown",
        ),
        StopTarget::Http { port, path } if path.ends_with("/shutdown") => {
            let method = StopMethod::LinkerdShutdown { port: *port };
            if *port != LINKERD_ADMIN_PORT && *port != DAPR_HTTP_PORT {
                return (
                    method,
                    Err(StopFailure::WrongLinkerdPort {
                        port: *port,
                        admin_port: LINKERD_ADMIN_PORT,
                    }),
                );
            }
            if call.method == Some(HttpMethod::Get) {
                return post_only(method, "Linkerd's /shutdown");
            }
            (method, linkerd_shutdown_enabled(b))
        }
        StopTarget::Http { port, path } => (
            StopMethod::Other {
                called: format!(":{port}{path}"),
            },
            Ok(()),
        ),
        StopTarget::LinkerdAwait => (
            StopMethod::LinkerdAwaitShutdown,
            linkerd_shutdown_enabled(b),
        ),
        StopTarget::CloudSqlShutdown => cloud_sql_quit(
            b,
            cloud_sql_admin_port(b),
            cloud_sql_generation(b).unwrap_or(SidecarKind::CloudSqlProxy),
            true,
        ),
        StopTarget::Signal { process } => {
            let verdict = if b.workload.pod_spec.share_process_namespace != Some(true) {
                Err(StopFailure::NoSharedProcessNamespace)
            } else {
                signal_permitted(process, work_user).and_then(|()| {
                    let lower = process.to_lowercase();
                    if lower.contains("envoy") && !lower.contains("pilot-agent") {
                        envoy_exit_stops_agent(b)
                    } else {
                        Ok(())
                    }
                })
            };
            (
                StopMethod::Signal {
                    target: process.clone(),
                },
                verdict,
            )
        }
        StopTarget::Wrapper { command } => (
            StopMethod::Wrapper {
                command: command.clone(),
            },
            Ok(()),
        ),
        StopTarget::File { path } => (
            StopMethod::Other {
                called: format!("touch {path}"),
            },
            Ok(()),
        ),
    }
}

/// The Cloud SQL proxy in the pod: v2 when there is one, else v1.
fn cloud_sql_generation(b: &Builder) -> Option<SidecarKind> {
    let has = |kind: SidecarKind| {
        b.init
            .iter()
            .chain(&b.regular)
            .any(|c| c.sidecar().is_some_and(|s| s.kind == kind))
            .then_some(kind)
    };
    has(SidecarKind::CloudSqlProxy).or_else(|| has(SidecarKind::CloudSqlProxyV1))
}

/// A quit call to the Cloud SQL proxy (`/quitquitquit`, `cloud-sql-proxy shutdown`):
/// v2 serves both, with GET or POST, only when started with `--quitquitquit`
/// (`quitquitquit`, `cmd/root.go`, v2.25.3); v1's only HTTP server is the health
/// check (`/startup`, `/readiness`, `/liveness`) and its only way to stop is SIGTERM
/// or SIGINT (`runProxy`, `cmd/cloud_sql_proxy/cloud_sql_proxy.go`, v1.38.3).
fn cloud_sql_quit(
    b: &Builder,
    port: u16,
    proxy: SidecarKind,
    command: bool,
) -> (StopMethod, Result<(), StopFailure>) {
    let verdict = if proxy == SidecarKind::CloudSqlProxyV1 {
        Err(StopFailure::CloudSqlV1CannotQuit { command })
    } else if cloud_sql_flag(b, "--quitquitquit") {
        Ok(())
    } else {
        Err(StopFailure::CloudSqlQuitOff { command })
    };
    (StopMethod::CloudSqlQuit { port, proxy }, verdict)
}

fn istio_status_port(b: &Builder) -> u16 {
    b.workload
        .pod_annotation("status.sidecar.istio.io/port")
        .and_then(|(v, _)| v.parse().ok())
        .unwrap_or(DEFAULT_STATUS_PORT)
}

fn cloud_sql_argv(b: &Builder) -> Vec<String> {
    b.init
        .iter()
        .chain(&b.regular)
        .filter(|c| {
            c.sidecar()
                .is_some_and(|s| s.kind == SidecarKind::CloudSqlProxy)
        })
        .filter_map(|c| b.manifest_container(c))
        .flat_map(argv_of)
        .collect()
}

fn cloud_sql_flag(b: &Builder, flag: &str) -> bool {
    cloud_sql_argv(b)
        .iter()
        .any(|arg| arg == flag || arg.starts_with(&format!("{flag}=")) && !arg.ends_with("=false"))
}

fn cloud_sql_admin_port(b: &Builder) -> u16 {
    let argv = cloud_sql_argv(b);
    argv.iter()
        .enumerate()
        .find_map(|(i, arg)| {
            arg.strip_prefix("--admin-port=")
                .map(str::to_owned)
                .or_else(|| {
                    (arg == "--admin-port")
                        .then(|| argv.get(i + 1).cloned())
                        .flatten()
                })
        })
        .and_then(|p| p.parse().ok())
        .unwrap_or(CLOUD_SQL_ADMIN_PORT)
}

/// Linkerd's `/shutdown` answers 404 unless enabled, since 2.16 (docs/lifecycle.md §4.3).
fn linkerd_shutdown_enabled(b: &Builder) -> Result<(), StopFailure> {
    const ANNOTATION: &str = super::linkerd::SHUTDOWN_ANNOTATION;
    let off = |why| Err(StopFailure::LinkerdShutdownOff(why));
    // Only "enabled" and "disabled" are read; anything else keeps the default.
    match b.workload.annotation(ANNOTATION) {
        Some(("enabled", _)) => return Ok(()),
        Some(("disabled", _)) => {
            return off(LinkerdShutdownOff::Annotation);
        }
        _ => {}
    }
    let env_enabled = b
        .init
        .iter()
        .chain(&b.regular)
        .find(|c| c.name == "linkerd-proxy")
        .and_then(|c| {
            b.manifest_container(c)?
                .env
                .iter()
                .flatten()
                .find_map(|var| {
                    (var.name == "LINKERD2_PROXY_SHUTDOWN_ENDPOINT_ENABLED")
                        .then(|| var.value.clone().unwrap_or_default())
                })
        });
    if let Some(value) = env_enabled {
        return if value == "true" {
            Ok(())
        } else {
            off(LinkerdShutdownOff::ProxyEnv)
        };
    }
    if let Some(setting) = &b.settings.linkerd.shutdown_endpoint {
        return if setting.value {
            Ok(())
        } else {
            off(LinkerdShutdownOff::InstallValue(setting.source.clone()))
        };
    }
    match &b.settings.linkerd.version {
        Some(v) if !v.value.shutdown_endpoint_off_by_default() => Ok(()),
        Some(v) => off(LinkerdShutdownOff::VersionDefault(v.value)),
        None => off(LinkerdShutdownOff::UnknownVersion),
    }
}

/// Whether Envoy exiting (its own `:15000/quitquitquit`, a signal to `envoy`) stops
/// the sidecar: from Istio 1.4 pilot-agent exits once Envoy has ("No more active
/// epochs, terminating"); before, it kept running (istio#11659). docs/lifecycle.md §3.4.
fn envoy_exit_stops_agent(b: &Builder) -> Result<(), StopFailure> {
    match b.istio.version.as_ref().map(|v| v.value) {
        Some(version) if version.minor < 4 => Err(StopFailure::AgentOutlivesEnvoy {
            version,
            agent_port: istio_status_port(b),
        }),
        _ => Ok(()),
    }
}

/// Users the proxies run as: Istio's 1337, Linkerd's 2102.
fn proxy_user(process: &str) -> Option<i64> {
    let process = process.to_lowercase();
    if process.contains("envoy") || process.contains("pilot-agent") {
        Some(super::istio::PROXY_UID)
    } else if process.contains("linkerd") {
        Some(super::linkerd::PROXY_UID)
    } else {
        None
    }
}

/// Whether the work may signal `process`: a non-root process may signal only its own
/// user's processes.
fn signal_permitted(process: &str, work_user: Option<i64>) -> Result<(), StopFailure> {
    if let (Some(user), Some(proxy)) = (work_user, proxy_user(process))
        && user != 0
        && user != proxy
    {
        return Err(StopFailure::OtherUser {
            user,
            process: process.to_owned(),
            owner: proxy,
        });
    }
    Ok(())
}
