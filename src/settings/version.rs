//! Release versions of Kubernetes, Istio and Linkerd, and the boundaries the model uses.

use std::cmp::Ordering;
use std::fmt;

/// A Kubernetes minor release (`1.29`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    /// The minor version: 29 for 1.29.
    pub minor: u32,
}

impl KubeVersion {
    /// The newest release whose behaviour the model encodes (the sleep action went GA
    /// in 1.34); newer releases behave the same for everything modelled.
    pub const NEWEST_KNOWN: KubeVersion = KubeVersion { minor: 34 };

    /// Parses `1.29`, `v1.29.3` or `1.29.3-gke.100`.
    pub fn parse(text: &str) -> Option<KubeVersion> {
        let (major, minor) = major_minor(text)?;
        (major == 1).then_some(KubeVersion { minor })
    }

    /// Whether `spec.initContainers[*].restartPolicy: Always` makes a sidecar (the
    /// `SidecarContainers` gate: alpha and off in 1.28, on from 1.29). docs/lifecycle.md §1.2.
    pub fn runs_native_sidecars(self) -> bool {
        self.minor >= 29
    }

    /// Whether the kubelet stops native sidecars after the app containers, in reverse
    /// order (1.29+). docs/lifecycle.md §2.4.
    pub fn orders_sidecar_termination(self) -> bool {
        self.minor >= 29
    }

    /// Whether `lifecycle.*.sleep` is enabled (`PodLifecycleSleepAction`: alpha 1.29,
    /// on from 1.30). docs/lifecycle.md §2.3.
    pub fn has_sleep_action(self) -> bool {
        self.minor >= 30
    }

    /// Whether the API has the `sleep` field at all (1.29+); older API servers leave
    /// the handler empty. docs/lifecycle.md §2.3.
    pub fn knows_sleep_action(self) -> bool {
        self.minor >= 29
    }

    /// Whether the API server drops a sleep action before validation: in 1.29 its gate
    /// is alpha and off (`dropPodLifecycleSleepAction`). docs/lifecycle.md §2.3.
    pub fn drops_sleep_action(self) -> bool {
        self.knows_sleep_action() && !self.has_sleep_action()
    }

    /// Whether the sleep action is GA and locked on (1.34), rather than a beta gate a
    /// cluster may have turned off. docs/lifecycle.md §2.3.
    pub fn sleep_action_is_ga(self) -> bool {
        self.minor >= 34
    }

    /// Whether `sleep.seconds: 0` is accepted (`PodLifecycleSleepActionAllowZero`:
    /// beta, on, from 1.33). docs/lifecycle.md §2.3.
    pub fn allows_zero_sleep(self) -> bool {
        self.minor >= 33
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor)
    }
}

/// An Istio minor release (`1.24`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IstioVersion {
    /// The minor version: 24 for 1.24.
    pub minor: u32,
}

impl IstioVersion {
    /// Parses `1.24`, `1.24.2` or `v1.24.2`.
    pub fn parse(text: &str) -> Option<IstioVersion> {
        let (major, minor) = major_minor(text)?;
        (major == 1).then_some(IstioVersion { minor })
    }

    /// Istio `1.{minor}`.
    pub const fn new(minor: u32) -> IstioVersion {
        IstioVersion { minor }
    }
}

impl fmt::Display for IstioVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor)
    }
}

/// A Linkerd release: a stable line (`stable-2.14.0`, `version-2.20`) or an edge
/// release (`edge-26.5.2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LinkerdVersion {
    /// `stable-2.{minor}.x` or `version-2.{minor}`.
    Stable {
        /// The minor version: 14 for 2.14.
        minor: u32,
    },
    /// `edge-{year}.{month}.{build}`.
    Edge {
        /// Two digits: 24 for 2024.
        year: u32,
        /// 1 to 12.
        month: u32,
        /// The release within the month.
        build: u32,
    },
}

impl LinkerdVersion {
    /// Parses `2.20`, `version-2.20`, `stable-2.14.0` or `edge-26.5.2`.
    pub fn parse(text: &str) -> Option<LinkerdVersion> {
        let text = text.trim();
        if let Some(edge) = text.strip_prefix("edge-") {
            let mut parts = edge.split('.').map(|p| p.parse::<u32>().ok());
            let (year, month, build) = (parts.next()??, parts.next()??, parts.next()??);
            return Some(LinkerdVersion::Edge { year, month, build });
        }
        let stable = text
            .strip_prefix("version-")
            .or_else(|| text.strip_prefix("stable-"))
            .unwrap_or(text);
        let (major, minor) = major_minor(stable)?;
        (major == 2).then_some(LinkerdVersion::Stable { minor })
    }

