//! What Knative Serving's revision reconciler makes of a revision's pod (knative/serving
//! knative-v1.23.0, `pkg/reconciler/revision/resources/deploy.go` and `queue.go`):
//! the user's containers, changed, and the queue-proxy container it adds beside them.
//!
//! On deletion, queue-proxy goes on serving until no request has come for 30 s and
//! then shuts down (`pkg/queue/sharedmain/main.go`, `Main`: `drainSleepDuration`,
//! `drainers.StandardDrainer.Drain()`); the preStop hook the reconciler gives every
//! user container calls its `/wait-for-drain`, which blocks on the same drain
//! (`handlers.go`, `adminHandler`), so a user container is sent SIGTERM only once
//! queue-proxy has drained.

use k8s_openapi::api::core::v1::{
    Container, ContainerPort, HTTPGetAction, HTTPHeader, Lifecycle, LifecycleHandler, PodSpec,
    Probe, TCPSocketAction,
};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::RefusedField;
use crate::load::{JsonPath, Node, Value};
use crate::time::Millis;

/// Who refuses a field the revision's containers may not set.
const CONTROLLER: &str = "Knative Serving";

/// `revision-timeout-seconds` of `config-defaults` unless the cluster changed it
/// (`pkg/apis/config/defaults.go`, `DefaultRevisionTimeoutSeconds`).
const DEFAULT_TIMEOUT_SECONDS: i64 = 300;
/// queue-proxy's admin port (`pkg/networking/constants.go`, `QueueAdminPort`).
pub const QUEUE_ADMIN_PORT: i32 = 8022;
/// The endpoint that answers once queue-proxy has drained (`pkg/queue/constants.go`,
/// `RequestQueueDrainPath`).
pub const DRAIN_PATH: &str = "/wait-for-drain";
/// How long queue-proxy's drain waits without a request before it ends: the least
/// time `/wait-for-drain` holds a user container's preStop (`sharedmain/main.go`,
/// `drainSleepDuration`, the drainer's `QuietPeriod`).
pub const DRAIN_QUIET_PERIOD: Millis = Millis::secs(30);
/// The container the reconciler adds (`resources/constants.go`, `QueueContainerName`).
const QUEUE_CONTAINER: &str = "queue-proxy";
/// queue-proxy's image as Knative's release manifests name it (`config-deployment`
/// `queue-sidecar-image`, resolved to a digest at release).
const QUEUE_IMAGE: &str = "gcr.io/knative-releases/knative.dev/serving/cmd/queue";
/// The port queue-proxy serves HTTP/1 on (`pkg/networking/constants.go`,
/// `BackendHTTPPort`), `BackendHTTP2Port` for `h2c`, and `BackendHTTPSPort`.
const QUEUE_HTTP_PORT: i32 = 8012;
const QUEUE_HTTP2_PORT: i32 = 8013;
const QUEUE_HTTPS_PORT: i32 = 8112;
/// The user port when the serving container names none (`revision_helpers.go`,
/// `DefaultUserPort`).
const DEFAULT_USER_PORT: i32 = 8080;

