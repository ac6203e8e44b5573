//! Linkerd proxies (semantics section 4).
//!
//! Before injection: the `linkerd.io/inject` annotation on the pod or its namespace
//! decides (4.1); the proxy is a native sidecar or a classic container, held by
//! `linkerd-await` or not, with a `wait-before-exit` preStop (4.2). After injection:
//! `linkerd-proxy` is read as written. On SIGTERM the proxy refuses new connections and
//! lets in-flight ones finish, up to its shutdown grace period (4.3).

use super::Builder;
use super::hooks::{self, HookKind, Owner};
use super::plan::*;
use crate::load::JsonPath;
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
/// Native-sidecar annotations, strongest first (the GA key wins over beta over alpha).
const NATIVE: [&str; 3] = [
    "config.linkerd.io/proxy-enable-native-sidecar",
    "config.beta.linkerd.io/proxy-enable-native-sidecar",
    "config.alpha.linkerd.io/proxy-enable-native-sidecar",
];
/// The proxy's own default shutdown grace period (`DEFAULT_SHUTDOWN_GRACE_PERIOD`).
const DEFAULT_SHUTDOWN_GRACE: Millis = Millis::secs(120);

/// Resolves Linkerd for the pod being built.
pub fn resolve(b: &mut Builder) {
    label_instead_of_annotation(b);
    if let Some((list, index)) = b.find(PROXY) {
        adopt_injected(b, list, index);
        return;
    }
    if let Some(trigger) = injection(b) {
        inject(b, trigger);
    }
}

/// An annotation of the pod, or else of its namespace (namespace `config.*` annotations
/// are copied to pods that do not set them, 4.1).
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

/// `linkerd.io/inject` is read as an annotation only; as a label it does nothing (ML404).
fn label_instead_of_annotation(b: &mut Builder) {
    if b.workload.pod_annotation(INJECT).is_some() {
        return;
    }
    if let Some((value, path)) = b.workload.pod_label(INJECT) {
        b.problems.push(ConfigProblem {
            path,
            message: format!("`{INJECT}: {value}` is a label here; Linkerd reads it only as an annotation, so it has no effect"),
            kind: ConfigProblemKind::IgnoredOptIn,
            fix: None,
        });
    }
}

/// Semantics 4.1: the pod's annotation and its namespace's.
fn injection(b: &mut Builder) -> Option<JsonPath> {
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
        b.problems.push(ConfigProblem {
                path: path.clone(),
                message: format!("`{INJECT}: {value}` is not enabled, ingress or disabled; the injector skips the pod"),
                kind: ConfigProblemKind::IgnoredOptIn,
                fix: Some(format!("write `{INJECT}: enabled` to inject the proxy, or `disabled` to say the pod goes without")),
            });
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
                mesh: "linkerd",
                injection: Injection::NotInjected {
                    reason: format!("`{INJECT}: disabled`"),
                },
                mode: "none".into(),
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
            format!("namespace {ns}: annotations unknown; the pod's own Linkerd settings are used"),
            Source::Default,
        );
    }
    Some(match pod {
        Some((_, path)) => path,
        None => b.workload.paths.pod_metadata.clone(),
    })
}

/// Whether the injector makes the proxy a native sidecar, and why.
fn native_mode(b: &mut Builder) -> (bool, String) {
    for key in NATIVE {
        if let Some((value, source)) = setting(b, key) {
            // Native sidecars arrived with 2.15 (alpha annotation).
            if version_at_least(b, 15, (23, 11, 4)) == Some(false) {
                return (
                    false,
                    format!("`{key}` is not supported before Linkerd 2.15"),
                );
            }
            return (value == "true", format!("`{key}: \"{value}\"` ({source})"));
        }
    }
    if let Some(setting) = &b.settings.linkerd.native_sidecar {
        return (
            setting.value,
            format!("proxy.nativeSidecar ({})", setting.source),
        );
    }
    match &b.settings.linkerd.version {
        Some(version) if version.value.native_by_default() => (
            true,
            format!(
                "Linkerd {} injects native sidecars by default",
                version.value
            ),
        ),
        Some(version) => (
            false,
            format!(
                "Linkerd {} injects classic sidecars by default",
                version.value
            ),
        ),
        None => {
            b.assume(
                "Linkerd version unknown: classic proxy assumed (Linkerd 2.20+ injects native sidecars); set --linkerd-version",
                Source::Default,
            );
            (
                false,
                "Linkerd version unknown: classic proxy assumed".to_owned(),
            )
        }
    }
}

