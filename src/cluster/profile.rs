//! The environment profile a cluster states: its Kubernetes versions, its namespaces'
//! labels and annotations, each Istio revision's mesh config, injector values, version
//! and native-sidecar mode, and Linkerd's install values: a [`Layer`] of the profile,
//! laid over the settings, each value marked as read from the cluster.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use super::objects::{self, ApiObject};
use super::{Identity, ObjectSource};
use crate::load::{InputError, Limits, Node, SourceText};
use crate::settings::istio::NativeSidecars;
use crate::settings::layers::Layer;
use crate::settings::{
    IstioSettings, IstioVersion, KubeVersion, NamespaceInfo, Settings, Source, Sourced, mesh_config,
};

/// Where Istio's control plane runs (`istioctl --istioNamespace`'s default).
pub const ISTIO_NAMESPACE: &str = "istio-system";
/// Where Linkerd's control plane runs (`linkerd --linkerd-namespace`'s default).
pub const LINKERD_NAMESPACE: &str = "linkerd";
/// Linkerd's install values (`linkerd-control-plane` chart, `templates/config.yaml`).
pub const LINKERD_CONFIG: &str = "linkerd-config";
/// The revision istiod's charts call the one installed without `revision`.
pub const DEFAULT_REVISION: &str = "default";

/// What the cluster says about the environment, ready to lay over the settings.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    /// The version whose rules the pods run under: the oldest of the server and the
    /// nodes' kubelets.
    pub kubernetes: Option<Sourced<KubeVersion>>,
    /// The oldest of the nodes' kubelets, when they could be read.
    pub nodes: Option<Sourced<KubeVersion>>,
    /// The labels and annotations of the namespaces read.
    pub namespaces: BTreeMap<String, NamespaceInfo>,
    /// Istio's revisions, by name.
    pub revisions: BTreeMap<String, Revision>,
    /// Revision tags (`istioctl tag`): the revision each names.
    pub tags: BTreeMap<String, String>,
    /// Linkerd's `linkerd-config` ConfigMap.
    pub linkerd: Option<MeshObject>,
}

/// An object that holds mesh configuration (an Istio ConfigMap, `linkerd-config`), read
/// by the reader of `--mesh-config`.
#[derive(Clone, Debug)]
pub struct MeshObject {
    /// The object as a tree.
    pub root: Node,
    /// Its text, as `kubectl get -o json` prints it, named `ConfigMap/namespace/name`:
    /// where its errors point.
    pub text: SourceText,
    /// The source of the values it sets.
    pub source: Source,
    /// Where it was read, for the reports that describe an error's object.
    pub object: ObjectSource,
}

/// One Istio control plane: its ConfigMaps and what its istiod runs.
#[derive(Clone, Debug, Default)]
pub struct Revision {
    /// `istio[-REV]` (the mesh config) and `istio-sidecar-injector[-REV]` (the
    /// injector's values), as read.
    pub configmaps: Vec<MeshObject>,
    /// The version of istiod's image.
    pub version: Option<Sourced<IstioVersion>>,
    /// istiod's `ENABLE_NATIVE_SIDECARS`.
    pub native_sidecars: Option<Sourced<NativeSidecars>>,
}

impl Profile {
    /// The revision a pod gets when nothing names one: the `default` tag's, else the
    /// revision installed without a name, else the only one there is.
    pub fn default_revision(&self) -> Option<&str> {
        if let Some(revision) = self.tags.get(DEFAULT_REVISION) {
            return Some(revision);
        }
        if self.revisions.contains_key(DEFAULT_REVISION) || self.revisions.len() != 1 {
            return self
                .revisions
                .contains_key(DEFAULT_REVISION)
                .then_some(DEFAULT_REVISION);
        }
        self.revisions.keys().next().map(String::as_str)
    }

    /// The objects the mesh configuration was read from.
    pub fn mesh_objects(&self) -> impl Iterator<Item = &MeshObject> {
        self.revisions
            .values()
            .flat_map(|revision| &revision.configmaps)
            .chain(&self.linkerd)
    }
}

