//! A large `List` read one item at a time, so that a run over `kubectl get -A -o yaml`
//! holds a few items' trees, not the whole cluster's.
//!
//! Each item is parsed on its own where the parser meets it in the document
//! ([`super::list::ListCut`]): its tree, and every position in it, is the one the whole
//! document's tree holds. A [`Document`] lent by [`ListReader::document`] is the
//! `List`'s own keys with a null in each item's place; [`ListReader::with_item`] puts
//! one item's tree there for as long as the stages read it, then drops it. What reads
//! an item reads the `List`'s own keys and that item only, as the stages do: the items
//! of a whole cluster are workloads read apart from one another.
//!
//! An item that does not parse on its own (an alias to an anchor in another item) is
//! taken from the whole document's tree, parsed once for all such items; an item that
//! does not parse in the whole document either is an error about that item, and the
//! others are still read.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::list::{Items, ListCut, items_mut};
use super::split::{Framing, Syntax};
use super::{Document, InputError, Limits, Node, SourceText, Value, json, parse};

/// The size from which a `List` is read item by item, unless a run says otherwise:
/// below it, the whole tree costs less than a few pages of memory.
pub const BY_ITEM_FROM: usize = 64 * 1024;

/// Item trees alive now, put in a document by [`ListReader::with_item`].
static ALIVE: AtomicUsize = AtomicUsize::new(0);

/// The most item trees alive at once since [`most_alive`] last answered.
static MOST_ALIVE: AtomicUsize = AtomicUsize::new(0);

/// The most item trees that were alive at once, in this process, since this was last
/// asked: what bounds the memory a `List` read item by item costs beside its text.
pub fn most_alive() -> usize {
    MOST_ALIVE.swap(ALIVE.load(Ordering::Relaxed), Ordering::Relaxed)
}

/// A `List` document read item by item.
#[derive(Debug)]
pub struct ListReader {
    cut: ListCut,
    source: SourceText,
    /// 0-based index of the document in its file.
    index: usize,
    /// How many documents its input holds, when the run knows it.
    count: Option<usize>,
    /// The Helm template the document came from.
    origin: Option<String>,
    /// How its text is read.
    framing: Framing,
    limits: Limits,
    /// Which items [`ListReader::keep`] put in every document for good.
    kept: Vec<bool>,
    /// Trees of the `List`'s own keys given back after use, lent again.
    roots: Mutex<Vec<Node>>,
    /// The whole document's tree, parsed the first time an item does not parse on its
    /// own; `Err` when the document does not parse whole either.
    whole: OnceLock<Result<Node, InputError>>,
}

impl ListReader {
    /// The reader of `text`, document `index` of `file` starting at `first_line` and
    /// read as `framing` says, when it is a `List` whose items can be read one at a
    /// time ([`ListCut::of`]); `None` otherwise.
    pub fn of(
        file: &Arc<str>,
        first_line: u32,
        text: Arc<str>,
        framing: &Framing,
        (index, count): (usize, Option<usize>),
        limits: &Limits,
    ) -> Option<ListReader> {
        let json = framing.syntax == Syntax::Json;
        let cut = ListCut::of(&text, first_line, framing.keeps_separator, json, limits)?;
        Some(ListReader {
            kept: vec![false; cut.items().len()],
            cut,
            origin: super::helm_origin(&text),
            source: SourceText::new(file.clone(), first_line, text),
            index,
            count,
            framing: framing.clone(),
            limits: *limits,
            roots: Mutex::default(),
            whole: OnceLock::new(),
        })
    }

    /// How many items the `List` holds.
    pub fn len(&self) -> usize {
        self.cut.items().len()
    }

    /// Whether it holds none (never: a cut `List` holds two at least).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where the items lie in the text.
    pub fn items(&self) -> &Items {
        self.cut.items()
    }

    /// The document's text.
    pub fn source(&self) -> &SourceText {
        &self.source
    }

    /// How the document's text is read.
    pub fn framing(&self) -> &Framing {
        &self.framing
    }

    /// 0-based index of the document in its file.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The document, its items null but for those kept: a tree of the `List`'s own
    /// keys that [`ListReader::give_back`] returns for the next use.
    pub fn document(&self) -> Document {
        let lent = self.roots.lock().ok().and_then(|mut roots| roots.pop());
        self.document_with(Some(lent.unwrap_or_else(|| self.cut.root().clone())))
    }

