//! Dapr's `daprd` sidecar (docs/lifecycle.md §5.1).
//!
//! `dapr.io/enabled: "true"` appends `daprd` to the containers with no start-up hold
//! (to the init containers, after the pod's own, as a native sidecar with
//! `dapr.io/enable-native-sidecar`, Dapr 1.18+). On SIGTERM daprd closes its API
//! servers (the app's calls to it) and its internal gRPC server (service invocation
//! from other apps) and exits once in-flight work is done, force-exiting after
//! `dapr.io/graceful-shutdown-seconds` (5 s unless set);
//! `dapr.io/block-shutdown-duration` keeps it serving that long first, the whole
//! duration unless app health checks see the app fail (not modelled). Jobs stop it
//! with `POST :3500/v1.0/shutdown`.

use crate::fix::{Applicability, Change, Remedy};
use crate::resolve::Builder;
use crate::resolve::assumption::Assumed;
use crate::resolve::decision::{DecisionReason, MetadataKind, PodMetadata};
use crate::resolve::mesh::injected::{self, OptIn, PodSwitch, SidecarMesh};
use crate::resolve::mesh::{Description, Mesh, MeshInfo, SidecarModel, Words};
use crate::resolve::mesh::{Measure, Remedies, Stay, StopRequest, StopVerdict, Suggestion};
use crate::resolve::plan::*;
use crate::resolve::reading::Reading;
use crate::resolve::shell::{HttpMethod, StopTarget};
use crate::resolve::traffic::OwnInbound;
use crate::resolve::vocabulary::Vocabulary;
use crate::settings::{DaprVersion, Sourced};
use crate::time::Millis;
use serde_json::Value as Json;

const CONTAINER: &str = "daprd";
const ENABLED: &str = "dapr.io/enabled";
const GRACEFUL: &str = "dapr.io/graceful-shutdown-seconds";
const BLOCK: &str = "dapr.io/block-shutdown-duration";
const NATIVE: &str = "dapr.io/enable-native-sidecar";
/// daprd's own default when the annotation is unset or negative
/// (`DefaultGracefulShutdownDuration`).
const DEFAULT_GRACEFUL: Millis = Millis::secs(5);

/// The sidecar the injector adds.
const DAPRD: SidecarMesh = SidecarMesh {
    mesh: MESH,
    kind: KIND,
    containers: &[CONTAINER],
    native_probe: None,
    hold: None,
    // `dapr.io/enable-native-sidecar` (`pkg/injector/patcher/sidecar_patcher.go`, from
    // v1.18.0): the injector appends daprd to the init containers with `restartPolicy:
    // Always` and no startup probe, so the switch stops it after the apps but holds no
    // app. daprd keeps no wait of its own after its signal unless the pod asks for one.
    native_switch: Some(PodSwitch {
        annotation: NATIVE,
        wait_after_signal: None,
        needs: Some("Dapr 1.18"),
        leads_inits: false,
        read: reads_native,
    }),
};

/// Whether the release in force reads `dapr.io/enable-native-sidecar` (v1.18.0+; an
/// unknown release is taken to, so the annotation is read as written).
fn reads_native(b: &Builder) -> bool {
    version(b).is_none_or(|v| v.value.reads_native_sidecar())
}

/// Dapr's release, where given.
fn version<'a>(b: &'a Builder) -> Option<&'a Sourced<DaprVersion>> {
    b.settings.versions.dapr.as_ref()
}

/// Whether the pod's `key` asks for something (read with `IsTruthy`: y, yes, true, t,
/// on, 1).
fn truthy(b: &Builder, key: &str) -> bool {
    b.workload.pod_annotation(key).is_some_and(|(v, _)| {
        matches!(
            v.to_ascii_lowercase().as_str(),
            "y" | "yes" | "true" | "t" | "on" | "1"
        )
    })
}

/// A setting of the pod the given release does not read yet: it is ignored, and the
/// plan says so.
fn ignored(b: &mut Builder, setting: &'static str, since: &'static str) {
    if let Some(version) = version(b).cloned() {
        b.assume(
            Assumed::SettingTooNew {
                setting,
                layer: None,
                since,
            },
            version.source,
        );
    }
}

/// Dapr's `daprd`.
pub struct Dapr;

