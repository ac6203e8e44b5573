//! Baselines: the findings a repository already had when it adopted the gate, so that
//! only new ones fail the build (as PHPStan's and detekt's baselines do).
//!
//! `lint --write-baseline FILE` records every unsuppressed finding of the run by its
//! line-independent fingerprint ([`crate::report::fingerprint`], the one SARIF carries
//! as `primaryLocationLineHash`), with the file named relative to the baseline's own
//! directory, so that the baseline holds wherever the linter is run from. `lint
//! --baseline FILE` marks the findings the baseline holds ([`Located::baselined`]); the
//! report counts them, and lists them with `--show-baselined`. An entry that matches no
//! finding of a file the run read is stale: the run names it, so the file can shrink.
//!
//! The file is JSON (docs/baseline.md): a version, then one entry per line, sorted by
//! file, workload, rule, container, path and fingerprint, so that a review sees each
//! finding added or removed as one line.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::load::InputError;
use crate::report::fingerprint::{self, Occurrences};
use crate::report::located::{DocumentReport, Located};
use crate::report::paths::encode_path;
use crate::report::subject;

/// The version of the file format; a reader refuses any other.
pub const VERSION: u32 = 1;

/// The largest baseline read: the limit on one input.
const MAX_BYTES: u64 = 256 << 20;

/// One finding the baseline accepts. Only `fingerprint` decides a match; the other
/// fields say what it is, for a reviewer and for the note about a stale entry.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Entry {
    /// The file, relative to the baseline's directory (as SARIF names it relative to
    /// its base), `-` for standard input.
    pub file: String,
    /// `Deployment shop/web`.
    pub workload: String,
    /// `ML201`.
    pub rule_id: String,
    /// `grace-period-exceeded`.
    pub rule: String,
    /// The container at fault, when one is.
    pub container: Option<String>,
    /// The manifest path of the node the finding points at.
    pub path: String,
    /// The line-independent fingerprint, `0123456789abcdef:1`.
    pub fingerprint: String,
}

/// The file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    version: u32,
    /// The program that wrote it, for a reader who finds the file.
    #[serde(default)]
    #[allow(dead_code)]
    tool: Option<String>,
    findings: Vec<Entry>,
}

/// Names each finding of a run the way a baseline at some directory does.
pub struct Namer {
    /// The baseline's directory, absolute, without `.` or `..`.
    dir: PathBuf,
    occurrences: Occurrences,
}

impl Namer {
    /// Files named relative to `dir`, the baseline's directory.
    pub fn new(dir: &Path) -> Namer {
        Namer {
            dir: normalize(&std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf())),
            occurrences: Occurrences::default(),
        }
    }

    /// How the baseline names the input `file`: its path relative to the baseline's
    /// directory (`../deploy/web.yaml`), percent-encoded as a URI reference, as SARIF
    /// names it relative to its base; standard input and objects read from a cluster
    /// (`Deployment/shop/web`) as reports name them.
    fn name(&self, file: &str) -> String {
        let path = Path::new(file);
        if file == crate::load::STDIN_NAME || !path.exists() {
            return file.to_owned();
        }
        let absolute = normalize(&std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()));
        let (from, to): (Vec<_>, Vec<_>) = (
            self.dir.components().collect(),
            absolute.components().collect(),
        );
        let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
        let parts: Vec<String> = std::iter::repeat_n("..".to_owned(), from.len() - common)
            .chain(
                to[common..]
                    .iter()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned()),
            )
            .collect();
        encode_path(&parts.join("/"))
    }

    /// The entry that records `located`; findings must be named in report order, which
    /// numbers repeated fingerprints.
    pub fn entry(&mut self, located: &Located) -> Entry {
        let file = self.name(&located.file);
        let fingerprint = self.occurrences.next(fingerprint::hash(located, &file));
        Entry {
            file,
            workload: subject(&located.workload),
            rule_id: located.finding.rule.id.to_owned(),
            rule: located.finding.rule.name.to_owned(),
            container: located.finding.container.clone(),
            path: located.primary.path.clone(),
            fingerprint,
        }
    }
}

/// The text of a baseline holding `entries`: sorted, one entry per line.
pub fn render(mut entries: Vec<Entry>) -> String {
    entries.sort();
    entries.dedup();
    let mut text = format!(
        "{{\n  \"version\": {VERSION},\n  \"tool\": \"{}\",\n  \"findings\": [",
        crate::PLUGIN_NAME
    );
    for (index, entry) in entries.iter().enumerate() {
        text.push_str(if index == 0 { "\n    " } else { ",\n    " });
        text.push_str(&serde_json::to_string(entry).expect("an entry serializes"));
    }
    text.push_str(if entries.is_empty() {
        "]\n}\n"
    } else {
        "\n  ]\n}\n"
    });
    text
}

/// A baseline read from its file, matching the findings of a run.
pub struct Baseline {
    /// The file, as given.
    path: Arc<str>,
    namer: Namer,
    /// The entries not matched yet, by fingerprint.
    unmatched: HashMap<String, Entry>,
    /// The files of the run, as the baseline names them: only their entries can be
    /// stale.
    read: BTreeSet<String>,
}

