//! Wording and labels shared by several rules' violations. What a sidecar's own
//! settings offer comes from its mesh ([`crate::resolve::Remedies`]); this module only
//! words it.

use std::fmt;

use crate::load::JsonPath;
use crate::resolve::{PlannedContainer, PodPlan};
use crate::settings::Sourced;
use crate::settings::version::KubeVersion;
use crate::simulate::StopEntry;
use crate::time::Millis;

/// Where a finding about a container points: its `name:` when it is in the manifest,
/// otherwise what asks for its injection.
pub fn container_label_path(container: &PlannedContainer) -> JsonPath {
    match container.manifest_path() {
        Some(path) => path.key("name"),
        None => container.finding_path().clone(),
    }
}

/// Whether the label path names the container itself (then point at the value).
pub fn is_in_manifest(container: &PlannedContainer) -> bool {
    container.manifest_path().is_some()
}

/// How to hold the app until this proxy is ready, on Kubernetes `kubernetes`.
pub fn hold_app(proxy: &PlannedContainer, kubernetes: KubeVersion) -> String {
    let remedies = proxy.remedies();
    match remedies.hold_app {
        Some(hold) => {
            let native = match remedies.native_opt_in {
                Some(opt_in) if kubernetes.runs_native_sidecars() => {
                    format!("or run the proxy as a native sidecar (`{opt_in}`)")
                }
                _ => String::new(),
            };
            format!("{hold}{native}")
        }
        None => format!(
            "run `{}` as a native sidecar (an init container with `restartPolicy: Always` and a startupProbe), so the app starts once it is ready",
            proxy.name
        ),
    }
}

/// How a Job's work should stop this sidecar when it is done, on Kubernetes `kubernetes`.
pub fn stop_sidecar(sidecar: &PlannedContainer, kubernetes: KubeVersion) -> String {
    let native = if kubernetes.runs_native_sidecars() {
        "; or avoid the problem: the kubelet stops a native sidecar once the work is done"
    } else {
        ""
    };
    match sidecar.remedies().stop_after_work {
        Some(stop) => stop(native),
        None => format!(
            "make `{}` a native sidecar (move it to initContainers with `restartPolicy: Always`) so the kubelet stops it once the work is done",
            sidecar.name
        ),
    }
}

/// The requests an app finishes before it exits, when they (rather than its shutdown
/// time) decide its exit.
#[derive(Clone, Copy)]
pub struct PendingRequests<'a> {
    /// Until when the app takes requests: its signal or endpoint removal.
    admitted_until: Millis,
    /// The longest request, and where that length comes from.
    longest: &'a Sourced<Millis>,
}

impl<'a> PendingRequests<'a> {
    /// The requests that decide `entry`'s exit, when they do.
    pub fn of(plan: &'a PodPlan, entry: &StopEntry) -> Option<Self> {
        entry.requests_done?;
        Some(PendingRequests {
            admitted_until: entry.signal.min(plan.scenario.endpoint_propagation.value),
            longest: plan.scenario.longest_request.as_ref()?,
        })
    }
}

/// "finishing the requests it takes until 5 s, up to 60 s each (--longest-request)".
impl fmt::Display for PendingRequests<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "finishing the requests it takes until {}, up to {} each ({})",
            self.admitted_until, self.longest.value, self.longest.source
        )
    }
}

/// What a container's SIGTERM-to-exit time is called, for messages: "drain
/// (terminationDrainDuration 25 s)", "app shutdown 5 s (assumed; set app-shutdown)".
pub fn exit_description(container: &PlannedContainer) -> String {
    use crate::resolve::{ExitPolicy, Role};
    use crate::settings::Source;
    match &container.exit {
        ExitPolicy::After(length) => {
            // The sidecar's mesh names its own drain setting.
            let what = match container.sidecar() {
                Some(sidecar) => sidecar.kind.remedies().drain_setting.unwrap_or("shutdown"),
                None if container.role == Role::App => "app shutdown",
                None => "shutdown",
            };
            match &length.source {
                Source::Default if container.role == Role::App => {
                    format!("{what} {} (assumed; set app-shutdown)", length.value)
                }
                Source::Default => format!("{what} {} (default)", length.value),
                source => format!("{what} {} (from {source})", length.value),
            }
        }
        ExitPolicy::Immediately => "exits on the signal".to_owned(),
        ExitPolicy::WhenIdle { minimum, .. } => format!(
            "EXIT_ON_ZERO_ACTIVE_CONNECTIONS: waits MINIMUM_DRAIN_DURATION {} then until the app's connections close",
            minimum.value
        ),
        ExitPolicy::WhenRequestsDone { accepting, cap } => {
            let serving = if *accepting > crate::time::Millis::ZERO {
                format!("keeps serving for {accepting}, then ")
            } else {
                String::new()
            };
            match cap {
                Some(cap) => format!("{serving}lets requests finish, up to {}", cap.value),
                None => format!("{serving}lets requests finish, with no limit but SIGKILL"),
            }
        }
        ExitPolicy::WhenConnectionsClose { minimum, cap } if *minimum == Millis::ZERO => {
            format!("waits up to {cap} for the app's connections to close")
        }
        ExitPolicy::WhenConnectionsClose { minimum, cap } => format!(
            "accepts for {minimum} (--min-sigterm-delay), then waits up to {cap} for connections to close (--max-sigterm-delay)"
        ),
    }
}

/// A label on the grace period, or on the pod spec when it is left at its default.
pub fn grace_label(plan: &PodPlan) -> crate::rules::Label {
    use crate::rules::Label;
    if let Some(deletion) = &plan.deletion_grace_period {
        return Label::key(
            plan.grace_period_path(),
            format!(
                "deleted with a {} s grace period ({})",
                deletion.value, deletion.source
            ),
        );
    }
    if plan.grace_period.is_explicit() {
        Label::value(
            plan.grace_period_path(),
            format!("grace period {} s", plan.grace_period.value),
        )
    } else {
        Label::key(
            plan.pod_spec_path().clone(),
            format!(
                "terminationGracePeriodSeconds unset: {} s",
                plan.grace_period.value
            ),
        )
    }
}

/// A label on a container: its `name:` in the manifest, or what asks for its injection.
pub fn container_label(
    container: &PlannedContainer,
    text: impl Into<String>,
) -> crate::rules::Label {
    use crate::rules::Label;
    if is_in_manifest(container) {
        Label::value(container_label_path(container), text)
    } else {
        Label::key(container.finding_path().clone(), text)
    }
}

/// A label on where a setting came from when it is in the manifest.
pub fn source_label(
    source: &crate::settings::Source,
    text: impl Into<String>,
) -> Option<crate::rules::Label> {
    match source {
        crate::settings::Source::Manifest(path) => {
            Some(crate::rules::Label::value(path.clone(), text))
        }
        _ => None,
    }
}

/// How to keep a proxy alive `needed` longer, until the app has exited, on Kubernetes
/// `kubernetes`.
pub fn keep_proxy_until_app_exits(
    proxy: &PlannedContainer,
    kubernetes: KubeVersion,
    needed: Millis,
) -> String {
    let seconds = needed.0.div_euclid(1000) + i64::from(needed.0.rem_euclid(1000) > 0);
    let native = if kubernetes.runs_native_sidecars() {
        " — or run it as a native sidecar, which the kubelet stops only after the app"
    } else {
        ""
    };
    match proxy.remedies().outlive_app {
        Some(outlive) => format!("{}{native}", outlive(seconds)),
        None => format!(
            "make `{}` outlive the app (at least {seconds} s){native}",
            proxy.name
        ),
    }
}
