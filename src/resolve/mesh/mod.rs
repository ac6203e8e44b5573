//! The sidecar models: one per sidecar the resolver knows, each in its own module (a
//! folder for Istio and Linkerd). A model holds what its sidecar does — how it is
//! detected in a manifest, what its injector adds, how it shuts down, which stop calls
//! it answers — and the changes to its own settings that fix a hazard ([`Remedies`]).
//! The resolve driver runs every model of a [`Registry`] over the pod being built; what
//! leaves the models is the mesh-neutral [`PodPlan`](super::PodPlan). Rules ask the
//! sidecar's model for its remedies instead of knowing any mesh, so one mesh's advice
//! never reaches another's pod.
//!
//! A model uses the mesh-free [`Builder`](super::Builder); the Builder never calls a
//! model. Adding a sidecar is one module here and one row in [`MODELS`].

pub mod cloud_sql;
pub mod consul;
pub mod dapr;
pub mod declared;
mod injected;
pub mod istio;
pub mod knative;
pub mod kuma;
pub mod linkerd;
mod remedies;
mod written;

use std::fmt;
use std::sync::LazyLock;

use serde::{Serialize, Serializer};

pub use remedies::{Advice, Measure, Remedies, StatusOff, Stay, StayAt, StopAfterWork, Suggestion};

use super::shell::{HttpMethod, StopTarget};
use super::vocabulary::{Lexicon, Vocabulary};
use super::{Builder, Served, StopFailure, StopMethod};

/// What the resolver knows of one sidecar: what it states as data
/// ([`SidecarModel::description`]) and what it works out for each pod.
pub trait SidecarModel: Sync {
    /// Which sidecar it is, the words its readers know and its remedies.
    fn description(&self) -> &Description;

    /// Finds the sidecar among the containers of the pod being built, or adds what its
    /// injector adds, and sets how it starts and stops.
    fn resolve(&self, b: &mut Builder);

    /// What the sidecar's own settings offer against each hazard; `written`: for a
    /// sidecar written in the manifest (an injector's output), only what still works
    /// once its injector has run.
    fn remedies(&self, written: bool) -> &'static Remedies {
        let _ = written;
        self.description().remedies
    }

    /// The programs, endpoints and hooks of this sidecar the readers of commands and
    /// hooks should know.
    fn vocabulary(&self) -> &'static Vocabulary {
        self.description().vocabulary
    }

    /// Judges a call of a Job's work that addresses this sidecar (its endpoint, its
    /// command, a signal to its process): how it reaches it and whether it can stop
    /// it. `None` when the call is not this sidecar's.
    fn judge_stop(&self, call: &StopRequest, b: &Builder) -> Option<StopVerdict> {
        let _ = (call, b);
        None
    }

    /// Where this sidecar serves the stop endpoint `path` in this pod (pilot-agent's
    /// `/quitquitquit` on the status port), to say so of a call on another port.
    fn serves(&self, path: &str, b: &Builder) -> Option<Served> {
        let _ = (path, b);
        None
    }

    /// The call a Job's work can make to stop this sidecar, as a shell command, when
    /// the model knows one for this pod.
    fn stop_command(&self, b: &Builder) -> Option<String> {
        let _ = b;
        None
    }

    /// Whether a signal to processes named `target` reaches this sidecar.
    fn answers_signal(&self, target: &str) -> bool {
        target.contains("proxy")
    }
}

/// A stop call for the models to judge.
pub struct StopRequest<'c> {
    /// What the call addresses.
    pub target: &'c StopTarget,
    /// The HTTP method it uses, when it is an HTTP call.
    pub method: Option<HttpMethod>,
    /// The UID the work runs as, for a signal's permission.
    pub work_user: Option<i64>,
}

