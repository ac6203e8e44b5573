//! How a Job's work stops its sidecars: the calls, whom they reach, and why one cannot
//! work.

use super::{PlannedContainer, SidecarKind};
use crate::load::JsonPath;
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
    /// Where the call is written in an `sh -c` script written in the manifest, when
    /// a fix can find it there.
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
    /// The call is a pipeline of its own at the script's top level, which a fix can
    /// move (into an EXIT trap); otherwise it sits inside another command (a trap's
    /// quoted body), where a fix can only replace its words.
    pub own_command: bool,
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

/// Why a stop call cannot stop the sidecar: the fact, for the rules to word. What
/// differs between sidecars (an endpoint's owner and path, the switch that turns it on)
/// is named in the fact by the sidecar's model.
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
    /// The endpoint answers only when a switch turns it on, and it is off.
    SwitchedOff {
        /// Whose endpoint it is, as messages name it (`Linkerd`, `the Cloud SQL proxy`).
        owner: &'static str,
        /// Its path (`/shutdown`).
        endpoint: &'static str,
        /// What leaves it off.
        off: SwitchedOff,
    },
    /// The sidecar has no such call: only a signal stops it.
    NoStopCall {
        /// The sidecar the call was written for.
        sidecar: SidecarKind,
        /// The call is the sidecar's own command rather than its HTTP endpoint.
        command: bool,
    },
    /// The call is another sidecar's (its endpoint or command) than the one the pod
    /// runs: nothing in the pod answers it.
    NotInPod {
        /// The sidecar the call was written for.
        written_for: SidecarKind,
        /// The pod's sidecar.
        in_pod: SidecarKind,
        /// Its container.
        container: String,
    },
    /// Nothing in the pod serves the stop path on this port.
    NothingOnPort {
        /// The port called.
        port: u16,
        /// The path called.
        path: String,
        /// Where a sidecar of the pod serves that path.
        served: Served,
    },
    /// A sidecar's stop endpoint called on another port than the one it serves it on.
    WrongPort {
        /// Whose endpoint it is (`Linkerd`).
        owner: &'static str,
        /// Its path (`/shutdown`).
        endpoint: &'static str,
        /// The port called.
        port: u16,
        /// The admin port that serves it.
        admin_port: u16,
    },
    /// The call stops one of the sidecar's two processes and the other keeps running
    /// (Istio before 1.4: pilot-agent outlives Envoy, istio#11659).
    PartStops {
        /// The release where it does (`Istio 1.3`).
        release: String,
        /// The process that stops (`Envoy`).
        stopped: &'static str,
        /// The process that keeps running (`pilot-agent`).
        running: &'static str,
        /// The upstream issue (`istio#11659`).
        issue: &'static str,
        /// The call that stops both (`:15020/quitquitquit`).
        instead: String,
    },
    /// Argo Workflows signals an injected sidecar by exec'ing `/bin/sh -c 'kill -15 1'`
    /// in it, and its image has no shell (nor a `kill-cmd` annotation to use instead).
    NoShellForArgoKill {
        /// The sidecar.
        container: String,
        /// The kill command the sidecar's model offers for the annotation is its own
        /// stop call, which is off in this pod (Linkerd's `/shutdown`).
        offered_fails: bool,
    },
    /// The kill command a pod annotation gives the controller for a sidecar runs a
    /// program the sidecar's image lacks: the exec fails and nothing is signalled.
    KillProgramMissing {
        /// The sidecar.
        container: String,
        /// The program (`sh`).
        program: String,
    },
    /// The kill command a pod annotation gives the controller is not a JSON list of
    /// strings: the controller cannot read it and signals nothing.
    KillCommandUnreadable {
        /// The sidecar.
        container: String,
        /// The annotation's key.
        annotation: String,
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

impl StopFailure {
    /// Whether it is a signal that cannot reach the sidecar's process (no shared
    /// process namespace, another user's process), rather than a call that reaches
    /// the sidecar and fails.
    pub fn is_unreachable_signal(&self) -> bool {
        matches!(
            self,
            StopFailure::NoSharedProcessNamespace | StopFailure::OtherUser { .. }
        )
    }
}

/// What leaves a sidecar's stop endpoint off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SwitchedOff {
    /// The sidecar was started without the flag that serves it (`--quitquitquit`).
    Flag {
        /// The flag.
        flag: &'static str,
        /// The call is this command of the sidecar's (`cloud-sql-proxy shutdown`)
        /// rather than the endpoint itself.
        command: Option<&'static str>,
    },
    /// The pod's annotation turns it off (`config.linkerd.io/proxy-admin-shutdown:
    /// disabled`).
    Annotation {
        /// The annotation's key.
        key: &'static str,
    },
    /// The injected proxy's environment turns it off.
    ContainerEnv {
        /// The variable (`LINKERD2_PROXY_SHUTDOWN_ENDPOINT_ENABLED`).
        variable: &'static str,
        /// Its value.
        value: String,
    },
    /// The mesh's install value turns it off.
    InstallValue {
        /// The value's name (`proxy.enableShutdownEndpoint`).
        setting: &'static str,
        /// Where it is set.
        source: Source,
    },
    /// This release leaves it off unless the annotation `key` turns it on.
    ReleaseDefault {
        /// The release.
        release: String,
        /// The first release that leaves it off (`2.16`).
        since: &'static str,
        /// The annotation that turns it on.
        key: &'static str,
    },
    /// The release is unknown; the newest, which leaves it off unless the annotation
    /// `key` turns it on, is assumed.
    UnknownRelease {
        /// The first release that leaves it off.
        since: &'static str,
        /// The annotation that turns it on.
        key: &'static str,
    },
}

