//! A rule's identity and documentation ([`RuleMeta`]), its group and default
//! [`Severity`]: what the catalog, SARIF and the docs print, apart from the checks.

use std::fmt;

use serde::Serialize;

/// How serious a finding is; CI gates compare against it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; rarely a gate.
    Info,
    /// Traffic can be lost under some conditions.
    Warning,
    /// Traffic is lost.
    Error,
}

impl Severity {
    /// The lower-case name used in output and flags.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    /// Parses `error`, `warning` or `info`.
    pub fn parse(text: &str) -> Option<Severity> {
        match text {
            "error" => Some(Severity::Error),
            "warning" => Some(Severity::Warning),
            "info" => Some(Severity::Info),
            _ => None,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether a rule's findings come with a fix, as ruff's `FixAvailability` says it:
/// what the rule's check attaches to its findings. A fix it attaches still reaches a
/// report only when it passes its check against the timeline and `fixable:` allows
/// it, so "always" means every finding is offered one, not that every finding has one
/// `--fix` can make. `tests/it/fix_availability.rs` holds each declaration to what
/// the rule does over its fixtures and the corpus.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FixAvailability {
    /// Every finding is offered a fix.
    Always,
    /// Some findings are: where the manifest writes what the fix changes, the versions
    /// in force allow it, the mesh has the setting.
    Sometimes,
    /// No finding is: the change is the owner's choice, or lies outside the manifest.
    Never,
}

impl FixAvailability {
    /// `always`, `sometimes` or `never`, as `rules --format json` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            FixAvailability::Always => "always",
            FixAvailability::Sometimes => "sometimes",
            FixAvailability::Never => "never",
        }
    }
}

impl fmt::Display for FixAvailability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The part of the pod's life a rule is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Group {
    /// ML1xx: containers starting before what they depend on.
    Startup,
    /// ML2xx: shutdown.
    Termination,
    /// ML3xx: pods that run to completion.
    Jobs,
    /// ML4xx: settings themselves.
    Configuration,
}

impl Group {
    /// The heading used in documentation.
    pub fn title(self) -> &'static str {
        match self {
            Group::Startup => "Start-up",
            Group::Termination => "Termination",
            Group::Jobs => "Jobs",
            Group::Configuration => "Configuration",
        }
    }
}

/// A rule's identity and documentation. Ids and names are a contract.
#[derive(Debug)]
pub struct RuleMeta {
    /// `ML201`: stable, used in suppressions and CI configs.
    pub id: &'static str,
    /// `grace-period-exceeded`: stable, accepted wherever an id is.
    pub name: &'static str,
    /// The default severity; config may override it.
    pub severity: Severity,
    /// Whether its findings are offered a fix.
    pub fix: FixAvailability,
    /// The part of the pod's life it concerns.
    pub group: Group,
    /// One line, for tables.
    pub summary: &'static str,
    /// The release that first ships the rule, as clippy keeps its lints' versions: a
    /// new rule takes the version in `Cargo.toml` when it lands, the release it will
    /// first ship in. Every rule so far ships in 0.1.0, the first release.
    pub since: &'static str,
    /// Whether the rule speaks about a pod that is not admitted (the manifest itself).
    /// The others need the pod to run, and stay silent when it would be rejected.
    pub admission: bool,
    /// How far a finding that rests on a premise is lowered: one level, or to info
    /// (its doc's `## Evidence` says which).
    pub assumed: super::evidence::Weight,
    /// The doc comment of the rule's struct, in Markdown.
    pub raw_doc: &'static str,
}

impl RuleMeta {
    /// The doc with the one-space indent of doc comments removed.
    pub fn doc(&self) -> String {
        let mut doc = String::with_capacity(self.raw_doc.len());
        for line in self.raw_doc.lines() {
            doc.push_str(line.strip_prefix(' ').unwrap_or(line));
            doc.push('\n');
        }
        doc.trim().to_owned() + "\n"
    }

    /// One section of the doc (`What it detects`), without its heading.
    pub fn section(&self, heading: &str) -> Option<String> {
        let doc = self.doc();
        let marker = format!("## {heading}\n");
        let start = doc.find(&marker)? + marker.len();
        let rest = &doc[start..];
        let end = rest.find("\n## ").map_or(rest.len(), |at| at + 1);
        Some(rest[..end].trim().to_owned())
    }
}
