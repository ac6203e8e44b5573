//! How a Job's work stops its sidecars: the calls, whom they reach, and why one cannot
//! work.

use super::{PlannedContainer, SidecarKind};
use crate::load::JsonPath;
use crate::resolve::mesh::{cloud_sql, dapr, istio, linkerd};
use crate::settings::Source;

/// A way a Job's work container stops a sidecar when the work is done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SidecarStop {
    /// The command or script the call is in.
    pub path: JsonPath,
    /// How the call addresses the sidecar.
    pub method: StopMethod,
    /// How the work's exit status survives the stop call.
    pub status: ExitStatus,
    /// The call as written in the script (`curl -X POST localhost:15020/quitquitquit`),
    /// which findings quote.
    pub written: String,
    /// Whether it can work, and if not, why.
    pub effective: Result<(), StopFailure>,
    /// The sidecar exits as soon as the call reaches it, skipping the drain it does on
    /// SIGTERM (pilot-agent's `/quitquitquit` disables draining).
    pub exits_at_once: bool,
    /// Where the call is written in an `sh -c` script, when a fix can take it from
    /// there (a pipeline of its own at the script's top level).
    pub script: Option<ScriptCall>,
}

/// A stop call's place in the script that holds it. Offsets are in the script as the
/// manifest's string decodes, not in the file: a fix rewrites the whole string, which
/// the editor writes back in the scalar's own style (a `|` block stays one, quotes stay
/// quotes), so escapes and folded lines need no mapping back to file bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptCall {
    /// The `command` or `args` item that holds the script.
    pub item: JsonPath,
    /// The script.
    pub script: String,
    /// The call's bytes in it.
    pub call: std::ops::Range<usize>,
}

/// A call a Job's work could make to stop a classic mesh proxy in `containers`, judged
/// as a written call would be: it reaches the proxy and works in this setup (Istio's
/// `/quitquitquit` on the status port in use; Linkerd's `/shutdown` only where it is
/// enabled).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopEndpoint {
    /// The proxy.
    pub sidecar: String,
    /// The call, as a shell command (`curl -fsS -X POST http://localhost:15020/quitquitquit`).
    pub call: String,
    /// The work's `sh -c` script, where the call can be set as an EXIT trap: the pod has
    /// one work container, its command is such a script, and the script runs `curl`
    /// itself, so its image has the client the call needs.
    pub work_script: Option<WorkScript>,
}

/// A work container's `sh -c` script and where it is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkScript {
    /// The `command` or `args` item that holds it.
    pub item: JsonPath,
    /// The script.
    pub script: String,
}

/// A Job sidecar's own wait for the work's end, after which it exits by itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelfStop {
    /// The `command`, `args` or environment variable that sets up the wait.
    pub path: JsonPath,
    /// What it waits for.
    pub trigger: SelfStopTrigger,
    /// The waiting command or setting as written, shortened to what waits
    /// (`until … /shared/done`, `kubexit (KUBEXIT_DEATH_DEPS=app)`).
    pub written: String,
}

/// What a self-stopping sidecar waits for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SelfStopTrigger {
    /// A file (or for `inotifywait`, a directory entry) to appear at this path.
    File {
        /// The path, as the sidecar sees it.
        path: String,
        /// Where the path lies in a volume; `None`: in the container's own filesystem.
        at: Option<VolumePath>,
    },
    /// No process matching this name any more (seen only with a shared process
    /// namespace).
    ProcessGone {
        /// The name or pattern searched for.
        process: String,
    },
    /// kubexit's death dependencies: a tombstone in the graveyard recording that one of
    /// these containers' processes died (`KUBEXIT_DEATH_DEPS`).
    Kubexit {
        /// The names in `KUBEXIT_DEATH_DEPS`.
        deaths: Vec<String>,
        /// `KUBEXIT_GRAVEYARD` (default `/graveyard`).
        graveyard: String,
        /// Where the graveyard lies in a volume; `None`: in the container's own
        /// filesystem.
        at: Option<VolumePath>,
    },
}

/// A place inside a pod volume: the volume's name and the path below its root, so that
/// two containers' paths meet when both are equal, whatever the mount paths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VolumePath {
    /// The volume's name in `spec.volumes`.
    pub volume: String,
    /// The path below the volume's root (with the mount's `subPath`), `/`-separated.
    pub path: String,
}

