//! The releases of the sidecars whose injectors and flags change with their version:
//! Kuma, consul-k8s, Dapr and the Cloud SQL Auth Proxy v2. Each is numbered
//! `major.minor.patch`; the model's boundaries are given per minor, except where a
//! feature was backported to patch releases of several lines (consul-k8s).
//! docs/lifecycle.md §5.8.

use std::fmt;

use super::range::{Beyond, KnownOrder, beyond, known};

/// A `major.minor.patch` release number (`2.14.3`, `v1.18.0`, `2.14.1-alpine`); a
/// missing patch is 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Semver {
    /// The major version.
    pub major: u32,
    /// The minor version.
    pub minor: u32,
    /// The patch release.
    pub patch: u32,
}

impl Semver {
    /// `major.minor.patch`.
    pub const fn new(major: u32, minor: u32, patch: u32) -> Semver {
        Semver {
            major,
            minor,
            patch,
        }
    }

    /// Parses `2.14`, `2.14.3`, `v2.14.3` or an image tag such as `2.14.1-alpine`.
    pub fn parse(text: &str) -> Option<Semver> {
        let text = text.trim();
        let text = text.strip_prefix('v').unwrap_or(text);
        let numbers = text.split(['-', '+']).next()?;
        let mut parts = numbers.split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        let patch = match parts.next() {
            Some(patch) => patch.parse().ok()?,
            None => 0,
        };
        parts
            .next()
            .is_none()
            .then_some(Semver::new(major, minor, patch))
    }
}

impl fmt::Display for Semver {
    /// `2.14` for a `.0` release, else `2.14.3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.patch {
            0 => write!(f, "{}.{}", self.major, self.minor),
            patch => write!(f, "{}.{}.{patch}", self.major, self.minor),
        }
    }
}

