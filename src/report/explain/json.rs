//! `explain --format json`: the plan, its assumptions, the events and the hazards.

use serde_json::{Value, json};

use crate::pipeline::located::Analysis;
use crate::resolve::{
    ContainerList, ExitPolicy, Hook, HookDuration, Injection, PlannedContainer, Provenance, Role,
};
use crate::rules::describe;
use crate::rules::describe::assumed;
use crate::settings::Settings;
use crate::simulate::events;

/// The explanation of every analysis.
pub fn json(analyses: &[Analysis], settings: &Settings) -> Value {
    json!({
        "schemaVersion": 1,
        "profile": profile(settings),
        "workloads": analyses.iter().map(workload).collect::<Vec<_>>(),
    })
}

fn profile(settings: &Settings) -> Value {
    json!({
        "kubernetesVersion": settings.kubernetes.value.to_string(),
        "kubernetesVersionSource": settings.kubernetes.source.to_string(),
        "istioVersion": settings.istio.version.as_ref().map(|v| v.value.to_string()),
        "linkerdVersion": settings.linkerd.version.as_ref().map(|v| v.value.to_string()),
    })
}

/// [`json`] printed as `serde_json::to_string_pretty` prints it, one workload at a time:
/// [`JsonStream::start`], then [`JsonStream::workload`] for each, then
/// [`JsonStream::end`], so that the explanation of a whole cluster is never held whole.
#[derive(Debug, Default)]
pub struct JsonStream {
    workloads: usize,
}

/// How the pretty printer ends the explanation of no workload.
const EMPTY_END: &str = "[]\n}";

impl JsonStream {
    /// Everything before the first workload.
    pub fn start(settings: &Settings) -> String {
        let empty = json!({"schemaVersion": 1, "profile": profile(settings), "workloads": []});
        let mut text = serde_json::to_string_pretty(&empty).expect("a JSON value prints");
        text.truncate(text.len() - EMPTY_END.len());
        text
    }

    /// One workload, with what separates it from the one before.
    pub fn workload(&mut self, analysis: &Analysis) -> String {
        let item = serde_json::to_string_pretty(&workload(analysis)).expect("a JSON value prints");
        let mut text = String::with_capacity(item.len() + item.len() / 8);
        text.push_str(if self.workloads == 0 { "[" } else { "," });
        // An item of the top-level object's array is indented two levels; the printer
        // escapes line breaks inside strings, so every line break is its own.
        for line in item.split('\n') {
            text.push_str("\n    ");
            text.push_str(line);
        }
        self.workloads += 1;
        text
    }

    /// Everything after the last workload (without the final line break, as the
    /// pretty printer).
    pub fn end(&self) -> &'static str {
        if self.workloads == 0 {
            EMPTY_END
        } else {
            "\n  ]\n}"
        }
    }
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
            HookDuration::UntilReady { timeout, poll, .. } => json!({"untilReady": {"timeoutMs": timeout.0, "pollMs": poll.0}}),
            HookDuration::UntilAppsExit => json!("untilAppsExit"),
            HookDuration::UntilSelfExits => json!("untilSelfExits"),
            HookDuration::Unknown => json!("unknown"),
        },
    });
    // Only a wait that nothing answers (it runs to its timeout and fails) says so.
    if h.duration.is_unanswered() {
        value["duration"]["untilReady"]["unanswered"] = json!(true);
    }
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
