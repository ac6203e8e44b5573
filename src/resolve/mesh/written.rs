//! A mesh's proxy already written in the manifest (an injector's output, saved as it
//! runs), adopted as written: the postStart that returns once it is ready is the gate it
//! asks for, and under a native sidecar's startup probe that wait holds nothing more.

use super::{Mesh, NativeSwitch};
use crate::load::JsonPath;
use crate::resolve::{
    Builder, ContainerList, DecisionReason, GateMoot, GateRequest, GateSetting, HookDuration,
    Injection, MeshDecision, Moot, MootSetting, ProxyMode, SidecarKind,
};
use crate::settings::Source;

/// A proxy written in the manifest, adopted.
pub(super) struct WrittenProxy {
    /// The kubelet runs it as a native sidecar.
    pub native: bool,
    /// The manifest gives it `restartPolicy: Always`, run natively or not.
    pub restart_always: bool,
    /// Its postStart waits until it is ready.
    pub waits: bool,
    /// Its startup probe holds the app, so its waiting postStart is moot.
    pub wait_moot: bool,
}

/// Adopts the proxy at `list`/`index` as `kind`. `switch`: the annotation its injector
/// would read to add it natively, kept for a classic one; `wait`: its waiting
/// postStart's command (`pilot-agent wait`).
pub(super) fn adopt(
    b: &mut Builder,
    (list, index): (ContainerList, usize),
    kind: SidecarKind,
    switch: Option<NativeSwitch>,
    wait: &'static str,
) -> WrittenProxy {
    let native = b.get(list, index).is_native_sidecar();
    let restart_always = b.get(list, index).restart_always();
    b.make_sidecar(list, index, kind, true);
    let proxy = b.get_mut(list, index);
    proxy.native_switch = switch.filter(|_| !restart_always);
    let post_start = proxy
        .manifest_path()
        .map_or_else(JsonPath::default, |path| {
            path.key("lifecycle").key("postStart")
        });
    let waits = proxy
        .post_start
        .as_ref()
        .is_some_and(|h| matches!(h.duration, HookDuration::UntilReady { .. }));
    if waits {
        proxy.gate_request = Some(GateRequest {
            source: Source::Manifest(post_start.clone()),
            asked_by: GateSetting::PostStart { command: wait },
        });
    }
    // A native proxy is held by its startup probe: a leftover wait does nothing more
    // (docs/lifecycle.md §3.2 layout C; F9). Without a probe, the postStart is what
    // holds the next container.
    let wait_moot = native && waits && proxy.startup_probe.is_some();
    if wait_moot {
        b.moot.push(MootSetting {
            source: Source::Manifest(post_start),
            why: Moot::Gate(GateMoot::WaitUnderStartupProbe { command: wait }),
        });
    }
    WrittenProxy {
        native,
        restart_always,
        waits,
        wait_moot,
    }
}

impl WrittenProxy {
    /// Records `mesh`'s decision: its proxy `container` is in the manifest, native, an
    /// init container this Kubernetes does not run natively, or `held` when a classic
    /// one's hold is worth naming.
    pub(super) fn decide(
        &self,
        b: &mut Builder,
        mesh: Mesh,
        container: &str,
        held: Option<ProxyMode>,
    ) {
        let mode = if self.native {
            ProxyMode::Native
        } else if self.restart_always {
            ProxyMode::NativeUnsupported
        } else {
            held.unwrap_or(ProxyMode::Classic)
        };
        b.meshes.push(MeshDecision {
            mesh,
            injection: Injection::InManifest,
            mode,
            reasons: vec![DecisionReason::InManifest {
                container: container.to_owned(),
            }],
        });
    }
}