impl Baseline {
    /// Reads the baseline at `path`; the error is an input error at the file, or at
    /// the line of what cannot be read.
    pub fn read(path: &Path) -> Result<Baseline, InputError> {
        let name: Arc<str> = Arc::from(path.to_string_lossy().as_ref());
        let cannot = |reason: String| {
            InputError::whole(name.clone(), format!("cannot read the baseline: {reason}"))
        };
        let bytes = crate::load::open::read_bounded(path, MAX_BYTES)
            .map_err(|error| cannot(error.describe()))?;
        if bytes.len() as u64 > MAX_BYTES {
            return Err(cannot(format!(
                "larger than {}",
                crate::load::size(MAX_BYTES)
            )));
        }
        let text =
            String::from_utf8(bytes).map_err(|_| cannot("it is not UTF-8 text".to_owned()))?;
        let file: File = serde_json::from_str(&text).map_err(|error| {
            let mut input = InputError::whole(
                name.clone(),
                format!("not a baseline this version reads: {error}"),
            );
            if error.line() > 0 {
                input.pos = Some(crate::load::Pos {
                    line: u32::try_from(error.line()).unwrap_or(u32::MAX),
                    column: u32::try_from(error.column()).unwrap_or(u32::MAX),
                });
            }
            input
        })?;
        if file.version != VERSION {
            return Err(InputError::whole(
                name,
                format!(
                    "baseline version {} is not {VERSION}, the version this release reads; write it again with --write-baseline",
                    file.version
                ),
            ));
        }
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let dir = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir
        };
        Ok(Baseline {
            path: name,
            namer: Namer::new(&dir),
            unmatched: file
                .findings
                .into_iter()
                .map(|entry| (entry.fingerprint.clone(), entry))
                .collect(),
            read: BTreeSet::new(),
        })
    }

    /// Marks the findings of `report` the baseline holds, in report order; suppressed
    /// findings are never baselined (the annotation already accepts them).
    pub fn mark(&mut self, report: &mut DocumentReport) {
        for analysis in &mut report.analyses {
            self.read.insert(self.namer.name(&analysis.file));
            for located in &mut analysis.findings {
                if located.suppressed.is_some() {
                    continue;
                }
                let entry = self.namer.entry(located);
                self.read.insert(entry.file.clone());
                located.baselined = self.unmatched.remove(&entry.fingerprint).is_some();
            }
        }
    }

    /// The entries that matched nothing in files the run read, sorted, each as a note
    /// at the baseline file.
    pub fn stale(&self) -> Vec<InputError> {
        let mut stale: Vec<&Entry> = self
            .unmatched
            .values()
            .filter(|entry| self.read.contains(&entry.file))
            .collect();
        stale.sort();
        stale
            .into_iter()
            .map(|entry| {
                let container = entry
                    .container
                    .as_ref()
                    .map(|c| format!(" (container `{c}`)"))
                    .unwrap_or_default();
                InputError::whole(
                    self.path.clone(),
                    format!(
                        "baseline entry {} {} of {}{container} in {} matches no finding any more: remove it (fingerprint {}), or write the baseline again with --write-baseline",
                        entry.rule_id, entry.rule, entry.workload, entry.file, entry.fingerprint
                    ),
                )
            })
            .collect()
    }
}

/// `path` without `.` components, its `..` resolved against what precedes them.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if !out.pop() {
                    out.push(component);
                }
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(file: &str, rule: &str, fingerprint: &str) -> Entry {
        Entry {
            file: file.into(),
            workload: "Deployment web".into(),
            rule_id: rule.into(),
            rule: "r".into(),
            container: None,
            path: "spec".into(),
            fingerprint: fingerprint.into(),
        }
    }

    #[test]
    fn entries_are_sorted_one_per_line() {
        let text = render(vec![
            entry("b.yaml", "ML201", "2:1"),
            entry("a.yaml", "ML301", "1:1"),
        ]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "  \"version\": 1,");
        assert!(lines[4].contains("\"file\":\"a.yaml\""), "{text}");
        assert!(lines[5].contains("\"file\":\"b.yaml\""), "{text}");
        let read: File = serde_json::from_str(&text).unwrap();
        assert_eq!(read.findings.len(), 2);
        assert_eq!(render(Vec::new()), "{\n  \"version\": 1,\n  \"tool\": \"kubectl mesh-lifecycle\",\n  \"findings\": []\n}\n".replace("kubectl mesh-lifecycle", crate::PLUGIN_NAME));
    }

    #[test]
    fn another_version_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("baseline.json");
        std::fs::write(&path, "{\"version\": 2, \"findings\": []}").unwrap();
        let error = Baseline::read(&path).err().unwrap();
        assert!(
            error.message.contains("version 2 is not 1"),
            "{}",
            error.message
        );
        std::fs::write(&path, "{\"version\": 1,\n \"findings\": [{\"file\": 3}]}").unwrap();
        let error = Baseline::read(&path).err().unwrap();
        assert_eq!(error.pos.map(|p| p.line), Some(2), "{}", error.message);
    }
}
