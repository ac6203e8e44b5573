//! Knative Serving's queue-proxy, which the revision reconciler adds in front of the
//! user's containers ([`crate::workload::knative`] builds the pod): it serves their
//! inbound requests but is not the pod's work, and it serves until no request has come
//! for its quiet period, then lets the requests in flight finish
//! (`pkg/queue/sharedmain/main.go`, `Main`, knative/serving knative-v1.23.0).
//!
//! The quiet period restarts with every request that is not a probe (knative/pkg
//! `network/handlers/drain.go`, `Drainer.ServeHTTP` → `resetTimer`, at the commit
//! knative-v1.23.0 pins): requests keep arriving until endpoint removal has
//! propagated, so the drain, and the user containers' `/wait-for-drain` preStop that
//! blocks on it, end one quiet period after that, not after the deletion
//! (docs/lifecycle.md §5.6).

use super::{Description, Remedies, SidecarModel};
use crate::resolve::vocabulary::{KnownHook, Vocabulary};
use crate::resolve::{
    Builder, ContainerList, ExitPolicy, HookAction, HookDuration, Sidecar, SidecarKind,
};
use crate::workload::knative;

/// Knative's queue-proxy.
pub struct QueueProxy;

/// The hook the reconciler gives every user container: it calls queue-proxy's
/// `/wait-for-drain`, which answers once queue-proxy has drained: once no request has
/// come for its quiet period.
static VOCABULARY: Vocabulary = Vocabulary {
    hooks: &[KnownHook::AwaitsDrain {
        port: knative::QUEUE_ADMIN_PORT,
        path: knative::DRAIN_PATH,
        of: "Knative's queue-proxy",
        quiet: knative::DRAIN_QUIET_PERIOD,
    }],
    ..Vocabulary::NONE
};

static QUEUE_PROXY: Description = Description {
    id: "knative-queue-proxy",
    label: "Knative queue-proxy",
    mesh: None,
    vocabulary: &VOCABULARY,
    remedies: &Remedies::NONE,
};

impl SidecarModel for QueueProxy {
    fn description(&self) -> &Description {
        &QUEUE_PROXY
    }

    fn resolve(&self, b: &mut Builder) {
        // The last request arrives when endpoint removal has propagated; the drain
        // ends one quiet period later (`Drain` from the SIGTERM or the first
        // `/wait-for-drain`, both at the deletion, each request restarting the timer).
        let drain = b.scenario.endpoint_propagation.value + knative::DRAIN_QUIET_PERIOD;
        let mut serves = false;
        for index in 0..b.regular.len() {
            let queue_proxy = b
                .manifest_container(&b.regular[index])
                .is_some_and(|container| knative::is_queue_proxy(b.workload, container));
            if !queue_proxy {
                continue;
            }
            let container = b.get_mut(ContainerList::Regular, index);
            container.role = container.role.with_sidecar(Sidecar {
                kind: SidecarKind::Known(&QueueProxy),
                carries_traffic: false,
            });
            container.exit = ExitPolicy::WhenRequestsDone {
                accepting: drain,
                cap: None,
            };
            serves = true;
        }
        if !serves {
            return;
        }
        let port = knative::QUEUE_ADMIN_PORT.to_string();
        for container in &mut b.regular {
            let Some(hook) = &mut container.pre_stop else {
                continue;
            };
            let awaits = matches!(
                &hook.action,
                HookAction::HttpGet { port: called, path } if *called == port && path == knative::DRAIN_PATH
            );
            if awaits {
                hook.duration = HookDuration::Fixed(drain);
            }
        }
    }
}
