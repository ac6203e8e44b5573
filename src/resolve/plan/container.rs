//! One container as it will run: where it comes from, its probes, its start gate, what
//! it does after its stop signal and when traffic through it stops.

use super::{ContainerList, GateRequest, Hook, InitRun, Role, SelfStop, Sidecar, SidecarStop};
use crate::load::JsonPath;
use crate::resolve::Remedies;
use crate::resolve::mesh::{InstallSwitch, NativeSwitch};
use crate::settings::{Source, Sourced};
use crate::time::Millis;

/// Whether a container is written in the manifest or added by an injector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Provenance {
    /// In the manifest at this path.
    Manifest(JsonPath),
    /// Added by a mesh injector at admission; `trigger` is what asks for it (a label,
    /// an annotation, or the pod metadata when a namespace asks).
    Injected {
        /// The mesh whose injector adds it.
        by: crate::resolve::Mesh,
        /// What asks for the injection.
        trigger: JsonPath,
        /// The pod settings that shaped it, for findings about those aspects.
        shaped_by: ShapedBy,
    },
}

/// The pod settings that decided how an injected sidecar looks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShapedBy {
    /// The setting that made it a native sidecar (`sidecar.istio.io/nativeSidecar`).
    pub native: Option<JsonPath>,
    /// The setting that left it without a start-up gate
    /// (`config.linkerd.io/proxy-await: disabled`).
    pub no_startup_gate: Option<JsonPath>,
}