/// Defines a product's release type: its name, the example its messages give, and
/// the range of minors the model knows.
macro_rules! release_line {
    ($name:ident, $product:literal, $example:literal,
     oldest: ($omaj:literal, $omin:literal), newest: ($nmaj:literal, $nmin:literal)) => {
        impl $name {
            /// The product, as messages name it.
            pub const PRODUCT: &'static str = $product;
            /// What a version of it looks like, for messages.
            pub const EXAMPLE: &'static str = $example;
            /// The oldest release the model covers.
            pub const OLDEST_KNOWN: $name = $name(Semver::new($omaj, $omin, 0));
            /// The newest release the model covers.
            pub const NEWEST_KNOWN: $name = $name(Semver::new($nmaj, $nmin, 0));

            /// `major.minor.patch`.
            pub const fn new(major: u32, minor: u32, patch: u32) -> $name {
                $name(Semver::new(major, minor, patch))
            }

            /// Parses the version, known to the model or not.
            pub fn parse(text: &str) -> Option<$name> {
                Semver::parse(text).map($name)
            }

            /// Parses a version the model knows; the error says why not, with the
            /// known range.
            pub fn parse_known(text: &str) -> Result<$name, String> {
                let version =
                    $name::parse(text).ok_or_else(|| format!("`{text}` is not {}", $example))?;
                known($product, version, Self::OLDEST_KNOWN, Self::NEWEST_KNOWN)
            }

            /// When newer than the model knows, what it is taken as.
            pub fn beyond(self) -> Option<Beyond> {
                beyond($product, self, Self::NEWEST_KNOWN)
            }

            /// Whether this is `major.minor.patch` or later.
            pub fn at_least(self, major: u32, minor: u32, patch: u32) -> bool {
                self.0 >= Semver::new(major, minor, patch)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl KnownOrder for $name {
            /// By minor: a patch release of the newest minor known is known.
            fn order(self) -> (u32, u32, u32) {
                (self.0.major, self.0.minor, 0)
            }
        }
    };
}

/// A Kuma (or Kong Mesh) control-plane release: from 2.4, whose
/// `kuma.io/wait-for-dataplane-ready` the model reads, to 2.14, whose injector was
/// read at v2.14.3 (docs/lifecycle.md §5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KumaVersion(pub Semver);

release_line!(
    KumaVersion,
    "Kuma",
    "a Kuma version such as 2.14",
    oldest: (2, 4),
    newest: (2, 14)
);

/// A consul-k8s release (the Helm chart and its connect injector, not the Consul
/// servers): from 1.0, the first line with the proxy lifecycle, to 2.0, read at
/// v2.0.3 (docs/lifecycle.md §5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConsulVersion(pub Semver);

release_line!(
    ConsulVersion,
    "consul-k8s",
    "a consul-k8s version such as 1.9.0",
    oldest: (1, 0),
    newest: (2, 0)
);

/// A Dapr release: from 1.6, whose `dapr.io/graceful-shutdown-seconds` the model
/// reads, to 1.18, read at v1.18.3 (docs/lifecycle.md §5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DaprVersion(pub Semver);

release_line!(
    DaprVersion,
    "Dapr",
    "a Dapr version such as 1.18",
    oldest: (1, 6),
    newest: (1, 18)
);

/// A Cloud SQL Auth Proxy v2 release: from 2.0 to 2.25, read at v2.25.3
/// (docs/lifecycle.md §5.4). v1 (`gce-proxy`) has no version boundary modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CloudSqlProxyVersion(pub Semver);

release_line!(
    CloudSqlProxyVersion,
    "Cloud SQL Auth Proxy",
    "a Cloud SQL Auth Proxy v2 version such as 2.14.1",
    oldest: (2, 0),
    newest: (2, 25)
);

impl KumaVersion {
    /// The control plane's `experimental.sidecarContainers` is on by default from
    /// v2.14.0 (on an API server at 1.29 or later); opt-in from v2.7.0.
    pub fn native_by_default(self) -> bool {
        self.at_least(2, 14, 0)
    }
}

impl ConsulVersion {
    /// Whether the injector reads `enable-consul-dataplane-as-sidecar`: from v1.9.0,
    /// and backported to v1.6.9, v1.7.5 and v1.8.2; v2.0 has it.
    pub fn reads_dataplane_as_sidecar(self) -> bool {
        let Semver {
            major,
            minor,
            patch,
        } = self.0;
        match (major, minor) {
            (1, 6) => patch >= 9,
            (1, 7) => patch >= 5,
            (1, 8) => patch >= 2,
            (1, minor) => minor >= 9,
            (major, _) => major >= 2,
        }
    }
}

impl DaprVersion {
    /// `dapr.io/enable-native-sidecar` is read from v1.18.0.
    pub fn reads_native_sidecar(self) -> bool {
        self.at_least(1, 18, 0)
    }

    /// `dapr.io/block-shutdown-duration` is read from v1.13.0.
    pub fn reads_block_shutdown(self) -> bool {
        self.at_least(1, 13, 0)
    }
}

impl CloudSqlProxyVersion {
    /// `--quitquitquit` exists from v2.1.0.
    pub fn has_quitquitquit(self) -> bool {
        self.at_least(2, 1, 0)
    }

    /// `--exit-zero-on-sigterm` exists from v2.6.0.
    pub fn has_exit_zero_on_sigterm(self) -> bool {
        self.at_least(2, 6, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_release_numbers_and_image_tags() {
        assert_eq!(Semver::parse("2.14"), Some(Semver::new(2, 14, 0)));
        assert_eq!(Semver::parse("v1.18.3"), Some(Semver::new(1, 18, 3)));
        assert_eq!(Semver::parse("2.14.1-alpine"), Some(Semver::new(2, 14, 1)));
        assert_eq!(Semver::parse("latest"), None);
        assert_eq!(Semver::parse("2"), None);
        assert_eq!(Semver::new(2, 14, 0).to_string(), "2.14");
        assert_eq!(Semver::new(1, 6, 9).to_string(), "1.6.9");
    }

    #[test]
    fn each_line_refuses_older_releases_with_its_range_and_takes_newer_ones() {
        assert!(
            KumaVersion::parse_known("2.3")
                .unwrap_err()
                .contains("(2.4 to 2.14)")
        );
        assert!(
            ConsulVersion::parse_known("0.49.0")
                .unwrap_err()
                .contains("(1.0 to 2.0)")
        );
        assert!(
            DaprVersion::parse_known("1.5.2")
                .unwrap_err()
                .contains("(1.6 to 1.18)")
        );
        assert!(
            CloudSqlProxyVersion::parse_known("1.33.2")
                .unwrap_err()
                .contains("(2.0 to 2.25)")
        );
        assert_eq!(KumaVersion::parse_known("2.14.3").unwrap().beyond(), None);
        let newer = KumaVersion::parse_known("2.15").unwrap();
        assert_eq!(newer.beyond().unwrap().newest, "2.14");
        assert!(newer.native_by_default());
    }

    #[test]
    fn boundaries_both_sides() {
        assert!(!KumaVersion::new(2, 13, 10).native_by_default());
        assert!(KumaVersion::new(2, 14, 0).native_by_default());
        let consul = |major, minor, patch| ConsulVersion::new(major, minor, patch);
        assert!(!consul(1, 5, 9).reads_dataplane_as_sidecar());
        assert!(!consul(1, 6, 8).reads_dataplane_as_sidecar());
        assert!(consul(1, 6, 9).reads_dataplane_as_sidecar());
        assert!(!consul(1, 7, 4).reads_dataplane_as_sidecar());
        assert!(consul(1, 7, 5).reads_dataplane_as_sidecar());
        assert!(!consul(1, 8, 1).reads_dataplane_as_sidecar());
        assert!(consul(1, 8, 2).reads_dataplane_as_sidecar());
        assert!(consul(1, 9, 0).reads_dataplane_as_sidecar());
        assert!(consul(2, 0, 0).reads_dataplane_as_sidecar());
        assert!(!DaprVersion::new(1, 17, 9).reads_native_sidecar());
        assert!(DaprVersion::new(1, 18, 0).reads_native_sidecar());
        assert!(!DaprVersion::new(1, 12, 5).reads_block_shutdown());
        assert!(DaprVersion::new(1, 13, 0).reads_block_shutdown());
        let proxy = |minor| CloudSqlProxyVersion::new(2, minor, 0);
        assert!(!proxy(0).has_quitquitquit());
        assert!(proxy(1).has_quitquitquit());
        assert!(!proxy(5).has_exit_zero_on_sigterm());
        assert!(proxy(6).has_exit_zero_on_sigterm());
    }
}
