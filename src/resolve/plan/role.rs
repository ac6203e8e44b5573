//! What a container is for and how the kubelet runs it: its list, its role and, for
//! a sidecar, which one it is.

use crate::resolve::mesh::{Mesh, Remedies, SidecarModel};

/// Which list a container is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContainerList {
    /// `spec.initContainers`.
    Init,
    /// `spec.containers`.
    Regular,
}

/// What a container is for and how the kubelet runs it, in one value: its list, its
/// `restartPolicy`, the Kubernetes version's native sidecars and its purpose combine
/// only in the ways a pod can have them (no app among the init containers, no init
/// step among the regular ones, no native sidecar that is not a sidecar).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// In `spec.containers`, doing the pod's work: a server, a Job's work.
    App,
    /// In `spec.containers` beside the app: a classic sidecar, which the kubelet starts
    /// and stops like the app.
    ClassicSidecar(Sidecar),
    /// In `spec.initContainers` with `restartPolicy: Always`, run by this Kubernetes
    /// version as a native sidecar: the next container starts once it runs (and its
    /// startup probe passes), and it stops after the regular containers.
    NativeSidecar(Sidecar),
    /// In `spec.initContainers`, run as a plain init container: the next container
    /// starts only once it has exited.
    Init {
        /// Whether it exits.
        run: InitRun,
        /// The sidecar it is, when it is one: a mesh proxy given `restartPolicy:
        /// Always` for a version that does not run native sidecars, or written as a
        /// plain init container. `None` for an init step (`istio-init`, a migration).
        sidecar: Option<Sidecar>,
    },
}

/// How a plain init container ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitRun {
    /// It runs to completion, then the next container starts.
    ToCompletion,
    /// The manifest gives it `restartPolicy: Always`, which this Kubernetes version
    /// does not run as a native sidecar: a sidecar's process never exits, so nothing
    /// after it starts.
    NeverExits,
}

impl Role {
    /// An init step: an init container that runs to completion (`istio-init`,
    /// `linkerd-init`, a migration).
    pub const INIT_STEP: Role = Role::Init {
        run: InitRun::ToCompletion,
        sidecar: None,
    };

    /// A container of `list` with `restartPolicy: Always` or not (which only init
    /// containers have), where the kubelet runs native sidecars or not, before anything
    /// is known of what it runs: a native sidecar is one of unknown kind.
    pub fn of_manifest(list: ContainerList, restart_always: bool, native_sidecars: bool) -> Self {
        match list {
            ContainerList::Regular => Role::App,
            ContainerList::Init if restart_always && native_sidecars => {
                Role::NativeSidecar(Sidecar {
                    kind: SidecarKind::Generic,
                    carries_traffic: false,
                })
            }
            ContainerList::Init if restart_always => Role::Init {
                run: InitRun::NeverExits,
                sidecar: None,
            },
            ContainerList::Init => Role::INIT_STEP,
        }
    }

    /// A sidecar an injector adds: native when the injector makes it an init container
    /// with `restartPolicy: Always` (`native`), where the kubelet runs native sidecars
    /// (`native_sidecars`); classic otherwise.
    pub fn injected_sidecar(sidecar: Sidecar, native: bool, native_sidecars: bool) -> Self {
        match (native, native_sidecars) {
            (true, true) => Role::NativeSidecar(sidecar),
            (true, false) => Role::Init {
                run: InitRun::NeverExits,
                sidecar: Some(sidecar),
            },
            (false, _) => Role::ClassicSidecar(sidecar),
        }
    }

    /// The same container, known to be `sidecar`: the kubelet runs it as before.
    pub fn with_sidecar(&self, sidecar: Sidecar) -> Self {
        match self {
            Role::App | Role::ClassicSidecar(_) => Role::ClassicSidecar(sidecar),
            Role::NativeSidecar(_) => Role::NativeSidecar(sidecar),
            Role::Init { run, .. } => Role::Init {
                run: *run,
                sidecar: Some(sidecar),
            },
        }
    }

    /// The list the container is in.
    pub fn list(&self) -> ContainerList {
        match self {
            Role::App | Role::ClassicSidecar(_) => ContainerList::Regular,
            Role::NativeSidecar(_) | Role::Init { .. } => ContainerList::Init,
        }
    }

    /// How a plain init container ends; `None` for one that runs beside the work until
    /// stopped (an app, a classic or native sidecar).
    pub fn init_run(&self) -> Option<InitRun> {
        match self {
            Role::Init { run, .. } => Some(*run),
            Role::App | Role::ClassicSidecar(_) | Role::NativeSidecar(_) => None,
        }
    }

    /// The sidecar traits, when the container is one.
    pub fn sidecar(&self) -> Option<&Sidecar> {
        match self {
            Role::ClassicSidecar(sidecar) | Role::NativeSidecar(sidecar) => Some(sidecar),
            Role::Init { sidecar, .. } => sidecar.as_ref(),
            Role::App => None,
        }
    }
}