/// One container as it will run.
#[derive(Clone, Debug)]
pub struct PlannedContainer {
    /// The container name.
    pub name: String,
    /// Position in its list after injection.
    pub index: usize,
    /// Written in the manifest, or added by an injector.
    pub provenance: Provenance,
    /// What the container is for and how the kubelet runs it.
    pub role: Role,
    /// The image, when known.
    pub image: Option<String>,
    /// Its postStart hook: it blocks the next container until it returns (§1.1).
    pub post_start: Option<Hook>,
    /// Its preStop hook: it runs from T0 and counts against the grace period (§2.2).
    pub pre_stop: Option<Hook>,
    /// Its startup probe: for a native sidecar, it holds the next container (§1.2).
    pub startup_probe: Option<ProbeTiming>,
    /// When the kubelet first counts it ready; `None` means no probe (ready at once).
    pub readiness_probe: Option<ProbeTiming>,
    /// The check its readinessProbe makes as written (its `httpGet`, `tcpSocket`,
    /// `exec` or `grpc`), for a startupProbe that asks the same.
    pub readiness_check: Option<serde_json::Value>,
    /// Whether the container declares that it serves: ports or a readiness probe (a
    /// Service may send it requests too: [`PlannedContainer::serves`]).
    pub declares_serving: bool,
    /// The Service of the input that selects the pod on a port this container, which
    /// declares none, is taken to listen on.
    pub served_by: Option<ServedBy>,
    /// The app's own command waits for a proxy before starting its real process.
    pub start_gate: Option<StartGate>,
    /// Process start to ready (sidecars) or to first network use (apps).
    pub startup: Millis,
    /// How long it runs before exiting on its own (init containers, Job work); `None`
    /// for containers that run until stopped.
    pub runs_for: Option<Millis>,
    /// What it does after the stop signal.
    pub exit: ExitPolicy,
    /// For proxies: when traffic through it stops working.
    pub traffic: Option<TrafficCuts>,
    /// For a sidecar that proxies none of the pod's own traffic (Dapr's daprd): the
    /// ports on which it serves requests from outside the pod, and the input's Service
    /// that sends requests to one of them, when one does. `None` for a proxy that
    /// carries the pod's inbound traffic whatever port it arrives on.
    pub own_inbound: Option<crate::resolve::traffic::OwnInbound>,
    /// In a Job, how this work container stops the sidecars when it is done.
    pub sidecar_stops: Vec<SidecarStop>,
    /// For proxies: the setting that asks the app to wait for this proxy
    /// (`holdApplicationUntilProxyStarts`, `proxy-await`), if any.
    pub gate_request: Option<GateRequest>,
    /// The startup probe's own `terminationGracePeriodSeconds`: a kill the probe causes
    /// uses it instead of the pod's (docs/lifecycle.md §1.3).
    pub probe_grace: Option<i64>,
    /// The first command of an init container that uses the network.
    pub network_use: Option<NetworkUse>,
    /// What it is seen to do on the network: call out, serve, idle (none known for a
    /// container an injector adds).
    pub network: crate::resolve::traffic::Traffic,
    /// The UID the container runs as, from its own or the pod's security context.
    pub run_as_user: Option<i64>,
    /// The image most likely has no shell or `sleep` (distroless, static).
    pub missing_tools: crate::resolve::images::MissingTools,
    /// The exit code when stopped by a signal (143 for the Cloud SQL proxy unless
    /// `--exit-zero-on-sigterm`); a non-zero code fails a Job pod (docs/lifecycle.md
    /// §2.6, §7 F4).
    pub exit_code_on_signal: i32,
    /// In a Job, the signal from the work this sidecar waits for before it exits.
    pub self_stop: Option<SelfStop>,
    /// PID 1 is a shell that drops the stop signal: the container runs until SIGKILL
    /// (docs/lifecycle.md §2.7).
    pub dropped_signal: Option<crate::resolve::stop_signal::DroppedSignal>,
    /// In a Job, the container does no work of its own: its command only waits for the
    /// work to end and stops the sidecars (docs/lifecycle.md §2.8).
    pub only_stops: bool,
    /// Its command only waits (`sleep infinity`, `tail -f /dev/null`, a loop of
    /// `sleep`): it has no work, and no shutdown, of its own.
    pub only_idles: bool,
    /// How long its command sleeps before it runs anything else (`sleep 20 && psql
    /// …`): its first call out comes that long after it starts.
    pub call_delay: Millis,
    /// A regular container's own `restartPolicy: Always`, which this Kubernetes honours
    /// (`ContainerRestartRules`, on from 1.35): the kubelet restarts it in place after
    /// every exit, whatever the pod's policy, and it is no sidecar. Where it is set.
    /// docs/lifecycle.md §2.9.
    pub restart_in_place: Option<JsonPath>,
    /// For a classic mesh proxy, the pod annotation that has its injector add it as a
    /// native sidecar, where the mesh's and the cluster's versions both run native
    /// sidecars: what every remedy that makes it native says.
    pub native_switch: Option<NativeSwitch>,
    /// For a classic mesh proxy without a [`native_switch`](Self::native_switch) (its
    /// release reads none), the installation's setting that makes it native, where
    /// the cluster runs native sidecars.
    pub native_install: Option<InstallSwitch>,
    /// For a proxy, the pod setting that turned off its agent's status port, which its
    /// probes and its mesh's hold poll (`status.sidecar.istio.io/port: "0"`).
    pub status_port_off: Option<JsonPath>,
    /// For an injected proxy, the mesh-wide setting that leaves out the startupProbe its
    /// injector would add (Istio's Helm `global.proxy.startupProbe.enabled: false`):
    /// where it is set.
    pub startup_probe_off: Option<Source>,
}

impl PlannedContainer {
    /// A container an injector adds, with no hooks or probes yet: it exits at once on
    /// its signal and carries no traffic until the caller says otherwise.
    pub fn injected(name: &str, by: crate::resolve::Mesh, trigger: JsonPath, role: Role) -> Self {
        PlannedContainer {
            name: name.to_owned(),
            index: 0,
            provenance: Provenance::Injected {
                by,
                trigger,
                shaped_by: ShapedBy::default(),
            },
            image: None,
            post_start: None,
            pre_stop: None,
            startup_probe: None,
            readiness_probe: None,
            readiness_check: None,
            declares_serving: false,
            served_by: None,
            start_gate: None,
            startup: Millis::ZERO,
            runs_for: None,
            exit: ExitPolicy::Immediately,
            traffic: None,
            own_inbound: None,
            sidecar_stops: Vec::new(),
            gate_request: None,
            probe_grace: None,
            exit_code_on_signal: 0,
            self_stop: None,
            dropped_signal: None,
            only_stops: false,
            only_idles: false,
            call_delay: Millis::ZERO,
            native_switch: None,
            native_install: None,
            status_port_off: None,
            startup_probe_off: None,
            network_use: None,
            network: Default::default(),
            run_as_user: None,
            missing_tools: Default::default(),
            restart_in_place: None,
            role,
        }
    }

