//! The range of releases the model knows of a product: a version older than the
//! range is refused with it, a newer one taken and named as beyond the model.

use std::fmt;

/// `version` unless it is older than `oldest`: then the error with the range. A version
/// newer than `newest` is taken, to behave as `newest` does ([`Beyond`]).
pub fn known<V: Copy + fmt::Display + KnownOrder>(
    product: &str,
    version: V,
    oldest: V,
    newest: V,
) -> Result<V, String> {
    if version.order() >= oldest.order() {
        return Ok(version);
    }
    Err(format!(
        "{product} {version} is outside the releases the linter models ({oldest} to {newest}); give the nearest of those it behaves like"
    ))
}

/// A version newer than the newest the model knows: it behaves as that one, and the
/// reports say so, naming both.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Beyond {
    /// `Kubernetes`, `Istio`, `Linkerd`.
    pub product: &'static str,
    /// The version given or read.
    pub version: String,
    /// The newest the model knows, whose behaviour it gets.
    pub newest: String,
}

/// What `version` is taken as when it is newer than `newest`.
pub fn beyond<V: Copy + fmt::Display + KnownOrder>(
    product: &'static str,
    version: V,
    newest: V,
) -> Option<Beyond> {
    (version.order() > newest.order()).then(|| Beyond {
        product,
        version: version.to_string(),
        newest: newest.to_string(),
    })
}

/// How versions of one kind compare, for [`known`].
pub trait KnownOrder {
    /// The version's place in its channel.
    fn order(self) -> (u32, u32, u32);
}
