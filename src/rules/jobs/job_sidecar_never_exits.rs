use serde_json::Value as Json;

use crate::fix::{Applicability, Change, Remedy};
use crate::resolve::mesh::Displaced;
use crate::resolve::shell::with_exit_trap;
use crate::resolve::{PlannedContainer, PodPlan, SelfStopTrigger, SidecarKind, StopFailure};
use crate::rules::help::{
    container_label_path, displacement, is_in_manifest, quoted_list, stop_sidecar,
};
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Violation, declare_rule};
use crate::simulate::Phase;
use crate::workload::Kind;

declare_rule! {
    /// ## What it detects
    /// A Job or CronJob pod with a sidecar in `containers` (an injected Istio or
    /// Linkerd proxy, a log shipper) and nothing that stops it when the work ends:
    /// no stop call in the work's command, and no wait in the sidecar's own command for
    /// a signal the work leaves. A sidecar that stops itself stays silent here: its
    /// script waits for a file the work creates in a volume both mount
    /// (`until [ -f /shared/done ]; do sleep 1; done`, `inotifywait`, a loop on
    /// `test -e`), for the work's process to end (`while pgrep …`, with
    /// `shareProcessNamespace: true`), or it runs under kubexit with the work's
    /// `KUBEXIT_NAME` in its `KUBEXIT_DEATH_DEPS` and a shared graveyard volume. When
    /// the signal cannot reach it (another volume, a sidecar that does not wait for the
    /// file) ML304 says why; when the work leaves it only on success (`work && touch`)
    /// ML302 does. An Argo Workflows step stays silent: Argo signals its sidecars once
    /// `main` has exited (where it cannot, ML304 says why).
    ///
    /// ## Why it loses traffic
    /// A pod is `Running` while any regular container runs (docs/lifecycle.md §2.6). The
    /// sidecar never exits on its own, so the pod stays `1/2 Running`, the Job never
    /// completes, `ttlSecondsAfterFinished` never fires, and a CronJob with
    /// `concurrencyPolicy: Forbid` stops scheduling (istio#11045, linkerd#1869).
    ///
    /// ## Example
    /// ```yaml
    /// kind: Job
    /// spec:
    ///   template:
    ///     metadata:
    ///       labels:
    ///         sidecar.istio.io/inject: "true"
    ///     spec:
    ///       containers:
    ///       - name: migrate
    ///         command: ["./migrate"]
    /// ```
    ///
    /// ## Fix
    /// Run the proxy as a native sidecar (Kubernetes 1.29+), which the kubelet stops
    /// once the work is done (the Job completes when it has exited), or stop it when the
    /// work ends and keep the work's exit status, without `exec` (it would replace the
    /// shell, and the trap would never run):
    /// ```yaml
    /// command: ["/bin/sh", "-c"]
    /// args:
    /// - |
    ///   trap 'curl -fsS -X POST http://localhost:15020/quitquitquit' EXIT
    ///   ./migrate
    /// ```
    ///
    /// `lint --fix --unsafe-fixes` (unsafe) makes an injected Istio or Linkerd proxy a
    /// native sidecar with its mesh's annotation on the pod template, where Kubernetes
    /// (1.29+) and the mesh run native sidecars: `sidecar.istio.io/nativeSidecar: "true"`
    /// from Istio 1.24; for Linkerd the strongest key the release reads, set to `"true"`
    /// (`config.alpha.linkerd.io/proxy-enable-native-sidecar` from 2.15, the beta key
    /// from 2.19, `config.linkerd.io/…` from 2.20); for Consul's dataplane
    /// `consul.hashicorp.com/enable-consul-dataplane-as-sidecar: "true"` (consul-k8s
    /// 1.9+, and 1.6.9, 1.7.5 and 1.8.2 on by backports; the release is not an input),
    /// with its `sidecar-proxy-lifecycle-shutdown-grace-period-seconds` set to `"0"`
    /// where it waits: a native dataplane is signalled after the work and would still
    /// wait its 30 s out (docs/lifecycle.md §5.2). Not Dapr's
    /// `dapr.io/enable-native-sidecar` (Dapr 1.18+), which the help names: its injector
    /// gives a native daprd no startup probe, so the work would start before daprd is
    /// ready (ML104's finding for this one). An unknown mesh version is read as the
    /// resolver reads it (Istio: the annotation is read; Linkerd: the alpha key, which
    /// every release with native sidecars reads). A `holdApplicationUntilProxyStarts: true`
    /// of the pod's own `proxy.istio.io/config` is removed with it: native mode ignores
    /// it and the proxy's startup probe holds the app instead (left, it would be a new
    /// ML403). So is a Linkerd wait before exit the pod sets
    /// (`config.alpha.linkerd.io/proxy-wait-before-exit-seconds`): the injectors of 2.15
    /// to 2.19 deny a native proxy with a wait, and 2.20 drops the wait (a native proxy
    /// stops after the app anyway); where the wait is the install's, which the pod
    /// cannot drop, those releases get no switch. Unsafe because the proxy then starts
    /// among the init containers, before the app, and stops after it: an order a human
    /// should review.
    ///
    /// A sidecar written in `containers` (a Cloud SQL proxy, a log shipper) is moved, on
    /// Kubernetes 1.29+, to the end of `initContainers` with `restartPolicy: Always`
    /// (unsafe), its comments, probes and hooks with it. At the end, because the kubelet
    /// starts init containers one at a time in spec order (docs/lifecycle.md §1.1): it
    /// then starts when it started before, after every init container has run, so no
    /// init container runs with or without it differently than before, and one it
    /// depends on (a setup step filling a shared volume) still runs first. Unsafe
    /// because the work now waits until it has started (its `postStart` and
    /// `startupProbe`), and it is stopped after the work instead of never. A mesh's
    /// proxy written out in the manifest (an injector's output) gets no fix: its
    /// injector writes a native proxy differently (Istio adds a startup probe and drops
    /// the hold), so inject it again in native mode. Nor does a sidecar written
    /// elsewhere than the pod's `containers`, nor one on Kubernetes before 1.29.
    ///
    /// Where the proxy cannot run natively (Kubernetes before 1.29, or a mesh release
    /// without the switch, or one whose native sidecar holds no app), the mesh's stop
    /// call is set as the EXIT trap of the work's `sh -c` script, first (unsafe: it
    /// changes the Job's command): Istio's `curl -fsS -X POST
    /// http://localhost:15020/quitquitquit` (pilot-agent's status port in use), Dapr's
    /// `…:3500/v1.0/shutdown` (§5.1), Linkerd's `…:4191/shutdown` only where
    /// `config.linkerd.io/proxy-admin-shutdown: enabled` (or the proxy's environment, or
    /// the install) turns it on, as it answers 404 otherwise (docs/lifecycle.md §3.4,
    /// §4.3). The trap runs on every path out of the script and the shell keeps the
    /// work's exit status. Only where the pod has one work container (the first to end
    /// would stop the proxy under the others), its command is already a shell script
    /// without a trap or `exec` of its own, and the script runs `curl` itself: an
    /// image's tools cannot be told from its name beyond distroless, and a call whose
    /// client is missing would fail and leave the Job hanging. Elsewhere no fix: wrapping
    /// a command that is not a script (in `sh -c`, or `linkerd-await --shutdown --`)
    /// changes how it runs, which is the user's to decide.
    ///
    /// ## Evidence
    /// Proven from the manifest and the timeline: it keeps its error. Assumed when it needs a
    /// reading the input does not state (a hook of unknown length or whose program the image
    /// lacks, a version's default where releases differ): warning, naming the reading and
    /// how to settle it (the default; `--assumed-losses full` keeps the error).
    ///
    /// ## References
    /// - docs/lifecycle.md §2.6 (pod phase and Jobs), §2.8 (stops written in ConfigMap scripts; a container that only stops the others is not the work), §3.4 (`/quitquitquit`), §4.3 (`linkerd-await --shutdown`), §5.7 (Argo Workflows stops a step's sidecars itself), §7 F1
    /// - https://github.com/istio/istio/issues/11045
    /// - https://github.com/linkerd/linkerd2/issues/1869
    pub struct JobSidecarNeverExits {
        id: "ML301",
        name: "job-sidecar-never-exits",
        severity: Error,
        fix: Sometimes,
        group: Jobs,
        summary: "a Job's sidecar is never stopped, so the Job never completes",
        since: "0.1.0",
    }
}

