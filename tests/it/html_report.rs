//! `lint --format html`: the page a team publishes from CI. Its overview states what the
//! JSON report counts, lists every workload worst first with a link to its section, and
//! the page holds everything it shows (no script needed to read it, nothing fetched).
//! `tests/it/browser.rs` loads a 10,000-workload page in Chromium.

use crate::common;

use common::{cli, root};
use serde_json::Value;

/// `lint --format FORMAT` over `paths` from the repository root: stdout and status.
fn lint(format: &str, paths: &[&str]) -> (String, i32) {
    let output = cli()
        .current_dir(root())
        .args(["lint", "--no-config", "--format", format])
        .args(paths)
        .output()
        .unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        output.status.code().unwrap(),
    )
}

/// The number the overview states for `key` (`errors`, `workloads`, ...).
fn count(page: &str, key: &str) -> u64 {
    let marker = format!("data-count=\"{key}\"><b>");
    let at = page
        .find(&marker)
        .unwrap_or_else(|| panic!("no count of {key}"))
        + marker.len();
    page[at..page[at..].find('<').unwrap() + at]
        .parse()
        .unwrap()
}

/// The overview's index: each row's class of worst severity and the section it links.
fn index_rows(page: &str) -> Vec<(String, String)> {
    page.match_indices("<div class=\"row worst-")
        .map(|(at, _)| {
            let row = &page[at..page[at..].find("</div>").unwrap() + at];
            let class = row["<div class=\"row ".len()..].split('"').next().unwrap();
            let link = row.split("href=\"#").nth(1).unwrap().split('"').next();
            (class.to_owned(), link.unwrap().to_owned())
        })
        .collect()
}

const RUN: [&str; 2] = ["testdata/rules", "testdata/corpus/istio-inject"];

#[test]
fn the_overview_counts_what_the_json_report_counts() {
    let (page, status) = lint("html", &RUN);
    let (json, json_status) = lint("json", &RUN);
    assert_eq!(status, json_status, "the same exit status in every format");
    let report: Value = serde_json::from_str(&json).unwrap();
    let summary = &report["summary"];
    for (key, json_key) in [
        ("errors", "errors"),
        ("warnings", "warnings"),
        ("infos", "infos"),
        ("workloads", "workloads"),
        ("suppressed", "suppressed"),
        ("inputErrors", "inputErrors"),
    ] {
        assert_eq!(
            count(&page, key),
            summary[json_key].as_u64().unwrap(),
            "{key}"
        );
    }
    let workloads = summary["workloads"].as_u64().unwrap() as usize;
    // Every workload has a section, written in the page, and a row of the index that
    // links to it.
    assert_eq!(page.matches("<details").count(), workloads);
    let rows = index_rows(&page);
    assert_eq!(rows.len(), workloads);
    for (_, link) in &rows {
        assert!(
            page.contains(&format!("id=\"{link}\"")),
            "no section {link}"
        );
    }
    // Worst first.
    let rank = |class: &str| {
        ["worst-error", "worst-warning", "worst-info", "worst-none"]
            .iter()
            .position(|c| *c == class)
            .unwrap()
    };
    let ranks: Vec<usize> = rows.iter().map(|(class, _)| rank(class)).collect();
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{ranks:?}");
    assert_eq!(ranks[0], 0);
    // Each rule's findings are counted: the table's counts add up to the findings.
    let findings = report["findings"].as_array().unwrap();
    let unsuppressed = findings.len() as u64;
    let table: u64 = page
        .match_indices("<tr data-rule=")
        .map(|(at, _)| {
            let row = &page[at..page[at..].find("</tr>").unwrap() + at];
            let cells: Vec<&str> = row.split("<td class=\"n\">").skip(1).collect();
            cells[0].split('<').next().unwrap().parse::<u64>().unwrap()
        })
        .sum();
    assert_eq!(table, unsuppressed);
}

#[test]
fn the_page_holds_everything_and_fetches_nothing() {
    let (page, _) = lint("html", &["testdata/rules/ml203-fire-linkerd-injected.yaml"]);
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.trim_end().ends_with("</html>"));
    // The SVG namespace is a name, not an address the browser fetches.
    let fetched = page.replace("http://www.w3.org/2000/svg", "");
    for outside in ["<link", "src=", "@import", "http://", "https://"] {
        assert!(!fetched.contains(outside), "the page holds `{outside}`");
    }
    // Pictures are data, in the page.
    for (at, _) in page.match_indices("url(") {
        assert!(
            page[at..].starts_with("url(\"data:image/svg+xml,"),
            "{}",
            &page[at..at + 40]
        );
    }
    // The one script only adds the search box: the findings are in the markup.
    assert_eq!(page.matches("<script>").count(), 1);
    let script = page.find("<script>").unwrap();
    for text in [
        "ML202",
        "proxy-exits-before-app",
        "Deployment billing/ledger",
        "Fix: ",
    ] {
        let at = page.find(text).unwrap_or_else(|| panic!("{text}"));
        assert!(at < script, "{text} is written before the script");
    }
    // The overview, written last, is shown first.
    assert!(page.contains("#overview{order:-1"));
    assert!(page.find("<header id=\"overview\">").unwrap() > page.find("<main").unwrap());
}

/// Pods of one chart draw the same pictures: each is written once, and every section
/// that shows it refers to it.
#[test]
fn a_drawing_met_again_is_written_once() {
    let dir = tempfile::tempdir().unwrap();
    let fixture =
        std::fs::read_to_string(root().join("testdata/rules/ml201-fire-prestop-plus-drain.yaml"))
            .unwrap();
    let copies: Vec<String> = (0..3)
        .map(|i| fixture.replacen("name: api", &format!("name: api-{i}"), 1))
        .collect();
    let path = dir.path().join("copies.yaml");
    std::fs::write(&path, copies.join("\n---\n")).unwrap();
    let (page, status) = lint("html", &[path.to_str().unwrap()]);
    assert_eq!(status, 1);
    assert_eq!(page.matches("<details").count(), 3);
    // Two panels (start-up, termination), each pictured once, shown three times.
    assert_eq!(page.matches("data:image/svg+xml,").count(), 2);
    assert_eq!(page.matches("class=\"picture d0\"").count(), 3);
    assert_eq!(page.matches("class=\"picture d1\"").count(), 3);
}

/// Input errors and notes are listed in the overview, where a reader of the artifact
/// sees them.
#[test]
fn input_errors_and_notes_are_in_the_overview() {
    let (page, status) = lint(
        "html",
        &[
            "testdata/bad/unclosed-flow.yaml",
            "testdata/mixed/crd.yaml",
            "testdata/rules/ml201-fire-prestop-plus-drain.yaml",
        ],
    );
    assert_eq!(status, 2);
    assert_eq!(count(&page, "inputErrors"), 1);
    let overview = &page[page.find("<header id=\"overview\">").unwrap()..];
    assert!(
        overview.contains("Inputs that could not be read"),
        "{overview}"
    );
    assert!(overview.contains("testdata/bad/unclosed-flow.yaml:"));
    assert!(overview.contains("Notes") && overview.contains("testdata/mixed/crd.yaml:"));
}
