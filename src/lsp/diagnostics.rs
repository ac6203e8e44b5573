//! Findings and input errors as the editor's diagnostics: the finding's node as the
//! range, its severity, the rule's id as the code linked to the rule's documentation,
//! the message with the assumptions it rests on, and the other side of the comparison
//! as related information.

use std::str::FromStr;

use lsp_types::{
    CodeDescription, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag,
    Location, NumberOrString, Range, Uri,
};

use super::analysis::{Linted, Snapshot, Verdict};
use crate::load::{InputError, Pos};
use crate::pipeline::{Analysis, Located};
use crate::rules::describe::assumed;
use crate::rules::{RuleMeta, Severity};

/// The `source` of every diagnostic: which tool speaks.
pub const SOURCE: &str = "mesh-lifecycle";

/// The diagnostics of a snapshot.
pub fn of(snapshot: &Snapshot) -> Vec<Diagnostic> {
    match &snapshot.verdict {
        Verdict::Silent => Vec::new(),
        Verdict::Unusable { config, errors } => {
            let name = config.as_ref().map_or_else(
                || "the config file".to_owned(),
                |path| path.display().to_string(),
            );
            let first = errors.first().map(ToString::to_string).unwrap_or_default();
            vec![Diagnostic {
                range: Range::default(),
                severity: Some(DiagnosticSeverity::ERROR),
                source: Some(SOURCE.to_owned()),
                message: format!("not linted: {name} cannot be used ({first})"),
                ..Diagnostic::default()
            }]
        }
        Verdict::Linted(linted) => linted_diagnostics(snapshot, linted),
    }
}

fn linted_diagnostics(snapshot: &Snapshot, linted: &Linted) -> Vec<Diagnostic> {
    let mut diagnostics: Vec<Diagnostic> = linted
        .errors
        .iter()
        .map(|error| input_error(snapshot, error, DiagnosticSeverity::ERROR))
        .collect();
    diagnostics.extend(linted.analyses.iter().flat_map(|analysis| {
        analysis
            .findings
            .iter()
            .filter(|located| located.suppressed.is_none())
            .map(|located| finding(snapshot, located, Some(analysis)))
    }));
    diagnostics.extend(
        linted
            .carried
            .iter()
            .map(|located| finding(snapshot, located, None)),
    );
    diagnostics.extend(
        linted
            .notes
            .iter()
            .map(|note| input_error(snapshot, note, DiagnosticSeverity::INFORMATION)),
    );
    diagnostics.extend(
        linted
            .skipped
            .iter()
            .map(|note| input_error(snapshot, note, DiagnosticSeverity::HINT)),
    );
    diagnostics
}

/// The range of a place in the snapshot's text.
pub fn range(snapshot: &Snapshot, start: Pos, end: Pos) -> Range {
    Range::new(
        snapshot.lines.position_of(&snapshot.text, start),
        snapshot.lines.position_of(&snapshot.text, end),
    )
}

/// The diagnostic of a finding; `analysis` gives the assumptions it rests on (a
/// finding carried from an earlier text has none at hand).
pub fn finding(snapshot: &Snapshot, located: &Located, analysis: Option<&Analysis>) -> Diagnostic {
    let finding = &located.finding;
    let mut message = finding.message.clone();
    if let Some(brief) = crate::report::evidence::brief(&finding.evidence) {
        message.push('\n');
        message.push_str(&brief);
    }
    if let Some(analysis) = analysis {
        for assumption in &analysis.plan.assumptions {
            message.push_str("\nassumed: ");
            message.push_str(&assumed(&assumption.assumed));
        }
    }
    let related = located
        .related
        .iter()
        .map(|place| DiagnosticRelatedInformation {
            location: Location::new(
                snapshot.uri.clone(),
                range(snapshot, place.start, place.end),
            ),
            message: place.text.clone(),
        })
        .collect::<Vec<_>>();
    Diagnostic {
        range: range(snapshot, located.primary.start, located.primary.end),
        severity: Some(severity(finding.severity)),
        code: Some(NumberOrString::String(finding.rule.id.to_owned())),
        code_description: Uri::from_str(&doc_url(finding.rule))
            .ok()
            .map(|href| CodeDescription { href }),
        source: Some(SOURCE.to_owned()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: tags(located),
        data: serde_json::to_value(serde_json::json!({
            "evidence": crate::report::evidence::json(&finding.evidence),
        }))
        .ok(),
    }
}

/// The diagnostic of an input error or a note, at its place (the document's first
/// line when the whole input is at fault).
fn input_error(
    snapshot: &Snapshot,
    error: &InputError,
    severity: DiagnosticSeverity,
) -> Diagnostic {
    let start = error.pos.unwrap_or(Pos { line: 1, column: 1 });
    let start_position = snapshot.lines.position_of(&snapshot.text, start);
    // The error's character, or the line's end when it points past the last one.
    let end_position = snapshot.lines.position_of(
        &snapshot.text,
        Pos {
            column: start.column + 1,
            ..start
        },
    );
    let related = error.related.as_ref().map(|related| {
        let (pos, text) = related.as_ref();
        vec![DiagnosticRelatedInformation {
            location: Location::new(snapshot.uri.clone(), range(snapshot, *pos, *pos)),
            message: text.clone(),
        }]
    });
    Diagnostic {
        range: Range::new(start_position, end_position),
        severity: Some(severity),
        source: Some(SOURCE.to_owned()),
        message: error.message.clone(),
        related_information: related,
        ..Diagnostic::default()
    }
}

/// The protocol's severity of a finding's.
pub fn severity(severity: Severity) -> DiagnosticSeverity {
    match severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
    }
}

/// Where a rule's documentation is published: its page of `docs/rules/`.
pub fn doc_url(rule: &RuleMeta) -> String {
    format!(
        "{}/blob/main/docs/rules/{}-{}.md",
        env!("CARGO_PKG_REPOSITORY"),
        rule.id,
        rule.name
    )
}

/// How editors should draw a finding beyond its severity: a setting that has no effect
/// (ML205's ignored drain setting, ML403's redundant gate) is unnecessary, drawn faded;
/// Istio's injection opt-in written as an annotation (ML404), a form Istio deprecated for
/// the label, is deprecated, drawn struck through.
fn tags(located: &Located) -> Option<Vec<DiagnosticTag>> {
    let tag = match located.finding.rule.id {
        "ML205" | "ML403" => DiagnosticTag::UNNECESSARY,
        "ML404" if located.primary.path.contains("annotations") => DiagnosticTag::DEPRECATED,
        _ => return None,
    };
    Some(vec![tag])
}