/// A sidecar in `containers` that nothing stops once a Job's work is done.
struct NeverStopped<'a> {
    /// The sidecar.
    sidecar: &'a PlannedContainer,
    /// What kind of sidecar it is.
    kind: &'a SidecarKind,
    /// The work's containers.
    work: Vec<&'a PlannedContainer>,
    /// The kind of workload that never completes.
    workload: Kind,
    /// The pod: the versions in force and the stop calls that work in it.
    plan: &'a PodPlan,
}

impl Violation for NeverStopped<'_> {
    const RULE: &'static RuleMeta = &JobSidecarNeverExits::META;

    fn message(&self) -> String {
        let work: Vec<String> = self
            .work
            .iter()
            .map(|app| format!("`{}`", app.name))
            .collect();
        // Its own wait, when it has one, is for a signal the work never leaves.
        let waits = self
            .sidecar
            .self_stop
            .as_ref()
            .map(|wait| {
                format!(
                    " (its command waits for {}, which no work container leaves)",
                    awaited(&wait.trigger)
                )
            })
            .unwrap_or_default();
        let when = match work.len() {
            0 => "the work is done".to_owned(),
            1 => format!("{} finishes", work[0]),
            _ => format!("{} finish", work.join(", ")),
        };
        let never = if self.workload == Kind::CronJob {
            "its Jobs never complete".to_owned()
        } else {
            format!("the {} never completes", self.workload)
        };
        format!(
            "{} `{}` runs in `containers` and nothing stops it when {when}{waits}: the pod stays Running and {never}",
            self.kind.label(),
            self.sidecar.name,
        )
    }

    /// Leave the signal the sidecar's own command waits for, on every path of the work,
    /// or else stop it the usual way.
    fn help(&self) -> String {
        match self.sidecar.self_stop.as_ref().map(|wait| &wait.trigger) {
            Some(SelfStopTrigger::File { path, at: Some(at) }) => format!(
                "create {path} on every path out of the work, in the volume `{}` mounted in both containers: `trap 'touch {path}' EXIT` before the work",
                at.volume
            ),
            Some(SelfStopTrigger::Kubexit { deaths, .. }) if !deaths.is_empty() => format!(
                "run the work under kubexit too, named {} (`KUBEXIT_NAME`), with the same graveyard volume",
                quoted_list(deaths, " or ")
            ),
            _ => stop_sidecar(self.sidecar, self.plan),
        }
    }
}

