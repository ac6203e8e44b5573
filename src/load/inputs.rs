//! The inputs of a run, each readable as often as the run needs.
//!
//! A run reads them twice: a context pass parses the few documents that change how the
//! others are read (Namespaces, mesh configuration), then the main pass hands every
//! document out in input order. Regular files are opened again, but for one that is a
//! single large document (a `List`), which the context pass keeps; everything else was
//! read once when the inputs were taken ([`super::source`]); a document the context
//! pass parsed is kept for the main pass instead of being parsed twice. What a pass
//! kept goes to the next main pass only: a run that wrote the files reads them again
//! ([`Inputs::unparsed`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::items::{BY_ITEM_FROM, ListReader};
use super::rendered::Rendering;
use super::source::STDIN_NAME;
use super::split::Framing;
use super::{Document, Input, InputError, Limits, Piece, Pos, ReadLimits, Source, discover};

/// The inputs of a run.
pub struct Inputs {
    sources: Vec<Source>,
    limits: ReadLimits,
    /// Where the documents of rendered inputs came from, by input index.
    renderings: HashMap<usize, Arc<Rendering>>,
    /// How many pieces each file holds, by input index, counted when a pass read it
    /// whole (the context pass reads every file before the main pass).
    counts: Mutex<HashMap<usize, usize>>,
    /// Documents [`Inputs::parse_ahead`] already parsed, by input and piece index.
    parsed: Mutex<HashMap<(usize, usize), Parsed>>,
    /// Files the context pass found to be one large document (a `List` as `kubectl get
    /// -o yaml` or `-o json` prints it), by input index: later passes take its text
    /// rather than reading and cutting the file again. Only those are kept: the main
    /// pass holds such a document whole anyway, while a stream of many documents is
    /// held one document at a time.
    kept: Mutex<HashMap<usize, Piece>>,
    /// What the context pass found wrong in the `List`s it read item by item, by input
    /// and piece index, for the main pass to report with them.
    found: Mutex<HashMap<(usize, usize), Vec<InputError>>>,
}

/// A file of one document at least this large is kept by the context pass
/// ([`Inputs::kept`]); smaller ones cost less to read again than to hold.
const KEEP_FROM_BYTES: usize = 1 << 20;

/// The most text the context pass keeps for later passes, all files together.
const KEEP_AT_MOST: usize = 256 << 20;

/// Documents parsed ahead of the main pass, and what the context pass found wrong in
/// them, for the main pass to report with the document.
#[derive(Debug)]
pub struct Parsed {
    /// The documents of one piece.
    pub documents: Vec<Document>,
    /// What is wrong in them (their mesh configuration).
    pub errors: Vec<InputError>,
    /// How the piece's text was read, to read an edited version of it the same way.
    pub framing: Framing,
}

/// One piece of work for the main pass.
#[derive(Debug)]
pub enum Unit {
    /// A document's text, still to be parsed.
    Text {
        /// The input's name.
        file: Arc<str>,
        /// 0-based index of the piece in its input.
        index: usize,
        /// 1-based line of its first line.
        first_line: u32,
        /// The text.
        text: Arc<str>,
        /// How kubectl reads it.
        framing: Framing,
        /// How many documents the input holds, when known.
        count: Option<usize>,
        /// Where the input was rendered from, when it was.
        rendered: Option<Arc<Rendering>>,
        /// What the context pass found wrong in it (its mesh configuration), reported
        /// with it: a `List` that pass read item by item, whose trees it did not keep.
        errors: Vec<InputError>,
    },
    /// An input, or part of one, that could not be read.
    Failed(InputError),
    /// Documents the context pass already parsed.
    Parsed(Parsed),
}

impl Unit {
    /// The bytes of text the unit holds: what the stages will read of it.
    pub fn bytes(&self) -> usize {
        match self {
            Unit::Text { text, .. } => text.len(),
            Unit::Failed(_) => 0,
            Unit::Parsed(parsed) => parsed
                .documents
                .iter()
                .map(|document| document.source.text.len())
                .sum(),
        }
    }

