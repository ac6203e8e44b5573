//! What a rule is and what it finds: the trait every rule implements, declared with
//! `declare_rule!`, the pod it checks ([`Pod`]), and the [`Finding`] it reports with its
//! labels, window and fix.

use serde::Serialize;

use crate::fix::Remedy;
use crate::load::{EntryPart, JsonPath};
use crate::resolve::PodPlan;
use crate::simulate::{Phase, Timeline};
use crate::time::Millis;

use super::evidence::{Evidence, Premise, Subject};
use super::meta::{RuleMeta, Severity};
use super::violation::Violation;

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
    /// What it rests on: facts, and premises that lower it.
    pub evidence: Evidence,
    /// What its fix's value or form needs beyond the finding's own premises (the
    /// default Kubernetes version for a `sleep` action, an assumed shutdown time in a
    /// grace period): with those, the fix is not applied unreviewed
    /// ([`applicability`](super::applicability)).
    pub fix_rests_on: Vec<Premise>,
    /// Premises of the finding its fix does not rest on: under the other reading (the
    /// mesh's newest release) another finding asks for the very same change.
    pub fix_holds_without: Vec<Subject>,
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
            evidence: Evidence::default(),
            fix_rests_on: Vec::new(),
            fix_holds_without: Vec::new(),
        }
    }

    /// Attaches the remedy `lint --fix` makes (or, display-only, shows).
    pub fn with_fix(mut self, fix: Option<Remedy>) -> Self {
        self.fix = fix;
        self
    }

    /// Attaches a remedy with what its value rests on.
    pub fn with_proposal(self, proposal: Option<super::fixes::Proposal>) -> Self {
        let Some((remedy, premises)) = proposal else {
            return self;
        };
        premises
            .into_iter()
            .fold(self.with_fix(Some(remedy)), Finding::fix_rests_on)
    }

    /// Adds a premise the fix's value or form needs that the finding does not.
    pub fn fix_rests_on(mut self, premise: Premise) -> Self {
        if !self
            .fix_rests_on
            .iter()
            .any(|p| p.subject == premise.subject)
        {
            self.fix_rests_on.push(premise);
        }
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

    /// Adds a premise the finding needs that the input does not prove.
    pub fn premise(mut self, premise: Premise) -> Self {
        self.evidence.premise(premise);
        self
    }

    /// Adds premises the finding needs that the input does not prove.
    pub fn premises(mut self, premises: impl IntoIterator<Item = Premise>) -> Self {
        for premise in premises {
            self.evidence.premise(premise);
        }
        self
    }

    /// Adds a fact the finding rests on.
    pub fn fact(mut self, fact: impl Into<String>) -> Self {
        self.evidence.fact(fact.into());
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
            $(, admission: $admission:literal)?
            $(, assumed: $assumed:ident)? $(,)?
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
                assumed: $crate::rules::declared_weight(&[$($crate::rules::Weight::$assumed)?]),
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
