//! A remedy made concrete on one document: [`Editor::plan`] turns a rule's
//! [`Remedy`], changes to the decoded object, into the edits that make them in the
//! document's text.

use super::apply::touch;
use super::edit::{EditError, Editor};
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
        let changes: Vec<Change> = remedy
            .changes
            .iter()
            .map(|change| match change {
                Change::Set(path, value) if !self.has(path) => new_embedded(path, value),
                other => other.clone(),
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
        let mut edits: Vec<Edit> = Vec::new();
        if independent {
            for change in &changes {
                let step = self.change(change)?;
                independent &= !step
                    .iter()
                    .any(|edit| edits.iter().any(|other| touch(&edit.range, &other.range)));
                edits.extend(step);
            }
        }
        if !independent {
            edits = self.in_steps(&changes)?;
        }
        Ok(Planned {
            fix: Fix::new(remedy.applicability, remedy.description.clone(), edits),
            changes,
        })
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