    /// The file and first line of the unit, for an error about all of it.
    pub fn whereabouts(&self) -> (Arc<str>, Option<Pos>) {
        let start = |line| Some(Pos { line, column: 1 });
        match self {
            Unit::Text {
                file, first_line, ..
            } => (file.clone(), start(*first_line)),
            Unit::Failed(error) => (error.file.clone(), error.pos),
            Unit::Parsed(parsed) => match parsed.documents.first() {
                Some(document) => (
                    document.source.file.clone(),
                    start(document.source.first_line),
                ),
                None => (Arc::from(STDIN_NAME), None),
            },
        }
    }

    /// The unit's documents, parsed within `limits` (a large `List` on up to `threads`
    /// threads), and the errors found in them before; `Err` when it cannot be read or
    /// parsed at all.
    pub fn documents(self, limits: &Limits, threads: usize) -> Result<Parsed, InputError> {
        match self {
            Unit::Failed(error) => Err(error),
            Unit::Parsed(parsed) => Ok(parsed),
            Unit::Text {
                file,
                index,
                first_line,
                text,
                framing,
                count,
                rendered,
                errors,
            } => super::parse_text(&file, first_line, text, &framing, index, limits, threads).map(
                |mut documents| {
                    for document in &mut documents {
                        document.count = count;
                        document.rendered.clone_from(&rendered);
                    }
                    Parsed {
                        documents,
                        errors,
                        framing,
                    }
                },
            ),
        }
    }
}

impl Inputs {
    /// Takes the inputs; standard input and other streams among them, and bytes held in
    /// memory (objects read from a cluster), are cut into documents now, each once,
    /// within `limits`. Standard input is named `stdin_name` in reports
    /// ([`STDIN_NAME`] without it).
    pub fn new(inputs: Vec<Input>, limits: ReadLimits, stdin_name: Option<&str>) -> Inputs {
        let stdin_name = stdin_name.map(|name| {
            Arc::from(
                discover::clean(std::path::Path::new(name))
                    .to_string_lossy()
                    .as_ref(),
            )
        });
        let mut renderings = HashMap::new();
        let sources = inputs
            .into_iter()
            .enumerate()
            .map(|(index, input)| match input {
                Input::Stdin => Source::stdin(stdin_name.clone(), std::io::stdin().lock(), &limits),
                Input::File(path) => {
                    Source::open(Arc::from(path.to_string_lossy().as_ref()), path, &limits)
                }
                Input::Memory { name, bytes } => Source::stream(name, &bytes[..], &limits),
                Input::Rendered {
                    name,
                    bytes,
                    rendering,
                } => {
                    renderings.insert(index, rendering);
                    Source::stream(name, &bytes[..], &limits)
                }
            })
            .collect();
        let mut inputs = Inputs::from_sources(sources, limits);
        inputs.renderings = renderings;
        inputs
    }

    /// One input held in memory, read as standard input: for tests, fuzzing and
    /// embedding.
    pub fn from_bytes(bytes: impl Into<Arc<[u8]>>) -> Inputs {
        let bytes: Arc<[u8]> = bytes.into();
        let limits = ReadLimits::default();
        Inputs::from_sources(vec![Source::stdin(None, &bytes[..], &limits)], limits)
    }

    /// The same inputs, without what a pass has parsed ahead: every unit of the main
    /// pass is then text as read, which `lint --fix` edits. What is known of each input
    /// (where it was rendered from, how many documents it holds) stays.
    pub fn unparsed(&self) -> Inputs {
        let mut inputs = Inputs::from_sources(self.sources.clone(), self.limits);
        inputs.renderings.clone_from(&self.renderings);
        if let (Ok(known), Ok(mut counts)) = (self.counts.lock(), inputs.counts.lock()) {
            counts.clone_from(&known);
        }
        inputs
    }

