//! The assumptions in force, printed once per run: what the verdict rests on that the
//! manifests do not say, and where each value came from. What each plan assumes is
//! worded by `rules::describe::assumed`.

use crate::settings::ScenarioKey;
use crate::settings::{Settings, Source, Sourced};

/// Beyond this many, the namespaces whose labels are known are counted, not named.
const MAX_NAMESPACES_LISTED: usize = 5;

fn from(source: &Source) -> String {
    match source {
        Source::Default => "default".to_owned(),
        other => other.to_string(),
    }
}

fn value<T: std::fmt::Display>(name: &str, value: &Sourced<T>) -> String {
    format!("{name} {} ({})", value.value, from(&value.source))
}

/// A version as [`value`] names it, and what it is checked as when it is newer than
/// the model knows: `Kubernetes 1.37 (--kubernetes-version; checked as 1.36)`.
fn version<T: std::fmt::Display>(
    name: &str,
    value: &Sourced<T>,
    beyond: Option<crate::settings::version::Beyond>,
) -> String {
    match beyond {
        None => self::value(name, value),
        Some(beyond) => format!(
            "{name} {} ({}; checked as {}, the newest modelled)",
            value.value,
            from(&value.source),
            beyond.newest
        ),
    }
}

/// A note for each version newer than the model knows, wherever it came from (a flag,
/// the config file, the cluster): it is checked as the newest the model knows. Each
/// note's file is where the version came from.
pub fn beyond_model(settings: &Settings) -> Vec<crate::load::InputError> {
    let mut found = Vec::new();
    found.extend(
        settings
            .kubernetes
            .value
            .beyond()
            .map(|b| (b, &settings.kubernetes.source)),
    );
    if let Some(nodes) = &settings.nodes {
        found.extend(nodes.value.beyond().map(|b| (b, &nodes.source)));
    }
    for istio in std::iter::once(&settings.istio).chain(settings.istio_revisions.values()) {
        if let Some(v) = &istio.version {
            found.extend(v.value.beyond().map(|b| (b, &v.source)));
        }
    }
    if let Some(v) = &settings.linkerd.version {
        found.extend(v.value.beyond().map(|b| (b, &v.source)));
    }
    let versions = &settings.versions;
    if let Some(v) = &versions.kuma {
        found.extend(v.value.beyond().map(|b| (b, &v.source)));
    }
    if let Some(v) = &versions.consul {
        found.extend(v.value.beyond().map(|b| (b, &v.source)));
    }
    if let Some(v) = &versions.dapr {
        found.extend(v.value.beyond().map(|b| (b, &v.source)));
    }
    if let Some(v) = &versions.cloud_sql_proxy {
        found.extend(v.value.beyond().map(|b| (b, &v.source)));
    }
    let mut notes: Vec<crate::load::InputError> = Vec::new();
    for (beyond, source) in found {
        let file: std::sync::Arc<str> = match source {
            Source::ConfigFile(path) | Source::MeshConfig(path) | Source::Input(path) => {
                path.clone()
            }
            Source::Flag(flag) => std::sync::Arc::from(*flag),
            Source::Cluster(_) => std::sync::Arc::from("cluster"),
            other => std::sync::Arc::from(other.to_string()),
        };
        let note = crate::load::InputError::whole(
            file,
            format!(
                "{} {} ({}) is newer than the releases the linter models: it is checked as {} {}, the newest it knows",
                beyond.product,
                beyond.version,
                from(source),
                beyond.product,
                beyond.newest
            ),
        );
        if !notes.iter().any(|n| n.message == note.message) {
            notes.push(note);
        }
    }
    notes
}

