//! One document through the stages after loading: each workload's plan, timeline and
//! findings, the fix loop's view of a piece, and each finding located in its source.

use std::sync::{Arc, OnceLock};

use super::fix::FixedPiece;
use super::fix::compare::Graded;
use super::fix::{Analysed, Analyze, Purpose};
use crate::fan_out;
use crate::fix;
use crate::load::inputs::Unit;
use crate::load::split::Framing;
use crate::load::{self, InputError};
pub use crate::pipeline::located::{Analysis, DocumentReport, Located, Place};
use crate::resolve::{self};
use crate::rules::suppression::suppression;
use crate::rules::{self, Finding};
use crate::settings::Settings;
use crate::simulate;
use crate::workload::{self, WorkloadRef};

use super::{FixMode, RunOptions, threads};

/// Where a piece is in its input and how its text is read: what reading an edited
/// version of it again needs.
#[derive(Clone)]
pub(super) struct Piece {
    pub(super) file: Arc<str>,
    pub(super) first_index: usize,
    pub(super) first_line: u32,
    pub(super) framing: Framing,
}

/// A piece no fix could be made in, as its text was read.
pub(super) fn unchanged(text: Arc<str>, first_line: u32) -> FixedPiece {
    FixedPiece {
        original: text.clone(),
        text,
        first_line,
        made: Vec::new(),
        also_cleared: 0,
        hidden: 0,
        refused: Vec::new(),
        rendered_from: None,
        unfinished: false,
    }
}

/// The stages over a piece's edited text, for the fix loop.
pub(super) struct Stages<'a> {
    pub(super) piece: &'a Piece,
    pub(super) settings: &'a Settings,
    pub(super) options: &'a RunOptions,
}

impl Analyze for Stages<'_> {
    fn analyze(&self, text: Arc<str>) -> Analysed {
        self.analyze_at(text, self.piece.first_line, Purpose::State)
    }

    fn threads(&self) -> usize {
        threads(self.options)
    }

    fn analyze_at(&self, text: Arc<str>, first_line: u32, purpose: Purpose) -> Analysed {
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
            1,
        ) {
            Ok(documents) => analyze(
                &documents,
                Vec::new(),
                text,
                piece,
                self.settings,
                self.options,
                Reading::Fixed(purpose),
            ),
            Err(error) => Analysed {
                text: text.clone(),
                first_index: piece.first_index,
                first_line: piece.first_line,
                // Said as a reading of the fixed text alone, where it went wrong.
                decoded: Some(fix::verify::decode_stream(&text)),
                report: DocumentReport {
                    errors: vec![error],
                    ..DocumentReport::default()
                },
                graded: Vec::new(),
            },
        }
    }
}

/// Which text of a piece an analysis reads.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Reading {
    /// The text as read: its documents are decoded ([`Analysed::decoded`]) when the run
    /// checks fixes and a finding has one.
    AsRead,
    /// A text with fixes made, analysed for `Purpose`; its documents always decoded.
    Fixed(Purpose),
}

/// Every workload of `documents`, the parsed `text` of one piece, analysed: plan,
/// timeline, the findings the policy reports with their fixes built (none for a
/// check's analysis), every rule's findings graded for the fix loop's comparison, and
/// the documents decoded when `reading` asks for them.
pub(super) fn analyze(
    documents: &[load::Document],
    errors: Vec<InputError>,
    text: Arc<str>,
    piece: &Piece,
    settings: &Settings,
    options: &RunOptions,
    reading: Reading,
) -> Analysed {
    // A text part of which did not load is decoded again by the check, which says so.
    // A `List`'s fixes are checked on each item's text alone, which decodes it: the
    // whole `List` decoded would go unused.
    let decodable = errors.is_empty()
        && documents
            .iter()
            .all(|document| workload::list_items(&document.root).is_none());
    let mut report = DocumentReport {
        errors,
        ..DocumentReport::default()
    };
    let mut graded = Vec::new();
    let locating = reading != Reading::Fixed(Purpose::Check);
    for document in documents {
        analyse_document(
            document,
            settings,
            options,
            locating,
            &mut report,
            &mut graded,
        );
    }
    let fixed = || {
        report
            .analyses
            .iter()
            .flat_map(|analysis| &analysis.findings)
            .any(|located| located.checked_fix().is_some())
    };
    let decoded = (reading != Reading::AsRead
        || (decodable && options.fixes != FixMode::Unchecked && fixed()))
    .then(|| {
        Ok(documents
            .iter()
            .map(|document| (document.index - piece.first_index, document.root.to_json()))
            .collect())
    });
    Analysed {
        text,
        first_index: piece.first_index,
        first_line: piece.first_line,
        report,
        graded,
        decoded,
    }
}

