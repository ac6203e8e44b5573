//! `docs/rules/` is generated from the rule docs and must not go stale; every rule's doc
//! has the sections users rely on and cites the docs/lifecycle.md sections it rests on;
//! the list of settings in docs/configuration.md is generated from the structs that decode
//! the config; the README links every page of docs/ and its catalog lists every rule.

use crate::common;

use mesh_lifecycle::documented::markdown;
use mesh_lifecycle::report::catalog::documentation_pages;
use mesh_lifecycle::rules::RULES;
use mesh_lifecycle::settings::Settings;
use mesh_lifecycle::settings::config::{apply_file, settings};
use mesh_lifecycle::settings::file::SettingsFile;

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
        "docs/rules is stale ({stale:?}, {on_disk} files for {} pages); run MESH_LIFECYCLE_UPDATE_DOCS=1 cargo test --test it docs::",
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
        26,
        "the catalog of the README: ML101–105, ML201–210, ML301–305, ML401–406"
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
    let ml301 = json
        .as_array()
        .unwrap()
        .iter()
        .find(|rule| rule["id"] == "ML301")
        .expect("ML301 is listed");
    insta::assert_json_snapshot!("rules_json_ml301", ml301);
}

const SETTINGS_START: &str = "<!-- settings:start -->\n";
const SETTINGS_END: &str = "<!-- settings:end -->";

/// The list of `.mesh-lifecycle.yaml` settings in docs/configuration.md is generated from the structs
/// that decode the file, between its markers.
#[test]
fn settings_list_is_up_to_date() {
    let path = common::root().join("docs/configuration.md");
    let page = std::fs::read_to_string(&path).unwrap();
    let start = page
        .find(SETTINGS_START)
        .expect("docs/configuration.md has the settings start marker")
        + SETTINGS_START.len();
    let end = page
        .find(SETTINGS_END)
        .expect("docs/configuration.md has the settings end marker");
    let generated = markdown(&settings());
    if std::env::var_os("MESH_LIFECYCLE_UPDATE_DOCS").is_some() {
        let updated = format!("{}{generated}{}", &page[..start], &page[end..]);
        std::fs::write(&path, updated).unwrap();
    } else {
        assert!(
            page[start..end] == generated,
            "the settings list of docs/configuration.md is stale; run MESH_LIFECYCLE_UPDATE_DOCS=1 cargo test --test it docs::"
        );
    }
}

/// The settings list names the sections and keys users write, nested ones by their path.
#[test]
fn the_settings_list_holds_every_section_and_nested_key() {
    let keys: Vec<String> = settings().into_iter().map(|row| row.key).collect();
    for key in [
        "kubernetesVersion",
        "istio.holdApplicationUntilProxyStarts",
        "istio.nativeSidecars",
        "linkerd.waitBeforeExitSeconds",
        "namespaces.<name>.labels",
        "scenario.appShutdown",
        "rules",
        "sidecars[].carriesTraffic",
        "workloadKinds[].apiVersion",
        "workloadKinds[].podSpec",
        "workloadKinds[].runsToCompletion",
        "deletionGracePeriodSeconds",
    ] {
        assert!(keys.iter().any(|k| k == key), "{key} is not in {keys:?}");
    }
    for row in settings() {
        assert!(!row.doc.is_empty(), "{}: no doc", row.key);
    }
}

/// A config that sets only `key` (to null, inside the mappings and lists of its path).
fn config_setting(key: &str) -> String {
    let mut value = serde_json::Value::Null;
    for segment in key.split('.').rev() {
        value = match segment {
            "<name>" => serde_json::json!({ "shop": value }),
            _ => match segment.strip_suffix("[]") {
                Some(name) => serde_json::json!({ name: [value] }),
                None => serde_json::json!({ segment: value }),
            },
        };
    }
    value.to_string()
}

fn unknown_key_errors(text: String) -> Vec<String> {
    let file = SettingsFile::parse(std::sync::Arc::from(".mesh-lifecycle.yaml"), text).unwrap();
    let mut settings = Settings::default();
    match apply_file(&file, std::path::Path::new("."), &mut settings) {
        Ok(_) => Vec::new(),
        Err(errors) => errors
            .into_iter()
            .map(|error| error.message)
            .filter(|message| message.contains("unknown"))
            .collect(),
    }
}

/// Every key in the list is one the decoder accepts, and a key beside it that the list
/// lacks is rejected at every level: the decoder and the list name the same keys.
#[test]
fn the_decoder_accepts_exactly_the_listed_keys() {
    for row in settings() {
        let accepted = unknown_key_errors(config_setting(&row.key));
        assert!(accepted.is_empty(), "{}: {accepted:?}", row.key);
        let misspelt = format!("{}Unlisted", row.key);
        let rejected = unknown_key_errors(config_setting(&misspelt));
        let last = misspelt.rsplit('.').next().unwrap().trim_end_matches("[]");
        // A ProxyConfig field is named as istiod names it (`unknown ProxyConfig field`).
        assert!(
            rejected.iter().any(|message| {
                message.contains(&format!("unknown setting `{last}`"))
                    || message.contains(&format!("unknown ProxyConfig field `{last}`"))
            }),
            "{misspelt}: {rejected:?}"
        );
    }
}

/// The README's rule catalog has one row per rule, in id order, with its name, a
/// severity that begins with the rule's own, and the rule's fix availability.
#[test]
fn the_readme_catalog_lists_every_rule() {
    let readme = std::fs::read_to_string(common::root().join("README.md")).unwrap();
    let rows: Vec<(&str, &str, &str, &str)> = readme
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split(" | ").collect();
            let id = cells.first()?.strip_prefix("| ")?;
            let name = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            (id.starts_with("ML") && cells.len() == 5).then_some((id, name, cells[2], cells[3]))
        })
        .collect();
    let expected: Vec<(&str, &str)> = RULES
        .iter()
        .map(|rule| (rule.meta().id, rule.meta().name))
        .collect();
    let listed: Vec<(&str, &str)> = rows.iter().map(|(id, name, _, _)| (*id, *name)).collect();
    assert_eq!(listed, expected);
    for ((id, _, severity, fix), rule) in rows.iter().zip(RULES) {
        assert!(
            severity.starts_with(rule.meta().severity.as_str()),
            "{id}: {severity}"
        );
        assert_eq!(*fix, rule.meta().fix.as_str(), "{id}: the fix column");
    }
}

/// The Markdown pages of the documentation: `docs/*.md`, the rule index and
/// BENCHMARKS.md, relative to the repository's root.
fn documentation_pages_on_disk() -> Vec<String> {
    let root = common::root();
    let mut pages: Vec<String> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    pages.extend([
        "docs/rules/README.md".to_owned(),
        "BENCHMARKS.md".to_owned(),
    ]);
    pages.sort();
    pages
}

/// A newcomer finds every page from the README: each page of the documentation is
/// linked from it, so a section moved out of the README stays one click away.
#[test]
fn the_readme_links_every_page_of_the_documentation() {
    let readme = std::fs::read_to_string(common::root().join("README.md")).unwrap();
    let linked: Vec<&str> = readme
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .map(|target| target.split('#').next().unwrap_or_default())
        .collect();
    let pages = documentation_pages_on_disk();
    assert!(pages.len() >= 10, "{pages:?}");
    let unlinked: Vec<&String> = pages
        .iter()
        .filter(|page| !linked.contains(&page.as_str()))
        .collect();
    assert!(
        unlinked.is_empty(),
        "pages the README does not link: {unlinked:?}"
    );
}