    /// The document with `root` as its tree (a null without one).
    fn document_with(&self, root: Option<Node>) -> Document {
        Document {
            index: self.index,
            count: self.count,
            source: self.source.clone(),
            root: root.unwrap_or(Node {
                span: Default::default(),
                value: Value::Null,
                style: Default::default(),
            }),
            origin: self.origin.clone(),
            rendered: None,
        }
    }

    /// Takes back a document [`ListReader::document`] lent.
    pub fn give_back(&self, document: Document) {
        if let Ok(mut roots) = self.roots.lock() {
            roots.push(document.root);
        }
    }

    /// Puts item `index`'s tree in every document lent from now on: an item whose
    /// entries decide the layout every item's fixes are written in.
    pub fn keep(&mut self, index: usize) -> Result<(), InputError> {
        let node = self.item(index)?;
        self.cut.keep(index, node);
        self.kept[index] = true;
        if let Ok(mut roots) = self.roots.lock() {
            roots.clear();
        }
        Ok(())
    }

    /// Item `index` as a document of its own, its tree the root: for what reads each
    /// object of a document apart from the others (the context pass), at the cost of
    /// one item.
    pub fn item_document(&self, index: usize) -> Result<Document, InputError> {
        Ok(Document {
            root: self.item(index)?,
            ..self.document_with(None)
        })
    }

    /// Runs `read` on `document` with item `index`'s tree in its place, then drops
    /// the tree; `Err` when the item cannot be parsed.
    pub fn with_item<T>(
        &self,
        document: &mut Document,
        index: usize,
        read: impl FnOnce(&Document) -> T,
    ) -> Result<T, InputError> {
        if self.kept[index] {
            return Ok(read(document));
        }
        let node = self.item(index)?;
        let alive = ALIVE.fetch_add(1, Ordering::Relaxed) + 1;
        MOST_ALIVE.fetch_max(alive, Ordering::Relaxed);
        let placeholder = std::mem::replace(
            slot(&mut document.root, index).expect("a lent document holds every item"),
            node,
        );
        let result = read(document);
        if let Some(slot) = slot(&mut document.root, index) {
            *slot = placeholder;
        }
        ALIVE.fetch_sub(1, Ordering::Relaxed);
        Ok(result)
    }

    /// Item `index`'s tree: parsed on its own, else taken from the whole document's.
    fn item(&self, index: usize) -> Result<Node, InputError> {
        let text = &self.source.text;
        let alone = match self.cut.parse(text, index) {
            Ok(node) => return Ok(node),
            Err(error) => error,
        };
        let whole = self.whole.get_or_init(|| self.parse_whole());
        match whole {
            Ok(root) => match root.get("items").map(|items| &items.value) {
                Some(Value::Seq(items)) if index < items.len() => Ok(items[index].clone()),
                _ => Err(self.error(alone)),
            },
            // The whole document's error when it lies in this item, else the item's.
            Err(error) => {
                let range = self.items().range(index);
                let within = error.pos.is_some_and(|pos| {
                    let at = self.source.offset(pos);
                    range.start <= at && at < range.end
                });
                Err(if within {
                    error.clone()
                } else {
                    self.error(alone)
                })
            }
        }
    }

    /// The whole document's tree, as a document that is not read item by item is.
    fn parse_whole(&self) -> Result<Node, InputError> {
        let text = &self.source.text;
        let first_line = self.source.first_line;
        let parsed = match self.framing.syntax {
            Syntax::Yaml => parse::parse_stream_chunk(
                text,
                first_line,
                self.framing.keeps_separator,
                &self.limits,
            ),
            Syntax::Json => json::parse_document(text, first_line, &self.limits),
        };
        match parsed {
            Ok(roots) => roots
                .into_iter()
                .find(|root| root.value != Value::Null)
                .ok_or_else(|| InputError::whole(self.source.file.clone(), "empty document")),
            Err(error) => Err(self.error(error)),
        }
    }

    /// A syntax error of the document, as an input error with its text.
    fn error(&self, error: parse::SyntaxError) -> InputError {
        InputError {
            file: self.source.file.clone(),
            pos: Some(error.pos),
            message: error.message,
            related: error.related,
            source: Some(self.source.clone()),
        }
    }
}

/// The place of item `index` in the tree of a `List`.
fn slot(root: &mut Node, index: usize) -> Option<&mut Node> {
    items_mut(root)?.get_mut(index)
}
