//! Lists the fuzz targets for `tests/it/fuzz_replay.rs`, which replays each target's
//! corpus and crash cases as an ordinary test: every `fuzz/fuzz_targets/*.rs` there is,
//! so a target added later is replayed without being named anywhere else.
//!
//! Each target is copied into `OUT_DIR` without its crate attributes (`#![no_main]`:
//! the replay is not libFuzzer's binary), its module documentation made a comment, and
//! included in a module of its own; the replay test supplies what the target's
//! `fuzz_target!` and `mesh_lifecycle_fuzz` mean there. The linter itself does not use
//! any of it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs};

fn main() {
    let dir = Path::new("fuzz/fuzz_targets");
    println!("cargo::rerun-if-changed={}", dir.display());
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let copies = out.join("fuzz_targets");
    fs::create_dir_all(&copies).expect("OUT_DIR is writable");
    let mut targets: Vec<(String, PathBuf)> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|entry| entry.path())
                .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
                .filter_map(|path| {
                    let name = path.file_stem()?.to_str()?.to_owned();
                    Some((name, path))
                })
                .collect()
        })
        // A source tree without the fuzz crate (a published package) has no targets.
        .unwrap_or_default();
    targets.sort();
    let mut list = String::new();
    let mut table = String::from(
        "/// A target's name and the function that runs it on an input.\npub type Target = (&'static str, fn(&[u8]));\npub const TARGETS: &[Target] = &[\n",
    );
    for (name, path) in &targets {
        println!("cargo::rerun-if-changed={}", path.display());
        let source = fs::read_to_string(path).expect("a fuzz target is readable");
        let source: String = source
            .lines()
            .filter(|line| !line.trim_start().starts_with("#!["))
            .map(|line| match line.strip_prefix("//!") {
                Some(doc) => format!("//{doc}\n"),
                None => format!("{line}\n"),
            })
            .collect();
        let copy = copies.join(format!("{name}.rs"));
        fs::write(&copy, source).expect("OUT_DIR is writable");
        let module = name.replace('-', "_");
        let _ = writeln!(
            list,
            "pub mod {module} {{\n    #[allow(unused_imports)]\n    use super::{{libfuzzer_sys, mesh_lifecycle_fuzz}};\n    include!({copy:?});\n}}"
        );
        let _ = writeln!(table, "    ({name:?}, {module}::run),");
    }
    table.push_str("];\n");
    fs::write(out.join("fuzz_targets.rs"), list + &table).expect("OUT_DIR is writable");
}
