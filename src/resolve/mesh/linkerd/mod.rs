//! Linkerd proxies (docs/lifecycle.md §4).
//!
//! Before injection: the `linkerd.io/inject` annotation on the pod or its namespace
//! decides (§4.1); the proxy is a native sidecar or a classic container, held by
//! `linkerd-await` or not, with a `wait-before-exit` preStop (§4.2). After injection:
//! `linkerd-proxy` is read as written. On SIGTERM the proxy refuses new connections and
//! lets in-flight ones finish, up to its shutdown grace period (§4.3).

use crate::load::JsonPath;
use crate::resolve::Builder;
use crate::resolve::assumption::Assumed;
use crate::resolve::decision::*;
use crate::resolve::hooks::{self, HookKind, Owner};
use crate::resolve::mesh::{Mesh, NativeSwitch, Remedies};
use crate::resolve::plan::*;
use crate::resolve::problems::*;
use crate::settings::version::{KubeVersion, LinkerdVersion};
use crate::settings::{Source, Sourced};
use crate::time::{Millis, parse_go_duration};

/// The proxy container's name.
pub const PROXY: &str = "linkerd-proxy";
/// The UID the proxy runs as; `linkerd-init` skips its traffic (`--proxy-uid`).
pub const PROXY_UID: i64 = 2102;
const INIT: &str = "linkerd-init";
const INJECT: &str = "linkerd.io/inject";
const AWAIT: &str = "config.linkerd.io/proxy-await";
const WAIT_BEFORE_EXIT: &str = "config.alpha.linkerd.io/proxy-wait-before-exit-seconds";
const SHUTDOWN_GRACE: &str = "config.linkerd.io/shutdown-grace-period";
/// The native-sidecar annotations, strongest first (the GA key wins over beta over
/// alpha), each with the stable line and edge release that first reads it
/// (`pkg/k8s/labels.go` at version-2.15, version-2.19, version-2.20).
const NATIVE: [NativeKey; 3] = [
    NativeKey {
        key: "config.linkerd.io/proxy-enable-native-sidecar",
        since: (20, (26, 5, 2)),
    },
    NativeKey {
        key: "config.beta.linkerd.io/proxy-enable-native-sidecar",
        since: (19, (25, 10, 2)),
    },
    NativeKey {
        key: "config.alpha.linkerd.io/proxy-enable-native-sidecar",
        since: (15, (23, 11, 4)),
    },
];

/// A native-sidecar annotation and the first release that reads it.
struct NativeKey {
    key: &'static str,
    /// The stable minor and the edge release (year, month, build).
    since: (u32, (u32, u32, u32)),
}

impl NativeKey {
    fn release(&self) -> String {
        let (minor, (year, month, build)) = self.since;
        format!("2.{minor} (edge-{year}.{month}.{build})")
    }
}
/// The native-sidecar annotation to write for Linkerd `linkerd` on Kubernetes
/// `kubernetes`: the strongest key the release reads, or for an unknown release the
/// alpha key, which every release with native sidecars reads. `None` when the release
/// has no native sidecars or the cluster does not run them. `"true"` parses as on with
/// `strconv.ParseBool`, which every release uses.
pub fn native_switch(
    linkerd: Option<LinkerdVersion>,
    kubernetes: KubeVersion,
) -> Option<NativeSwitch> {
    if !kubernetes.runs_native_sidecars() {
        return None;
    }
    let key = match linkerd {
        Some(version) => NATIVE
            .iter()
            .find(|key| version.at_least(key.since.0, key.since.1))?,
        None => NATIVE.last()?,
    };
    Some(NativeSwitch::new(key.key, "true"))
}

/// The proxy's own default shutdown grace period (`DEFAULT_SHUTDOWN_GRACE_PERIOD`).
const DEFAULT_SHUTDOWN_GRACE: Millis = Millis::secs(120);

/// Resolves Linkerd for the pod being built.
pub fn resolve(b: &mut Builder) {
    label_instead_of_annotation(b);
    if let Some((list, index)) = b.find(PROXY) {
        adopt_injected(b, list, index);
        return;
    }
    if let Some((trigger, asked_by)) = injection(b) {
        inject(b, trigger, asked_by);
    }
}

