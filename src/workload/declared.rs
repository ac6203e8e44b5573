//! `workloadKinds:` of `.mesh-lifecycle.yaml`: custom resources whose pod the linter
//! reads where the entry says, decoded and checked as the config file is read.

use serde::Deserialize;

use super::kinds::{DeclaredKind, PodPath};
use crate::documented::{Documented, Nested};

crate::documented! {
    /// One entry as written; [`DeclaredKind`] once checked.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct Entry {
        /// The custom resource's `group/version`, or its group alone for any version
        /// (`platform.example.com/v1`).
        api_version: ApiVersion = required,
        /// Its `kind` (`WebApp`).
        kind: KindName = required,
        /// The dotted path of its pod template (a PodTemplateSpec), such as
        /// `spec.runtime.template`; an entry names this or `podSpec`.
        pod_template: Option<DottedPath> = "none",
        /// The dotted path of a bare PodSpec, for resources that hold one.
        pod_spec: Option<DottedPath> = "none",
        /// Whether its pods run to completion, as a Job's do (the ML3xx rules apply).
        #[serde(default)]
        runs_to_completion: bool = "false",
    }
}

impl Documented for DeclaredKind {
    fn kind() -> String {
        Entry::kind()
    }
    fn nested() -> Option<Nested> {
        Entry::nested()
    }
}

crate::value_kinds! {
    ApiVersion => "API group, with or without a version",
    KindName => "kind name",
    DottedPath => "dotted path",
}

impl<'de> Deserialize<'de> for DeclaredKind {
    /// An entry names exactly one of `podTemplate` and `podSpec`.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let entry = Entry::deserialize(deserializer)?;
        let pod = match (entry.pod_template, entry.pod_spec) {
            (Some(DottedPath(path)), None) => PodPath::Template(path),
            (None, Some(DottedPath(path))) => PodPath::Spec(path),
            (Some(_), Some(_)) => {
                return Err(serde::de::Error::custom(
                    "set one of `podTemplate` (a path to a PodTemplateSpec) and `podSpec` (a path to a PodSpec), not both",
                ));
            }
            (None, None) => {
                return Err(serde::de::Error::custom(
                    "missing `podTemplate` (a dotted path to a PodTemplateSpec, such as `spec.template`) or `podSpec` (a dotted path to a PodSpec)",
                ));
            }
        };
        Ok(DeclaredKind {
            group: entry.api_version.group,
            version: entry.api_version.version,
            kind: entry.kind.0,
            pod,
            runs_to_completion: entry.runs_to_completion,
        })
    }
}

/// `group/version`, or a group alone for any version. Kubernetes' own groups are
/// not custom resources: their kinds are read already.
struct ApiVersion {
    group: String,
    version: Option<String>,
}

impl<'de> Deserialize<'de> for ApiVersion {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        let (group, version) = match text.split_once('/') {
            Some((group, version)) => (group, Some(version)),
            None => (text.as_str(), None),
        };
        let label_ok = |label: &str| {
            !label.is_empty()
                && label
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        };
        if !group.contains('.') || !group.split('.').all(label_ok) {
            return Err(serde::de::Error::custom(format!(
                "`{text}` is not the API group of a custom resource: write `group/version` (`platform.example.com/v1`) or the group alone for any version; a custom resource's group is a DNS name, with a dot"
            )));
        }
        if let Some(version) = version
            && !label_ok(version)
        {
            return Err(serde::de::Error::custom(format!(
                "`{version}` is not an API version (`v1`, `v1beta2`)"
            )));
        }
        Ok(ApiVersion {
            group: group.to_owned(),
            version: version.map(str::to_owned),
        })
    }
}

/// A `kind`: an identifier, as the API server requires of a CRD's kind.
struct KindName(String);

impl<'de> Deserialize<'de> for KindName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        let mut chars = text.chars();
        let ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            && chars.all(|c| c.is_ascii_alphanumeric());
        if !ok {
            return Err(serde::de::Error::custom(format!(
                "`{text}` is not a kind: letters and digits, starting with a letter (`WebApp`)"
            )));
        }
        Ok(KindName(text))
    }
}

/// A dotted path of field names from the object's root: `spec.runtime.template`.
struct DottedPath(String);

impl<'de> Deserialize<'de> for DottedPath {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        let field_ok = |field: &str| {
            !field.is_empty()
                && field
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '$')
        };
        if !text.split('.').all(field_ok) {
            return Err(serde::de::Error::custom(format!(
                "`{text}` is not a dotted path of field names from the object's root (`spec.runtime.template`): no empty parts, indexes or spaces"
            )));
        }
        Ok(DottedPath(text))
    }
}
