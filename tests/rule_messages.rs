//! The wording of every rule fixture's findings is pinned: one snapshot per file in
//! `testdata/rules/`, holding each finding's rule, severity, line:column, message and
//! help as `lint --format json` prints them (as ruff snapshots each rule fixture).
//! A silent fixture's snapshot says so, so a finding that appears there fails too.
//! `INSTA_UPDATE=always cargo test --test rule_messages` rewrites them; read the diff.

mod common;

use std::fmt::Write as _;

use common::{lint_json, profile_flags};

/// The findings of one fixture, one block each, in report order.
fn render(report: &serde_json::Value) -> String {
    let findings = report["findings"].as_array().expect("findings is an array");
    let mut text = String::new();
    for finding in findings {
        let field = |name: &str| finding[name].as_str().unwrap_or_default().to_owned();
        writeln!(
            text,
            "{} {} ({}) at {}:{}",
            field("ruleId"),
            field("rule"),
            field("severity"),
            finding["line"],
            finding["column"],
        )
        .unwrap();
        writeln!(text, "message: {}", field("message")).unwrap();
        let help = field("help");
        if help.is_empty() {
            writeln!(text, "help: (none)").unwrap();
        } else {
            writeln!(text, "help:").unwrap();
            for line in help.lines() {
                writeln!(text, "  {line}").unwrap();
            }
        }
        text.push('\n');
    }
    for error in report["errors"].as_array().into_iter().flatten() {
        writeln!(
            text,
            "input error: {}",
            error["message"].as_str().unwrap_or("")
        )
        .unwrap();
    }
    if text.is_empty() {
        text.push_str("(no findings)\n");
    }
    text
}

#[test]
fn every_fixture_s_messages_and_help_are_pinned() {
    let fixtures = common::rule_fixtures();
    assert!(
        fixtures.len() > 100,
        "only {} fixtures found",
        fixtures.len()
    );
    for path in fixtures {
        let text = std::fs::read_to_string(&path).unwrap();
        let flags = profile_flags(&text);
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        let (report, _) = lint_json(&path, &flags);
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        insta::with_settings!({
            description => format!("lint --format json {}testdata/rules/{name}.yaml",
                flags.iter().map(|f| format!("{f} ")).collect::<String>()),
            omit_expression => true,
        }, {
            insta::assert_snapshot!(name, render(&report));
        });
    }
}
