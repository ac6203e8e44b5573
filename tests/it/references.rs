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

/// The anchors GitHub gives the headings of a Markdown text: each heading outside code
/// blocks, lower-cased, with what is not a letter, digit, space, `-` or `_` dropped and
/// spaces made `-`; a heading met again gets `-1`, `-2`, ….
fn anchors(text: &str) -> BTreeSet<String> {
    let mut anchors = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let Some(heading) = line
            .strip_prefix('#')
            .map(|rest| rest.trim_start_matches('#'))
            .and_then(|rest| rest.strip_prefix(' '))
        else {
            continue;
        };
        if fenced {
            continue;
        }
        let slug: String = heading
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let mut anchor = slug.clone();
        let mut seen = 0;
        while anchors.contains(&anchor) {
            seen += 1;
            anchor = format!("{slug}-{seen}");
        }
        anchors.insert(anchor);
    }
    anchors
}

/// Every Markdown link to a file of the repository resolves, and a link to a heading
/// (`docs/usage.md#exit-status`, `#workload-kinds`) names one the page has: a section
/// moved to another page takes its links with it.
#[test]
fn markdown_links_to_files_resolve() {
    let root = common::root();
    let files = text_files();
    let markdown: std::collections::BTreeMap<PathBuf, &str> = files
        .iter()
        .filter(|(p, _)| p.ends_with(".md"))
        .map(|(p, text)| (root.join(p), text.as_str()))
        .collect();
    let mut broken = Vec::new();
    let mut anchored = 0;
    for (path, text) in files.iter().filter(|(p, _)| p.ends_with(".md")) {
        let dir = root.join(path).parent().unwrap().to_path_buf();
        for link in text
            .split("](")
            .skip(1)
            .filter_map(|rest| rest.split(')').next())
        {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            let (target, anchor) = link.split_once('#').unwrap_or((link, ""));
            let resolved: PathBuf = if target.is_empty() {
                root.join(path)
            } else {
                dir.join(target)
            };
            let real = resolved.canonicalize();
            let inside = real
                .as_ref()
                .is_ok_and(|real| real.starts_with(root.canonicalize().unwrap()));
            if !inside {
                broken.push(format!("{path}: ({link})"));
                continue;
            }
            if anchor.is_empty() {
                continue;
            }
            anchored += 1;
            let page = real.ok().and_then(|real| {
                markdown
                    .iter()
                    .find(|(file, _)| file.canonicalize().ok().as_ref() == Some(&real))
                    .map(|(_, text)| *text)
            });
            if !page.is_some_and(|page| anchors(page).contains(anchor)) {
                broken.push(format!("{path}: ({link}): no such heading"));
            }
        }
    }
    assert!(anchored > 30, "{anchored} links to headings");
    assert!(
        broken.is_empty(),
        "links that lead nowhere in the repository:\n{}",
        broken.join("\n")
    );
}

#[test]
fn headings_make_the_anchors_github_makes() {
    let text = "# Usage\n## Linting what is deployed (`--cluster`)\n```sh\n# not a heading\n```\n### Settings of `.mesh-lifecycle.yaml`\n## Usage\n";
    let expected: BTreeSet<String> = [
        "usage",
        "usage-1",
        "linting-what-is-deployed---cluster",
        "settings-of-mesh-lifecycleyaml",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(anchors(text), expected);
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
