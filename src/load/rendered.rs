//! What a rendered input knows about where its documents came from: the directory
//! `kubectl kustomize` or `helm template` rendered, each resource's source file (from
//! kustomize's origin annotations), the patches that may have changed it, and a way to
//! point a finding at the source file's node rather than at the rendered stream.
//!
//! A finding is moved into a source file only where that file says the same thing the
//! rendered document does: the node it points at exists there, with the same value, and
//! so does every other node it points at. A value that a patch, a generator or kustomize
//! itself changed on the way stays at its place in the rendered stream, which names the
//! source file instead.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::path::Segment;
use super::{Document, EntryPart, JsonPath, Node, Pos, SourceText, Value};

/// The tool that rendered an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Renderer {
    /// `kubectl kustomize DIR`.
    Kustomize,
    /// `helm template NAME DIR`.
    Helm,
}

/// A resource of the rendered stream, as kustomize's origin annotation names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resource {
    /// Its kind.
    pub kind: String,
    /// Its namespace, as rendered.
    pub namespace: Option<String>,
    /// Its name, as rendered.
    pub name: String,
    /// The file it was read from (relative to the working directory when it is below
    /// it), when kustomize says.
    pub origin: Option<PathBuf>,
}

/// A patch file a kustomization applies: a strategic-merge patch, an object that names
/// what it changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Patch {
    /// The patch file.
    pub file: PathBuf,
    /// The kind it targets.
    pub kind: Option<String>,
    /// The name it targets, before any prefix or suffix kustomize adds.
    pub name: Option<String>,
}

/// Where a rendered input's documents came from.
#[derive(Debug)]
pub struct Rendering {
    /// What rendered it.
    pub renderer: Renderer,
    /// The directory rendered, as the user named it or the search found it.
    pub dir: PathBuf,
    /// For Helm, the chart's name, which heads its templates' paths
    /// (`# Source: shop/templates/deployment.yaml`).
    pub chart: Option<String>,
    /// Each resource's source file.
    pub resources: Vec<Resource>,
    /// The patch files of the kustomization and its bases.
    pub patches: Vec<Patch>,
    /// Source files, parsed when a finding first needs one.
    parsed: Mutex<HashMap<PathBuf, Option<Arc<Vec<Document>>>>>,
}

// Inputs are compared and sorted: a rendering is one of its directory.
impl PartialEq for Rendering {
    fn eq(&self, other: &Self) -> bool {
        self.dir == other.dir && self.renderer == other.renderer
    }
}

impl Eq for Rendering {}

impl PartialOrd for Rendering {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Rendering {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.dir.cmp(&other.dir)
    }
}

/// A finding's places moved into a source file.
#[derive(Clone, Debug)]
pub struct Moved {
    /// The file's text, for excerpts.
    pub source: SourceText,
    /// Its index among the file's documents.
    pub document: usize,
    /// Where each place (the primary first) starts and ends in it; `None` for a place
    /// the file does not hold.
    pub places: Vec<Option<(Pos, Pos)>>,
}

impl Rendering {
    /// A rendering of `dir` by `renderer`.
    pub fn new(
        renderer: Renderer,
        dir: PathBuf,
        chart: Option<String>,
        resources: Vec<Resource>,
        patches: Vec<Patch>,
    ) -> Rendering {
        Rendering {
            renderer,
            dir,
            chart,
            resources,
            patches,
            parsed: Mutex::default(),
        }
    }

    fn resource(&self, kind: &str, namespace: Option<&str>, name: &str) -> Option<&Resource> {
        self.resources
            .iter()
            .find(|r| r.kind == kind && r.name == name && (r.namespace.as_deref() == namespace))
    }

    /// Where a document came from, in words for reports: its source file and the patch
    /// files that may have changed it (`deploy/base/web.yaml, patched by
    /// deploy/prod/inject.yaml`); for Helm, the template (`# Source:`) as a path of the
    /// chart directory.
    pub fn origin(
        &self,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
        template: Option<&str>,
    ) -> Option<String> {
        if self.renderer == Renderer::Helm {
            let template = template?;
            let within = self
                .chart
                .as_deref()
                .and_then(|chart| template.strip_prefix(chart))
                .and_then(|rest| rest.strip_prefix('/'));
            return Some(match within {
                Some(rest) => self.dir.join(rest).display().to_string(),
                None => template.to_owned(),
            });
        }
        let resource = self.resource(kind, namespace, name)?;
        let origin = resource.origin.as_ref()?;
        let patches: Vec<String> = self
            .patches_of(resource)
            .map(|patch| patch.file.display().to_string())
            .collect();
        Some(if patches.is_empty() {
            origin.display().to_string()
        } else {
            format!("{}, patched by {}", origin.display(), patches.join(", "))
        })
    }

