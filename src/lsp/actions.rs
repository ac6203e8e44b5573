//! Code actions: each finding's fix as a quick fix, checked as `lint --fix` checks it
//! (an unsafe one says so in its title), a suppression annotation for each finding, and
//! every safe fix of the file at once as `source.fixAll`. Their edits are against the
//! version of the buffer that was linted, so an editor whose buffer has moved on
//! refuses them rather than apply them in the wrong place.

use std::collections::HashMap;

use lsp_types::{
    AnnotatedTextEdit, CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams,
    DocumentChanges, OneOf, OptionalVersionedTextDocumentIdentifier, Range, TextDocumentEdit,
    TextEdit, WorkspaceEdit,
};

use super::analysis::{Linted, Snapshot, Verdict};
use super::{diagnostics, fixes};
use crate::fix::{Applicability, Change, Editor, Fix, Remedy};
use crate::pipeline::{Analysis, Located};

/// The kind of the action that makes every safe fix of the file, under
/// `source.fixAll` as editors' "fix all on save" settings ask for it.
pub fn fix_all_kind() -> CodeActionKind {
    CodeActionKind::new("source.fixAll.mesh-lifecycle")
}

/// The text a suppression's reason starts as, for the user to replace.
pub const REASON_PLACEHOLDER: &str = "TODO: why this finding does not apply";

/// How the client takes workspace edits.
#[derive(Clone, Copy, Debug, Default)]
pub struct EditSupport {
    /// Whether it takes `documentChanges`, which carry the document's version.
    pub document_changes: bool,
}

/// The code actions for `params.range` of the snapshot's document.
pub fn code_actions(
    snapshot: &Snapshot,
    params: &CodeActionParams,
    support: EditSupport,
) -> Vec<CodeActionOrCommand> {
    let Verdict::Linted(linted) = &snapshot.verdict else {
        return Vec::new();
    };
    let only = params.context.only.as_deref();
    let wanted = |kind: &CodeActionKind| {
        only.is_none_or(|only| {
            only.iter().any(|asked| {
                kind.as_str() == asked.as_str()
                    || kind.as_str().starts_with(&format!("{}.", asked.as_str()))
            })
        })
    };
    let mut actions = Vec::new();
    if wanted(&CodeActionKind::QUICKFIX) {
        let mut fixes = Vec::new();
        let mut suppressions = Vec::new();
        for analysis in &linted.analyses {
            for located in &analysis.findings {
                if located.suppressed.is_some() {
                    continue;
                }
                let diagnostic = diagnostics::finding(snapshot, located, Some(analysis));
                if !overlaps(diagnostic.range, params.range) {
                    continue;
                }
                if let Some(action) = fix_action(snapshot, located, support) {
                    fixes.push((
                        action,
                        located.finding.fix.as_ref().map(|r| r.applicability),
                    ));
                }
                if let Some(mut action) = suppression(snapshot, linted, analysis, located, support)
                {
                    action.diagnostics = Some(vec![diagnostic]);
                    suppressions.push(action);
                }
            }
        }
        let alone = fixes.len() == 1;
        for (mut action, applicability) in fixes {
            action.is_preferred = Some(alone && applicability == Some(Applicability::Safe));
            actions.push(CodeActionOrCommand::CodeAction(action));
        }
        actions.extend(
            suppressions
                .into_iter()
                .map(CodeActionOrCommand::CodeAction),
        );
    }
    if wanted(&fix_all_kind())
        && let Some(action) = fix_all(snapshot, linted, support)
    {
        actions.push(CodeActionOrCommand::CodeAction(action));
    }
    actions
}

/// Whether two ranges share a position (an empty range at a finding's edge counts).
fn overlaps(a: Range, b: Range) -> bool {
    a.start <= b.end && b.start <= a.end
}

/// The quick fix of a finding, when it has a fix that passes `--fix`'s checks.
fn fix_action(snapshot: &Snapshot, located: &Located, support: EditSupport) -> Option<CodeAction> {
    let remedy = located.finding.fix.as_ref()?;
    if remedy.applicability == Applicability::DisplayOnly {
        return None;
    }
    let fix = fixes::verified(&snapshot.text, located).ok()?;
    let id = located.finding.rule.id;
    let title = match fix.applicability {
        Applicability::Unsafe => {
            format!("Fix {id} (unsafe: review the change): {}", fix.description)
        }
        _ => format!("Fix {id}: {}", fix.description),
    };
    Some(CodeAction {
        title,
        kind: Some(CodeActionKind::QUICKFIX),
        edit: Some(workspace_edit(snapshot, edits(snapshot, &fix), support)),
        ..CodeAction::default()
    })
}