impl Rule for JobSidecarNeverExits {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        let Some(completion) = &pod.timeline.completion else {
            return;
        };
        for &index in &completion.blocking {
            let sidecar = &plan.containers[index];
            // Its own `restartPolicy: Always` brings it back whatever stops it: ML305's.
            if sidecar.restart_in_place.is_some() {
                continue;
            }
            let Some(kind) = sidecar.sidecar().map(|s| &s.kind) else {
                continue;
            };
            // Calls that try and fail are ML303/ML304's, another sidecar's stop call
            // made in this sidecar's pod among them.
            let tried = plan.apps().any(|(_, app)| {
                app.sidecar_stops.iter().any(|stop| {
                    stop.method.reaches_container(sidecar)
                        || matches!(&stop.effective, Err(StopFailure::NotInPod { container, .. }) if *container == sidecar.name)
                })
            });
            if tried {
                continue;
            }
            let violation = NeverStopped {
                sidecar,
                kind,
                work: plan.work().map(|(_, app)| app).collect(),
                // A pod that runs to completion was created by a Job.
                workload: if plan.kind == Kind::Pod {
                    Kind::Job
                } else {
                    plan.kind
                },
                plan,
            };
            let primary = if is_in_manifest(sidecar) {
                Label::value(container_label_path(sidecar), "never exits on its own")
            } else {
                Label::key(
                    sidecar.finding_path().clone(),
                    format!("injects `{}`, which never exits on its own", sidecar.name),
                )
            };
            let mut finding = Finding::new(&violation, primary)
                .with_fix(
                    native_switch(sidecar, plan)
                        .or_else(|| move_to_init(sidecar, plan))
                        .or_else(|| stop_on_exit(sidecar, plan)),
                )
                .container(&sidecar.name)
                .window(
                    Phase::Completion,
                    completion.work_done,
                    completion.work_done,
                    Some(&sidecar.name),
                );
            if let Some((_, app)) = plan.work().next()
                && let Some(path) = app.manifest_path()
            {
                finding = finding.related(Label::value(
                    path.key("name"),
                    "the work ends here, the sidecar does not",
                ));
            }
            findings.push(finding);
        }
    }
}

