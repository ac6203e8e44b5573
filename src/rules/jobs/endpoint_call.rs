//! The mesh's own stop call in place of a signal: what a Job's work should run to stop
//! its proxy (Istio's `POST :15020/quitquitquit`, the Cloud SQL proxy's
//! `/quitquitquit`, Linkerd's `/shutdown` where enabled). A signal to another
//! container's process needs `shareProcessNamespace`, which shows the work the proxy's
//! processes, environment and workload certificates; the call needs nothing shared.

use std::ops::Range;

use crate::resolve::{PodPlan, SidecarStop, StopEndpoint, StopMethod};

/// The stop call of the sidecar a signal is meant for, when that sidecar has one that
/// works in this setup ([`PodPlan::stop_endpoints`]).
pub fn instead_of_signal<'a>(plan: &'a PodPlan, stop: &SidecarStop) -> Option<&'a StopEndpoint> {
    if !matches!(stop.method, StopMethod::Signal { .. }) {
        return None;
    }
    plan.containers
        .iter()
        .filter(|container| stop.method.reaches_container(container))
        .find_map(|sidecar| {
            plan.stop_endpoints
                .iter()
                .find(|endpoint| endpoint.sidecar == sidecar.name)
        })
}

/// `script` with the call at `call` (written as `written`, perhaps followed there by a
/// comment, which stays) replaced by `endpoint`'s call, and the new call's place with
/// its comment, as `call` held them.
pub fn swapped(
    script: &str,
    call: Range<usize>,
    written: &str,
    endpoint: &StopEndpoint,
) -> (String, Range<usize>) {
    let words = script[call.clone()]
        .find(written)
        .map_or(call.clone(), |at| {
            call.start + at..call.start + at + written.len()
        });
    let fixed = format!(
        "{}{}{}",
        &script[..words.start],
        endpoint.call,
        &script[words.end..]
    );
    let end = call.end - words.len() + endpoint.call.len();
    (fixed, call.start..end)
}

/// What the call assumes of the work's image, for a fix's title: nothing when the
/// work's script already runs the client itself.
pub fn client_risk(endpoint: &StopEndpoint) -> &'static str {
    if endpoint.work_script.is_some() {
        ""
    } else {
        " (risk: assumes the work's image has `curl`, which the call runs)"
    }
}
