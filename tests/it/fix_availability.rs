//! Each rule's declared fix availability (`fix:` in its `declare_rule!`, `"fix"` in
//! `rules --format json`) is what its check does, over every rule fixture and every
//! corpus manifest: a rule declared `never` attaches a fix to no finding; one declared
//! `always` attaches one to every finding, and one of them passes its check against the
//! timeline; one declared `sometimes` has a finding whose fix passes its check and a
//! finding without a fix. "Attaches" is the rule's own remedy, before the check: a
//! report carries only a fix that passes it, so "always" promises an offer on every
//! finding, not a fix `--fix` can make of each.

use crate::common;

use std::collections::BTreeMap;

use mesh_lifecycle::load::{Inputs, Limits};
use mesh_lifecycle::pipeline::{self, RunOptions};
use mesh_lifecycle::rules::{FixAvailability, RULES};
use mesh_lifecycle::settings::layers::{FileLayers, Flags};
use mesh_lifecycle::settings::{
    IstioVersion, KubeVersion, LinkerdVersion, MeshVersion, ScenarioKey,
};
use mesh_lifecycle::time::parse_go_duration;

/// What one rule's findings carried over the inputs.
#[derive(Debug, Default)]
struct Seen {
    /// Findings of the rule.
    findings: usize,
    /// Of those, the findings the rule attached a fix to.
    offered: usize,
    /// Of those, the findings whose fix passed its check against the timeline.
    checked: usize,
    /// An input with a finding that carries no fix, and one whose fix passed.
    without: Option<String>,
    with: Option<String>,
}

/// The profile a fixture's `# profile:` line gives, as the command line lays it.
fn flags(profile: &[String], fixture: &str) -> Flags {
    let mut flags = Flags::default();
    for pair in profile.chunks(2) {
        let [flag, value] = pair else {
            panic!("{fixture}: `{pair:?}` is not a flag and its value");
        };
        match flag.as_str() {
            "--kubernetes-version" => {
                flags.kubernetes_version = Some(KubeVersion::parse_known(value).unwrap())
            }
            "--istio-version" => {
                flags.istio_version = Some(IstioVersion::parse_known(value).unwrap())
            }
            "--linkerd-version" => {
                flags.linkerd_version = Some(LinkerdVersion::parse_known(value).unwrap())
            }
            "--mesh-version" => flags
                .mesh_versions
                .push(MeshVersion::parse_known(value).unwrap()),
            "--preset" => flags.preset = Some(value.clone()),
            "--deletion-grace-period" => flags.deletion_grace_period = Some(value.parse().unwrap()),
            "--feature-gates" => flags.feature_gates.push(value.clone()),
            other => {
                let key = ScenarioKey::ALL
                    .into_iter()
                    .find(|key| key.flag() == other)
                    .unwrap_or_else(|| panic!("{fixture}: the test does not lay `{other}`"));
                flags
                    .scenario
                    .push((key, parse_go_duration(value).unwrap()));
            }
        }
    }
    flags
}

/// Lints `text` in this process under `flags`, as `lint` would lint the file, adding
/// each finding to its rule's count; returns the rule ids found, sorted.
fn count(name: &str, text: &str, flags: &Flags, seen: &mut BTreeMap<&str, Seen>) -> Vec<String> {
    let inputs = Inputs::from_bytes(text.as_bytes().to_vec());
    let profile = FileLayers::read(None, &[], u64::MAX)
        .complete(&inputs, Limits::default(), None, flags)
        .unwrap_or_else(|errors| panic!("{name}: {errors:?}"));
    let options = RunOptions {
        threads: 1,
        ..RunOptions::default()
    };
    let mut ids = Vec::new();
    pipeline::run(&inputs, &profile.settings, &options, |report| {
        for located in report.analyses.iter().flat_map(|a| &a.findings) {
            let rule = located.finding.rule.id;
            ids.push(rule.to_owned());
            let entry = seen.entry(rule).or_default();
            entry.findings += 1;
            if located.finding.fix.is_some() {
                entry.offered += 1;
            } else {
                entry.without.get_or_insert_with(|| name.to_owned());
            }
            if located.checked_fix().is_some() {
                entry.checked += 1;
                entry.with.get_or_insert_with(|| name.to_owned());
            }
        }
    });
    ids.sort();
    ids
}