/// What a sidecar's own command waits for, for messages.
fn awaited(trigger: &SelfStopTrigger) -> String {
    match trigger {
        SelfStopTrigger::File { path, .. } => path.clone(),
        SelfStopTrigger::ProcessGone { process } => format!("process `{process}` to end"),
        SelfStopTrigger::Kubexit { deaths, .. } => {
            format!("the kubexit death of {}", quoted_list(deaths, ", "))
        }
    }
}

/// The mesh's native-sidecar annotation on the pod template, where the mesh's and the
/// cluster's versions run native sidecars ([`crate::resolve::mesh::NativeSwitch`]): the
/// injector then adds the proxy to `initContainers` with `restartPolicy: Always`, and the
/// kubelet stops it once the work has exited. Unsafe: the proxy then starts before
/// every other container and is held to its startup probe, and it stops in a different
/// order. A setting of the pod that native mode leaves without effect (Istio's hold,
/// which the startup probe replaces) is removed with it, else the fix would trade the
/// finding for ML403's. A sidecar written in the manifest is [`move_to_init`]'s.
fn native_switch(sidecar: &PlannedContainer, plan: &PodPlan) -> Option<Remedy> {
    // Only an injector reads the switch: a proxy written in the manifest is not moved.
    if !sidecar.is_injected() {
        return None;
    }
    // A native sidecar its injector leaves without a startup probe trades this finding
    // for ML104's: the work would start before it is ready.
    let switch = sidecar.gated_native_switch()?;
    let mut changes = vec![Change::Set(
        plan.paths
            .pod_metadata
            .key("annotations")
            .key(switch.annotation),
        Json::String(switch.value.into()),
    )];
    changes.extend(switch.displaces.as_ref().map(Displaced::change));
    Some(Remedy::new(
        Applicability::Unsafe,
        format!(
            "run `{}` as a native sidecar (`{}: \"{}\"`{}), which the kubelet stops once the work is done (risk: assumes {}, whose injector reads that annotation, and Kubernetes {}; the proxy then starts before every other container and stops after them)",
            sidecar.name,
            switch.annotation,
            switch.value,
            switch
                .displaces
                .as_ref()
                .map(|displaced| {
                    let change = match displaced.value {
                        None => format!("without `{}`", displaced.key()),
                        Some(value) => format!("with `{}: \"{value}\"`", displaced.key()),
                    };
                    format!(", {change}: {}", displacement(displaced))
                })
                .unwrap_or_default(),
            switch.needs.map_or_else(
                || "the mesh release in force".to_owned(),
                |release| format!("{release} or later")
            ),
            plan.kubernetes.value
        ),
        changes,
    ))
}

