//! `kubectl kustomize`: a kustomization's rendered stream, and where each of its
//! resources came from.
//!
//! Kustomize says where a resource came from only when its kustomization asks for it
//! (`buildMetadata: [originAnnotations]`), and the user's files are not to be touched:
//! a temporary kustomization that holds the directory as its one resource asks instead.
//! The stream linted is the plain render, as `kubectl kustomize DIR` prints it, so that
//! its lines are the ones the user sees; the annotated render only names the files.
//! Which patches a kustomization applies to what is read from the kustomization files
//! themselves: kustomize's transformer annotations name the kustomization, not the
//! patch file.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{
    Bounds, Failure, display, kustomization_file, normalize, run, start_failure, tool_failure,
};
use crate::external::{Args, CommandLine};
use crate::load::rendered::{Patch, Renderer, Rendering, Resource};
use crate::load::{Document, Node, Value};

/// The annotation kustomize writes a resource's origin in.
const ORIGIN: &str = "config.kubernetes.io/origin";

/// `kubectl kustomize -- DIR`: the directory after `--`, and written `./DIR` when
/// relative, so that a directory named like a flag is a directory.
fn kustomize(dir: &Path) -> CommandLine {
    CommandLine::new(crate::cluster::kubectl::program())
        .args(&Args::new().word("kustomize").path(dir))
}

/// Renders the kustomization in `dir`.
pub fn render(dir: &Path, bounds: &Bounds) -> Result<(Vec<u8>, Rendering), Failure> {
    let line = kustomize(dir);
    let finished = match run(&line, bounds) {
        Ok(finished) => finished,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(Failure::Missing(format!(
                "a kustomization, not rendered: `{}` was not found (kubectl renders it; set $KUBECTL to another), so its files are linted as they are; --no-render does so without this note",
                line.program().to_string_lossy()
            )));
        }
        Err(error) => return Err(Failure::Failed(start_failure(&line, &error))),
    };
    if let Some(message) = tool_failure(&line, &finished, bounds) {
        return Err(Failure::Failed(message));
    }
    let root = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let resources = origins(&root, bounds).unwrap_or_default();
    let mut patches = Vec::new();
    collect_patches(&root, &mut patches, &mut HashSet::new());
    Ok((
        finished.stdout,
        Rendering::new(
            Renderer::Kustomize,
            dir.to_path_buf(),
            None,
            resources,
            patches,
        ),
    ))
}

/// Each resource of the kustomization in `root` and the file it came from, from a
/// render that asks for origin annotations; `None` when that render fails (a kubectl
/// whose kustomize predates them) or runs past its bounds.
fn origins(root: &Path, bounds: &Bounds) -> Option<Vec<Resource>> {
    let temporary = tempfile::Builder::new()
        .prefix("mesh-lifecycle-kustomize")
        .tempdir()
        .ok()?;
    let wrapper = temporary.path().canonicalize().ok()?;
    // Kustomize takes a resource directory by a relative path only.
    let relative = relative_path(&wrapper, root);
    let quoted = relative
        .to_string_lossy()
        .replace('\\', "\\\\")
        .replace('"', "\\\"");
    std::fs::write(
        wrapper.join("kustomization.yaml"),
        format!(
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- \"{quoted}\"\nbuildMetadata: [originAnnotations]\n"
        ),
    )
    .ok()?;
    let finished = run(&kustomize(&wrapper), bounds).ok()?;
    if !finished.success() {
        return None;
    }
    let mut resources = Vec::new();
    for (index, chunk) in crate::load::split::split_all(&finished.stdout[..], usize::MAX)
        .into_iter()
        .enumerate()
    {
        let Ok(chunk) = chunk else { continue };
        let name = std::sync::Arc::from("kustomize");
        let Ok(documents) =
            crate::load::parse_chunk(&name, chunk, index, &crate::load::Limits::default())
        else {
            continue;
        };
        resources.extend(documents.iter().filter_map(|d| resource(d, &wrapper)));
    }
    Some(resources)
}