/// The pod the reconciler builds from the revision spec `spec` (a PodSpec with
/// Knative's fields):
///
/// - `BuildPodSpec` sets the grace period to the revision's `timeoutSeconds`
///   (`SetDefaults` puts the default in for an absent or 0 one);
/// - `makeContainer` replaces each user container's `lifecycle` with a preStop hook
///   that waits on queue-proxy's drain, and drops an HTTP, TCP or gRPC readiness probe,
///   which queue-proxy runs instead (an exec probe stays);
/// - `makeServingContainer` gives the serving container (the one with a port, or the
///   only one) the single port `user-port`;
/// - `makeQueueContainer` adds queue-proxy, serving on 8012 (8013 for `h2c`) and
///   8112, with metrics on 9090 and 9091, ready when its probe of the user
///   container (the user's, or the TCP one `applyUserContainerDefaultReadinessProbe`
///   defaults to) passes through its own port, with the `K-Network-Probe: queue` header.
///
/// The `lifecycle` of a user container (at `pod_path`, the pod spec's path) never gets
/// that far: the validating webhook refuses it (`pkg/apis/serving/fieldmask.go`,
/// `ContainerMask`, which clears `Lifecycle`; `k8s_validation.go`, `validate`:
/// `apis.CheckDisallowedFields`, "must not set the field(s)"), so the Service is never
/// created. Those fields are returned.
pub fn revision_pod(
    spec: Option<&Node>,
    pod: &mut PodSpec,
    pod_path: &JsonPath,
) -> Vec<RefusedField> {
    let mut refused = Vec::new();
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
    let serving = pod
        .containers
        .iter()
        .position(|c| c.ports.as_ref().is_some_and(|p| !p.is_empty()))
        .or((pod.containers.len() == 1).then_some(0));
    let mut user_probe = None;
    // `Revision.GetProtocol`: `h2c` when the serving port is named so.
    let mut h2c = false;
    for (index, container) in pod.containers.iter_mut().enumerate() {
        if container.name.is_empty() {
            container.name = if several {
                suffix += 1;
                format!("user-container-{}", suffix - 1)
            } else {
                "user-container".to_owned()
            };
        }
        if Some(index) == serving {
            let first = container.ports.iter().flatten().next();
            h2c = first.is_some_and(|port| port.name.as_deref() == Some("h2c"));
            let user_port = first
                .map(|port| port.container_port)
                .filter(|port| *port != 0)
                .unwrap_or(DEFAULT_USER_PORT);
            container.ports = Some(vec![port("user-port", user_port)]);
            user_probe = Some(container.readiness_probe.clone().unwrap_or_else(|| Probe {
                tcp_socket: Some(TCPSocketAction::default()),
                ..Probe::default()
            }));
        }
        let probed_by_queue = container.readiness_probe.as_ref().is_some_and(|probe| {
            probe.http_get.is_some() || probe.tcp_socket.is_some() || probe.grpc.is_some()
        });
        if probed_by_queue {
            container.readiness_probe = None;
        }
        if container.lifecycle.is_some() {
            refused.push(RefusedField {
                path: pod_path.key("containers").index(index).key("lifecycle"),
                container: container.name.clone(),
                field: "lifecycle",
                controller: CONTROLLER,
            });
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
    let serving_port = if h2c {
        QUEUE_HTTP2_PORT
    } else {
        QUEUE_HTTP_PORT
    };
    pod.containers.push(queue_proxy(user_probe, serving_port));
    refused
}

/// Whether `container` of `workload` is the queue-proxy the reconciler added: in a
/// Knative kind's pod as the linter builds it, or in a running pod of a revision
/// (labelled `serving.knative.dev/revision`, `pkg/apis/serving/register.go`).
pub fn is_queue_proxy(workload: &super::Workload, container: &Container) -> bool {
    let knative = matches!(
        workload.kind,
        super::Kind::KnativeService
            | super::Kind::KnativeConfiguration
            | super::Kind::KnativeRevision
    ) || workload.pod_label("serving.knative.dev/revision").is_some();
    knative && container.name == QUEUE_CONTAINER
}

fn port(name: &str, number: i32) -> ContainerPort {
    ContainerPort {
        name: Some(name.to_owned()),
        container_port: number,
        ..ContainerPort::default()
    }
}

/// queue-proxy as `makeQueueContainer` builds it, its readiness probe the user
/// container's, redirected to its own serving port.
fn queue_proxy(user_probe: Option<Probe>, serving_port: i32) -> Container {
    let readiness_probe = user_probe.map(|probe| Probe {
        http_get: Some(HTTPGetAction {
            port: IntOrString::Int(serving_port),
            http_headers: Some(vec![HTTPHeader {
                name: "K-Network-Probe".to_owned(),
                value: "queue".to_owned(),
            }]),
            ..HTTPGetAction::default()
        }),
        tcp_socket: None,
        exec: None,
        grpc: None,
        ..probe
    });
    Container {
        name: QUEUE_CONTAINER.to_owned(),
        image: Some(QUEUE_IMAGE.to_owned()),
        ports: Some(vec![
            port("http-autometric", 9090),
            port("http-usermetric", 9091),
            port("queue-port", serving_port),
            port("https-port", QUEUE_HTTPS_PORT),
        ]),
        readiness_probe,
        ..Container::default()
    }
}
