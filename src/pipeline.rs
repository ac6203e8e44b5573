//! Drives the pipeline's stages over every input: load → workload → resolve →
//! simulate → rules, then hands each document's results, in input order, to a sink.
//!
//! Documents are processed on all cores. A reader thread cuts inputs into documents;
//! workers run the stages; results are handed out strictly in input order, so output
//! is byte-identical to a single-threaded run. At most a fixed number of documents are
//! in flight, which bounds memory by the largest documents, not by the input.

use std::collections::BTreeMap;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use crate::load::{self, Input, InputError, Limits, Pos, SourceText, split};
use crate::resolve::{self, PodPlan};
use crate::rules::{self, Finding, Severity};
use crate::settings::Settings;
use crate::simulate::{self, Timeline};
use crate::workload::{self, WorkloadRef};

/// A finding with its place in the input resolved.
#[derive(Clone, Debug)]
pub struct Located {
    /// The rule's finding, its locations still manifest paths.
    pub finding: Finding,
    /// The input's name as the user gave it.
    pub file: Arc<str>,
    /// 0-based index of the document in its file.
    pub document: usize,
    /// The workload the finding is about.
    pub workload: WorkloadRef,
    /// Where Helm rendered the workload from.
    pub origin: Option<String>,
    /// The node at fault.
    pub primary: Place,
    /// The other sides of a comparison, in the rule's order.
    pub related: Vec<Place>,
    /// The document's text, for excerpts.
    pub source: SourceText,
    /// The reason given in a suppression annotation, when one applies.
    pub suppressed: Option<String>,
}

/// A resolved label: positions and the note to show there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// Where the node starts.
    pub start: Pos,
    /// Where it ends (exclusive).
    pub end: Pos,
    /// What the label says there.
    pub text: String,
    /// The manifest path the label names (it may be unset in the manifest).
    pub path: String,
}

/// One workload's full analysis, for `explain`.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The input's name as the user gave it.
    pub file: Arc<str>,
    /// 0-based index of the document in its file.
    pub document: usize,
    /// Where Helm rendered the workload from.
    pub origin: Option<String>,
    /// What will run, configured how.
    pub plan: PodPlan,
    /// What the kubelet and the proxies do with it.
    pub timeline: Timeline,
    /// What went wrong on the timeline, sorted.
    pub findings: Vec<Located>,
}

/// What one document produced.
#[derive(Debug, Default)]
pub struct DocumentReport {
    /// One per workload in the document.
    pub analyses: Vec<Analysis>,
    /// Why (part of) the document could not be checked.
    pub errors: Vec<InputError>,
    /// Workloads left out on purpose, with why.
    pub skipped: Vec<InputError>,
}

/// Options of a run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Bounds on hostile input.
    pub limits: Limits,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// Which rules run and at what severity.
    pub policy: Policy,
}

/// Which rules are on, and severities users changed.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    /// Rule ids turned off.
    pub disabled: Vec<&'static str>,
    /// Only these rule ids, when not empty.
    pub selected: Vec<&'static str>,
    /// Severity overrides by rule id.
    pub severities: BTreeMap<&'static str, Severity>,
}

impl Policy {
    fn applies(&self, id: &str) -> bool {
        (self.selected.is_empty() || self.selected.contains(&id)) && !self.disabled.contains(&id)
    }
}

/// The inputs of a run with standard input read once, so that it can be read twice.
pub struct Inputs {
    inputs: Vec<Input>,
    stdin: Stdin,
    /// Documents [`gather_context`] already parsed, by input and chunk index, so the
    /// main pass does not parse them again.
    parsed: Mutex<HashMap<(usize, usize), Vec<load::Document>>>,
}

/// Standard input as read: in pieces, so that holding N bytes costs N bytes (a `Vec`
/// grown by doubling briefly holds three times its contents), or why it could not be
/// read.
#[derive(Clone)]
enum Stdin {
    Read(Arc<[Arc<[u8]>]>),
    Failed(Arc<str>),
}

/// The size of the pieces standard input is read in.
const STDIN_PIECE: u64 = 1 << 20;

impl Inputs {
    /// Takes the inputs; standard input, if among them, is read into memory now. A
    /// failure to read it is reported as an input error of `-` when the run reads it.
    pub fn new(inputs: Vec<Input>) -> Inputs {
        let stdin = if inputs.contains(&Input::Stdin) {
            read_pieces(&mut std::io::stdin().lock())
        } else {
            Stdin::Read(Arc::from([]))
        };
        Inputs {
            inputs,
            stdin,
            parsed: Mutex::default(),
        }
    }

