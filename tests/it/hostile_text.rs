//! Control characters from the input never reach a terminal, a CI log or an XML
//! document as they are. `testdata/hostile/escapes.yaml` puts terminal escape sequences
//! (set the title, clear the screen, move the cursor, a C1 CSI, a bidirectional
//! override, a carriage return before "All checks passed") in a workload's name, its
//! namespace, a container's name, an image, an annotation and a preStop command, all
//! written as YAML escapes, which kubectl reads; the file is also read under a name that
//! holds one. Every text report must show them as escapes (`\x1b`), with colour and
//! without; the XML reports must stay well-formed.

use crate::common;

use std::path::PathBuf;

use mesh_lifecycle::escape::is_unsafe;

/// The hostile manifest copied under a file name that holds an escape sequence.
fn hostile() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("evil\x1b]0;t\x07.yaml");
    std::fs::copy(common::testdata("hostile/escapes.yaml"), &path).unwrap();
    (dir, path)
}

/// Runs the plugin with `args` then the path; stdout and stderr.
fn run(args: &[&str], path: &PathBuf) -> (String, String, i32) {
    let output = common::cli()
        .args(args)
        .arg("--no-config")
        .arg(path)
        .output()
        .unwrap();
    (
        String::from_utf8(output.stdout).expect("UTF-8"),
        String::from_utf8(output.stderr).expect("UTF-8"),
        output.status.code().unwrap(),
    )
}

/// Fails on a control character that is not the start of one of the colours the
/// report writes itself (`ESC [ digits m`).
fn assert_terminal_safe(text: &str, what: &str) {
    for (at, c) in text.char_indices() {
        if c == '\x1b' {
            let rest = &text[at + 1..];
            let sgr = rest.strip_prefix('[').is_some_and(|params| {
                let end = params.find(|c: char| !(c.is_ascii_digit() || c == ';'));
                end.is_some_and(|end| params[end..].starts_with('m'))
            });
            assert!(
                sgr,
                "{what}: an escape sequence that is not a colour at {at}: {:?}",
                &text[at..(at + 20).min(text.len())]
            );
            continue;
        }
        assert!(!is_unsafe(c), "{what}: {c:?} at {at} in {text:?}");
    }
}

#[test]
fn text_reports_show_control_characters_as_escapes() {
    let (_dir, path) = hostile();
    for format in ["human", "table", "github"] {
        for color in ["never", "always"] {
            let (stdout, stderr, code) = run(
                &["lint", "-o", format, "--color", color, "--show-infos"],
                &path,
            );
            assert_eq!(code, 1, "{format}: {stderr}");
            let what = format!("lint -f {format} --color {color}");
            assert_terminal_safe(&stdout, &what);
            assert_terminal_safe(&stderr, &what);
            // Shown, not dropped: the reader sees what the manifest holds.
            assert!(stdout.contains(r"web\x1b]0;owned\x07"), "{what}: {stdout}");
            // A carriage return is shown too (GitHub's own escape in workflow commands).
            let cr = if format == "github" { "%0D" } else { r"\x0d" };
            assert!(
                stdout.contains(&format!("All checks passed{cr}")),
                "{what}: {stdout}"
            );
        }
    }
    for color in ["never", "always"] {
        let (stdout, stderr, code) = run(&["explain", "--color", color], &path);
        assert_eq!(code, 0, "{stderr}");
        assert_terminal_safe(&stdout, "explain");
        assert_terminal_safe(&stderr, "explain");
        assert!(
            stdout.contains(r"app\x1b[1A\x1b[2KAll checks passed\x0d"),
            "{stdout}"
        );
        assert!(stdout.contains(r"\u{202e}"), "{stdout}");
    }
    // The quoted manifest lines show what the file holds as written, and the file's name
    // is escaped wherever it is shown.
    let (stdout, _, _) = run(&["lint", "--color", "never"], &path);
    assert!(
        stdout.contains(r"/evil\x1b]0;t\x07.yaml:11:16]"),
        "{stdout}"
    );
}

#[test]
fn xml_reports_stay_well_formed() {
    let (_dir, path) = hostile();
    let (junit, stderr, code) = run(&["lint", "-o", "junit"], &path);
    assert_eq!(code, 1, "{stderr}");
    roxmltree::Document::parse(&junit).unwrap_or_else(|e| panic!("JUnit: {e}\n{junit}"));
    let (svg, stderr, code) = run(&["explain", "-o", "svg"], &path);
    assert_eq!(code, 0, "{stderr}");
    roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("SVG: {e}\n{svg}"));
    assert!(
        svg.contains(r"app\x1b[1A\x1b[2KAll checks passed\x0d"),
        "{svg}"
    );
    let (html, stderr, code) = run(&["explain", "-o", "html"], &path);
    assert_eq!(code, 0, "{stderr}");
    assert_terminal_safe(&html, "explain -f html");
    // Each drawing of the page is an SVG document of its own.
    for drawing in html.split("<svg").skip(1) {
        let end = drawing.find("</svg>").expect("a closed drawing") + "</svg>".len();
        let svg = format!("<svg{}", &drawing[..end]);
        roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("HTML's SVG: {e}\n{svg}"));
    }
}

#[test]
fn machine_formats_keep_the_exact_values() {
    let (_dir, path) = hostile();
    let (json, stderr, code) = run(&["lint", "-o", "json"], &path);
    assert_eq!(code, 1, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let names: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["workload"]["name"].as_str().unwrap())
        .collect();
    assert!(
        names.iter().all(|name| *name == "web\x1b]0;owned\x07"),
        "{names:?}"
    );
}
