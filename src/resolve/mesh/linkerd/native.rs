//! Whether the injector makes the proxy a native sidecar (docs/lifecycle.md §4.2): the
//! alpha, beta and GA annotations each release reads, and the install value.

use super::*;

/// The native-sidecar annotations, strongest first (the GA key wins over beta over
/// alpha), each with the stable line and edge release that first reads it
/// (`pkg/k8s/labels.go` at version-2.15, version-2.19, version-2.20).
pub(super) const NATIVE: [NativeKey; 3] = [
    NativeKey {
        key: "config.linkerd.io/proxy-enable-native-sidecar",
        since: (20, (26, 5, 2)),
    },
    NativeKey {
        key: "config.beta.linkerd.io/proxy-enable-native-sidecar",
        since: (19, (25, 10, 2)),
    },
    NativeKey {
        key: "config.alpha.linkerd.io/proxy-enable-native-sidecar",
        since: (15, (23, 11, 4)),
    },
];

/// A native-sidecar annotation and the first release that reads it.
pub(super) struct NativeKey {
    pub(super) key: &'static str,
    /// The stable minor and the edge release (year, month, build).
    pub(super) since: (u32, (u32, u32, u32)),
}

impl NativeKey {
    fn release(&self) -> String {
        let (minor, (year, month, build)) = self.since;
        format!("2.{minor} (edge-{year}.{month}.{build})")
    }
}

/// The native-sidecar annotation to write for Linkerd `linkerd` on Kubernetes
/// `kubernetes`: the strongest key the release reads, or for an unknown release the
/// alpha key, which every release with native sidecars reads. `None` when the release
/// has no native sidecars or the cluster does not run them. `"true"` parses as on with
/// `strconv.ParseBool`, which every release uses.
pub fn native_switch(
    linkerd: Option<LinkerdVersion>,
    kubernetes: KubeVersion,
) -> Option<NativeSwitch> {
    if !kubernetes.runs_native_sidecars() {
        return None;
    }
    let key = match linkerd {
        Some(version) => NATIVE
            .iter()
            .find(|key| version.at_least(key.since.0, key.since.1))?,
        None => NATIVE.last()?,
    };
    Some(NativeSwitch::new(key.key, "true"))
}

/// Whether the injector makes the proxy a native sidecar, and why
/// (docs/lifecycle.md §4.2): the strongest key this release reads decides, read with
/// `strconv.ParseBool`; an unparsable value keeps the default, and a key the release
/// does not read does nothing (both recorded as problems).
pub(super) fn native_mode(b: &mut Builder) -> (bool, NativeReason) {
    let (default, default_reason) = native_by_default(b);
    let version = b.settings.linkerd.version.as_ref().map(|v| v.value);
    let mut decided = None;
    for native in &NATIVE {
        let Some((value, source)) = native_setting(b, native.key) else {
            continue;
        };
        let known = version_at_least(b, native.since.0, native.since.1) != Some(false);
        let complain = |b: &mut Builder, ignored: OptInIgnored| {
            if let Source::Manifest(path) = &source {
                b.problem(path.clone(), Fault::OptInIgnored(ignored));
            }
        };
        if !known {
            let release = version.map(|v| v.to_string()).unwrap_or_default();
            let readable = NATIVE
                .iter()
                .find(|k| version_at_least(b, k.since.0, k.since.1) == Some(true))
                .map(|k| k.key);
            complain(
                b,
                OptInIgnored::KeyTooNew {
                    mesh: MESH,
                    release,
                    key: native.key,
                    since: native.release(),
                    instead: match readable {
                        Some(key) => KeyInstead::Key(key),
                        None => KeyInstead::NeedsRelease("2.15"),
                    },
                },
            );
            continue;
        }
        if decided.is_some() {
            continue;
        }
        match crate::resolve::parse_go_bool(&value) {
            Some(on) => {
                let reason = NativeReason::Annotation {
                    key: native.key,
                    value: value.clone(),
                    source: source.clone(),
                };
                decided = Some((on, reason));
            }
            None => {
                complain(
                    b,
                    OptInIgnored::NotBoolean {
                        key: native.key,
                        value: value.clone(),
                        default_native: default,
                    },
                );
                decided = Some((default, default_reason.clone()));
            }
        }
    }
    decided.unwrap_or((default, default_reason))
}

/// A native-sidecar annotation of the pod, or of its namespace where the injector
/// copies it: from 2.20 it no longer copies the beta key (`ProxyAnnotations`).
pub(super) fn native_setting(b: &Builder, key: &str) -> Option<(String, Source)> {
    let beta_dropped = key == NATIVE[1].key && version_at_least(b, 20, (26, 5, 2)) != Some(false);
    if beta_dropped {
        return b
            .workload
            .pod_annotation(key)
            .map(|(value, path)| (value.to_owned(), Source::Manifest(path)));
    }
    setting(b, key)
}

/// The first release that injects native sidecars by default (2.20, edge-26.5.2).
const NATIVE_DEFAULT_SINCE: Release = Release::Linkerd(LinkerdVersion::Stable { minor: 20 });

/// The mode when no annotation decides: Helm `proxy.nativeSidecar`, else the release's
/// default (native from 2.20).
pub(super) fn native_by_default(b: &mut Builder) -> (bool, NativeReason) {
    if let Some(setting) = &b.settings.linkerd.native_sidecar {
        let reason = NativeReason::Setting {
            name: "proxy.nativeSidecar",
            native: setting.value,
            source: setting.source.clone(),
        };
        return (setting.value, reason);
    }
    match &b.settings.linkerd.version {
        Some(version) => {
            let native = version.value.native_by_default();
            let release = Release::Linkerd(version.value);
            let source = version.source.clone();
            let reason = NativeReason::ReleaseDefault {
                release,
                native,
                source,
            };
            (native, reason)
        }
        None => {
            b.assume(
                Assumed::MeshVersionUnknown {
                    mesh: MESH,
                    native_since: NATIVE_DEFAULT_SINCE,
                    native_nodes: None,
                    flag_name: "linkerd",
                    api_server: false,
                },
                Source::Default,
            );
            let before = NATIVE_DEFAULT_SINCE;
            (false, NativeReason::UnknownRelease { before })
        }
    }
}

/// The native-sidecar annotation for the Linkerd and Kubernetes versions in force.
pub(super) fn native_switch_in_force(b: &Builder) -> Option<NativeSwitch> {
    native_switch(
        b.settings.linkerd.version.as_ref().map(|v| v.value),
        b.settings.kubernetes.value,
    )
}
