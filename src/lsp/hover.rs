//! Hovers: over a finding, its rule's summary, the finding and its fix; over a
//! workload's `kind` or `metadata.name`, its simulated timeline as `explain` prints it,
//! with the assumptions it rests on.

use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind, Position, Range};

use super::analysis::{Linted, Snapshot, Verdict};
use super::diagnostics::{doc_url, range};
use crate::pipeline::Located;
use crate::report::{assumptions, explain, style::Style};

/// The hover at `position` in the snapshot's document, if there is something to say; a
/// timeline is laid out for `width` columns, the editor's hover window.
pub fn hover(snapshot: &Snapshot, position: Position, width: usize) -> Option<Hover> {
    let Verdict::Linted(linted) = &snapshot.verdict else {
        return None;
    };
    let contains = |range: Range| range.start <= position && position <= range.end;
    let findings: Vec<(&Located, Range)> = linted
        .findings()
        .map(|located| {
            let at = range(snapshot, located.primary.start, located.primary.end);
            (located, at)
        })
        .filter(|(_, at)| contains(*at))
        .collect();
    if let Some(&(_, at)) = findings.first() {
        let sections: Vec<String> = findings
            .iter()
            .map(|(located, _)| finding(located))
            .collect();
        return Some(markdown(sections.join("\n\n---\n\n"), at));
    }
    let (analysis, at) = linted.workloads().iter().find_map(|workload| {
        workload
            .spans
            .iter()
            .map(|span| range(snapshot, span.start, span.end))
            .find(|at| contains(*at))
            .map(|at| (workload.analysis, at))
    })?;
    Some(markdown(timeline(linted, analysis, width), at))
}

fn markdown(value: String, range: Range) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(range),
    }
}

/// A finding: the rule, its summary, what happens, the fix and a link to the rule.
fn finding(located: &Located) -> String {
    let finding = &located.finding;
    let rule = finding.rule;
    let mut text = format!(
        "**{}** `{}` · {}\n\n{}\n\n{}\n\n",
        rule.id, rule.name, finding.severity, rule.summary, finding.message
    );
    // The help may hold a YAML snippet whose indentation matters.
    if finding.help.contains('\n') {
        text.push_str(&format!("**Fix:**\n\n```text\n{}\n```\n\n", finding.help));
    } else {
        text.push_str(&format!("**Fix:** {}\n\n", finding.help));
    }
    if let Some(remedy) = &finding.fix {
        text.push_str(&format!(
            "**Automatic fix** ({}): {}\n\n",
            remedy.applicability.as_str(),
            remedy.description
        ));
    }
    text.push_str(&format!("[{} documentation]({})", rule.id, doc_url(rule)));
    text
}

/// A workload's timeline as `explain` draws it, and the profile's assumptions.
fn timeline(linted: &Linted, analysis: usize, width: usize) -> String {
    let style = Style {
        width,
        ..Style::plain()
    };
    let drawing = explain::text(&linted.analyses[analysis], style);
    let assumed = assumptions::items(&linted.context.settings).join(" · ");
    format!("```text\n{}```\n\nAssumed: {assumed}", drawing)
}