/// An annotation of the pod, or else of its namespace (namespace `config.*` annotations
/// are copied to pods that do not set them, §4.1).
fn setting(b: &Builder, key: &str) -> Option<(String, Source)> {
    if let Some((value, path)) = b.workload.pod_annotation(key) {
        return Some((value.to_owned(), Source::Manifest(path)));
    }
    let namespace = b.workload.namespace.as_ref()?;
    let info = b.settings.namespaces.get(namespace)?;
    let value = info.annotations.get(key)?;
    Some((
        value.clone(),
        info.source.clone().unwrap_or(Source::Default),
    ))
}

fn version_at_least(b: &Builder, minor: u32, edge: (u32, u32, u32)) -> Option<bool> {
    b.settings
        .linkerd
        .version
        .as_ref()
        .map(|v| v.value.at_least(minor, edge))
}

/// `linkerd.io/inject` is read as an annotation only; as a label it does nothing.
fn label_instead_of_annotation(b: &mut Builder) {
    if b.workload.pod_annotation(INJECT).is_some() {
        return;
    }
    if let Some((value, path)) = b.workload.pod_label(INJECT) {
        b.problem(
            path,
            Fault::OptInIgnored(OptInIgnored::LabelNotRead {
                setting: INJECT,
                value: value.to_owned(),
            }),
        );
    }
}

/// docs/lifecycle.md §4.1: the pod's annotation and its namespace's. Returns what asks
/// for the proxy, as a path and as a fact.
fn injection(b: &mut Builder) -> Option<(JsonPath, DecisionReason)> {
    let pod = b
        .workload
        .pod_annotation(INJECT)
        .map(|(v, p)| (v.to_owned(), p));
    let namespace = b.workload.namespace.clone();
    let ns_info = namespace
        .as_ref()
        .and_then(|ns| b.settings.namespaces.get(ns))
        .cloned();
    let ns_value = ns_info
        .as_ref()
        .and_then(|info| info.annotations.get(INJECT).cloned());
    let valid = |v: &str| matches!(v, "enabled" | "ingress" | "disabled");
    if let Some((value, path)) = &pod
        && !valid(value)
    {
        b.problem(
            path.clone(),
            Fault::OptInIgnored(OptInIgnored::UnknownInjectValue {
                mesh: Mesh::Linkerd,
                setting: INJECT,
                value: value.to_owned(),
            }),
        );
        return None;
    }
    let pod_value = pod.as_ref().map(|(v, _)| v.as_str());
    let injects = match (ns_value.as_deref(), pod_value) {
        (_, Some("disabled")) => false,
        (Some(ns), _) if !valid(ns) => false,
        (Some("enabled" | "ingress"), None | Some("enabled" | "ingress")) => true,
        (_, Some("enabled" | "ingress")) => true,
        _ => false,
    };
    if !injects {
        if pod_value == Some("disabled") {
            b.meshes.push(MeshDecision {
                mesh: Mesh::Linkerd,
                injection: Injection::NotInjected {
                    cause: NotInjectedCause::PodOptOut {
                        key: INJECT,
                        value: "disabled".to_owned(),
                    },
                    ambient: None,
                },
                mode: ProxyMode::None,
                reasons: Vec::new(),
            });
        }
        return None;
    }
    if ns_info.is_none()
        && pod_value.is_some()
        && let Some(ns) = &namespace
    {
        b.assume(
            Assumed::NamespaceAnnotationsUnknown {
                mesh: Mesh::Linkerd,
                namespace: ns.clone(),
            },
            Source::Default,
        );
    }
    Some(match pod {
        Some((value, path)) => (
            path,
            DecisionReason::PodOptIn(PodMetadata {
                kind: MetadataKind::Annotation,
                key: INJECT,
                value,
            }),
        ),
        None => (
            b.workload.paths.pod_metadata.clone(),
            DecisionReason::NamespaceOptIn {
                namespace,
                key: INJECT,
                value: ns_value.unwrap_or_default(),
            },
        ),
    })
}

