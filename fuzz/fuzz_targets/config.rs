//! Any bytes as `.mesh-lifecycle.yaml`: read, checked and applied, and when valid the
//! settings it makes judge a pod in every format.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    mesh_lifecycle_fuzz::config_file(bytes);
});
