//! A remedy made concrete on one document: [`Editor::plan`] turns a rule's
//! [`Remedy`], changes to the decoded object, into the edits that make them in the
//! document's text.

use super::apply::touch;
use super::edit::{EditError, Editor, KeyComments};
use super::render;
use super::{Change, Edit, Fix, Planned, Remedy};
use crate::load::JsonPath;
use crate::load::path::Segment;

impl Editor<'_> {
    /// The edits that make `remedy`'s changes in the text this editor edits, with the
    /// changes as made: a value set inside an annotation that holds YAML
    /// (`proxy.istio.io/config`) which the document does not have yet becomes the new
    /// annotation, holding that value as YAML. `Err` says why the manifest is not
    /// shaped for it (a value from an anchor, a scalar where a mapping is needed).
    ///
    /// Changes are made in their order. Each is built on the text the previous ones
    /// made, read again, whenever an earlier change moves or removes a sequence item
    /// (a later path means the sequence as it is then) or two changes' edits touch
    /// (a key removed from a mapping another change inserts into); the edits are then
    /// composed into edits of the original text (`apply::compose`).
    pub fn plan(&self, remedy: &Remedy) -> Result<Planned, EditError> {
        let changes: Vec<Change> = self
            .without_leftovers(&remedy.changes)
            .into_iter()
            .map(|change| match change {
                Change::Set(path, value) if !self.has(&path) => new_embedded(&path, &value),
                other => other,
            })
            .collect();
        let shifts = |change: &Change| match change {
            Change::Move { .. } => true,
            Change::Remove(path) => matches!(path.segments().last(), Some(Segment::Index(_))),
            Change::Set(..) => false,
        };
        let mut independent = !changes[..changes.len().saturating_sub(1)]
            .iter()
            .any(shifts);
        let carried = self.carried(&changes, &remedy.changes);
        let decorate = |change: &Change, step: &mut Vec<Edit>, original: bool| {
            for (from, to, comments) in &carried {
                match change {
                    Change::Set(path, _) if path == to => {
                        insert_comments(to, comments, step, self.newline())
                    }
                    Change::Remove(path) if path == from && original => {
                        take_leading_comments(comments, step)
                    }
                    _ => {}
                }
            }
        };
        let mut edits: Vec<Edit> = Vec::new();
        if independent {
            for change in &changes {
                let mut step = self.change(change)?;
                decorate(change, &mut step, true);
                independent &= !step
                    .iter()
                    .any(|edit| edits.iter().any(|other| touch(&edit.range, &other.range)));
                edits.extend(step);
            }
        }
        if !independent {
            // Comments carried along read offsets of the whole text.
            let decorate: Option<&super::edit::Decorate<'_>> =
                (!carried.is_empty()).then_some(&decorate);
            edits = self.in_steps(&changes, decorate)?;
        }
        Ok(Planned {
            fix: Fix::new(remedy.applicability, remedy.description.clone(), edits),
            changes,
        })
    }
}

impl Editor<'_> {
    /// `changes` with no empty mapping left behind that the user did not write: when
    /// the keys a remedy removes are all a mapping has (`lifecycle`, `annotations`, the
    /// YAML in `proxy.istio.io/config`) and it puts nothing else there, the mapping is
    /// removed instead, and so on up the path, up to a sequence item or the document.
    fn without_leftovers(&self, changes: &[Change]) -> Vec<Change> {
        let mut changes = changes.to_vec();
        loop {
            let mut grown = false;
            for index in 0..changes.len() {
                let Change::Remove(path) = &changes[index] else {
                    continue;
                };
                let Some(parent) = emptied_parent(path) else {
                    continue;
                };
                let within = |other: &JsonPath| other.segments().starts_with(parent.segments());
                let removed: Vec<usize> = changes
                    .iter()
                    .enumerate()
                    .filter(|(_, change)| match change {
                        Change::Remove(other) => emptied_parent(other).is_some_and(|p| p == parent),
                        _ => false,
                    })
                    .map(|(at, _)| at)
                    .collect();
                let adds = changes.iter().any(|change| match change {
                    Change::Set(other, _) => within(other),
                    Change::Move { to, .. } => within(to),
                    Change::Remove(_) => false,
                });
                if adds || self.keys_at(&parent) != Some(removed.len()) {
                    continue;
                }
                let whole = match parent.segments().split_last() {
                    Some((Segment::Embedded, outer)) => JsonPath::from_segments(outer),
                    _ => parent.clone(),
                };
                for at in removed.into_iter().rev() {
                    changes.remove(at);
                }
                changes.insert(index.min(changes.len()), Change::Remove(whole));
                grown = true;
                break;
            }
            if !grown {
                return changes;
            }
        }
    }

    /// How many keys the mapping at `path` has (through an embedded step, in the
    /// document the string holds); `None` when it is not a mapping.
    fn keys_at(&self, path: &JsonPath) -> Option<usize> {
        let segments = path.segments();
        match segments.iter().position(|s| *s == Segment::Embedded) {
            Some(at) => {
                let outer = JsonPath::from_segments(&segments[..at]);
                let inner = JsonPath::from_segments(&segments[at + 1..]);
                let mut count = None;
                let _ = self.edit_embedded(&outer, |editor| {
                    count = editor.keys_at(&inner);
                    Ok(Vec::new())
                });
                count
            }
            None => self.mapping_len(path),
        }
    }
}

