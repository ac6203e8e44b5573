//! The summary in words — counts, what was not linted, the config in force, and what
//! became of the fixes — shared by the text, table, GitHub and HTML reports.

use super::{Summary, wrap};
use crate::escape;

/// "2 errors, 1 warning in 3 workloads (4 files)".
pub fn summary_line(summary: &Summary) -> String {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let mut counts = Vec::new();
    for (n, word) in [
        (summary.errors, "error"),
        (summary.warnings, "warning"),
        (summary.infos, "info"),
    ] {
        if n > 0 {
            counts.push(plural(n, word));
        }
    }
    let found = if counts.is_empty() {
        "no findings".to_owned()
    } else {
        counts.join(", ")
    };
    let mut line = format!(
        "{found} in {} ({} checked)",
        plural(summary.workloads, "workload"),
        plural(
            summary.files,
            if summary.from_cluster {
                "object"
            } else {
                "file"
            }
        )
    );
    if summary.suppressed > 0 {
        line.push_str(&format!("; {} suppressed", summary.suppressed));
    }
    if let Some(baselined) = summary.baselined {
        line.push_str(&format!("; {baselined} baselined"));
    }
    if summary.input_errors > 0 {
        line.push_str(&format!(
            "; {} could not be read",
            plural(summary.input_errors, "input")
        ));
    }
    if summary.unknown_kinds > 0 {
        line.push_str(&format!(
            "; {} holding a pod not linted (a kind the linter does not read: declare it in `workloadKinds`)",
            plural(summary.unknown_kinds, "object")
        ));
    }
    if summary.unfollowed_references > 0 {
        line.push_str(&format!(
            "; {} not linted (`spec.workloadRef` names no pod template among the inputs: see the {})",
            plural(summary.unfollowed_references, "Rollout"),
            if summary.unfollowed_references == 1 { "note" } else { "notes" }
        ));
    }
    if summary.no_containers > 0 {
        line.push_str(&format!(
            "; {} without containers not linted (see the {})",
            plural(summary.no_containers, "workload"),
            if summary.no_containers == 1 {
                "note"
            } else {
                "notes"
            }
        ));
    }
    if summary.cluster_notes > 0 {
        line.push_str(&format!(
            "; {} of workloads not read from the cluster",
            plural(summary.cluster_notes, "note")
        ));
    }
    match &summary.config {
        Some(config) => line.push_str(&format!("; config {}", escape::controls(config))),
        None => line.push_str("; no config file"),
    }
    line
}

/// The end of a text report: the summary line wrapped to `width`, then what became of
/// the fixes, each line ending in a newline.
pub fn summary_block(summary: &Summary, width: usize) -> String {
    let mut block = wrap::wrap(&summary_line(summary), width, "", "  ");
    block.push('\n');
    for line in fix_lines(summary) {
        block.push_str(&line);
        block.push('\n');
    }
    block
}

/// The fix lines after the summary: after `--fix`, "Found 5 findings (3 fixed, 2
/// remaining)."; then, when findings have fixes that passed their check, how many
/// `--fix` makes ("[*] 2 fixable with `--fix` (1 more with `--unsafe-fixes`).").
/// After `--fix`, fixes that could not be written back are counted apart: another
/// `--fix` would not make them either, they are to be made in the sources.
pub fn fix_lines(summary: &Summary) -> Vec<String> {
    let fixes = &summary.fixes;
    let remaining = summary.findings();
    let mut lines = Vec::new();
    if let Some(fixed) = fixes.fixed {
        let found = remaining + fixed;
        lines.push(format!(
            "Found {found} finding{} ({fixed} fixed, {remaining} remaining).",
            if found == 1 { "" } else { "s" }
        ));
    }
    if fixes.shown > 0 {
        let (sources, why) = if summary.from_cluster {
            (
                "in the manifests the objects come from",
                "objects read from a cluster are not written back",
            )
        } else {
            (
                "in their sources",
                "rendered and streamed documents are not written back",
            )
        };
        lines.push(format!(
            "[*] {} fixable {sources}: {why}, so the fixes are shown as a diff.",
            fixes.shown
        ));
    }
    let fixable = fixes.fixable().saturating_sub(fixes.shown);
    let more = if fixes.unsafe_fixes { 0 } else { fixes.unsafe_ };
    match (fixable, more) {
        (0, 0) => {}
        (0, more) => lines.push(format!(
            "No fixes available with `--fix` ({more} with `--unsafe-fixes`)."
        )),
        (n, 0) => lines.push(format!("[*] {n} fixable with `--fix`.")),
        (n, more) => lines.push(format!(
            "[*] {n} fixable with `--fix` ({more} more with `--unsafe-fixes`)."
        )),
    }
    lines
}
