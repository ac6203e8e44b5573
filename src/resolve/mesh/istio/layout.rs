//! What the injector adds (docs/lifecycle.md §3.2, layouts A–D): `istio-init` and the
//! proxy, where it puts them, their probes and hooks.

use super::*;

/// The init container that sets up the traffic redirection.
pub(super) const INIT: &str = "istio-init";

/// Adds the modelled `istio-init` and `istio-proxy` containers in the layout the
/// injector produces (docs/lifecycle.md §3.2).
pub(super) fn inject(
    b: &mut Builder,
    decision: Decision,
    template: Option<(ContainerList, usize)>,
    config: Effective,
) {
    let (native, native_reason) = native_mode(b);
    // A partial `istio-proxy` (custom injection) is merged into what the injector adds.
    let template_container = template.and_then(|(list, i)| {
        let planned = match list {
            ContainerList::Init => b.init.remove(i),
            ContainerList::Regular => b.regular.remove(i),
        };
        b.manifest_container(&planned)
            .cloned()
            .map(|c| (c, planned.manifest_path().cloned()))
    });
    b.exempt_init_calls(PROXY_UID, "traffic.sidecar.istio.io/excludeOutboundPorts");
    let custom_lifecycle = revision_settings(b).custom_lifecycle.clone();
    // The template ignores hold for native proxies from 1.21 (`$holdProxy := and …
    // (not $nativeSidecar)`); 1.19 and 1.20 still add `pilot-agent wait`.
    let hold_ignored = native && has(b, 21);
    let hold = config.hold.value && !hold_ignored;
    let trigger = decision.trigger.clone();
    let startup = b.scenario.proxy_startup.value;
    let role = b.injected_proxy(KIND, native);
    let shaped_by = ShapedBy {
        native: b
            .workload
            .pod_annotation(NATIVE)
            .filter(|_| native)
            .map(|(_, path)| path),
        no_startup_gate: None,
    };
    let mut proxy =
        PlannedContainer::injected(PROXY, MESH, trigger.clone(), role).shaped(shaped_by);
    // Native mode holds the app only with the startup probe Helm can turn off.
    let native_gated = startup_probe(b, true).is_some();
    // Native mode ignores the hold (from 1.21, before the annotation exists): the pod's
    // own hold goes with the switch, which would leave it moot.
    proxy.native_switch = if native {
        None
    } else {
        native_switch(version(b), b.settings.kubernetes.value).map(|switch| NativeSwitch {
            displaces: match &config.hold.source {
                Source::Manifest(path) if config.hold.value => Some(Displaced {
                    path: path.clone(),
                    because: Displacement::IgnoredWhenNative,
                    value: None,
                }),
                _ => None,
            },
            gated: native_gated,
            ..switch
        })
    };
    if !native && proxy.native_switch.is_none() {
        proxy.native_install =
            install_switch(version(b), b.settings.kubernetes.value, native_gated);
    }
    proxy.image = Some("istio/proxyv2".into());
    proxy.startup_probe = startup_probe(b, native);
    proxy.startup_probe_off = startup_probe_off(b);
    proxy.readiness_probe = readiness_probe(b, native);
    proxy.startup = startup;
    if hold {
        proxy.post_start = Some(b.sidecar_hook(&["pilot-agent", "wait"], HookKind::PostStart));
    }
    if native && has(b, 21) {
        // `--debug-port={{(annotation .ObjectMeta `status.sidecar.istio.io/port`
        // .Values.global.proxy.statusPort)}}`, whatever the value (1.21.0 to 1.28.0).
        let port = b
            .workload
            .pod_annotation(STATUS_PORT)
            .map_or_else(|| DEFAULT_STATUS_PORT.to_string(), |(v, _)| v.to_owned());
        let debug_port = format!("--debug-port={port}");
        let drain = ["pilot-agent", "request", &debug_port, "POST", "drain"];
        proxy.pre_stop = Some(b.sidecar_hook(&drain, HookKind::PreStop));
    }
    if config.hold.value {
        proxy.gate_request = Some(GateRequest {
            source: config.hold.source.clone(),
            asked_by: HOLD_REQUEST,
        });
        if hold_ignored {
            b.moot.push(MootSetting {
                source: config.hold.source.clone(),
                why: Moot::Gate(GateMoot::HoldIgnoredWhenNative { setting: HOLD }),
            });
        }
    }
    // Layout D: Helm `global.proxy.lifecycle` replaces both injected hooks.
    if let Some(lifecycle) = &custom_lifecycle {
        let lifecycle = &lifecycle.value;
        proxy.post_start = lifecycle
            .post_start
            .as_ref()
            .map(|handler| b.sidecar_handler(handler, HookKind::PostStart));
        proxy.pre_stop = lifecycle
            .pre_stop
            .as_ref()
            .map(|handler| b.sidecar_handler(handler, HookKind::PreStop));
    }
    if let Some((container, path)) = &template_container
        && let Some(path) = path
    {
        let owner = Owner::Sidecar;
        if let Some(hook) = hooks::read(container, path, HookKind::PostStart, owner, b.lexicon) {
            proxy.post_start = Some(hook);
        }
        if let Some(hook) = hooks::read(container, path, HookKind::PreStop, owner, b.lexicon) {
            proxy.pre_stop = Some(hook);
        }
        if let Some(probe) = &container.startup_probe {
            proxy.startup_probe = Some(crate::resolve::probe_timing(probe));
        }
    }
    proxy.status_port_off = status_port_off(b, &config);
    mark_unanswered_wait(&mut proxy);
    judge_drain_request(&mut proxy, config.status_port);
    apply_shutdown(&mut proxy, &config, native, intercepts_inbound(b));
    let mut init = PlannedContainer::injected(INIT, MESH, trigger, Role::INIT_STEP);
    init.image = Some("istio/proxyv2".into());
    init.runs_for = Some(b.scenario.init_duration.value);
    let has_init = b.init.iter().any(|c| c.name == INIT);
    let mode = if native {
        // Layout C: istio-init, then the proxy, then the user's init containers.
        if !has_init {
            b.init.insert(0, init);
        }
        let at = b
            .init
            .iter()
            .position(|c| c.name == INIT)
            .map_or(0, |i| i + 1);
        b.init.insert(at, proxy);
        ProxyMode::Native
    } else {
        // Layout A appends the proxy; layout B (hold) puts it first.
        if !has_init {
            b.init.push(init);
        }
        if hold {
            b.regular.insert(0, proxy);
        } else {
            b.regular.push(proxy);
        }
        if hold {
            ProxyMode::Held {
                first: true,
                command: "pilot-agent wait",
            }
        } else {
            ProxyMode::Classic
        }
    };
    let mut reasons = decision.reasons;
    reasons.push(DecisionReason::Native(native_reason));
    if config.hold.value {
        reasons.push(DecisionReason::Hold {
            setting: HOLD,
            source: config.hold.source.clone(),
        });
    }
    b.meshes.push(MeshDecision {
        mesh: MESH,
        injection: Injection::WillInject {
            trigger: decision.trigger,
        },
        mode,
        reasons,
    });
    let exits_on_signal = native
        && b.find(PROXY)
            .is_some_and(|(list, index)| drains_on_pre_stop(b.get(list, index)));
    note_moot_drain(b, &config, exits_on_signal);
}

