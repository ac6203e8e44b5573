//! The repository stands on its own: no file cites a document outside it, every
//! Markdown link to a file in it resolves, and every citation of `docs/lifecycle.md`
//! (`§2.2`, `§7 F19`) names a section or failure mode the fact sheet has.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Directories that hold no project text: build output, fuzzing runs, the corpus of
/// third-party manifests copied verbatim (their own words are not ours to change), and
/// the VS Code extension's npm packages and compiled output.
const SKIPPED: [&str; 8] = [
    "target",
    ".git",
    "fuzz/target",
    "fuzz/corpus",
    "fuzz/artifacts",
    "testdata/corpus",
    "editors/vscode/node_modules",
    "editors/vscode/out",
];

/// Every text file of the repository, with its path relative to the root.
fn text_files() -> Vec<(String, String)> {
    let root = common::root();
    let mut files = Vec::new();
    let mut pending = vec![root.clone()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let relative = relative(&root, &path);
            if SKIPPED.iter().any(|skip| relative == *skip) {
                continue;
            }
            if path.is_dir() {
                pending.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                files.push((relative, text));
            }
        }
    }
    files.sort();
    assert!(files.len() > 100, "the walk found the repository's files");
    files
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

#[test]
fn no_file_cites_a_document_outside_the_repository() {
    // Spelled in pieces, so that this file does not match itself.
    let outside = [
        ["lifecycle", "-semantics"].concat(),
        ["worked", "-examples.md"].concat(),
        ["design", ".md"].concat(),
        ["crates", ".md"].concat(),
        ["style", ".md"].concat(),
        ["../", "shared"].concat(),
        ["/work", "/shared"].concat(),
        ["(semantics", " "].concat(),
    ];
    let mut found = Vec::new();
    for (path, text) in text_files() {
        for (number, line) in text.lines().enumerate() {
            for pattern in &outside {
                if line.contains(pattern.as_str()) {
                    found.push(format!("{path}:{}: `{pattern}`", number + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "citations of documents outside the repository:\n{}",
        found.join("\n")
    );
}

#[test]
fn markdown_links_to_files_resolve() {
    let root = common::root();
    let mut broken = Vec::new();
    for (path, text) in text_files().into_iter().filter(|(p, _)| p.ends_with(".md")) {
        let dir = root.join(&path).parent().unwrap().to_path_buf();
        for target in text
            .split("](")
            .skip(1)
            .filter_map(|rest| rest.split(')').next())
        {
            let target = target.split('#').next().unwrap_or_default();
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let resolved: PathBuf = dir.join(target);
            let inside = resolved
                .canonicalize()
                .is_ok_and(|real| real.starts_with(root.canonicalize().unwrap()));
            if !inside {
                broken.push(format!("{path}: ({target})"));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links that lead nowhere in the repository:\n{}",
        broken.join("\n")
    );
}

/// The sections (`2`, `2.2`) and failure modes (`F19`) of `docs/lifecycle.md`.
fn fact_sheet() -> (BTreeSet<String>, BTreeSet<String>) {
    let text = std::fs::read_to_string(common::root().join("docs/lifecycle.md")).unwrap();
    let mut sections = BTreeSet::new();
    let mut failures = BTreeSet::new();
    for line in text.lines() {
        let heading = line
            .strip_prefix("### ")
            .or_else(|| line.strip_prefix("## "));
        if let Some(number) = heading.and_then(|h| h.split_whitespace().next()) {
            let number = number.trim_end_matches('.');
            if number.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                sections.insert(number.to_owned());
            }
        }
        if let Some(id) = line
            .strip_prefix("| F")
            .and_then(|rest| rest.split(' ').next())
        {
            failures.insert(format!("F{id}"));
        }
    }
    assert!(
        sections.contains("2.2") && sections.contains("9.9"),
        "{sections:?}"
    );
    assert!(
        failures.contains("F1") && failures.contains("F19"),
        "{failures:?}"
    );
    (sections, failures)
}

#[test]
fn every_fact_sheet_citation_names_a_real_section() {
    let (sections, failures) = fact_sheet();
    let mut unknown = Vec::new();
    let mut citations = 0;
    for (path, text) in text_files() {
        for (number, line) in text.lines().enumerate() {
            let at = |what: &str| format!("{path}:{}: {what}", number + 1);
            // A citation is `§` and a number; `§N.M` in prose about citations is not one.
            for cited in line
                .split('§')
                .skip(1)
                .filter(|c| c.starts_with(|c: char| c.is_ascii_digit()))
            {
                citations += 1;
                let section: String = cited
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.')
                    .collect();
                let section = section.trim_end_matches('.');
                if !sections.contains(section) {
                    unknown.push(at(&format!("§{section}")));
                }
                // `§7 F2, F3`: each failure mode named after the section.
                if section == "7" {
                    let modes = cited[1..].trim_start();
                    for mode in modes.split(", ").map_while(|m| {
                        let id: String = m
                            .chars()
                            .take_while(|c| c.is_ascii_alphanumeric())
                            .collect();
                        (id.starts_with('F') && id.len() > 1).then_some(id)
                    }) {
                        if !failures.contains(&mode) {
                            unknown.push(at(&format!("§7 {mode}")));
                        }
                    }
                }
            }
        }
    }
    assert!(
        citations > 200,
        "the scan found the citations ({citations})"
    );
    assert!(
        unknown.is_empty(),
        "citations of sections docs/lifecycle.md does not have:\n{}",
        unknown.join("\n")
    );
}
