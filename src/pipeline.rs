//! Drives the pipeline's stages over every input: load → workload → resolve →
//! simulate → rules, then hands each document's results, in input order, to a sink.
//!
//! Documents are processed on all cores. A reader thread cuts inputs into documents;
//! workers run the stages; results are handed out strictly in input order, so output
//! is byte-identical to a single-threaded run. At most a fixed number of documents are
//! in flight, which bounds memory by the largest documents, not by the input (a stream,
//! which can be read only once, is held as its documents: [`load::inputs`]). When the
//! system refuses threads, fewer do the work, down to the calling thread.

use std::collections::BTreeMap;
use std::collections::HashMap;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};

use crate::fix::rounds::{self, Analysed, Analyze};
use crate::fix::{self, Applicability, compare::Graded};
use crate::load::inputs::Unit;
use crate::load::split::Framing;
use crate::load::{self, InputError, Inputs, Limits, Pos};
pub use crate::report::located::{Analysis, DocumentReport, Located, Place};
use crate::resolve::{self, Registry};
use crate::rules::selector::Policy;
use crate::rules::suppression::suppression;
use crate::rules::{self, Finding};
use crate::settings::Settings;
use crate::simulate;
use crate::workload::{self, WorkloadRef};

/// Options of a run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Bounds on hostile input.
    pub limits: Limits,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// Which rules run and at what severity.
    pub policy: Policy,
    /// What is done with the fixes findings carry.
    pub fixes: FixMode,
    /// The sidecar models resolve runs: the standard ones unless a caller brings its
    /// own.
    pub models: &'static Registry,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            limits: Limits::default(),
            threads: 0,
            policy: Policy::default(),
            fixes: FixMode::default(),
            models: Registry::standard(),
        }
    }
}

/// What a run does with the fixes its findings carry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FixMode {
    /// Each is checked against the timeline ([`fix::rounds::verify`]); one that fails is
    /// `Err(reason)`: what every report that shows fixes needs.
    #[default]
    Verify,
    /// Built, not checked: for reports that never show them.
    Unchecked,
    /// Each piece's text fixed to a fixed point with the fixes at least this safe
    /// ([`fix::rounds::fix`]); its [`DocumentReport::fixed`] says what was made.
    Apply(Applicability),
}

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
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    }
    .min(MAX_THREADS);
    let mut workers = Workers {
        wanted: threads,
        running: 1,
        failure: None,
    };
    let work = |unit: Unit| process_contained(unit, settings, options);
    if threads <= 1 {
        inputs.read_indexed(|input, unit| sink(input, work(unit)));
        return workers;
    }
    // Documents in flight: queued, being processed, or waiting for their turn.
    let in_flight = threads * 4;
    let (work_tx, work_rx) = mpsc::sync_channel::<(u64, usize, Unit)>(in_flight);
    let (done_tx, done_rx) = mpsc::channel::<(u64, usize, DocumentReport)>();
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
                inputs.read_indexed(|input, unit| {
                    if token_rx.recv().is_err() {
                        return;
                    }
                    let _ = work_tx.send((seq, input, unit));
                    seq += 1;
                });
            });
        if let Err(error) = reader {
            // Nothing was started: this thread reads and checks every document itself.
            workers.failure = Some(load::discover::describe_io(&error));
            inputs.read_indexed(|input, unit| sink(input, work(unit)));
            return;
        }
        let mut started = 0;
        for index in 0..threads {
            let work_rx = Arc::clone(&work_rx);
            let done_tx = done_tx.clone();
            let worker = std::thread::Builder::new()
                .name(format!("worker-{index}"))
                .spawn_scoped(scope, move || {
                    loop {
                        let next = work_rx.lock().map(|rx| rx.recv());
                        let Ok(Ok((seq, input, unit))) = next else {
                            break;
                        };
                        if done_tx.send((seq, input, work(unit))).is_err() {
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
                let Ok(Ok((_, input, unit))) = next else {
                    break;
                };
                sink(input, work(unit));
                let _ = token_tx.send(());
            }
            return;
        }
        workers.running = started;
        let mut waiting = BTreeMap::new();
        let mut next = 0u64;
        for (seq, input, report) in done_rx {
            waiting.insert(seq, (input, report));
            while let Some((input, report)) = waiting.remove(&next) {
                sink(input, report);
                next += 1;
                let _ = token_tx.send(());
            }
        }
    });
    workers
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

/// The threads one piece may use: `-j`, or one per core.
fn threads(options: &RunOptions) -> usize {
    match options.threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    }
}

