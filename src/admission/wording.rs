//! The findings as the API server hands them on: one warning line each, rule id first,
//! within the length the API server keeps; the rule ids for the audit log; the status
//! message of a denial.

use std::time::Duration;

use crate::pipeline::Located;
use crate::rules::Severity;

/// The longest warning the API server passes on whole (longer ones may be cut).
pub const MAX_WARNING_CHARS: usize = 256;

/// The most warnings one answer carries: the API server truncates a long list, and
/// `kubectl apply` prints each on its own line.
pub const MAX_WARNINGS: usize = 12;

/// The longest denial message: it is printed as `kubectl apply`'s error.
pub const MAX_DENIAL_CHARS: usize = 1024;

/// What an answer says of one finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The rule's id (`ML201`).
    pub id: &'static str,
    /// Its severity in the profile.
    pub severity: Severity,
    /// What happens, as `lint` words it.
    pub message: String,
}

impl From<&Located> for Found {
    fn from(located: &Located) -> Found {
        Found {
            id: located.finding.rule.id,
            severity: located.finding.severity,
            message: located.finding.message.clone(),
        }
    }
}

/// One line: `ML201 error: <message>`, on one line, at most [`MAX_WARNING_CHARS`].
pub fn line(found: &Found) -> String {
    let text = format!(
        "{} {}: {}",
        found.id,
        found.severity.as_str(),
        one_line(&found.message)
    );
    shorten(&text, MAX_WARNING_CHARS)
}

/// The warnings of an answer: one per finding, worst first, at most
/// [`MAX_WARNINGS`], the last saying how many more there are.
pub fn warnings(found: &[Found]) -> Vec<String> {
    if found.len() <= MAX_WARNINGS {
        return found.iter().map(line).collect();
    }
    let shown = MAX_WARNINGS - 1;
    let mut lines: Vec<String> = found[..shown].iter().map(line).collect();
    let more = &found[shown..];
    lines.push(shorten(
        &format!(
            "{} and {} more finding(s): run `{} lint` on the manifest for all of them",
            rule_ids(more),
            more.len(),
            crate::PLUGIN_NAME
        ),
        MAX_WARNING_CHARS,
    ));
    lines
}

/// The rule ids that fired, each once, in the order of `found`, comma-separated.
pub fn rule_ids(found: &[Found]) -> String {
    let mut ids: Vec<&str> = Vec::new();
    for finding in found {
        if !ids.contains(&finding.id) {
            ids.push(finding.id);
        }
    }
    ids.join(",")
}

/// The status message of a denial: the findings at or above `threshold`.
pub fn denial(found: &[Found], threshold: Severity) -> String {
    let denying: Vec<String> = found
        .iter()
        .filter(|finding| finding.severity >= threshold)
        .map(line)
        .collect();
    let text = format!(
        "{}: {} finding(s) at or above {}: {}",
        crate::PLUGIN_NAME,
        denying.len(),
        threshold.as_str(),
        denying.join("; ")
    );
    shorten(&text, MAX_DENIAL_CHARS)
}

/// The warning of a review that ran out of time.
pub fn timed_out(budget: Duration) -> String {
    format!(
        "{}: not checked, the review took longer than {} ms; the object is admitted",
        crate::PLUGIN_NAME,
        budget.as_millis()
    )
}

/// `text` on one line: line breaks and runs of white space as one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` cut to at most `max` characters, at a word's end where one is near, with `…`
/// saying it was cut.
pub fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let keep: String = text.chars().take(max - 1).collect();
    // Back to the last space, unless that loses more than a fifth of the line.
    let cut = match keep.rfind(' ') {
        Some(at) if keep[..at].chars().count() >= max * 4 / 5 => &keep[..at],
        _ => &keep[..],
    };
    format!("{}…", cut.trim_end_matches([' ', ',', ';', ':']))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(id: &'static str, severity: Severity, message: &str) -> Found {
        Found {
            id,
            severity,
            message: message.to_owned(),
        }
    }

    #[test]
    fn a_warning_is_one_line_with_the_rule_first() {
        let line = line(&found(
            "ML201",
            Severity::Error,
            "the drain\n  runs past  the grace period",
        ));
        assert_eq!(line, "ML201 error: the drain runs past the grace period");
    }

    #[test]
    fn a_long_warning_is_cut_at_a_word_within_the_limit() {
        let message = "word ".repeat(100);
        let line = line(&found("ML102", Severity::Warning, &message));
        assert!(
            line.chars().count() <= MAX_WARNING_CHARS,
            "{}",
            line.chars().count()
        );
        assert!(line.starts_with("ML102 warning: word"));
        assert!(line.ends_with("word…"), "{line}");
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        let text = "é".repeat(300);
        let cut = shorten(&text, 256);
        assert_eq!(cut.chars().count(), 256);
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn many_findings_end_with_a_count_of_the_rest() {
        let many: Vec<Found> = (0..20)
            .map(|_| found("ML101", Severity::Info, "x"))
            .collect();
        let lines = warnings(&many);
        assert_eq!(lines.len(), MAX_WARNINGS);
        assert!(
            lines[MAX_WARNINGS - 1].starts_with("ML101 and 9 more"),
            "{}",
            lines[MAX_WARNINGS - 1]
        );
    }

    #[test]
    fn a_denial_names_only_the_findings_that_deny() {
        let both = [
            found("ML201", Severity::Error, "lost"),
            found("ML102", Severity::Warning, "maybe lost"),
        ];
        let message = denial(&both, Severity::Error);
        assert!(message.contains("ML201 error: lost"), "{message}");
        assert!(!message.contains("ML102"), "{message}");
        assert_eq!(rule_ids(&both), "ML201,ML102");
    }
}
