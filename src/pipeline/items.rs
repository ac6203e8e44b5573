//! A large `List` through the stages item by item: `kubectl get -A -o yaml` of a whole
//! cluster costs a few items' trees at a time, not the cluster's.
//!
//! The reader hands a `List` on as runs of its items ([`Work::Items`]), each about a
//! batch's bytes, which the workers take as they take documents, and whose reports
//! reach the sink in input order. A run's items are each parsed on their own, read by
//! the stages, their findings located and their fixes built, then dropped
//! ([`ListReader::with_item`]); the fixes of a run are checked on their items, as those
//! of a `List` read whole are. So at most a few runs per worker are alive at once: the
//! memory a `List` costs is its text and a few items, whatever its length.
//!
//! A fix's indentation is the document's, read from the first entries that decide it
//! ([`fix::Editor::layout_decided`]): the items that hold them are kept in every
//! document lent for good. A YAML `List` whose first items do not decide it, one that
//! `lint --fix` writes back, and one rendered by a tool are read whole, as is a `List`
//! smaller than [`RunOptions::lists_by_item_from`].

use std::ops::Range;
use std::sync::{Arc, OnceLock};

use super::analyse::{Piece, Stages, analyse_object};
use super::fix::Analysed;
use super::fix::compare::Graded;
use super::fix::rounds;
use super::located::DocumentReport;
use super::options::{FixMode, RunOptions};
use crate::fix;
use crate::load::inputs::Unit;
use crate::load::items::ListReader;
use crate::load::split::Syntax;
use crate::load::{InputError, Pos};
use crate::settings::Settings;

/// A run of items holds about this many bytes: as many as a batch of documents.
const RUN_BYTES: usize = 32 * 1024;

/// A run holds at most this many items, however small.
const RUN_ITEMS: usize = 512;

/// The first items of a YAML `List` that may decide its layout; one whose first items
/// do not is read whole.
const LAYOUT_ITEMS: usize = 64;

/// One piece of work for a worker: a unit of an input, or a run of a `List`'s items.
pub(super) enum Work {
    /// A document, or pieces of an input, read whole.
    Unit(Unit),
    /// The items `items` of a `List` read item by item, with what was found wrong in
    /// the `List` before (its mesh configuration), reported with its first run.
    Items {
        list: Arc<ListReader>,
        items: Range<usize>,
        errors: Vec<InputError>,
    },
}

impl Work {
    /// The bytes of text the work reads.
    pub(super) fn bytes(&self) -> usize {
        match self {
            Work::Unit(unit) => unit.bytes(),
            Work::Items { list, items, .. } => run_bytes(list, items),
        }
    }

    /// The file and first line of the work, for an error about all of it.
    pub(super) fn whereabouts(&self) -> (Arc<str>, Option<Pos>) {
        match self {
            Work::Unit(unit) => unit.whereabouts(),
            Work::Items { list, items, .. } => {
                let source = list.source();
                let start = list.items().range(items.start).start;
                (source.file.clone(), Some(source.pos(start)))
            }
        }
    }
}

/// The bytes of the items `items` of `list`.
fn run_bytes(list: &ListReader, items: &Range<usize>) -> usize {
    if items.is_empty() {
        return 0;
    }
    let ranges = list.items();
    ranges.range(items.end - 1).end - ranges.range(items.start).start
}

/// Hands `unit` to `each` as work: a `List` to read item by item as runs of its
/// items, anything else as it is.
pub(super) fn split(unit: Unit, options: &RunOptions, mut each: impl FnMut(Work)) {
    let Some(list) = reader(&unit, options) else {
        each(Work::Unit(unit));
        return;
    };
    let mut errors = match unit {
        Unit::Text { errors, .. } => errors,
        _ => Vec::new(),
    };
    let list = Arc::new(list);
    let mut from = 0;
    let ranges = list.items();
    for item in 0..list.len() {
        let last = item + 1 == list.len();
        let bytes = ranges.range(item).end - ranges.range(from).start;
        if last || bytes >= RUN_BYTES || item + 1 - from >= RUN_ITEMS {
            each(Work::Items {
                list: Arc::clone(&list),
                items: from..item + 1,
                errors: std::mem::take(&mut errors),
            });
            from = item + 1;
        }
    }
}

/// The reader of `unit` item by item, when it is a `List` the options read so.
fn reader(unit: &Unit, options: &RunOptions) -> Option<ListReader> {
    if matches!(options.fixes, FixMode::Apply(_)) {
        return None;
    }
    let Unit::Text {
        file,
        index,
        first_line,
        text,
        framing,
        count,
        rendered: None,
        ..
    } = unit
    else {
        return None;
    };
    if text.len() < options.lists_by_item_from {
        return None;
    }
    let mut list = ListReader::of(
        file,
        *first_line,
        text.clone(),
        framing,
        (*index, *count),
        &options.limits,
    )?;
    // Every node of a JSON `List` is in flow style, which decides no layout.
    if framing.syntax == Syntax::Yaml {
        keep_layout(&mut list)?;
    }
    Some(list)
}

/// Keeps the first items of `list` until they decide its layout; `None` when the
/// first [`LAYOUT_ITEMS`] do not, or one of them does not parse.
fn keep_layout(list: &mut ListReader) -> Option<()> {
    for item in 0..list.len().min(LAYOUT_ITEMS) {
        list.keep(item).ok()?;
        let document = list.document();
        let decided = fix::Editor::of_document(&document.source, &document.root).layout_decided();
        list.give_back(document);
        if decided {
            return Some(());
        }
    }
    None
}

/// Runs every stage over the items `items` of `list`, one item's tree alive at a
/// time, then checks their fixes as `options.fixes` says: the report of those items,
/// with `errors` first.
pub(super) fn process_items(
    list: &ListReader,
    items: Range<usize>,
    errors: Vec<InputError>,
    settings: &Settings,
    options: &RunOptions,
) -> DocumentReport {
    // The runs are spread over the workers already: one thread reads each.
    let options = &RunOptions {
        threads: 1,
        ..options.clone()
    };
    let mut report = DocumentReport {
        errors,
        ..DocumentReport::default()
    };
    let mut graded: Vec<Graded> = Vec::new();
    let mut document = list.document();
    for item in items {
        let read = list.with_item(&mut document, item, |document| {
            let editor = OnceLock::new();
            analyse_object(
                document,
                Some(item),
                settings,
                options,
                true,
                &editor,
                &mut report,
                &mut graded,
            );
        });
        if let Err(error) = read {
            report.errors.push(error);
        }
    }
    list.give_back(document);
    let source = list.source();
    let mut state = Analysed {
        text: source.text.clone(),
        first_index: list.index(),
        first_line: source.first_line,
        report,
        graded,
        decoded: None,
    };
    if options.fixes == FixMode::Verify {
        let piece = Piece {
            file: source.file.clone(),
            first_index: list.index(),
            first_line: source.first_line,
            framing: list.framing().clone(),
        };
        let stages = Stages {
            piece: &piece,
            settings,
            options,
        };
        rounds::verify_in_items(&mut state, &stages, Some(list.items()));
    }
    state.report
}