/// Where Helm's `global.proxy.startupProbe.enabled: false` is set, for a release whose
/// injector would otherwise add the startup probe (1.20 on, docs/lifecycle.md §3.2).
fn startup_probe_off(b: &Builder) -> Option<Source> {
    let setting = revision_settings(b).startup_probe.as_ref()?;
    (has(b, 20) && !setting.value).then(|| setting.source.clone())
}

/// The injected startup probe (docs/lifecycle.md §3.2): from Istio 1.20,
/// `/healthz/ready` on 15021 every second, 600 tries, unless Helm turns it off; in 1.19
/// native mode, the readiness probe's values as a startup probe instead. None when the
/// status port is 0.
pub(super) fn startup_probe(b: &Builder, native: bool) -> Option<ProbeTiming> {
    if probes_off(b) {
        return None;
    }
    if !has(b, 20) {
        return native.then(|| readiness_timing(b));
    }
    let enabled = match &revision_settings(b).startup_probe {
        Some(setting) => setting.value,
        None => true,
    };
    enabled.then_some(ProbeTiming {
        initial_delay: Millis::ZERO,
        period: Millis::secs(1),
        failure_threshold: 600,
    })
}

/// The injected readiness probe, absent in 1.19 native mode (which turned it into the
/// startup probe) and when the status port is 0.
pub(super) fn readiness_probe(b: &Builder, native: bool) -> Option<ProbeTiming> {
    (!probes_off(b) && (has(b, 20) || !native)).then(|| readiness_timing(b))
}

