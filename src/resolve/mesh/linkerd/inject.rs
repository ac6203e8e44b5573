//! Whether the injector adds the proxy (docs/lifecycle.md §4.1) and what it adds
//! (§4.2): `linkerd-init` and the proxy, held by `linkerd-await` or native.

use super::*;

/// The injection opt-in, an annotation of the pod or its namespace.
pub(super) const INJECT: &str = "linkerd.io/inject";

/// The setting that holds the app until the proxy is ready.
pub(super) const AWAIT: &str = "config.linkerd.io/proxy-await";

/// The init container that sets up the traffic redirection.
pub(super) const INIT: &str = "linkerd-init";

/// docs/lifecycle.md §4.1: the pod's annotation and its namespace's. Returns what asks
/// for the proxy, as a path and as a fact.
pub(super) fn injection(b: &mut Builder) -> Option<(JsonPath, DecisionReason)> {
    let pod = b
        .workload
        .pod_annotation(INJECT)
        .map(|(v, p)| (v.to_owned(), p));
    // The namespace it lands in: its own, else `default`, as kubectl applies it.
    let found = b.settings.namespace_of(b.workload.namespace.as_deref());
    let namespace = found
        .map(|(name, _)| name.to_owned())
        .or_else(|| b.workload.namespace.clone());
    let ns_info = found.map(|(_, info)| info.clone());
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
                opt_in: OptIn {
                    mesh: MESH,
                    setting: INJECT,
                    known: &["enabled", "ingress", "disabled"],
                    on: "enabled",
                    off: "disabled",
                    label_is_read: false,
                },
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
                mesh: MESH,
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
                mesh: MESH,
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

/// Whether the app waits for the proxy (`proxy-await`, on by default since 2.11).
pub(super) fn await_proxy(b: &mut Builder) -> Sourced<bool> {
    // The injector reads only "enabled" and "disabled"; it logs anything else and
    // keeps the default (`pkg/inject/inject.go`).
    let written = setting(b, AWAIT);
    if let Some(awaits) = b.read_setting(AWAIT, written, &Reading::SWITCH) {
        return awaits;
    }
    if let Some(setting) = &b.settings.linkerd.proxy_await {
        return setting.clone();
    }
    match version_at_least(b, 11, (21, 1, 1)) {
        Some(false) => Sourced::default_value(false),
        _ => Sourced::default_value(true),
    }
}

/// Adds the modelled `linkerd-init` and `linkerd-proxy` (docs/lifecycle.md §4.2).
pub(super) fn inject(b: &mut Builder, trigger: JsonPath, asked_by: DecisionReason) {
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
                by: Rejector::Injector(MESH),
                cause: RejectionCause::NativeWith {
                    mesh: MESH,
                    native: match &native_reason {
                        NativeReason::Annotation { key, .. } => key,
                        _ => "proxy.nativeSidecar",
                    },
                    setting: WAIT_BEFORE_EXIT,
                    until: "2.20",
                    error: "proxy.nativeSidecar and waitBeforeExitSeconds cannot be used simultaneously",
                },
            });
        }
        wait = None;
    }
    let grace = shutdown_grace(b, None);
    let startup = b.scenario.proxy_startup.value;
    let _env = crate::resolve::shell::Env::new();
    let role = b.injected_proxy(KIND, native);
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
    };
    let mut proxy =
        PlannedContainer::injected(PROXY, MESH, trigger.clone(), role).shaped(shaped_by);
    // The injector gives a native proxy its startupProbe only with await on (below):
    // with await off, the switch alone would not hold the app.
    proxy.native_switch = if native {
        None
    } else {
        switch_beside_wait(b, wait.as_ref()).map(|switch| NativeSwitch {
            gated: awaits.value,
            ..switch
        })
    };
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
        let wait = [
            "/usr/lib/linkerd/linkerd-await",
            "--timeout=2m",
            "--port=4191",
        ];
        proxy.post_start = Some(b.sidecar_hook(&wait, HookKind::PostStart));
    }
    if let Some(wait) = &wait {
        let seconds = wait.value.whole_secs().to_string();
        let mut hook = b.sidecar_hook(&["/bin/sleep", &seconds], HookKind::PreStop);
        hook.rendered_from = Some("proxy-wait-before-exit-seconds");
        if let Source::Manifest(path) = &wait.source {
            hook.asked_by = Some(path.clone());
        }
        proxy.pre_stop = Some(hook);
    }
    apply_shutdown(&mut proxy, grace);
    let mut init = PlannedContainer::injected(INIT, MESH, trigger.clone(), Role::INIT_STEP);
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
        mesh: MESH,
        injection: Injection::WillInject { trigger },
        mode,
        reasons: vec![asked_by, DecisionReason::Native(native_reason)],
    });
}

/// The native switch for a classic proxy that waits `wait` before exit: the injectors
/// of 2.15 to 2.19 deny a native proxy with a wait, and 2.20 drops it (a native proxy
/// is stopped after the app), so a wait the pod sets goes with the switch. A wait the
/// pod does not set (the install's) cannot be removed from it: on a release that would
/// deny the pod there is no switch to offer.
fn switch_beside_wait(b: &Builder, wait: Option<&Sourced<Millis>>) -> Option<NativeSwitch> {
    let switch = native_switch_in_force(b)?;
    let Some(wait) = wait.filter(|wait| wait.value > Millis::ZERO) else {
        return Some(switch);
    };
    let denies = version_at_least(b, 20, (26, 5, 2)) == Some(false);
    let because = match (&b.settings.linkerd.version, denies) {
        (Some(version), true) => Displacement::DeniedBy(Release::Linkerd(version.value)),
        _ => Displacement::DroppedOrDenied,
    };
    match &wait.source {
        Source::Manifest(path) => Some(NativeSwitch {
            displaces: Some(Displaced {
                path: path.clone(),
                because,
                value: None,
            }),
            ..switch
        }),
        _ if denies => None,
        _ => Some(switch),
    }
}
