//! Wording and labels shared by several rules' violations. What a sidecar's own
//! settings offer comes from its mesh ([`crate::resolve::Remedies`]); this module only
//! words it.

use std::fmt;

use crate::fix::Remedy;
use crate::load::JsonPath;
use crate::resolve::mesh::{Displaced, Displacement, NativeSwitch, StatusOff, StopAfterWork};
use crate::resolve::{PlannedContainer, PodPlan};
use crate::settings::Sourced;
use crate::settings::version::KubeVersion;
use crate::simulate::StopEntry;
use crate::time::Millis;

/// Names in backticks, joined by `separator`: "`psql`, `report`".
pub fn quoted_list(names: &[String], separator: &str) -> String {
    names
        .iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(separator)
}

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

/// How to hold the app until this proxy is ready: its mesh's hold, as help and as the
/// fix, with the native sidecar where the versions in force make one that holds the app
/// (the same switch every native remedy names); else a native sidecar that does, where
/// the pod can ask for one; else the app's own wait for the proxy.
pub fn hold_app(proxy: &PlannedContainer, plan: &PodPlan) -> (String, Option<Remedy>) {
    if status_off_remedy(proxy).is_some() {
        return (wait_in_app(proxy), None);
    }
    let gated_switch = proxy.gated_native_switch();
    match proxy.remedies().hold_app {
        Some(hold) => {
            let advice = hold(&plan.paths.pod_metadata.key("annotations"));
            let native = match (gated_switch, proxy.gated_native_install()) {
                (Some(switch), _) => format!(
                    "or run the proxy as a native sidecar ({}{})",
                    spelled(switch),
                    and_also(switch)
                ),
                (None, Some(install)) => format!("or {}", install.help()),
                (None, None) => String::new(),
            };
            (format!("{}{native}", advice.help), Some(advice.fix))
        }
        None if plan.kubernetes.value.runs_native_sidecars() => {
            let how = match gated_switch {
                Some(switch) => format!(
                    "{} on the pod template, and its injector adds it with `restartPolicy: Always` and a startupProbe{}",
                    spelled(switch),
                    and_also(switch)
                ),
                // The injector builds the container: the pod cannot add the probe.
                None if proxy.is_injected() => return (wait_in_app(proxy), None),
                None => {
                    "an init container with `restartPolicy: Always` and a startupProbe".to_owned()
                }
            };
            (
                format!(
                    "run `{}` as a native sidecar ({how}), so the app starts once it is ready",
                    proxy.name
                ),
                None,
            )
        }
        None => (
            format!(
                "{} (native sidecars, whose startupProbe holds the app, need Kubernetes 1.29 or later; this is {})",
                wait_in_app(proxy),
                plan.kubernetes.value
            ),
            None,
        ),
    }
}

/// The app's own wait for `proxy`: its command polls the proxy's readiness (the
/// model's ready call, where it has one) before it starts the app; with why the mesh's
/// hold would not hold it (the pod turned the status port off), nor a native sidecar
/// where the injector adds one without a startupProbe.
pub fn wait_in_app(proxy: &PlannedContainer) -> String {
    // The hold concerns a classic proxy only: a native one is held by its startupProbe.
    let hold_fails = status_off_remedy(proxy)
        .filter(|_| !proxy.is_native_sidecar())
        .map(|off| off.hold_fails.to_owned());
    let ungated = proxy
        .native_switch
        .as_ref()
        .filter(|switch| !switch.gated)
        .map(|switch| {
            format!(
                "the native `{}` that {} asks for gets no startupProbe from its injector, and would not hold the app either",
                proxy.name,
                spelled(switch)
            )
        });
    let why_not: Vec<String> = hold_fails.into_iter().chain(ungated).collect();
    if why_not.is_empty() {
        app_waits(proxy)
    } else {
        format!("{} ({})", app_waits(proxy), why_not.join("; "))
    }
}

/// The app's command polls `proxy`'s readiness before it starts the app.
fn app_waits(proxy: &PlannedContainer) -> String {
    format!(
        "hold the app until `{}` is ready: in the app's command, {}, then start the app",
        proxy.name,
        ready_poll(proxy)
    )
}

