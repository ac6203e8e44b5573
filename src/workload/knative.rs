//! What Knative Serving's revision reconciler makes of a revision's pod (knative/serving
//! `pkg/reconciler/revision/resources/deploy.go`, knative-v1.23.0).

use k8s_openapi::api::core::v1::{HTTPGetAction, Lifecycle, LifecycleHandler, PodSpec};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use crate::load::{Node, Value};

/// `revision-timeout-seconds` of `config-defaults` unless the cluster changed it
/// (`pkg/apis/config/defaults.go`, `DefaultRevisionTimeoutSeconds`).
pub const DEFAULT_TIMEOUT_SECONDS: i64 = 300;
/// queue-proxy's admin port (`pkg/networking/constants.go`, `QueueAdminPort`).
pub const QUEUE_ADMIN_PORT: i32 = 8022;
/// The endpoint that answers once queue-proxy has drained (`pkg/queue/constants.go`,
/// `RequestQueueDrainPath`).
pub const DRAIN_PATH: &str = "/wait-for-drain";

/// The pod the reconciler builds from the revision spec `spec` (a PodSpec with
/// Knative's fields): `BuildPodSpec` sets the grace period to the revision's
/// `timeoutSeconds` (`SetDefaults` puts the default in for an absent or 0 one), and
/// `makeContainer` replaces each user container's `lifecycle` with a preStop hook that
/// waits on queue-proxy's drain.
pub fn revision_pod(spec: Option<&Node>, pod: &mut PodSpec) {
    let timeout = spec
        .and_then(|spec| spec.get("timeoutSeconds"))
        .and_then(|node| match node.value {
            Value::Int(seconds) if seconds != 0 => Some(seconds),
            _ => None,
        })
        .unwrap_or(DEFAULT_TIMEOUT_SECONDS);
    pod.termination_grace_period_seconds = Some(timeout);
    // `applyDefaultContainerNames` (`pkg/apis/serving/v1/revision_defaults.go`): an
    // unnamed container is `user-container`, `user-container-N` among several.
    let several = pod.containers.len() > 1;
    let mut suffix = 0;
    for container in &mut pod.containers {
        if container.name.is_empty() {
            container.name = if several {
                suffix += 1;
                format!("user-container-{}", suffix - 1)
            } else {
                "user-container".to_owned()
            };
        }
        container.lifecycle = Some(Lifecycle {
            pre_stop: Some(LifecycleHandler {
                http_get: Some(HTTPGetAction {
                    port: IntOrString::Int(QUEUE_ADMIN_PORT),
                    path: Some(DRAIN_PATH.to_owned()),
                    ..HTTPGetAction::default()
                }),
                ..LifecycleHandler::default()
            }),
            ..Lifecycle::default()
        });
    }
}
