//! Paths into a manifest, such as `spec.template.spec.containers[1].lifecycle.preStop`.
//!
//! Later stages name the node a finding is about by path, never by position; the path
//! is turned into a line and column only when the finding is reported.

use std::fmt;

/// One step of a path: a mapping key or a sequence index.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Segment {
    /// A mapping key.
    Key(String),
    /// A sequence index.
    Index(usize),
    /// Into the YAML or JSON document held by a string value.
    Embedded,
    /// One line (from 0) of a string value: the line of a script that holds a call.
    Line(usize),
}

/// A path from a document's root to one of its nodes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JsonPath(Vec<Segment>);

impl JsonPath {
    /// The document root.
    pub fn root() -> Self {
        Self::default()
    }

    /// Parses the dotted form used in code: `spec.template.spec` (keys only).
    pub fn parse(dotted: &str) -> Self {
        Self(
            dotted
                .split('.')
                .filter(|part| !part.is_empty())
                .map(|part| Segment::Key(part.to_owned()))
                .collect(),
        )
    }

    /// This path extended by a mapping key.
    pub fn key(&self, key: &str) -> Self {
        let mut next = self.clone();
        next.0.push(Segment::Key(key.to_owned()));
        next
    }

    /// This path extended by a sequence index.
    pub fn index(&self, index: usize) -> Self {
        let mut next = self.clone();
        next.0.push(Segment::Index(index));
        next
    }

    /// This path continued inside the YAML or JSON held by its string value.
    pub fn embedded(&self) -> Self {
        let mut next = self.clone();
        next.0.push(Segment::Embedded);
        next
    }

    /// This path narrowed to one line (from 0) of its string value.
    pub fn line(&self, line: usize) -> Self {
        let mut next = self.clone();
        next.0.push(Segment::Line(line));
        next
    }

    /// A path made of `segments`.
    pub fn from_segments(segments: &[Segment]) -> Self {
        Self(segments.to_vec())
    }

    /// This path extended by every segment of `tail`.
    pub fn join(&self, tail: &JsonPath) -> Self {
        let mut next = self.clone();
        next.0.extend(tail.0.iter().cloned());
        next
    }

    /// The segments from the root.
    pub fn segments(&self) -> &[Segment] {
        &self.0
    }

    /// Whether the last step is the mapping key `key`.
    pub fn ends_with_key(&self, key: &str) -> bool {
        matches!(self.0.last(), Some(Segment::Key(last)) if last == key)
    }

    /// Whether `self` is `prefix` or lies below it.
    pub fn starts_with(&self, prefix: &JsonPath) -> bool {
        self.0.starts_with(&prefix.0)
    }

    /// Converts the path reported by `serde_path_to_error`.
    pub fn from_serde(path: &serde_path_to_error::Path) -> Self {
        use serde_path_to_error::Segment as S;
        Self(
            path.iter()
                .filter_map(|segment| match segment {
                    S::Seq { index } => Some(Segment::Index(*index)),
                    S::Map { key } => Some(Segment::Key(key.clone())),
                    S::Enum { variant } => Some(Segment::Key(variant.clone())),
                    S::Unknown => None,
                })
                .collect(),
        )
    }
}

impl fmt::Display for JsonPath {
    /// Dotted form with indices in brackets; keys that are not plain identifiers are
    /// quoted: `metadata.annotations["proxy.istio.io/config"]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Index(index) => write!(f, "[{index}]")?,
                Segment::Key(key) if is_plain_key(key) => {
                    if i > 0 && self.0[i - 1] == Segment::Embedded {
                        f.write_str(" ")?;
                    } else if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(key)?;
                }
                Segment::Key(key) => write!(f, "[{key:?}]")?,
                Segment::Embedded => f.write_str(" →")?,
                Segment::Line(line) => write!(f, " (line {})", line + 1)?,
            }
        }
        Ok(())
    }
}

fn is_plain_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_indices_and_quoted_keys() {
        let path = JsonPath::parse("spec.template.metadata.annotations")
            .key("proxy.istio.io/config")
            .index(0);
        assert_eq!(
            path.to_string(),
            r#"spec.template.metadata.annotations["proxy.istio.io/config"][0]"#
        );
    }

    #[test]
    fn prefix_test_is_segment_wise() {
        let base = JsonPath::parse("spec.template");
        assert!(JsonPath::parse("spec.template.spec").starts_with(&base));
        assert!(!JsonPath::parse("spec.templates").starts_with(&base));
    }
}
