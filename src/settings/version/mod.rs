//! Release versions of Kubernetes and the meshes, and the boundaries the model uses.
//!
//! Each has the range of releases the model knows: the facts it encodes
//! (`docs/lifecycle.md`) were read at these releases. A version older than the range is
//! refused rather than read as its nearest neighbour; a newer one is taken as it is and
//! behaves as the newest the model knows (every boundary below is a "from this release
//! on"), with a note in every report naming both ([`Beyond`]), whether it was given
//! offline or read from a cluster.

use std::cmp::Ordering;
use std::fmt;

pub mod lines;
pub mod mesh;
pub mod range;
pub mod read;

pub use lines::{CloudSqlProxyVersion, ConsulVersion, DaprVersion, KumaVersion, Semver};
pub use range::Beyond;
use range::{KnownOrder, beyond, known};

/// A Kubernetes minor release (`1.29`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    /// The minor version: 29 for 1.29.
    pub minor: u32,
}

impl KubeVersion {
    /// The newest release whose behaviour the model encodes (per-container restart
    /// policy on by default from 1.35; 1.36 changes nothing modelled,
    /// docs/lifecycle.md §2.9).
    pub const NEWEST_KNOWN: KubeVersion = KubeVersion { minor: 36 };

    /// The oldest release the model covers: the kubelet's grace accounting holds from
    /// 1.22 (docs/lifecycle.md §2.2), and every later boundary is modelled.
    pub const OLDEST_KNOWN: KubeVersion = KubeVersion { minor: 22 };

    /// Parses `1.29`, `v1.29.3` or `1.29.3-gke.100`.
    pub fn parse(text: &str) -> Option<KubeVersion> {
        let (major, minor) = major_minor(text)?;
        (major == 1).then_some(KubeVersion { minor })
    }