/// Whether the app waits for the proxy (`proxy-await`, on by default since 2.11).
fn await_proxy(b: &Builder) -> Sourced<bool> {
    if let Some((value, source)) = setting(b, AWAIT) {
        return Sourced::new(value != "disabled", source);
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
        match value.trim().parse::<i64>() {
            Ok(seconds) if seconds >= 0 => {
                return Some(Sourced::new(Millis::secs(seconds), source));
            }
            _ => {
                if let Source::Manifest(path) = &source {
                    b.problems.push(ConfigProblem {
                        path: path.clone(),
                        message: format!(
                            "`{WAIT_BEFORE_EXIT}: {value}` is not a whole number of seconds"
                        ),
                        kind: ConfigProblemKind::Invalid,
                        fix: None,
                    });
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
                    b.problems.push(ConfigProblem {
                        path: path.clone(),
                        message: format!(
                            "`{SHUTDOWN_GRACE}: {value}` is not a duration such as \"30s\""
                        ),
                        kind: ConfigProblemKind::Invalid,
                        fix: None,
                    });
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

/// Semantics 4.3: refuses new connections from the signal, exits when in-flight ones
/// are done or the grace period ends.
fn apply_shutdown(proxy: &mut PlannedContainer, grace: Sourced<Millis>) {
    proxy.exit = ExitPolicy::WhenRequestsDone { cap: grace };
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
    let native = b.get(list, index).native_sidecar;
    let restart_always = b.get(list, index).restart_always;
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
            setting: "postStart `linkerd-await`".into(),
        });
    } else if let Some((value, source)) = await_setting.filter(|(v, _)| v == "enabled") {
        proxy.gate_request = Some(GateRequest {
            source,
            setting: format!("{AWAIT}: {value}"),
        });
    }
    let probed = proxy.startup_probe.is_some();
    apply_shutdown(proxy, grace);
    // Without a startup probe, the postStart is what holds the next container.
    if native && awaits && probed {
        let source = Source::Manifest(path.key("lifecycle").key("postStart"));
        b.moot.push(MootSetting {
            kind: MootKind::Gate,
            source,
            message: "the native proxy's startupProbe already holds the app; the postStart `linkerd-await` adds nothing (and kills the proxy if it times out)".into(),
        });
    }
    let mode = if native {
        "native"
    } else if restart_always {
        "native (not supported by this Kubernetes version)"
    } else if awaits {
        "classic, held (postStart linkerd-await)"
    } else {
        "classic"
    };
    b.meshes.push(MeshDecision {
        mesh: "linkerd",
        injection: Injection::InManifest,
        mode: mode.into(),
        reasons: vec![format!(
            "`{PROXY}` is in the manifest: it was injected already"
        )],
    });
}

/// Adds the modelled `linkerd-init` and `linkerd-proxy` (semantics 4.2).
fn inject(b: &mut Builder, trigger: JsonPath) {
    b.exempt_init_calls(PROXY_UID, "config.linkerd.io/skip-outbound-ports");
    let (native, native_reason) = native_mode(b);
    let awaits = await_proxy(b);
    let wait = if native { None } else { wait_before_exit(b) };
    let grace = shutdown_grace(b, None);
    let startup = b.scenario.proxy_startup.value;
    let env = super::commands::Env::new();
    let list = if native {
        ContainerList::Init
    } else {
        ContainerList::Regular
    };
    let role = Role::Sidecar(Sidecar {
        kind: SidecarKind::LinkerdProxy,
        carries_traffic: true,
    });
    let manifest_path = |source: &Source| match source {
        Source::Manifest(path) => Some(path.clone()),
        _ => None,
    };
    let shaped_by = ShapedBy {
        native: NATIVE
            .iter()
            .find_map(|key| setting(b, key))
            .filter(|_| native)
            .and_then(|(_, source)| manifest_path(&source)),
        no_startup_gate: manifest_path(&awaits.source).filter(|_| !awaits.value),
    };
    let mut proxy =
        PlannedContainer::injected(PROXY, list, "Linkerd", trigger.clone(), role).shaped(shaped_by);
    proxy.native_sidecar = native && b.settings.kubernetes.value.runs_native_sidecars();
    proxy.restart_always = native;
    proxy.image = Some("cr.l5d.io/linkerd/proxy".into());
    proxy.startup = startup;
    // Native with await: `/ready` on 4191 every second, 120 tries (4.2).
    proxy.startup_probe = (native && awaits.value).then_some(ProbeTiming {
        initial_delay: Millis::ZERO,
        period: Millis::secs(1),
        failure_threshold: 120,
    });
    proxy.gate_request = awaits.value.then(|| GateRequest {
        source: awaits.source.clone(),
        setting: "proxy-await".into(),
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
        hook.summary = format!(
            "sleep {} (proxy-wait-before-exit-seconds)",
            wait.value.whole_secs()
        );
        if let Source::Manifest(path) = &wait.source {
            hook.asked_by = Some(path.clone());
        }
        proxy.pre_stop = Some(hook);
    }
    apply_shutdown(&mut proxy, grace);
    let mut init = PlannedContainer::injected(
        INIT,
        ContainerList::Init,
        "Linkerd",
        trigger.clone(),
        Role::Init,
    );
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
        "native"
    } else {
        if existing.is_none() {
            b.init.push(init);
        }
        if awaits.value {
            b.regular.insert(0, proxy);
            "classic, held (proxy first, postStart linkerd-await)"
        } else {
            b.regular.push(proxy);
            "classic"
        }
    };
    let mut reasons = vec![match &trigger {
        path if path == &b.workload.paths.pod_metadata => {
            format!(
                "namespace {} has `{INJECT}: enabled`",
                b.workload.namespace.as_deref().unwrap_or("?")
            )
        }
        _ => format!("pod annotation `{INJECT}`"),
    }];
    reasons.push(native_reason);
    b.meshes.push(MeshDecision {
        mesh: "linkerd",
        injection: Injection::WillInject { trigger },
        mode: mode.into(),
        reasons,
    });
}