/// Its sidecar, as plans name it.
pub const KIND: SidecarKind = SidecarKind::Known(&Dapr);

/// Dapr: its sidecar is an API the app calls, not a proxy of the pod's traffic.
pub const MESH: Mesh = Mesh::new(&MeshInfo {
    id: "dapr",
    title: "Dapr",
    injector: "sidecar injector",
    captures_traffic: false,
    // daprd closes its internal gRPC server: other apps' service invocations, which
    // find this pod through the `<app-id>-dapr` Service, are refused.
    words: Words {
        refusal: Some("closes its servers (Dapr service invocation of this app is refused)"),
        ..Words::PLAIN
    },
});

impl SidecarModel for Dapr {
    fn description(&self) -> &Description {
        static DAPRD: Description = Description {
            id: "daprd",
            label: "Dapr sidecar",
            mesh: Some(MESH),
            vocabulary: &VOCABULARY,
            remedies: &REMEDIES,
        };
        &DAPRD
    }

    fn resolve(&self, b: &mut Builder) {
        if truthy(b, NATIVE) && !reads_native(b) {
            ignored(b, NATIVE, "Dapr 1.18");
        }
        let graceful = graceful_shutdown(b);
        let block = block_shutdown(b);
        let service = b.service_to_ports(&INBOUND_PORTS);
        injected::resolve(b, &DAPRD, opt_in, |daprd| {
            apply_shutdown(daprd, graceful, block);
            daprd.own_inbound = Some(OwnInbound {
                ports: &INBOUND_PORTS,
                service,
            });
        });
    }

    fn stop_command(&self, _b: &Builder) -> Option<String> {
        Some(STOP_CALL.to_owned())
    }

    /// `POST :3500/v1.0/shutdown`, on whichever port it is called.
    fn judge_stop(&self, call: &StopRequest, _b: &Builder) -> Option<StopVerdict> {
        let StopTarget::Http { port, path } = call.target else {
            return None;
        };
        if !path.ends_with(SHUTDOWN) {
            return None;
        }
        let effective = match call.method {
            Some(HttpMethod::Get) => Err(StopFailure::NeedsPost {
                endpoint: "Dapr's /v1.0/shutdown",
            }),
            _ => Ok(()),
        };
        let method = StopMethod::Endpoint {
            sidecar: KIND,
            port: *port,
        };
        Some(StopVerdict::new(method, effective))
    }
}

/// The ports on which daprd takes requests from outside the pod
/// (`pkg/injector/sidecar/consts.go`): its HTTP API (`SidecarHTTPPort`, 3500), its gRPC
/// API (`SidecarAPIGRPCPort`, 50001) and the internal gRPC port other apps' sidecars
/// invoke this app through (`SidecarInternalGRPCPort`, 50002, behind the operator's
/// `<app-id>-dapr` Service). daprd proxies nothing else: a client of the app's own
/// port reaches the app directly, and daprd's shutdown does not refuse it.
const INBOUND_PORTS: [i32; 3] = [3500, 50001, 50002];

/// daprd's stop endpoint.
const SHUTDOWN: &str = "/v1.0/shutdown";

/// The work's call to it, on the HTTP port the injector always gives daprd
/// (`SidecarHTTPPort`, 3500: no annotation sets it).
const STOP_CALL: &str = "curl -fsS -X POST http://localhost:3500/v1.0/shutdown";

/// What the readers know of daprd: its stop endpoint.
static VOCABULARY: Vocabulary = Vocabulary {
    stop_paths: &[SHUTDOWN],
    ..Vocabulary::NONE
};

fn opt_in(b: &Builder) -> Option<OptIn> {
    // The injector compares `dapr.io/enabled` case-insensitively with "true"
    // (`strings.EqualFold`, `pkg/injector/service/handler.go`).
    let (value, trigger) = b.workload.pod_annotation(ENABLED)?;
    if !value.eq_ignore_ascii_case("true") {
        return None;
    }
    // Boolean annotations are read with `IsTruthy`; a release before 1.18 reads none.
    let native = truthy(b, NATIVE) && reads_native(b);
    Some(OptIn {
        trigger,
        reason: DecisionReason::PodOptIn(PodMetadata {
            kind: MetadataKind::Annotation,
            key: ENABLED,
            value: value.to_owned(),
        }),
        native,
        // Appended: after the pod's own init containers when native
        // (`/spec/initContainers/-`, `pkg/injector/patcher/sidecar_patcher.go`, v1.18.3).
        first: false,
        hold: None,
    })
}