    /// [`Inputs::unparsed`] with standard input's text replaced by `text`: after
    /// `lint --fix` printed standard input fixed, the report is of what was printed.
    pub fn unparsed_with_stdin(&self, text: &str) -> Inputs {
        let mut inputs = self.unparsed();
        for source in &mut inputs.sources {
            if let Source::Stdin { name, .. } = source {
                *source = Source::stdin(Some(name.clone()), text.as_bytes(), &self.limits);
            }
        }
        inputs
    }

    /// Inputs already taken.
    pub fn from_sources(sources: Vec<Source>, limits: ReadLimits) -> Inputs {
        Inputs {
            sources,
            limits,
            renderings: HashMap::new(),
            counts: Mutex::default(),
            parsed: Mutex::default(),
            kept: Mutex::default(),
            found: Mutex::default(),
        }
    }

    /// The inputs, in order: what `lint --fix` reads again to write back.
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// Where input `index` was rendered from, when the run rendered it.
    pub fn rendering(&self, index: usize) -> Option<&Rendering> {
        self.renderings.get(&index).map(Arc::as_ref)
    }

    /// How many inputs there are.
    pub fn len(&self) -> usize {
        self.sources.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.sources.is_empty()
    }

    /// Whether all inputs together are under `limit` bytes, by their sizes on disk (a
    /// file that cannot be measured counts as large). Stops at the first size that
    /// reaches the limit, so a large tree costs few `stat` calls.
    pub fn smaller_than(&self, limit: u64) -> bool {
        let mut total = 0u64;
        for source in &self.sources {
            total = total.saturating_add(source.size().unwrap_or(u64::MAX));
            if total >= limit {
                return false;
            }
        }
        true
    }

    /// The context pass: parses, within `limits`, the documents whose text `wanted`
    /// picks (without parsing it), calling `visit` with each document and its input's
    /// name; what `visit` returns is wrong in the document, reported by the main pass
    /// with it, so that every document is reported once and in order. Documents that
    /// cannot be parsed are left to the main pass, which reports why.
    pub fn parse_ahead(
        &self,
        limits: &Limits,
        wanted: impl Fn(&str) -> bool,
        mut visit: impl FnMut(&Arc<str>, &Document) -> Vec<InputError>,
    ) {
        let mut parsed = HashMap::new();
        let mut found = HashMap::new();
        let mut counts = HashMap::new();
        let mut kept = self
            .kept
            .lock()
            .map(|kept| kept.clone())
            .unwrap_or_default();
        let mut kept_bytes: usize = kept.values().map(Piece::text_bytes).sum();
        for (input_index, input) in self.sources.iter().enumerate() {
            let file = input.name();
            let mut pieces = 0;
            // The file's first piece, while it is its only one.
            let mut only = None;
            for (index, piece) in self.pieces(input_index, &kept).enumerate() {
                pieces = index + 1;
                only = (index == 0 && matches!(input, Source::File { .. })).then(|| piece.clone());
                let Piece::Text {
                    first_line,
                    text,
                    framing,
                } = piece
                else {
                    continue;
                };
                if !wanted(&text) {
                    continue;
                }
                // A large `List` is read item by item, each item a document of its own;
                // its trees are not kept, only what was found wrong in them.
                if text.len() >= BY_ITEM_FROM
                    && let Some(list) = ListReader::of(
                        file,
                        first_line,
                        text.clone(),
                        &framing,
                        (index, None),
                        limits,
                    )
                {
                    let errors = (0..list.len())
                        .filter_map(|item| list.item_document(item).ok())
                        .flat_map(|document| visit(file, &document))
                        .collect();
                    found.insert((input_index, index), errors);
                    continue;
                }
                let Ok(documents) =
                    super::parse_text(file, first_line, text, &framing, index, limits, 1)
                else {
                    continue;
                };
                let errors = documents
                    .iter()
                    .flat_map(|document| visit(file, document))
                    .collect();
                parsed.insert(
                    (input_index, index),
                    Parsed {
                        documents,
                        errors,
                        framing,
                    },
                );
            }
            counts.insert(input_index, pieces);
            if let Some(piece) = only.filter(|piece| {
                let bytes = piece.text_bytes();
                !kept.contains_key(&input_index)
                    && bytes >= KEEP_FROM_BYTES
                    && kept_bytes + bytes <= KEEP_AT_MOST
            }) {
                kept_bytes += piece.text_bytes();
                kept.insert(input_index, piece);
            }
        }
        if let Ok(mut known) = self.counts.lock() {
            known.extend(counts);
        }
        if let Ok(mut known) = self.kept.lock() {
            *known = kept;
        }
        // A later pass adds to what an earlier one parsed, whose errors stay.
        if let Ok(mut cache) = self.parsed.lock() {
            for (key, documents) in parsed {
                cache.entry(key).or_insert(documents);
            }
        }
        if let Ok(mut known) = self.found.lock() {
            for (key, errors) in found {
                known.entry(key).or_insert(errors);
            }
        }
    }

