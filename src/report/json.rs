//! `--format json`: the output contract of docs/lint-output.schema.json, written as documents arrive.

use std::io::{self, Write};

use serde::Serialize;

use super::{Reporter, Summary};
use crate::cluster::{ObjectSource, Sources};
use crate::load::InputError;
use crate::pipeline::located::Located;
use crate::workload::WorkloadRef;

/// Streams the JSON report: findings as they come, errors and the summary at the end.
pub struct JsonReporter<W: Write> {
    out: W,
    wrote_header: bool,
    any_finding: bool,
    errors: Vec<ErrorJson>,
    notes: Vec<ErrorJson>,
    sources: Sources,
}

/// What every JSON contract says of a finding: its rule, severity, words and place.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct FindingFields<'a> {
    rule_id: &'a str,
    rule: &'a str,
    severity: &'a str,
    message: &'a str,
    help: &'a str,
    file: &'a str,
    line: u32,
    column: u32,
}

impl<'a> FindingFields<'a> {
    pub(super) fn of(located: &'a Located) -> Self {
        let finding = &located.finding;
        FindingFields {
            rule_id: finding.rule.id,
            rule: finding.rule.name,
            severity: finding.severity.as_str(),
            message: &finding.message,
            help: &finding.help,
            file: &located.file,
            line: located.primary.start.line,
            column: located.primary.start.column,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FindingJson<'a> {
    #[serde(flatten)]
    fields: FindingFields<'a>,
    document: usize,
    workload: &'a WorkloadRef,
    container: Option<&'a str>,
    /// The object read from a cluster, for findings that were not read from a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'a ObjectSource>,
    /// The finding's fix, when it has one the manifest is shaped for.
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<FixJson<'a>>,
    /// The baseline in use holds it (listed with `--show-baselined` only).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    baselined: bool,
    /// What it rests on: facts, and premises the input does not prove.
    evidence: super::evidence::EvidenceJson,
}

/// A fix: how safe it is, what it does, and its edits (none when display-only).
#[derive(Serialize)]
struct FixJson<'a> {
    applicability: &'static str,
    description: &'a str,
    edits: Vec<EditJson>,
    /// What the fix assumes that the input does not show, which keeps it from being
    /// safe; absent when it assumes nothing.
    #[serde(rename = "restsOn", skip_serializing_if = "Vec::is_empty")]
    rests_on: Vec<super::evidence::PremiseJson>,
}

/// One edit: the text from `start` to `end` (exclusive) replaced by `replacement`.
#[derive(Serialize)]
struct EditJson {
    start: PosJson,
    end: PosJson,
    replacement: String,
}

/// A 1-based line and column (in code points).
#[derive(Serialize)]
struct PosJson {
    line: u32,
    column: u32,
}

impl From<crate::load::Pos> for PosJson {
    fn from(pos: crate::load::Pos) -> Self {
        PosJson {
            line: pos.line,
            column: pos.column,
        }
    }
}

/// An input error or a note: where, and what.
#[derive(Serialize)]
struct ErrorJson {
    file: String,
    line: Option<u32>,
    column: Option<u32>,
    message: String,
}

impl From<&InputError> for ErrorJson {
    fn from(error: &InputError) -> Self {
        ErrorJson {
            file: error.file.to_string(),
            line: error.pos.map(|p| p.line),
            column: error.pos.map(|p| p.column),
            message: error.message.clone(),
        }
    }
}

impl<W: Write> JsonReporter<W> {
    /// A reporter that writes one JSON document to `out` when it finishes.
    pub fn new(out: W) -> Self {
        JsonReporter {
            out,
            wrote_header: false,
            any_finding: false,
            errors: Vec::new(),
            notes: Vec::new(),
            sources: Sources::default(),
        }
    }

    /// Describes the objects read from a cluster by `sources` (`source` of a finding).
    pub fn with_sources(mut self, sources: Sources) -> Self {
        self.sources = sources;
        self
    }

    fn header(&mut self) -> io::Result<()> {
        if !self.wrote_header {
            self.wrote_header = true;
            write!(self.out, "{{\n  \"schemaVersion\": 1,\n  \"findings\": [")?;
        }
        Ok(())
    }
}

/// Writes `value` pretty-printed, each line indented by `indent` spaces.
fn write_indented(out: &mut impl Write, value: &impl Serialize, indent: usize) -> io::Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(io::Error::other)?;
    let pad = " ".repeat(indent);
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            out.write_all(b"\n")?;
            out.write_all(pad.as_bytes())?;
        }
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// The items of an array whose `[` is written, and its `]`.
fn write_items(out: &mut impl Write, items: &[ErrorJson]) -> io::Result<()> {
    for (i, item) in items.iter().enumerate() {
        out.write_all(if i > 0 { b",\n    " } else { b"\n    " })?;
        write_indented(out, item, 4)?;
    }
    out.write_all(if items.is_empty() { b"]" } else { b"\n  ]" })
}

/// The contract's object for one finding, fields in the contract's order.
fn finding_json<'a>(located: &'a Located, sources: &'a Sources) -> FindingJson<'a> {
    let finding = &located.finding;
    FindingJson {
        fields: FindingFields::of(located),
        document: located.document,
        workload: &located.workload,
        container: finding.container.as_deref(),
        source: sources.object(&located.file),
        fix: located.fix_edits().map(|(fix, edits)| FixJson {
            applicability: fix.applicability.as_str(),
            description: &fix.description,
            edits: edits
                .into_iter()
                .map(|edit| EditJson {
                    start: edit.start.into(),
                    end: edit.end.into(),
                    replacement: edit.replacement,
                })
                .collect(),
            rests_on: crate::rules::applicability::rests_on(finding)
                .into_iter()
                .map(super::evidence::premise_json)
                .collect(),
        }),
        baselined: located.baselined,
        evidence: super::evidence::json(&finding.evidence),
    }
}

impl<W: Write> Reporter for JsonReporter<W> {
    fn findings(&mut self, findings: &[&Located]) -> io::Result<()> {
        self.header()?;
        for located in findings.iter().filter(|f| f.suppressed.is_none()) {
            self.out.write_all(if self.any_finding {
                b",\n    "
            } else {
                b"\n    "
            })?;
            self.any_finding = true;
            write_indented(&mut self.out, &finding_json(located, &self.sources), 4)?;
        }
        Ok(())
    }

    fn input_error(&mut self, error: &InputError) -> io::Result<()> {
        self.errors.push(ErrorJson::from(error));
        Ok(())
    }

    fn note(&mut self, note: &InputError) -> io::Result<()> {
        self.notes.push(ErrorJson::from(note));
        Ok(())
    }

    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        self.header()?;
        self.out.write_all(if self.any_finding {
            b"\n  ],\n  \"errors\": ["
        } else {
            b"],\n  \"errors\": ["
        })?;
        write_items(&mut self.out, &self.errors)?;
        self.out.write_all(b",\n  \"notes\": [")?;
        write_items(&mut self.out, &self.notes)?;
        self.out.write_all(b",\n  \"config\": ")?;
        serde_json::to_writer(&mut self.out, &summary.config).map_err(io::Error::other)?;
        self.out.write_all(b",\n  \"summary\": ")?;
        write_indented(&mut self.out, summary, 2)?;
        self.out.write_all(b"\n}\n")?;
        self.out.flush()
    }
}