/// Where a piece is in its input and how its text is read: what reading an edited
/// version of it again needs.
#[derive(Clone)]
struct Piece {
    file: Arc<str>,
    first_index: usize,
    first_line: u32,
    framing: Framing,
}

/// A piece no fix could be made in, as its text was read.
fn unchanged(text: Arc<str>, first_line: u32) -> rounds::FixedPiece {
    rounds::FixedPiece {
        original: text.clone(),
        text,
        first_line,
        made: Vec::new(),
        refused: Vec::new(),
        rendered_from: None,
        unfinished: false,
    }
}

/// The stages over a piece's edited text, for the fix loop.
struct Stages<'a> {
    piece: &'a Piece,
    settings: &'a Settings,
    options: &'a RunOptions,
}

impl Analyze for Stages<'_> {
    fn analyze(&self, text: Arc<str>) -> Analysed {
        self.analyze_at(text, self.piece.first_line)
    }

    fn analyze_at(&self, text: Arc<str>, first_line: u32) -> Analysed {
        let piece = &Piece {
            first_line,
            ..self.piece.clone()
        };
        match load::parse_text(
            &piece.file,
            piece.first_line,
            text.clone(),
            &piece.framing,
            piece.first_index,
            &self.options.limits,
        ) {
            Ok(documents) => analyze(
                &documents,
                Vec::new(),
                text,
                piece,
                self.settings,
                self.options,
            ),
            Err(error) => Analysed {
                text,
                first_index: piece.first_index,
                first_line: piece.first_line,
                report: DocumentReport {
                    errors: vec![error],
                    ..DocumentReport::default()
                },
                graded: Vec::new(),
            },
        }
    }
}

/// Every workload of `documents`, the parsed `text` of one piece, analysed: plan,
/// timeline, the findings the policy reports with their fixes built, and every rule's
/// findings graded for the fix loop's comparison.
fn analyze(
    documents: &[load::Document],
    errors: Vec<InputError>,
    text: Arc<str>,
    piece: &Piece,
    settings: &Settings,
    options: &RunOptions,
) -> Analysed {
    let mut report = DocumentReport {
        errors,
        ..DocumentReport::default()
    };
    let mut graded = Vec::new();
    for document in documents {
        analyse_document(document, settings, options, &mut report, &mut graded);
    }
    Analysed {
        text,
        first_index: piece.first_index,
        first_line: piece.first_line,
        report,
        graded,
    }
}

/// A `List` with at least this many items has them analysed on several threads.
const PARALLEL_ITEMS: usize = 32;

