//! Findings of owned inputs reported under their owners (a running pod read from a
//! cluster under its Deployment), once per owner, rule and container.

use std::collections::HashMap;
use std::sync::Arc;

pub use crate::pipeline::located::{DocumentReport, Located};
use crate::workload::WorkloadRef;

/// Attributes the findings of owned inputs to their owners: `owners` names, by input,
/// the workload that input's findings belong to (a running pod read from a cluster
/// belongs to its Deployment). Each finding is reported once per owner, rule and
/// container: the owner's own analysis keeps its findings and gains those only the
/// owned inputs show, and an owned input's analysis is merged away when its owner was
/// analysed; without the owner, the first owned analysis stands for it.
pub fn attribute(
    mut reports: Vec<DocumentReport>,
    owners: &HashMap<Arc<str>, WorkloadRef>,
) -> Vec<DocumentReport> {
    type Key = (WorkloadRef, &'static str, Option<String>);
    let key = |located: &Located| -> Key {
        (
            located.workload.clone(),
            located.finding.rule.id,
            located.finding.container.clone(),
        )
    };
    let mut owned = Vec::new();
    for (r, report) in reports.iter_mut().enumerate() {
        let (theirs, own): (Vec<_>, Vec<_>) = std::mem::take(&mut report.analyses)
            .into_iter()
            .partition(|analysis| owners.contains_key(&analysis.file));
        report.analyses = own;
        owned.extend(theirs.into_iter().map(|analysis| (r, analysis)));
    }
    let mut standing: HashMap<WorkloadRef, (usize, usize)> = HashMap::new();
    let mut seen: std::collections::HashSet<Key> = std::collections::HashSet::new();
    for (r, report) in reports.iter().enumerate() {
        for (a, analysis) in report.analyses.iter().enumerate() {
            standing.insert(analysis.plan.workload.clone(), (r, a));
            seen.extend(analysis.findings.iter().map(key));
        }
    }
    for (r, mut analysis) in owned {
        let owner = &owners[&analysis.file];
        for located in &mut analysis.findings {
            located.workload = owner.clone();
        }
        analysis
            .findings
            .retain(|located| seen.insert(key(located)));
        match standing.get(owner) {
            Some(&(into, at)) => reports[into].analyses[at]
                .findings
                .extend(analysis.findings),
            None => {
                standing.insert(owner.clone(), (r, reports[r].analyses.len()));
                reports[r].analyses.push(analysis);
            }
        }
    }
    reports
}

/// [`attribute`] as reports arrive, for a run whose inputs that own or are owned come
/// first (a cluster's workloads and the pods linted on their behalf): their reports are
/// held until the first report of another input (a pod linted as itself), then
/// attributed and handed to the sink; every later report goes to the sink as it comes.
/// So a cluster of many pods without owners is reported as it is checked, not held.
pub struct Attributing<'a, F: FnMut(DocumentReport)> {
    owners: &'a HashMap<Arc<str>, WorkloadRef>,
    /// The inputs whose reports are held: owners and what they own.
    held_inputs: &'a std::collections::HashSet<Arc<str>>,
    /// The reports held so far; `None` once they went to the sink.
    held: Option<Vec<DocumentReport>>,
    sink: F,
}

impl<'a, F: FnMut(DocumentReport)> Attributing<'a, F> {
    /// Attributes with `owners`, holding the reports of `held_inputs`.
    pub fn new(
        owners: &'a HashMap<Arc<str>, WorkloadRef>,
        held_inputs: &'a std::collections::HashSet<Arc<str>>,
        sink: F,
    ) -> Self {
        Attributing {
            owners,
            held_inputs,
            held: Some(Vec::new()),
            sink,
        }
    }

    /// Takes the next report, in input order.
    pub fn push(&mut self, report: DocumentReport) {
        let held = input_of(&report).is_none_or(|input| self.held_inputs.contains(input));
        match &mut self.held {
            Some(reports) if held => reports.push(report),
            Some(_) => {
                self.release();
                (self.sink)(report);
            }
            None => (self.sink)(report),
        }
    }

    /// Hands on what is still held, once every report has come.
    pub fn finish(mut self) {
        self.release();
    }

    fn release(&mut self) {
        if let Some(reports) = self.held.take() {
            attribute(reports, self.owners)
                .into_iter()
                .for_each(&mut self.sink);
        }
    }
}

