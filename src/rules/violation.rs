//! What a rule found, apart from how it is worded.
//!
//! A rule's check looks at the plan and the timeline and fills a violation with the facts
//! of one occurrence: the containers, the times, the settings involved. The violation
//! words them (message and help); the check adds what points into the manifest (labels),
//! the window `explain` shades and the fix `lint --fix` can make, and [`Finding::new`]
//! puts both together.
//!
//! [`Finding::new`]: super::Finding::new Detection can so change without touching the wording, and the
//! wording without re-reading the check (as ruff's `Violation`).

use super::RuleMeta;

/// One occurrence of a rule's hazard. Each rule file defines the violations it reports.
pub trait Violation {
    /// The rule that reports it.
    const RULE: &'static RuleMeta;

    /// What happens, with the numbers from the timeline.
    fn message(&self) -> String;

    /// The concrete remedy, in words: the mesh's own setting, a YAML snippet.
    fn help(&self) -> String;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::JsonPath;
    use crate::rules::{Finding, Label, termination::GracePeriodExceeded};

    struct Cut(u32);

    impl Violation for Cut {
        const RULE: &'static RuleMeta = &GracePeriodExceeded::META;

        fn message(&self) -> String {
            format!("{} s cut", self.0)
        }

        fn help(&self) -> String {
            "raise the grace period".into()
        }
    }

    #[test]
    fn a_finding_takes_its_rule_and_wording_from_the_violation() {
        let finding = Finding::new(&Cut(3), Label::key(JsonPath::root(), "here"));
        assert_eq!(finding.rule.id, "ML201");
        assert_eq!(finding.severity, GracePeriodExceeded::META.severity);
        assert_eq!(finding.message, "3 s cut");
        assert_eq!(finding.help, "raise the grace period");
        assert!(finding.fix.is_none());
    }
}