/// Runs the stages after loading over one document: each object of a `List` (on
/// several threads when there are many, as `kubectl get -A -o yaml` prints a whole
/// cluster), else the document's one object. The results, and the findings graded for
/// the fix loop, are in document order whatever the threads.
fn analyse_document(
    document: &load::Document,
    settings: &Settings,
    options: &RunOptions,
    report: &mut DocumentReport,
    graded: &mut Vec<Graded>,
) {
    let context = workload::Context {
        declared: &settings.workload_kinds,
        templates: Some(&settings.templates),
    };
    // Built for the document's first fix, then shared by all its fixes.
    let editor = OnceLock::new();
    let object = |item: Option<usize>, part: &mut (DocumentReport, Vec<Graded>)| {
        let (report, graded) = part;
        let mut objects = workload::Objects::default();
        workload::objects_at(document, item, &context, &mut objects);
        report.errors.extend(objects.errors);
        report.notes.extend(objects.notes);
        for workload in &objects.workloads {
            report.analyses.push(analysis(
                document, workload, settings, options, &editor, graded,
            ));
        }
    };
    let mut whole = (std::mem::take(report), std::mem::take(graded));
    let threads = threads(options);
    match workload::list_items(&document.root) {
        None => object(None, &mut whole),
        Some(items) if threads < 2 || items.len() < PARALLEL_ITEMS => {
            (0..items.len()).for_each(|item| object(Some(item), &mut whole));
        }
        Some(items) => {
            let count = items.len();
            let share = count.div_ceil(threads);
            let run = |from: usize| {
                let mut part = Default::default();
                (from..(from + share).min(count)).for_each(|item| object(Some(item), &mut part));
                part
            };
            let parts: Vec<(DocumentReport, Vec<Graded>)> = std::thread::scope(|scope| {
                let workers: Vec<_> = (0..count)
                    .step_by(share)
                    .map(|from| {
                        let run = &run;
                        let worker = std::thread::Builder::new()
                            .name("list-items".into())
                            .spawn_scoped(scope, move || run(from));
                        (from, worker)
                    })
                    .collect();
                workers
                    .into_iter()
                    .map(|(from, worker)| match worker {
                        // A panic there is one on this document, contained by the caller.
                        Ok(worker) => worker
                            .join()
                            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                        // No thread: this one does its share.
                        Err(_) => run(from),
                    })
                    .collect()
            });
            for (part, part_graded) in parts {
                whole.0.errors.extend(part.errors);
                whole.0.notes.extend(part.notes);
                whole.0.analyses.extend(part.analyses);
                whole.1.extend(part_graded);
            }
        }
    }
    (*report, *graded) = whole;
}

/// One workload's analysis: its plan, timeline and findings, located; every rule's
/// findings graded into `graded` when the run checks or makes fixes.
fn analysis<'d>(
    document: &'d load::Document,
    workload: &workload::Workload,
    settings: &Settings,
    options: &RunOptions,
    editor: &OnceLock<fix::Editor<'d>>,
    graded: &mut Vec<Graded>,
) -> Analysis {
    let plan = resolve::resolve_with(workload, settings, options.models);
    let timeline = simulate::simulate(&plan);
    let findings = rules::check(&rules::Pod {
        plan: &plan,
        timeline: &timeline,
    });
    let reference = workload.reference();
    if options.fixes != FixMode::Unchecked {
        graded.extend(findings.iter().map(|finding| {
            Graded::new(
                finding,
                document.index,
                &reference,
                options.policy.grade(finding),
            )
        }));
    }
    let mut located: Vec<Located> = findings
        .into_iter()
        .filter_map(|finding| options.policy.judge(finding))
        .map(|finding| locate(finding, document, workload, editor))
        .collect();
    located.sort_by(|a, b| {
        (a.primary.start, a.finding.rule.id).cmp(&(b.primary.start, b.finding.rule.id))
    });
    Analysis {
        file: document.source.file.clone(),
        document: document.index,
        documents: document.count,
        origin: origin(document, &reference),
        plan,
        timeline,
        findings: located,
    }
}

/// Whether no stage can use the document of `unit`, so that it need not be parsed: a
/// YAML document [`load::skim`] finds well formed, of a kind the workload stage does not
/// read ([`workload::reads`]). What [`process`] makes of such a document is an empty
/// report, as it is without parsing it. The kind written on its `kind:` line is looked
/// at first, so that a workload, read anyway, is not skimmed too.
fn passed_over(unit: &Unit, settings: &Settings) -> bool {
    let Unit::Text { text, framing, .. } = unit else {
        return false;
    };
    if framing.syntax != load::split::Syntax::Yaml {
        return false;
    }
    let declared = &settings.workload_kinds;
    let hint = load::skim::kind_hint(text);
    if hint.is_none_or(|kind| kind == "List" || workload::is_workload_kind(kind, declared)) {
        return false;
    }
    load::skim::skim(text).is_some_and(|outline| !workload::reads(&outline, text, declared))
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

/// [`attribute`] as reports arrive, for a run whose inputs that own or are owned come
/// first (a cluster's workloads and the pods linted on their behalf): their reports are
/// held until the first report of another input (a pod linted as itself), then
/// attributed and handed to the sink; every later report goes to the sink as it comes.
/// So a cluster of many pods without owners is reported as it is checked, not held.
pub struct Attributing<'a, F: FnMut(DocumentReport)> {
    owners: &'a HashMap<Arc<str>, WorkloadRef>,
    /// The inputs whose reports are held: owners and what they own.
    held_inputs: &'a std::collections::HashSet<Arc<str>>,
    /// The reports held so far; `None` once they went to the sink.
    held: Option<Vec<DocumentReport>>,
    sink: F,
}