impl Layer for Profile {
    /// Lays the profile over `settings`: what the cluster states replaces what the
    /// config file assumed, and flags still win over it. Returns what is wrong in the
    /// mesh configuration read, each at its place in the object, as `--mesh-config`
    /// would report it; a part in error is not applied.
    fn apply(&self, settings: &mut Settings) -> Vec<InputError> {
        let mut errors = Vec::new();
        if let Some(version) = &self.kubernetes {
            settings.kubernetes = version.clone();
        }
        if let Some(version) = &self.nodes {
            settings.nodes = Some(version.clone());
        }
        for (name, info) in &self.namespaces {
            settings.namespaces.insert(name.clone(), info.clone());
        }
        let base = settings.istio.clone();
        let mut configured = |revision: &Revision| {
            let mut scratch = Settings {
                istio: base.clone(),
                ..Settings::default()
            };
            for configmap in &revision.configmaps {
                errors.extend(configmap.apply(&mut scratch));
            }
            let mut istio = scratch.istio;
            if let Some(version) = &revision.version {
                istio.version = Some(version.clone());
            }
            if let Some(native) = &revision.native_sidecars {
                istio.native_sidecars = Some(native.clone());
            }
            istio
        };
        let mut revisions: BTreeMap<String, IstioSettings> = self
            .revisions
            .iter()
            .map(|(name, revision)| (name.clone(), configured(revision)))
            .collect();
        for (tag, revision) in &self.tags {
            if let Some(istio) = revisions.get(revision).cloned() {
                revisions.entry(tag.clone()).or_insert(istio);
            }
        }
        if let Some(istio) = self.default_revision().and_then(|name| revisions.get(name)) {
            settings.istio = istio.clone();
        }
        revisions.remove(DEFAULT_REVISION);
        settings.istio_revisions = revisions;
        if let Some(configmap) = &self.linkerd {
            errors.extend(configmap.apply(settings));
        }
        errors
    }
}

impl MeshObject {
    /// Reads `object` for the mesh config reader, in its text as kubectl prints it;
    /// `None` when that text is beyond the parser's limits (nesting, size).
    pub fn new(object: &ApiObject, identity: &Identity) -> Option<MeshObject> {
        let text = objects::json_text(object);
        let root = crate::load::parse::parse_documents(&text, 1, &Limits::default())
            .ok()?
            .into_iter()
            .next()?;
        let namespace = object.namespace.as_deref().unwrap_or_default();
        Some(MeshObject {
            root,
            text: SourceText {
                file: Arc::from(objects::display_name(object)),
                first_line: 1,
                text: Arc::from(text),
            },
            source: Source::Cluster(Arc::from(format!(
                "{} {namespace}/{}",
                object.kind, object.name
            ))),
            object: ObjectSource::of(object, identity),
        })
    }

    fn apply(&self, settings: &mut Settings) -> Vec<InputError> {
        mesh_config::apply_input_object(&self.root, &self.text, settings, self.source.clone())
    }
}

/// The Kubernetes version pods run under: the oldest of the API server's and the
/// kubelets' (a kubelet may be up to three minors older than its server), which also
/// decides Istio's `auto` native-sidecar mode: istiod's `DetectNativeSidecar` (istio
/// 1.27 `pkg/kube/inject/webhook.go`) enables it only when every node's kubelet is
/// 1.33 or later. `kubelets` is `None` when the nodes could not be read.
pub fn kubernetes(server: &str, kubelets: Option<&[String]>) -> Option<Sourced<KubeVersion>> {
    let server_version = KubeVersion::parse(server)?;
    let mut versions: Vec<(KubeVersion, &str)> = kubelets
        .unwrap_or_default()
        .iter()
        .filter_map(|text| Some((KubeVersion::parse(text)?, text.as_str())))
        .collect();
    versions.sort();
    let described = match (kubelets, versions.first(), versions.last()) {
        (None, ..) => format!("server {server}; the nodes' kubelet versions unread"),
        (Some(_), Some((_, oldest)), Some((_, newest))) if oldest != newest => {
            format!("server {server}, kubelets {oldest} to {newest}")
        }
        (Some(_), Some((_, kubelet)), _) => format!("server {server}, kubelets {kubelet}"),
        (Some(_), ..) => format!("server {server}, no nodes"),
    };
    let oldest = versions.first().map_or(server_version, |(kubelet, _)| {
        (*kubelet).min(server_version)
    });
    Some(Sourced::new(oldest, Source::Cluster(Arc::from(described))))
}