/// A model's judgment of a stop call.
pub struct StopVerdict {
    /// How the call addresses the sidecar.
    pub method: StopMethod,
    /// Whether it can stop it.
    pub effective: Result<(), StopFailure>,
    /// The sidecar exits as soon as the call reaches it, skipping its drain.
    pub exits_at_once: bool,
}

impl StopVerdict {
    /// A call judged `effective` that leaves the sidecar to shut down as it does on a
    /// signal.
    pub fn new(method: StopMethod, effective: Result<(), StopFailure>) -> StopVerdict {
        StopVerdict {
            method,
            effective,
            exits_at_once: false,
        }
    }
}

/// What a model states as data.
#[derive(Debug)]
pub struct Description {
    /// A stable lower-case id (`istio-proxy`).
    pub id: &'static str,
    /// A short human name (`Istio proxy`), in messages and in `explain --format json`.
    pub label: &'static str,
    /// The mesh whose proxy it is, when it is one.
    pub mesh: Option<Mesh>,
    /// The programs, endpoints and hooks of the sidecar the readers know.
    pub vocabulary: &'static Vocabulary,
    /// What the sidecar's own settings offer against each hazard.
    pub remedies: &'static Remedies,
}

/// The models the resolver runs, in the order it runs them: a model that adopts a
/// container first keeps it (a mesh's proxy before a sidecar the config declares, a
/// declared one before a Cloud SQL proxy found by its image).
pub static MODELS: &[&dyn SidecarModel] = &[
    &knative::QueueProxy,
    &istio::Istio,
    &linkerd::Linkerd,
    &consul::Consul,
    &kuma::Kuma,
    &dapr::Dapr,
    &declared::Declared,
    &cloud_sql::V2,
    &cloud_sql::V1,
];

/// A set of models for a run: [`MODELS`] unless a caller brings its own.
pub struct Registry {
    /// The models, in the order they run.
    pub models: Vec<&'static dyn SidecarModel>,
    /// Their vocabularies, for the readers of commands and hooks.
    pub lexicon: Lexicon,
}

impl Registry {
    /// A registry of `models`, run in that order.
    pub fn new(models: Vec<&'static dyn SidecarModel>) -> Registry {
        let lexicon = Lexicon::new(models.iter().map(|model| model.vocabulary()).collect());
        Registry { models, lexicon }
    }

    /// The registry of [`MODELS`].
    pub fn standard() -> &'static Registry {
        static STANDARD: LazyLock<Registry> = LazyLock::new(|| Registry::new(MODELS.to_vec()));
        &STANDARD
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.models.iter().map(|model| model.description().id))
            .finish()
    }
}

