//! kubexit (github.com/karlkfi/kubexit), the supervisor that orders a pod's containers
//! through tombstones in a shared "graveyard" directory: how a container configures it.
//!
//! Read from `cmd/kubexit/main.go` at v0.3.2: `KUBEXIT_NAME` names the tombstone the
//! supervised process writes when it starts and when it dies (whatever its exit path,
//! `fatalf` included); `KUBEXIT_GRAVEYARD` is the directory, trailing slashes removed,
//! default `/graveyard`; on a tombstone of a `KUBEXIT_DEATH_DEPS` name recording a death,
//! kubexit SIGTERMs its child (SIGKILL after `KUBEXIT_GRACE_PERIOD`, 30 s) and exits
//! with the child's code; with `KUBEXIT_BIRTH_DEPS` it starts its child only once those
//! containers are Ready in the pod's status.

use k8s_openapi::api::core::v1::Container;

use super::shell::GateWait;

/// Whether the container's command runs under kubexit.
pub fn runs_under(argv: &[String]) -> bool {
    argv.first()
        .is_some_and(|program| super::shell::basename(program) == "kubexit")
}

/// `KUBEXIT_GRAVEYARD`, cleaned of trailing slashes, default `/graveyard`.
pub fn graveyard(container: &Container) -> String {
    match literal_env(container, "KUBEXIT_GRAVEYARD") {
        Some(dir) if !dir.trim_end_matches('/').is_empty() => dir.trim_end_matches('/').to_owned(),
        _ => "/graveyard".to_owned(),
    }
}

/// `KUBEXIT_NAME`: the tombstone this container's process writes.
pub fn name(container: &Container) -> Option<&str> {
    literal_env(container, "KUBEXIT_NAME")
}

/// The names of a comma-separated kubexit list (`KUBEXIT_DEATH_DEPS`,
/// `KUBEXIT_BIRTH_DEPS`).
pub fn deps(container: &Container, variable: &str) -> Vec<String> {
    literal_env(container, variable)
        .map(|deps| {
            deps.split(',')
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// How the app's kubexit holds it until its birth dependencies are Ready, when it
/// does.
pub fn birth_gate(container: &Container, argv: &[String]) -> Option<GateWait> {
    if !runs_under(argv) {
        return None;
    }
    let deps = deps(container, "KUBEXIT_BIRTH_DEPS");
    (!deps.is_empty()).then_some(GateWait::KubexitBirth { deps })
}

/// The value of an environment variable the manifest sets literally.
fn literal_env<'c>(container: &'c Container, name: &str) -> Option<&'c str> {
    container
        .env
        .iter()
        .flatten()
        .find(|var| var.name == name)
        .and_then(|var| var.value.as_deref())
}