    /// Parses a version the model knows; the error says why not, with the known range.
    pub fn parse_known(text: &str) -> Result<KubeVersion, String> {
        let version = KubeVersion::parse(text)
            .ok_or_else(|| format!("`{text}` is not a Kubernetes version such as 1.29"))?;
        known(
            "Kubernetes",
            version,
            KubeVersion::OLDEST_KNOWN,
            KubeVersion::NEWEST_KNOWN,
        )
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

    /// Whether a regular container's own `restartPolicy` is honoured
    /// (`ContainerRestartRules`: alpha and off in 1.34, beta and on from 1.35): the
    /// kubelet restarts it in place. docs/lifecycle.md §2.9.
    pub fn honours_container_restart_policy(self) -> bool {
        self.minor >= 35
    }

    /// Whether the API server refuses `restartPolicy` on a regular container: the field
    /// exists from 1.28 (for init containers) and validation forbids it elsewhere until
    /// the `ContainerRestartRules` gate exists (1.34); from then on, with the gate off,
    /// the API server drops it instead (`dropDisabledFields` →
    /// `dropContainerRestartRules`). docs/lifecycle.md §2.9.
    pub fn forbids_container_restart_policy(self) -> bool {
        (28..34).contains(&self.minor)
    }

    /// Whether the version has the `ContainerRestartRules` gate (alpha from 1.34).
    pub fn has_container_restart_rules_gate(self) -> bool {
        self.minor >= 34
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
    /// The oldest release the model covers, the first of its version boundaries
    /// (`/quitquitquit`, docs/lifecycle.md §3.8).
    pub const OLDEST_KNOWN: IstioVersion = IstioVersion::new(3);

    /// The newest release the model covers (the injector read at 1.29.0,
    /// docs/lifecycle.md §3.2).
    pub const NEWEST_KNOWN: IstioVersion = IstioVersion::new(29);

    /// Parses `1.24`, `1.24.2` or `v1.24.2`.
    pub fn parse(text: &str) -> Option<IstioVersion> {
        let (major, minor) = major_minor(text)?;
        (major == 1).then_some(IstioVersion { minor })
    }

    /// Parses a version the model knows; the error says why not, with the known range.
    pub fn parse_known(text: &str) -> Result<IstioVersion, String> {
        let version = IstioVersion::parse(text)
            .ok_or_else(|| format!("`{text}` is not an Istio version such as 1.24"))?;
        known(
            "Istio",
            version,
            IstioVersion::OLDEST_KNOWN,
            IstioVersion::NEWEST_KNOWN,
        )
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
    /// The oldest stable release the model covers (`stable-2.7.0`; the boundaries of
    /// docs/lifecycle.md §4 lie above it).
    pub const OLDEST_STABLE: LinkerdVersion = LinkerdVersion::Stable { minor: 7 };
    /// The newest stable release the model covers (`version-2.20`, docs/lifecycle.md
    /// §4.2).
    pub const NEWEST_STABLE: LinkerdVersion = LinkerdVersion::Stable { minor: 20 };
    /// The oldest edge release the model covers (the edges of 2.7's time).
    pub const OLDEST_EDGE: LinkerdVersion = LinkerdVersion::Edge {
        year: 20,
        month: 1,
        build: 1,
    };
    /// The newest edge release the model covers (`edge-26.5.2`, docs/lifecycle.md §4.2).
    pub const NEWEST_EDGE: LinkerdVersion = LinkerdVersion::Edge {
        year: 26,
        month: 5,
        build: 2,
    };

    /// Parses a version the model knows; the error says why not, with the known range.
    pub fn parse_known(text: &str) -> Result<LinkerdVersion, String> {
        let version = LinkerdVersion::parse(text).ok_or_else(|| {
            format!("`{text}` is not a Linkerd version such as 2.16 or edge-24.6.2")
        })?;
        let (oldest, newest) = match version {
            LinkerdVersion::Stable { .. } => (Self::OLDEST_STABLE, Self::NEWEST_STABLE),
            LinkerdVersion::Edge { .. } => (Self::OLDEST_EDGE, Self::NEWEST_EDGE),
        };
        known("Linkerd", version, oldest, newest)
    }

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

impl KubeVersion {
    /// When newer than the model knows, what it is taken as.
    pub fn beyond(self) -> Option<Beyond> {
        beyond("Kubernetes", self, Self::NEWEST_KNOWN)
    }
}

impl IstioVersion {
    /// When newer than the model knows, what it is taken as.
    pub fn beyond(self) -> Option<Beyond> {
        beyond("Istio", self, Self::NEWEST_KNOWN)
    }
}

impl LinkerdVersion {
    /// When newer than the model knows (in its channel), what it is taken as.
    pub fn beyond(self) -> Option<Beyond> {
        let newest = match self {
            LinkerdVersion::Stable { .. } => Self::NEWEST_STABLE,
            LinkerdVersion::Edge { .. } => Self::NEWEST_EDGE,
        };
        beyond("Linkerd", self, newest)
    }
}

impl KnownOrder for KubeVersion {
    fn order(self) -> (u32, u32, u32) {
        (self.minor, 0, 0)
    }
}

impl KnownOrder for IstioVersion {
    fn order(self) -> (u32, u32, u32) {
        (self.minor, 0, 0)
    }
}

impl KnownOrder for LinkerdVersion {
    /// Within one channel: stable minors, or edge dates.
    fn order(self) -> (u32, u32, u32) {
        match self {
            LinkerdVersion::Stable { minor } => (minor, 0, 0),
            LinkerdVersion::Edge { year, month, build } => (year, month, build),
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
    fn versions_outside_the_model_are_refused_with_the_range() {
        assert_eq!(
            KubeVersion::parse_known("1.30"),
            Ok(KubeVersion { minor: 30 })
        );
        assert_eq!(
            KubeVersion::parse_known("1.3"),
            Err("Kubernetes 1.3 is outside the releases the linter models (1.22 to 1.36); give the nearest of those it behaves like".into())
        );
        assert_eq!(IstioVersion::parse_known("1.20"), Ok(IstioVersion::new(20)));
        assert!(
            IstioVersion::parse_known("1.2")
                .unwrap_err()
                .contains("(1.3 to 1.29)")
        );
        assert!(
            LinkerdVersion::parse_known("2.6")
                .unwrap_err()
                .contains("(2.7 to 2.20)")
        );
        assert!(
            LinkerdVersion::parse_known("edge-19.12.1")
                .unwrap_err()
                .contains("(edge-20.1.1 to edge-26.5.2)")
        );
        assert!(LinkerdVersion::parse_known("edge-24.6.2").is_ok());
    }

    #[test]
    fn newer_versions_are_taken_and_named_beyond_the_model() {
        let kube = KubeVersion::parse_known("1.37").unwrap();
        assert_eq!(
            kube.beyond(),
            Some(Beyond {
                product: "Kubernetes",
                version: "1.37".into(),
                newest: "1.36".into()
            })
        );
        assert_eq!(KubeVersion::NEWEST_KNOWN.beyond(), None);
        // Every boundary is "from this release on": a newer version behaves as the newest.
        let newest = KubeVersion::NEWEST_KNOWN;
        assert_eq!(kube.runs_native_sidecars(), newest.runs_native_sidecars());
        assert_eq!(kube.drops_sleep_action(), newest.drops_sleep_action());
        assert_eq!(
            kube.honours_container_restart_policy(),
            newest.honours_container_restart_policy()
        );
        assert_eq!(
            kube.forbids_container_restart_policy(),
            newest.forbids_container_restart_policy()
        );
        let istio = IstioVersion::parse_known("1.31").unwrap();
        assert_eq!(istio.beyond().unwrap().newest, "1.29");
        let edge = LinkerdVersion::parse_known("edge-26.9.1").unwrap();
        assert_eq!(edge.beyond().unwrap().newest, "edge-26.5.2");
        assert!(edge.native_by_default());
        assert_eq!(
            LinkerdVersion::parse_known("2.21")
                .unwrap()
                .beyond()
                .unwrap()
                .newest,
            "2.20"
        );
    }

    #[test]
    fn s2_7_container_restart_policy_boundaries_1_28_1_35() {
        let v = |minor| KubeVersion { minor };
        assert!(!v(27).forbids_container_restart_policy());
        assert!(v(28).forbids_container_restart_policy());
        assert!(v(33).forbids_container_restart_policy());
        assert!(!v(34).forbids_container_restart_policy());
        assert!(!v(33).has_container_restart_rules_gate());
        assert!(v(34).has_container_restart_rules_gate());
        assert!(!v(34).honours_container_restart_policy());
        assert!(!v(35).forbids_container_restart_policy());
        assert!(v(35).honours_container_restart_policy());
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