/// The longest daprd waits for in-flight work after it stops serving: the annotation
/// (an integer; negative means the 5 s default), `None` for 0, which daprd takes as no
/// limit (`NewRunnerCloserManager` with no grace period).
fn graceful_shutdown(b: &mut Builder) -> Option<Sourced<Millis>> {
    let fallback = Some((CONTAINER, DEFAULT_GRACEFUL));
    let Some(seconds) = b.read_annotation(GRACEFUL, &Reading::integer(fallback)) else {
        return Some(Sourced::default_value(DEFAULT_GRACEFUL));
    };
    match seconds.value {
        0 => None,
        positive if positive > 0 => Some(Sourced::new(Millis::secs(positive), seconds.source)),
        _ => Some(Sourced::default_value(DEFAULT_GRACEFUL)),
    }
}

/// How long daprd keeps serving after SIGTERM (`--dapr-block-shutdown-duration`, Dapr
/// 1.13+; 0 unless set, and for a release before 1.13, which ignores it).
fn block_shutdown(b: &mut Builder) -> Millis {
    if version(b).is_some_and(|v| !v.value.reads_block_shutdown()) {
        if b.workload.pod_annotation(BLOCK).is_some() {
            ignored(b, BLOCK, "Dapr 1.13");
        }
        return Millis::ZERO;
    }
    b.read_annotation(BLOCK, &Reading::duration("10s"))
        .map_or(Millis::ZERO, |block| block.value)
}

fn apply_shutdown(daprd: &mut PlannedContainer, graceful: Option<Sourced<Millis>>, block: Millis) {
    daprd.exit = ExitPolicy::WhenRequestsDone {
        accepting: block,
        cap: graceful,
    };
    let closes = if block > Millis::ZERO {
        Cut::AfterSignal(block)
    } else {
        Cut::Signal
    };
    daprd.traffic = Some(TrafficCuts {
        inbound_refused: closes,
        inbound_drained: closes,
        outbound_refused: closes,
    });
}

/// What Dapr's own settings offer against each hazard.
pub const REMEDIES: Remedies = Remedies {
    stop_after_work: Some(|stop| stop.trapped("daprd", stop.call.unwrap_or(STOP_CALL))),
    stop_api: Some("POST :3500/v1.0/shutdown"),
    // Answers 204 once daprd is initialised (`pkg/api/http/healthz.go`).
    ready_api: Some("GET :3500/v1.0/healthz/outbound"),
    stay: Some(STAY),
    ..Remedies::NONE
};

/// `dapr.io/block-shutdown-duration` (Dapr 1.13+): daprd keeps serving the app's calls
/// that long after SIGTERM (docs/lifecycle.md §5.1). Only the injector reads it (it
/// renders daprd's `--dapr-block-shutdown-duration`), so for a daprd written in the
/// manifest the help names the argument and `lint --fix` leaves the args alone.
pub const STAY: Stay = Stay {
    measures: Measure::AfterSignal,
    inbound: true,
    when_injected_native: true,
    at: |at| match at.written {
        None => Suggestion {
            help: format!(
                "keep daprd serving; on the pod template:\n  metadata:\n    annotations:\n      {BLOCK}: \"{}s\"\n(Dapr 1.13+)",
                at.seconds
            ),
            fix: Some(Remedy::new(
                Applicability::Unsafe,
                format!(
                    "keep daprd serving {} s after its SIGTERM (`{BLOCK}: \"{}s\"`); needs Dapr 1.13 or later",
                    at.seconds, at.seconds
                ),
                vec![Change::Set(
                    at.annotations.key(BLOCK),
                    Json::String(format!("{}s", at.seconds)),
                )],
            )),
        },
        Some(_) => Suggestion {
            help: format!(
                "keep daprd serving: give it `--dapr-block-shutdown-duration {}s` in its args (Dapr 1.13+; the injector reads {BLOCK} only when it adds daprd)",
                at.seconds
            ),
            fix: None,
        },
    },
};
