//! Kuma and Kong Mesh's `kuma-sidecar` (docs/lifecycle.md §5.3).
//!
//! The label `kuma.io/sidecar-injection: enabled` adds the sidecar. From Kuma 2.14 the
//! injector makes it a native sidecar where the API server is 1.29 or later (an
//! unknown release is read as one before 2.14, the classic sidecar): right
//! after `kuma-init`, before the pod's own init containers, with a startup probe and
//! the preStop `killall -USR2 kuma-dp`, which drains inbound listeners at T0; the
//! SIGTERM that follows once the apps have exited finds it drained and kuma-dp exits at
//! once. A classic sidecar (Kuma 2.13 and earlier, or the control plane's
//! `experimental.sidecarContainers: false`) is the first container, held with a
//! postStart `kuma-dp wait` when `kuma.io/wait-for-dataplane-ready` asks; on SIGTERM it
//! fails Envoy's health checks, reports not ready and waits the whole drain time
//! (`kuma.io/sidecar-drain-time`, 30 s) before exiting.

use super::injected::{self, Hold, OptIn, SidecarMesh};
use crate::fix::{Applicability, Change, Remedy};
use crate::load::JsonPath;
use crate::resolve::assumption::Assumed;
use crate::resolve::decision::{
    DecisionReason, Injection, MetadataKind, NativeReason, PodMetadata, ProxyMode, Release,
};
use crate::resolve::hooks::HookKind;
use crate::resolve::mesh::Advice;
use crate::resolve::mesh::{Description, Mesh, MeshInfo, OptInWords, SidecarModel, Words};
use crate::resolve::plan::*;
use crate::resolve::reading::Reading;
use crate::resolve::vocabulary::Vocabulary;
use crate::resolve::{Builder, Remedies};
use crate::settings::{KubeVersion, KumaVersion, Source, Sourced};
use crate::time::Millis;
use serde_json::Value as Json;

const CONTAINER: &str = "kuma-sidecar";
const INJECT: &str = "kuma.io/sidecar-injection";
const WAIT: &str = "kuma.io/wait-for-dataplane-ready";
const DRAIN: &str = "kuma.io/sidecar-drain-time";
const DEFAULT_DRAIN: Millis = Millis::secs(30);
/// The sidecar's environment variable the injector renders [`DRAIN`] into.
const DRAIN_ENV: &str = "KUMA_DATAPLANE_DRAIN_TIME";

/// The API server version from which the injector makes native sidecars
/// (`sidecarContainerVersion`, `pkg/plugins/runtime/k8s/plugin.go`, v2.14.3).
const NATIVE_FROM: KubeVersion = KubeVersion { minor: 29 };

/// The first release whose control plane makes native sidecars by default
/// (`experimental.sidecarContainers: true`, v2.14.0; opt-in from v2.7.0).
const NATIVE_SINCE: KumaVersion = KumaVersion::new(2, 14, 0);

/// The native sidecar's preStop (`injector.go`, `Inject`, v2.7.0 to v2.14.3): SIGUSR2
/// makes kuma-dp drain Envoy's inbound listeners without exiting.
const DRAIN_HOOK: [&str; 3] = ["killall", "-USR2", "kuma-dp"];

/// The sidecar the injector adds: natively with a startup probe, or classic, held by a
/// postStart `kuma-dp wait` when `kuma.io/wait-for-dataplane-ready` asks.
const SIDECAR: SidecarMesh = SidecarMesh {
    mesh: MESH,
    kind: KIND,
    containers: &[CONTAINER],
    // `GET /ready` on the readiness port: delay 1 s, period 5 s, 12 failures
    // (`startupProbe` in `pkg/config/app/kuma-cp/kuma-cp.defaults.yaml`, v2.14.3).
    native_probe: Some(ProbeTiming {
        initial_delay: Millis::secs(1),
        period: Millis::secs(5),
        failure_threshold: 12,
    }),
    hold: Some(Hold {
        command: &["kuma-dp", "wait"],
        timeout: Millis::secs(180),
        poll: Millis::secs(1),
        mode: ProxyMode::Held {
            first: true,
            command: "kuma-dp wait",
        },
    }),
    // Native mode is the control plane's choice (`experimental.sidecarContainers`), not
    // the pod's.
    native_switch: None,
};

/// Kuma's (and Kong Mesh's) sidecar.
pub struct Kuma;

/// Its sidecar, as plans name it.
pub const KIND: SidecarKind = SidecarKind::Known(&Kuma);

/// Kuma and Kong Mesh.
pub const MESH: Mesh = Mesh::new(&MeshInfo {
    id: "kuma",
    title: "Kuma",
    injector: "sidecar injector",
    captures_traffic: true,
    words: Words {
        classic: ("sidecar", "sidecar"),
        quoted_values: false,
        pod_opt_in: OptInWords::KeyValueOnPod,
        held_waits_for: Some("the dataplane"),
        ..Words::PLAIN
    },
});