/// The input a report is about; `None` for a report without anything in it.
fn input_of(report: &DocumentReport) -> Option<&Arc<str>> {
    report
        .analyses
        .first()
        .map(|analysis| &analysis.file)
        .or_else(|| report.errors.first().map(|error| &error.file))
        .or_else(|| report.notes.first().map(|note| &note.error.file))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{self, Inputs};
    use crate::pipeline::{Analysis, RunOptions, run};
    use crate::settings::Settings;

    #[test]
    fn attributing_holds_only_the_owners_and_what_they_own() {
        let pod = |name: &str| {
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n  terminationGracePeriodSeconds: 5\n  containers:\n  - name: app\n    image: app\n    lifecycle: {{preStop: {{exec: {{command: [sleep, '10']}}}}}}\n"
            )
        };
        let inputs = Inputs::new(
            ["Pod/shop/web-1", "Pod/shop/alone-1", "Pod/shop/alone-2"]
                .into_iter()
                .map(|name| load::Input::Memory {
                    name: Arc::from(name),
                    bytes: Arc::from(pod(name.rsplit('/').next().unwrap()).into_bytes()),
                })
                .collect(),
            load::ReadLimits::default(),
            None,
        );
        let web = WorkloadRef {
            kind: crate::workload::Kind::Deployment,
            name: "web".into(),
            namespace: Some("shop".into()),
        };
        let owners = HashMap::from([(Arc::from("Pod/shop/web-1"), web.clone())]);
        let held = std::collections::HashSet::from([Arc::from("Pod/shop/web-1")]);
        let mut seen: Vec<(String, String)> = Vec::new();
        let mut attributing = Attributing::new(&owners, &held, |report: DocumentReport| {
            for analysis in report.analyses {
                let workload = analysis.findings[0].workload.name.clone();
                seen.push((analysis.file.to_string(), workload));
            }
        });
        let mut fed = 0;
        run(
            &inputs,
            &Settings::default(),
            &RunOptions::default(),
            |report| {
                fed += 1;
                attributing.push(report);
            },
        );
        attributing.finish();
        assert_eq!(fed, 3);
        let seen: Vec<(&str, &str)> = seen
            .iter()
            .map(|(file, workload)| (file.as_str(), workload.as_str()))
            .collect();
        assert_eq!(
            seen,
            [
                ("Pod/shop/web-1", "web"),
                ("Pod/shop/alone-1", "alone-1"),
                ("Pod/shop/alone-2", "alone-2")
            ],
            "the held report attributed to its owner, then the others as they came"
        );
    }

    #[test]
    fn owned_inputs_report_under_their_owner_once() {
        // The same hazard in a Deployment's template, in two of its pods, and one only
        // a pod shows: three findings become two, all the Deployment's.
        let template = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  template:\n    spec:\n      terminationGracePeriodSeconds: 5\n      containers:\n      - name: app\n        image: app\n        lifecycle: {preStop: {exec: {command: [sleep, '10']}}}\n";
        let pod = |name: &str, extra: &str| {
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n  terminationGracePeriodSeconds: 5\n  containers:\n  - name: app\n    image: app\n    lifecycle: {{preStop: {{exec: {{command: [sleep, '10']}}}}}}\n{extra}"
            )
        };
        let inputs = Inputs::new(
            [
                ("Deployment/shop/web", template.to_owned()),
                ("Pod/shop/web-1", pod("web-1", "")),
                (
                    "Pod/shop/web-2",
                    pod(
                        "web-2",
                        "  - name: side\n    image: side\n    lifecycle: {preStop: {exec: {command: [sleep, '9']}}}\n",
                    ),
                ),
            ]
            .into_iter()
            .map(|(name, text)| load::Input::Memory {
                name: Arc::from(name),
                bytes: Arc::from(text.into_bytes()),
            })
            .collect(),
            load::ReadLimits::default(),
            None,
        );
        let mut reports = Vec::new();
        run(&inputs, &Settings::default(), &RunOptions::default(), |r| {
            reports.push(r)
        });
        let web = WorkloadRef {
            kind: crate::workload::Kind::Deployment,
            name: "web".into(),
            namespace: Some("shop".into()),
        };
        let owners = HashMap::from([
            (Arc::from("Pod/shop/web-1"), web.clone()),
            (Arc::from("Pod/shop/web-2"), web.clone()),
        ]);
        let reports = attribute(reports, &owners);
        let analyses: Vec<&Analysis> = reports.iter().flat_map(|r| &r.analyses).collect();
        assert_eq!(analyses.len(), 1, "the pods are merged into the Deployment");
        let ml206: Vec<(&str, Option<&str>)> = analyses[0]
            .findings
            .iter()
            .filter(|f| f.finding.rule.id == "ML206")
            .map(|f| (&*f.file, f.finding.container.as_deref()))
            .collect();
        assert_eq!(
            ml206,
            [
                ("Deployment/shop/web", Some("app")),
                ("Pod/shop/web-2", Some("side"))
            ]
        );
        assert!(analyses[0].findings.iter().all(|f| f.workload == web));
        // Without the owner among the inputs, the first owned analysis stands for it.
        let alone = Inputs::new(
            vec![load::Input::Memory {
                name: Arc::from("Pod/shop/web-1"),
                bytes: Arc::from(pod("web-1", "").into_bytes()),
            }],
            load::ReadLimits::default(),
            None,
        );
        let mut reports = Vec::new();
        run(&alone, &Settings::default(), &RunOptions::default(), |r| {
            reports.push(r)
        });
        let reports = attribute(reports, &owners);
        assert_eq!(reports[0].analyses.len(), 1);
        assert!(
            reports[0].analyses[0]
                .findings
                .iter()
                .all(|f| f.workload == web)
        );
    }
}
