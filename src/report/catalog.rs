//! The rule catalog as a table, as Markdown (`rules ID`, `docs/rules/*.md`) and as JSON.

use comfy_table::{ContentArrangement, Table, presets};
use serde_json::json;

use crate::rules::{Rule, RuleMeta};

/// The catalog as a table: id, name, severity, summary.
pub fn table(rules: &[&dyn Rule]) -> String {
    let mut table = Table::new();
    table
        .load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(100)
        .set_header(["ID", "Name", "Severity", "Summary"]);
    for rule in rules {
        let meta = rule.meta();
        table.add_row([meta.id, meta.name, meta.severity.as_str(), meta.summary]);
    }
    format!("{table}\n")
}

/// One rule's full documentation as Markdown.
pub fn markdown(meta: &RuleMeta) -> String {
    format!(
        "# {} `{}`\n\nDefault severity: **{}** · Group: {}\n\n{}\n\n{}",
        meta.id,
        meta.name,
        meta.severity,
        meta.group.title(),
        capitalize(meta.summary),
        meta.doc()
    )
}

/// `text` as a sentence: capitalised, with a full stop.
pub(crate) fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect::<String>() + ".",
        None => String::new(),
    }
}

/// One rule as JSON.
pub fn rule_json(meta: &RuleMeta) -> serde_json::Value {
    json!({
        "id": meta.id,
        "name": meta.name,
        "severity": meta.severity,
        "group": meta.group,
        "summary": meta.summary,
        "doc": meta.doc(),
    })
}