    /// The pieces of input `index`: those kept by the context pass, or read again.
    fn pieces<'i>(
        &'i self,
        index: usize,
        kept: &HashMap<usize, Piece>,
    ) -> Box<dyn Iterator<Item = Piece> + 'i> {
        match kept.get(&index) {
            Some(piece) => Box::new(std::iter::once(piece.clone())),
            None => self.sources[index].pieces(&self.limits),
        }
    }

    /// The main pass: every input in order, cut into units of work.
    pub fn read_all(&self, mut each: impl FnMut(Unit)) {
        self.read_indexed(|_, unit| each(unit));
    }

    /// [`Inputs::read_all`], each unit with the index of its input.
    pub fn read_indexed(&self, mut each: impl FnMut(usize, Unit)) {
        let mut parsed = self
            .parsed
            .lock()
            .map(|mut cache| std::mem::take(&mut *cache))
            .unwrap_or_default();
        let counts = self
            .counts
            .lock()
            .map(|counts| counts.clone())
            .unwrap_or_default();
        let kept = self
            .kept
            .lock()
            .map(|mut kept| std::mem::take(&mut *kept))
            .unwrap_or_default();
        let mut found = self
            .found
            .lock()
            .map(|mut found| std::mem::take(&mut *found))
            .unwrap_or_default();
        for (input_index, input) in self.sources.iter().enumerate() {
            let count = input
                .piece_count()
                .or_else(|| counts.get(&input_index).copied());
            let rendered = self.renderings.get(&input_index).cloned();
            for (index, piece) in self.pieces(input_index, &kept).enumerate() {
                each(
                    input_index,
                    match piece {
                        Piece::Text {
                            first_line,
                            text,
                            framing,
                        } => match parsed.remove(&(input_index, index)) {
                            Some(mut parsed) => {
                                for document in &mut parsed.documents {
                                    document.count = count;
                                    document.rendered.clone_from(&rendered);
                                }
                                Unit::Parsed(parsed)
                            }
                            None => Unit::Text {
                                file: input.name().clone(),
                                index,
                                first_line,
                                text,
                                framing,
                                count,
                                rendered: rendered.clone(),
                                errors: found.remove(&(input_index, index)).unwrap_or_default(),
                            },
                        },
                        Piece::Failed(error) => Unit::Failed(error),
                    },
                );
            }
        }
    }
}

/// Whether a document's text has a `kind: <kind>` entry (block or flow style, quoted or
/// not), without parsing it: `kind: CustomResourceDefinition` with `scope: Namespaced`
/// is not a Namespace. A `List` of such objects counts too, since its items have the
/// same line.
pub fn declares_kind(text: &str, kind: &str) -> bool {
    declared_kinds(text).any(|declared| declared == kind)
}