    /// The patches that target `resource`, by kind and by the name in its source file.
    fn patches_of<'a>(&'a self, resource: &'a Resource) -> impl Iterator<Item = &'a Patch> + 'a {
        self.patches.iter().filter(move |patch| {
            patch
                .kind
                .as_deref()
                .is_none_or(|kind| kind == resource.kind)
                && patch
                    .name
                    .as_deref()
                    .is_none_or(|name| resource.name.contains(name))
        })
    }

    /// The documents of `file`, parsed once.
    fn documents(&self, file: &Path) -> Option<Arc<Vec<Document>>> {
        let mut parsed = self.parsed.lock().ok()?;
        parsed
            .entry(file.to_path_buf())
            .or_insert_with(|| super::parse_file(file).map(Arc::new))
            .clone()
    }

    /// `paths` of the rendered `document` (the primary first) as places in one source
    /// file that says the same at each of them: a patch of the resource, the last
    /// applied first, else its source file. A patch that holds the primary node is
    /// where the finding belongs even when it holds none of the others (the patch that
    /// adds injection, say); a source file must hold them all. `None` when no file does.
    pub fn relocate(
        &self,
        document: &Document,
        resource: (&str, Option<&str>, &str),
        paths: &[(&JsonPath, EntryPart)],
    ) -> Option<Moved> {
        if self.renderer != Renderer::Kustomize {
            return None;
        }
        let (kind, namespace, name) = resource;
        let resource = self.resource(kind, namespace, name)?;
        let mut files: Vec<(&Path, bool)> = self
            .patches_of(resource)
            .map(|patch| (patch.file.as_path(), true))
            .collect();
        files.reverse();
        files.extend(resource.origin.as_deref().map(|file| (file, false)));
        for (file, patch) in files {
            let Some(documents) = self.documents(file) else {
                continue;
            };
            for source in documents.iter().filter(|d| same_object(d, &document.root)) {
                let places: Vec<Option<(Pos, Pos)>> = paths
                    .iter()
                    .map(|(path, part)| {
                        let mapped = same_node(&document.root, &source.root, path)?;
                        let found = source.locate(&mapped, *part);
                        Some((found.span.start, found.span.end))
                    })
                    .collect();
                let primary = places.first().is_some_and(Option::is_some);
                if primary && (patch || places.iter().all(Option::is_some)) {
                    return Some(Moved {
                        source: source.source.clone(),
                        document: source.index,
                        places,
                    });
                }
            }
        }
        None
    }
}

/// Whether a source document is of the same kind as the rendered object (its name may
/// carry a prefix or suffix the kustomization adds).
fn same_object(source: &Document, rendered: &Node) -> bool {
    let kind = |node: &Node| node.get("kind").and_then(Node::as_str).map(str::to_owned);
    let name = |node: &Node| {
        node.get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Node::as_str)
            .map(str::to_owned)
    };
    kind(&source.root) == kind(rendered)
        && match (name(&source.root), name(rendered)) {
            (Some(source), Some(rendered)) => rendered.contains(&source),
            _ => false,
        }
}

/// The path in `source` of the node at `path` in `rendered`, when `source` holds it
/// with the same value: list items are matched by their `name` where they have one, as
/// kustomize merges them. A path to a field left unset (its deepest ancestor stands for
/// it) maps to the same ancestor.
fn same_node(rendered: &Node, source: &Node, path: &JsonPath) -> Option<JsonPath> {
    let mut mapped = Vec::new();
    let (mut r, mut s) = (rendered, source);
    let segments = path.segments();
    for (at, segment) in segments.iter().enumerate() {
        let next = match (segment, &r.value, &s.value) {
            (Segment::Key(key), Value::Map(_), Value::Map(_)) => match (r.get(key), s.get(key)) {
                (Some(rn), Some(sn)) => Some((rn, sn, segment.clone())),
                // Unset in the rendered document too: the ancestor stands for it.
                (None, _) => return Some(JsonPath::from_segments(&mapped)),
                (Some(_), None) => return None,
            },
            (Segment::Index(index), Value::Seq(items), Value::Seq(theirs)) => {
                let item = items.get(*index)?;
                let named =
                    |node: &Node| node.get("name").and_then(Node::as_str).map(str::to_owned);
                let found = match named(item) {
                    Some(name) => theirs
                        .iter()
                        .position(|other| named(other).as_deref() == Some(name.as_str())),
                    None => (items.len() == theirs.len()).then_some(*index),
                }?;
                Some((item, &theirs[found], Segment::Index(found)))
            }
            // Inside a string value (an embedded document, a line of a script): the
            // strings must be equal, and positions inside them then map alike.
            (Segment::Embedded | Segment::Line(_), _, _) => {
                return (r.value == s.value).then(|| {
                    mapped.extend(segments[at..].iter().cloned());
                    JsonPath::from_segments(&mapped)
                });
            }
            _ => return None,
        };
        let (rn, sn, step) = next?;
        mapped.push(step);
        r = rn;
        s = sn;
    }
    equal(r, s).then(|| JsonPath::from_segments(&mapped))
}

/// Whether two nodes hold the same value, positions aside.
fn equal(a: &Node, b: &Node) -> bool {
    a.to_json() == b.to_json()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Document {
        let name: Arc<str> = Arc::from("x.yaml");
        let chunk = super::super::split::split_all(text.as_bytes(), usize::MAX)
            .into_iter()
            .flatten()
            .next()
            .unwrap();
        super::super::parse_chunk(&name, chunk, 0, &super::super::Limits::default())
            .unwrap()
            .remove(0)
    }

    #[test]
    fn a_node_maps_to_the_same_value_in_a_source_file_matching_list_items_by_name() {
        let rendered = parse(
            "kind: Deployment\nmetadata: {name: prod-web}\nspec:\n  template:\n    spec:\n      containers:\n      - {name: proxy, image: p}\n      - name: web\n        image: w:2\n",
        );
        let patch = parse(
            "kind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: w:2\n",
        );
        let path = JsonPath::parse("spec.template.spec.containers")
            .index(1)
            .key("image");
        let mapped = same_node(&rendered.root, &patch.root, &path).unwrap();
        assert_eq!(mapped.to_string(), "spec.template.spec.containers[0].image");
        assert_eq!(patch.locate(&mapped, EntryPart::Value).span.start.line, 8);
        // A value the file does not hold is not its doing.
        let base = parse(
            "kind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: w:1\n",
        );
        assert_eq!(same_node(&rendered.root, &base.root, &path), None);
        assert!(same_object(&base, &rendered.root));
    }
}