/// A sidecar's identity and traits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sidecar {
    /// Which sidecar it is.
    pub kind: SidecarKind,
    /// The app's traffic passes through it: while it is not running, traffic is lost.
    pub carries_traffic: bool,
}

/// Which sidecar a container is: one a model knows, one the config declares, or one
/// of unknown kind.
#[derive(Clone)]
pub enum SidecarKind {
    /// A sidecar a model knows (the Istio proxy, the Cloud SQL proxy v2, …).
    Known(&'static dyn SidecarModel),
    /// Declared in the user's config, or a helper known by its name, named for its
    /// container.
    Declared(String),
    /// A sidecar of unknown kind: a native sidecar, or a Job's container that never
    /// ends by itself.
    Generic,
}

impl SidecarKind {
    /// The model of this sidecar, when one knows it.
    pub fn model(&self) -> Option<&'static dyn SidecarModel> {
        match self {
            SidecarKind::Known(model) => Some(*model),
            SidecarKind::Declared(_) | SidecarKind::Generic => None,
        }
    }

    /// The mesh whose proxy this is, when it is one.
    pub fn mesh(&self) -> Option<Mesh> {
        self.model().and_then(|model| model.description().mesh)
    }

    /// What this sidecar's own settings offer against each hazard: its model's, so
    /// advice for one mesh never reaches another's pod.
    pub fn remedies(&self) -> &'static Remedies {
        self.model()
            .map_or(&Remedies::NONE, |model| model.remedies(false))
    }

    /// Whether a signal to processes named `target` reaches this sidecar: its
    /// model's processes, a declared sidecar's name, any proxy for the rest.
    pub fn answers_signal(&self, target: &str) -> bool {
        let target = target.to_lowercase();
        match self {
            SidecarKind::Known(model) => model.answers_signal(&target),
            SidecarKind::Declared(name) => target.contains(&name.to_lowercase()),
            SidecarKind::Generic => target.contains("proxy"),
        }
    }

    /// A short human name.
    pub fn label(&self) -> &str {
        match self {
            SidecarKind::Known(model) => model.description().label,
            SidecarKind::Declared(name) => name,
            SidecarKind::Generic => "sidecar",
        }
    }
}

impl PartialEq for SidecarKind {
    fn eq(&self, other: &SidecarKind) -> bool {
        match (self, other) {
            (SidecarKind::Known(a), SidecarKind::Known(b)) => {
                a.description().id == b.description().id
            }
            (SidecarKind::Declared(a), SidecarKind::Declared(b)) => a == b,
            (SidecarKind::Generic, SidecarKind::Generic) => true,
            _ => false,
        }
    }
}

impl Eq for SidecarKind {}

impl std::fmt::Debug for SidecarKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SidecarKind::Known(model) => write!(f, "Known({})", model.description().id),
            SidecarKind::Declared(name) => write!(f, "Declared({name})"),
            SidecarKind::Generic => f.write_str("Generic"),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::resolve::*;

    fn proxy() -> Sidecar {
        Sidecar {
            kind: SidecarKind::Declared("proxy".to_owned()),
            carries_traffic: true,
        }
    }

    /// Naming a container's sidecar (the resolvers do, from its name or image) never
    /// changes how the kubelet runs it: an init container stays one, and one whose
    /// `restartPolicy: Always` this version ignores still blocks the next.
    #[test]
    fn a_known_sidecar_keeps_how_the_kubelet_runs_it() {
        use ContainerList::{Init, Regular};
        for (list, restart_always, native_sidecars) in [
            (Regular, false, true),
            (Init, false, true),
            (Init, true, true),
            (Init, true, false),
        ] {
            let unknown = Role::of_manifest(list, restart_always, native_sidecars);
            let known = unknown.with_sidecar(proxy());
            assert_eq!(known.list(), list);
            assert_eq!(known.init_run(), unknown.init_run());
            assert_eq!(known.sidecar(), Some(&proxy()));
        }
        assert_eq!(
            Role::of_manifest(Init, true, false).init_run(),
            Some(InitRun::NeverExits)
        );
        assert_eq!(
            Role::of_manifest(Init, false, true).init_run(),
            Some(InitRun::ToCompletion)
        );
        assert!(matches!(
            Role::of_manifest(Init, true, true),
            Role::NativeSidecar(_)
        ));
    }

    /// An injector's native sidecar on a version without native sidecars is an init
    /// container that never exits, still the mesh's proxy.
    #[test]
    fn an_injected_native_sidecar_needs_a_kubelet_that_runs_them() {
        assert_eq!(
            Role::injected_sidecar(proxy(), true, true),
            Role::NativeSidecar(proxy())
        );
        let blocked = Role::injected_sidecar(proxy(), true, false);
        assert_eq!(blocked.list(), ContainerList::Init);
        assert_eq!(blocked.init_run(), Some(InitRun::NeverExits));
        assert_eq!(blocked.sidecar(), Some(&proxy()));
        assert_eq!(
            Role::injected_sidecar(proxy(), false, true),
            Role::ClassicSidecar(proxy())
        );
    }
}
