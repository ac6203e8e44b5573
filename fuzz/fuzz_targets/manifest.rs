//! A generated workload manifest (see `manifest.rs`) under a chosen Kubernetes
//! version: deep into resolve, simulate and rules, then every output format.
#![no_main]

use std::fmt;

use libfuzzer_sys::arbitrary::{Arbitrary, Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use mesh_lifecycle::settings::{KubeVersion, Settings, Source, Sourced};

struct Case {
    kubernetes: &'static str,
    manifest: String,
}

impl<'a> Arbitrary<'a> for Case {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        // 1.27: no native sidecars; 1.28: behind a gate; 1.29: ordered termination.
        let kubernetes = *u.choose(&["1.27", "1.28", "1.29", "1.33", "1.34"])?;
        let manifest = mesh_lifecycle_fuzz::manifest::manifest(u)?;
        Ok(Case {
            kubernetes,
            manifest,
        })
    }
}

/// `cargo fuzz fmt manifest <artifact>` prints the manifest as it was linted.
impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "# --kubernetes-version {}\n{}",
            self.kubernetes, self.manifest
        )
    }
}

fuzz_target!(|case: Case| {
    let settings = Settings {
        kubernetes: Sourced::new(
            KubeVersion::parse(case.kubernetes).expect("a known version"),
            Source::Flag("--kubernetes-version"),
        ),
        ..Settings::default()
    };
    mesh_lifecycle_fuzz::exercise(case.manifest.as_bytes(), settings);
});