/// A service mesh whose injector and proxy a model knows. Meshes are told apart by
/// their id.
#[derive(Clone, Copy)]
pub struct Mesh(&'static MeshInfo);

/// What a mesh is called, and how `explain` words its decisions where meshes differ.
#[derive(Debug)]
pub struct MeshInfo {
    /// The lower-case name used in machine output (`istio`).
    pub id: &'static str,
    /// The name as its project writes it (`Istio`), for messages.
    pub title: &'static str,
    /// What the project calls its injector webhook (`sidecar injector`), for naming it
    /// when it denies a pod.
    pub injector: &'static str,
    /// Whether its sidecar captures the pod's traffic. Dapr's is an API the app calls,
    /// so it runs beside any mesh.
    pub captures_traffic: bool,
    /// How `explain` words this mesh's decisions.
    pub words: Words,
}

/// How `explain` words a mesh's decisions where meshes differ: how its injector reads
/// its settings' values, and what it calls its proxy.
#[derive(Debug)]
pub struct Words {
    /// The injector compares its opt-in values as strings (`key: "true"`), rather than
    /// reading keywords (`key: enabled`).
    pub quoted_values: bool,
    /// How the pod's own opt-in is given.
    pub pod_opt_in: OptInWords,
    /// How a proxy already in the manifest is given.
    pub in_manifest: InManifestWords,
    /// A namespace's opt-in is given by its meaning (`has injection enabled`), not its
    /// key and value.
    pub namespace_opt_in_by_meaning: bool,
    /// The native-sidecar annotation is read on the pod only, so its source goes
    /// unsaid; and the control plane's setting is given with its value
    /// (`ENABLE_NATIVE_SIDECARS=true`).
    pub native_on_pod_only: bool,
    /// What the mesh's classic proxy is called (`sidecar`, `proxy`), and in the
    /// assumption about an unknown release (`sidecar injection`).
    pub classic: (&'static str, &'static str),
    /// What a held proxy waits for, when that names the hold better than its postStart
    /// command (`the dataplane`).
    pub held_waits_for: Option<&'static str>,
    /// What its sidecar stops taking as it shuts down, when that is not new inbound
    /// connections (daprd closes its servers: service invocations are refused).
    pub refusal: Option<&'static str>,
}

impl Words {
    /// The words most meshes take: values compared as strings, the pod's opt-in with its
    /// value, the sidecar by its container, its proxy called a proxy.
    pub const PLAIN: Words = Words {
        quoted_values: true,
        pod_opt_in: OptInWords::KindKeyValue,
        in_manifest: InManifestWords::Container,
        namespace_opt_in_by_meaning: false,
        native_on_pod_only: false,
        classic: ("proxy", "proxy"),
        held_waits_for: None,
        refusal: None,
    };
}

/// How a pod's own opt-in is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptInWords {
    /// `pod label `sidecar.istio.io/inject: "true"``.
    KindKeyValue,
    /// `pod annotation `linkerd.io/inject``.
    KindKey,
    /// `` `kuma.io/sidecar-injection: enabled` on the pod``.
    KeyValueOnPod,
}

/// How a proxy already in the manifest is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InManifestWords {
    /// `` `istio-proxy` is in the manifest: it was injected already``.
    InjectedAlready,
    /// `` `daprd` is in the manifest``.
    Container,
    /// By a name for it (`the Consul dataplane`), whichever container name it has.
    Named(&'static str),
}

impl Mesh {
    /// The mesh `info` describes.
    pub const fn new(info: &'static MeshInfo) -> Mesh {
        Mesh(info)
    }

    /// The lower-case name used in machine output (`istio`).
    pub fn id(self) -> &'static str {
        self.0.id
    }

    /// The name as its project writes it (`Istio`), for messages.
    pub fn title(self) -> &'static str {
        self.0.title
    }

    /// What the project calls its injector webhook (`sidecar injector`).
    pub fn injector(self) -> &'static str {
        self.0.injector
    }

    /// Whether its sidecar captures the pod's traffic.
    pub fn captures_traffic(self) -> bool {
        self.0.captures_traffic
    }

    /// How `explain` words its decisions.
    pub fn words(self) -> &'static Words {
        &self.0.words
    }
}

impl PartialEq for Mesh {
    fn eq(&self, other: &Mesh) -> bool {
        self.id() == other.id()
    }
}

impl Eq for Mesh {}

impl std::hash::Hash for Mesh {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id().hash(state);
    }
}

impl fmt::Debug for Mesh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl fmt::Display for Mesh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.title())
    }
}

/// In machine output a mesh is its id.
impl Serialize for Mesh {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id())
    }
}

/// The pod annotation that makes a mesh's injector add its proxy as a native sidecar,
/// found by the mesh's own version gates (`istio::native_switch`,
/// `linkerd::native_switch`), so rules never hold a mesh's release numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeSwitch {
    /// The annotation's key (`sidecar.istio.io/nativeSidecar`).
    pub annotation: &'static str,
    /// The value that turns native mode on, as the injector compares it (`"true"`).
    pub value: &'static str,
    /// The pod's own setting that cannot stay beside the switch, removed with it.
    pub displaces: Option<Displaced>,
    /// Whether the injector gives the native sidecar a startupProbe, so that it holds
    /// the apps until it is ready (Dapr's native daprd has none).
    pub gated: bool,
    /// The release from which the injector reads the switch, where the resolver has no
    /// version of the mesh to decide by (`"Dapr 1.18"`).
    pub needs: Option<&'static str>,
    /// Whether the injector puts the native sidecar before the pod's own init
    /// containers, which then run with it (Istio's, Linkerd's), rather than after them
    /// (Consul's, Dapr's).
    pub leads_inits: bool,
}