/// Why a stop call cannot stop the sidecar: the fact, for the rules to word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopFailure {
    /// `exec` replaced the shell before the call (an EXIT trap does not run either).
    ReplacedByExec {
        /// The command that replaces the shell.
        exec: String,
    },
    /// The endpoint accepts only POST; the call sends GET and gets 405.
    NeedsPost {
        /// The endpoint (`pilot-agent's /quitquitquit`).
        endpoint: &'static str,
    },
    /// The Cloud SQL proxy serves its quit call only when started with `--quitquitquit`.
    CloudSqlQuitOff {
        /// The call is `cloud-sql-proxy shutdown` rather than the HTTP endpoint.
        command: bool,
    },
    /// Cloud SQL Proxy v1 has no quit endpoint and no `shutdown` command: only a
    /// signal stops it.
    CloudSqlV1CannotQuit {
        /// The call is `cloud-sql-proxy shutdown` rather than the HTTP endpoint.
        command: bool,
    },
    /// Nothing in the pod serves `/quitquitquit` on this port.
    NothingOnPort {
        /// The port called.
        port: u16,
        /// Where pilot-agent listens.
        agent_port: u16,
    },
    /// Linkerd's `/shutdown` called on another port than the admin port.
    WrongLinkerdPort {
        /// The port called.
        port: u16,
        /// The admin port.
        admin_port: u16,
    },
    /// Linkerd's `/shutdown` endpoint is off (404).
    LinkerdShutdownOff(LinkerdShutdownOff),
    /// Istio before 1.4: pilot-agent keeps running when Envoy exits (istio#11659).
    AgentOutlivesEnvoy {
        /// The Istio version.
        version: crate::settings::IstioVersion,
        /// Where pilot-agent's own `/quitquitquit` is.
        agent_port: u16,
    },
    /// Argo Workflows signals an injected sidecar by exec'ing `/bin/sh -c 'kill -15 1'`
    /// in it, and its image has no shell (nor a `kill-cmd` annotation to use instead).
    NoShellForArgoKill {
        /// The sidecar.
        container: String,
    },
    /// A signal to another container's process without `shareProcessNamespace: true`.
    NoSharedProcessNamespace,
    /// The work leaves the signal a sidecar waits for where that sidecar cannot see
    /// it: another volume, or a path in one container's own filesystem.
    SignalNotShared {
        /// The sidecar that waits.
        sidecar: String,
        /// Where the sidecar looks, as it sees it.
        waits_at: String,
        /// The volume the sidecar's path is in, if any.
        waits_in: Option<String>,
        /// Where the work leaves it, as it sees it.
        leaves_at: String,
        /// The volume the work's path is in, if any.
        leaves_in: Option<String>,
    },
    /// The work creates a file in a volume a sidecar mounts, but that sidecar's command
    /// does not wait for it (its image's own entrypoint, or a script with no such wait).
    SidecarIgnoresSignal {
        /// The sidecar.
        sidecar: String,
        /// The file the work creates.
        file: String,
        /// The sidecar runs its image's entrypoint: no `command` in the manifest.
        own_entrypoint: bool,
    },
    /// kubexit in the sidecar waits for other deaths than the work's tombstone name.
    KubexitNotADeathDep {
        /// The sidecar.
        sidecar: String,
        /// The work's `KUBEXIT_NAME`.
        name: String,
        /// The sidecar's `KUBEXIT_DEATH_DEPS`.
        deaths: Vec<String>,
    },
    /// A non-root work process signalling another user's process.
    OtherUser {
        /// The UID the work runs as.
        user: i64,
        /// The process signalled.
        process: String,
        /// The UID it runs as.
        owner: i64,
    },
}

/// What leaves Linkerd's `/shutdown` endpoint off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkerdShutdownOff {
    /// `config.linkerd.io/proxy-admin-shutdown: disabled` on the pod.
    Annotation,
    /// The injected proxy's `LINKERD2_PROXY_SHUTDOWN_ENDPOINT_ENABLED=false`.
    ProxyEnv,
    /// The install value `proxy.enableShutdownEndpoint: false`, from here.
    InstallValue(Source),
    /// This version's default (off since 2.16).
    VersionDefault(crate::settings::LinkerdVersion),
    /// The version is unknown; the newest, where it is off, is assumed.
    UnknownVersion,
}

