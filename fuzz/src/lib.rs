//! What the fuzz targets run: the whole pipeline over one input — load, workload,
//! resolve, simulate, rules — and then every output format over the result; and the
//! other readers of untrusted text: a page of a list as the cluster reader gets it
//! from kubectl ([`cluster_page`]), and the config file ([`config_file`]).
//!
//! A format added to the linter is added here with one line in [`LINT_FORMATS`] or
//! [`EXPLAIN_FORMATS`]; each names what its output must satisfy.

pub mod manifest;

use mesh_lifecycle::load::InputError;
use mesh_lifecycle::load::Inputs;
use mesh_lifecycle::pipeline::{self, Analysis, RunOptions};
use mesh_lifecycle::report::explain;
use mesh_lifecycle::report::github::GithubReporter;
use mesh_lifecycle::report::human::{self, HumanReporter, Style};
use mesh_lifecycle::report::json::JsonReporter;
use mesh_lifecycle::report::junit::JunitReporter;
use mesh_lifecycle::report::paths::PathBase;
use mesh_lifecycle::report::sarif::SarifReporter;
use mesh_lifecycle::report::table::TableReporter;
use mesh_lifecycle::report::{Reporter, Summary};
use mesh_lifecycle::settings::Settings;

/// A `lint --format` output: how to make its reporter over a buffer, and what the
/// buffer must hold once the report is finished.
pub struct LintFormat {
    pub name: &'static str,
    pub reporter: for<'a> fn(&'a mut Vec<u8>) -> Box<dyn Reporter + 'a>,
    pub check: fn(&[u8]),
}

/// An `explain --format` output, rendered from all analyses at once.
pub struct ExplainFormat {
    pub name: &'static str,
    pub render: fn(&[Analysis], &Settings) -> Vec<u8>,
    pub check: fn(&[u8]),
}

pub const LINT_FORMATS: &[LintFormat] = &[
    LintFormat {
        name: "human",
        reporter: |out| {
            Box::new(HumanReporter::new(out, Style::plain(), false, Vec::new()).show_infos(true))
        },
        check: terminal_text,
    },
    LintFormat {
        name: "table",
        reporter: |out| Box::new(TableReporter::new(out, Style::plain(), false)),
        check: terminal_text,
    },
    LintFormat {
        name: "json",
        reporter: |out| Box::new(JsonReporter::new(out)),
        check: json,
    },
    LintFormat {
        name: "sarif",
        reporter: |out| Box::new(SarifReporter::new(out, PathBase::new("/"))),
        check: json,
    },
    LintFormat {
        name: "junit",
        reporter: |out| Box::new(JunitReporter::new(out, PathBase::new("/"))),
        check: xml,
    },
    LintFormat {
        name: "github",
        reporter: |out| Box::new(GithubReporter::new(out, PathBase::new("/"), false, None)),
        check: workflow_commands,
    },
];

pub const EXPLAIN_FORMATS: &[ExplainFormat] = &[
    ExplainFormat {
        name: "text",
        render: |analyses, _| {
            analyses
                .iter()
                .map(|analysis| explain::text(analysis, Style::plain()))
                .collect::<String>()
                .into_bytes()
        },
        check: terminal_text,
    },
    ExplainFormat {
        name: "json",
        render: |analyses, settings| {
            serde_json::to_vec(&explain::json(analyses, settings)).expect("a JSON value prints")
        },
        check: json,
    },
    ExplainFormat {
        name: "svg",
        render: |analyses, _| explain::svg(analyses).into_bytes(),
        check: xml_text,
    },
    ExplainFormat {
        name: "html",
        render: |analyses, settings| explain::html(analyses, settings).into_bytes(),
        check: xml_text,
    },
];

/// Text for a terminal: UTF-8 without a control character but line feeds and tabs
/// (no colour here), whatever the input held.
fn terminal_text(out: &[u8]) {
    let text = std::str::from_utf8(out).expect("output is not UTF-8");
    if let Some(c) = text.chars().find(|&c| mesh_lifecycle::escape::is_unsafe(c)) {
        panic!("a control character reaches the terminal: {c:?} in {text:?}");
    }
}

/// SVG or HTML: UTF-8 holding no character XML 1.0 forbids, whatever the input held.
fn xml_text(out: &[u8]) {
    let text = std::str::from_utf8(out).expect("output is not UTF-8");
    if let Some(c) = text
        .chars()
        .find(|&c| matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}'))
    {
        panic!("a character XML cannot hold: {c:?}");
    }
}

/// A JUnit report: text that starts as XML and closes its outermost element.
fn xml(out: &[u8]) {
    xml_text(out);
    let text = std::str::from_utf8(out).expect("output is not UTF-8");
    assert!(text.starts_with("<?xml"), "not XML: {text}");
    assert!(
        text.trim_end().ends_with("</testsuites>"),
        "unclosed: {text}"
    );
}

/// GitHub workflow commands: one annotation per line (a message cannot break out of
/// its line or start another command: the format escapes newlines), then the summary.
fn workflow_commands(out: &[u8]) {
    terminal_text(out);
    let text = std::str::from_utf8(out).expect("output is not UTF-8");
    let lines: Vec<&str> = text.lines().collect();
    let Some((summary, commands)) = lines.split_last() else {
        panic!("no summary line");
    };
    assert!(!summary.starts_with("::"), "no summary line: {text}");
    for line in commands {
        assert!(
            ["::error ", "::warning ", "::notice "]
                .iter()
                .any(|kind| line.starts_with(kind)),
            "not an annotation: {line:?}"
        );
    }
}

fn json(out: &[u8]) {
    if let Err(error) = serde_json::from_slice::<serde_json::Value>(out) {
        panic!(
            "output is not JSON: {error}\n{}",
            String::from_utf8_lossy(out)
        );
    }
}

