//! Any bytes as standard input: the whole pipeline and every output format.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mesh_lifecycle::settings::Settings;

fuzz_target!(|bytes: &[u8]| {
    mesh_lifecycle_fuzz::exercise(bytes, Settings::default());
});