/// Whether the injector makes the proxy a native sidecar, and why
/// (docs/lifecycle.md §4.2): the strongest key this release reads decides, read with
/// `strconv.ParseBool`; an unparsable value keeps the default, and a key the release
/// does not read does nothing (both recorded as problems).
fn native_mode(b: &mut Builder) -> (bool, NativeReason) {
    let (default, default_reason) = native_by_default(b);
    let version = b.settings.linkerd.version.as_ref().map(|v| v.value);
    let mut decided = None;
    for native in &NATIVE {
        let Some((value, source)) = native_setting(b, native.key) else {
            continue;
        };
        let known = version_at_least(b, native.since.0, native.since.1) != Some(false);
        let complain = |b: &mut Builder, ignored: OptInIgnored| {
            if let Source::Manifest(path) = &source {
                b.problem(path.clone(), Fault::OptInIgnored(ignored));
            }
        };
        if !known {
            let release = version.map(|v| v.to_string()).unwrap_or_default();
            let readable = NATIVE
                .iter()
                .find(|k| version_at_least(b, k.since.0, k.since.1) == Some(true))
                .map(|k| k.key);
            complain(
                b,
                OptInIgnored::KeyTooNew {
                    mesh: Mesh::Linkerd,
                    release,
                    key: native.key,
                    since: native.release(),
                    instead: match readable {
                        Some(key) => KeyInstead::Key(key),
                        None => KeyInstead::NeedsRelease("2.15"),
                    },
                },
            );
            continue;
        }
        if decided.is_some() {
            continue;
        }
        match crate::resolve::parse_go_bool(&value) {
            Some(on) => {
                let reason = NativeReason::Annotation {
                    key: native.key,
                    value: value.clone(),
                    source: source.clone(),
                };
                decided = Some((on, reason));
            }
            None => {
                complain(
                    b,
                    OptInIgnored::NotBoolean {
                        key: native.key,
                        value: value.clone(),
                        default_native: default,
                    },
                );
                decided = Some((default, default_reason.clone()));
            }
        }
    }
    decided.unwrap_or((default, default_reason))
}

/// A native-sidecar annotation of the pod, or of its namespace where the injector
/// copies it: from 2.20 it no longer copies the beta key (`ProxyAnnotations`).
fn native_setting(b: &Builder, key: &str) -> Option<(String, Source)> {
    let beta_dropped = key == NATIVE[1].key && version_at_least(b, 20, (26, 5, 2)) != Some(false);
    if beta_dropped {
        return b
            .workload
            .pod_annotation(key)
            .map(|(value, path)| (value.to_owned(), Source::Manifest(path)));
    }
    setting(b, key)
}

/// The mode when no annotation decides: Helm `proxy.nativeSidecar`, else the release's
/// default (native from 2.20).
fn native_by_default(b: &mut Builder) -> (bool, NativeReason) {
    if let Some(setting) = &b.settings.linkerd.native_sidecar {
        let reason = NativeReason::Setting {
            name: "proxy.nativeSidecar",
            native: setting.value,
            source: setting.source.clone(),
        };
        return (setting.value, reason);
    }
    match &b.settings.linkerd.version {
        Some(version) => {
            let native = version.value.native_by_default();
            let release = Release::Linkerd(version.value);
            (native, NativeReason::ReleaseDefault { release, native })
        }
        None => {
            b.assume(
                Assumed::MeshVersionUnknown {
                    mesh: Mesh::Linkerd,
                    native_since: Release::Linkerd(LinkerdVersion::Stable { minor: 20 }),
                    native_nodes: None,
                    flag: "--linkerd-version",
                },
                Source::Default,
            );
            (false, NativeReason::UnknownRelease)
        }
    }
}

/// Whether the app waits for the proxy (`proxy-await`, on by default since 2.11).
fn await_proxy(b: &mut Builder) -> Sourced<bool> {
    // The injector reads only "enabled" and "disabled"; it logs anything else and
    // keeps the default (`pkg/inject/inject.go`).
    if let Some((value, source)) = setting(b, AWAIT) {
        if value == "enabled" || value == "disabled" {
            return Sourced::new(value == "enabled", source);
        }
        if let Source::Manifest(path) = &source {
            b.problem(
                path.clone(),
                Fault::Unreadable(Unreadable::Value {
                    setting: AWAIT.to_owned(),
                    value: value.to_owned(),
                    expected: Expected::Switch,
                }),
            );
        }
    }
    if let Some(setting) = &b.settings.linkerd.proxy_await {
        return setting.clone();
    }
    match version_at_least(b, 11, (21, 1, 1)) {
        Some(false) => Sourced::default_value(false),
        _ => Sourced::default_value(true),
    }
}

