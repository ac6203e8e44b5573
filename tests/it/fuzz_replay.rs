//! Every fuzz target, replayed on its corpus and its crash cases as an ordinary test, so
//! that `cargo test` keeps what fuzzing found without a fuzzer: a bug fixed once stays
//! fixed.
//!
//! The targets are `fuzz/fuzz_targets/*.rs`, all of them (`build.rs` lists them), each
//! compiled here with its own body: its `fuzz_target!` becomes a function that takes
//! the input's bytes, as libFuzzer hands them over (a structured target builds its
//! input with `arbitrary`, as libfuzzer-sys does). Each is run on:
//!
//! * the seeds `fuzz/seed` gives the fuzzer: every manifest under `testdata/`, and the
//!   target's own in `fuzz/seeds/<target>/`;
//! * `fuzz/corpus/<target>/`, the corpus a local fuzz run grew, when there is one;
//! * `fuzz/regressions/<target>/`: crash cases kept once fixed (committed);
//! * `fuzz/artifacts/<target>/crash-*`, what a local fuzz run found, when there is any;
//! * inputs drawn from a seeded generator, the same on every run, for targets that
//!   build their input from bytes.
//!
//! A real fuzz run is `fuzz/smoke SECONDS` (docs/reliability.md, "Fuzzing").

use crate::common;

use std::path::{Path, PathBuf};

/// What the fuzz crate's library is, here: its source, built into this test.
#[path = "../../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod mesh_lifecycle_fuzz;

/// What a target's `use libfuzzer_sys::…` finds here: `arbitrary`, and libfuzzer-sys's
/// `fuzz_target!` (each of its forms) as a function `run(bytes)` of the target's module.
mod libfuzzer_sys {
    pub use crate::fuzz_target;
    pub use arbitrary;

    #[macro_export]
    macro_rules! fuzz_target {
        (|$bytes:ident| $body:expr) => {
            pub fn run($bytes: &[u8]) {
                let _ = $body;
            }
        };
        (|$data:ident: &[u8]| $body:expr) => {
            pub fn run($data: &[u8]) {
                let _ = $body;
            }
        };
        (|$data:ident: $dty:ty| $body:expr) => {
            pub fn run(bytes: &[u8]) {
                use $crate::fuzz_replay::libfuzzer_sys::arbitrary::{Arbitrary, Unstructured};
                // libfuzzer-sys passes over an input the type cannot be built from.
                if let Ok($data) =
                    <$dty as Arbitrary>::arbitrary_take_rest(Unstructured::new(bytes))
                {
                    let _ = $body;
                }
            }
        };
        (init: $init:expr, |$bytes:ident| $body:expr) => {
            $crate::fuzz_target!(|$bytes| {
                static INIT: std::sync::Once = std::sync::Once::new();
                INIT.call_once(|| {
                    $init;
                });
                $body
            });
        };
        (init: $init:expr, |$data:ident: $dty:ty| $body:expr) => {
            $crate::fuzz_target!(|$data: $dty| {
                static INIT: std::sync::Once = std::sync::Once::new();
                INIT.call_once(|| {
                    $init;
                });
                $body
            });
        };
    }
}

// `TARGETS`: each target's name and `run`, one module per target.
include!(concat!(env!("OUT_DIR"), "/fuzz_targets.rs"));

/// One input: where it comes from, and its bytes.
struct Case {
    name: String,
    bytes: Vec<u8>,
}

/// The files of `dir` (none when it does not exist) whose name `keep` accepts.
fn files(dir: &Path, keep: &dyn Fn(&str) -> bool, out: &mut Vec<Case>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if path.is_dir() {
            files(&path, keep, out);
        } else if keep(name)
            && let Ok(bytes) = std::fs::read(&path)
        {
            out.push(Case {
                name: path.display().to_string(),
                bytes,
            });
        }
    }
}

/// The seeds of `fuzz/seed`: every manifest under `testdata/` smaller than 64 KiB.
fn seeds() -> Vec<Case> {
    let mut out = Vec::new();
    let manifest = |name: &str| {
        [".yaml", ".yml", ".json", ".injected"]
            .iter()
            .any(|ext| name.ends_with(ext))
    };
    files(&common::testdata(""), &manifest, &mut out);
    out.retain(|case| case.bytes.len() < 64 * 1024);
    out
}

/// `count` inputs of up to 4 KiB from a seeded generator (xorshift), the same on every
/// run.
fn generated(count: usize) -> Vec<Case> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|index| {
            let len = (next() % 4096) as usize;
            let bytes = (0..len).map(|_| next() as u8).collect();
            Case {
                name: format!("generated input {index}"),
                bytes,
            }
        })
        .collect()
}

/// Every input of `target`.
fn cases(target: &str) -> Vec<Case> {
    let fuzz = common::root().join("fuzz");
    let mut out = seeds();
    files(&fuzz.join("seeds").join(target), &|_| true, &mut out);
    files(&fuzz.join("corpus").join(target), &|_| true, &mut out);
    files(
        &fuzz.join("regressions").join(target),
        &|name| name != "README.md",
        &mut out,
    );
    files(
        &fuzz.join("artifacts").join(target),
        &|name| name.starts_with("crash-"),
        &mut out,
    );
    out.extend(generated(64));
    out
}

#[test]
fn every_fuzz_target_is_replayed() {
    let mut on_disk: Vec<String> = std::fs::read_dir(common::root().join("fuzz/fuzz_targets"))
        .unwrap()
        .filter_map(|entry| {
            let path = entry.unwrap().path();
            (path.extension()? == "rs").then(|| path.file_stem()?.to_str().map(str::to_owned))?
        })
        .collect();
    on_disk.sort();
    let replayed: Vec<&str> = TARGETS.iter().map(|(name, _)| *name).collect();
    assert_eq!(replayed, on_disk);
    assert!(!replayed.is_empty());
}

#[test]
fn every_fuzz_target_passes_its_corpus_and_crash_cases() {
    let mut failures = Vec::new();
    let mut replayed = 0;
    for (target, run) in TARGETS {
        let cases = cases(target);
        assert!(cases.len() > 64, "{target}: only {} inputs", cases.len());
        let failed: Vec<String> = std::thread::scope(|scope| {
            let halves = cases.chunks(cases.len().div_ceil(2));
            let workers: Vec<_> = halves
                .map(|half| {
                    scope.spawn(move || {
                        half.iter()
                            .filter_map(|case| {
                                let outcome =
                                    std::panic::catch_unwind(|| run(&case.bytes)).err()?;
                                let why = outcome
                                    .downcast_ref::<String>()
                                    .cloned()
                                    .or_else(|| {
                                        outcome.downcast_ref::<&str>().map(|s| (*s).to_owned())
                                    })
                                    .unwrap_or_default();
                                Some(format!("{target} on {}: {why}", case.name))
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().unwrap())
                .collect()
        });
        replayed += cases.len();
        failures.extend(failed);
    }
    assert!(
        failures.is_empty(),
        "{} of {replayed} inputs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
