//! The identity of a finding that does not change when lines move: its rule, the file
//! it is in, its workload, its container and the manifest path of the node it points
//! at. SARIF carries it as `partialFingerprints.primaryLocationLineHash`, a baseline
//! records it, and `diff` matches the findings of its two sides by it.
//!
//! Hashed with FNV-1a over the parts joined by NUL, as 16 hexadecimal digits, and
//! suffixed with the occurrence among the findings of the same hash (`…:1`, `…:2`), so
//! two findings that would otherwise be one stay two. The hash is part of the output
//! contract: it must not change between releases.

use std::collections::HashMap;

use super::paths::{Artifact, PathBase, encode_path, file_uri};
use crate::pipeline::located::Located;
use crate::workload::WorkloadRef;

/// How reports for a CI server name an input: a URI relative to `base`
/// (percent-encoded), an absolute `file://` URI outside it, `-` for standard input.
/// SARIF's `artifactLocation.uri`.
pub fn uri(base: &PathBase, file: &str) -> String {
    match base.artifact(file) {
        Artifact::Stdin => crate::load::STDIN_NAME.to_owned(),
        Artifact::Relative(path) => encode_path(&path),
        Artifact::Absolute(path) => file_uri(&path, false),
    }
}

/// The line-independent hash of `located`, with its file named `uri`.
pub fn hash(located: &Located, uri: &str) -> u64 {
    hash_parts(
        located.finding.rule.id,
        uri,
        &located.workload,
        located.finding.container.as_deref(),
        &located.primary.path,
    )
}

/// The hash of a finding of `rule` in the file `uri`, about `workload` and
/// `container`, pointing at the manifest path `path`.
pub fn hash_parts(
    rule: &str,
    uri: &str,
    workload: &WorkloadRef,
    container: Option<&str>,
    path: &str,
) -> u64 {
    let key = [
        rule,
        uri,
        workload.kind.as_str(),
        workload.namespace.as_deref().unwrap_or(""),
        &workload.name,
        container.unwrap_or(""),
        path,
    ];
    fnv1a(key.join("\u{0}").as_bytes())
}

/// Numbers the occurrences of each hash in the order findings are seen.
#[derive(Debug, Default)]
pub struct Occurrences(HashMap<u64, usize>);

impl Occurrences {
    /// The fingerprint of the next finding with `hash`: `0123456789abcdef:1` for the
    /// first, `…:2` for the second.
    pub fn next(&mut self, hash: u64) -> String {
        let count = self.0.entry(hash).or_default();
        *count += 1;
        format!("{hash:016x}:{count}")
    }
}

/// FNV-1a, 64 bits: stable across platforms and releases, unlike the standard
/// library's hashers.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_reference_vectors() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn occurrences_are_numbered_per_hash() {
        let mut seen = Occurrences::default();
        assert_eq!(seen.next(1), "0000000000000001:1");
        assert_eq!(seen.next(2), "0000000000000002:1");
        assert_eq!(seen.next(1), "0000000000000001:2");
    }
}