fn wait_before_exit(b: &mut Builder) -> Option<Sourced<Millis>> {
    if let Some((value, source)) = setting(b, WAIT_BEFORE_EXIT) {
        // `strconv.ParseUint(value, 10, 64)`: digits only.
        let digits = !value.is_empty() && value.bytes().all(|c| c.is_ascii_digit());
        match value.parse::<i64>() {
            Ok(seconds) if digits => {
                return Some(Sourced::new(Millis::secs(seconds), source));
            }
            _ => {
                if let Source::Manifest(path) = &source {
                    b.problem(
                        path.clone(),
                        Fault::Unreadable(Unreadable::Value {
                            setting: WAIT_BEFORE_EXIT.to_owned(),
                            value: value.to_owned(),
                            expected: Expected::WholeSeconds { fallback: None },
                        }),
                    );
                }
            }
        }
    }
    b.settings
        .linkerd
        .wait_before_exit
        .clone()
        .filter(|w| w.value > Millis::ZERO)
}

fn shutdown_grace(b: &mut Builder, env: Option<&str>) -> Sourced<Millis> {
    if let Some((value, source)) = setting(b, SHUTDOWN_GRACE) {
        match parse_go_duration(&value).filter(|d| *d >= Millis::ZERO) {
            Some(grace) => return Sourced::new(grace, source),
            None => {
                if let Source::Manifest(path) = &source {
                    b.problem(
                        path.clone(),
                        Fault::Unreadable(Unreadable::Value {
                            setting: SHUTDOWN_GRACE.to_owned(),
                            value: value.to_owned(),
                            expected: Expected::Duration { example: "30s" },
                        }),
                    );
                }
            }
        }
    }
    if let Some(grace) = env.and_then(parse_go_duration) {
        return Sourced::new(grace, Source::Default);
    }
    b.settings
        .linkerd
        .shutdown_grace_period
        .clone()
        .unwrap_or_else(|| Sourced::default_value(DEFAULT_SHUTDOWN_GRACE))
}

/// docs/lifecycle.md §4.3: refuses new connections from the signal, exits when in-flight ones
/// are done or the grace period ends.
fn apply_shutdown(proxy: &mut PlannedContainer, grace: Sourced<Millis>) {
    proxy.exit = ExitPolicy::WhenRequestsDone {
        accepting: Millis::ZERO,
        cap: Some(grace),
    };
    proxy.traffic = Some(TrafficCuts {
        inbound_refused: Cut::Signal,
        inbound_drained: Cut::Signal,
        outbound_refused: Cut::Signal,
    });
}

/// The proxy is in the manifest: read it as written.
fn adopt_injected(b: &mut Builder, list: ContainerList, index: usize) {
    let container = b.manifest_container(b.get(list, index)).cloned();
    let env_grace = container.as_ref().and_then(|c| {
        c.env.iter().flatten().find_map(|var| {
            (var.name == "LINKERD2_PROXY_SHUTDOWN_GRACE_PERIOD")
                .then(|| var.value.clone())
                .flatten()
        })
    });
    let grace = shutdown_grace(b, env_grace.as_deref());
    let native = b.get(list, index).is_native_sidecar();
    let restart_always = b.get(list, index).restart_always();
    let await_setting = setting(b, AWAIT);
    b.make_sidecar(list, index, SidecarKind::LinkerdProxy, true);
    let proxy = b.get_mut(list, index);
    let path = proxy.manifest_path().cloned().unwrap_or_default();
    let awaits = proxy
        .post_start
        .as_ref()
        .is_some_and(|h| matches!(h.duration, HookDuration::UntilReady { .. }));
    if awaits {
        proxy.gate_request = Some(GateRequest {
            source: Source::Manifest(path.key("lifecycle").key("postStart")),
            asked_by: GateSetting::PostStart {
                command: "linkerd-await",
            },
        });
    } else if let Some((_, source)) = await_setting.filter(|(v, _)| v == "enabled") {
        proxy.gate_request = Some(GateRequest {
            source,
            asked_by: GateSetting::Setting {
                name: AWAIT,
                value: Some("enabled"),
            },
        });
    }
    let probed = proxy.startup_probe.is_some();
    apply_shutdown(proxy, grace);
    // Without a startup probe, the postStart is what holds the next container.
    if native && awaits && probed {
        let source = Source::Manifest(path.key("lifecycle").key("postStart"));
        b.moot.push(MootSetting {
            source,
            why: Moot::Gate(GateMoot::WaitUnderStartupProbe {
                command: "linkerd-await",
            }),
        });
    }
    let mode = if native {
        ProxyMode::Native
    } else if restart_always {
        ProxyMode::NativeUnsupported
    } else if awaits {
        ProxyMode::Held {
            first: false,
            command: "linkerd-await",
        }
    } else {
        ProxyMode::Classic
    };
    b.meshes.push(MeshDecision {
        mesh: Mesh::Linkerd,
        injection: Injection::InManifest,
        mode,
        reasons: vec![DecisionReason::InManifest {
            container: PROXY.to_owned(),
        }],
    });
}