/// The keys a remedy moves: a key removed (`from`, as the rule wrote it) and the same
/// key set in another mapping (`to`), with a single value, as ML404 moves an
/// annotation to a label.
fn moved_keys(changes: &[Change], asked: &[Change]) -> Vec<(JsonPath, JsonPath)> {
    let last_key = |path: &JsonPath| match path.segments().last() {
        Some(Segment::Key(key)) => Some(key.clone()),
        _ => None,
    };
    let mut moved = Vec::new();
    for change in asked {
        let Change::Remove(from) = change else {
            continue;
        };
        if from.segments().contains(&Segment::Embedded) {
            continue;
        }
        let target = changes.iter().find_map(|other| match other {
            Change::Set(to, value)
                if !value.is_object() && !value.is_array() && last_key(to) == last_key(from) =>
            {
                Some(to.clone())
            }
            _ => None,
        });
        if let Some(to) = target {
            moved.push((from.clone(), to));
        }
    }
    moved
}

impl Editor<'_> {
    /// The keys `changes` move (see [`moved_keys`]) whose comments move with them: the
    /// removal must come first, or be widened to the mapping that held the key, so
    /// that the comments it leaves are taken out where they were.
    fn carried(
        &self,
        changes: &[Change],
        asked: &[Change],
    ) -> Vec<(JsonPath, JsonPath, KeyComments)> {
        moved_keys(changes, asked)
            .into_iter()
            .filter(|(from, _)| {
                let widened = !changes.contains(&Change::Remove(from.clone()));
                widened || changes.first() == Some(&Change::Remove(from.clone()))
            })
            .filter_map(|(from, to)| {
                let comments = self.key_comments(&from)?;
                Some((from, to, comments))
            })
            .collect()
    }
}

/// Puts `comments` on the line `step` inserts for the key at `to`: the comment lines
/// above it, at its indentation, and the comment after its value. A step that
/// inserts no line of its own for the key (a flow mapping) is left as it is.
fn insert_comments(to: &JsonPath, comments: &KeyComments, step: &mut [Edit], newline: &str) {
    let Some(Segment::Key(key)) = to.segments().last() else {
        return;
    };
    let written = format!("{}:", render::key(key, render::Context::Block));
    let Some(insert) = step.iter_mut().find(|edit| {
        edit.range.is_empty()
            && edit
                .replacement
                .lines()
                .any(|line| line.trim_start().starts_with(&written))
    }) else {
        return;
    };
    let mut out = String::with_capacity(insert.replacement.len());
    for piece in insert.replacement.split_inclusive('\n') {
        let line = piece.trim_end_matches(['\n', '\r']);
        let ending = &piece[line.len()..];
        if !line.trim_start().starts_with(&written) {
            out.push_str(piece);
            continue;
        }
        let indent = &line[..line.len() - line.trim_start().len()];
        for comment in &comments.leading {
            out.push_str(&format!("{indent}{comment}{newline}"));
        }
        out.push_str(line);
        if let Some(trailing) = &comments.trailing {
            out.push_str(trailing);
        }
        out.push_str(ending);
    }
    insert.replacement = out;
}

/// Widens the deletion of a moved key's line to the comment lines above it, which
/// move with it.
fn take_leading_comments(comments: &KeyComments, step: &mut [Edit]) {
    if let Some(removal) = step
        .iter_mut()
        .find(|edit| edit.replacement.is_empty() && edit.range.start == comments.key_line)
    {
        removal.range = comments.leading_start..removal.range.end;
    }
}

/// The mapping a key removal at `path` may empty: its parent, when that is a mapping's
/// value or an embedded document (not a sequence item, not the document itself).
fn emptied_parent(path: &JsonPath) -> Option<JsonPath> {
    let segments = path.segments();
    let (Segment::Key(_), parent) = segments.split_last()? else {
        return None;
    };
    match parent.last()? {
        Segment::Key(_) | Segment::Embedded => Some(JsonPath::from_segments(parent)),
        Segment::Index(_) | Segment::Line(_) => None,
    }
}

/// `Set(a.b⟨embedded⟩.c.d, v)` on a document without `a.b`: `a.b` set to the YAML text
/// `c:\n  d: v\n`. Other changes are returned as they are.
fn new_embedded(path: &JsonPath, value: &serde_json::Value) -> Change {
    let segments = path.segments();
    let Some(at) = segments
        .iter()
        .position(|segment| *segment == Segment::Embedded)
    else {
        return Change::Set(path.clone(), value.clone());
    };
    let mut inner = value.clone();
    for segment in segments[at + 1..].iter().rev() {
        let Segment::Key(key) = segment else {
            return Change::Set(path.clone(), value.clone());
        };
        inner = serde_json::Value::Object([(key.clone(), inner)].into_iter().collect());
    }
    let serde_json::Value::Object(entries) = &inner else {
        return Change::Set(path.clone(), value.clone());
    };
    let text = render::block_document(entries);
    Change::Set(
        JsonPath::from_segments(&segments[..at]),
        serde_json::Value::String(text),
    )
}
