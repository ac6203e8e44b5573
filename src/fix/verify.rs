//! Checks a fix before it is written: the fixed text is read again with the loader
//! the linter uses, and every document must decode to the original object with exactly
//! the intended change. Decoded values are compared, not text, so a fix that shifts a
//! key into the wrong mapping, turns a mapping into null or touches an anchor used
//! elsewhere is caught even when the text looks right.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use serde_json::Value as Json;

use super::Change;
use crate::load::path::{JsonPath, Segment};
use crate::load::{self, Limits, split};

/// Why a fix is dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    /// One sentence for the user.
    pub reason: String,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for Rejection {}

fn reject(reason: impl Into<String>) -> Rejection {
    Rejection {
        reason: reason.into(),
    }
}

/// Checks that `fixed` reads as `original` with `changes` made to its document
/// `document` (0-based index in the stream, as findings count documents) and every other
/// document unchanged. A path through an [`Segment::Embedded`] step compares the value
/// the string holds, so the string's own formatting may differ.
pub fn verify(
    original: &str,
    fixed: &str,
    document: usize,
    changes: &[Change],
) -> Result<(), Rejection> {
    verify_all(original, fixed, &[(document, changes)])
}

/// [`verify`] for the fixes of a round: `changes` holds, per document (0-based index
/// in the stream), the changes made to it; a document may appear more than
/// once, and a change listed twice (two findings with the same remedy) is made once.
pub fn verify_all(
    original: &str,
    fixed: &str,
    changes: &[(usize, &[Change])],
) -> Result<(), Rejection> {
    verify_decoded(
        &decode_stream(original),
        decode_stream(fixed),
        None,
        changes,
    )
}

/// A text's documents decoded as kubectl decodes them, each with its index in the
/// text ([`decode_stream`]).
pub type Decoded = Vec<(usize, Json)>;

/// [`verify_all`] on texts already decoded: `before`, the original's documents, and
/// `after`, the fixed text's. With `item`, the fixes were made within that item of a
/// `List` and both texts hold that item alone among the `List`'s items
/// ([`crate::load::list::Items::alone`]): the changes' paths, and what a rejection
/// names, are those of the whole `List`.
pub fn verify_decoded(
    before: &Result<Decoded, String>,
    after: Result<Decoded, String>,
    item: Option<usize>,
    changes: &[(usize, &[Change])],
) -> Result<(), Rejection> {
    let mut before = before
        .clone()
        .map_err(|error| reject(format!("the original text does not load: {error}")))?;
    let mut after =
        after.map_err(|error| reject(format!("the fixed text does not load: {error}")))?;
    if let Some(item) = item {
        // The item back at its index, behind nulls that stand for the items left out:
        // no change of this item reads them, and both sides hold the same.
        for (_, document) in before.iter_mut().chain(after.iter_mut()) {
            if let Some(Json::Array(items)) = document.get_mut("items")
                && items.len() == 1
            {
                items.splice(0..0, std::iter::repeat_n(Json::Null, item));
            }
        }
    }
    compare_all(before, after, changes)
}

/// Checks that the documents `after` are the documents `before` with `changes` made.
fn compare_all(
    before: Decoded,
    after: Decoded,
    changes: &[(usize, &[Change])],
) -> Result<(), Rejection> {
    if before.len() != after.len() {
        return Err(reject(format!(
            "the fixed text holds {} documents, the original {}",
            after.len(),
            before.len()
        )));
    }
    for ((index, mut expected), (after_index, mut actual)) in before.into_iter().zip(after) {
        if index != after_index {
            return Err(reject(format!(
                "document {} of the original is document {} of the fixed text",
                index + 1,
                after_index + 1
            )));
        }
        // The changes made so far, by the paths they touch: two findings with one
        // remedy bring the same change twice, made once.
        let mut made: HashMap<Vec<&JsonPath>, Vec<&Change>> = HashMap::new();
        for change in changes
            .iter()
            .filter(|(document, _)| *document == index)
            .flat_map(|(_, changes)| changes.iter())
        {
            let same_paths = made.entry(change.paths()).or_default();
            if same_paths.contains(&change) {
                continue;
            }
            same_paths.push(change);
            for path in change.paths() {
                decode_embedded(&mut expected, path.segments())?;
                decode_embedded(&mut actual, path.segments())?;
            }
            apply(&mut expected, change)?;
        }
        if expected != actual {
            let at = first_difference(&expected, &actual, &mut String::new())
                .unwrap_or_else(|| "the document".into());
            return Err(reject(format!(
                "document {} of the fixed text differs from the intended change at `{at}`",
                index + 1
            )));
        }
    }
    Ok(())
}

/// Every non-empty document of `text`, decoded as kubectl decodes it, with its index
/// in the stream as findings count it (an empty document between two `---` takes an
/// index and holds nothing).
pub fn decode_stream(text: &str) -> Result<Decoded, String> {
    let file: Arc<str> = Arc::from("-");
    let limits = Limits::default();
    let mut documents = Vec::new();
    for (index, chunk) in split::split_all(text.as_bytes(), limits.max_document_bytes)
        .into_iter()
        .enumerate()
    {
        let chunk = chunk.map_err(|error| load::chunk_error(&file, error).to_string())?;
        let parsed =
            load::parse_chunk(&file, chunk, index, &limits).map_err(|error| error.to_string())?;
        documents.extend(
            parsed
                .iter()
                .map(|document| (document.index, document.root.to_json())),
        );
    }
    Ok(documents)
}