/// Where a sidecar serves a stop path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Served {
    /// The process that serves it (`pilot-agent`).
    pub by: &'static str,
    /// The port.
    pub port: u16,
}

/// How a sidecar is told to stop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopMethod {
    /// A sidecar's HTTP stop endpoint (pilot-agent's `/quitquitquit`, Linkerd's
    /// `/shutdown`), on the port called.
    Endpoint {
        /// The sidecar whose endpoint it is.
        sidecar: SidecarKind,
        /// The port called.
        port: u16,
    },
    /// A sidecar's own command that asks it to stop (`linkerd-await --shutdown`).
    Command {
        /// The sidecar whose command it is.
        sidecar: SidecarKind,
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
        /// The container it signals: each one has its own kill command, so a stop
        /// reaches that container alone, not every sidecar of its kind.
        container: String,
        /// Who signals it (`Argo's controller`, `Argo's emissary`).
        by: &'static str,
        /// How the signal gets there (the command exec'd in the container,
        /// shell-quoted, or the emissary's own signal to its process group).
        delivery: String,
        /// How long after the signal a SIGKILL ends it, when one can (Argo's emissary
        /// kills its child's process group); `None`: nothing can kill a PID 1 from
        /// inside its container, so it exits only when it chooses.
        kill_after: Option<crate::time::Millis>,
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
            StopMethod::Endpoint { sidecar, .. } | StopMethod::Command { sidecar } => {
                Some(sidecar.clone())
            }
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
            StopMethod::Endpoint { sidecar, .. }
            | StopMethod::Command { sidecar }
            | StopMethod::Controller { sidecar, .. } => sidecar == kind,
            StopMethod::Signal { target } => kind.answers_signal(target),
            StopMethod::Wrapper { .. } => true,
            StopMethod::SelfStop { .. } | StopMethod::Other { .. } => false,
        }
    }

    /// Whether this way of stopping addresses `container`: a self-stop only the
    /// sidecar that waits for it, a controller's kill only the container it is exec'd
    /// in, any other way the sidecars of the kind it reaches.
    pub fn reaches_container(&self, container: &PlannedContainer) -> bool {
        match self {
            StopMethod::SelfStop { sidecar, .. } => *sidecar == container.name,
            StopMethod::Controller {
                container: signalled,
                ..
            } => *signalled == container.name,
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

/// Whether the work may signal `process`, which runs as `owner`: a non-root process
/// may signal only its own user's processes.
pub fn signal_permitted(
    process: &str,
    work_user: Option<i64>,
    owner: i64,
) -> Result<(), StopFailure> {
    match work_user {
        Some(user) if user != 0 && user != owner => Err(StopFailure::OtherUser {
            user,
            process: process.to_owned(),
            owner,
        }),
        _ => Ok(()),
    }
}
