//! `explain --format json`: the plan, its assumptions, the events and the hazards.

use serde_json::{Value, json};

use crate::report::assumptions::assumed;
use crate::report::located::Analysis;
use crate::resolve::{
    ContainerList, ExitPolicy, Hook, HookDuration, Injection, PlannedContainer, Provenance, Role,
};
use crate::rules::describe;
use crate::settings::Settings;
use crate::simulate::events;

/// The explanation of every analysis.
pub fn json(analyses: &[Analysis], settings: &Settings) -> Value {
    json!({
        "schemaVersion": 1,
        "profile": {
            "kubernetesVersion": settings.kubernetes.value.to_string(),
            "kubernetesVersionSource": settings.kubernetes.source.to_string(),
            "istioVersion": settings.istio.version.as_ref().map(|v| v.value.to_string()),
            "linkerdVersion": settings.linkerd.version.as_ref().map(|v| v.value.to_string()),
        },
        "workloads": analyses.iter().map(workload).collect::<Vec<_>>(),
    })
}

fn workload(analysis: &Analysis) -> Value {
    let plan = &analysis.plan;
    json!({
        "file": analysis.file.as_ref(),
        "document": analysis.document,
        "origin": analysis.origin,
        "workload": plan.workload,
        "plan": {
            "kubernetesVersion": plan.kubernetes.value.to_string(),
            "gracePeriodSeconds": plan.grace_period.value,
            "gracePeriodSource": plan.grace_period.source.to_string(),
            "meshes": plan.meshes.iter().map(|m| json!({
                "mesh": m.mesh,
                "injection": match &m.injection {
                    Injection::InManifest => "inManifest".to_owned(),
                    Injection::WillInject { .. } => "willInject".to_owned(),
                    Injection::NotInjected { .. } => "notInjected".to_owned(),
                },
                "mode": super::reasons::mode(m),
                // Why not, for a proxy that is not injected; why, for one that is.
                "reasons": super::reasons::reasons(m),
            })).collect::<Vec<_>>(),
            "containers": plan.containers.iter().map(container).collect::<Vec<_>>(),
            "rejection": plan.rejection().map(|r| json!({
                "by": crate::rules::rejection::rejector(r.by),
                "reason": crate::rules::rejection::reason(&r.cause),
                "path": r.path.to_string(),
            })),
        },
        "assumptions": {
            "scenario": plan.scenario.entries().into_iter().map(|(name, value)| json!({
                "name": name.name(),
                "ms": value.map(|v| v.value.0),
                "source": value.map(|v| v.source.to_string()),
            })).collect::<Vec<_>>(),
            "notes": plan.assumptions.iter().map(|a| assumed(&a.assumed)).collect::<Vec<_>>(),
        },
        "events": if !plan.admitted() {
            Vec::new()
        } else {
            events(plan, &analysis.timeline)
        },
        "hazards": analysis.findings.iter().map(|f| json!({
            "ruleId": f.finding.rule.id,
            "rule": f.finding.rule.name,
            "severity": f.finding.severity,
            "message": f.finding.message,
            "line": f.primary.start.line,
            "column": f.primary.start.column,
            "window": f.finding.window,
            "suppressed": f.suppressed.is_some(),
        })).collect::<Vec<_>>(),
    })
}

fn container(c: &PlannedContainer) -> Value {
    json!({
        "name": c.name,
        "list": match c.list() { ContainerList::Init => "initContainers", ContainerList::Regular => "containers" },
        "index": c.index,
        "role": match c.sidecar() {
            Some(s) => if s.carries_traffic { "proxy" } else { "sidecar" },
            None if c.role == Role::App => "app",
            None => "init",
        },
        "sidecar": c.sidecar().map(|s| s.kind.label().to_owned()),
        "nativeSidecar": c.is_native_sidecar(),
        "injected": matches!(c.provenance, Provenance::Injected { .. }),
        "postStart": c.post_start.as_ref().map(hook),
        "preStop": c.pre_stop.as_ref().map(hook),
        "startupProbe": c.startup_probe.map(|p| json!({
            "initialDelayMs": p.initial_delay.0, "periodMs": p.period.0, "failureThreshold": p.failure_threshold,
        })),
        "startupMs": c.startup.0,
        "exit": exit(&c.exit),
        "startGate": c.start_gate.as_ref().map(|g| describe::start_gate(&g.waits)),
    })
}

fn hook(h: &Hook) -> Value {
    let mut value = json!({
        "summary": describe::hook(h),
        "duration": match &h.duration {
            HookDuration::Fixed(length) => json!({"fixedMs": length.0}),
            HookDuration::UntilReady { timeout, poll } => json!({"untilReady": {"timeoutMs": timeout.0, "pollMs": poll.0}}),
            HookDuration::UntilAppsExit => json!("untilAppsExit"),
            HookDuration::UntilSelfExits => json!("untilSelfExits"),
            HookDuration::Unknown => json!("unknown"),
        },
    });
    // Only a drain hook that starts no drain says so.
    if let Some(miss) = describe::drain_miss(h) {
        value["drainMissed"] = json!(miss);
    }
    value
}

fn exit(policy: &ExitPolicy) -> Value {
    match policy {
        ExitPolicy::After(length) => {
            json!({"afterMs": length.value.0, "source": length.source.to_string()})
        }
        ExitPolicy::Immediately => json!("immediately"),
        ExitPolicy::WhenIdle { minimum, poll } => {
            json!({"whenIdle": {"minimumMs": minimum.value.0, "pollMs": poll.0}})
        }
        ExitPolicy::WhenRequestsDone { accepting, cap } => json!({"whenRequestsDone": {
            "acceptingMs": accepting.0,
            "capMs": cap.as_ref().map(|cap| cap.value.0),
        }}),
        ExitPolicy::WhenConnectionsClose { minimum, cap } => {
            json!({"whenConnectionsClose": {"minimumMs": minimum.0, "capMs": cap.0}})
        }
    }
}
