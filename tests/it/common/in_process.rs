//! Findings from the library in this process, for tests that read what the binary's
//! reports leave out (why a fix was refused) or count the library's own work.

use mesh_lifecycle::load::Inputs;
use mesh_lifecycle::pipeline::located::Located;
use mesh_lifecycle::pipeline::{self, RunOptions};
use mesh_lifecycle::settings::Settings;

/// Lints `text` with the default settings on one thread, giving `each` every finding
/// with its checked fix.
pub fn each_finding(text: &str, each: impl FnMut(&Located)) {
    each_finding_on(text, 1, each);
}

/// [`each_finding`] on `threads` threads.
pub fn each_finding_on(text: &str, threads: usize, mut each: impl FnMut(&Located)) {
    let inputs = Inputs::from_bytes(text.as_bytes().to_vec());
    pipeline::run(
        &inputs,
        &Settings::default(),
        &RunOptions {
            threads,
            ..RunOptions::default()
        },
        |report| {
            for located in report.analyses.iter().flat_map(|a| &a.findings) {
                each(located);
            }
        },
    );
}
