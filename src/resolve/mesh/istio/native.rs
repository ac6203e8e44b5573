//! Whether the injector makes the proxy a native sidecar (docs/lifecycle.md §3.3): the
//! pod annotation as each release reads it, and istiod's own `ENABLE_NATIVE_SIDECARS`.

use super::*;

/// The pod annotation that asks for a native proxy (from 1.24).
pub(super) const NATIVE: &str = "sidecar.istio.io/nativeSidecar";

/// The first minor whose injection template reads [`NATIVE`] (istio#53490).
pub(super) const NATIVE_SINCE: u32 = 24;
/// The first minor whose template takes any value of [`NATIVE`] but `"false"` as on.
const ANY_VALUE_SINCE: u32 = 27;

/// Whether the injector makes the proxy a native sidecar (docs/lifecycle.md §3.3).
pub(super) fn native_mode(b: &mut Builder) -> (bool, NativeReason) {
    let (global, global_reason) = native_by_default(b);
    let Some((value, path)) = b.workload.pod_annotation(NATIVE) else {
        return (global, global_reason);
    };
    let annotation = NativeReason::Annotation {
        key: NATIVE,
        value: value.to_owned(),
        source: Source::Manifest(path.clone()),
    };
    match version(b) {
        // The annotation arrived in 1.24 (istio#53490); earlier templates never read it.
        Some(v) if v.minor < NATIVE_SINCE => {
            b.problem(
                path,
                Fault::OptInIgnored(OptInIgnored::NativeAnnotationTooNew {
                    mesh: MESH,
                    setting: NATIVE,
                    since: IstioVersion::new(NATIVE_SINCE).to_string(),
                    release: v.to_string(),
                    native_anyway: global,
                    instead: "ENABLE_NATIVE_SIDECARS on istiod",
                }),
            );
            (global, global_reason)
        }
        // 1.24–1.26: `eq (index .ObjectMeta.Annotations …) "true"`.
        Some(v) if v.minor < ANY_VALUE_SINCE => {
            let on = value == "true";
            if !on && value != "false" && looks_true(value) {
                let release = v.to_string();
                misread(b, path, value, ExactValue::OnlyTrueEnables { release });
            }
            (on, annotation)
        }
        // 1.27+: `ne (index … | default (printf "%t" .NativeSidecars)) "false"`: any
        // value but "false" enables native mode; an empty one leaves the default.
        _ if value.is_empty() => (global, global_reason),
        _ => {
            let on = value != "false";
            if on && !looks_true(value) {
                let since = IstioVersion::new(ANY_VALUE_SINCE).to_string();
                misread(b, path, value, ExactValue::OnlyFalseDisables { since });
            }
            (on, annotation)
        }
    }
}

/// The native-sidecar annotation's `value`, at `path`, means what it does not look like
/// in this release.
fn misread(b: &mut Builder, path: JsonPath, value: &str, reading: ExactValue) {
    b.problem(
        path,
        Fault::OptInIgnored(OptInIgnored::NativeValueMisread {
            mesh: MESH,
            setting: NATIVE,
            value: value.to_owned(),
            reading,
        }),
    );
}

/// The pod annotation that makes the injector add a native proxy, when Istio `istio`
/// (unknown: the resolver's reading of an unknown version, which has every feature)
/// reads it and Kubernetes `kubernetes` runs native sidecars. `"true"` is the value
/// every release that reads the annotation takes as on (see [`native_mode`]).
pub fn native_switch(istio: Option<IstioVersion>, kubernetes: KubeVersion) -> Option<NativeSwitch> {
    let read = istio.is_none_or(|v| v.minor >= NATIVE_SINCE);
    (read && kubernetes.runs_native_sidecars()).then_some(NativeSwitch::new(NATIVE, "true"))
}

/// The first minor whose istiod reads `ENABLE_NATIVE_SIDECARS`.
const INSTALL_SWITCH_SINCE: u32 = 19;