/// Each assumption as a phrase.
pub fn items(settings: &Settings) -> Vec<String> {
    let mut items = vec![version(
        "Kubernetes",
        &settings.kubernetes,
        settings.kubernetes.value.beyond(),
    )];
    // The nodes' own version, where it differs from the one simulated.
    if let Some(nodes) = settings
        .nodes
        .as_ref()
        .filter(|nodes| nodes.value != settings.kubernetes.value)
    {
        items.push(version("oldest kubelet", nodes, nodes.value.beyond()));
    }
    let istio = &settings.istio;
    items.push(match &istio.version {
        Some(v) => version("Istio", v, v.value.beyond()),
        None => "Istio version unknown (classic sidecars)".to_owned(),
    });
    if let Some(native) = &istio.native_sidecars {
        items.push(value("ENABLE_NATIVE_SIDECARS", native));
    }
    for (name, revision) in &settings.istio_revisions {
        let mut item = match &revision.version {
            Some(version) => value(&format!("Istio revision {name}:"), version),
            None => format!("Istio revision {name}: version unknown"),
        };
        if let Some(native) = &revision.native_sidecars {
            item.push_str(&format!(", ENABLE_NATIVE_SIDECARS {}", native.value));
        }
        items.push(item);
    }
    let mesh = &istio.mesh_default_config;
    if let Some(hold) = mesh
        .hold_application_until_proxy_starts
        .as_ref()
        .or(istio.hold_helm_global.as_ref())
    {
        items.push(format!(
            "mesh-wide holdApplicationUntilProxyStarts {} ({})",
            hold.value,
            from(&hold.source)
        ));
    }
    if let Some(drain) = &mesh.termination_drain_duration {
        items.push(format!(
            "mesh-wide terminationDrainDuration {} ({})",
            drain.value,
            from(&drain.source)
        ));
    }
    for (key, metadata) in &mesh.proxy_metadata {
        items.push(format!(
            "mesh-wide {key}={} ({})",
            metadata.value,
            from(&metadata.source)
        ));
    }
    if let Some(lifecycle) = &istio.custom_lifecycle {
        items.push(format!(
            "custom proxy lifecycle ({})",
            from(&lifecycle.source)
        ));
    }
    let linkerd = &settings.linkerd;
    items.push(match &linkerd.version {
        Some(v) => version("Linkerd", v, v.value.beyond()),
        None => "Linkerd version unknown (classic proxy)".to_owned(),
    });
    // The other meshes' releases, where given; unknown, each is read as its releases
    // before native sidecars, which the plans that rest on it say.
    let versions = &settings.versions;
    if let Some(v) = &versions.kuma {
        items.push(version("Kuma", v, v.value.beyond()));
    }
    if let Some(v) = &versions.consul {
        items.push(version("consul-k8s", v, v.value.beyond()));
    }
    if let Some(v) = &versions.dapr {
        items.push(version("Dapr", v, v.value.beyond()));
    }
    if let Some(v) = &versions.cloud_sql_proxy {
        items.push(version("Cloud SQL Auth Proxy", v, v.value.beyond()));
    }
    if let Some(grace) = &settings.deletion_grace_period {
        items.push(format!(
            "deletion grace period {} s ({})",
            grace.value,
            from(&grace.source)
        ));
    }
    for (name, scenario) in settings.scenario.entries() {
        if let Some(scenario) = scenario {
            if matches!(name, ScenarioKey::InitDuration | ScenarioKey::JobDuration) {
                continue;
            }
            items.push(value(name.name(), scenario));
        }
    }
    if !settings.namespaces.is_empty() {
        let names: Vec<&str> = settings.namespaces.keys().map(String::as_str).collect();
        let from_cluster = settings
            .namespaces
            .values()
            .all(|ns| matches!(ns.source, Some(Source::Cluster(_))));
        let listed = if names.len() > MAX_NAMESPACES_LISTED {
            format!("{} namespaces", names.len())
        } else {
            names.join(", ")
        };
        // Offline, an object without `metadata.namespace` is read as kubectl applies it
        // where the context names no namespace: in `default`.
        let unset = if !from_cluster
            && settings
                .namespaces
                .contains_key(crate::settings::DEFAULT_NAMESPACE)
        {
            " (default's also for objects without metadata.namespace)"
        } else {
            ""
        };
        items.push(if from_cluster {
            format!("namespace labels known for {listed} (from the cluster)")
        } else {
            format!("namespace labels known for {listed}{unset}")
        });
    }
    items
}
