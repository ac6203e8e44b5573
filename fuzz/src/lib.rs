//! What the fuzz targets run: the whole pipeline over one input — load, workload,
//! resolve, simulate, rules — and then every output format over the result.
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
        check: utf8,
    },
    LintFormat {
        name: "table",
        reporter: |out| Box::new(TableReporter::new(out, Style::plain(), false)),
        check: utf8,
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
        check: utf8,
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
        check: utf8,
    },
    ExplainFormat {
        name: "html",
        render: |analyses, settings| explain::html(analyses, settings).into_bytes(),
        check: utf8,
    },
];

fn utf8(out: &[u8]) {
    assert!(std::str::from_utf8(out).is_ok(), "output is not UTF-8");
}

/// A JUnit report: text that starts as XML and closes its outermost element.
fn xml(out: &[u8]) {
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