/// The oldest kubelet of the nodes, which Istio's `auto` native-sidecar mode looks at
/// (istiod's `DetectNativeSidecar`); `None` when the nodes could not be read or there
/// are none.
pub fn nodes(kubelets: Option<&[String]>) -> Option<Sourced<KubeVersion>> {
    let (version, text) = kubelets?
        .iter()
        .filter_map(|text| Some((KubeVersion::parse(text)?, text)))
        .min()?;
    Some(Sourced::new(
        version,
        Source::Cluster(Arc::from(format!("oldest kubelet {text}"))),
    ))
}

/// A Namespace's labels and annotations.
pub fn namespace(object: &ApiObject) -> (String, NamespaceInfo) {
    let map = |key: &str| -> BTreeMap<String, String> {
        object
            .json
            .pointer(&format!("/metadata/{key}"))
            .and_then(Value::as_object)
            .map(|entries| {
                entries
                    .iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                    .collect()
            })
            .unwrap_or_default()
    };
    let info = NamespaceInfo {
        labels: map("labels"),
        annotations: map("annotations"),
        source: Some(Source::Cluster(Arc::from(format!(
            "Namespace {}",
            object.name
        )))),
    };
    (object.name.clone(), info)
}

/// The revision an istiod Deployment serves (`istio.io/rev`, `default` without one),
/// with the version of its image and its `ENABLE_NATIVE_SIDECARS`.
pub fn istiod(object: &ApiObject) -> (String, Revision) {
    let revision = object
        .label("istio.io/rev")
        .unwrap_or(DEFAULT_REVISION)
        .to_owned();
    let deployment = format!(
        "{}/{}",
        object.namespace.as_deref().unwrap_or(ISTIO_NAMESPACE),
        object.name
    );
    let containers = object
        .json
        .pointer("/spec/template/spec/containers")
        .and_then(Value::as_array);
    // The chart's container is `discovery`; a single container is taken whatever its name.
    let discovery = containers.and_then(|containers| {
        containers
            .iter()
            .find(|c| c.get("name").and_then(Value::as_str) == Some("discovery"))
            .or_else(|| (containers.len() == 1).then(|| &containers[0]))
    });
    let image = discovery
        .and_then(|c| c.get("image"))
        .and_then(Value::as_str);
    let version = image.and_then(|image| {
        let version = IstioVersion::parse(image_tag(image)?)?;
        Some(Sourced::new(
            version,
            Source::Cluster(Arc::from(format!("istiod image {image}"))),
        ))
    });
    let native_sidecars = discovery
        .and_then(|c| c.get("env"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|var| var.get("name").and_then(Value::as_str) == Some("ENABLE_NATIVE_SIDECARS"))
        .and_then(|var| var.get("value").and_then(Value::as_str))
        .map(|value| {
            Sourced::new(
                NativeSidecars::from_env(value),
                Source::Cluster(Arc::from(format!("istiod Deployment {deployment}"))),
            )
        });
    (
        revision,
        Revision {
            configmaps: Vec::new(),
            version,
            native_sidecars,
        },
    )
}

/// The tag of an image reference (`1.24.2` of `docker.io/istio/pilot:1.24.2`), not a
/// registry's port; `None` for a digest or no tag.
fn image_tag(image: &str) -> Option<&str> {
    let image = image.split('@').next()?;
    let (repository, tag) = image.rsplit_once(':')?;
    (!tag.contains('/') && !repository.is_empty()).then_some(tag)
}

/// The revision tag a MutatingWebhookConfiguration of `istioctl tag` (or the chart's
/// `revisionTags`) stands for, and the revision it names.
pub fn tag(object: &ApiObject) -> Option<(String, String)> {
    Some((
        object.label("istio.io/tag")?.to_owned(),
        object
            .label("istio.io/rev")
            .unwrap_or(DEFAULT_REVISION)
            .to_owned(),
    ))
}

/// The ConfigMaps of revision `revision`: `istio` and `istio-sidecar-injector`, with
/// `-REV` for a named one (istio-discovery chart, `configmap.yaml` and
/// `istiod-injector-configmap.yaml`).
pub fn configmap_names(revision: &str) -> [String; 2] {
    if revision == DEFAULT_REVISION {
        ["istio".to_owned(), "istio-sidecar-injector".to_owned()]
    } else {
        [
            format!("istio-{revision}"),
            format!("istio-sidecar-injector-{revision}"),
        ]
    }
}

/// The revision whose ConfigMap `name` is, by [`configmap_names`].
pub fn configmap_revision(name: &str) -> Option<&str> {
    let rest = name
        .strip_prefix("istio-sidecar-injector")
        .or_else(|| name.strip_prefix("istio"))?;
    match rest.strip_prefix('-') {
        Some(revision) if !revision.is_empty() => Some(revision),
        None if rest.is_empty() => Some(DEFAULT_REVISION),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> ApiObject {
        ApiObject::new(value).unwrap()
    }

    #[test]
    fn the_oldest_of_server_and_kubelets() {
        let kubelets = ["v1.31.4".to_owned(), "v1.32.1-eks-1".to_owned()];
        let version = kubernetes("v1.32.1", Some(&kubelets)).unwrap();
        assert_eq!(version.value, KubeVersion { minor: 31 });
        assert_eq!(
            version.source.to_string(),
            "server v1.32.1, kubelets v1.31.4 to v1.32.1-eks-1, from the cluster"
        );
        let version = kubernetes("v1.30.0", None).unwrap();
        assert_eq!(version.value, KubeVersion { minor: 30 });
        assert!(version.source.to_string().contains("unread"));
        assert!(kubernetes("not a version", None).is_none());
    }

    #[test]
    fn istiod_gives_its_revision_version_and_native_mode() {
        let deployment = object(json!({
            "kind": "Deployment",
            "metadata": {"name": "istiod-canary", "namespace": "istio-system",
                         "labels": {"app": "istiod", "istio.io/rev": "canary"}},
            "spec": {"template": {"spec": {"containers": [{
                "name": "discovery",
                "image": "registry.local:5000/istio/pilot:1.25.1-distroless",
                "env": [{"name": "ENABLE_NATIVE_SIDECARS", "value": "true"}]
            }]}}}
        }));
        let (revision, found) = istiod(&deployment);
        assert_eq!(revision, "canary");
        assert_eq!(found.version.unwrap().value, IstioVersion::new(25));
        assert_eq!(found.native_sidecars.unwrap().value, NativeSidecars::On);
        assert_eq!(image_tag("registry.local:5000/istio/pilot"), None);
        assert_eq!(image_tag("istio/pilot:1.24.2"), Some("1.24.2"));
        assert_eq!(image_tag("istio/pilot@sha256:abc"), None);
    }

    #[test]
    fn configmap_names_and_revisions_round_trip() {
        for revision in [DEFAULT_REVISION, "canary", "1-24-2"] {
            for name in configmap_names(revision) {
                assert_eq!(configmap_revision(&name), Some(revision), "{name}");
            }
        }
        assert_eq!(
            configmap_revision("istio-ca-root-cert"),
            Some("ca-root-cert")
        );
        assert_eq!(configmap_revision("istiod"), None);
        assert_eq!(configmap_revision("kube-root-ca.crt"), None);
    }

    #[test]
    fn the_default_revision() {
        let mut profile = Profile::default();
        assert_eq!(profile.default_revision(), None);
        profile.revisions.insert("1-24".into(), Revision::default());
        assert_eq!(profile.default_revision(), Some("1-24"), "the only one");
        profile.revisions.insert("1-25".into(), Revision::default());
        assert_eq!(profile.default_revision(), None, "no way to tell");
        profile.tags.insert("default".into(), "1-25".into());
        assert_eq!(profile.default_revision(), Some("1-25"), "the default tag");
        profile.tags.clear();
        profile
            .revisions
            .insert(DEFAULT_REVISION.into(), Revision::default());
        assert_eq!(profile.default_revision(), Some(DEFAULT_REVISION));
    }
}
