//! How a Job's work container stops its sidecars (docs/lifecycle.md §2.6 and §7, F1–F4).
//!
//! A Job pod completes only when every regular container has exited, so a classic
//! sidecar must be told to stop. This module finds the calls that do it in the work
//! container's command, decides which sidecar each reaches, and whether it can work.

mod argo;
mod endless;
mod self_stop;

use k8s_openapi::api::core::v1::Container;

use argo::*;
pub(super) use self_stop::volume_path;
use self_stop::*;

use super::mesh::{Registry, StopRequest, StopVerdict};
use super::plan::*;
use super::shell::{self, Awaited, StopCall, StopTarget};
use super::{Builder, argv_of, command_path, kubexit, script_item};
use crate::load::JsonPath;

/// Finds the stop calls of every work container of a Job pod; `models` judge the calls
/// that address their sidecars.
pub fn resolve(b: &mut Builder, models: &Registry) {
    if !b.workload.runs_to_completion() {
        return;
    }
    executor_roles(b);
    endless::mark_endless_job_containers(b);
    // A Job's work runs to its end: how its shell takes a deletion's SIGTERM is not
    // what the Job rules judge (docs/lifecycle.md §2.7); its sidecars' is.
    for container in b.regular.iter_mut().filter(|c| c.role == Role::App) {
        container.dropped_signal = None;
    }
    sidecar_waits(b);
    for (index, container, path) in written_regular(b, |c| c.role == Role::App) {
        let command = b.readable_command(container);
        let argv = &command.argv;
        let calls = shell::stop_calls(argv, b.known_stops());
        let work_user = b.run_as_user(container);
        let mut stops: Vec<SidecarStop> = calls
            .into_iter()
            .filter_map(|call| {
                let mut verdict = judge(b, models, container, &call, work_user)?;
                if let Some(exec) = &call.replaced_by {
                    verdict.effective = Err(StopFailure::ReplacedByExec { exec: exec.clone() });
                }
                Some(SidecarStop {
                    // A script from a ConfigMap is not the manifest's to rewrite.
                    script: command
                        .as_written()
                        .then(|| script_call(container, &path, argv, &call))
                        .flatten(),
                    path: call_path(container, &path, &call),
                    exits_at_once: verdict.exits_at_once,
                    method: verdict.method,
                    status: call.status,
                    written: call.written,
                    effective: verdict.effective,
                })
            })
            .collect();
        stops.extend(kubexit_stops(b, container, &path));
        stops.extend(process_stops(b, container, &path));
        let only_stops = !stops.is_empty()
            && shell::only_stops_others(&shell::parse_argv(argv), b.known_stops());
        b.regular[index].sidecar_stops = stops;
        b.regular[index].only_stops = only_stops;
    }
    drop_misses_of_stopped_sidecars(b);
    controller_stop(b, models);
    b.stop_endpoints = stop_endpoints(b, models);
}

