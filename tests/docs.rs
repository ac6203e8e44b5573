//! `docs/rules/` is generated from the rule docs and must not go stale; every rule's doc
//! has the sections users rely on and cites the docs/lifecycle.md sections it rests on.

mod common;

use mesh_lifecycle::report::catalog::documentation_pages;
use mesh_lifecycle::rules::RULES;

#[test]
fn generated_rule_docs_are_up_to_date() {
    let dir = common::root().join("docs/rules");
    let update = std::env::var_os("MESH_LIFECYCLE_UPDATE_DOCS").is_some();
    let pages = documentation_pages(RULES);
    let mut stale = Vec::new();
    if update {
        std::fs::create_dir_all(&dir).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap() {
            std::fs::remove_file(entry.unwrap().path()).unwrap();
        }
    }
    for (name, contents) in &pages {
        let path = dir.join(name);
        if update {
            std::fs::write(&path, contents).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_ref() != Some(contents) {
            stale.push(name.clone());
        }
    }
    let on_disk = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
    assert!(
        stale.is_empty() && on_disk == pages.len(),
        "docs/rules is stale ({stale:?}, {on_disk} files for {} pages); run MESH_LIFECYCLE_UPDATE_DOCS=1 cargo test --test docs",
        pages.len()
    );
}

#[test]
fn every_rule_doc_has_its_sections_and_cites_the_semantics() {
    for rule in RULES {
        let meta = rule.meta();
        for heading in [
            "What it detects",
            "Why it loses traffic",
            "Example",
            "Fix",
            "References",
        ] {
            let section = meta.section(heading).unwrap_or_default();
            assert!(
                !section.is_empty(),
                "{}: no `## {heading}` section",
                meta.id
            );
        }
        let references = meta.section("References").unwrap();
        assert!(
            references.contains("docs/lifecycle.md §"),
            "{}: the references cite no section of docs/lifecycle.md",
            meta.id
        );
    }
}

#[test]
fn ids_and_names_are_unique_and_well_formed() {
    let mut ids: Vec<&str> = RULES.iter().map(|r| r.meta().id).collect();
    let mut names: Vec<&str> = RULES.iter().map(|r| r.meta().name).collect();
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "rules are registered in id order"
    );
    ids.dedup();
    names.sort();
    names.dedup();
    assert_eq!(ids.len(), RULES.len());
    assert_eq!(names.len(), RULES.len());
    assert_eq!(
        RULES.len(),
        22,
        "the catalog of the README: ML101–105, ML201–209, ML301–304, ML401–404"
    );
}

fn rules(args: &[&str]) -> String {
    let output = common::cli().arg("rules").args(args).output().unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn rules_output_snapshots() {
    insta::assert_snapshot!("rules_table", rules(&[]));
    insta::assert_snapshot!("rules_ml201", rules(&["ML201"]));
    insta::assert_snapshot!("rules_by_name", rules(&["proxy-exits-before-app"]));
    let json: serde_json::Value = serde_json::from_str(&rules(&["--format", "json"])).unwrap();
    assert_eq!(json.as_array().unwrap().len(), RULES.len());
    insta::assert_json_snapshot!("rules_json_ml301", json[14]);
}