impl NativeSwitch {
    /// The switch `annotation: value`, which displaces no setting of the pod, with a
    /// startup probe, before the pod's init containers, read by the release in force.
    pub const fn new(annotation: &'static str, value: &'static str) -> NativeSwitch {
        NativeSwitch {
            annotation,
            value,
            displaces: None,
            gated: true,
            needs: None,
            leads_inits: true,
        }
    }
}

/// A setting of the mesh's installation that makes its injector add every proxy as a
/// native sidecar, where the release in force reads no pod annotation for it (istiod's
/// `ENABLE_NATIVE_SIDECARS`, Istio 1.19 to 1.23): whoever runs the mesh changes it, for
/// every pod the injector serves. Help names it; no fix can make it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstallSwitch {
    /// The component that reads it (`istiod`).
    pub component: &'static str,
    /// Its environment variable.
    pub variable: &'static str,
    /// The value that turns native mode on.
    pub value: &'static str,
    /// Whether the injector gives the native proxy a startupProbe, so that it holds the
    /// apps and the pod's init containers until it is ready ([`NativeSwitch::gated`]).
    pub gated: bool,
}

impl InstallSwitch {
    /// The change as help asks it of whoever runs the mesh, a clause: "have istiod add
    /// every proxy as a native sidecar (…)".
    pub fn help(&self) -> String {
        format!(
            "have {} add every proxy as a native sidecar (`{}={}` in its environment; this release reads no pod annotation for it)",
            self.component, self.variable, self.value
        )
    }
}

/// A setting of the pod that native mode leaves without effect, refuses or turns
/// against the pod: Istio's `holdApplicationUntilProxyStarts: true` (ignored once the
/// startup probe holds the app), Linkerd's wait before exit (2.15 to 2.19 deny a native
/// proxy with one; 2.20 drops it), Consul's shutdown grace period (waited after the
/// apps, past the pod's grace period).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Displaced {
    /// Where the pod sets it.
    pub path: crate::load::JsonPath,
    /// Why it goes with the switch.
    pub because: Displacement,
    /// The value it is set to with the switch; `None`: it is removed.
    pub value: Option<&'static str>,
}

/// Why a setting goes with the native switch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Displacement {
    /// Native mode ignores it: the proxy's startup probe holds the app instead.
    IgnoredWhenNative,
    /// The injector of this release denies a native proxy beside it.
    DeniedBy(super::Release),
    /// Native mode drops it, and some releases deny a native proxy beside it (the
    /// release in force is unknown, or one that drops it).
    DroppedOrDenied,
    /// A wait after the sidecar's SIGTERM: a native sidecar is signalled only after the
    /// apps, so the wait keeps nothing served and runs past the pod's grace period.
    WaitsAfterApps,
}

impl Displaced {
    /// The change that goes with the switch: the setting removed, or set to its value.
    pub fn change(&self) -> crate::fix::Change {
        use crate::fix::Change;
        match self.value {
            None => Change::Remove(self.path.clone()),
            Some(value) => Change::Set(self.path.clone(), serde_json::Value::String(value.into())),
        }
    }

    /// The setting's own name: the last key of its path.
    pub fn key(&self) -> &str {
        self.path
            .segments()
            .iter()
            .rev()
            .find_map(|segment| match segment {
                crate::load::path::Segment::Key(key) => Some(key.as_str()),
                _ => None,
            })
            .unwrap_or_default()
    }
}