#[test]
fn each_rule_offers_fixes_as_it_declares() {
    let mut seen = BTreeMap::new();
    for path in common::rule_fixtures() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let found = count(
            &name,
            &text,
            &flags(&common::profile_flags(&text), &name),
            &mut seen,
        );
        // The fixture is read as `lint` reads it: the rules its markers name fire.
        let mut expected: Vec<String> = common::expectations(&text)
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        expected.sort();
        assert_eq!(
            found, expected,
            "{name}: the profile was not laid as `lint` lays it"
        );
    }
    for path in common::corpus_files() {
        let name = path
            .strip_prefix(common::root())
            .unwrap()
            .display()
            .to_string();
        let bytes = std::fs::read(&path).unwrap();
        count(
            &name,
            &String::from_utf8_lossy(&bytes),
            &Flags::default(),
            &mut seen,
        );
    }
    let mut wrong = Vec::new();
    for rule in RULES {
        let meta = rule.meta();
        let seen = seen.remove(meta.id).unwrap_or_default();
        let holds = match meta.fix {
            FixAvailability::Never => seen.offered == 0,
            FixAvailability::Always => {
                seen.findings > 0 && seen.offered == seen.findings && seen.checked > 0
            }
            FixAvailability::Sometimes => seen.checked > 0 && seen.offered < seen.findings,
        };
        if !holds {
            wrong.push(format!("{} declared `{}`: {seen:?}", meta.id, meta.fix));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `rules --format json` and the SARIF rule table carry each rule's declaration.
#[test]
fn the_catalogs_carry_each_declaration() {
    let output = common::cli()
        .args(["rules", "--format", "json"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let catalog: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let listed: Vec<(&str, &str)> = catalog
        .as_array()
        .unwrap()
        .iter()
        .map(|rule| (rule["id"].as_str().unwrap(), rule["fix"].as_str().unwrap()))
        .collect();
    let declared: Vec<(&str, &str)> = RULES
        .iter()
        .map(|rule| (rule.meta().id, rule.meta().fix.as_str()))
        .collect();
    assert_eq!(listed, declared);
    let output = common::cli()
        .args(["lint", "--format", "sarif"])
        .arg(common::testdata(
            "rules/ml406-fire-knative-prestop-sleep.yaml",
        ))
        .output()
        .unwrap();
    let sarif: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let table: Vec<(&str, &str)> = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|rule| {
            (
                rule["id"].as_str().unwrap(),
                rule["properties"]["fix"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(table, declared);
    for value in ["always", "sometimes", "never"] {
        assert!(
            declared.iter().any(|(_, fix)| *fix == value),
            "no rule is declared `{value}`"
        );
    }
}

/// The table of what each rule's fix does (docs/usage.md, "Fixing findings") says "no
/// automatic fix" for exactly the rules declared `never`, and lists every rule.
#[test]
fn the_fix_table_agrees_with_each_declaration() {
    let usage = std::fs::read_to_string(common::root().join("docs/usage.md")).unwrap();
    let rows: Vec<(&str, bool)> = usage
        .lines()
        .skip_while(|line| !line.starts_with("| Rule | Fix | Applicability |"))
        .skip(2)
        .take_while(|line| line.starts_with("| ML"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
            (cells[0].trim(), cells[1].starts_with("no automatic fix"))
        })
        .collect();
    let declared: Vec<(&str, bool)> = RULES
        .iter()
        .map(|rule| (rule.meta().id, rule.meta().fix == FixAvailability::Never))
        .collect();
    assert_eq!(rows, declared);
}
