//! The models' own words: what a sidecar's settings offer against each hazard, and the
//! explanations of its quirks a rule's message needs. The only prose under `resolve`:
//! each model fills its [`Remedies`] in its `remedies.rs`, and the rules word their
//! findings with them.

use super::{InstallSwitch, NativeSwitch};
use crate::fix::Remedy;
use crate::load::JsonPath;

/// What a sidecar's own settings offer against each hazard: the model's own words. A
/// remedy `lint --fix` can make is built with its help by one function from the same
/// setting ([`Advice`]), so the two cannot disagree. A `None` means the sidecar has no
/// setting of its own for it; the rule then gives the generic Kubernetes fix.
#[derive(Debug, Default)]
pub struct Remedies {
    /// Holds the app until the proxy is ready: the setting on the pod template that its
    /// injector reads (`annotations`: the pod template's annotations).
    pub hold_app: Option<fn(annotations: &JsonPath) -> Advice>,
    /// The postStart command (flow-style argv) that the injector writes on the proxy,
    /// first in `containers`, when the hold is on: what a proxy written in the
    /// manifest needs for the same hold.
    pub hold_hook: Option<&'static str>,
    /// Why a gate is asked for but the proxy has no postStart that waits.
    pub missing_gate_cause: Option<&'static str>,
    /// Puts the waiting postStart back when the gate is asked for but missing.
    pub restore_gate: Option<&'static str>,
    /// How a Job's work stops the sidecar when it is done, keeping its exit status.
    pub stop_after_work: Option<fn(&StopAfterWork) -> String>,
    /// The stop call that works when the one written does not.
    pub working_stop_call: Option<&'static str>,
    /// The sidecar's own stop API, to use instead of a signal.
    pub stop_api: Option<&'static str>,
    /// The call that answers once the sidecar is ready, for an app's command to poll
    /// where nothing holds the app for it (Dapr's `/v1.0/healthz/outbound`, which the
    /// Dapr SDKs' wait for the sidecar polls).
    pub ready_api: Option<&'static str>,
    /// The one setting that keeps the sidecar carrying the pod's traffic later into
    /// termination: past the app's exit, past endpoint removal. A rule computes its
    /// value once, from the timeline, for every hazard it clears.
    pub stay: Option<Stay>,
    /// Lets an init container's call out of the pod bypass the proxy.
    pub bypass_for_init: Option<fn() -> String>,
    /// The sidecar's own setting for how long it drains after its stop signal
    /// (`terminationDrainDuration`), the one to change when the drain is at fault.
    pub drain_setting: Option<&'static str>,
    /// Why the sidecar has no stop call, for a call written for it (Cloud SQL proxy
    /// v1: no quit endpoint, only a signal stops it); `command`: the call is its
    /// command rather than its endpoint.
    pub no_stop_call: Option<fn(command: bool) -> String>,
    /// The command that stops the sidecar from inside its container (a JSON argv), for
    /// a controller that execs one in it (Argo's `kill-cmd` annotation).
    pub kill_command: Option<&'static str>,
    /// What changes where the pod turns off the proxy's status port
    /// ([`PlannedContainer::status_off`](crate::resolve::PlannedContainer)).
    pub status_off: Option<StatusOff>,
}

/// A proxy whose status port the pod turns off: its readiness endpoints, and the hold
/// that polls them, answer nothing.
#[derive(Debug)]
pub struct StatusOff {
    /// The setting as written on the pod template (`status.sidecar.istio.io/port: "0"`).
    pub setting: &'static str,
    /// Why the mesh's hold cannot hold the app then.
    pub hold_fails: &'static str,
    /// The pod's own setting that turns the hold off, wherever it was turned on.
    pub hold_off: &'static str,
    /// The call that still answers once the proxy is ready, for the app to poll
    /// instead of [`Remedies::ready_api`].
    pub ready_api: &'static str,
}

impl Remedies {
    /// No remedies: a sidecar the resolver knows nothing specific about.
    pub const NONE: Remedies = Remedies {
        hold_app: None,
        hold_hook: None,
        missing_gate_cause: None,
        restore_gate: None,
        stop_after_work: None,
        working_stop_call: None,
        stop_api: None,
        ready_api: None,
        stay: None,
        bypass_for_init: None,
        drain_setting: None,
        no_stop_call: None,
        kill_command: None,
        status_off: None,
    };
}

