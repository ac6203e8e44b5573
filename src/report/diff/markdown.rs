//! `diff --format markdown`: a pull-request comment. GitHub refuses a comment longer
//! than 65,536 characters, so workloads are added while they fit, and a closing note
//! says how many were left out and where the whole report is.

use std::fmt::Write;

use super::{Header, counts, movement, setting, summary, workload_name};
use crate::diff::{Comparison, FindingChange, FindingMove, Presence, Tally, WorkloadChange};

/// The most characters GitHub takes in a comment (issue and pull-request comments,
/// `body` of the REST API).
pub const COMMENT_LIMIT: usize = 65_536;

/// Room kept for the note about what was left out.
const NOTE_ROOM: usize = 600;

/// The comment, at most `limit` characters.
pub fn render(comparison: &Comparison, header: &Header, limit: usize) -> String {
    let tally = comparison.tally();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### {} diff: {} → {}\n",
        crate::PLUGIN_NAME,
        code(&header.before),
        code(&header.after)
    );
    let _ = writeln!(out, "{}\n", escape(&summary(&tally)));
    for (side, only) in [
        ("before", &header.before_only),
        ("after", &header.after_only),
    ] {
        if !only.is_empty() {
            let _ = writeln!(out, "- {side}: {}", escape(&only.join(" · ")));
        }
    }
    for note in &header.notes {
        let _ = writeln!(out, "- note: {}", escape(&note.to_string()));
    }
    if !header.input_errors.is_empty() {
        let _ = writeln!(
            out,
            "- **{} input(s) could not be read**; see the job's log",
            header.input_errors.len()
        );
    }
    out.push('\n');
    let budget = limit.saturating_sub(NOTE_ROOM);
    let mut used = out.chars().count();
    let mut shown = 0;
    for change in &comparison.workloads {
        let block = workload(change);
        let length = block.chars().count();
        if used + length > budget {
            break;
        }
        used += length;
        out.push_str(&block);
        shown += 1;
    }
    let left = &comparison.workloads[shown..];
    if !left.is_empty() {
        let mut findings = Tally::default();
        for change in left {
            count(change, &mut findings);
        }
        let mut counted = counts('+', findings.added);
        counted.extend(counts('−', findings.removed));
        let counted = if counted.is_empty() {
            String::new()
        } else {
            format!(" ({})", counted.join(", "))
        };
        let _ = writeln!(
            out,
            "\n_{} more workload{} changed{counted} and {} not shown: a pull-request comment holds at most 65,536 characters. The whole report is in the job's log, or `--format json`._",
            left.len(),
            if left.len() == 1 { "" } else { "s" },
            if left.len() == 1 { "is" } else { "are" },
        );
    }
    out
}

/// The counts of one workload's findings.
fn count(change: &WorkloadChange, tally: &mut Tally) {
    for finding in &change.findings {
        let located = finding.current();
        if located.suppressed.is_some() {
            continue;
        }
        let index = crate::diff::severity_index(located.finding.severity);
        match finding.kind() {
            FindingMove::Added => tally.added[index] += 1,
            FindingMove::Removed => tally.removed[index] += 1,
            FindingMove::Changed => tally.changed_findings += 1,
        }
    }
}

/// One workload as a collapsed section whose summary says what changed.
fn workload(change: &WorkloadChange) -> String {
    let mut tally = Tally::default();
    count(change, &mut tally);
    let mut what = counts('+', tally.added);
    what.extend(counts('−', tally.removed));
    if tally.changed_findings > 0 {
        what.push(format!("{} changed", tally.changed_findings));
    }
    if !change.moves.is_empty() {
        what.push(format!(
            "{} timeline move{}",
            change.moves.len(),
            if change.moves.len() == 1 { "" } else { "s" }
        ));
    }
    let status = match change.presence {
        Presence::Both => "",
        Presence::After => " (new)",
        Presence::Before => " (goes away)",
    };
    let mut out = format!(
        "<details><summary><code>{}</code>{status} · <code>{}</code>{}</summary>\n\n",
        html(&workload_name(change)),
        html(&change.file),
        if what.is_empty() {
            String::new()
        } else {
            format!(" · {}", html(&what.join(", ")))
        }
    );
    for finding in &change.findings {
        let _ = writeln!(out, "- {}", finding_line(finding));
    }
    if !change.moves.is_empty() {
        out.push_str("\n**Timeline**\n\n");
        for m in &change.moves {
            let _ = writeln!(out, "- {}", escape(&movement(m)));
        }
    }
    if !change.settings.is_empty() {
        out.push_str("\n**Settings**\n\n");
        for s in &change.settings {
            let _ = writeln!(out, "- {}", escape(&setting(s)));
        }
    }
    out.push_str("\n</details>\n");
    out
}

/// `**added** error ML201 … (`istio-proxy`): message, at `web.yaml:18`.
fn finding_line(change: &FindingChange) -> String {
    let located = change.current();
    let finding = &located.finding;
    let sign = match change.kind() {
        FindingMove::Added => "**added**",
        FindingMove::Removed => "**removed**",
        FindingMove::Changed => "**changed**",
    };
    let severity = match (&change.before, &change.after) {
        (Some(before), Some(after)) if before.finding.severity != after.finding.severity => {
            format!("{} → {}", before.finding.severity, after.finding.severity)
        }
        _ => finding.severity.to_string(),
    };
    let container = finding
        .container
        .as_ref()
        .map(|c| format!(" {}", code(c)))
        .unwrap_or_default();
    format!(
        "{sign} {severity} {} {}{container}: {} ({})",
        code(finding.rule.id),
        escape(finding.rule.name),
        escape(&finding.message),
        code(&format!("{}:{}", located.file, located.primary.start.line))
    )
}

/// Text made safe in Markdown outside code: control characters shown as escapes,
/// HTML's characters as entities and the characters that would start a table cell or a
/// link; code spans written by the messages (`` `istio-proxy` ``) stay code.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in crate::escape::controls(text).chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '|' | '[' | ']' | '*' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Text inside HTML (a `<summary>`), control characters shown as escapes.
fn html(text: &str) -> String {
    crate::escape::controls(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// `text` as a code span, with a fence longer than any run of backticks in it and
/// control characters shown as escapes.
fn code(text: &str) -> String {
    let text = crate::escape::controls(text);
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_hold_backticks() {
        assert_eq!(code("a"), "`a`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`a"), "`` `a ``");
    }

    #[test]
    fn escapes_what_markdown_would_read() {
        assert_eq!(escape("a <b> | c"), "a &lt;b&gt; \\| c");
        assert_eq!(escape("a\u{1b}[2J"), "a\\\\x1b\\[2J");
        assert_eq!(code("a\u{7}"), "`a\\x07`");
        assert_eq!(html("<a\r>"), "&lt;a\\x0d&gt;");
    }
}