impl<'a, F: FnMut(DocumentReport)> Attributing<'a, F> {
    /// Attributes with `owners`, holding the reports of `held_inputs`.
    pub fn new(
        owners: &'a HashMap<Arc<str>, WorkloadRef>,
        held_inputs: &'a std::collections::HashSet<Arc<str>>,
        sink: F,
    ) -> Self {
        Attributing {
            owners,
            held_inputs,
            held: Some(Vec::new()),
            sink,
        }
    }

    /// Takes the next report, in input order.
    pub fn push(&mut self, report: DocumentReport) {
        let held = input_of(&report).is_none_or(|input| self.held_inputs.contains(input));
        match &mut self.held {
            Some(reports) if held => reports.push(report),
            Some(_) => {
                self.release();
                (self.sink)(report);
            }
            None => (self.sink)(report),
        }
    }

    /// Hands on what is still held, once every report has come.
    pub fn finish(mut self) {
        self.release();
    }

    fn release(&mut self) {
        if let Some(reports) = self.held.take() {
            attribute(reports, self.owners)
                .into_iter()
                .for_each(&mut self.sink);
        }
    }
}

/// The input a report is about; `None` for a report without anything in it.
fn input_of(report: &DocumentReport) -> Option<&Arc<str>> {
    report
        .analyses
        .first()
        .map(|analysis| &analysis.file)
        .or_else(|| report.errors.first().map(|error| &error.file))
        .or_else(|| report.notes.first().map(|note| &note.error.file))
}

