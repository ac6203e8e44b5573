//! The rule catalog as a table, as Markdown (`rules ID`, `docs/rules/*.md`) and as JSON.

use comfy_table::{ColumnConstraint, ContentArrangement, Table, presets};
use serde_json::json;

use crate::rules::{Rule, RuleMeta};

/// The catalog as a table: id, name, severity, summary.
pub fn table(rules: &[&dyn Rule]) -> String {
    let mut table = Table::new();
    table
        .load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(120)
        .set_header(["ID", "Name", "Severity", "Summary"]);
    for rule in rules {
        let meta = rule.meta();
        table.add_row([meta.id, meta.name, meta.severity.as_str(), meta.summary]);
    }
    // Ids and names are looked up by users: never wrap them.
    for index in 0..3 {
        if let Some(column) = table.column_mut(index) {
            column.set_constraint(ColumnConstraint::ContentWidth);
        }
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

/// The pages of `docs/rules/`: one per rule and an index, as `(file name, contents)`.
pub fn documentation_pages(rules: &[&dyn Rule]) -> Vec<(String, String)> {
    const NOTE: &str = "<!-- Generated from the rule's doc comment by `MESH_LIFECYCLE_UPDATE_DOCS=1 cargo test --test docs`; do not edit. -->\n\n";
    let mut pages = Vec::new();
    let mut index = format!(
        "{NOTE}# Rules\n\nIds and names are a contract: CI configurations, suppressions and SARIF refer to them.\n\n| id | name | default severity | summary |\n|---|---|---|---|\n"
    );
    for rule in rules {
        let meta = rule.meta();
        let file = format!("{}-{}.md", meta.id, meta.name);
        index.push_str(&format!(
            "| [{}]({file}) | `{}` | {} | {} |\n",
            meta.id, meta.name, meta.severity, meta.summary
        ));
        pages.push((file, format!("{NOTE}{}", markdown(meta))));
    }
    pages.push(("README.md".to_owned(), index));
    pages
}
