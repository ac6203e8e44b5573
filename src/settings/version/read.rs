//! Versions as settings write them: config and mesh config give a version as text
//! (`1.30` is not the number 1.3) that must be one the model knows; an image tag or chart
//! value may hold one or not.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};

use super::{
    CloudSqlProxyVersion, ConsulVersion, DaprVersion, IstioVersion, KubeVersion, KumaVersion,
    LinkerdVersion,
};

/// A product's release numbers, read from settings.
pub trait Release: Copy + Sized {
    /// What a version of this product looks like, for messages.
    const EXAMPLE: &'static str;
    /// Parses the version, known to the model or not.
    fn parse(text: &str) -> Option<Self>;
    /// Parses a version the model knows; the error says why not.
    fn parse_known(text: &str) -> Result<Self, String>;
}

impl Release for KubeVersion {
    const EXAMPLE: &'static str = "a Kubernetes version such as 1.30";
    fn parse(text: &str) -> Option<Self> {
        KubeVersion::parse(text)
    }
    fn parse_known(text: &str) -> Result<Self, String> {
        KubeVersion::parse_known(text)
    }
}

impl Release for IstioVersion {
    const EXAMPLE: &'static str = "an Istio version such as 1.24";
    fn parse(text: &str) -> Option<Self> {
        IstioVersion::parse(text)
    }
    fn parse_known(text: &str) -> Result<Self, String> {
        IstioVersion::parse_known(text)
    }
}

impl Release for LinkerdVersion {
    const EXAMPLE: &'static str = "a Linkerd version such as 2.16 or edge-24.6.2";
    fn parse(text: &str) -> Option<Self> {
        LinkerdVersion::parse(text)
    }
    fn parse_known(text: &str) -> Result<Self, String> {
        LinkerdVersion::parse_known(text)
    }
}

/// A version in config or mesh config is read from the text as written (`1.30` is not
/// the number 1.3) and must be one the model knows.
struct KnownText<V>(std::marker::PhantomData<V>);

impl<V: Release> Visitor<'_> for KnownText<V> {
    type Value = V;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(V::EXAMPLE)
    }
    fn visit_str<E: de::Error>(self, text: &str) -> Result<V, E> {
        V::parse_known(text).map_err(E::custom)
    }
}

macro_rules! deserialize_known {
    ($($type:ty),*) => {$(
        impl<'de> Deserialize<'de> for $type {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_str(KnownText(std::marker::PhantomData))
            }
        }
    )*};
}

macro_rules! release_of_line {
    ($($type:ty),*) => {$(
        impl Release for $type {
            const EXAMPLE: &'static str = <$type>::EXAMPLE;
            fn parse(text: &str) -> Option<Self> {
                <$type>::parse(text)
            }
            fn parse_known(text: &str) -> Result<Self, String> {
                <$type>::parse_known(text)
            }
        }
    )*};
}

release_of_line!(
    KumaVersion,
    ConsulVersion,
    DaprVersion,
    CloudSqlProxyVersion
);

deserialize_known!(
    KubeVersion,
    IstioVersion,
    LinkerdVersion,
    KumaVersion,
    ConsulVersion,
    DaprVersion,
    CloudSqlProxyVersion
);

/// An image tag or chart value that may hold a release (`global.tag: 1.24.2`): a tag
/// that is no version (`latest`, a build name) says nothing and is `None`; a version the
/// model does not know is an error, as it is in config.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReleaseTag<V>(pub Option<V>);

impl<'de, V: Release> Deserialize<'de> for ReleaseTag<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Tag<V>(std::marker::PhantomData<V>);
        impl<V: Release> Visitor<'_> for Tag<V> {
            type Value = ReleaseTag<V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an image tag")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<ReleaseTag<V>, E> {
                match V::parse(text) {
                    None => Ok(ReleaseTag(None)),
                    Some(_) => V::parse_known(text)
                        .map(|v| ReleaseTag(Some(v)))
                        .map_err(E::custom),
                }
            }
        }
        deserializer.deserialize_str(Tag(std::marker::PhantomData))
    }
}
