//! Any bytes as a page of a list kubectl printed for `--cluster`: the cluster reader,
//! the environment it reads, and the pipeline and every format over what it selects.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    mesh_lifecycle_fuzz::cluster_page(bytes);
});
