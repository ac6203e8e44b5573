//! `--format sarif`: SARIF 2.1.0, as GitHub code scanning and other SARIF viewers read
//! it.
//!
//! - `tool.driver.rules` is the whole catalog, generated from the rule docs, so a
//!   viewer can show any rule's documentation; `ruleIndex` points into it.
//! - Each result's region is the node the finding is about (lines and columns 1-based,
//!   columns in Unicode code points as `columnKind` says, the end exclusive), and the
//!   other side of a comparison is a related location with its note.
//! - File URIs are relative to a base directory (the current directory), named
//!   `%SRCROOT%` and defined in `originalUriBaseIds`; files outside it get absolute
//!   `file://` URIs, and standard input is `-` (`--stdin-filename` names it).
//! - `partialFingerprints.primaryLocationLineHash` is derived from the rule, the file,
//!   the workload, the container and the manifest path of the node, not from line
//!   numbers, so an alert keeps its identity when lines move.
//! - A finding silenced by an annotation is kept, with an `inSource` suppression and
//!   the annotation's reason as its justification, and without `fixes`: `lint --fix`
//!   leaves it alone, and the JSON report, which leaves it out, carries no fix for it.
//! - Inputs that could not be read are tool execution notifications, and make
//!   `executionSuccessful` false.
//! - An object read from a cluster (`lint --cluster`) is no file: its results have
//!   logical locations only, the object read and the workload it belongs to, named
//!   `cluster/namespace/Kind/name`, and `properties.source` describes it.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use super::catalog::capitalize;
use super::fingerprint;
use super::paths::{Artifact, PathBase, file_uri};
use super::{Reporter, Summary, subject};
use crate::cluster::{ObjectSource, Sources};
use crate::load::{InputError, Pos};
use crate::pipeline::located::{Located, Place};
use crate::rules::{RULES, RuleMeta, Severity};

/// The `$schema` of the output: the OASIS SARIF 2.1.0 schema.
pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
/// The base URI id that relative artifact locations refer to.
pub const SRCROOT: &str = "%SRCROOT%";

/// Collects results as documents arrive and writes the log at the end.
pub struct SarifReporter<W: Write> {
    out: W,
    base: PathBase,
    results: Vec<SarifResult>,
    notifications: Vec<Notification>,
    fingerprints: fingerprint::Occurrences,
    sources: Sources,
    /// Whether a baseline is in use: each result then says whether it is new.
    baseline: bool,
}

impl<W: Write> SarifReporter<W> {
    /// A tool execution notification about `error`, at its place.
    fn notify(&mut self, error: &InputError, level: &'static str) {
        // A kubectl command that failed is no file: its notification names it instead;
        // an object read from the cluster is named by its logical location.
        let (text, locations) = if self.sources.is_command(&error.file) {
            (format!("{}: {}", error.file, error.message), Vec::new())
        } else if let Some(object) = self.sources.object(&error.file) {
            let location = Location {
                id: None,
                physical_location: None,
                logical_locations: vec![object_location(object)],
                message: None,
            };
            (error.to_string(), vec![location])
        } else {
            let location = Location {
                id: None,
                physical_location: Some(PhysicalLocation {
                    artifact_location: self.artifact_location(&error.file),
                    region: error.pos.map(|pos| Region {
                        start_line: pos.line,
                        start_column: pos.column,
                        end_line: None,
                        end_column: None,
                    }),
                }),
                logical_locations: Vec::new(),
                message: None,
            };
            (error.message.clone(), vec![location])
        };
        self.notifications.push(Notification {
            level,
            message: Message { text },
            locations,
        });
    }

    /// A reporter whose artifact URIs are relative to `base`.
    pub fn new(out: W, base: PathBase) -> Self {
        SarifReporter {
            out,
            base,
            results: Vec::new(),
            notifications: Vec::new(),
            fingerprints: fingerprint::Occurrences::default(),
            sources: Sources::default(),
            baseline: false,
        }
    }

    /// Marks each result `new`, or `unchanged` when the baseline in use holds it
    /// (SARIF's `baselineState`).
    pub fn with_baseline(mut self, in_use: bool) -> Self {
        self.baseline = in_use;
        self
    }

    /// Describes the objects read from a cluster by `sources`.
    pub fn with_sources(mut self, sources: Sources) -> Self {
        self.sources = sources;
        self
    }

    fn artifact_location(&self, file: &str) -> ArtifactLocation {
        match self.base.artifact(file) {
            // Named `-`, as in every format; `--stdin-filename` gives it a path.
            Artifact::Stdin => ArtifactLocation {
                uri: crate::load::STDIN_NAME.to_owned(),
                uri_base_id: None,
            },
            Artifact::Relative(path) => ArtifactLocation {
                uri: super::paths::encode_path(&path),
                uri_base_id: Some(SRCROOT),
            },
            Artifact::Absolute(path) => ArtifactLocation {
                uri: file_uri(&path, false),
                uri_base_id: None,
            },
        }
    }