/// Every kind a document's text declares as [`declares_kind`] reads them, in one pass:
/// the word after each `kind:` (its letters and digits), as often as it is written.
pub fn declared_kinds(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices("kind").filter_map(|(at, _)| {
        let after = text[at + 4..].trim_start_matches(['"', '\'']).trim_start();
        let value = after.strip_prefix(':')?;
        let value = value.trim_start().trim_start_matches(['"', '\'']);
        let end = value
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(value.len());
        (end > 0).then(|| &value[..end])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_input_is_named_as_given() {
        let inputs = Inputs::from_bytes(b"kind: ConfigMap\n".to_vec());
        assert!(matches!(&inputs.sources[0], Source::Stdin { name, .. } if &**name == "-"));
        let limits = ReadLimits::default();
        let named = Source::stdin(Some(Arc::from("k8s/app.yaml")), &b""[..], &limits);
        let Source::Stdin { name, pieces } = &named else {
            panic!("{named:?}")
        };
        assert_eq!(&**name, "k8s/app.yaml");
        let [Piece::Failed(error)] = pieces.as_slice() else {
            panic!("{pieces:?}")
        };
        assert_eq!(
            error.to_string(),
            "k8s/app.yaml: standard input is empty; nothing to lint"
        );
    }

    #[test]
    fn small_inputs_are_measured_before_threads_start() {
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("small.yaml");
        std::fs::write(&small, "kind: ConfigMap\n").unwrap();
        let limits = ReadLimits::default();
        let files = Inputs::new(vec![Input::File(small.clone())], limits, None);
        assert!(files.smaller_than(1 << 16));
        assert!(!files.smaller_than(16));
        let missing = Inputs::new(
            vec![Input::File(dir.path().join("gone.yaml"))],
            limits,
            None,
        );
        assert!(
            missing.smaller_than(16),
            "a file that cannot be opened is an error to report, nothing to read"
        );
        let stdin = Inputs::from_bytes(vec![b'a'; 1 << 16]);
        assert!(!stdin.smaller_than(1 << 16));
    }

    #[test]
    fn a_file_of_one_large_document_is_read_once() {
        let dir = tempfile::tempdir().unwrap();
        let item = "- kind: Deployment\n  metadata:\n    name: web\n";
        let list = format!(
            "kind: List\nitems:\n{}",
            item.repeat(KEEP_FROM_BYTES / item.len() + 1)
        );
        let (large, small) = (dir.path().join("list.yaml"), dir.path().join("small.yaml"));
        std::fs::write(&large, &list).unwrap();
        std::fs::write(&small, "kind: List\nitems: []\n").unwrap();
        let limits = ReadLimits::default();
        let inputs = Inputs::new(
            vec![Input::File(large.clone()), Input::File(small.clone())],
            limits,
            None,
        );
        inputs.parse_ahead(&Limits::default(), |_| false, |_, _| Vec::new());
        // Changed after the context pass: the main pass reads the large file's text as
        // that pass read it, and the small file again.
        std::fs::write(&large, "kind: ConfigMap\n").unwrap();
        std::fs::write(&small, "kind: Secret\n").unwrap();
        let mut texts = Vec::new();
        inputs.read_all(|unit| match unit {
            Unit::Text { text, .. } => texts.push(text),
            other => panic!("{other:?}"),
        });
        assert_eq!(texts.len(), 2);
        assert_eq!(&*texts[0], list, "kept from the context pass");
        assert_eq!(&*texts[1], "kind: Secret\n", "read again");
    }

    #[test]
    fn finds_kinds_without_parsing() {
        assert!(declares_kind(
            "apiVersion: v1\nkind: Namespace\n",
            "Namespace"
        ));
        assert!(declares_kind(
            "{\"kind\": \"Namespace\", \"x\": 1}",
            "Namespace"
        ));
        assert!(declares_kind("kind: 'Namespace' # the ns\n", "Namespace"));
        let crd = "kind: CustomResourceDefinition\nspec:\n  scope: Namespaced\n";
        assert!(!declares_kind(crd, "Namespace"));
        assert!(!declares_kind("kind: NamespaceConfig\n", "Namespace"));
        assert!(!declares_kind(
            "metadata:\n  namespace: shop\n",
            "Namespace"
        ));
    }
}
