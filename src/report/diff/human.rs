//! `diff --format human`: each workload that changed, its findings added (red, `+`),
//! removed (green, `-`) and changed (`~`), what moved on its timeline and the settings
//! that become moot or start to apply; then the count of workloads that did not change.

use std::fmt::Write;

use super::{Header, movement, setting, summary, workload_name};
use crate::diff::{Comparison, FindingChange, FindingMove, Presence};
use crate::report::style::{Style, Tone};
use crate::report::wrap;

/// The whole report.
pub fn render(comparison: &Comparison, header: &Header, style: Style, quiet: bool) -> String {
    let width = style.columns();
    let mut out = String::new();
    let line = |out: &mut String, first: &str, indent: &str, text: &str| {
        out.push_str(&wrap::wrap(text, width, first, indent));
        out.push('\n');
    };
    if !quiet {
        let _ = writeln!(
            out,
            "{}",
            style.paint(
                &format!("Comparing {} with {}", header.before, header.after),
                Tone::Bold
            )
        );
        for (side, only) in [
            ("before", &header.before_only),
            ("after", &header.after_only),
        ] {
            if !only.is_empty() {
                line(
                    &mut out,
                    "  ",
                    "    ",
                    &format!("{side}: {}", only.join(" · ")),
                );
            }
        }
        out.push('\n');
    }
    for change in &comparison.workloads {
        let status = match change.presence {
            Presence::Both => "",
            Presence::After => " (new)",
            Presence::Before => " (goes away)",
        };
        let _ = writeln!(
            out,
            "{}",
            style.paint(
                &format!("{} · {}{status}", workload_name(change), change.file),
                Tone::Bold
            )
        );
        for finding in &change.findings {
            let (sign, tone) = match finding.kind() {
                FindingMove::Added => ("+ ", Some(Tone::Red)),
                FindingMove::Removed => ("- ", Some(Tone::Green)),
                FindingMove::Changed => ("~ ", None),
            };
            let text = wrap::wrap(
                &finding_line(finding),
                width,
                &format!("  {sign}"),
                "      ",
            );
            let painted: Vec<String> = text
                .lines()
                .map(|l| match tone {
                    Some(tone) => style.paint(l, tone),
                    None => l.to_owned(),
                })
                .collect();
            let _ = writeln!(out, "{}", painted.join("\n"));
        }
        if !change.moves.is_empty() {
            let _ = writeln!(out, "  {}", style.paint("timeline", Tone::Dim));
            for m in &change.moves {
                line(&mut out, "    ", "      ", &movement(m));
            }
        }
        if !change.settings.is_empty() {
            let _ = writeln!(out, "  {}", style.paint("settings", Tone::Dim));
            for s in &change.settings {
                line(&mut out, "    ", "      ", &setting(s));
            }
        }
        out.push('\n');
    }
    if !quiet {
        for note in &header.notes {
            line(&mut out, "note: ", "      ", &note.to_string());
        }
        let mut last = summary(&comparison.tally());
        if !header.input_errors.is_empty() {
            last.push_str(&format!(
                "; {} input(s) could not be read",
                header.input_errors.len()
            ));
        }
        line(&mut out, "", "", &last);
    }
    out
}

/// `error ML201 grace-period-exceeded (`istio-proxy`): message — web.yaml:18:37`; a
/// changed finding says what changed.
fn finding_line(change: &FindingChange) -> String {
    let located = change.current();
    let finding = &located.finding;
    let container = finding
        .container
        .as_ref()
        .map(|c| format!(" `{c}`"))
        .unwrap_or_default();
    let severity = match (&change.before, &change.after) {
        (Some(before), Some(after)) if before.finding.severity != after.finding.severity => {
            format!("{} → {}", before.finding.severity, after.finding.severity)
        }
        _ => finding.severity.to_string(),
    };
    let suppressed = located
        .suppressed
        .as_ref()
        .map(|_| " (suppressed)")
        .unwrap_or_default();
    let at = if change.after.is_none() {
        "was at "
    } else {
        ""
    };
    format!(
        "{severity} {} {}{container}{suppressed}: {} — {at}{}:{}:{}",
        finding.rule.id,
        finding.rule.name,
        finding.message,
        located.file,
        located.primary.start.line,
        located.primary.start.column
    )
}
