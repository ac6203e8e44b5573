//! The bare parse floor of `lint`: the same inputs, cut into documents and parsed into
//! positioned trees by the library's own loader, on one thread, each tree dropped as
//! soon as it is built. Nothing else: no typed decoding, no rules, no report.
//!
//! ```sh
//! cargo build --release --examples
//! target/release/examples/parse_floor bench/out/corpus/stream-50MB.yaml
//! target/release/examples/parse_floor --split-only DIR   # reading and cutting alone
//! ```
//!
//! Prints one line of JSON to standard output: the bytes and documents read, the
//! largest document, the nodes built, and the seconds spent. Exits 2 if an input could
//! not be read or parsed, as `lint` does.

use std::fs::File;
use std::io::BufReader;
use std::process::ExitCode;
use std::time::Instant;

use mesh_lifecycle::load::{self, Input, Limits, Node, Value, split};

fn main() -> ExitCode {
    let mut split_only = false;
    let mut paths = Vec::new();
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--split-only" => split_only = true,
            "-h" | "--help" => {
                println!("usage: parse_floor [--split-only] PATH...");
                return ExitCode::SUCCESS;
            }
            _ => paths.push(arg),
        }
    }
    let started = Instant::now();
    let limits = Limits::default();
    let found = load::discover(&paths, &load::discover::Discovery::default());
    let (inputs, errors) = (found.inputs, found.errors);
    let mut failed = !errors.is_empty();
    for error in &errors {
        eprintln!("{error}");
    }
    let mut stats = Stats::default();
    for input in &inputs {
        let Input::File(path) = input else {
            eprintln!("parse_floor reads files and directories, not standard input");
            return ExitCode::from(2);
        };
        let file = match File::open(path) {
            Ok(file) => file,
            Err(error) => {
                eprintln!("{}: {error}", path.display());
                failed = true;
                continue;
            }
        };
        stats.files += 1;
        // The same reader and buffer size as the pipeline's.
        let reader = BufReader::with_capacity(1 << 16, file);
        for chunk in split::Splitter::new(reader, limits.max_document_bytes) {
            let chunk = match chunk {
                Ok(chunk) => chunk,
                Err(error) => {
                    eprintln!("{}", load::chunk_error(&input.display_name(), error));
                    failed = true;
                    continue;
                }
            };
            stats.bytes += chunk.text.len();
            stats.largest_document = stats.largest_document.max(chunk.text.len());
            if split_only {
                stats.documents += 1;
                continue;
            }
            match load::parse::parse_documents(&chunk.text, chunk.first_line, &limits) {
                Ok(roots) => {
                    for root in &roots {
                        if root.value != Value::Null {
                            stats.documents += 1;
                            stats.nodes += count_nodes(root);
                        }
                    }
                }
                Err(error) => {
                    eprintln!(
                        "{}:{}:{}: {}",
                        path.display(),
                        error.pos.line,
                        error.pos.column,
                        error.message
                    );
                    failed = true;
                }
            }
        }
    }
    println!(
        "{{\"mode\":\"{}\",\"files\":{},\"documents\":{},\"bytes\":{},\"largestDocumentBytes\":{},\"nodes\":{},\"seconds\":{:.6}}}",
        if split_only { "split" } else { "parse" },
        stats.files,
        stats.documents,
        stats.bytes,
        stats.largest_document,
        stats.nodes,
        started.elapsed().as_secs_f64()
    );
    if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

#[derive(Default)]
struct Stats {
    files: usize,
    documents: usize,
    bytes: usize,
    largest_document: usize,
    nodes: usize,
}

/// Counts the tree's nodes, so that the tree is certainly built and read before it is
/// dropped. Depth is capped by `Limits::max_depth`, so recursion is bounded.
fn count_nodes(node: &Node) -> usize {
    1 + match &node.value {
        Value::Seq(items) => items.iter().map(count_nodes).sum(),
        Value::Map(entries) => entries
            .iter()
            .map(|entry| 1 + count_nodes(&entry.value))
            .sum(),
        _ => 0,
    }
}