    /// Whether this release is at least the stable line `minor` or the edge release that
    /// became it.
    pub fn at_least(self, minor: u32, edge: (u32, u32, u32)) -> bool {
        match self {
            LinkerdVersion::Stable { minor: m } => m >= minor,
            LinkerdVersion::Edge { year, month, build } => {
                (year, month, build).cmp(&edge) != Ordering::Less
            }
        }
    }

    /// `POST :4191/shutdown` is off unless enabled, since edge-24.6.2 / 2.16. docs/lifecycle.md §4.3.
    pub fn shutdown_endpoint_off_by_default(self) -> bool {
        self.at_least(16, (24, 6, 2))
    }

    /// Native sidecar mode is the default from edge-26.5.2 / 2.20. docs/lifecycle.md §4.2.
    pub fn native_by_default(self) -> bool {
        self.at_least(20, (26, 5, 2))
    }
}

impl fmt::Display for LinkerdVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkerdVersion::Stable { minor } => write!(f, "2.{minor}"),
            LinkerdVersion::Edge { year, month, build } => write!(f, "edge-{year}.{month}.{build}"),
        }
    }
}

fn major_minor(text: &str) -> Option<(u32, u32)> {
    let text = text.trim();
    let text = text.strip_prefix('v').unwrap_or(text);
    let mut parts = text.split(['.', '-', '+']);
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_kubernetes_versions() {
        assert_eq!(KubeVersion::parse("1.29"), Some(KubeVersion { minor: 29 }));
        assert_eq!(
            KubeVersion::parse("v1.30.4-gke.100"),
            Some(KubeVersion { minor: 30 })
        );
        assert_eq!(KubeVersion::parse("2.0"), None);
        assert_eq!(KubeVersion::parse("latest"), None);
    }

    #[test]
    fn s2_3_sleep_action_boundaries_1_29_1_30_1_33_1_34() {
        let v = |minor| KubeVersion { minor };
        assert!(!v(29).has_sleep_action());
        assert!(v(30).has_sleep_action());
        assert!(!v(33).sleep_action_is_ga());
        assert!(v(34).sleep_action_is_ga());
        assert!(!v(32).allows_zero_sleep());
        assert!(v(33).allows_zero_sleep());
    }

    #[test]
    fn kubernetes_feature_boundaries() {
        let v = |minor| KubeVersion { minor };
        assert!(!v(28).runs_native_sidecars());
        assert!(v(29).runs_native_sidecars());
        assert!(!v(29).has_sleep_action());
        assert!(v(30).has_sleep_action());
        assert!(!v(32).allows_zero_sleep());
        assert!(v(33).allows_zero_sleep());
    }

    #[test]
    fn parses_linkerd_versions() {
        assert_eq!(
            LinkerdVersion::parse("version-2.20"),
            Some(LinkerdVersion::Stable { minor: 20 })
        );
        assert_eq!(
            LinkerdVersion::parse("stable-2.14.0"),
            Some(LinkerdVersion::Stable { minor: 14 })
        );
        assert_eq!(
            LinkerdVersion::parse("edge-26.5.2"),
            Some(LinkerdVersion::Edge {
                year: 26,
                month: 5,
                build: 2
            })
        );
    }

    #[test]
    fn linkerd_boundaries_both_sides() {
        let stable = |minor| LinkerdVersion::Stable { minor };
        assert!(!stable(15).shutdown_endpoint_off_by_default());
        assert!(stable(16).shutdown_endpoint_off_by_default());
        assert!(!stable(19).native_by_default());
        assert!(stable(20).native_by_default());
        let edge = |year, month, build| LinkerdVersion::Edge { year, month, build };
        assert!(!edge(24, 6, 1).shutdown_endpoint_off_by_default());
        assert!(edge(24, 6, 2).shutdown_endpoint_off_by_default());
        assert!(!edge(26, 5, 1).native_by_default());
        assert!(edge(26, 5, 2).native_by_default());
    }
}