/// Readiness timing: initial delay / period / failures 0 s / 15 s / 4 since Istio 1.20,
/// 1 s / 2 s / 30 before; `readiness.status.sidecar.istio.io/*` override them.
pub(super) fn readiness_timing(b: &Builder) -> ProbeTiming {
    let (delay, period, failures) = if has(b, 20) { (0, 15, 4) } else { (1, 2, 30) };
    let annotation = |key: &str, default: i64| {
        b.workload
            .pod_annotation(&format!("readiness.status.sidecar.istio.io/{key}"))
            .and_then(|(v, _)| v.parse::<i64>().ok())
            .unwrap_or(default)
    };
    ProbeTiming {
        initial_delay: Millis::secs(annotation("initialDelaySeconds", delay)),
        period: Millis::secs(annotation("periodSeconds", period).max(1)),
        failure_threshold: annotation("failureThreshold", failures),
    }
}

/// `status.sidecar.istio.io/port: "0"`: the template adds no probes at all. It
/// compares the text with `"0"` (`ne (annotation …) "0"`): `"00"` or `" 0"` keep the
/// probes, though pilot-agent reads them as 0 too ([`status_port_off`]).
pub(super) fn probes_off(b: &Builder) -> bool {
    b.workload
        .pod_annotation(STATUS_PORT)
        .is_some_and(|(port, _)| port == "0")
}

/// Where the pod turns pilot-agent's status server off: the annotation, when the agent
/// reads its port as 0 (`Effective::status_port`).
pub(super) fn status_port_off(b: &Builder, config: &Effective) -> Option<JsonPath> {
    if config.status_port != 0 {
        return None;
    }
    b.workload.pod_annotation(STATUS_PORT).map(|(_, path)| path)
}

/// Marks a `pilot-agent wait` postStart that nothing will answer: it polls
/// `http://localhost:15021/healthz/ready` unless `--url` says otherwise
/// (`pilot-agent/app/wait.go`), Envoy routes that path to pilot-agent's status port
/// (`envoy_bootstrap.json`, cluster `agent`), and with the port 0 pilot-agent serves no
/// status at all (`initStatusServer` only `if proxyConfig.StatusPort > 0`). The wait
/// fails after its timeout; docs/lifecycle.md §3.5. A `--url` to another port (Envoy's
/// admin `/ready`) is answered.
pub(super) fn mark_unanswered_wait(proxy: &mut PlannedContainer) {
    if proxy.status_port_off.is_none() {
        return;
    }
    let Some(hook) = proxy.post_start.as_mut() else {
        return;
    };
    let HookAction::Exec(argv) = &hook.action else {
        return;
    };
    let is_wait = argv
        .first()
        .is_some_and(|program| crate::resolve::shell::basename(program) == "pilot-agent")
        && argv.get(1).is_some_and(|word| word == "wait");
    let polls_status =
        url_port(argv).is_none_or(|port| port == HEALTH_PORT || port == DEFAULT_STATUS_PORT);
    if let HookDuration::UntilReady { unanswered, .. } = &mut hook.duration
        && is_wait
        && polls_status
    {
        *unanswered = true;
    }
}

/// Envoy's health port, whose `/healthz/ready` Envoy passes to pilot-agent.
const HEALTH_PORT: u16 = 15021;

/// The port of `pilot-agent wait --url URL` (or `--url=URL`), when one is given.
fn url_port(argv: &[String]) -> Option<u16> {
    let url = argv.iter().enumerate().find_map(|(i, arg)| {
        arg.strip_prefix("--url=").or_else(|| {
            (arg == "--url")
                .then(|| argv.get(i + 1).map(String::as_str))
                .flatten()
        })
    })?;
    let authority = url.split_once("://").map_or(url, |(_, rest)| rest);
    let host_port = authority.split('/').next()?;
    host_port.rsplit_once(':')?.1.parse().ok()
}