/// How a sidecar is told to stop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopMethod {
    /// `POST :15020/quitquitquit` (pilot-agent).
    IstioAgentQuit {
        /// pilot-agent's status port (15020 unless moved).
        port: u16,
    },
    /// `POST :15000/quitquitquit` (Envoy only; pilot-agent keeps running).
    EnvoyAdminQuit,
    /// `POST :4191/shutdown`.
    LinkerdShutdown {
        /// The port called (the admin port is 4191).
        port: u16,
    },
    /// `linkerd-await --shutdown -- work`.
    LinkerdAwaitShutdown,
    /// Cloud SQL proxy `/quitquitquit` or `cloud-sql-proxy shutdown`.
    CloudSqlQuit {
        /// The admin port (9091 unless `--admin-port`).
        port: u16,
        /// The proxy the call is for: v2, or v1, which serves neither.
        proxy: SidecarKind,
    },
    /// Dapr `POST :3500/v1.0/shutdown`.
    DaprShutdown {
        /// Dapr's HTTP port (3500).
        port: u16,
    },
    /// `pkill`/`kill`/`killall` of the sidecar's process.
    Signal {
        /// The process named by the command.
        target: String,
    },
    /// A command the user declared as stopping the sidecar.
    Wrapper {
        /// The wrapper's name.
        command: String,
    },
    /// The work leaves the signal a sidecar's own command waits for (a file, its
    /// kubexit tombstone, its process ending), and that sidecar then exits.
    SelfStop {
        /// The sidecar container that waits; its [`SelfStop`] says for what.
        sidecar: String,
        /// The sidecar's helper then SIGTERMs the real process and exits with its code
        /// (kubexit), rather than the script ending as it chooses.
        by_signal: bool,
    },
    /// The workload's controller signals the sidecars itself once the work is done
    /// (Argo Workflows).
    Controller {
        /// The sidecar it signals (one stop per sidecar: whether the signal can be
        /// delivered depends on each container's image).
        sidecar: SidecarKind,
    },
    /// A call to some other endpoint with a known stop path on an unexpected port.
    Other {
        /// What is called, as written: the port and path (`:8080/quit`), or the file
        /// touched (`touch /tmp/done`).
        called: String,
    },
}

/// What happens to the work's exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// The status is saved and returned (`trap`, `rc=$?; stop; exit $rc`, wrappers).
    Kept,
    /// `work; stop`: the pod reports the stop call's status, success for failed work.
    LostOnFailure,
    /// `work && stop` (or `set -e`): on failure the stop call never runs and the pod hangs.
    HangsOnFailure,
    /// `work || stop`: the sidecar is stopped only when the work fails.
    SkippedOnSuccess,
    /// `stop; work`: the sidecar is gone before the work runs.
    BeforeWork,
}

impl StopMethod {
    /// The sidecar this call is written for, when the call says (a signal or a
    /// wrapper does not).
    pub fn written_for(&self) -> Option<SidecarKind> {
        match self {
            StopMethod::IstioAgentQuit { .. } | StopMethod::EnvoyAdminQuit => Some(istio::KIND),
            StopMethod::LinkerdShutdown { .. } | StopMethod::LinkerdAwaitShutdown => {
                Some(linkerd::KIND)
            }
            StopMethod::CloudSqlQuit { proxy, .. } => Some(proxy.clone()),
            StopMethod::DaprShutdown { .. } => Some(dapr::KIND),
            StopMethod::Signal { .. }
            | StopMethod::SelfStop { .. }
            | StopMethod::Wrapper { .. }
            | StopMethod::Controller { .. }
            | StopMethod::Other { .. } => None,
        }
    }

    /// Whether this way of stopping addresses a sidecar of `kind`.
    pub fn reaches(&self, kind: &SidecarKind) -> bool {
        match self {
            StopMethod::IstioAgentQuit { .. } | StopMethod::EnvoyAdminQuit => *kind == istio::KIND,
            StopMethod::LinkerdShutdown { .. } | StopMethod::LinkerdAwaitShutdown => {
                *kind == linkerd::KIND
            }
            StopMethod::CloudSqlQuit { proxy, .. } => kind == proxy,
            StopMethod::DaprShutdown { .. } => *kind == dapr::KIND,
            StopMethod::Signal { target } => signal_reaches(target, kind),
            StopMethod::Wrapper { .. } => true,
            StopMethod::Controller { sidecar, .. } => sidecar == kind,
            StopMethod::SelfStop { .. } | StopMethod::Other { .. } => false,
        }
    }

    /// Whether this way of stopping addresses `container`: a self-stop only the
    /// sidecar that waits for it, any other way the sidecars of the kind it reaches.
    pub fn reaches_container(&self, container: &PlannedContainer) -> bool {
        match self {
            StopMethod::SelfStop { sidecar, .. } => *sidecar == container.name,
            _ => container.sidecar().is_some_and(|s| self.reaches(&s.kind)),
        }
    }

    /// Whether the sidecar ends by a signal and exits with the code it gives on one:
    /// `kill`, and kubexit, which SIGTERMs its child and exits with the child's code.
    pub fn ends_by_signal(&self) -> bool {
        matches!(
            self,
            StopMethod::Signal { .. }
                | StopMethod::SelfStop {
                    by_signal: true,
                    ..
                }
        )
    }
}

fn signal_reaches(target: &str, kind: &SidecarKind) -> bool {
    let target = target.to_lowercase();
    if *kind == istio::KIND {
        target.contains("envoy") || target.contains("pilot-agent")
    } else if *kind == linkerd::KIND {
        target.contains("linkerd")
    } else if *kind == cloud_sql::V2.kind() || *kind == cloud_sql::V1.kind() {
        target.contains("cloud-sql") || target.contains("cloud_sql")
    } else if let SidecarKind::Declared(name) = kind {
        target.contains(&name.to_lowercase())
    } else {
        target.contains("proxy")
    }
}