/// The call that stops each classic sidecar in `containers` whose model knows one, where
/// the resolver judges it would work if the work made it, and the work's script to make
/// it in (Istio's `/quitquitquit` on the status port in use, Envoy's on its admin port
/// when that is 0; Linkerd's `/shutdown`, which answers only where it is enabled; the
/// Cloud SQL proxy v2's `/quitquitquit`, served only with `--quitquitquit`).
fn stop_endpoints(b: &Builder, models: &Registry) -> Vec<StopEndpoint> {
    let work = written_regular(b, |c| c.role == Role::App);
    let work_script = match work.as_slice() {
        [(_, container, path)] => work_script(container, path),
        _ => None,
    };
    b.regular
        .iter()
        .filter(|sidecar| sidecar.list() == ContainerList::Regular)
        .filter_map(|sidecar| {
            let call = sidecar.sidecar()?.kind.model()?.stop_command(b)?;
            let argv = ["sh".to_owned(), "-c".to_owned(), call.clone()];
            let parsed = shell::stop_calls(&argv, b.known_stops())
                .into_iter()
                .next()?;
            let verdict = judge_call(b, models, &parsed, None);
            (verdict.effective.is_ok() && verdict.method.reaches_container(sidecar)).then(|| {
                StopEndpoint {
                    sidecar: sidecar.name.clone(),
                    call,
                    work_script: work_script.clone(),
                }
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

/// The script item of `argv` (the container's `command` then `args`) and the call's
/// place in it: its span when it is a command of its own, else the one place its
/// words are written (inside a trap's quotes).
fn script_call(
    container: &Container,
    path: &JsonPath,
    argv: &[String],
    call: &StopCall,
) -> Option<ScriptCall> {
    let at = shell::script_index(argv)?;
    let script = &argv[at];
    let (call_span, own_command) = match &call.span {
        Some(span) => (span.clone(), true),
        None => {
            let mut places = script.match_indices(call.written.as_str());
            let (start, _) = places.next()?;
            if places.next().is_some() {
                return None;
            }
            (start..start + call.written.len(), false)
        }
    };
    Some(ScriptCall {
        item: script_item(container, path, at),
        script: script.clone(),
        call: call_span,
        own_command,
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
    models: &Registry,
    work: &Container,
    call: &StopCall,
    work_user: Option<i64>,
) -> Option<StopVerdict> {
    if let StopTarget::File { path } = &call.target {
        // Only a file created after the work reads as a signal that it is done.
        let (method, effective) = file_stop(b, work, path, call.status != ExitStatus::BeforeWork)?;
        return Some(StopVerdict::new(method, effective));
    }
    Some(judge_call(b, models, call, work_user))
}

/// The sidecar a call addresses (a file is left to `file_stop`), and whether it can
/// stop it: the model whose sidecar it addresses judges it. An HTTP call goes to the
/// models whose stop path ends the call's path most closely (Dapr's `/v1.0/shutdown`
/// before Linkerd's `/shutdown`), in the registry's order.
fn judge_call(
    b: &Builder,
    models: &Registry,
    call: &StopCall,
    work_user: Option<i64>,
) -> StopVerdict {
    let request = StopRequest {
        target: &call.target,
        method: call.method,
        work_user,
    };
    match &call.target {
        StopTarget::Signal { process }
            if b.workload.pod_spec.share_process_namespace != Some(true) =>
        {
            let method = StopMethod::Signal {
                target: process.clone(),
            };
            return StopVerdict::new(method, Err(StopFailure::NoSharedProcessNamespace));
        }
        StopTarget::Wrapper { command } => {
            let method = StopMethod::Wrapper {
                command: command.clone(),
            };
            return StopVerdict::new(method, Ok(()));
        }
        StopTarget::File { path } => {
            let method = StopMethod::Other {
                called: format!("touch {path}"),
            };
            return StopVerdict::new(method, Ok(()));
        }
        _ => {}
    }
    let candidates: Vec<_> = match &call.target {
        StopTarget::Http { path, .. } => {
            let matched = |model: &&&dyn super::SidecarModel| {
                model
                    .vocabulary()
                    .stop_paths
                    .iter()
                    .filter(|stop| path.ends_with(*stop))
                    .map(|stop| stop.len())
                    .max()
            };
            let longest = models.models.iter().filter_map(|m| matched(&m)).max();
            models
                .models
                .iter()
                .filter(|model| longest.is_some() && matched(model) == longest)
                .collect()
        }
        _ => models.models.iter().collect(),
    };
    // The first sidecar of the pod that a model knows, and whether `model` is its.
    let pod_sidecar = b.init.iter().chain(&b.regular).find_map(|c| {
        c.sidecar()
            .filter(|s| s.kind.model().is_some())
            .map(|s| (c, s))
    });
    let in_pod = |model: &dyn super::SidecarModel| {
        b.init.iter().chain(&b.regular).any(|c| {
            c.sidecar()
                .and_then(|s| s.kind.model())
                .is_some_and(|m| m.description().id == model.description().id)
        })
    };
    // The models of the pod's own sidecars judge first.
    let mut candidates = candidates;
    candidates.sort_by_key(|model| !in_pod(**model));
    if let Some((model, verdict)) = candidates.iter().find_map(|model| {
        model
            .judge_stop(&request, b)
            .map(|verdict| (model, verdict))
    }) {
        // An endpoint or command of a sidecar the pod does not run, in a pod whose
        // sidecar is another: the call reaches nothing (a signal's process name, as
        // `envoy`, may be any proxy's, so it is judged as it is).
        let foreign = !matches!(call.target, StopTarget::Signal { .. }) && !in_pod(**model);
        if let Some((container, sidecar)) = pod_sidecar.filter(|_| foreign) {
            let failure = StopFailure::NotInPod {
                written_for: SidecarKind::Known(**model),
                in_pod: sidecar.kind.clone(),
                container: container.name.clone(),
            };
            return StopVerdict::new(verdict.method, Err(failure));
        }
        return verdict;
    }
    match &call.target {
        StopTarget::Http { port, path } => {
            let method = StopMethod::Other {
                called: format!(":{port}{path}"),
            };
            // A stop path a sidecar serves, called where nothing does.
            let effective = match candidates.iter().find_map(|model| model.serves(path, b)) {
                Some(served) => Err(StopFailure::NothingOnPort {
                    port: *port,
                    path: path.clone(),
                    served,
                }),
                None => Ok(()),
            };
            StopVerdict::new(method, effective)
        }
        StopTarget::Signal { process } => {
            let method = StopMethod::Signal {
                target: process.clone(),
            };
            StopVerdict::new(method, Ok(()))
        }
        StopTarget::Command { program, .. } => {
            let method = StopMethod::Other {
                called: (*program).to_owned(),
            };
            StopVerdict::new(method, Ok(()))
        }
        StopTarget::Wrapper { .. } | StopTarget::File { .. } => unreachable!("judged above"),
    }
}