    /// What the container's own settings offer against each hazard (none for apps):
    /// for a proxy written in the manifest, only what still works once its injector
    /// has run.
    pub fn remedies(&self) -> &'static Remedies {
        let Some(sidecar) = self.sidecar() else {
            return &Remedies::NONE;
        };
        sidecar.kind.model().map_or(&Remedies::NONE, |model| {
            model.remedies(self.manifest_path().is_some())
        })
    }

    /// Whether the container serves requests: it declares ports or a readiness probe,
    /// or a Service of the input selects its pod.
    pub fn serves(&self) -> bool {
        self.declares_serving || self.served_by.is_some()
    }

    /// The list the container is in.
    pub fn list(&self) -> ContainerList {
        self.role.list()
    }

    /// Whether the kubelet runs it as a native sidecar.
    pub fn is_native_sidecar(&self) -> bool {
        matches!(self.role, Role::NativeSidecar(_))
    }

    /// Whether the manifest gives it `restartPolicy: Always` (honoured or not).
    pub fn restart_always(&self) -> bool {
        self.is_native_sidecar() || self.role.init_run() == Some(InitRun::NeverExits)
    }

    /// The sidecar traits, when this container is one.
    pub fn sidecar(&self) -> Option<&Sidecar> {
        self.role.sidecar()
    }

    /// Whether this container is a sidecar that carries traffic.
    pub fn is_proxy(&self) -> bool {
        self.sidecar().is_some_and(|s| s.carries_traffic)
    }

    /// Where findings about this container point.
    pub fn finding_path(&self) -> &JsonPath {
        match &self.provenance {
            Provenance::Manifest(path) => path,
            Provenance::Injected { trigger, .. } => trigger,
        }
    }

    /// For an injected sidecar, the pod settings that shaped it.
    pub fn shaped_by(&self) -> Option<&ShapedBy> {
        match &self.provenance {
            Provenance::Injected { shaped_by, .. } => Some(shaped_by),
            Provenance::Manifest(_) => None,
        }
    }

    /// This injected sidecar, with the pod settings that shaped it recorded.
    pub fn shaped(mut self, settings: ShapedBy) -> Self {
        if let Provenance::Injected { shaped_by, .. } = &mut self.provenance {
            *shaped_by = settings;
        }
        self
    }

    /// The container's path in the manifest, when it is written there.
    pub fn manifest_path(&self) -> Option<&JsonPath> {
        match &self.provenance {
            Provenance::Manifest(path) => Some(path),
            Provenance::Injected { .. } => None,
        }
    }

    /// Whether an injector adds it (it is not in the manifest).
    pub fn is_injected(&self) -> bool {
        matches!(self.provenance, Provenance::Injected { .. })
    }

    /// Its [`native_switch`](Self::native_switch) where the native sidecar that asks
    /// for has a startup probe, and so holds the apps until it is ready.
    pub fn gated_native_switch(&self) -> Option<&NativeSwitch> {
        self.native_switch.as_ref().filter(|switch| switch.gated)
    }

    /// Its [`native_install`](Self::native_install) where the native proxy it makes
    /// has a startup probe.
    pub fn gated_native_install(&self) -> Option<&InstallSwitch> {
        self.native_install.as_ref().filter(|install| install.gated)
    }
}

