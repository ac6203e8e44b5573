//! Drives the pipeline's stages over every input: load → workload → resolve →
//! simulate → rules, then hands each document's results, in input order, to a sink.
//!
//! Documents are processed on all cores. A reader thread cuts inputs into documents
//! and hands them to the workers in batches (about 32 KiB or 512 documents: many tiny
//! documents cost one hand-off per batch, not one each); workers run the stages;
//! results are handed out strictly in input order, so output is byte-identical to a
//! single-threaded run. At most a fixed number of batches are in flight, which bounds
//! memory by the largest documents, not by the input (a stream, which can be read only
//! once, is held as its documents: [`load::inputs`]). When the system refuses threads,
//! fewer do the work, down to the calling thread.

use std::collections::BTreeMap;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use crate::load::inputs::Unit;
use crate::load::{self, InputError, Inputs, Pos};
use crate::settings::Settings;

mod analyse;
mod attribute;
pub mod fix;
mod items;
pub mod located;
mod options;
mod releases;

use fix::rounds;
pub use located::{Analysis, DocumentReport, Located, Place};

use analyse::{Piece, Reading, Stages, analyze, passed_over, unchanged};
pub use attribute::{Attributing, attribute};
use items::Work;
use options::threads;
pub use options::{FixMode, RunOptions};

/// Below this many input bytes the default is one thread: a few milliseconds of work
/// gain less from a second core than starting the workers costs (BENCHMARKS.md, the
/// single file).
const PARALLEL_FROM_BYTES: u64 = 64 * 1024;

/// The most worker threads a run starts (`-j`): more than any machine has cores. Each
/// holds documents in flight, so a larger count would only exhaust memory or the
/// system's threads.
pub const MAX_THREADS: usize = 1024;

/// How many worker threads a run used, and why fewer than it wanted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Workers {
    /// The threads the run asked for (`-j`, or one per core).
    pub wanted: usize,
    /// The threads that ran documents (the calling thread alone counts as one).
    pub running: usize,
    /// Why a thread could not be started (the system's limit on threads, memory).
    pub failure: Option<String>,
    /// How many batches of documents were handed to the worker threads: none when the
    /// calling thread did all the work alone.
    pub batches: u64,
}

impl Workers {
    /// A sentence for the user when the run went on with fewer threads than it wanted.
    pub fn shortfall(&self) -> Option<String> {
        let reason = self.failure.as_ref()?;
        Some(format!(
            "could not start {} worker threads ({reason}); checked the inputs on {} instead",
            self.wanted,
            match self.running {
                1 => "one thread".to_owned(),
                n => format!("{n} threads"),
            }
        ))
    }
}

/// Runs the pipeline over `inputs`, calling `sink` with each document's report in input
/// order. Returns once every input has been processed, saying how many threads did it:
/// when the system refuses threads, the run goes on with those it has, down to the
/// calling thread alone.
pub fn run(
    inputs: &Inputs,
    settings: &Settings,
    options: &RunOptions,
    mut sink: impl FnMut(DocumentReport),
) -> Workers {
    run_indexed(inputs, settings, options, |_, report| sink(report))
}

