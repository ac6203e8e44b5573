//! `--format junit`: JUnit XML, as GitLab, Jenkins and other CI servers read test
//! reports.
//!
//! - One `<testsuite>` per input file that holds a workload or could not be read,
//!   named by the path as given; every test case carries the path in its `file`
//!   attribute, relative to the base directory.
//! - One test case per workload × rule × container with a finding, named
//!   `Deployment shop/api: ML201 grace-period-exceeded (istio-proxy)` and failing with
//!   the finding's message; the body gives every occurrence with its line, the fix and
//!   the related places.
//! - A finding below the run's `--fail-on` threshold is a skipped test case that says
//!   so, with the same body: a run that passes its gate has no failing test case.
//! - A finding silenced by an annotation is a skipped test case with the reason.
//! - A workload with no unsuppressed finding is one passing test case named after the
//!   workload, so a clean run still reports what was checked.
//! - An input that could not be read or parsed is a test case with an `<error>`.
//! - A workload that was not linted (a note) is a skipped test case saying why.
//! - Each suite has the property `mesh-lifecycle.config`: the config file in force, or
//!   `none`.
//!
//! Names are unique within a suite: a workload that appears in several documents of a
//! file is told apart by its document index.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::paths::{Artifact, PathBase};
use super::{Reporter, Summary, subject};
use crate::load::InputError;
use crate::pipeline::located::{Analysis, Located};
use crate::rules::Severity;

/// Collects test cases per file and writes the report at the end.
pub struct JunitReporter<W: Write> {
    out: W,
    base: PathBase,
    /// Suites in the order their files were first seen.
    suites: Vec<Suite>,
    index: HashMap<String, usize>,
    /// The lowest severity that fails the run (`--fail-on`); `None`: none does.
    threshold: Option<Severity>,
}

struct Suite {
    file: String,
    cases: Vec<Case>,
}

/// A test case before its name is made unique.
struct Case {
    /// The workload (`None` for an input error) and the document it is in.
    workload: Option<(String, usize)>,
    /// What follows the workload in the name (`ML201 grace-period-exceeded`), or the
    /// whole name of an input error.
    detail: Option<String>,
    status: TestCaseStatus,
}

impl<W: Write> JunitReporter<W> {
    /// A reporter whose `file` attributes are relative to `base`.
    pub fn new(out: W, base: PathBase) -> Self {
        JunitReporter {
            out,
            base,
            suites: Vec::new(),
            index: HashMap::new(),
            threshold: Some(Severity::Info),
        }
    }

    /// Fails the test cases of findings at or above `threshold` only (`--fail-on`; every
    /// finding fails without it), the others skipped.
    pub fn failing_from(mut self, threshold: Option<Severity>) -> Self {
        self.threshold = threshold;
        self
    }

    fn suite(&mut self, file: &str) -> &mut Suite {
        let at = *self.index.entry(file.to_owned()).or_insert_with(|| {
            self.suites.push(Suite {
                file: file.to_owned(),
                cases: Vec::new(),
            });
            self.suites.len() - 1
        });
        &mut self.suites[at]
    }

    fn workload(&mut self, analysis: &Analysis) {
        let workload = subject(&analysis.plan.workload);
        // Group by rule and container (suppressed apart), in the order findings come.
        let key = |located: &Located| {
            (
                located.finding.rule.id,
                located.finding.container.clone(),
                located.suppressed.is_some(),
            )
        };
        let mut groups: Vec<Vec<&Located>> = Vec::new();
        for located in &analysis.findings {
            match groups
                .iter_mut()
                .find(|group| key(group[0]) == key(located))
            {
                Some(group) => group.push(located),
                None => groups.push(vec![located]),
            }
        }
        let clean = analysis.findings.iter().all(|f| f.suppressed.is_some());
        let mut cases = Vec::new();
        if clean {
            cases.push(Case {
                workload: Some((workload.clone(), analysis.document)),
                detail: None,
                status: TestCaseStatus::success(),
            });
        }
        for members in groups {
            cases.push(finding_case(
                &workload,
                analysis.document,
                &members,
                self.threshold,
            ));
        }
        self.suite(&analysis.file).cases.extend(cases);
    }

    fn file_attribute(&self, file: &str) -> Option<String> {
        match self.base.artifact(file) {
            Artifact::Stdin => None,
            Artifact::Relative(path) => Some(path),
            Artifact::Absolute(path) => Some(path.to_string_lossy().into_owned()),
        }
    }
}

impl<W: Write> JunitReporter<W> {
    /// A test case in `error`'s file, in `status`, saying `what` happened (`input
    /// error at line 3, column 1`) with its message, typed `kind`.
    fn about_input(
        &mut self,
        error: &InputError,
        mut status: TestCaseStatus,
        what: &str,
        kind: &'static str,
    ) {
        let detail = match error.pos {
            Some(pos) => format!("{what} at line {}, column {}", pos.line, pos.column),
            None => what.to_owned(),
        };
        status
            .set_message(error.message.clone())
            .set_type(kind)
            .set_description(format!("{error}\n"));
        self.suite(&error.file).cases.push(Case {
            workload: None,
            detail: Some(detail),
            status,
        });
    }
}