/// A Service of the input that sends a container requests although it declares no
/// port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServedBy {
    /// `namespace/name` of the Service.
    pub service: String,
    /// The numeric `targetPort` the container is taken to listen on.
    pub target_port: i32,
    /// The file the Service is in.
    pub source: Source,
}

/// A startup probe's timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeTiming {
    /// `initialDelaySeconds`.
    pub initial_delay: Millis,
    /// `periodSeconds`.
    pub period: Millis,
    /// `failureThreshold`: failures in a row before the kubelet gives up.
    pub failure_threshold: i64,
}

/// The app's own command waits for a proxy to be ready before starting its process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartGate {
    /// Where the waiting command is.
    pub path: JsonPath,
    /// What it waits on.
    pub waits: crate::resolve::shell::GateWait,
}

/// What a container does between its stop signal and its exit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExitPolicy {
    /// Exits this long after the signal (app shutdown, a fixed drain).
    After(Sourced<Millis>),
    /// Exits as soon as it gets the signal.
    Immediately,
    /// Istio `EXIT_ON_ZERO_ACTIVE_CONNECTIONS`: waits `minimum`, then polls every
    /// `poll` and exits once the app's connections are gone. No upper bound but SIGKILL.
    WhenIdle {
        /// `MINIMUM_DRAIN_DURATION`: the wait before the first poll.
        minimum: Sourced<Millis>,
        /// How often the connections are polled (1 s, not configurable).
        poll: Millis,
    },
    /// Keeps serving for `accepting` after the signal, then refuses new connections
    /// and exits when in-flight requests are done, at most `cap` later (Linkerd's
    /// proxy; Dapr's `daprd`).
    WhenRequestsDone {
        /// How long it keeps serving after the signal (Dapr's
        /// `block-shutdown-duration`; 0 for Linkerd).
        accepting: Millis,
        /// The shutdown grace period that ends the wait; `None`: no limit but SIGKILL.
        cap: Option<Sourced<Millis>>,
    },
    /// Cloud SQL Auth Proxy: keeps accepting for `minimum` (`--min-sigterm-delay`),
    /// then waits for the app's connections to close, which pooled connections do when
    /// the app exits, at most `cap` more (`--max-sigterm-delay`).
    WhenConnectionsClose {
        /// The wait before the proxy stops accepting.
        minimum: Millis,
        /// The longest wait for open connections after that.
        cap: Millis,
    },
}

/// When a proxy stops carrying traffic, relative to its own events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrafficCuts {
    /// New inbound connections are refused from this moment.
    pub inbound_refused: Cut,
    /// Existing inbound connections are told to go away (GOAWAY, `Connection: close`).
    pub inbound_drained: Cut,
    /// The app's new outbound calls fail from this moment.
    pub outbound_refused: Cut,
}

/// A moment in a container's termination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// When its preStop hook starts (T0).
    PreStop,
    /// When it gets the stop signal.
    Signal,
    /// This long after the stop signal (Envoy stops accepting once `drainDuration` ends).
    AfterSignal(Millis),
    /// When it exits.
    Exit,
    /// Never: the proxy does not carry this traffic (Istio's `interceptionMode: NONE`
    /// leaves inbound alone).
    Never,
}

/// An init container's call out of the pod, which needs a proxy that is running when
/// the pod's traffic is redirected to one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkUse {
    /// The `command` or `args` that makes the call.
    pub path: JsonPath,
    /// The command, as written.
    pub call: String,
    /// The destination ports the command shows; empty when it shows none.
    pub ports: Vec<u16>,
    /// Why the redirection lets this call through, when it does.
    pub bypass: Option<Bypass>,
}

/// Why a proxy's traffic redirection lets an init container's call through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bypass {
    /// The container runs as the proxy's own user, whose traffic is not redirected.
    ProxyUser {
        /// The proxy's UID.
        uid: i64,
    },
    /// A pod annotation excludes every port the call uses.
    ExcludedPorts {
        /// The annotation (`traffic.sidecar.istio.io/excludeOutboundPorts`).
        annotation: &'static str,
    },
}