/// [`run`], each report with the index of the input it is from.
pub fn run_indexed(
    inputs: &Inputs,
    settings: &Settings,
    options: &RunOptions,
    mut sink: impl FnMut(usize, DocumentReport),
) -> Workers {
    let threads = match options.threads {
        0 if inputs.smaller_than(PARALLEL_FROM_BYTES) => 1,
        0 => options::cores(),
        n => n,
    }
    .min(MAX_THREADS);
    let mut workers = Workers {
        wanted: threads,
        running: 1,
        failure: None,
        batches: 0,
    };
    let work = |work: Work| process_contained(work, settings, options);
    // Every input in order, as work: a large `List` as runs of its items.
    let read = |each: &mut dyn FnMut(usize, Work)| {
        inputs.read_indexed(|input, unit| items::split(unit, options, |work| each(input, work)));
    };
    if threads <= 1 {
        read(&mut |input, unit| sink(input, work(unit)));
        return workers;
    }
    let work_batch = |batch: Batch| -> Vec<(usize, DocumentReport)> {
        batch
            .into_iter()
            .map(|(input, unit)| (input, work(unit)))
            .collect()
    };
    // Batches in flight: queued, being processed, or waiting for their turn.
    let in_flight = threads * 4;
    let (work_tx, work_rx) = mpsc::sync_channel::<(u64, Batch)>(in_flight);
    let (done_tx, done_rx) = mpsc::channel::<(u64, Vec<(usize, DocumentReport)>)>();
    let (token_tx, token_rx) = mpsc::sync_channel::<()>(in_flight);
    for _ in 0..in_flight {
        token_tx
            .send(())
            .expect("the token channel has room for every token");
    }
    let work_rx = Arc::new(Mutex::new(work_rx));
    std::thread::scope(|scope| {
        let reader = std::thread::Builder::new()
            .name("reader".into())
            .spawn_scoped(scope, move || {
                let mut seq = 0u64;
                let mut hand = |batch: Batch| {
                    if token_rx.recv().is_err() {
                        return;
                    }
                    let _ = work_tx.send((seq, batch));
                    seq += 1;
                };
                let mut batching = Batching::default();
                read(&mut |input, work| {
                    if let Some(batch) = batching.add(input, work) {
                        hand(batch);
                    }
                });
                if let Some(batch) = batching.finish() {
                    hand(batch);
                }
                seq
            });
        let reader = match reader {
            Ok(reader) => reader,
            Err(error) => {
                // Nothing was started: this thread reads and checks every document itself.
                workers.failure = Some(load::discover::describe_io(&error));
                read(&mut |input, unit| sink(input, work(unit)));
                return;
            }
        };
        let mut started = 0;
        for index in 0..threads {
            let work_rx = Arc::clone(&work_rx);
            let done_tx = done_tx.clone();
            let worker = std::thread::Builder::new()
                .name(format!("worker-{index}"))
                .spawn_scoped(scope, move || {
                    loop {
                        let next = work_rx.lock().map(|rx| rx.recv());
                        let Ok(Ok((seq, batch))) = next else {
                            break;
                        };
                        if done_tx.send((seq, work_batch(batch))).is_err() {
                            break;
                        }
                    }
                });
            match worker {
                Ok(_) => started += 1,
                Err(error) => {
                    workers.failure = Some(load::discover::describe_io(&error));
                    break;
                }
            }
        }
        drop(done_tx);
        if started == 0 {
            // The reader runs, but no worker: this thread checks the documents, which
            // arrive in order.
            loop {
                let next = work_rx.lock().map(|rx| rx.recv());
                let Ok(Ok((_, batch))) = next else {
                    break;
                };
                for (input, report) in work_batch(batch) {
                    sink(input, report);
                }
                let _ = token_tx.send(());
            }
            let _ = reader.join();
            return;
        }
        workers.running = started;
        let mut waiting = BTreeMap::new();
        let mut next = 0u64;
        for (seq, reports) in done_rx {
            waiting.insert(seq, reports);
            while let Some(reports) = waiting.remove(&next) {
                for (input, report) in reports {
                    sink(input, report);
                }
                next += 1;
                let _ = token_tx.send(());
            }
        }
        workers.batches = reader
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    });
    workers
}

/// Work handed to a worker together, with the index of the input each is from.
type Batch = Vec<(usize, Work)>;

/// A batch is handed on once its documents hold this many bytes: a large document
/// goes alone, tiny ones go many together, so that handing work to a thread costs
/// little beside the work.
const BATCH_BYTES: usize = 32 * 1024;

/// A batch is handed on once it holds this many documents, however small.
const BATCH_DOCUMENTS: usize = 512;

/// The documents read so far and not yet handed on, cut into batches by
/// [`BATCH_BYTES`] and [`BATCH_DOCUMENTS`].
#[derive(Default)]
struct Batching {
    batch: Batch,
    bytes: usize,
}

impl Batching {
    /// Adds a document; the batch it completes, if it does.
    fn add(&mut self, input: usize, work: Work) -> Option<Batch> {
        self.bytes = self.bytes.saturating_add(work.bytes());
        self.batch.push((input, work));
        (self.bytes >= BATCH_BYTES || self.batch.len() >= BATCH_DOCUMENTS).then(|| {
            self.bytes = 0;
            std::mem::take(&mut self.batch)
        })
    }

    /// The last batch, unless it is empty.
    fn finish(self) -> Option<Batch> {
        (!self.batch.is_empty()).then_some(self.batch)
    }
}

