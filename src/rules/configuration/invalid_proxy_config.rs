use super::report_problems;
use crate::resolve::{Expected, Fault, Unreadable};
use crate::rules::{Finding, Pod, Rule, RuleMeta, Violation, declare_rule};

declare_rule! {
    /// ## What it detects
    /// A mesh setting that cannot be read: a `proxy.istio.io/config` annotation that is
    /// not YAML or has wrongly typed fields (`terminationDrainDuration: 25` instead of
    /// `"25s"`), Linkerd duration and seconds annotations that do not parse, Dapr,
    /// Consul and Kuma timing annotations, this tool's own `mesh-lifecycle.io/*` scenario
    /// annotations, and a negative `terminationGracePeriodSeconds`.
    ///
    /// ## Why it loses traffic
    /// The setting the author relied on is not applied: Istio's injector and agent reject
    /// or ignore an unparsable ProxyConfig (docs/lifecycle.md §3.7), so the hold, the drain or
    /// `EXIT_ON_ZERO_ACTIVE_CONNECTIONS` silently fall back to defaults; a negative grace
    /// period is taken as 1 s (kubernetes#115606), leaving the pod the kubelet's 2 s
    /// minimum to stop.
    ///
    /// ## Example
    /// ```yaml
    /// proxy.istio.io/config: |
    ///   terminationDrainDuration: 25
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// proxy.istio.io/config: |
    ///   terminationDrainDuration: 25s
    /// ```
    ///
    /// `lint --fix` makes no change: an invalid value's intent is unknown (`25` may mean
    /// seconds or milliseconds, a misspelt key any of several), so only its author can
    /// say what was meant.
    ///
    /// ## Evidence
    /// The manifest and the profile's versions alone: nothing it rests on is assumed, so
    /// it keeps its severity.
    ///
    /// ## References
    /// - docs/lifecycle.md §3.7 (ProxyConfig sources and format), §4.2 and §4.3 (Linkerd annotations), §5 (other sidecars' annotations), §2.1
    /// - https://istio.io/latest/docs/reference/config/istio.mesh.v1alpha1/#ProxyConfig
    /// - https://github.com/kubernetes/kubernetes/pull/115606
    pub struct InvalidProxyConfig {
        id: "ML401",
        name: "invalid-proxy-config",
        severity: Error,
        fix: Never,
        group: Configuration,
        summary: "an unparsable or wrongly typed mesh setting",
        since: "0.1.0",
        admission: true,
    }
}

/// A mesh setting that cannot be read.
struct UnreadableSetting<'a>(&'a Unreadable);

impl Violation for UnreadableSetting<'_> {
    const RULE: &'static RuleMeta = &InvalidProxyConfig::META;

    fn message(&self) -> String {
        match self.0 {
            Unreadable::ProxyConfig { denied: true, .. } => {
                format!("{}; the sidecar injector denies the pod", what(self.0))
            }
            _ => what(self.0),
        }
    }

    fn help(&self) -> String {
        match self.0 {
            Unreadable::Value {
                setting,
                expected: Expected::Switch,
                ..
            } => format!("write `{setting}: enabled` or `disabled`"),
            _ => "fix the value: durations are strings such as \"25s\", booleans are true or false"
                .to_owned(),
        }
    }
}

/// What is wrong with the setting; also why an injector that reads it denies the pod.
pub(crate) fn what(unreadable: &Unreadable) -> String {
    match unreadable {
        Unreadable::Value {
            setting,
            value,
            expected,
        } => match expected {
            Expected::Duration { example } => {
                format!("`{setting}: {value}` is not a duration such as \"{example}\"")
            }
            Expected::WholeSeconds { fallback: None } => {
                format!("`{setting}: {value}` is not a whole number of seconds")
            }
            Expected::WholeSeconds {
                fallback: Some((sidecar, length)),
            } => format!(
                "`{setting}: {value}` is not a whole number of seconds; {sidecar} keeps its {length}"
            ),
            Expected::Switch => {
                format!("`{setting}: {value}` is not enabled or disabled; the injector ignores it")
            }
        },
        Unreadable::ProxyConfig {
            setting,
            field,
            error,
            ..
        } if field.is_empty() => format!("`{setting}` cannot be read: {error}"),
        Unreadable::ProxyConfig {
            setting,
            field,
            error,
            ..
        } => format!("`{setting}` field `{field}`: {error}"),
        Unreadable::NegativeGracePeriod { seconds } => format!(
            "terminationGracePeriodSeconds is {seconds}: the API server treats a negative grace period as 1 s (Kubernetes 1.27 and later), and the kubelet allows its 2 s minimum"
        ),
    }
}

impl Rule for InvalidProxyConfig {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        report_problems(
            pod,
            |fault| match fault {
                Fault::Unreadable(unreadable) => Some(UnreadableSetting(unreadable)),
                _ => None,
            },
            |_| None,
            findings,
        );
    }
}