/// A remedy in both its forms, built together from the same setting: the words of the
/// help, and the change `lint --fix` makes.
#[derive(Clone, Debug)]
pub struct Advice {
    /// The help: what to change, with a YAML snippet.
    pub help: String,
    /// The change, as the fix engine makes it.
    pub fix: Remedy,
}

/// What a remedy that stops a Job's sidecar weaves in, for the versions in force.
#[derive(Clone, Copy, Debug)]
pub struct StopAfterWork<'a> {
    /// The call that stops the sidecar in this pod, when one works
    /// (pilot-agent's `/quitquitquit` on the status port in use).
    pub call: Option<&'a str>,
    /// The annotation that has the injector add the sidecar natively, when the
    /// versions in force read one.
    pub native_switch: Option<&'a NativeSwitch>,
    /// The installation's switch to native sidecars, where the release reads no
    /// annotation for it.
    pub native_install: Option<&'a InstallSwitch>,
    /// The clause that offers a native sidecar instead, empty where the sidecar cannot
    /// be one.
    pub native: &'a str,
    /// The pod already shares its process namespace, so the work can signal the
    /// sidecar.
    pub shares_pids: bool,
}

impl StopAfterWork<'_> {
    /// `call` as the EXIT trap of the work's script, which stops `sidecar` ("the
    /// proxy") on every path out of the work and keeps its exit status, with the native
    /// switch after it where the pod can ask for one, or the installation's.
    pub fn trapped(&self, sidecar: &str, call: &str) -> String {
        let native = match (self.native_switch, self.native_install) {
            (Some(switch), _) => format!(
                "\n(or `{}: \"{}\"` on the pod template{})",
                switch.annotation, switch.value, self.native
            ),
            (None, Some(install)) => format!("\n(or {}{})", install.help(), self.native),
            (None, None) => String::new(),
        };
        format!(
            "stop {sidecar} when the work ends, keeping the work's exit status:\n  command: [\"/bin/sh\", \"-c\"]\n  args:\n  - |\n    trap '{call}' EXIT\n    ./your-work   # not `exec`: the trap must outlive it{native}"
        )
    }
}

/// A setting that makes a sidecar carry traffic longer after termination starts (a
/// wait before its stop signal, a drain after it), and what the timeline says it
/// moves, so that a rule can compute the one value that clears every hazard it can.
#[derive(Clone, Copy, Debug)]
pub struct Stay {
    /// Where on the sidecar's stop the setting's value is measured.
    pub measures: Measure,
    /// Whether it also moves when new inbound connections are refused (not only the
    /// app's outbound calls).
    pub inbound: bool,
    /// Whether the setting still applies to a sidecar its injector adds natively. Not
    /// Linkerd's wait before exit: 2.15 to 2.19 deny such a pod, 2.20 ignores the wait.
    pub when_injected_native: bool,
    /// The setting at a value, as help and, where the pod's text can say it, as a fix.
    pub at: fn(&StayAt) -> Suggestion,
}

/// Where on the sidecar's stop a [`Stay`] setting's value is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// From termination's start to the stop signal: a wait before the signal (a preStop
    /// sleep); every cut that follows the signal moves with it.
    UntilSignal,
    /// From the stop signal to the cut it moves: a drain or delay after the signal.
    AfterSignal,
}

/// A [`Stay`] setting at one value, for one pod.
#[derive(Clone, Copy, Debug)]
pub struct StayAt<'a> {
    /// The value, whole seconds.
    pub seconds: i64,
    /// The pod template's annotations.
    pub annotations: &'a JsonPath,
    /// The sidecar's container in the manifest, when it is written there (an
    /// injector's output: the injector no longer reads the pod's annotations).
    pub written: Option<&'a JsonPath>,
}

/// A remedy's help, and the change `lint --fix` makes when the text can say it.
#[derive(Clone, Debug)]
pub struct Suggestion {
    /// The help: what to change, with a YAML snippet.
    pub help: String,
    /// The change, as the fix engine makes it.
    pub fix: Option<Remedy>,
}