/// Adds the modelled `linkerd-init` and `linkerd-proxy` (docs/lifecycle.md §4.2).
fn inject(b: &mut Builder, trigger: JsonPath, asked_by: DecisionReason) {
    b.exempt_init_calls(PROXY_UID, "config.linkerd.io/skip-outbound-ports");
    let (native, native_reason) = native_mode(b);
    let awaits = await_proxy(b);
    let mut wait = wait_before_exit(b);
    if native {
        // 2.15–2.19 refuse to render the two together (`_proxy.tpl`: "cannot be used
        // simultaneously"), and the injector denies the pod; 2.20 ignores the wait.
        if let Some(asked) = wait.as_ref().filter(|w| w.value > Millis::ZERO)
            && version_at_least(b, 20, (26, 5, 2)) == Some(false)
        {
            let path = match &asked.source {
                Source::Manifest(path) => path.clone(),
                _ => trigger.clone(),
            };
            b.rejections.push(Rejection {
                path,
                by: Rejector::Injector(Mesh::Linkerd),
                cause: RejectionCause::NativeWithWaitBeforeExit,
            });
        }
        wait = None;
    }
    let grace = shutdown_grace(b, None);
    let startup = b.scenario.proxy_startup.value;
    let env = crate::resolve::shell::Env::new();
    let role = b.injected_proxy(SidecarKind::LinkerdProxy, native);
    let manifest_path = |source: &Source| match source {
        Source::Manifest(path) => Some(path.clone()),
        _ => None,
    };
    let shaped_by = ShapedBy {
        native: NATIVE
            .iter()
            .find_map(|native| native_setting(b, native.key))
            .filter(|_| native)
            .and_then(|(_, source)| manifest_path(&source)),
        no_startup_gate: manifest_path(&awaits.source).filter(|_| !awaits.value),
        native_switch: if native {
            None
        } else {
            native_switch(
                b.settings.linkerd.version.as_ref().map(|v| v.value),
                b.settings.kubernetes.value,
            )
        },
    };
    let mut proxy =
        PlannedContainer::injected(PROXY, Mesh::Linkerd, trigger.clone(), role).shaped(shaped_by);
    proxy.image = Some("cr.l5d.io/linkerd/proxy".into());
    proxy.startup = startup;
    // Native with await: `/ready` on 4191 every second, 120 tries (§4.2).
    proxy.startup_probe = (native && awaits.value).then_some(ProbeTiming {
        initial_delay: Millis::ZERO,
        period: Millis::secs(1),
        failure_threshold: 120,
    });
    proxy.gate_request = awaits.value.then(|| GateRequest {
        source: awaits.source.clone(),
        asked_by: GateSetting::Setting {
            name: "proxy-await",
            value: None,
        },
    });
    if !native && awaits.value {
        proxy.post_start = Some(hooks::from_argv(
            [
                "/usr/lib/linkerd/linkerd-await",
                "--timeout=2m",
                "--port=4191",
            ]
            .map(String::from)
            .to_vec(),
            None,
            HookKind::PostStart,
            Owner::Sidecar,
            &env,
        ));
    }
    if let Some(wait) = &wait {
        let mut hook = hooks::from_argv(
            vec!["/bin/sleep".into(), wait.value.whole_secs().to_string()],
            None,
            HookKind::PreStop,
            Owner::Sidecar,
            &env,
        );
        hook.rendered_from = Some("proxy-wait-before-exit-seconds");
        if let Source::Manifest(path) = &wait.source {
            hook.asked_by = Some(path.clone());
        }
        proxy.pre_stop = Some(hook);
    }
    apply_shutdown(&mut proxy, grace);
    let mut init =
        PlannedContainer::injected(INIT, Mesh::Linkerd, trigger.clone(), Role::INIT_STEP);
    init.image = Some("cr.l5d.io/linkerd/proxy-init".into());
    init.runs_for = Some(b.scenario.init_duration.value);
    // Natively, `linkerd-init` and the proxy go first so that the pod's own init
    // containers run meshed; classic injection appends `linkerd-init` (the injector's
    // patch inserts at index 0 only when `proxy.nativeSidecar` is set).
    let existing = b.init.iter().position(|c| c.name == INIT);
    let mode = if native {
        let after_init = match existing {
            Some(index) => index + 1,
            None => {
                b.init.insert(0, init);
                1
            }
        };
        b.init.insert(after_init, proxy);
        ProxyMode::Native
    } else {
        if existing.is_none() {
            b.init.push(init);
        }
        if awaits.value {
            b.regular.insert(0, proxy);
            ProxyMode::Held {
                first: true,
                command: "linkerd-await",
            }
        } else {
            b.regular.push(proxy);
            ProxyMode::Classic
        }
    };
    b.meshes.push(MeshDecision {
        mesh: Mesh::Linkerd,
        injection: Injection::WillInject { trigger },
        mode,
        reasons: vec![asked_by, DecisionReason::Native(native_reason)],
    });
}