/// [`process`], with a bug in it turned into an error about the one document that hit it:
/// the other inputs are still checked, the exit status says something went wrong, and a
/// worker that panicked cannot leave the ordered output waiting forever.
fn process_contained(work: Work, settings: &Settings, options: &RunOptions) -> DocumentReport {
    let (file, pos) = work.whereabouts();
    contained(file, pos, || match work {
        Work::Unit(unit) => process(unit, settings, options),
        Work::Items {
            list,
            items,
            errors,
        } => items::process_items(&list, items, errors, settings, options),
    })
}

/// Runs `check`, turning a panic into an internal error at `file`/`pos`.
fn contained(
    file: Arc<str>,
    pos: Option<Pos>,
    check: impl FnOnce() -> DocumentReport,
) -> DocumentReport {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|text| (*text).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".to_owned());
        let mut error = InputError::whole(
            file,
            format!("internal error while checking this document ({what}); please report it with the document"),
        );
        error.pos = pos;
        DocumentReport {
            errors: vec![error],
            ..DocumentReport::default()
        }
    })
}

/// Runs every stage over one piece of an input, then checks or makes the fixes as
/// `options.fixes` says.
fn process(unit: Unit, settings: &Settings, options: &RunOptions) -> DocumentReport {
    // A piece's text as read, kept to be written back with its fixes.
    let read = match (&unit, options.fixes) {
        (Unit::Text { text, .. }, FixMode::Apply(_)) => Some(text.clone()),
        _ => None,
    };
    let piece_of = |unit: &Unit| match unit {
        Unit::Text {
            file,
            index,
            first_line,
            framing,
            ..
        } => Some(Piece {
            file: file.clone(),
            first_index: *index,
            first_line: *first_line,
            framing: framing.clone(),
        }),
        _ => None,
    };
    let mut piece = piece_of(&unit);
    if passed_over(&unit, settings) {
        return DocumentReport {
            fixed: read.map(|text| unchanged(text, piece.map_or(1, |p| p.first_line))),
            ..DocumentReport::default()
        };
    }
    let parsed = match unit.documents(&options.limits, threads(options)) {
        Ok(parsed) => parsed,
        Err(error) => {
            let mut report = DocumentReport::default();
            report.errors.push(error);
            report.fixed = read.map(|text| unchanged(text, piece.map_or(1, |p| p.first_line)));
            return report;
        }
    };
    let text = match parsed.documents.first() {
        Some(document) => {
            piece.get_or_insert_with(|| Piece {
                file: document.source.file.clone(),
                first_index: document.index,
                first_line: document.source.first_line,
                framing: parsed.framing.clone(),
            });
            document.source.text.clone()
        }
        None => {
            let mut report = DocumentReport::default();
            report.errors.extend(parsed.errors);
            report.fixed = read.map(|text| unchanged(text, piece.map_or(1, |p| p.first_line)));
            return report;
        }
    };
    let piece = piece.expect("a piece with documents has its place");
    let state = analyze(
        &parsed.documents,
        parsed.errors,
        text,
        &piece,
        settings,
        options,
        Reading::AsRead,
    );
    let stages = Stages {
        piece: &piece,
        settings,
        options,
    };
    match options.fixes {
        FixMode::Unchecked => state.report,
        FixMode::Verify => {
            let mut state = state;
            rounds::verify(&mut state, &stages);
            state.report
        }
        FixMode::Apply(at_least) => {
            let (state, fixed) = rounds::fix(state, &stages, at_least);
            let mut report = state.report;
            report.fixed = Some(fixed);
            report
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_input_that_cannot_be_read_is_an_input_error() {
        struct Broken;
        impl std::io::Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::Error::from(std::io::ErrorKind::IsADirectory))
            }
        }
        let limits = load::ReadLimits::default();
        let inputs = Inputs::from_sources(vec![load::Source::stdin(None, Broken, &limits)], limits);
        let mut errors = Vec::new();
        run(
            &inputs,
            &Settings::default(),
            &RunOptions::default(),
            |report| errors.extend(report.errors),
        );
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].to_string(), "-: is a directory");
    }

    #[test]
    fn a_stream_is_read_once_and_serves_both_passes() {
        // A Namespace after the pod it labels: the context pass must see it, and the main
        // pass must still see the pod, from the one reading.
        let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\nspec:\n  containers: [{name: a, image: x}]\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels: {istio-injection: enabled}\n";
        let inputs = Inputs::from_bytes(text.as_bytes().to_vec());
        let mut settings = Settings::default();
        crate::settings::layers::gather_context(&inputs, load::Limits::default(), &mut settings);
        assert!(settings.namespaces.contains_key("shop"));
        let mut workloads = 0;
        run(&inputs, &settings, &RunOptions::default(), |report| {
            assert!(report.errors.is_empty(), "{:?}", report.errors);
            workloads += report.analyses.len();
        });
        assert_eq!(workloads, 1);
    }

    #[test]
    fn tiny_documents_reach_the_workers_in_batches_in_order() {
        // One hand-off per document made 100,000 one-line documents take seconds on
        // two threads where one took a tenth of one.
        let documents = 20_000;
        let text: String = (0..documents)
            .map(|n| format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: p{n}}}\n---\n"))
            .collect();
        let inputs = Inputs::from_bytes(text.clone().into_bytes());
        let options = RunOptions {
            threads: 2,
            ..RunOptions::default()
        };
        let mut lines = Vec::new();
        let workers = run(&inputs, &Settings::default(), &options, |report| {
            lines.extend(
                report
                    .notes
                    .iter()
                    .filter_map(|note| note.error.pos)
                    .map(|pos| pos.line),
            );
        });
        let bound = text.len() / BATCH_BYTES + documents / BATCH_DOCUMENTS + 1;
        assert_eq!(workers.running, 2, "{workers:?}");
        assert!(
            (1..=bound as u64).contains(&workers.batches),
            "{} batches for {documents} documents, at most {bound}",
            workers.batches
        );
        // Each Pod has a note (no containers), in the order of the documents.
        assert_eq!(
            lines,
            (0..documents).map(|n| 1 + 4 * n as u32).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_batch_is_cut_by_bytes_or_by_documents() {
        let unit = |bytes: usize| {
            Work::Unit(Unit::Text {
                file: Arc::from("-"),
                index: 0,
                first_line: 1,
                text: Arc::from("x".repeat(bytes)),
                framing: load::split::Framing::default(),
                count: None,
                rendered: None,
                errors: Vec::new(),
            })
        };
        let mut batching = Batching::default();
        let sizes: Vec<usize> = (0..BATCH_DOCUMENTS * 2 + 3)
            .filter_map(|_| batching.add(0, unit(1)))
            .map(|batch| batch.len())
            .collect();
        assert_eq!(sizes, [BATCH_DOCUMENTS, BATCH_DOCUMENTS]);
        assert_eq!(batching.finish().map(|batch| batch.len()), Some(3));
        let mut batching = Batching::default();
        assert!(batching.add(0, unit(BATCH_BYTES - 1)).is_none());
        assert_eq!(batching.add(0, unit(1)).map(|batch| batch.len()), Some(2));
        assert_eq!(
            batching
                .add(0, unit(BATCH_BYTES * 4))
                .map(|batch| batch.len()),
            Some(1)
        );
        assert!(batching.finish().is_none());
    }

    #[test]
    fn fewer_threads_than_wanted_are_worth_a_sentence() {
        let all = Workers {
            wanted: 4,
            running: 4,
            failure: None,
            batches: 0,
        };
        assert_eq!(all.shortfall(), None);
        let some = Workers {
            running: 2,
            failure: Some("resource temporarily unavailable".into()),
            ..all
        };
        assert_eq!(
            some.shortfall().as_deref(),
            Some(
                "could not start 4 worker threads (resource temporarily unavailable); checked the inputs on 2 threads instead"
            )
        );
    }

    #[test]
    fn a_panic_becomes_an_error_about_its_document() {
        let pos = Some(Pos { line: 7, column: 1 });
        let report = contained(Arc::from("deploy.yaml"), pos, || {
            panic!("attempt to multiply with overflow")
        });
        assert!(report.analyses.is_empty());
        let [error] = report.errors.as_slice() else {
            panic!("one error expected, got {:?}", report.errors)
        };
        assert_eq!(&*error.file, "deploy.yaml");
        assert_eq!(error.pos, pos);
        assert!(
            error.message.contains("internal error") && error.message.contains("multiply"),
            "{}",
            error.message
        );
    }
}