/// A sidecar written in `containers` moved, with its comments, probes and hooks, to
/// the end of `initContainers` with `restartPolicy: Always`, where the Kubernetes
/// version runs native sidecars: the kubelet then stops it once the work has exited.
/// Last, because the kubelet starts init containers one at a time in spec order
/// (docs/lifecycle.md §1.1): there it starts when it started before, after every init
/// container has run, and none of them starts with it where it did not before; placed
/// first, a setup container it needs (a volume it reads) would run after it. Unsafe:
/// the work now waits for it to have started (its `postStart` and `startupProbe`),
/// and it is stopped after the work instead of never.
fn move_to_init(sidecar: &PlannedContainer, plan: &PodPlan) -> Option<Remedy> {
    // A mesh's proxy written out (an injector's output) runs natively as its injector
    // writes it in native mode (a startup probe, no hold), not as the classic container
    // moved: injecting it again in native mode is the remedy.
    let is_mesh_proxy = sidecar.sidecar()?.kind.mesh().is_some();
    if is_mesh_proxy {
        return None;
    }
    native_move(sidecar, plan)
}

/// A container of the pod's `containers` moved to the end of `initContainers` with
/// `restartPolicy: Always` ([`move_to_init`]), where the Kubernetes version runs
/// native sidecars.
pub(super) fn native_move(sidecar: &PlannedContainer, plan: &PodPlan) -> Option<Remedy> {
    if !plan.kubernetes.value.runs_native_sidecars() {
        return None;
    }
    let from = sidecar.manifest_path()?;
    let spec = plan.pod_spec_path();
    if !from.starts_with(&spec.key("containers"))
        || from.segments().len() != spec.segments().len() + 2
    {
        return None;
    }
    let init = spec.key("initContainers");
    let written = plan
        .containers
        .iter()
        .filter(|container| {
            container
                .manifest_path()
                .is_some_and(|path| path.starts_with(&init))
        })
        .count();
    let to = init.index(written);
    Some(Remedy::new(
        Applicability::Unsafe,
        format!(
            "make `{}` a native sidecar: move it to the end of `initContainers` with `restartPolicy: Always`, so the kubelet stops it once the work is done",
            sidecar.name
        ),
        vec![
            Change::Move {
                from: from.clone(),
                to: to.clone(),
            },
            Change::Set(to.key("restartPolicy"), Json::String("Always".into())),
        ],
    ))
}

/// Where the proxy cannot run natively (Kubernetes before 1.29, or a mesh release
/// without the switch), the mesh's stop call set as the EXIT trap of the work's
/// script, first: it runs on every path out of the work, and the shell still exits
/// with the work's status. Only where the call works in this setup and the work's
/// script can take it ([`crate::resolve::StopEndpoint`]). Unsafe: it changes the
/// Job's command.
fn stop_on_exit(sidecar: &PlannedContainer, plan: &PodPlan) -> Option<Remedy> {
    let native_route = !sidecar.is_injected() || sidecar.gated_native_switch().is_some();
    if plan.kubernetes.value.runs_native_sidecars() && native_route {
        return None;
    }
    let endpoint = plan
        .stop_endpoints
        .iter()
        .find(|endpoint| endpoint.sidecar == sidecar.name)?;
    let work = endpoint.work_script.as_ref()?;
    Some(Remedy::new(
        Applicability::Unsafe,
        format!(
            "stop `{}` when the work exits, keeping its status: `trap '{}' EXIT` first in the work's script",
            sidecar.name, endpoint.call
        ),
        vec![Change::Set(
            work.item.clone(),
            Json::String(with_exit_trap(&work.script, &endpoint.call)),
        )],
    ))
}