/// Replaces each string met at an embedded step of `path` by the value it holds.
fn decode_embedded(value: &mut Json, segments: &[Segment]) -> Result<(), Rejection> {
    let Some((segment, rest)) = segments.split_first() else {
        return Ok(());
    };
    let next = match (segment, value) {
        (Segment::Embedded, value @ Json::String(_)) => {
            let Json::String(text) = &*value else {
                unreachable!()
            };
            let mut decoded = decode_stream(text)
                .map_err(|error| reject(format!("the embedded document does not load: {error}")))?;
            if decoded.len() != 1 {
                return Err(reject("the embedded text does not hold one document"));
            }
            *value = decoded.remove(0).1;
            value
        }
        (Segment::Embedded, _) => return Ok(()),
        (Segment::Key(key), Json::Object(map)) => match map.get_mut(key) {
            Some(next) => next,
            None => return Ok(()),
        },
        (Segment::Index(index), Json::Array(items)) => match items.get_mut(*index) {
            Some(next) => next,
            None => return Ok(()),
        },
        _ => return Ok(()),
    };
    decode_embedded(next, rest)
}

/// Makes `change` to `value`, whose embedded strings on the path are already decoded.
fn apply(value: &mut Json, change: &Change) -> Result<(), Rejection> {
    let (path, new) = match change {
        Change::Set(path, new) => (path, Some(new)),
        Change::Remove(path) => (path, None),
        Change::Move { from, to } => return move_item(value, from, to),
    };
    let segments: Vec<&Segment> = path
        .segments()
        .iter()
        .filter(|segment| **segment != Segment::Embedded)
        .collect();
    let Some((last, parents)) = segments.split_last() else {
        return match new {
            Some(new) => {
                *value = new.clone();
                Ok(())
            }
            None => Err(reject("the whole document cannot be removed")),
        };
    };
    let mut node = value;
    for segment in parents {
        node = match (segment, node) {
            (Segment::Key(key), Json::Object(map)) => map
                .entry(key.clone())
                .or_insert_with(|| Json::Object(Default::default())),
            (Segment::Key(key), node @ Json::Null) if new.is_some() => {
                *node = Json::Object(Default::default());
                let Json::Object(map) = node else {
                    unreachable!()
                };
                map.entry(key.clone())
                    .or_insert_with(|| Json::Object(Default::default()))
            }
            (Segment::Index(index), Json::Array(items)) => items
                .get_mut(*index)
                .ok_or_else(|| reject(format!("`{path}` is not in the document")))?,
            _ => return Err(reject(format!("`{path}` is not in the document"))),
        };
    }
    match (last, new, node) {
        (Segment::Key(key), Some(new), Json::Object(map)) => {
            map.insert(key.clone(), new.clone());
        }
        (Segment::Key(key), Some(new), node @ Json::Null) => {
            *node = Json::Object([(key.clone(), new.clone())].into_iter().collect());
        }
        (Segment::Key(key), None, Json::Object(map)) => {
            map.remove(key)
                .ok_or_else(|| reject(format!("`{path}` is not in the document")))?;
        }
        (Segment::Index(index), Some(new), Json::Array(items)) if *index < items.len() => {
            items[*index] = new.clone();
        }
        (Segment::Index(index), None, Json::Array(items)) if *index < items.len() => {
            items.remove(*index);
        }
        _ => return Err(reject(format!("`{path}` cannot be changed as intended"))),
    }
    Ok(())
}

/// [`Change::Move`] made to `value`.
fn move_item(value: &mut Json, from: &JsonPath, to: &JsonPath) -> Result<(), Rejection> {
    let missing = || reject(format!("`{from}` is not in the document"));
    let item = lookup(value, from).ok_or_else(missing)?.clone();
    apply(value, &Change::Remove(from.clone()))?;
    let Some((Segment::Index(index), parent)) = to.segments().split_last() else {
        return Err(reject(format!("`{to}` does not name a sequence item")));
    };
    let parent = JsonPath::from_segments(parent);
    if lookup(value, &parent).is_none() {
        apply(value, &Change::Set(parent.clone(), Json::Array(Vec::new())))?;
    }
    match lookup_mut(value, &parent) {
        Some(Json::Array(items)) if *index <= items.len() => {
            items.insert(*index, item);
            Ok(())
        }
        _ => Err(reject(format!("`{to}` cannot be changed as intended"))),
    }
}

fn lookup<'v>(value: &'v Json, path: &JsonPath) -> Option<&'v Json> {
    path.segments()
        .iter()
        .try_fold(value, |node, segment| match (segment, node) {
            (Segment::Key(key), Json::Object(map)) => map.get(key),
            (Segment::Index(index), Json::Array(items)) => items.get(*index),
            _ => None,
        })
}

fn lookup_mut<'v>(value: &'v mut Json, path: &JsonPath) -> Option<&'v mut Json> {
    path.segments()
        .iter()
        .try_fold(value, |node, segment| match (segment, node) {
            (Segment::Key(key), Json::Object(map)) => map.get_mut(key),
            (Segment::Index(index), Json::Array(items)) => items.get_mut(*index),
            _ => None,
        })
}

/// The dotted path of the first place where `a` and `b` differ.
fn first_difference(a: &Json, b: &Json, at: &mut String) -> Option<String> {
    match (a, b) {
        (Json::Object(x), Json::Object(y)) => {
            for key in x.keys().chain(y.keys()) {
                let len = at.len();
                if !at.is_empty() {
                    at.push('.');
                }
                at.push_str(key);
                let found = match (x.get(key), y.get(key)) {
                    (Some(x), Some(y)) => first_difference(x, y, at),
                    _ => Some(at.clone()),
                };
                if found.is_some() {
                    return found;
                }
                at.truncate(len);
            }
            None
        }
        (Json::Array(x), Json::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(index, (x, y))| {
                let len = at.len();
                at.push_str(&format!("[{index}]"));
                let found = first_difference(x, y, at);
                at.truncate(len);
                found
            })
        }
        _ => (a != b).then(|| at.clone()),
    }
}
