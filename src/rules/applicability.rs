//! Whether a fix may be applied unreviewed. A rule states what its fix risks when the
//! finding is proven (safe, or unsafe for a change of behaviour a human chooses); a fix
//! whose finding or value rests on what the input does not show and that could make it
//! wrong (an assumed version, time or namespace) is a guess to review: it is unsafe,
//! and its title and [`rests_on`] say what it assumes. Settled once a finding's premises are final
//! (after the release check), so that a premise another release settles does not
//! hold a proven fix back.

use super::evidence::Premise;
use super::rule::Finding;
use crate::fix::Applicability;

/// Lowers `finding`'s fix to unsafe where it rests on a premise, and says which in its
/// title.
pub fn settle(finding: &mut Finding) {
    let phrases: Vec<String> = rests_on(finding)
        .iter()
        .map(|premise| premise.phrase())
        .collect();
    let Some(fix) = finding.fix.as_mut() else {
        return;
    };
    if phrases.is_empty() || fix.applicability == Applicability::DisplayOnly {
        return;
    }
    fix.applicability = fix.applicability.min(Applicability::Unsafe);
    fix.description = format!("{}; it assumes {}", fix.description, phrases.join(", "));
}

/// What `finding`'s fix rests on that the input does not show and that could make it
/// wrong ([`Premise::bears_on_fix`]): the finding's own premises (but those the fix
/// holds without) and those of the fix's value, each once, in the order of their
/// words, so that one fix carried by two findings reads the same on both.
pub fn rests_on(finding: &Finding) -> Vec<&Premise> {
    let mut premises: Vec<&Premise> = Vec::new();
    for premise in finding
        .evidence
        .premises
        .iter()
        .chain(&finding.fix_rests_on)
    {
        let bears = premise.bears_on_fix() && !finding.fix_holds_without.contains(&premise.subject);
        if bears
            && !premises
                .iter()
                .any(|known| known.subject == premise.subject)
        {
            premises.push(premise);
        }
    }
    premises.sort_by_cached_key(|premise| premise.phrase());
    premises
}