/// The action that suppresses a finding with an `ignore-check` annotation on the
/// workload's own metadata (not the pod template's, whose change would roll the pods),
/// its reason a placeholder to fill in.
fn suppression(
    snapshot: &Snapshot,
    linted: &Linted,
    analysis: &Analysis,
    located: &Located,
    support: EditSupport,
) -> Option<CodeAction> {
    let rule = located.finding.rule;
    let key = format!("ignore-check.mesh-lifecycle.io/{}", rule.id);
    let path = analysis.plan.paths.metadata.key("annotations").key(&key);
    let remedy = Remedy::new(
        Applicability::Safe,
        format!("suppress {}", rule.id),
        vec![Change::Set(
            path,
            serde_json::Value::from(REASON_PLACEHOLDER),
        )],
    );
    let mut fix = None;
    linted.each_document(|document| {
        if document.index == analysis.document && fix.is_none() {
            let editor = Editor::new(&snapshot.text, &document.root);
            fix = editor.plan(&remedy).ok().map(|planned| planned.fix);
        }
    });
    let fix = fix?;
    let workload = &analysis.plan.workload;
    Some(CodeAction {
        title: format!(
            "Suppress {} ({}) on {} {} with an annotation",
            rule.id, rule.name, workload.kind, workload.name
        ),
        kind: Some(CodeActionKind::QUICKFIX),
        edit: Some(workspace_edit(snapshot, edits(snapshot, &fix), support)),
        ..CodeAction::default()
    })
}

/// Every safe fix of the file, made in verified rounds as `lint --fix` makes them; the
/// edits cover the changed lines only, so the rest of the buffer (and the cursor in it)
/// stays as it is.
fn fix_all(snapshot: &Snapshot, linted: &Linted, support: EditSupport) -> Option<CodeAction> {
    let any = linted.findings().any(|located| {
        located
            .finding
            .fix
            .as_ref()
            .is_some_and(|remedy| remedy.applicability == Applicability::Safe)
    });
    if !any {
        return None;
    }
    let fixed = fixes::fix_all(&linted.context, &snapshot.text, false);
    if fixed == *snapshot.text {
        return None;
    }
    Some(CodeAction {
        title: "Fix all safe mesh-lifecycle findings in this file".to_owned(),
        kind: Some(fix_all_kind()),
        edit: Some(workspace_edit(
            snapshot,
            line_edits(snapshot, &fixed),
            support,
        )),
        ..CodeAction::default()
    })
}

/// A fix's edits, offsets in the snapshot's text, as the editor's edits.
fn edits(snapshot: &Snapshot, fix: &Fix) -> Vec<TextEdit> {
    let mut edits: Vec<TextEdit> = fix
        .edits
        .iter()
        .map(|edit| TextEdit {
            range: Range::new(
                snapshot.lines.position(&snapshot.text, edit.range.start),
                snapshot.lines.position(&snapshot.text, edit.range.end),
            ),
            new_text: edit.replacement.clone(),
        })
        .collect();
    edits.sort_by_key(|edit| (edit.range.start, edit.range.end));
    edits
}

/// The edits that turn the snapshot's text into `new`, a change of whole lines each.
fn line_edits(snapshot: &Snapshot, new: &str) -> Vec<TextEdit> {
    let old = &*snapshot.text;
    let starts = |text: &str| -> Vec<usize> {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(at, _)| at + 1));
        starts
    };
    let (old_starts, new_starts) = (starts(old), starts(new));
    let offset = |starts: &[usize], text: &str, line: usize| {
        starts
            .get(line)
            .copied()
            .unwrap_or(text.len())
            .min(text.len())
    };
    let diff = similar::TextDiff::from_lines(old, new);
    diff.ops()
        .iter()
        .filter(|op| op.tag() != similar::DiffTag::Equal)
        .map(|op| {
            let (from, to) = (op.old_range(), op.new_range());
            let start = offset(&old_starts, old, from.start);
            let end = offset(&old_starts, old, from.end);
            let new_text = new
                [offset(&new_starts, new, to.start)..offset(&new_starts, new, to.end)]
                .to_owned();
            TextEdit {
                range: Range::new(
                    snapshot.lines.position(old, start),
                    snapshot.lines.position(old, end),
                ),
                new_text,
            }
        })
        .collect()
}

/// Edits of the snapshot's document as a workspace edit, tied to its version when the
/// client takes versioned edits.
fn workspace_edit(
    snapshot: &Snapshot,
    edits: Vec<TextEdit>,
    support: EditSupport,
) -> WorkspaceEdit {
    if support.document_changes {
        WorkspaceEdit {
            document_changes: Some(DocumentChanges::Edits(vec![TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier {
                    uri: snapshot.uri.clone(),
                    version: Some(snapshot.version),
                },
                edits: edits
                    .into_iter()
                    .map(OneOf::<TextEdit, AnnotatedTextEdit>::Left)
                    .collect(),
            }])),
            ..WorkspaceEdit::default()
        }
    } else {
        WorkspaceEdit {
            changes: Some(HashMap::from([(snapshot.uri.clone(), edits)])),
            ..WorkspaceEdit::default()
        }
    }
}