/// istiod's `ENABLE_NATIVE_SIDECARS`, where Istio `istio` has it but no pod annotation
/// for native mode (1.19 to 1.23) and Kubernetes `kubernetes` runs native sidecars: the
/// only way to a native proxy there, for every pod istiod injects. `gated`: whether the
/// native proxy gets its startup probe.
pub fn install_switch(
    istio: Option<IstioVersion>,
    kubernetes: KubeVersion,
    gated: bool,
) -> Option<InstallSwitch> {
    let minor = istio?.minor;
    let read = (INSTALL_SWITCH_SINCE..NATIVE_SINCE).contains(&minor);
    (read && kubernetes.runs_native_sidecars()).then_some(InstallSwitch {
        component: "istiod",
        variable: "ENABLE_NATIVE_SIDECARS",
        value: "true",
        gated,
    })
}

/// A value that reads as "yes" (`true`, `True`, `1`, `yes`, `on`, …).
pub(super) fn looks_true(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "true" | "t" | "1" | "yes" | "y" | "on"
    )
}

/// istiod's own choice, without the pod annotation (`ENABLE_NATIVE_SIDECARS`,
/// `DetectNativeSidecar`): a boolean, off by default, in Istio 1.19–1.26; from 1.27
/// `true`, `false` or `auto`, `auto` by default, native when the nodes run Kubernetes
/// 1.33 or later (docs/lifecycle.md §3.3).
pub(super) fn native_by_default(b: &mut Builder) -> (bool, NativeReason) {
    const SETTING: &str = "ENABLE_NATIVE_SIDECARS";
    // `auto` looks at the nodes' kubelets, not the API server.
    let kubernetes = b.settings.node_version().value;
    let auto = |from: AutoFrom| {
        let reason = NativeReason::Auto {
            name: SETTING,
            from,
            native_from: AUTO_NATIVE_FROM,
            kubernetes,
        };
        (kubernetes >= AUTO_NATIVE_FROM, reason)
    };
    let given = revision_settings(b)
        .version
        .as_ref()
        .map(|v| v.source.clone());
    match (revision_settings(b).native_sidecars.clone(), version(b)) {
        (Some(setting), v) => match setting.value {
            NativeSidecars::On | NativeSidecars::Off => {
                let native = setting.value == NativeSidecars::On;
                let reason = NativeReason::Setting {
                    name: SETTING,
                    native,
                    source: setting.source,
                };
                (native, reason)
            }
            NativeSidecars::Auto => match v {
                Some(release) if release < AUTO_SINCE => {
                    let reason = NativeReason::AutoUnknown {
                        name: SETTING,
                        source: setting.source,
                        release,
                        since: AUTO_SINCE,
                    };
                    (false, reason)
                }
                _ => auto(AutoFrom::Setting(setting.source)),
            },
        },
        (None, Some(v)) if v >= AUTO_SINCE => auto(AutoFrom::ReleaseDefault(
            v,
            given.unwrap_or(Source::Default),
        )),
        (None, Some(v)) => {
            let release = Release::Istio(v);
            (
                false,
                NativeReason::ReleaseDefault {
                    release,
                    native: false,
                    source: given.unwrap_or(Source::Default),
                },
            )
        }
        (None, None) => {
            b.assume(
                Assumed::MeshVersionUnknown {
                    mesh: MESH,
                    native_since: Release::Istio(AUTO_SINCE),
                    native_nodes: Some(AUTO_NATIVE_FROM),
                    flag_name: "istio",
                    api_server: false,
                },
                Source::Default,
            );
            let before = Release::Istio(AUTO_SINCE);
            (false, NativeReason::UnknownRelease { before })
        }
    }
}

/// The first release whose `ENABLE_NATIVE_SIDECARS` takes `auto`, its default.
pub(super) const AUTO_SINCE: IstioVersion = IstioVersion::new(27);

/// `auto` makes native sidecars where the nodes run this Kubernetes or later.
pub(super) const AUTO_NATIVE_FROM: KubeVersion = KubeVersion { minor: 33 };
