//! `--mesh-version MESH=VERSION`: one mesh's release, named as the flag and the config
//! file name it (`istio`, `linkerd`, `kuma`, `consul`, `dapr`, `cloud-sql-proxy`), each
//! checked against the releases the model knows of that mesh.

use std::fmt;

use super::lines::{CloudSqlProxyVersion, ConsulVersion, DaprVersion, KumaVersion};
use super::{IstioVersion, LinkerdVersion};

/// The meshes `--mesh-version` takes, as it names them, with their config sections.
pub const MESHES: [(&str, &str); 6] = [
    ("istio", "istio"),
    ("linkerd", "linkerd"),
    ("kuma", "kuma"),
    ("consul", "consul"),
    ("dapr", "dapr"),
    ("cloud-sql-proxy", "cloudSqlProxy"),
];

/// One mesh's release, as `--mesh-version` gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeshVersion {
    /// `istio=1.24`.
    Istio(IstioVersion),
    /// `linkerd=2.16`, `linkerd=edge-24.6.2`.
    Linkerd(LinkerdVersion),
    /// `kuma=2.14`.
    Kuma(KumaVersion),
    /// `consul=1.9.0` (consul-k8s).
    Consul(ConsulVersion),
    /// `dapr=1.18`.
    Dapr(DaprVersion),
    /// `cloud-sql-proxy=2.14.1`.
    CloudSqlProxy(CloudSqlProxyVersion),
}

impl MeshVersion {
    /// Parses `MESH=VERSION`; the error names the meshes, or the range of the mesh's
    /// releases the model knows.
    pub fn parse_known(text: &str) -> Result<MeshVersion, String> {
        let names = || {
            MESHES
                .iter()
                .map(|(name, _)| *name)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let Some((mesh, version)) = text.split_once('=') else {
            return Err(format!(
                "`{text}` is not MESH=VERSION (MESH one of {})",
                names()
            ));
        };
        Ok(match mesh.trim() {
            "istio" => MeshVersion::Istio(IstioVersion::parse_known(version)?),
            "linkerd" => MeshVersion::Linkerd(LinkerdVersion::parse_known(version)?),
            "kuma" => MeshVersion::Kuma(KumaVersion::parse_known(version)?),
            "consul" => MeshVersion::Consul(ConsulVersion::parse_known(version)?),
            "dapr" => MeshVersion::Dapr(DaprVersion::parse_known(version)?),
            "cloud-sql-proxy" => {
                MeshVersion::CloudSqlProxy(CloudSqlProxyVersion::parse_known(version)?)
            }
            other => return Err(format!("unknown mesh `{other}`; one of {}", names())),
        })
    }

    /// The mesh, as the flag names it.
    pub fn mesh(&self) -> &'static str {
        match self {
            MeshVersion::Istio(_) => "istio",
            MeshVersion::Linkerd(_) => "linkerd",
            MeshVersion::Kuma(_) => "kuma",
            MeshVersion::Consul(_) => "consul",
            MeshVersion::Dapr(_) => "dapr",
            MeshVersion::CloudSqlProxy(_) => "cloud-sql-proxy",
        }
    }
}

impl fmt::Display for MeshVersion {
    /// `kuma=2.14`, as the flag writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mesh = self.mesh();
        match self {
            MeshVersion::Istio(v) => write!(f, "{mesh}={v}"),
            MeshVersion::Linkerd(v) => write!(f, "{mesh}={v}"),
            MeshVersion::Kuma(v) => write!(f, "{mesh}={v}"),
            MeshVersion::Consul(v) => write!(f, "{mesh}={v}"),
            MeshVersion::Dapr(v) => write!(f, "{mesh}={v}"),
            MeshVersion::CloudSqlProxy(v) => write!(f, "{mesh}={v}"),
        }
    }
}

/// How `--mesh-version` and the config file name `mesh`'s version: `--mesh-version
/// kuma=VERSION or config `kuma.version``, for the settle text of a premise.
pub fn how_to_give(mesh: &str) -> String {
    let key = MESHES
        .iter()
        .find(|(name, _)| *name == mesh)
        .map_or(mesh, |(_, key)| key);
    format!("set --mesh-version {mesh}=VERSION or config `{key}.version`")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mesh_parses_and_refuses_older_releases_with_its_range() {
        assert_eq!(
            MeshVersion::parse_known("kuma=2.14").unwrap(),
            MeshVersion::Kuma(KumaVersion::new(2, 14, 0))
        );
        assert_eq!(
            MeshVersion::parse_known("istio=1.24").unwrap(),
            MeshVersion::Istio(IstioVersion::new(24))
        );
        let refused = [
            ("istio=1.2", "(1.3 to 1.29)"),
            ("linkerd=2.6", "(2.7 to 2.20)"),
            ("kuma=2.3", "(2.4 to 2.14)"),
            ("consul=0.49", "(1.0 to 2.0)"),
            ("dapr=1.5", "(1.6 to 1.18)"),
            ("cloud-sql-proxy=1.33", "(2.0 to 2.25)"),
        ];
        for (text, range) in refused {
            let error = MeshVersion::parse_known(text).unwrap_err();
            assert!(error.contains(range), "{text}: {error}");
        }
        assert!(
            MeshVersion::parse_known("envoy=1.2")
                .unwrap_err()
                .contains("one of istio, linkerd, kuma, consul, dapr, cloud-sql-proxy")
        );
        assert!(MeshVersion::parse_known("kuma").is_err());
        assert_eq!(
            how_to_give("cloud-sql-proxy"),
            "set --mesh-version cloud-sql-proxy=VERSION or config `cloudSqlProxy.version`"
        );
    }
}