/// The resource `document` is, with the file its origin annotation names (relative to
/// the kustomization `wrapper` that asked for it).
fn resource(document: &Document, wrapper: &Path) -> Option<Resource> {
    let root = &document.root;
    let metadata = root.get("metadata")?;
    let text = |node: Option<&Node>| node.and_then(Node::as_str).map(str::to_owned);
    let origin = metadata
        .get("annotations")
        .and_then(|annotations| annotations.get(ORIGIN))
        .and_then(Node::as_str)
        .and_then(|annotation| {
            // `path: ../base/web.yaml`, with `repo:` and `ref:` for a remote base,
            // whose files are not here to point at.
            let mut path = None;
            for line in annotation.lines() {
                if line.starts_with("repo:") {
                    return None;
                }
                if let Some(value) = line.strip_prefix("path:") {
                    path = Some(value.trim().trim_matches(['"', '\'']).to_owned());
                }
            }
            path
        })
        .map(|path| display(&normalize(&wrapper.join(path))));
    Some(Resource {
        kind: text(root.get("kind"))?,
        namespace: text(metadata.get("namespace")),
        name: text(metadata.get("name"))?,
        origin,
    })
}

/// The path from directory `from` to `to`, both absolute.
fn relative_path(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<_> = from.components().collect();
    let to: Vec<_> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut path = PathBuf::new();
    for _ in common..from.len() {
        path.push("..");
    }
    for component in &to[common..] {
        path.push(component);
    }
    path
}

/// The string items of `key` in a kustomization, or the `path` of its mapping items.
fn paths<'a>(kustomization: &'a Node, key: &str) -> Vec<(String, Option<&'a Node>)> {
    let Some(Node {
        value: Value::Seq(items),
        ..
    }) = kustomization.get(key)
    else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| match &item.value {
            Value::String(path) => Some((path.clone(), None)),
            Value::Map(_) => item
                .get("path")
                .and_then(Node::as_str)
                .map(|path| (path.to_owned(), item.get("target"))),
            _ => None,
        })
        .collect()
}

/// The strategic-merge patch files of the kustomization in `dir` and of the local
/// kustomizations it builds on, in the order kustomize applies them (a base's before
/// its overlay's).
fn collect_patches(dir: &Path, patches: &mut Vec<Patch>, seen: &mut HashSet<PathBuf>) {
    if !seen.insert(dir.to_path_buf()) {
        return;
    }
    let Some(file) = kustomization_file(dir) else {
        return;
    };
    let Some(documents) = crate::load::parse_file(&file) else {
        return;
    };
    let Some(kustomization) = documents.first().map(|d| &d.root) else {
        return;
    };
    for key in ["resources", "bases", "components"] {
        for (path, _) in paths(kustomization, key) {
            let base = normalize(&dir.join(&path));
            if base.is_dir() {
                collect_patches(&base, patches, seen);
            }
        }
    }
    for key in ["patchesStrategicMerge", "patches"] {
        for (path, target) in paths(kustomization, key) {
            let file = normalize(&dir.join(&path));
            if !file.is_file() {
                continue;
            }
            // The patch's own object names what it changes; a target narrows it.
            let object = crate::load::parse_file(&file)
                .and_then(|documents| documents.into_iter().next())
                .filter(|document| document.root.get("kind").is_some());
            let Some(object) = object else {
                // A JSON 6902 patch (a list of operations) holds no object to point at.
                continue;
            };
            let text = |node: Option<&Node>, key: &str| {
                node.and_then(|n| n.get(key))
                    .and_then(Node::as_str)
                    .map(str::to_owned)
            };
            patches.push(Patch {
                file: display(&file),
                kind: text(target, "kind").or_else(|| text(Some(&object.root), "kind")),
                name: text(target, "name").or_else(|| text(object.root.get("metadata"), "name")),
            });
        }
    }
}

/// The kustomization that applies `file` (canonical) as a patch: one in its directory or
/// a directory above it, within three levels.
pub fn applying_patch(file: &Path) -> Option<PathBuf> {
    for dir in file.ancestors().skip(1).take(4) {
        let Some(kustomization) = kustomization_file(dir) else {
            continue;
        };
        let documents = crate::load::parse_file(&kustomization)?;
        let root = &documents.first()?.root;
        let applies = ["patches", "patchesStrategicMerge", "patchesJson6902"]
            .iter()
            .flat_map(|key| paths(root, key))
            .any(|(path, _)| normalize(&dir.join(path)) == file);
        if applies {
            return Some(kustomization);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_path_climbs_to_the_common_directory() {
        assert_eq!(
            relative_path(Path::new("/tmp/x"), Path::new("/work/repo/k8s")),
            PathBuf::from("../../work/repo/k8s")
        );
        assert_eq!(
            relative_path(Path::new("/work/a"), Path::new("/work/a/b")),
            PathBuf::from("b")
        );
    }
}
