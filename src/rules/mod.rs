//! Stage 5 of the pipeline: a PodPlan and its Timeline in, findings out.
//!
//! Each rule is one module with its doc (the single source of `rules`, the SARIF rule
//! table and `docs/rules/`), its default severity, and one check that reads the plan and
//! the timeline top to bottom. A rule never re-derives what resolve or simulate computed.

pub mod configuration;
pub mod describe;
mod fixes;
mod help;
pub mod jobs;
pub mod rejection;
pub mod selector;
pub mod startup;
mod stay;
pub mod suppression;
pub mod termination;
mod violation;

use std::fmt;

use serde::Serialize;

use crate::fix::Remedy;
use crate::load::{EntryPart, JsonPath};
use crate::resolve::PodPlan;
use crate::simulate::{Phase, Timeline};
use crate::time::Millis;
pub use violation::Violation;

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

/// A rule's identity and documentation, from its declaration ([`declare_rule!`]).
pub trait Declared {
    /// The rule's identity and documentation.
    fn meta(&self) -> &'static RuleMeta;
}

/// A check over one pod; its identity comes from its declaration.
pub trait Rule: Declared + Sync {
    /// Adds a finding for each hazard in `pod`.
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>);
}

/// What a rule looks at.
pub struct Pod<'a> {
    /// What will run and how.
    pub plan: &'a PodPlan,
    /// When it happens.
    pub timeline: &'a Timeline,
}

/// A place in the manifest with a short note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// The node, by path.
    pub path: JsonPath,
    /// Its key or its value.
    pub part: EntryPart,
    /// The note shown at the node.
    pub text: String,
}

impl Label {
    /// A label on the key of `path`.
    pub fn key(path: JsonPath, text: impl Into<String>) -> Self {
        Label {
            path,
            part: EntryPart::Key,
            text: text.into(),
        }
    }

    /// A label on the value at `path`.
    pub fn value(path: JsonPath, text: impl Into<String>) -> Self {
        Label {
            path,
            part: EntryPart::Value,
            text: text.into(),
        }
    }
}

/// A stretch of the timeline where traffic can be lost, for `explain` to shade.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Window {
    /// The part of the timeline.
    pub phase: Phase,
    #[serde(rename = "fromMs")]
    /// Where the window starts.
    pub from: Millis,
    #[serde(rename = "toMs")]
    /// Where it ends.
    pub to: Millis,
    /// The lane it belongs to (a container name), or `null` for the whole pod.
    pub container: Option<String>,
}

/// One problem found in one pod.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The rule that found it.
    pub rule: &'static RuleMeta,
    /// Its severity: the rule's default, or as the rule or config decided.
    pub severity: Severity,
    /// The container at fault, when one is.
    pub container: Option<String>,
    /// What happens, with the numbers from the timeline.
    pub message: String,
    /// The concrete fix, possibly with a YAML snippet.
    pub help: String,
    /// The node to change.
    pub primary: Label,
    /// The other side of a comparison (the grace period, the earlier container).
    pub related: Vec<Label>,
    /// The stretch of the timeline where traffic is lost, for explain.
    pub window: Option<Window>,
    /// The remedy `lint --fix` can make, when there is a mechanical one.
    pub fix: Option<Remedy>,
}

impl Finding {
    /// A finding of the violation's rule at its default severity, pointing at `primary`
    /// and worded by the violation. Its help ends with its last word: a remedy's YAML
    /// snippet ends with a line break, which only a line after it needs.
    pub fn new<V: Violation>(violation: &V, primary: Label) -> Self {
        let mut help = violation.help();
        help.truncate(help.trim_end().len());
        Finding {
            rule: V::RULE,
            severity: V::RULE.severity,
            container: None,
            message: violation.message(),
            help,
            primary,
            related: Vec::new(),
            window: None,
            fix: None,
        }
    }

    /// Attaches the remedy `lint --fix` makes (or, display-only, shows).
    pub fn with_fix(mut self, fix: Option<Remedy>) -> Self {
        self.fix = fix;
        self
    }