/// What Linkerd's own settings offer against each hazard.
pub const REMEDIES: Remedies = Remedies {
    hold_app: Some(
        "let the app wait for the proxy; on the pod template:\n  metadata:\n    annotations:\n      config.linkerd.io/proxy-await: enabled\n",
    ),
    native_opt_in: Some("config.linkerd.io/proxy-enable-native-sidecar: \"true\""),
    missing_gate_cause: Some("the pod was injected without the `linkerd-await` hook"),
    restore_gate: Some(
        "re-inject the pod so that the injector adds the `linkerd-await` postStart (it does while `config.linkerd.io/proxy-await` is enabled, the default)",
    ),
    stop_after_work: Some(|native| {
        format!(
            "wrap the work in `linkerd-await --shutdown -- <work>` and enable the endpoint with the annotation `config.linkerd.io/proxy-admin-shutdown: enabled`{native}"
        )
    }),
    working_stop_call: Some(
        "enable the endpoint on the pod template: config.linkerd.io/proxy-admin-shutdown: enabled",
    ),
    stop_api: Some(
        "`linkerd-await --shutdown`, with `config.linkerd.io/proxy-admin-shutdown: enabled`",
    ),
    outlive_app: Some(|seconds| {
        format!(
            "delay the proxy's shutdown past the app's: config.alpha.linkerd.io/proxy-wait-before-exit-seconds: \"{seconds}\""
        )
    }),
    outlast_endpoints: Some(
        "delay the proxy's shutdown past endpoint propagation: config.alpha.linkerd.io/proxy-wait-before-exit-seconds: \"10\"",
    ),
    bypass_for_init: Some(|| {
        format!(
            "run the init container as UID {PROXY_UID} or skip its port (config.linkerd.io/skip-outbound-ports)"
        )
    }),
    drain_setting: None,
    stop_endpoint_switch: Some(SHUTDOWN_ANNOTATION),
};

/// Linkerd's remedies for a proxy written in the manifest (an injector's output). The
/// injector reads `proxy-wait-before-exit-seconds` only when it adds the proxy
/// (it renders the proxy's preStop from it), so here the preStop itself is the change.
pub const WRITTEN_REMEDIES: Remedies = Remedies {
    outlive_app: Some(|seconds| {
        format!(
            "delay the proxy's shutdown past the app's with a preStop on `{PROXY}` in the manifest: `preStop: {{exec: {{command: [/bin/sleep, \"{seconds}\"]}}}}` (the injector reads config.alpha.linkerd.io/proxy-wait-before-exit-seconds only when it adds the proxy)"
        )
    }),
    outlast_endpoints: Some(
        "delay the proxy's shutdown past endpoint propagation with a preStop on `linkerd-proxy` in the manifest: `preStop: {exec: {command: [/bin/sleep, \"10\"]}}` (the injector reads config.alpha.linkerd.io/proxy-wait-before-exit-seconds only when it adds the proxy)",
    ),
    ..REMEDIES
};

/// The pod annotation that turns the proxy's `/shutdown` endpoint on or off.
pub const SHUTDOWN_ANNOTATION: &str = "config.linkerd.io/proxy-admin-shutdown";