/// How a command polls `proxy`'s readiness: the model's ready call, or the one that
/// still answers with the status port off.
pub fn ready_poll(proxy: &PlannedContainer) -> String {
    let ready_api = status_off_remedy(proxy)
        .map(|off| off.ready_api)
        .or(proxy.remedies().ready_api);
    match ready_api {
        Some(call) => format!("poll `{call}` until it succeeds"),
        None => "poll its readiness".to_owned(),
    }
}

/// What changes for a proxy whose status port the pod turns off, when it is one.
pub fn status_off_remedy(proxy: &PlannedContainer) -> Option<&'static StatusOff> {
    proxy.status_port_off.as_ref()?;
    proxy.remedies().status_off.as_ref()
}

/// How a Job's work should stop this sidecar when it is done: its model's stop call in
/// this pod, and the native sidecar the versions in force allow (the mesh's switch for
/// an injected proxy, a move to `initContainers` for a sidecar written in the
/// manifest); the same facts ML301's fixes use.
pub fn stop_sidecar(sidecar: &PlannedContainer, plan: &PodPlan) -> String {
    // A native sidecar without a startup probe still stops after the work, so help
    // offers it; ML301's fix does not, as its check would count the work starting before
    // the sidecar is ready (ML104) as new.
    let native_route = match sidecar.shaped_by() {
        Some(_) => sidecar.native_switch.is_some() || sidecar.native_install.is_some(),
        None => plan.kubernetes.value.runs_native_sidecars(),
    };
    let also = sidecar.native_switch.as_ref().and_then(also);
    let native = match (native_route, &also) {
        (false, _) => String::new(),
        (true, None) => {
            "; or avoid the problem: the kubelet stops a native sidecar once the work is done"
                .to_owned()
        }
        (true, Some(also)) => format!(
            "; or avoid the problem: the kubelet stops a native sidecar once the work is done ({also})"
        ),
    };
    let call = plan
        .stop_endpoints
        .iter()
        .find(|endpoint| endpoint.sidecar == sidecar.name)
        .map(|endpoint| endpoint.call.as_str());
    let stop = StopAfterWork {
        call,
        native_switch: sidecar.native_switch.as_ref(),
        native_install: sidecar.native_install.as_ref(),
        native: &native,
        shares_pids: plan.share_process_namespace,
    };
    match (sidecar.remedies().stop_after_work, &sidecar.native_switch) {
        (Some(stop_after_work), _) => stop_after_work(&stop),
        (None, Some(switch)) => format!(
            "run `{}` as a native sidecar ({} on the pod template{}), so the kubelet stops it once the work is done",
            sidecar.name,
            spelled(switch),
            and_also(switch)
        ),
        (None, None) if native_route => match &sidecar.native_install {
            Some(install) => format!(
                "{}, so the kubelet stops `{}` once the work is done",
                install.help(),
                sidecar.name
            ),
            None => format!(
                "make `{}` a native sidecar (move it to initContainers with `restartPolicy: Always`) so the kubelet stops it once the work is done",
                sidecar.name
            ),
        },
        (None, None) => format!(
            "make `{}` exit once the work is done: a stop call or a signal from the work, or its command waiting for a file the work leaves{}",
            sidecar.name,
            if plan.kubernetes.value.runs_native_sidecars() {
                String::new()
            } else {
                format!(
                    " (native sidecars, which the kubelet stops after the work, need Kubernetes 1.29 or later; this is {})",
                    plan.kubernetes.value
                )
            }
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

/// How to give a pod's containers `seconds` before SIGKILL: the pod's
/// `terminationGracePeriodSeconds`, or, when a deletion's own grace period is simulated
/// (`--deletion-grace-period`, `deletionGracePeriodSeconds`), which overrides the pod's,
/// that deletion's.
pub fn longer_grace(plan: &PodPlan, seconds: i64) -> String {
    match &plan.deletion_grace_period {
        Some(_) => format!(
            "delete with a grace period of at least {seconds} s (`kubectl delete --grace-period`)"
        ),
        None => format!("raise `terminationGracePeriodSeconds` to at least {seconds}"),
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
/// `kubernetes`: `own`, its model's setting at the value computed for the pod
/// ([`super::stay`]), when it has one.
pub fn keep_proxy_until_app_exits(
    proxy: &PlannedContainer,
    kubernetes: KubeVersion,
    needed: Millis,
    own: Option<String>,
) -> String {
    let seconds = needed.0.div_euclid(1000) + i64::from(needed.0.rem_euclid(1000) > 0);
    // An injected proxy is made native by its mesh's switch or its installation's, named
    // where it has one; else the pod cannot make it native.
    let native = match (&proxy.native_switch, &proxy.native_install) {
        _ if !kubernetes.runs_native_sidecars() => String::new(),
        (Some(switch), _) => format!(
            "or run it as a native sidecar ({}{}), which the kubelet stops only after the app",
            spelled(switch),
            and_also(switch)
        ),
        (None, Some(install)) => format!(
            "or {}, which the kubelet stops only after the app",
            install.help()
        ),
        (None, None) if proxy.is_injected() => String::new(),
        (None, None) => {
            "or run it as a native sidecar, which the kubelet stops only after the app".to_owned()
        }
    };
    match own {
        Some(own) if native.is_empty() => own.trim_end().to_owned(),
        // A snippet ends the help's first answer: the other goes on its own line.
        Some(own) => format!("{}\n{native}", own.trim_end()),
        None if native.is_empty() => {
            format!(
                "make `{}` outlive the app (at least {seconds} s)",
                proxy.name
            )
        }
        None => format!(
            "make `{}` outlive the app (at least {seconds} s) — {native}",
            proxy.name
        ),
    }
}

/// `proxy` run as a native sidecar that starts before the pod's own init containers,
/// and holds them until it is ready, as a clause: for an injected proxy only through
/// its mesh's switch, where the injector puts the native sidecar before them (Consul
/// and Dapr append it after) with a startupProbe (none with Linkerd's await off), or
/// its installation's.
pub fn native_before_inits(proxy: &PlannedContainer) -> Option<String> {
    if !proxy.is_injected() {
        return Some(format!(
            "run `{}` as a native sidecar that starts before this init container",
            proxy.name
        ));
    }
    // A proxy has a native install only where it has no switch.
    match (proxy.gated_native_switch(), proxy.gated_native_install()) {
        (Some(switch), _) if switch.leads_inits => Some(format!(
            "run `{}` as a native sidecar, which starts before this init container ({}{})",
            proxy.name,
            spelled(switch),
            and_also(switch)
        )),
        (None, Some(install)) => Some(format!(
            "{}, so that the proxy starts before this init container",
            install.help()
        )),
        _ => None,
    }
}

/// The switch as help writes it: `` `annotation: "value"` ``.
fn spelled(switch: &NativeSwitch) -> String {
    format!("`{}: \"{}\"`", switch.annotation, switch.value)
}

/// [`also`] as a clause that follows the switch (`"; …"`), or nothing.
fn and_also(switch: &NativeSwitch) -> String {
    also(switch)
        .map(|also| format!("; {also}"))
        .unwrap_or_default()
}

/// What else turning `switch` on asks: the release that reads it, where the resolver
/// cannot tell, and the setting of the pod to remove or set with it, and why, as help
/// says it.
fn also(switch: &NativeSwitch) -> Option<String> {
    let needs = switch
        .needs
        .map(|release| format!("needs {release} or later"));
    let displaced = switch.displaces.as_ref().map(|displaced| {
        let change = match displaced.value {
            None => format!("remove `{}`", displaced.key()),
            Some(value) => format!("set `{}: \"{value}\"`", displaced.key()),
        };
        format!("{change} with it: {}", displacement(displaced))
    });
    let clauses: Vec<String> = needs.into_iter().chain(displaced).collect();
    (!clauses.is_empty()).then(|| clauses.join("; "))
}

/// Why `displaced` goes with the native switch, in a clause.
pub fn displacement(displaced: &Displaced) -> String {
    match &displaced.because {
        Displacement::IgnoredWhenNative => {
            "native mode ignores it, as the proxy's startup probe holds the app".to_owned()
        }
        Displacement::DeniedBy(release) => {
            let product = release.product();
            format!("{product} {release}'s injector denies a native proxy beside it")
        }
        Displacement::DroppedOrDenied => {
            "native mode drops it, and some releases deny a native proxy beside it".to_owned()
        }
        Displacement::WaitsAfterApps => {
            "a native sidecar is signalled only after the apps, and would still wait this out, past the grace period"
                .to_owned()
        }
    }
}
