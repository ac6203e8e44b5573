//! A lifecycle hook: what it runs, how long it lasts and what it does to traffic.

use crate::load::JsonPath;
use crate::time::Millis;

/// A lifecycle hook and how long it lasts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hook {
    /// The hook in the manifest (`...lifecycle.preStop`); `None` when injected.
    pub path: Option<JsonPath>,
    /// For an injected hook, the setting that asks the injector for it (Linkerd's
    /// `proxy-wait-before-exit-seconds` annotation).
    pub asked_by: Option<JsonPath>,
    /// What the hook runs.
    pub action: HookAction,
    /// How long it lasts, as far as the simulation is concerned.
    pub duration: HookDuration,
    /// Side effect that matters to traffic.
    pub effect: HookEffect,
    /// For an injected hook, the mesh setting its injector renders it from (Linkerd's
    /// `proxy-wait-before-exit-seconds`).
    pub rendered_from: Option<&'static str>,
}

impl Hook {
    /// Where a finding about the hook points: the hook in the manifest, or the setting
    /// that asked the injector for it.
    pub fn finding_path(&self) -> Option<&JsonPath> {
        self.path.as_ref().or(self.asked_by.as_ref())
    }

    /// The program a manifest exec hook runs, which the image must have (`sh`).
    pub fn missing_program(&self, missing: crate::resolve::images::MissingTools) -> Option<&str> {
        let HookAction::Exec(argv) = &self.action else {
            return None;
        };
        self.path.as_ref()?;
        let program = crate::resolve::shell::basename(argv.first()?);
        missing.lacks(program).then_some(program)
    }
}

/// The handler of a hook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HookAction {
    /// Runs a command in the container.
    Exec(Vec<String>),
    /// Sends an HTTP GET to the container.
    HttpGet {
        /// The port, by number or name.
        port: String,
        /// The request path.
        path: String,
    },
    /// Opens a TCP connection.
    TcpSocket,
    /// The kubelet's own `sleep` action, in seconds.
    Sleep(i64),
}

/// How long a hook lasts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HookDuration {
    /// A known length (`sleep 10`).
    Fixed(Millis),
    /// Until this container is ready, polled every `poll`, or the timeout (`pilot-agent
    /// wait` polls every 500 ms for 60 s; `linkerd-await` every second for 2 min).
    UntilReady {
        /// When the hook gives up (and the kubelet kills the container).
        timeout: Millis,
        /// How often readiness is polled.
        poll: Millis,
        /// What it polls is not served in this pod (Istio's `pilot-agent wait` with
        /// the status port turned off): it never finds the container ready, and fails
        /// at its timeout.
        unanswered: bool,
    },
    /// Until the app containers have exited (a loop on their connections or processes).
    UntilAppsExit,
    /// The hook stops this container's own process and waits for it
    /// (`nginx -s quit; while killall -0 nginx; do sleep 1; done`).
    UntilSelfExits,
    /// Unknown length, taken as short (0 s) with the assumption printed.
    Unknown,
}

impl HookDuration {
    /// The length that stands for a hook that never returns (`sleep infinity`, a loop
    /// nothing in it ends): longer than any grace period, so the kubelet always stops
    /// waiting for it.
    pub const NEVER_RETURNS: Millis = Millis::secs(u32::MAX as i64);

    /// A wait for readiness that nothing answers, so it fails at its timeout.
    pub fn is_unanswered(&self) -> bool {
        matches!(
            self,
            HookDuration::UntilReady {
                unanswered: true,
                ..
            }
        )
    }
}

/// What a hook does to traffic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookEffect {
    /// Nothing that changes traffic.
    None,
    /// Starts draining inbound connections (Istio native `pilot-agent request POST drain`).
    DrainsInbound,
    /// Answers once a sidecar has drained (Knative's queue-proxy's wait-for-drain
    /// endpoint, which the user container's preStop calls).
    AwaitsDrain {
        /// The sidecar, as messages name it (`Knative's queue-proxy`).
        of: &'static str,
        /// The drain's quiet period: it ends once no request has come for this long,
        /// so it answers this long after the last request, no sooner.
        quiet: Millis,
    },
    /// A hook written to start the drain that ends at once without starting it, so the
    /// sidecar drains on its stop signal instead.
    MissesDrain(DrainMiss),
}

/// Why a drain hook starts no drain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrainMiss {
    /// The program refuses the port it is told to call before making any request, and
    /// the hook fails (`port`: `None` when it is not a number).
    PortRefused {
        /// The port the hook names.
        port: Option<i64>,
        /// The only ports the program calls.
        accepted: &'static [u16],
    },
    /// The request goes to a port where no drain is served.
    NotServedThere {
        /// The port the hook calls.
        port: u16,
        /// Where the drain is served; 0 when nowhere.
        served_on: u16,
    },
}