/// Resolves a finding's paths to positions while the document's tree is alive, and
/// builds its fix with the document's `editor`. Nothing here reads the document beyond
/// the nodes the finding names: a `List` of a thousand workloads costs per finding what
/// a single workload does. A finding of a rendered input points into the source file
/// that says what the rendered document does, where one does ([`load::rendered`]), and
/// names the files it came from otherwise.
fn locate<'d>(
    finding: Finding,
    document: &'d load::Document,
    workload: &workload::Workload,
    editor: &OnceLock<fix::Editor<'d>>,
) -> Located {
    let reference = workload.reference();
    if let Some(rendering) = &document.rendered
        && let Some(located) = relocate(&finding, document, &reference, rendering, workload)
    {
        return located;
    }
    let place = |label: &rules::Label| {
        let found = document.locate(&label.path, label.part);
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
    let fix = finding.fix.as_ref().map(|remedy| {
        let editor =
            editor.get_or_init(|| fix::Editor::of_document(&document.source, &document.root));
        editor.plan(remedy).map_err(|error| error.reason)
    });
    Located {
        file: document.source.file.clone(),
        document: document.index,
        origin: origin(document, &reference),
        workload: reference,
        primary,
        related,
        source: document.source.clone(),
        suppressed,
        baselined: false,
        fix,
        finding,
    }
}

/// Where the workload `reference` of `document` was rendered from: its Helm template
/// (`# Source:`), or the files a kustomization read it from.
fn origin(document: &load::Document, reference: &WorkloadRef) -> Option<String> {
    match &document.rendered {
        Some(rendering) => rendering.origin(
            reference.kind.as_str(),
            reference.namespace.as_deref(),
            &reference.name,
            document.origin.as_deref(),
        ),
        None => document.origin.clone(),
    }
}

/// A finding of a rendered document at its places in the source file that holds them
/// all, when one does: its fix, made for the rendered text, is left to that file's
/// owner.
fn relocate(
    finding: &Finding,
    document: &load::Document,
    reference: &WorkloadRef,
    rendering: &load::rendered::Rendering,
    workload: &workload::Workload,
) -> Option<Located> {
    let labels: Vec<&rules::Label> = std::iter::once(&finding.primary)
        .chain(&finding.related)
        .collect();
    let paths: Vec<(&load::JsonPath, load::EntryPart)> = labels
        .iter()
        .map(|label| (&label.path, label.part))
        .collect();
    let moved = rendering.relocate(
        document,
        (
            reference.kind.as_str(),
            reference.namespace.as_deref(),
            &reference.name,
        ),
        &paths,
    )?;
    let mut places = labels
        .iter()
        .zip(&moved.places)
        .filter_map(|(label, place)| {
            let (start, end) = (*place)?;
            Some(Place {
                start,
                end,
                text: label.text.clone(),
                path: label.path.to_string(),
            })
        });
    let primary = places.next()?;
    Some(Located {
        file: moved.source.file.clone(),
        document: moved.document,
        workload: reference.clone(),
        origin: Some(format!("the kustomization {}", rendering.dir.display())),
        primary,
        related: places.collect(),
        source: moved.source,
        suppressed: suppression(workload, finding),
        baselined: false,
        fix: finding
            .fix
            .as_ref()
            .map(|_| Err("the manifest is rendered by kustomize: change its source".to_owned())),
        finding: finding.clone(),
    })
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
        crate::settings::layers::gather_context(&inputs, Limits::default(), &mut settings);
        assert!(settings.namespaces.contains_key("shop"));
        let mut workloads = 0;
        run(&inputs, &settings, &RunOptions::default(), |report| {
            assert!(report.errors.is_empty(), "{:?}", report.errors);
            workloads += report.analyses.len();
        });
        assert_eq!(workloads, 1);
    }

    #[test]
    fn fewer_threads_than_wanted_are_worth_a_sentence() {
        let all = Workers {
            wanted: 4,
            running: 4,
            failure: None,
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

    #[test]
    fn attributing_holds_only_the_owners_and_what_they_own() {
        let pod = |name: &str| {
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n  terminationGracePeriodSeconds: 5\n  containers:\n  - name: app\n    image: app\n    lifecycle: {{preStop: {{exec: {{command: [sleep, '10']}}}}}}\n"
            )
        };
        let inputs = Inputs::new(
            ["Pod/shop/web-1", "Pod/shop/alone-1", "Pod/shop/alone-2"]
                .into_iter()
                .map(|name| load::Input::Memory {
                    name: Arc::from(name),
                    bytes: Arc::from(pod(name.rsplit('/').next().unwrap()).into_bytes()),
                })
                .collect(),
            load::ReadLimits::default(),
            None,
        );
        let web = WorkloadRef {
            kind: crate::workload::Kind::Deployment,
            name: "web".into(),
            namespace: Some("shop".into()),
        };
        let owners = HashMap::from([(Arc::from("Pod/shop/web-1"), web.clone())]);
        let held = std::collections::HashSet::from([Arc::from("Pod/shop/web-1")]);
        let mut seen: Vec<(String, String)> = Vec::new();
        let mut attributing = Attributing::new(&owners, &held, |report: DocumentReport| {
            for analysis in report.analyses {
                let workload = analysis.findings[0].workload.name.clone();
                seen.push((analysis.file.to_string(), workload));
            }
        });
        let mut fed = 0;
        run(
            &inputs,
            &Settings::default(),
            &RunOptions::default(),
            |report| {
                fed += 1;
                attributing.push(report);
            },
        );
        attributing.finish();
        assert_eq!(fed, 3);
        let seen: Vec<(&str, &str)> = seen
            .iter()
            .map(|(file, workload)| (file.as_str(), workload.as_str()))
            .collect();
        assert_eq!(
            seen,
            [
                ("Pod/shop/web-1", "web"),
                ("Pod/shop/alone-1", "alone-1"),
                ("Pod/shop/alone-2", "alone-2")
            ],
            "the held report attributed to its owner, then the others as they came"
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
            .map(|(name, text)| load::Input::Memory {
                name: Arc::from(name),
                bytes: Arc::from(text.into_bytes()),
            })
            .collect(),
            load::ReadLimits::default(),
            None,
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
        let alone = Inputs::new(
            vec![load::Input::Memory {
                name: Arc::from("Pod/shop/web-1"),
                bytes: Arc::from(pod("web-1", "").into_bytes()),
            }],
            load::ReadLimits::default(),
            None,
        );
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
}
