//! Knative Serving's queue-proxy, which the revision reconciler adds in front of the
//! user's containers ([`crate::workload::knative`] builds the pod): it serves their
//! inbound requests but is not the pod's work, and it serves until no request has come
//! for its quiet period, then lets the requests in flight finish
//! (`pkg/queue/sharedmain/main.go`, `Main`, knative/serving knative-v1.23.0).

use super::{Description, Remedies, SidecarModel};
use crate::resolve::vocabulary::{KnownHook, Vocabulary};
use crate::resolve::{Builder, ContainerList, ExitPolicy, Sidecar, SidecarKind};
use crate::workload::knative;

/// Knative's queue-proxy.
pub struct QueueProxy;

/// The hook the reconciler gives every user container: it calls queue-proxy's
/// `/wait-for-drain`, which answers once queue-proxy has drained, no sooner than its
/// quiet period after the deletion.
static VOCABULARY: Vocabulary = Vocabulary {
    hooks: &[KnownHook::AwaitsDrain {
        port: knative::QUEUE_ADMIN_PORT,
        path: knative::DRAIN_PATH,
        of: "Knative's queue-proxy",
        at_least: knative::DRAIN_QUIET_PERIOD,
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
                accepting: knative::DRAIN_QUIET_PERIOD,
                cap: None,
            };
        }
    }
}