    /// One input held in memory, named like standard input (`-`): for tests, fuzzing
    /// and embedding.
    pub fn from_bytes(bytes: impl Into<Arc<[u8]>>) -> Inputs {
        Inputs {
            inputs: vec![Input::Stdin],
            stdin: Stdin::Read(Arc::from([bytes.into()])),
            parsed: Mutex::default(),
        }
    }

    /// How many inputs there are.
    pub fn len(&self) -> usize {
        self.inputs.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.inputs.is_empty()
    }

    /// Whether all inputs together are under `limit` bytes, by their sizes on disk (a
    /// file that cannot be measured counts as large). Stops at the first size that
    /// reaches the limit, so a large tree costs few `stat` calls.
    fn smaller_than(&self, limit: u64) -> bool {
        let mut total = 0u64;
        for input in &self.inputs {
            total = total.saturating_add(match input {
                Input::Stdin => match &self.stdin {
                    Stdin::Read(pieces) => pieces.iter().map(|piece| piece.len() as u64).sum(),
                    Stdin::Failed(_) => 0,
                },
                Input::File(path) => std::fs::metadata(path).map_or(u64::MAX, |m| m.len()),
                Input::Memory { bytes, .. } => bytes.len() as u64,
            });
            if total >= limit {
                return false;
            }
        }
        true
    }

    fn open(&self, input: &Input) -> std::io::Result<Box<dyn BufRead + Send>> {
        Ok(match input {
            Input::Stdin => match &self.stdin {
                Stdin::Read(pieces) => Box::new(PieceReader {
                    pieces: Arc::clone(pieces),
                    index: 0,
                    offset: 0,
                }),
                Stdin::Failed(reason) => {
                    return Err(std::io::Error::other(reason.to_string()));
                }
            },
            Input::File(path) => Box::new(BufReader::with_capacity(
                1 << 16,
                std::fs::File::open(path)?,
            )),
            Input::Memory { bytes, .. } => Box::new(std::io::Cursor::new(Arc::clone(bytes))),
        })
    }
}

fn read_pieces(reader: &mut impl Read) -> Stdin {
    let mut pieces: Vec<Arc<[u8]>> = Vec::new();
    loop {
        let mut piece = Vec::with_capacity(STDIN_PIECE as usize);
        match reader.take(STDIN_PIECE).read_to_end(&mut piece) {
            Ok(0) => return Stdin::Read(Arc::from(pieces)),
            Ok(_) => pieces.push(Arc::from(piece)),
            Err(error) => return Stdin::Failed(Arc::from(load::discover::describe_io(&error))),
        }
    }
}

/// Reads pieces held in memory as one stream.
struct PieceReader {
    pieces: Arc<[Arc<[u8]>]>,
    index: usize,
    offset: usize,
}

impl Read for PieceReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for PieceReader {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        while let Some(piece) = self.pieces.get(self.index) {
            if self.offset < piece.len() {
                return Ok(&self.pieces[self.index][self.offset..]);
            }
            self.index += 1;
            self.offset = 0;
        }
        Ok(&[])
    }

    fn consume(&mut self, amount: usize) {
        self.offset += amount;
    }
}

/// Objects in the input that change how other documents are read: `Namespace` objects,
/// whose labels decide injection, and Istio mesh configuration (an `istio` ConfigMap, an
/// IstioOperator). Only documents that mention them are parsed here, and nothing is
/// reported; the main pass reports every document once.
pub fn gather_context(inputs: &Inputs, limits: Limits, settings: &mut Settings) {
    let mut parsed = HashMap::new();
    for (input_index, input) in inputs.inputs.iter().enumerate() {
        let Ok(reader) = inputs.open(input) else {
            continue;
        };
        let file = input.display_name();
        for (index, chunk) in split::Splitter::new(reader, limits.max_document_bytes).enumerate() {
            let Ok(chunk) = chunk else { continue };
            let mesh_config = declares_kind(&chunk.text, "IstioOperator")
                || (declares_kind(&chunk.text, "ConfigMap") && chunk.text.contains("istio"));
            if !mesh_config && !declares_kind(&chunk.text, "Namespace") {
                continue;
            }
            let Ok(documents) = load::parse_chunk(&file, chunk, index, &limits) else {
                continue;
            };
            for document in &documents {
                if mesh_config {
                    let source = crate::settings::Source::Input(file.clone());
                    crate::settings::mesh_config::apply_input_object(
                        &document.root,
                        settings,
                        source,
                    );
                }
                for namespace in workload::objects(document).namespaces {
                    settings.namespaces.insert(
                        namespace.name.clone(),
                        crate::settings::NamespaceInfo {
                            labels: namespace.labels,
                            annotations: namespace.annotations,
                            source: Some(crate::settings::Source::Input(file.clone())),
                        },
                    );
                }
            }
            parsed.insert((input_index, index), documents);
        }
    }
    if let Ok(mut cache) = inputs.parsed.lock() {
        *cache = parsed;
    }
}

