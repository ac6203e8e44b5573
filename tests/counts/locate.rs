//! Placing a finding costs what the finding shows, not what the document around it
//! holds: a `List` of a whole cluster (`kubectl get -A -o yaml`) is one document with
//! every workload and every finding in it, and anything that walked its text for each
//! finding made every report quadratic in the cluster's size.
//!
//! Every mapping between positions and byte offsets of a document goes through its one
//! line index (`load::lines`), whose work this counts: linting such a List in every
//! format, with every finding's fix built and its edits placed, and explaining it in
//! every format, indexes each byte a small, fixed number of times, however many
//! workloads and findings the List holds. One walk of the document per finding would
//! index it once per finding. Not timed: the count is the same on any machine.
//!
//! Checking a fix (that it removes its finding and makes nothing worse) analyses text
//! again, which `pipeline::fix::checks::checked_bytes` counts: a fix in a `List` item is checked
//! on that item, so the bytes per fix do not grow with the `List`.
//!
//! This file holds one test, so that no other test of the process adds to the counts.

use crate::common;

use common::lists::{json_list, yaml_list};
use mesh_lifecycle::load::Inputs;
use mesh_lifecycle::load::lines::indexed_bytes;
use mesh_lifecycle::pipeline::fix::checks::checked_bytes;
use mesh_lifecycle::pipeline::{self, Analysis, RunOptions};
use mesh_lifecycle::report::explain;
use mesh_lifecycle::report::github::GithubReporter;
use mesh_lifecycle::report::human::{HumanReporter, Style};
use mesh_lifecycle::report::json::JsonReporter;
use mesh_lifecycle::report::junit::JunitReporter;
use mesh_lifecycle::report::paths::PathBase;
use mesh_lifecycle::report::sarif::SarifReporter;
use mesh_lifecycle::report::table::TableReporter;
use mesh_lifecycle::report::{Reporter, Summary};
use mesh_lifecycle::settings::Settings;

/// Lints and explains `text` in every format, placing every fix's edits; returns the
/// findings, how many of them have a fix that passed its check, and how many have one
/// built (passed or refused).
fn report_everything(text: &str) -> (usize, usize, usize) {
    let inputs = Inputs::from_bytes(text.as_bytes().to_vec());
    let settings = Settings::default();
    let options = RunOptions {
        threads: 1,
        ..RunOptions::default()
    };
    let mut buffers: Vec<Vec<u8>> = vec![Vec::new(); 6];
    let mut reporters: Vec<Box<dyn Reporter + '_>> = Vec::new();
    for (index, out) in buffers.iter_mut().enumerate() {
        reporters.push(match index {
            0 => Box::new(
                HumanReporter::new(out, Style::plain(), false, Vec::new()).show_infos(true),
            ),
            1 => Box::new(TableReporter::new(out, Style::plain(), false)),
            2 => Box::new(JsonReporter::new(out)),
            3 => Box::new(SarifReporter::new(out, PathBase::new("/"))),
            4 => Box::new(JunitReporter::new(out, PathBase::new("/"))),
            _ => Box::new(GithubReporter::new(out, PathBase::new("/"), false, None)),
        });
    }
    let mut summary = Summary::default();
    let mut analyses: Vec<Analysis> = Vec::new();
    let (mut findings, mut fixes, mut checks) = (0, 0, 0);
    pipeline::run(&inputs, &settings, &options, |report| {
        assert!(report.errors.is_empty(), "{:?}", report.errors);
        summary.add(&report);
        for reporter in &mut reporters {
            reporter.document(&report.analyses).unwrap();
        }
        for located in report.analyses.iter().flat_map(|a| &a.findings) {
            findings += 1;
            checks += usize::from(located.fix.is_some());
            if let Some((_, edits)) = located.fix_edits() {
                fixes += 1;
                assert!(!edits.is_empty(), "{}", located.finding.message);
            }
        }
        analyses.extend(report.analyses);
    });
    for reporter in &mut reporters {
        reporter.finish(&summary).unwrap();
    }
    drop(reporters);
    assert!(buffers.iter().all(|out| !out.is_empty()));
    let drawn = [
        analyses
            .iter()
            .map(|a| explain::text(a, Style::plain()))
            .collect::<String>(),
        explain::json(&analyses, &settings).to_string(),
        explain::svg(&analyses),
        explain::html(&analyses, &settings),
    ];
    assert!(drawn.iter().all(|out| !out.is_empty()));
    (findings, fixes, checks)
}

#[test]
fn a_list_of_a_whole_cluster_is_indexed_a_fixed_number_of_times_whatever_its_findings() {
    let _counting = crate::counting();
    // Per fix, the bytes its check analysed, for a List of `workloads` and of twice as
    // many: a check that read the whole List would double them.
    let mut per_fix = Vec::new();
    for workloads in [30, 60] {
        for (name, text) in [
            ("YAML", yaml_list(workloads, 20)),
            ("JSON", json_list(workloads, 20)),
        ] {
            let (indexed_before, checked_before) = (indexed_bytes(), checked_bytes());
            let (findings, fixes, checks) = report_everything(&text);
            let indexed = indexed_bytes() - indexed_before;
            let checked = checked_bytes() - checked_before;
            // Each Deployment's ML101 and twenty ML207s, each Job's ML301: the work to
            // place and to check. ML101's fix passes; ML207's would make ML202 longer
            // and ML301's would bring an ML104, so the check refuses them.
            assert!(findings >= workloads * 22, "{name}: {findings} findings");
            assert!(checks >= workloads * 22, "{name}: {checks} fixes checked");
            assert!(fixes >= workloads, "{name}: {fixes} fixes passed");
            // Each fix is checked on its own item (the List with that item alone, read
            // before and with the fix made): at most twice the share of one workload's
            // two items, where checking on the whole List would read all of it.
            let share = text.len() / workloads;
            let checked_per_fix = checked as f64 / checks as f64;
            assert!(
                checked_per_fix <= 2.0 * share as f64,
                "{name}, {workloads}: {checked_per_fix:.0} bytes analysed per fix checked, \
                 for a List of {} bytes ({share} per workload)",
                text.len()
            );
            per_fix.push((name, workloads, checked_per_fix));
            // The document is indexed once, and each text a check analyses once; a fix
            // made of changes in turn reads the text of its own item again after each
            // change (two per Job here). Walking the document for each finding would
            // index it about 1,300 times.
            let beyond = indexed.saturating_sub(checked) as f64 / text.len() as f64;
            assert!(
                beyond <= 2.0,
                "{name}: {indexed} bytes indexed for a document of {} ({checked} of them \
                 for checks): {beyond:.1} times each",
                text.len()
            );
            assert!(
                indexed >= text.len() as u64,
                "{name}: the document was indexed"
            );
        }
    }
    for (name, workloads, small) in per_fix.iter().filter(|(_, n, _)| *n == 30) {
        let (_, _, large) = per_fix
            .iter()
            .find(|(other, n, _)| other == name && *n == 2 * workloads)
            .unwrap();
        assert!(
            large / small <= 1.1,
            "{name}: {small:.0} bytes analysed per fix checked for {workloads} workloads, \
             {large:.0} for twice as many"
        );
    }
}