/// What the sidecar's own settings offer: the hold and the drain time of a classic
/// sidecar.
static REMEDIES: Remedies = Remedies {
    hold_app: Some(hold_app),
    hold_hook: Some("[kuma-dp, wait]"),
    drain_setting: Some(DRAIN),
    ..Remedies::NONE
};

/// `kuma.io/wait-for-dataplane-ready: "true"` (Kuma 2.4+): the injector then puts the
/// classic sidecar first with a postStart `kuma-dp wait`, which returns once the
/// dataplane is ready (docs/lifecycle.md §5.3).
fn hold_app(annotations: &JsonPath) -> Advice {
    Advice {
        help: format!(
            "hold the app until the sidecar is ready; on the pod template:\n  metadata:\n    annotations:\n      {WAIT}: \"true\"\n(Kuma 2.4+)\n"
        ),
        fix: Remedy::new(
            Applicability::Safe,
            format!("hold the app until the sidecar is ready (`{WAIT}: \"true\"`, Kuma 2.4+)"),
            vec![Change::Set(
                annotations.key(WAIT),
                Json::String("true".into()),
            )],
        ),
    }
}

impl SidecarModel for Kuma {
    fn description(&self) -> &Description {
        static KUMA_SIDECAR: Description = Description {
            id: "kuma-sidecar",
            label: "Kuma sidecar",
            mesh: Some(MESH),
            vocabulary: &Vocabulary::NONE,
            remedies: &REMEDIES,
        };
        &KUMA_SIDECAR
    }

    fn resolve(&self, b: &mut Builder) {
        let drain = drain_time(b);
        let drain_hook = b.sidecar_hook(&DRAIN_HOOK, HookKind::PreStop);
        injected::resolve(b, &SIDECAR, opt_in, |sidecar| {
            if sidecar.is_native_sidecar() && sidecar.is_injected() {
                sidecar.pre_stop = Some(drain_hook);
            }
            apply_shutdown(sidecar, drain);
        });
        note_release(b);
    }
}

/// How the sidecar stops (`app/kuma-dp/cmd/run.go`, `newRunCmd`, v2.7.0 to v2.14.3):
/// after the SIGUSR2 of the native preStop, SIGTERM finds it drained ("already
/// drained, exit immediately"); without it, SIGTERM fails Envoy's health checks and
/// the drain time passes before it exits.
fn apply_shutdown(sidecar: &mut PlannedContainer, drain: Sourced<Millis>) {
    let drained = sidecar.is_native_sidecar()
        && sidecar.pre_stop.as_mut().is_some_and(|hook| {
            let usr2 = starts_drain(&hook.action);
            if usr2 {
                hook.effect = HookEffect::DrainsInbound;
                hook.duration = HookDuration::Fixed(Millis::ZERO);
            }
            usr2
        });
    if !drained {
        injected::drain_then_exit(sidecar, drain);
        return;
    }
    sidecar.exit = ExitPolicy::Immediately;
    sidecar.traffic = Some(TrafficCuts {
        inbound_refused: Cut::Exit,
        inbound_drained: Cut::PreStop,
        outbound_refused: Cut::Exit,
    });
}

/// Whether a preStop sends kuma-dp SIGUSR2 (`killall -USR2 kuma-dp`, as the injector
/// writes it, or through a shell).
fn starts_drain(action: &HookAction) -> bool {
    let HookAction::Exec(argv) = action else {
        return false;
    };
    let words: Vec<&str> = argv.iter().flat_map(|a| a.split_whitespace()).collect();
    let usr2 = words
        .iter()
        .any(|w| matches!(*w, "-USR2" | "-SIGUSR2" | "-12" | "USR2" | "SIGUSR2"));
    usr2 && words.contains(&"kuma-dp")
}

/// A sidecar the injector adds rests on the release: unknown, it is read as one before
/// 2.14 (classic), and the finding holds for those releases; given, `explain` names it.
/// A native sidecar's lifecycle replaces the postStart hold (the hold is moot).
fn note_release(b: &mut Builder) {
    let Some(index) = b.meshes.iter().rposition(|decision| {
        decision.mesh == MESH && matches!(decision.injection, Injection::WillInject { .. })
    }) else {
        return;
    };
    let native = b.meshes[index].mode == ProxyMode::Native;
    let reason = match b.settings.versions.kuma.clone() {
        None => {
            b.assume(
                Assumed::MeshVersionUnknown {
                    mesh: MESH,
                    native_since: Release::Kuma(NATIVE_SINCE),
                    native_nodes: Some(NATIVE_FROM),
                    flag_name: "kuma",
                    api_server: true,
                },
                Source::Default,
            );
            let before = Release::Kuma(NATIVE_SINCE);
            NativeReason::UnknownRelease { before }
        }
        Some(version) => NativeReason::ReleaseDefault {
            release: Release::Kuma(version.value),
            native,
            source: version.source,
        },
    };
    b.meshes[index].reasons.push(DecisionReason::Native(reason));
    if !native {
        return;
    }
    if let Some((_, path)) = wait_asked(b) {
        b.moot.push(MootSetting {
            source: Source::Manifest(path),
            why: Moot::Gate(GateMoot::HoldIgnoredWhenNative { setting: WAIT }),
        });
    }
}

