use crate::fix::{Applicability, Change, Remedy};
use crate::resolve::{GateMoot, Moot};
use crate::rules::help::source_label;
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Violation, declare_rule};
use crate::settings::Source;

declare_rule! {
    /// ## What it detects
    /// A start gate made moot by another: `holdApplicationUntilProxyStarts` for a native
    /// Istio sidecar (the injector ignores it; the startup probe holds the app), a
    /// `linkerd-await` or `pilot-agent wait` postStart on a native proxy that already
    /// has a startup probe. (Without the probe, the postStart is the gate: the kubelet
    /// starts the next container only when a native sidecar's postStart has finished.)
    ///
    /// ## Why it loses traffic
    /// It does not by itself, but it misleads: the setting suggests a mechanism that is
    /// not the one at work, and a redundant postStart that times out kills the proxy
    /// (docs/lifecycle.md §1.1, §7 F7, F9).
    ///
    /// ## Example
    /// ```yaml
    /// annotations:
    ///   sidecar.istio.io/nativeSidecar: "true"
    ///   proxy.istio.io/config: '{"holdApplicationUntilProxyStarts": true}'
    /// ```
    ///
    /// ## Fix
    /// Remove the redundant setting: the `holdApplicationUntilProxyStarts` key of
    /// `proxy.istio.io/config`, or the proxy's postStart `linkerd-await` or
    /// `pilot-agent wait`. The startup probe goes on holding the app.
    ///
    /// `lint --fix` (safe) removes it where the manifest writes it: the key inside
    /// `proxy.istio.io/config`, edited in that annotation's own format (an annotation
    /// that held only the hold is left as `{}`, which Istio reads as no override, as an
    /// absent annotation), or the `postStart` of a proxy container written in the
    /// manifest (a `lifecycle` that held only it is left as `{}`). A hold set outside
    /// the manifest (mesh config, Helm values, a preset) gets no fix: it is not in the
    /// file, and it may still hold the classic sidecars of other pods.
    ///
    /// ## Evidence
    /// The manifest and the profile's versions alone: nothing it rests on is assumed, so
    /// it keeps its severity.
    ///
    /// ## References
    /// - docs/lifecycle.md §3.2 (layout C ignores hold), §1.2 (startupProbe gating), §4.2 (Linkerd native), §5.3 (Kuma's native sidecar replaces the `kuma-dp wait` postStart), §7 F9
    /// - https://github.com/istio/istio/issues/59690
    pub struct RedundantGate {
        id: "ML403",
        name: "redundant-gate",
        severity: Info,
        fix: Sometimes,
        group: Configuration,
        summary: "a start gate made moot by another",
        since: "0.1.0",
        admission: true,
    }
}

/// A start gate that adds nothing to what already holds the app.
struct RedundantSetting<'a>(&'a GateMoot);

/// Why the gate adds nothing, in the rule's words (`diff` says it of a setting that
/// becomes moot).
pub fn why(moot: &GateMoot) -> String {
    RedundantSetting(moot).message()
}

impl Violation for RedundantSetting<'_> {
    const RULE: &'static RuleMeta = &RedundantGate::META;

    fn message(&self) -> String {
        match self.0 {
            GateMoot::WaitUnderStartupProbe { command } => format!(
                "the native proxy's startupProbe already holds the app; the postStart `{command}` adds nothing (and kills the proxy if it times out)"
            ),
            GateMoot::HoldIgnoredWhenNative { setting } => format!(
                "{setting} is ignored for native sidecars: the startup probe already holds the app"
            ),
        }
    }

    fn help(&self) -> String {
        "remove the redundant setting".into()
    }
}

impl Rule for RedundantGate {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        for (moot, why) in plan.moot_settings.iter().filter_map(|m| match &m.why {
            Moot::Gate(why) => Some((m, why)),
            Moot::Drain(_) => None,
        }) {
            // A hook is the field to remove: point at its key, not into its body.
            let hook = match &moot.source {
                Source::Manifest(path) if path.ends_with_key("postStart") => {
                    Some(Label::key(path.clone(), "redundant"))
                }
                _ => None,
            };
            let primary = hook
                .or_else(|| source_label(&moot.source, "redundant"))
                .unwrap_or_else(|| {
                    Label::key(
                        plan.paths.pod_metadata.clone(),
                        format!("from {}: redundant", moot.source),
                    )
                });
            findings.push(
                Finding::new(&RedundantSetting(why), primary).with_fix(remove(&moot.source, why)),
            );
        }
    }
}

/// The redundant gate removed where the manifest writes it. Safe: the startup probe
/// holds the app as before, and nothing else reads the setting for this pod.
fn remove(source: &Source, why: &GateMoot) -> Option<Remedy> {
    let Source::Manifest(path) = source else {
        return None;
    };
    let description = match why {
        GateMoot::WaitUnderStartupProbe { command } => {
            format!("remove the postStart `{command}`; the startup probe holds the app")
        }
        GateMoot::HoldIgnoredWhenNative { setting } => {
            format!("remove `{setting}`, which native sidecars ignore")
        }
    };
    Some(Remedy::new(
        Applicability::Safe,
        description,
        vec![Change::Remove(path.clone())],
    ))
}