    /// Names the container at fault.
    pub fn container(mut self, name: &str) -> Self {
        self.container = Some(name.to_owned());
        self
    }

    /// Adds a label on the other side of a comparison.
    pub fn related(mut self, label: Label) -> Self {
        self.related.push(label);
        self
    }

    /// Overrides the rule's default severity.
    pub fn severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// Marks the window `explain` shades.
    pub fn window(
        mut self,
        phase: Phase,
        from: Millis,
        to: Millis,
        container: Option<&str>,
    ) -> Self {
        self.window = Some(Window {
            phase,
            from,
            to,
            container: container.map(str::to_owned),
        });
        self
    }
}

/// Declares a rule: a unit struct whose doc comment is the rule's documentation, its
/// [`RuleMeta`], and the [`Declared`] that hands it on, so a rule file writes only its
/// check.
macro_rules! declare_rule {
    (
        $(#[doc = $doc:literal])*
        pub struct $name:ident {
            id: $id:literal,
            name: $rule_name:literal,
            severity: $severity:ident,
            fix: $fix:ident,
            group: $group:ident,
            summary: $summary:literal,
            since: $since:literal
            $(, admission: $admission:literal)? $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        pub struct $name;

        impl $name {
            /// The rule's identity and doc.
            pub const META: $crate::rules::RuleMeta = $crate::rules::RuleMeta {
                id: $id,
                name: $rule_name,
                severity: $crate::rules::Severity::$severity,
                fix: $crate::rules::FixAvailability::$fix,
                group: $crate::rules::Group::$group,
                summary: $summary,
                since: $since,
                admission: false $(|| $admission)?,
                raw_doc: concat!($($doc, "\n"),*),
            };
        }

        impl $crate::rules::Declared for $name {
            fn meta(&self) -> &'static $crate::rules::RuleMeta {
                &Self::META
            }
        }
    };
}
pub(crate) use declare_rule;

/// Every rule, in id order.
pub static RULES: &[&dyn Rule] = &[
    &startup::AppStartsBeforeProxy,
    &startup::ProxyGateIneffective,
    &startup::InitContainerNeedsProxy,
    &startup::NativeSidecarNotGated,
    &startup::NativeSidecarUnsupported,
    &termination::GracePeriodExceeded,
    &termination::ProxyExitsBeforeApp,
    &termination::InboundClosedBeforeEndpointsRemoved,
    &termination::LongRequestsCut,
    &termination::DrainSettingIgnored,
    &termination::PrestopOutlivesGrace,
    &termination::AppWithoutPrestopDelay,
    &termination::PrestopNeedsShell,
    &termination::SleepActionUnsupported,
    &termination::ShellDropsSigterm,
    &jobs::JobSidecarNeverExits,
    &jobs::JobExitStatusLost,
    &jobs::JobKillNeedsSharedPid,
    &jobs::JobExitCallIneffective,
    &jobs::ContainerRestartsInPlace,
    &configuration::InvalidProxyConfig,
    &configuration::InjectionConflict,
    &configuration::RedundantGate,
    &configuration::InjectAnnotationIgnored,
    &configuration::ApiVersionRemoved,
    &configuration::FieldNotAllowed,
];

/// Looks a rule up by id (`ML201`, any case) or name (`grace-period-exceeded`).
pub fn find(key: &str) -> Option<&'static dyn Rule> {
    RULES
        .iter()
        .copied()
        .find(|rule| rule.meta().id.eq_ignore_ascii_case(key) || rule.meta().name == key)
}

/// Runs every rule over one pod; over a pod that would not be admitted, only the
/// rules about admission.
pub fn check(pod: &Pod) -> Vec<Finding> {
    let mut findings = Vec::new();
    let admitted = pod.plan.admitted();
    for rule in RULES
        .iter()
        .filter(|rule| admitted || rule.meta().admission)
    {
        rule.check(pod, &mut findings);
    }
    findings
}