    fn result(&mut self, located: &Located) -> SarifResult {
        let finding = &located.finding;
        let meta = finding.rule;
        let object = self.sources.object(&located.file).cloned();
        let artifact = match object {
            None => Some(self.artifact_location(&located.file)),
            Some(_) => None,
        };
        let uri = artifact
            .as_ref()
            .map_or(located.file.to_string(), |a| a.uri.clone());
        let fingerprint = self.fingerprint(located, &uri);
        let mut text = format!("{}: {}", subject(&located.workload), finding.message);
        if !finding.help.is_empty() {
            text.push_str("\n\nFix: ");
            text.push_str(&finding.help);
        }
        let workload = &located.workload;
        let cluster = object
            .as_ref()
            .and_then(|o| o.cluster.as_deref().or(o.context.as_deref()));
        let owner = LogicalLocation {
            name: workload.name.clone(),
            fully_qualified_name: qualified_name(
                cluster,
                workload.namespace.as_deref(),
                workload.kind.as_str(),
                &workload.name,
            ),
            kind: "resource",
        };
        let mut logical_locations = Vec::new();
        if let Some(object) = &object {
            let read = object_location(object);
            if read.fully_qualified_name != owner.fully_qualified_name {
                logical_locations.push(read);
            }
        }
        logical_locations.push(owner);
        let related = match &artifact {
            None => Vec::new(),
            Some(artifact) => located
                .related
                .iter()
                .filter(|place| {
                    place.start != located.primary.start || place.end != located.primary.end
                })
                .enumerate()
                .map(|(index, place)| Location {
                    id: Some(index + 1),
                    physical_location: Some(physical(artifact.clone(), place)),
                    logical_locations: Vec::new(),
                    message: (!place.text.is_empty()).then(|| Message {
                        text: place.text.clone(),
                    }),
                })
                .collect(),
        };
        // A suppressed result is one the user has accepted as it is (SARIF 2.1.0: a
        // `suppression` whose `status` is `accepted`), which code scanning shows as
        // dismissed: it carries no fix to offer, as `lint --fix` makes none for it.
        let fixes = artifact
            .as_ref()
            .filter(|_| located.suppressed.is_none())
            .and_then(|artifact| fix(located, artifact))
            .into_iter()
            .collect();
        SarifResult {
            rule_id: meta.id,
            rule_index: rule_index(meta),
            level: level(finding.severity),
            message: Message { text },
            locations: vec![Location {
                id: None,
                physical_location: artifact.map(|artifact| physical(artifact, &located.primary)),
                logical_locations,
                message: None,
            }],
            related_locations: related,
            partial_fingerprints: BTreeMap::from([("primaryLocationLineHash", fingerprint)]),
            baseline_state: self.baseline.then_some(if located.baselined {
                "unchanged"
            } else {
                "new"
            }),
            suppressions: located
                .suppressed
                .iter()
                .map(|reason| Suppression {
                    kind: "inSource",
                    status: "accepted",
                    justification: reason.clone(),
                })
                .collect(),
            fixes,
            properties: ResultProperties {
                container: finding.container.clone(),
                helm_template: located.origin.clone(),
                manifest_path: located.primary.path.clone(),
                source: object,
                evidence: super::evidence::json(&finding.evidence),
            },
        }
    }

    /// What identifies the finding regardless of where lines fall, numbered among the
    /// earlier results with the same hash (`…:2`): [`fingerprint`].
    fn fingerprint(&mut self, located: &Located, uri: &str) -> String {
        self.fingerprints.next(fingerprint::hash(located, uri))
    }
}

/// An object read from a cluster, named `cluster/namespace/Kind/name`.
fn object_location(object: &ObjectSource) -> LogicalLocation {
    LogicalLocation {
        name: object.name.clone(),
        fully_qualified_name: qualified_name(
            object.cluster.as_deref().or(object.context.as_deref()),
            object.namespace.as_deref(),
            &object.kind,
            &object.name,
        ),
        kind: "resource",
    }
}

/// `cluster/namespace/Kind/name`, leaving out what is unknown.
fn qualified_name(
    cluster: Option<&str>,
    namespace: Option<&str>,
    kind: &str,
    name: &str,
) -> String {
    [cluster, namespace, Some(kind), Some(name)]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("/")
}