/// The test case of one workload × rule × container: failing, or skipped when the
/// findings are suppressed or below `threshold`.
fn finding_case(
    workload: &str,
    document: usize,
    members: &[&Located],
    threshold: Option<Severity>,
) -> Case {
    let first = members[0];
    let finding = &first.finding;
    let mut detail = format!("{} {}", finding.rule.id, finding.rule.name);
    if let Some(container) = &finding.container {
        detail.push_str(&format!(" ({container})"));
    }
    let mut body = String::new();
    for located in members {
        body.push_str(&describe(located));
    }
    let status = match &first.suppressed {
        Some(reason) => {
            let mut status = TestCaseStatus::skipped();
            status
                .set_message(format!("suppressed: {reason}"))
                .set_type(finding.rule.id)
                .set_description(body);
            status
        }
        None => {
            let mut message = format!("{}: {}", finding.severity, finding.message);
            if members.len() > 1 {
                message.push_str(&format!(" (and {} more)", members.len() - 1));
            }
            let failing = threshold.is_some_and(|threshold| finding.severity >= threshold);
            let mut status = if failing {
                TestCaseStatus::non_success(NonSuccessKind::Failure)
            } else {
                let gate = threshold.map_or("never".to_owned(), |t| t.to_string());
                message = format!("not failing the run (--fail-on {gate}): {message}");
                TestCaseStatus::skipped()
            };
            status
                .set_message(message)
                .set_type(finding.rule.id)
                .set_description(body);
            status
        }
    };
    Case {
        workload: Some((workload.to_owned(), document)),
        detail: Some(detail),
        status,
    }
}

/// One finding as text: where, what, the fix and the related places.
fn describe(located: &Located) -> String {
    let finding = &located.finding;
    let mut text = format!(
        "{} {}({}) at {}:{}:{}\n",
        finding.severity,
        finding.rule.id,
        finding.rule.name,
        located.file,
        located.primary.start.line,
        located.primary.start.column
    );
    if let Some(origin) = &located.origin {
        text.push_str(&format!("from Helm template {origin}\n"));
    }
    text.push_str(&finding.message);
    text.push('\n');
    if !finding.help.is_empty() {
        text.push_str(&format!("help: {}\n", finding.help));
    }
    for place in &located.related {
        if place.text.is_empty() {
            continue;
        }
        text.push_str(&format!(
            "  {}:{}:{}: {}\n",
            located.file, place.start.line, place.start.column, place.text
        ));
    }
    if let Some(reason) = &located.suppressed {
        text.push_str(&format!("suppressed: {reason}\n"));
    }
    text
}

impl<W: Write> Reporter for JunitReporter<W> {
    fn document(&mut self, analyses: &[Analysis]) -> io::Result<()> {
        for analysis in analyses {
            self.workload(analysis);
        }
        Ok(())
    }

    fn findings(&mut self, _: &[&Located]) -> io::Result<()> {
        // Everything arrives through `document`, which sees clean workloads too.
        Ok(())
    }

    fn input_error(&mut self, error: &InputError) -> io::Result<()> {
        let status = TestCaseStatus::non_success(NonSuccessKind::Error);
        self.about_input(error, status, "input error", "input");
        Ok(())
    }

    fn note(&mut self, note: &InputError) -> io::Result<()> {
        self.about_input(note, TestCaseStatus::skipped(), "not linted", "not-linted");
        Ok(())
    }

    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        let mut report = Report::new(crate::PLUGIN_NAME);
        let config = summary.config.as_deref().unwrap_or("none");
        for suite in std::mem::take(&mut self.suites) {
            let file = self.file_attribute(&suite.file);
            let mut test_suite = TestSuite::new(suite.file.as_str());
            test_suite.add_property(("mesh-lifecycle.config", config));
            for (name, case) in unique_names(&suite.cases).into_iter().zip(suite.cases) {
                let mut test_case = TestCase::new(name, case.status);
                if let Some((workload, _)) = &case.workload {
                    test_case.set_classname(workload.as_str());
                }
                if let Some(file) = &file {
                    test_case.extra.insert("file".into(), file.as_str().into());
                }
                test_suite.add_test_case(test_case);
            }
            report.add_test_suite(test_suite);
        }
        report.serialize(&mut self.out).map_err(io::Error::other)?;
        self.out.flush()
    }
}

/// The name of each case, unique within its suite.
fn unique_names(cases: &[Case]) -> Vec<String> {
    // A workload named the same in several documents is told apart by document.
    let mut documents: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (workload, document) in cases.iter().filter_map(|c| c.workload.as_ref()) {
        let seen = documents.entry(workload).or_default();
        if !seen.contains(document) {
            seen.push(*document);
        }
    }
    let mut names: Vec<String> = cases
        .iter()
        .map(|case| {
            let workload = case.workload.as_ref().map(|(workload, document)| {
                if documents[workload.as_str()].len() > 1 {
                    format!("{workload} (document {})", document + 1)
                } else {
                    workload.clone()
                }
            });
            match (workload, &case.detail) {
                (Some(workload), Some(detail)) => format!("{workload}: {detail}"),
                (Some(workload), None) => workload,
                (None, Some(detail)) => detail.clone(),
                (None, None) => String::new(),
            }
        })
        .collect();
    // Anything still equal (the same workload twice in one List) is numbered.
    let mut seen: HashMap<String, usize> = HashMap::new();
    for name in &mut names {
        let count = seen.entry(name.clone()).or_default();
        *count += 1;
        if *count > 1 {
            name.push_str(&format!(" #{count}"));
        }
    }
    names
}
