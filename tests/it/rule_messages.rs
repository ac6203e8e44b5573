//! What a reader sees for every rule fixture is pinned: one snapshot per file in
//! `testdata/rules/`, the human report as `lint --show-infos --show-fixes
//! --unsafe-fixes` prints it at 100 columns — each finding's rule, severity, message,
//! the source excerpt with its labels, the help, and the checked fix as the lines it
//! changes — then what went to standard error (as ruff snapshots each rule fixture with
//! its diagnostics and fixes). A silent fixture's snapshot holds only the summary, so a
//! finding that appears there fails too.
//! `INSTA_UPDATE=always cargo test --test it rule_messages::` rewrites them; read the diff.

use crate::common;

use common::{cli, profile_flags, root};

/// The flags every snapshot is taken with: infos in full, and every fix shown.
const SHOWN: [&str; 3] = ["--show-infos", "--show-fixes", "--unsafe-fixes"];

#[test]
fn every_fixture_s_report_and_fix_are_pinned() {
    let fixtures = common::rule_fixtures();
    assert!(
        fixtures.len() > 100,
        "only {} fixtures found",
        fixtures.len()
    );
    let root = root();
    for path in fixtures {
        let text = std::fs::read_to_string(&path).unwrap();
        let flags = profile_flags(&text);
        let relative = path.strip_prefix(&root).unwrap();
        let output = cli()
            .current_dir(&root)
            .arg("lint")
            .args(SHOWN)
            .args(&flags)
            .arg(relative)
            .output()
            .expect("the binary runs");
        let stdout = String::from_utf8(output.stdout).expect("the report is UTF-8");
        assert!(
            !stdout.contains('\u{1b}'),
            "no escape sequences off a terminal: {stdout}"
        );
        let mut report = stdout;
        let stderr = String::from_utf8_lossy(&output.stderr);
        if !stderr.is_empty() {
            report.push_str("--- standard error ---\n");
            report.push_str(&stderr);
        }
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        insta::with_settings!({
            description => format!(
                "lint {} {}{}",
                SHOWN.join(" "),
                flags.iter().map(|f| format!("{f} ")).collect::<String>(),
                relative.display()
            ),
            omit_expression => true,
        }, {
            insta::assert_snapshot!(name, report);
        });
    }
}