fn opt_in(b: &Builder) -> Option<OptIn> {
    let (trigger, reason) = injection(b)?;
    // Native by the release's default on an API server that runs native sidecars;
    // an unknown release is read as one before that default.
    let release_native = b
        .settings
        .versions
        .kuma
        .as_ref()
        .is_some_and(|version| version.value.native_by_default());
    let native = release_native && b.settings.kubernetes.value >= NATIVE_FROM;
    let hold = wait_asked(b).filter(|_| !native).map(|(value, path)| {
        let value = Some(value);
        (path, GateSetting::Setting { name: WAIT, value })
    });
    Some(OptIn {
        trigger,
        reason,
        native,
        // A native sidecar goes before the pod's own init containers; a classic one
        // before the app (`Inject`: "inject sidecar as first container").
        first: true,
        hold,
    })
}

/// `kuma.io/wait-for-dataplane-ready` when it asks for the hold (read with
/// `GetEnabled`: `true`, `yes`, `enabled`), as written and where.
fn wait_asked(b: &Builder) -> Option<(&'static str, JsonPath)> {
    let (value, path) = b.workload.pod_annotation(WAIT)?;
    let value = match value {
        "true" => "\"true\"",
        "yes" => "\"yes\"",
        "enabled" => "\"enabled\"",
        _ => return None,
    };
    Some((value, path))
}

/// Whether the injector adds the sidecar, what asks for it and why: the pod's label
/// decides when it has one, else its namespace's (`KumaInjector.needToInject`,
/// `pkg/plugins/runtime/k8s/webhooks/injector/precheck.go`, kumahq/kuma v2.14.3), each
/// read as `true`/`yes`/`enabled` or `false`/`no`/`disabled` (`GetEnabled`,
/// `pkg/plugins/runtime/k8s/metadata/annotations.go`).
fn injection(b: &Builder) -> Option<(JsonPath, DecisionReason)> {
    let enabled = |value: &str| match value {
        "true" | "yes" | "enabled" => Some(true),
        "false" | "no" | "disabled" => Some(false),
        _ => None,
    };
    // The label is the documented form; the annotation form is deprecated but honoured.
    if let Some((kind, (value, trigger))) = b
        .workload
        .pod_label(INJECT)
        .map(|found| (MetadataKind::Label, found))
        .or_else(|| {
            let found = b.workload.pod_annotation(INJECT)?;
            Some((MetadataKind::Annotation, found))
        })
    {
        return (enabled(value) == Some(true)).then(|| {
            let opt_in = PodMetadata {
                kind,
                key: INJECT,
                value: value.to_owned(),
            };
            (trigger, DecisionReason::PodOptIn(opt_in))
        });
    }
    let (namespace, info) = b.settings.namespace_of(b.workload.namespace.as_deref())?;
    let value = info.labels.get(INJECT)?;
    (enabled(value) == Some(true)).then(|| {
        (
            b.workload.paths.pod_metadata.clone(),
            DecisionReason::NamespaceOptIn {
                namespace: Some(namespace.to_owned()),
                key: INJECT,
                value: value.clone(),
            },
        )
    })
}

/// The drain time kuma-dp waits on SIGTERM in a classic sidecar: the environment the
/// injector rendered `kuma.io/sidecar-drain-time` into (`KUMA_DATAPLANE_DRAIN_TIME`, a
/// Go duration) when the sidecar is in the manifest, else the annotation, else the
/// injector's `drainTime: 30s`.
fn drain_time(b: &mut Builder) -> Sourced<Millis> {
    if let Some(rendered) = rendered_drain_time(b) {
        return rendered;
    }
    b.read_annotation(DRAIN, &Reading::duration("30s"))
        .unwrap_or_else(|| Sourced::default_value(DEFAULT_DRAIN))
}

/// `KUMA_DATAPLANE_DRAIN_TIME` of the sidecar in the manifest, where it reads.
fn rendered_drain_time(b: &Builder) -> Option<Sourced<Millis>> {
    let planned = b.find(CONTAINER).map(|(list, i)| b.get(list, i))?;
    let path = planned.manifest_path()?;
    let container = b.manifest_container(planned)?;
    container
        .env
        .iter()
        .flatten()
        .enumerate()
        .find(|(_, var)| var.name == DRAIN_ENV)
        .and_then(|(index, var)| {
            let value = crate::time::parse_go_duration(var.value.as_deref()?)?;
            let at = path.key("env").index(index).key("value");
            Some(Sourced::new(value, Source::Manifest(at)))
        })
}
