//! The flow the meshes whose injector adds one sidecar share (Consul, Dapr, Kuma): the
//! sidecar is taken from the manifest when it is there, or else modelled from the pod's
//! opt-in. Each of these mesh modules describes its sidecar in a [`SidecarMesh`] and
//! decides its opt-in and its shutdown; this module does the rest.

use super::{Displaced, Displacement, Mesh, NativeSwitch};
use crate::load::JsonPath;
use crate::resolve::Builder;
use crate::resolve::decision::*;
use crate::resolve::hooks::HookKind;
use crate::resolve::plan::*;
use crate::settings::{Source, Sourced};
use crate::time::Millis;

/// What a mesh's injector adds: its sidecar and the shape the injector gives it.
pub(super) struct SidecarMesh {
    /// The mesh.
    pub mesh: Mesh,
    /// Its sidecar.
    pub kind: SidecarKind,
    /// The names the sidecar's container has had; the injector adds the first.
    pub containers: &'static [&'static str],
    /// The startup probe the injector gives a native sidecar, when it gives one.
    pub native_probe: Option<ProbeTiming>,
    /// The postStart hold the injector adds when the pod asks for it.
    pub hold: Option<Hold>,
    /// The pod annotation that has the injector add the sidecar natively, when the
    /// mesh reads one on the pod.
    pub native_switch: Option<PodSwitch>,
}

/// A pod annotation that, set to `"true"`, has the injector add the sidecar natively.
pub(super) struct PodSwitch {
    /// The annotation.
    pub annotation: &'static str,
    /// The pod annotation that sets how long the sidecar waits after its SIGTERM before
    /// it exits, set to `"0"` with the switch: a native sidecar is signalled only after
    /// the apps, so the wait no longer keeps anything served and would run past the
    /// pod's grace period.
    pub wait_after_signal: Option<&'static str>,
    /// The first release whose injector reads the annotation, where the resolver has
    /// no version of the mesh to decide by (`"Dapr 1.18"`).
    pub needs: Option<&'static str>,
    /// Whether the injector puts the native sidecar before the pod's own init
    /// containers rather than after them.
    pub leads_inits: bool,
    /// Whether the mesh's release in force reads the annotation (an unknown release
    /// is taken to): no switch is offered where it does not.
    pub read: fn(&Builder) -> bool,
}

/// A postStart hook that holds the next container until the sidecar is ready; the
/// injector then puts the sidecar first.
pub(super) struct Hold {
    /// The hook's command.
    pub command: &'static [&'static str],
    /// How long it waits at most.
    pub timeout: Millis,
    /// How often it polls.
    pub poll: Millis,
    /// The mode the decision reports for a held sidecar.
    pub mode: ProxyMode,
}

/// What the pod's opt-in asks of the injector.
pub(super) struct OptIn {
    /// The setting that asks for the sidecar.
    pub trigger: JsonPath,
    /// What asks for it, as `explain` gives it.
    pub reason: DecisionReason,
    /// Whether it is injected as a native sidecar.
    pub native: bool,
    /// Whether the injector puts it at the head of its list (a native sidecar before
    /// the pod's own init containers, a classic one before the app), rather than last.
    pub first: bool,
    /// The setting that asks for the hold, and what it is.
    pub hold: Option<(JsonPath, GateSetting)>,
}

/// Resolves `mesh` for the pod being built: the sidecar in the manifest, or the one
/// `opt_in` asks for; `shutdown` sets how it stops.
pub(super) fn resolve(
    b: &mut Builder,
    mesh: &SidecarMesh,
    opt_in: impl FnOnce(&Builder) -> Option<OptIn>,
    shutdown: impl FnOnce(&mut PlannedContainer),
) {
    if let Some((name, (list, index))) = mesh
        .containers
        .iter()
        .find_map(|name| Some((*name, b.find(name)?)))
    {
        b.make_sidecar(list, index, mesh.kind.clone(), true);
        shutdown(b.get_mut(list, index));
        b.meshes.push(MeshDecision {
            mesh: mesh.mesh,
            injection: Injection::InManifest,
            mode: ProxyMode::of(b.get(list, index).is_native_sidecar()),
            reasons: vec![DecisionReason::InManifest {
                container: name.to_owned(),
            }],
        });
        return;
    }
    let Some(opt_in) = opt_in(b) else {
        return;
    };
    let role = b.injected_proxy(mesh.kind.clone(), opt_in.native);
    let mut sidecar =
        PlannedContainer::injected(mesh.containers[0], mesh.mesh, opt_in.trigger.clone(), role);
    sidecar.startup = b.scenario.proxy_startup.value;
    if opt_in.native {
        sidecar.startup_probe = mesh.native_probe;
    }
    let held = match (&mesh.hold, &opt_in.hold) {
        (Some(hold), Some((path, setting))) => {
            let mut hook = b.sidecar_hook(hold.command, HookKind::PostStart);
            hook.duration = HookDuration::UntilReady {
                timeout: hold.timeout,
                poll: hold.poll,
                unanswered: false,
            };
            sidecar.post_start = Some(hook);
            sidecar.gate_request = Some(GateRequest {
                source: Source::Manifest(path.clone()),
                asked_by: setting.clone(),
            });
            Some(hold.mode)
        }
        _ => None,
    };
    shutdown(&mut sidecar);
    if !opt_in.native && b.settings.kubernetes.value.runs_native_sidecars() {
        sidecar.native_switch = native_switch(b, mesh, &sidecar.exit);
    }
    let mode = match held {
        Some(mode) => mode,
        None => ProxyMode::of(opt_in.native),
    };
    let list = if opt_in.native {
        &mut b.init
    } else {
        &mut b.regular
    };
    if opt_in.first || held.is_some() {
        list.insert(0, sidecar);
    } else {
        list.push(sidecar);
    }
    b.meshes.push(MeshDecision {
        mesh: mesh.mesh,
        injection: Injection::WillInject {
            trigger: opt_in.trigger,
        },
        mode,
        reasons: vec![opt_in.reason],
    });
}

/// `mesh`'s switch for its classic sidecar, which stops by `exit`: with the wait after
/// its signal set to `"0"` where it waits, gated where the injector gives the native
/// sidecar a startup probe.
fn native_switch(b: &Builder, mesh: &SidecarMesh, exit: &ExitPolicy) -> Option<NativeSwitch> {
    let switch = mesh
        .native_switch
        .as_ref()
        .filter(|switch| (switch.read)(b))?;
    let waits = matches!(exit, ExitPolicy::After(wait) if wait.value > Millis::ZERO);
    Some(NativeSwitch {
        displaces: switch
            .wait_after_signal
            .filter(|_| waits)
            .map(|annotation| Displaced {
                path: b
                    .workload
                    .paths
                    .pod_metadata
                    .key("annotations")
                    .key(annotation),
                because: Displacement::WaitsAfterApps,
                value: Some("0"),
            }),
        gated: mesh.native_probe.is_some(),
        needs: switch.needs,
        leads_inits: switch.leads_inits,
        ..NativeSwitch::new(switch.annotation, "true")
    })
}

/// A sidecar that drains its listeners on SIGTERM, keeps serving, and exits after
/// `length` (Consul's shutdown grace period, Kuma's drain time).
pub(super) fn drain_then_exit(sidecar: &mut PlannedContainer, length: Sourced<Millis>) {
    sidecar.exit = ExitPolicy::After(length);
    sidecar.traffic = Some(TrafficCuts {
        inbound_refused: Cut::Exit,
        inbound_drained: Cut::Signal,
        outbound_refused: Cut::Exit,
    });
}