fn rule_index(meta: &RuleMeta) -> usize {
    RULES
        .iter()
        .position(|rule| rule.meta().id == meta.id)
        .expect("every finding's rule is in the registry")
}

/// SARIF's levels: `note` is its name for what we call info.
fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

fn physical(artifact_location: ArtifactLocation, place: &Place) -> PhysicalLocation {
    PhysicalLocation {
        artifact_location,
        region: Some(region(place.start, place.end)),
    }
}

/// A region from a start and an exclusive end; an empty or inverted extent becomes the
/// one character at the start.
fn region(start: Pos, end: Pos) -> Region {
    let end = if end > start {
        end
    } else {
        Pos {
            line: start.line,
            column: start.column + 1,
        }
    };
    Region {
        start_line: start.line,
        start_column: start.column,
        end_line: Some(end.line),
        end_column: Some(end.column),
    }
}

/// The finding's fix as SARIF: a display-only one has no edits to carry, so none.
fn fix(located: &Located, artifact: &ArtifactLocation) -> Option<SarifFix> {
    let (fix, edits) = located.fix_edits()?;
    if edits.is_empty() {
        return None;
    }
    let replacements = edits
        .into_iter()
        .map(|edit| Replacement {
            deleted_region: Region {
                start_line: edit.start.line,
                start_column: edit.start.column,
                end_line: Some(edit.end.line),
                end_column: Some(edit.end.column),
            },
            inserted_content: (!edit.replacement.is_empty()).then_some(ArtifactContent {
                text: edit.replacement,
            }),
        })
        .collect();
    Some(SarifFix {
        description: Message {
            text: fix.description.clone(),
        },
        artifact_changes: vec![ArtifactChange {
            artifact_location: artifact.clone(),
            replacements,
        }],
        properties: FixProperties {
            applicability: fix.applicability.as_str(),
            rests_on: crate::rules::applicability::rests_on(&located.finding)
                .into_iter()
                .map(super::evidence::premise_json)
                .collect(),
        },
    })
}

/// The catalog entry of one rule, from its documentation.
fn descriptor(meta: &RuleMeta) -> ReportingDescriptor {
    let doc = meta.doc();
    let detects = meta
        .section("What it detects")
        .unwrap_or_else(|| capitalize(meta.summary));
    ReportingDescriptor {
        id: meta.id,
        name: meta.name,
        short_description: Message {
            text: capitalize(meta.summary),
        },
        full_description: MultiformatMessage {
            text: detects.clone(),
            markdown: detects,
        },
        help: MultiformatMessage {
            text: doc.clone(),
            markdown: doc,
        },
        default_configuration: Configuration {
            level: level(meta.severity),
        },
        properties: RuleProperties {
            tags: vec![
                "kubernetes",
                "service-mesh",
                match meta.group {
                    crate::rules::Group::Startup => "startup",
                    crate::rules::Group::Termination => "termination",
                    crate::rules::Group::Jobs => "jobs",
                    crate::rules::Group::Configuration => "configuration",
                },
            ],
            fix: meta.fix,
        },
    }
}

impl<W: Write> Reporter for SarifReporter<W> {
    fn findings(&mut self, findings: &[&Located]) -> io::Result<()> {
        for located in findings {
            let result = self.result(located);
            self.results.push(result);
        }
        Ok(())
    }

    fn input_error(&mut self, error: &InputError) -> io::Result<()> {
        self.notify(error, "error");
        Ok(())
    }

    fn note(&mut self, note: &InputError) -> io::Result<()> {
        // A workload not linted: worth a warning, though the run goes on.
        self.notify(note, "warning");
        Ok(())
    }

    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        let log = Log {
            schema: SCHEMA_URI,
            version: "2.1.0",
            runs: [Run {
                tool: Tool {
                    driver: Driver {
                        name: env!("CARGO_PKG_NAME"),
                        version: env!("CARGO_PKG_VERSION"),
                        semantic_version: env!("CARGO_PKG_VERSION"),
                        information_uri: env!("CARGO_PKG_REPOSITORY"),
                        rules: RULES.iter().map(|rule| descriptor(rule.meta())).collect(),
                    },
                },
                original_uri_base_ids: BTreeMap::from([(
                    SRCROOT,
                    BaseUri {
                        uri: file_uri(self.base.dir(), true),
                    },
                )]),
                invocations: [Invocation {
                    execution_successful: summary.input_errors == 0,
                    tool_execution_notifications: std::mem::take(&mut self.notifications),
                    properties: InvocationProperties {
                        config_file: summary.config.clone(),
                    },
                }],
                results: std::mem::take(&mut self.results),
                column_kind: "unicodeCodePoints",
            }],
        };
        serde_json::to_writer_pretty(&mut self.out, &log).map_err(io::Error::other)?;
        self.out.write_all(b"\n")?;
        self.out.flush()
    }
}

