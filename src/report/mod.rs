//! Stage 6 of the pipeline: rendering only. Nothing here decides anything; every number
//! printed was computed by an earlier stage.

pub mod assumptions;
pub mod catalog;
pub mod diff;
pub mod evidence;
pub mod excerpt;
pub mod explain;
pub mod fingerprint;
pub mod github;
pub mod html;
pub mod human;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod paths;
pub mod sarif;
pub mod statistics;
pub mod style;
pub mod summary_text;
pub mod table;
pub mod wrap;

use std::io;

use serde::Serialize;

use crate::load::InputError;
use crate::pipeline::located::{Analysis, DocumentReport, Located};
use crate::rules::Severity;
use crate::workload::{Unlinted, WorkloadRef};

/// Counts for the end of a report.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Inputs read.
    pub files: usize,
    /// Workloads analysed.
    pub workloads: usize,
    /// Findings of severity error, after suppressions.
    pub errors: usize,
    /// Findings of severity warning.
    pub warnings: usize,
    /// Findings of severity info.
    pub infos: usize,
    /// Inputs, or documents, that could not be read or parsed (exit status 2).
    pub input_errors: usize,
    /// Findings silenced by a suppression annotation.
    pub suppressed: usize,
    /// Findings the baseline in use holds (`lint --baseline`); absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baselined: Option<usize>,
    /// Objects holding a pod of a kind the linter does not read, named in notes; they
    /// do not change the exit status.
    #[serde(skip)]
    pub unknown_kinds: usize,
    /// Rollouts whose `spec.workloadRef` names no pod template of the input, named in
    /// notes; they do not change the exit status.
    #[serde(skip)]
    pub unfollowed_references: usize,
    /// Workloads with no containers at their pod's path, named in notes.
    #[serde(skip)]
    pub no_containers: usize,
    /// Notes of a cluster read that workloads may have gone unlinted (a kind it may
    /// not list, no workload at all).
    #[serde(skip)]
    pub cluster_notes: usize,
    /// The config file in force, as reports name it; `None` without one.
    #[serde(skip)]
    pub config: Option<String>,
    /// Whether the inputs are objects read from a cluster (`files` counts them), not
    /// files.
    #[serde(skip)]
    pub from_cluster: bool,
    /// Findings with a fix, and those `lint --fix` made.
    pub fixes: FixCounts,
    /// Files `lint --fix` could not write back (exit status 2; each is also an error of
    /// its file).
    #[serde(skip)]
    pub unwritten: usize,
}

/// Fixes, counted for the summary: "3 fixable with `--fix` (1 more with
/// `--unsafe-fixes`)", "Found 5 findings (3 fixed, 2 remaining)".
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FixCounts {
    /// Unsuppressed findings with a safe fix that passed its check.
    pub safe: usize,
    /// Unsuppressed findings with an unsafe fix that passed its check.
    #[serde(rename = "unsafe")]
    pub unsafe_: usize,
    /// With `lint --fix`: findings whose fix was written back (or made in the standard
    /// input printed), with those another finding's fix cleared on the way.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fixed: Option<usize>,
    /// With `lint --fix`: findings whose fix could not be written back where it was
    /// read from (an object of the cluster, a rendered or streamed document) and was
    /// shown as a diff instead. They are still among the findings, and still fixable.
    #[serde(skip)]
    pub shown: usize,
    /// Whether `--unsafe-fixes` makes the unsafe fixes too.
    #[serde(skip)]
    pub unsafe_fixes: bool,
}

impl FixCounts {
    /// Findings `--fix` would fix with the flags given.
    pub fn fixable(&self) -> usize {
        self.safe + if self.unsafe_fixes { self.unsafe_ } else { 0 }
    }
}

impl Summary {
    /// Counts one document's results.
    pub fn add(&mut self, report: &DocumentReport) {
        self.workloads += report.analyses.len();
        self.input_errors += report.errors.len();
        for note in &report.notes {
            match note.why {
                Unlinted::UnknownKind => self.unknown_kinds += 1,
                Unlinted::UnfollowedReference => self.unfollowed_references += 1,
                Unlinted::NoContainers => self.no_containers += 1,
            }
        }
        for finding in report.analyses.iter().flat_map(|a| &a.findings) {
            if finding.suppressed.is_some() {
                self.suppressed += 1;
                continue;
            }
            if finding.baselined {
                *self.baselined.get_or_insert(0) += 1;
                continue;
            }
            match finding.finding.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
                Severity::Info => self.infos += 1,
            }
            match finding.checked_fix().map(|fix| fix.applicability) {
                Some(crate::fix::Applicability::Safe) => self.fixes.safe += 1,
                Some(crate::fix::Applicability::Unsafe) => self.fixes.unsafe_ += 1,
                _ => {}
            }
        }
    }

    /// All unsuppressed findings.
    pub fn findings(&self) -> usize {
        self.errors + self.warnings + self.infos
    }

    /// Counts an input that failed before any document was read.
    pub fn add_input_error(&mut self) {
        self.input_errors += 1;
    }

    /// Findings at or above `threshold` (unsuppressed).
    pub fn at_or_above(&self, threshold: Severity) -> usize {
        match threshold {
            Severity::Error => self.errors,
            Severity::Warning => self.errors + self.warnings,
            Severity::Info => self.errors + self.warnings + self.infos,
        }
    }
}

/// A lint output format, fed one document at a time.
pub trait Reporter {
    /// Takes one document's workloads, each with its findings. Formats that list
    /// workloads without findings (JUnit's passing test cases) override it; the default
    /// hands the findings to [`Reporter::findings`].
    fn document(&mut self, analyses: &[Analysis]) -> io::Result<()> {
        let findings: Vec<&Located> = analyses.iter().flat_map(|a| &a.findings).collect();
        self.findings(&findings)
    }
    /// Writes (or keeps) one document's findings, sorted. Suppressed findings are
    /// included (`Located::suppressed`); formats that have no place for them skip them.
    fn findings(&mut self, findings: &[&Located]) -> io::Result<()>;
    /// Notes an input error (it is also printed to stderr by the caller).
    fn input_error(&mut self, error: &InputError) -> io::Result<()>;
    /// Takes a note every report names: a workload that was not linted, and why (it is
    /// also printed to stderr by the caller). Formats with no place for notes count
    /// them in the summary only.
    fn note(&mut self, _note: &InputError) -> io::Result<()> {
        Ok(())
    }
    /// Takes a note about the run itself rather than an object: a version newer than
    /// the model knows, a baseline entry that matches nothing. The formats that title
    /// their notes override it; the others take it as [`Reporter::note`].
    fn run_note(&mut self, note: &InputError) -> io::Result<()> {
        self.note(note)
    }
    /// Ends the report.
    fn finish(&mut self, summary: &Summary) -> io::Result<()>;
}

/// How reports name a workload: `Deployment shop/api`, or `Deployment api` without a
/// namespace.
pub fn subject(workload: &WorkloadRef) -> String {
    match &workload.namespace {
        Some(namespace) => format!("{} {namespace}/{}", workload.kind, workload.name),
        None => format!("{} {}", workload.kind, workload.name),
    }
}

/// Where a workload was read, as people count documents: `deploy/web.yaml`, alone in
/// its file or an object read from a cluster; `all.yaml (document 2 of 5)`; or, when
/// the run does not know how many its input holds, `- (document 2)`.
pub fn document_place(file: &str, index: usize, count: Option<usize>) -> String {
    match count {
        Some(1) => file.to_owned(),
        Some(count) => format!("{file} (document {} of {count})", index + 1),
        None => format!("{file} (document {})", index + 1),
    }
}
