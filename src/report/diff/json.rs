//! `diff --format json`: the contract of docs/diff-output.schema.json (schemaVersion 1).

use serde::Serialize;

use super::{Header, movement, setting};
use crate::diff::{Comparison, FindingChange, FindingMove, Move, Presence, Tally};
use crate::pipeline::located::Located;
use crate::report::json::FindingFields;
use crate::time::Millis;
use crate::workload::WorkloadRef;

/// The version of the contract.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Report<'a> {
    schema_version: u32,
    before: SideJson<'a>,
    after: SideJson<'a>,
    workloads: Vec<WorkloadJson<'a>>,
    errors: Vec<NoteJson>,
    notes: Vec<NoteJson>,
    summary: SummaryJson,
}

#[derive(Serialize)]
struct SideJson<'a> {
    label: &'a str,
    /// The assumptions only this side makes.
    assumptions: &'a [String],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WorkloadJson<'a> {
    workload: &'a WorkloadRef,
    file: &'a str,
    status: &'static str,
    findings: Vec<FindingChangeJson<'a>>,
    timeline: Vec<MoveJson>,
    settings: Vec<SettingJson>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FindingChangeJson<'a> {
    change: &'static str,
    fingerprint: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    before: Option<FindingJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    after: Option<FindingJson<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FindingJson<'a> {
    #[serde(flatten)]
    fields: FindingFields<'a>,
    container: Option<&'a str>,
    suppressed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    window: Option<&'a crate::rules::Window>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MoveJson {
    kind: &'static str,
    container: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_id: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    moment: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    phase: Option<crate::simulate::Phase>,
    /// The state before and after, for role, gate and stop-order moves.
    #[serde(skip_serializing_if = "Option::is_none")]
    from: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    to: Option<String>,
    /// Times and window lengths; `null` is never (or no window).
    #[serde(skip_serializing_if = "Option::is_none")]
    from_ms: Option<Option<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    to_ms: Option<Option<i64>>,
    /// The move in words, as the human report says it.
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SettingJson {
    change: &'static str,
    source: String,
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NoteJson {
    file: String,
    line: Option<u32>,
    column: Option<u32>,
    message: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SummaryJson {
    workloads_changed: usize,
    workloads_unchanged: usize,
    added: Counts,
    removed: Counts,
    changed: usize,
    input_errors: usize,
}

#[derive(Serialize)]
struct Counts {
    errors: usize,
    warnings: usize,
    infos: usize,
}

impl From<[usize; 3]> for Counts {
    fn from([errors, warnings, infos]: [usize; 3]) -> Self {
        Counts {
            errors,
            warnings,
            infos,
        }
    }
}

fn note(error: &crate::load::InputError) -> NoteJson {
    NoteJson {
        file: error.file.to_string(),
        line: error.pos.map(|p| p.line),
        column: error.pos.map(|p| p.column),
        message: error.message.clone(),
    }
}

fn finding(located: &Located) -> FindingJson<'_> {
    let f = &located.finding;
    FindingJson {
        fields: FindingFields::of(located),
        container: f.container.as_deref(),
        suppressed: located.suppressed.is_some(),
        window: f.window.as_ref(),
    }
}

fn finding_change(change: &FindingChange) -> FindingChangeJson<'_> {
    FindingChangeJson {
        change: match change.kind() {
            FindingMove::Added => "added",
            FindingMove::Removed => "removed",
            FindingMove::Changed => "changed",
        },
        fingerprint: &change.fingerprint,
        before: change.before.as_ref().map(finding),
        after: change.after.as_ref().map(finding),
    }
}

fn ms(at: Option<Millis>) -> Option<Option<i64>> {
    Some(at.map(|at| at.0))
}

fn move_json(m: &Move) -> MoveJson {
    let mut json = MoveJson {
        kind: "",
        container: None,
        rule_id: None,
        moment: None,
        phase: None,
        from: None,
        to: None,
        from_ms: None,
        to_ms: None,
        text: movement(m),
    };
    match m {
        Move::Container {
            name,
            appears,
            role,
        } => {
            json.kind = if *appears { "appears" } else { "goesAway" };
            json.container = Some(name.clone());
            let role = Some(role.as_str().to_owned());
            if *appears {
                json.to = role;
            } else {
                json.from = role;
            }
        }
        Move::Role {
            container,
            before,
            after,
        } => {
            json.kind = "role";
            json.container = Some(container.clone());
            json.from = Some(before.as_str().to_owned());
            json.to = Some(after.as_str().to_owned());
        }
        Move::Gate {
            container,
            before,
            after,
        } => {
            json.kind = "gate";
            json.container = Some(container.clone());
            json.from = Some(before.as_str().to_owned());
            json.to = Some(after.as_str().to_owned());
        }
        Move::StopOrder {
            container,
            before,
            after,
        } => {
            json.kind = "stopOrder";
            json.container = Some(container.clone());
            json.from = Some(before.as_str().to_owned());
            json.to = Some(after.as_str().to_owned());
        }
        Move::Time {
            container,
            moment,
            before,
            after,
        } => {
            json.kind = "time";
            json.container = container.clone();
            json.moment = Some(moment.as_str());
            json.phase = Some(moment.phase());
            json.from_ms = ms(*before);
            json.to_ms = ms(*after);
        }
        Move::Window {
            rule,
            container,
            phase,
            before,
            after,
        } => {
            json.kind = "window";
            json.container = container.clone();
            json.rule_id = Some(rule.id);
            json.phase = Some(*phase);
            json.from_ms = ms(*before);
            json.to_ms = ms(*after);
        }
    }
    json
}

/// The report, pretty-printed, with a final line break.
pub fn render(comparison: &Comparison, header: &Header) -> String {
    let tally: Tally = comparison.tally();
    let report = Report {
        schema_version: SCHEMA_VERSION,
        before: SideJson {
            label: &header.before,
            assumptions: &header.before_only,
        },
        after: SideJson {
            label: &header.after,
            assumptions: &header.after_only,
        },
        workloads: comparison
            .workloads
            .iter()
            .map(|change| WorkloadJson {
                workload: &change.workload,
                file: &change.file,
                status: match change.presence {
                    Presence::Both => "changed",
                    Presence::After => "new",
                    Presence::Before => "goesAway",
                },
                findings: change.findings.iter().map(finding_change).collect(),
                timeline: change.moves.iter().map(move_json).collect(),
                settings: change
                    .settings
                    .iter()
                    .map(|s| SettingJson {
                        change: if s.becomes_moot { "moot" } else { "applies" },
                        source: s.setting.source.to_string(),
                        text: setting(s),
                    })
                    .collect(),
            })
            .collect(),
        errors: header.input_errors.iter().map(note).collect(),
        notes: header.notes.iter().map(note).collect(),
        summary: SummaryJson {
            workloads_changed: tally.changed,
            workloads_unchanged: tally.unchanged,
            added: tally.added.into(),
            removed: tally.removed.into(),
            changed: tally.changed_findings,
            input_errors: header.input_errors.len(),
        },
    };
    let mut text = serde_json::to_string_pretty(&report).expect("the report serializes");
    text.push('\n');
    text
}
