//! The rule catalog as a table, as text for a terminal (`rules ID`), as Markdown
//! (`rules ID --format markdown`, `docs/rules/*.md`) and as JSON.

use comfy_table::{Attribute, Cell};
use serde_json::json;

use super::style::{Style, Tone};
use super::wrap;
use crate::rules::{Rule, RuleMeta};

/// The narrowest summary column beside a name column.
const MIN_SUMMARY: usize = 40;

/// The catalog as a table: id, name, severity, summary. Ids, names and severities are
/// looked up by users and never wrapped; the summary takes the rest of the width, and
/// when that is too narrow each name heads its summary instead.
pub fn table(rules: &[&dyn Rule], style: Style) -> String {
    let widest = |column: fn(&RuleMeta) -> &str, header: &str| {
        rules
            .iter()
            .map(|rule| column(rule.meta()).chars().count())
            .chain([header.chars().count()])
            .max()
            .unwrap_or(0)
    };
    let id = widest(|m| m.id, "ID");
    let name = widest(|m| m.name, "Name");
    let severity = widest(|m| m.severity.as_str(), "Severity");
    // Borders, and a space of padding on each side of every cell.
    let chrome = |columns: usize| columns + 1 + 2 * columns;
    let width = style.columns();
    let room = |columns: usize, taken: usize| width.saturating_sub(chrome(columns) + taken);
    // Columns: all four; or the name heading its summary; or the severity too.
    let columns = if name + MIN_SUMMARY <= room(4, id + severity) {
        4
    } else if name <= room(3, id + severity) {
        3
    } else {
        2
    };
    let (mut table, summary) = match columns {
        4 => (
            style.table(&["ID", "Name", "Severity", "Summary"]),
            room(4, id + severity) - name,
        ),
        3 => (
            style.table(&["ID", "Severity", "Name and summary"]),
            room(3, id + severity),
        ),
        _ => (style.table(&["ID", "Rule"]), room(2, id).max(name)),
    };
    for rule in rules {
        let meta = rule.meta();
        let id = Cell::new(meta.id).add_attribute(Attribute::Bold);
        let severity = Cell::new(meta.severity.as_str()).fg(Tone::of(meta.severity).cell_color());
        let text = wrap::wrap(meta.summary, summary, "", "");
        match columns {
            4 => table.add_row([id, Cell::new(meta.name), severity, Cell::new(text)]),
            3 => table.add_row([id, severity, Cell::new(format!("{}\n{text}", meta.name))]),
            _ => {
                let text = format!("{}: {}", meta.severity, meta.summary);
                let text = wrap::wrap(&text, summary, "", "");
                table.add_row([id, Cell::new(format!("{}\n{text}", meta.name))])
            }
        };
    }
    format!("{table}\n")
}

/// One rule's documentation for a terminal: the Markdown of [`markdown`] laid out as a
/// man page ([`super::markdown`]), at the style's width.
pub fn text(meta: &RuleMeta, style: Style) -> String {
    super::markdown::render(&markdown(meta), style)
}

/// One rule's full documentation as Markdown.
pub fn markdown(meta: &RuleMeta) -> String {
    format!(
        "# {} `{}`\n\nDefault severity: **{}** · Group: {} · Automatic fix: {} · Since: {}\n\n{}\n\n{}",
        meta.id,
        meta.name,
        meta.severity,
        meta.group.title(),
        meta.fix,
        meta.since,
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
        "fix": meta.fix,
        "group": meta.group,
        "summary": meta.summary,
        "since": meta.since,
        "doc": meta.doc(),
    })
}

/// The pages of `docs/rules/`: one per rule and an index, as `(file name, contents)`.
pub fn documentation_pages(rules: &[&dyn Rule]) -> Vec<(String, String)> {
    const NOTE: &str = "<!-- Generated from the rule's doc comment by `MESH_LIFECYCLE_UPDATE_DOCS=1 cargo test --test it docs::`; do not edit. -->\n\n";
    let mut pages = Vec::new();
    let mut index = format!(
        "{NOTE}# Rules\n\nIds and names are a contract: CI configurations, suppressions and SARIF refer to them.\n\n| id | name | default severity | automatic fix | summary |\n|---|---|---|---|---|\n"
    );
    for rule in rules {
        let meta = rule.meta();
        let file = format!("{}-{}.md", meta.id, meta.name);
        index.push_str(&format!(
            "| [{}]({file}) | `{}` | {} | {} | {} |\n",
            meta.id, meta.name, meta.severity, meta.fix, meta.summary
        ));
        pages.push((file, format!("{NOTE}{}", markdown(meta))));
    }
    pages.push(("README.md".to_owned(), index));
    pages
}