/// Whether a document's text has a `kind: <kind>` entry (block or flow style, quoted or
/// not), without parsing it: `kind: CustomResourceDefinition` with `scope: Namespaced`
/// is not a Namespace. A `List` of such objects counts too, since its items have the
/// same line.
fn declares_kind(text: &str, kind: &str) -> bool {
    let mut rest = text;
    while let Some(at) = rest.find("kind") {
        let after = rest[at + 4..].trim_start_matches(['"', '\'']).trim_start();
        if let Some(value) = after.strip_prefix(':') {
            let value = value.trim_start().trim_start_matches(['"', '\'']);
            if let Some(tail) = value.strip_prefix(kind)
                && !tail.starts_with(|c: char| c.is_ascii_alphanumeric())
            {
                return true;
            }
        }
        rest = &rest[at + 4..];
    }
    false
}

/// Below this many input bytes the default is one thread: a few milliseconds of work
/// gain less from a second core than starting the workers costs (BENCHMARKS.md, the
/// single file).
const PARALLEL_FROM_BYTES: u64 = 64 * 1024;

/// Runs the pipeline over `inputs`, calling `sink` with each document's report in input
/// order. Returns once every input has been processed.
pub fn run(
    inputs: &Inputs,
    settings: &Settings,
    options: &RunOptions,
    mut sink: impl FnMut(DocumentReport),
) {
    let threads = match options.threads {
        0 if inputs.smaller_than(PARALLEL_FROM_BYTES) => 1,
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    };
    if threads <= 1 {
        read_all(inputs, options.limits, |unit| {
            sink(process_contained(unit, settings, options))
        });
        return;
    }
    // Documents in flight: queued, being processed, or waiting for their turn.
    let in_flight = threads * 4;
    let (work_tx, work_rx) = mpsc::sync_channel::<(u64, Unit)>(in_flight);
    let (done_tx, done_rx) = mpsc::channel::<(u64, DocumentReport)>();
    let (token_tx, token_rx) = mpsc::sync_channel::<()>(in_flight);
    for _ in 0..in_flight {
        token_tx
            .send(())
            .expect("the token channel has room for every token");
    }
    let work_rx = Arc::new(Mutex::new(work_rx));
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let mut seq = 0u64;
            read_all(inputs, options.limits, |unit| {
                if token_rx.recv().is_err() {
                    return;
                }
                let _ = work_tx.send((seq, unit));
                seq += 1;
            });
        });
        for _ in 0..threads {
            let work_rx = Arc::clone(&work_rx);
            let done_tx = done_tx.clone();
            scope.spawn(move || {
                loop {
                    let next = work_rx.lock().map(|rx| rx.recv());
                    let Ok(Ok((seq, unit))) = next else { break };
                    if done_tx
                        .send((seq, process_contained(unit, settings, options)))
                        .is_err()
                    {
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        let mut waiting = BTreeMap::new();
        let mut next = 0u64;
        for (seq, report) in done_rx {
            waiting.insert(seq, report);
            while let Some(report) = waiting.remove(&next) {
                sink(report);
                next += 1;
                let _ = token_tx.send(());
            }
        }
    });
}

/// A piece of work: one document's text, or an input that could not be read.
enum Unit {
    Chunk {
        file: Arc<str>,
        index: usize,
        chunk: split::Chunk,
    },
    Failed(InputError),
    /// A document the context pass already parsed.
    Parsed(Vec<load::Document>),
}

/// Reads every input in order, cutting each into document chunks.
fn read_all(inputs: &Inputs, limits: Limits, mut each: impl FnMut(Unit)) {
    let mut parsed = inputs
        .parsed
        .lock()
        .map(|mut cache| std::mem::take(&mut *cache))
        .unwrap_or_default();
    for (input_index, input) in inputs.inputs.iter().enumerate() {
        let file = input.display_name();
        let reader = match inputs.open(input) {
            Ok(reader) => reader,
            Err(error) => {
                each(Unit::Failed(InputError::whole(
                    file,
                    load::discover::describe_io(&error),
                )));
                continue;
            }
        };
        let mut any = false;
        for (index, chunk) in split::Splitter::new(reader, limits.max_document_bytes).enumerate() {
            match chunk {
                Ok(chunk) => {
                    any |= !chunk.text.trim().is_empty();
                    match parsed.remove(&(input_index, index)) {
                        Some(documents) => each(Unit::Parsed(documents)),
                        None => each(Unit::Chunk {
                            file: file.clone(),
                            index,
                            chunk,
                        }),
                    }
                }
                Err(error) => {
                    any = true;
                    let error = match error {
                        split::ChunkError::Io(io)
                            if io.kind() == std::io::ErrorKind::IsADirectory =>
                        {
                            InputError::whole(file.clone(), "is a directory")
                        }
                        other => load::chunk_error(&file, other),
                    };
                    each(Unit::Failed(error));
                }
            }
        }
        if !any && matches!(input, Input::Stdin) {
            each(Unit::Failed(InputError::whole(
                file,
                "standard input is empty; nothing to lint",
            )));
        }
    }
}

/// [`process`], with a bug in it turned into an error about the one document that hit it:
/// the other inputs are still checked, the exit status says something went wrong, and a
/// worker that panicked cannot leave the ordered output waiting forever.
fn process_contained(unit: Unit, settings: &Settings, options: &RunOptions) -> DocumentReport {
    let (file, pos) = unit.whereabouts();
    contained(file, pos, || process(unit, settings, options))
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

impl Unit {
    /// The file and first line of the unit, for an error about all of it.
    fn whereabouts(&self) -> (Arc<str>, Option<Pos>) {
        match self {
            Unit::Chunk { file, chunk, .. } => (
                file.clone(),
                Some(Pos {
                    line: chunk.first_line,
                    column: 1,
                }),
            ),
            Unit::Failed(error) => (error.file.clone(), error.pos),
            Unit::Parsed(documents) => match documents.first() {
                Some(document) => (
                    document.source.file.clone(),
                    Some(Pos {
                        line: document.source.first_line,
                        column: 1,
                    }),
                ),
                None => (Arc::from("-"), None),
            },
        }
    }
}

/// Runs every stage over one document.
fn process(unit: Unit, settings: &Settings, options: &RunOptions) -> DocumentReport {
    let mut report = DocumentReport::default();
    let documents = match unit {
        Unit::Failed(error) => {
            report.errors.push(error);
            return report;
        }
        Unit::Parsed(documents) => documents,
        Unit::Chunk { file, index, chunk } => {
            match load::parse_chunk(&file, chunk, index, &options.limits) {
                Ok(documents) => documents,
                Err(error) => {
                    report.errors.push(error);
                    return report;
                }
            }
        }
    };
    for document in &documents {
        let objects = workload::objects(document);
        report.errors.extend(objects.errors);
        report.skipped.extend(objects.skipped);
        for workload in &objects.workloads {
            let plan = resolve::resolve(workload, settings);
            let timeline = simulate::simulate(&plan);
            let findings = rules::check(&rules::Pod {
                plan: &plan,
                timeline: &timeline,
            });
            let mut located: Vec<Located> = findings
                .into_iter()
                .filter(|f| options.policy.applies(f.rule.id))
                .map(|mut finding| {
                    if let Some(severity) = options.policy.severities.get(finding.rule.id) {
                        finding.severity = *severity;
                    }
                    locate(finding, document, workload)
                })
                .collect();
            located.sort_by(|a, b| {
                (a.primary.start, a.finding.rule.id).cmp(&(b.primary.start, b.finding.rule.id))
            });
            report.analyses.push(Analysis {
                file: document.source.file.clone(),
                document: document.index,
                origin: document.origin.clone(),
                plan,
                timeline,
                findings: located,
            });
        }
    }
    report
}

/// Attributes the findings of owned inputs to their owners: `owners` names, by input,
/// the workload that input's findings belong to (a running pod read from a cluster
/// belongs to its Deployment). Each finding is reported once per owner, rule and
/// container: the owner's own analysis keeps its findings and gains those only the
/// owned inputs show, and an owned input's analysis is merged away when its owner was
/// analysed; without the owner, the first owned analysis stands for it.
pub fn attribute(
    mut reports: Vec<DocumentReport>,
    owners: &HashMap<Arc<str>, WorkloadRef>,
) -> Vec<DocumentReport> {
    type Key = (WorkloadRef, &'static str, Option<String>);
    let key = |located: &Located| -> Key {
        (
            located.workload.clone(),
            located.finding.rule.id,
            located.finding.container.clone(),
        )
    };
    let mut owned = Vec::new();
    for (r, report) in reports.iter_mut().enumerate() {
        let (theirs, own): (Vec<_>, Vec<_>) = std::mem::take(&mut report.analyses)
            .into_iter()
            .partition(|analysis| owners.contains_key(&analysis.file));
        report.analyses = own;
        owned.extend(theirs.into_iter().map(|analysis| (r, analysis)));
    }
    let mut standing: HashMap<WorkloadRef, (usize, usize)> = HashMap::new();
    let mut seen: std::collections::HashSet<Key> = std::collections::HashSet::new();
    for (r, report) in reports.iter().enumerate() {
        for (a, analysis) in report.analyses.iter().enumerate() {
            standing.insert(analysis.plan.workload.clone(), (r, a));
            seen.extend(analysis.findings.iter().map(key));
        }
    }
    for (r, mut analysis) in owned {
        let owner = &owners[&analysis.file];
        for located in &mut analysis.findings {
            located.workload = owner.clone();
        }
        analysis
            .findings
            .retain(|located| seen.insert(key(located)));
        match standing.get(owner) {
            Some(&(into, at)) => reports[into].analyses[at]
                .findings
                .extend(analysis.findings),
            None => {
                standing.insert(owner.clone(), (r, reports[r].analyses.len()));
                reports[r].analyses.push(analysis);
            }
        }
    }
    reports
}

/// Resolves a finding's paths to positions while the document's tree is alive.
fn locate(finding: Finding, document: &load::Document, workload: &workload::Workload) -> Located {
    let place = |label: &rules::Label| {
        let found = document.root.locate(&label.path, label.anchor);
        Place {
            start: found.span.start,
            end: found.span.end,
            text: label.text.clone(),
            path: label.path.to_string(),
        }
    };
    let primary = place(&finding.primary);
    let related = finding.related.iter().map(place).collect();
    let suppressed = suppression(workload, &finding);
    Located {
        file: document.source.file.clone(),
        document: document.index,
        workload: workload.reference(),
        origin: document.origin.clone(),
        primary,
        related,
        source: document.source.clone(),
        suppressed,
        finding,
    }
}

/// `ignore-check.mesh-lifecycle.io/<id or name>: "<reason>"` or
/// `mesh-lifecycle.io/ignore-all: "<reason>"` on the object or its pod template.
fn suppression(workload: &workload::Workload, finding: &Finding) -> Option<String> {
    let keys = [
        format!("ignore-check.mesh-lifecycle.io/{}", finding.rule.id),
        format!("ignore-check.mesh-lifecycle.io/{}", finding.rule.name),
        format!("{}ignore-all", resolve::ANNOTATION_PREFIX),
    ];
    keys.iter().find_map(|key| {
        workload
            .annotation(key)
            .map(|(reason, _)| reason.to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_input_read_in_pieces_is_one_stream() {
        let text: String = (0..300_000).map(|i| format!("key{i}: value\n")).collect();
        let Stdin::Read(pieces) = read_pieces(&mut text.as_bytes()) else {
            panic!("reading from memory cannot fail");
        };
        assert!(pieces.len() > 3, "lines cross piece boundaries");
        assert!(pieces.iter().all(|piece| piece.len() as u64 <= STDIN_PIECE));
        let reader = || PieceReader {
            pieces: Arc::clone(&pieces),
            index: 0,
            offset: 0,
        };
        let mut whole = String::new();
        reader().read_to_string(&mut whole).unwrap();
        assert_eq!(whole, text);
        let lines: Vec<String> = reader().lines().map(Result::unwrap).collect();
        assert_eq!(lines.len(), 300_000);
        assert_eq!(lines[299_999], "key299999: value");
    }

    #[test]
    fn standard_input_that_cannot_be_read_is_an_input_error() {
        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::Error::from(std::io::ErrorKind::IsADirectory))
            }
        }
        let inputs = Inputs {
            inputs: vec![Input::Stdin],
            stdin: read_pieces(&mut Broken),
            parsed: Mutex::default(),
        };
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
    fn small_inputs_are_measured_before_threads_start() {
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("small.yaml");
        std::fs::write(&small, "kind: ConfigMap\n").unwrap();
        let files = Inputs::new(vec![Input::File(small.clone())]);
        assert!(files.smaller_than(PARALLEL_FROM_BYTES));
        assert!(!files.smaller_than(16));
        let missing = Inputs::new(vec![Input::File(dir.path().join("gone.yaml"))]);
        assert!(
            !missing.smaller_than(PARALLEL_FROM_BYTES),
            "unmeasured counts as large"
        );
        let stdin = Inputs::from_bytes(vec![b' '; PARALLEL_FROM_BYTES as usize]);
        assert!(!stdin.smaller_than(PARALLEL_FROM_BYTES));
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

    #[test]
    fn owned_inputs_report_under_their_owner_once() {
        // The same hazard in a Deployment's template, in two of its pods, and one only
        // a pod shows: three findings become two, all the Deployment's.
        let template = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  template:\n    spec:\n      terminationGracePeriodSeconds: 5\n      containers:\n      - name: app\n        image: app\n        lifecycle: {preStop: {exec: {command: [sleep, '10']}}}\n";
        let pod = |name: &str, extra: &str| {
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n  terminationGracePeriodSeconds: 5\n  containers:\n  - name: app\n    image: app\n    lifecycle: {{preStop: {{exec: {{command: [sleep, '10']}}}}}}\n{extra}"
            )
        };
        let inputs = Inputs::new(
            [
                ("Deployment/shop/web", template.to_owned()),
                ("Pod/shop/web-1", pod("web-1", "")),
                (
                    "Pod/shop/web-2",
                    pod(
                        "web-2",
                        "  - name: side\n    image: side\n    lifecycle: {preStop: {exec: {command: [sleep, '9']}}}\n",
                    ),
                ),
            ]
            .into_iter()
            .map(|(name, text)| Input::Memory {
                name: Arc::from(name),
                bytes: Arc::from(text.into_bytes()),
            })
            .collect(),
        );
        let mut reports = Vec::new();
        run(&inputs, &Settings::default(), &RunOptions::default(), |r| {
            reports.push(r)
        });
        let web = WorkloadRef {
            kind: crate::workload::Kind::Deployment,
            name: "web".into(),
            namespace: Some("shop".into()),
        };
        let owners = HashMap::from([
            (Arc::from("Pod/shop/web-1"), web.clone()),
            (Arc::from("Pod/shop/web-2"), web.clone()),
        ]);
        let reports = attribute(reports, &owners);
        let analyses: Vec<&Analysis> = reports.iter().flat_map(|r| &r.analyses).collect();
        assert_eq!(analyses.len(), 1, "the pods are merged into the Deployment");
        let ml206: Vec<(&str, Option<&str>)> = analyses[0]
            .findings
            .iter()
            .filter(|f| f.finding.rule.id == "ML206")
            .map(|f| (&*f.file, f.finding.container.as_deref()))
            .collect();
        assert_eq!(
            ml206,
            [
                ("Deployment/shop/web", Some("app")),
                ("Pod/shop/web-2", Some("side"))
            ]
        );
        assert!(analyses[0].findings.iter().all(|f| f.workload == web));
        // Without the owner among the inputs, the first owned analysis stands for it.
        let alone = Inputs::new(vec![Input::Memory {
            name: Arc::from("Pod/shop/web-1"),
            bytes: Arc::from(pod("web-1", "").into_bytes()),
        }]);
        let mut reports = Vec::new();
        run(&alone, &Settings::default(), &RunOptions::default(), |r| {
            reports.push(r)
        });
        let reports = attribute(reports, &owners);
        assert_eq!(reports[0].analyses.len(), 1);
        assert!(
            reports[0].analyses[0]
                .findings
                .iter()
                .all(|f| f.workload == web)
        );
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