/// Runs `bytes` through the pipeline as standard input and renders the result in every
/// format, as `lint` and `explain` would. Panics (the fuzzer's finding) when a stage
/// panics or an output breaks its format's contract.
pub fn exercise(bytes: &[u8], mut settings: Settings) {
    let inputs = Inputs::from_bytes(bytes.to_vec());
    let options = RunOptions {
        // One thread: the fuzzer's coverage and crash reports stay deterministic.
        threads: 1,
        ..RunOptions::default()
    };
    mesh_lifecycle::settings::layers::gather_context(&inputs, options.limits, &mut settings);

    let mut buffers: Vec<Vec<u8>> = LINT_FORMATS.iter().map(|_| Vec::new()).collect();
    let mut reporters: Vec<Box<dyn Reporter + '_>> = LINT_FORMATS
        .iter()
        .zip(buffers.iter_mut())
        .map(|(format, out)| (format.reporter)(out))
        .collect();
    let mut summary = Summary {
        files: inputs.len(),
        ..Summary::default()
    };
    let mut analyses = Vec::new();
    pipeline::run(&inputs, &settings, &options, |report| {
        summary.add(&report);
        for error in &report.errors {
            check_input_error(error);
            for reporter in &mut reporters {
                reporter.input_error(error).expect("writes to memory");
            }
        }
        for reporter in &mut reporters {
            reporter
                .document(&report.analyses)
                .expect("writes to memory");
        }
        analyses.extend(report.analyses);
    });
    for reporter in &mut reporters {
        reporter.finish(&summary).expect("writes to memory");
    }
    drop(reporters);
    for (format, out) in LINT_FORMATS.iter().zip(&buffers) {
        (format.check)(out);
    }
    for format in EXPLAIN_FORMATS {
        (format.check)(&(format.render)(&analyses, &settings));
    }
}

/// An input error is drawn on stderr by the human renderer whatever the format, and
/// must say where it is when it has a document to point into.
fn check_input_error(error: &InputError) {
    assert!(
        !error.message.is_empty(),
        "an input error without a message"
    );
    if error.source.is_some() {
        assert!(
            error.pos.is_some(),
            "an input error with text but no position"
        );
    }
    human::render_input_error(error, Style::plain());
}

/// A pod for the settings a fuzzed config file makes to judge: an Istio-injected
/// Deployment with a preStop hook, a Job's shape aside.
const POD: &[u8] = b"apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    metadata:
      labels: {sidecar.istio.io/inject: \"true\", app: web}
      annotations: {proxy.istio.io/config: \"terminationDrainDuration: 20s\"}
    spec:
      terminationGracePeriodSeconds: 30
      containers:
      - name: app
        image: example/web:1.0
        ports: [{containerPort: 8080}]
        lifecycle: {preStop: {exec: {command: [sleep, \"10\"]}}}
";

/// `bytes` as one page of a list kubectl printed for `--cluster` (`kubectl get --raw
/// …?limit=500`, or `kubectl get -o json`): read as the cluster reader reads it, each
/// object handed to the environment's readers and to the selection of what is linted,
/// and the first objects selected run through the pipeline and every format, as the
/// run would lint them.
pub fn cluster_page(bytes: &[u8]) {
    use mesh_lifecycle::cluster::Identity;
    use mesh_lifecycle::cluster::objects::{self, Selection, Wanted};
    use mesh_lifecycle::cluster::profile::{self, MeshObject};
    let Ok(page) = objects::parse_page(bytes) else {
        return;
    };
    // The environment the objects state, as the cluster reader gathers it.
    let identity = Identity::default();
    let mut cluster = profile::Profile::default();
    for object in &page.objects {
        let (name, namespace) = profile::namespace(object);
        cluster.namespaces.insert(name, namespace);
        let (name, revision) = profile::istiod(object);
        cluster.revisions.insert(name, revision);
        cluster.tags.extend(profile::tag(object));
        if object.name == profile::LINKERD_CONFIG {
            cluster.linkerd = MeshObject::new(object, &identity);
        }
        if let (Some(revision), Some(mesh)) = (
            profile::configmap_revision(&object.name),
            MeshObject::new(object, &identity),
        ) {
            let revision = cluster.revisions.entry(revision.to_owned()).or_default();
            revision.configmaps.push(mesh);
        }
    }
    let mut settings = Settings::default();
    for error in mesh_lifecycle::settings::layers::Layer::apply(&cluster, &mut settings) {
        check_input_error(&error);
    }
    let (pods, workloads): (Vec<_>, Vec<_>) = page
        .objects
        .into_iter()
        .partition(|object| object.kind == "Pod");
    let mut selection = Selection::new(Wanted::Listed(&[]), &[]);
    for object in workloads {
        selection.workload(object, 0);
    }
    selection.close_workloads();
    for pod in pods {
        selection.pod(pod);
    }
    for linted in selection.finish().into_iter().take(3) {
        exercise(linted.text.as_bytes(), settings.clone());
    }
}

/// `bytes` as `.mesh-lifecycle.yaml`: read and applied to the settings as a run applies
/// it; when it is valid, the settings it makes judge a pod in every format.
pub fn config_file(bytes: &[u8]) {
    use mesh_lifecycle::settings::config;
    use mesh_lifecycle::settings::file::SettingsFile;
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let Ok(file) = SettingsFile::parse(".mesh-lifecycle.yaml".into(), text.to_owned()) else {
        return;
    };
    let mut settings = Settings::default();
    if config::apply_file(&file, std::path::Path::new("/nonexistent"), &mut settings).is_ok() {
        exercise(POD, settings);
    }
}