#[derive(Serialize)]
struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    original_uri_base_ids: BTreeMap<&'static str, BaseUri>,
    invocations: [Invocation; 1],
    results: Vec<SarifResult>,
    column_kind: &'static str,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    information_uri: &'static str,
    rules: Vec<ReportingDescriptor>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReportingDescriptor {
    id: &'static str,
    name: &'static str,
    short_description: Message,
    full_description: MultiformatMessage,
    help: MultiformatMessage,
    default_configuration: Configuration,
    properties: RuleProperties,
}

#[derive(Serialize)]
struct RuleProperties {
    tags: Vec<&'static str>,
    /// Whether the rule's findings are offered a fix (`always`, `sometimes`, `never`);
    /// a result's own fix, when it has one, is in its `fixes`.
    fix: crate::rules::FixAvailability,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct BaseUri {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_execution_notifications: Vec<Notification>,
    properties: InvocationProperties,
}

/// What else a run's invocation says: the config file in force.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InvocationProperties {
    /// The config file, as reports name it; `null` without one.
    config_file: Option<String>,
}

#[derive(Serialize)]
struct Notification {
    level: &'static str,
    message: Message,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    locations: Vec<Location>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: Message,
    locations: Vec<Location>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<Location>,
    partial_fingerprints: BTreeMap<&'static str, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline_state: Option<&'static str>,
    /// Empty when the finding is not suppressed: SARIF reads an empty array as "checked,
    /// none apply" and an absent one as "not checked".
    suppressions: Vec<Suppression>,
    /// The finding's fix, for editors and code-scanning tools to offer.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fixes: Vec<SarifFix>,
    properties: ResultProperties,
}

/// A proposed fix (SARIF 2.1.0, section 3.55 `fix`): the changes to one artifact.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifFix {
    description: Message,
    artifact_changes: Vec<ArtifactChange>,
    properties: FixProperties,
}

#[derive(Serialize)]
struct FixProperties {
    /// `safe` or `unsafe`, as `lint --fix` and `--unsafe-fixes` select them.
    applicability: &'static str,
    /// What the fix assumes that the input does not show; absent when nothing.
    #[serde(rename = "restsOn", skip_serializing_if = "Vec::is_empty")]
    rests_on: Vec<super::evidence::PremiseJson>,
}

/// The replacements in one artifact (SARIF 2.1.0, section 3.56).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactChange {
    artifact_location: ArtifactLocation,
    replacements: Vec<Replacement>,
}

/// One region replaced (SARIF 2.1.0, section 3.57): an empty `deletedRegion` (end column equal to the
/// start column) is an insertion point; without `insertedContent` it is a deletion.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Replacement {
    deleted_region: Region,
    #[serde(skip_serializing_if = "Option::is_none")]
    inserted_content: Option<ArtifactContent>,
}

#[derive(Serialize)]
struct ArtifactContent {
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultProperties {
    #[serde(skip_serializing_if = "Option::is_none")]
    container: Option<String>,
    /// The Helm template a rendered document came from (`# Source:`).
    #[serde(skip_serializing_if = "Option::is_none")]
    helm_template: Option<String>,
    /// The manifest path of the node, e.g. `spec.template.spec.containers[1].lifecycle`.
    manifest_path: String,
    /// The object read from a cluster, for results that were not read from a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<ObjectSource>,
    /// What the result rests on: facts, and premises the input does not prove.
    evidence: super::evidence::EvidenceJson,
}

#[derive(Serialize)]
struct Suppression {
    kind: &'static str,
    status: &'static str,
    justification: String,
}

#[derive(Serialize)]
struct Message {
    text: String,
}

#[derive(Serialize)]
struct MultiformatMessage {
    text: String,
    markdown: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    physical_location: Option<PhysicalLocation>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    logical_locations: Vec<LogicalLocation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Message>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u32,
    start_column: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_column: Option<u32>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogicalLocation {
    name: String,
    fully_qualified_name: String,
    kind: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_has_a_descriptor_with_its_docs() {
        for rule in RULES {
            let meta = rule.meta();
            let descriptor = descriptor(meta);
            assert_eq!(descriptor.id, meta.id);
            assert!(!descriptor.full_description.text.is_empty());
            assert!(descriptor.help.markdown.contains("## Fix"), "{}", meta.id);
        }
    }

    #[test]
    fn empty_regions_cover_one_character() {
        let at = Pos { line: 3, column: 7 };
        let region = region(at, at);
        assert_eq!((region.end_line, region.end_column), (Some(3), Some(8)));
    }
}
