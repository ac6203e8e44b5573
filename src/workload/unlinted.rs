//! Documents of a kind the linter does not read that hold a pod all the same: each is
//! named in a note, with the `workloadKinds` entry that makes the linter read it, so a
//! custom resource is never passed over in silence.

use super::kinds::group_of;
use crate::load::path::Segment;
use crate::load::{Document, EntryPart, InputError, JsonPath, Node, Value};

/// A note for an object of an unknown kind that holds a pod: a `containers` list of
/// objects with an `image`, at any depth (the shallowest, first in document order).
pub fn note(
    document: &Document,
    node: &Node,
    object: &JsonPath,
    api_version: &str,
    kind: &str,
) -> Option<InputError> {
    let containers = find_containers(node, JsonPath::root())?;
    let at = object.join(&containers);
    let located = document.root.locate(&at, EntryPart::Key);
    let name = node
        .at(&JsonPath::parse("metadata.name"))
        .and_then(Node::as_str)
        .unwrap_or("<unnamed>");
    let group = group_of(api_version);
    let declare = match declaration(&containers) {
        _ if !group.contains('.') => String::new(),
        Some((field, path)) => format!(
            "; to lint it, declare its kind in .mesh-lifecycle.yaml:\n\n    workloadKinds:\n    - apiVersion: {api_version}\n      kind: {kind}\n      {field}: {path}\n      runsToCompletion: false   # true if its pods run to completion, as a Job's do\n"
        ),
        None => format!(
            "; its pod is inside a list (`{containers}`), which `workloadKinds` cannot name"
        ),
    };
    Some(InputError {
        file: document.source.file.clone(),
        pos: Some(located.span.start),
        message: format!(
            "{kind} {name} ({api_version}) holds containers at `{at}` but is of a kind the linter does not read: not linted{declare}"
        ),
        related: None,
        source: Some(document.source.clone()),
    })
}

/// The `podTemplate` or `podSpec` entry that names the pod whose `containers` list is
/// at `containers`; `None` when a list index lies on the way.
fn declaration(containers: &JsonPath) -> Option<(&'static str, String)> {
    let keys: Vec<&str> = containers
        .segments()
        .iter()
        .map(|segment| match segment {
            Segment::Key(key) => Some(key.as_str()),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let spec = &keys[..keys.len() - 1];
    match spec {
        [] => None,
        // `…template.spec.containers`: a PodTemplateSpec.
        [template @ .., "spec"] if !template.is_empty() => {
            Some(("podTemplate", template.join(".")))
        }
        _ => Some(("podSpec", spec.join("."))),
    }
}

/// The path of the first `containers` list whose items are mappings with an `image`,
/// breadth first so that the shallowest wins.
fn find_containers(root: &Node, at: JsonPath) -> Option<JsonPath> {
    let mut level = vec![(root, at)];
    while !level.is_empty() {
        let mut next = Vec::new();
        for (node, path) in level {
            match &node.value {
                Value::Map(entries) => {
                    for entry in entries {
                        let child = path.key(&entry.key);
                        if entry.key == "containers" && is_container_list(&entry.value) {
                            return Some(child);
                        }
                        if entry.key != "metadata" {
                            next.push((&entry.value, child));
                        }
                    }
                }
                Value::Seq(items) => {
                    next.extend(
                        items
                            .iter()
                            .enumerate()
                            .map(|(index, item)| (item, path.index(index))),
                    );
                }
                _ => {}
            }
        }
        level = next;
    }
    None
}

fn is_container_list(node: &Node) -> bool {
    match &node.value {
        Value::Seq(items) if !items.is_empty() => items.iter().all(|item| {
            matches!(item.value, Value::Map(_))
                && item
                    .get("image")
                    .is_some_and(|image| image.as_str().is_some())
        }),
        _ => false,
    }
}