/// A `List` with at least this many items has them analysed on several threads.
const PARALLEL_ITEMS: usize = 32;

/// Runs the stages after loading over one document: each object of a `List` (on
/// several threads when there are many, as `kubectl get -A -o yaml` prints a whole
/// cluster), else the document's one object. The results, and the findings graded for
/// the fix loop, are in document order whatever the threads; findings are located
/// only with `locating`.
fn analyse_document(
    document: &load::Document,
    settings: &Settings,
    options: &RunOptions,
    locating: bool,
    report: &mut DocumentReport,
    graded: &mut Vec<Graded>,
) {
    // Built for the document's first fix, then shared by all its fixes.
    let editor = OnceLock::new();
    let object = |item: Option<usize>, part: &mut (DocumentReport, Vec<Graded>)| {
        let (report, graded) = part;
        analyse_object(
            document, item, settings, options, locating, &editor, report, graded,
        );
    };
    let mut whole = (std::mem::take(report), std::mem::take(graded));
    let threads = threads(options);
    match workload::list_items(&document.root) {
        None => object(None, &mut whole),
        Some(items) if threads < 2 || items.len() < PARALLEL_ITEMS => {
            (0..items.len()).for_each(|item| object(Some(item), &mut whole));
        }
        Some(items) => {
            let parts: Vec<(DocumentReport, Vec<Graded>)> =
                fan_out::in_shares(items.len(), threads, "list-items", |share| {
                    let mut part = Default::default();
                    share.for_each(|item| object(Some(item), &mut part));
                    part
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

/// Runs the stages after loading over one object of `document`: item `item` of a
/// `List`, else the document's one object. Its results go to `report`, and its
/// findings graded for the fix loop to `graded`; findings are located only with
/// `locating`, their fixes built with `editor`, the document's.
#[allow(clippy::too_many_arguments)]
pub(super) fn analyse_object<'d>(
    document: &'d load::Document,
    item: Option<usize>,
    settings: &Settings,
    options: &RunOptions,
    locating: bool,
    editor: &OnceLock<fix::Editor<'d>>,
    report: &mut DocumentReport,
    graded: &mut Vec<Graded>,
) {
    let context = workload::Context {
        declared: &settings.workload_kinds,
        templates: Some(&settings.templates),
    };
    let mut objects = workload::Objects::default();
    workload::objects_at(document, item, &context, &mut objects);
    report.errors.extend(objects.errors);
    report.notes.extend(objects.notes);
    for workload in &objects.workloads {
        report.analyses.push(analysis(
            document, workload, settings, options, locating, editor, graded,
        ));
    }
}

/// One workload's analysis: its plan, timeline and findings, located (with `locating`);
/// every rule's findings graded into `graded` when the run checks or makes fixes.
fn analysis<'d>(
    document: &'d load::Document,
    workload: &workload::Workload,
    settings: &Settings,
    options: &RunOptions,
    locating: bool,
    editor: &OnceLock<fix::Editor<'d>>,
    graded: &mut Vec<Graded>,
) -> Analysis {
    let plan = resolve::resolve_with(workload, settings, options.models);
    let timeline = simulate::simulate(&plan);
    let mut findings = rules::check(&rules::Pod {
        plan: &plan,
        timeline: &timeline,
    });
    super::releases::settle(&mut findings, workload, settings, options.models);
    findings.iter_mut().for_each(rules::applicability::settle);
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
    // An analysis that only decides a check reads the graded findings alone.
    let reported = if locating { findings } else { Vec::new() };
    let mut located: Vec<Located> = reported
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
/// read ([`workload::reads`]). What [`process`](super::process) makes of such a document is an empty
/// report, as it is without parsing it. The kind written on its `kind:` line is looked
/// at first, so that a workload, read anyway, is not skimmed too.
pub(super) fn passed_over(unit: &Unit, settings: &Settings) -> bool {
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
        let scope = &workload.paths.pod_spec;
        if let Some(reason) =
            fix::authored::spoken_against(&document.source, &document.root, scope, remedy)
        {
            return Err(reason);
        }
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
