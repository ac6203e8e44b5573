//! Applying every fix through the binary (`lint --fix --unsafe-fixes` on copies) to
//! the corpus of real manifests and to generated ones never yields a file that fails to
//! load, or that decodes differently outside the changes the fixes intend; kubectl
//! reads every file the fixes changed; no finding of any rule is new, more severe or
//! longer afterwards; and a second run changes nothing (one run reaches a fixed point).
//!
//! What a fix may change is taken from the findings of the original text, linted in
//! process with the profile a run without a config file has: each fix's changes, as
//! paths into the decoded documents. A fix made in a later round was deferred, never
//! new (a fix bringing a new finding is dropped), so it is among them.

use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use mesh_lifecycle::fix::{Change, Outcome, apply_fixes, verify::decode_stream};
use mesh_lifecycle::load::parse::parse_documents;
use mesh_lifecycle::load::path::{JsonPath, Segment};
use mesh_lifecycle::load::{Inputs, Limits, Node, ReadLimits, Source, Value as LoadValue};
use mesh_lifecycle::pipeline::fix::compare::{Graded, no_worse};
use mesh_lifecycle::pipeline::{self, RunOptions};
use mesh_lifecycle::settings::layers::{FileLayers, Flags};
use serde_json::Value;

/// The paths, per input and document, that the fixes of its findings may change: a
/// change inside an annotation that holds YAML may rewrite the whole annotation.
type Allowed = HashMap<(String, usize), Vec<JsonPath>>;

/// Every rule's findings of each of `files`, linted together as one run over them
/// does, weighed as the fix loop weighs them.
fn graded(files: &[(String, PathBuf)]) -> HashMap<String, Vec<Graded>> {
    let mut graded: HashMap<String, Vec<Graded>> = HashMap::new();
    for_each_finding(files, |located| {
        graded
            .entry(located.file.to_string())
            .or_default()
            .push(Graded::of(located));
    });
    graded
}

/// Calls `visit` with every finding of `files`, linted together as one run over them
/// without a config file does, their fixes checked.
fn for_each_finding(files: &[(String, PathBuf)], mut visit: impl FnMut(&pipeline::Located)) {
    let limits = ReadLimits::default();
    let sources = files
        .iter()
        .map(|(name, path)| Source::file(Arc::from(name.as_str()), path.clone()))
        .collect();
    let inputs = Inputs::from_sources(sources, limits);
    let profile = FileLayers::read(None, &[], u64::MAX)
        .complete(&inputs, Limits::default(), None, &Flags::default())
        .expect("the default profile is complete");
    pipeline::run(
        &inputs,
        &profile.settings,
        &RunOptions::default(),
        |report| {
            report
                .analyses
                .iter()
                .flat_map(|a| &a.findings)
                .for_each(&mut visit)
        },
    );
}

/// Lints the files `(name, path)` together, as one run over them does.
fn allowed_changes(files: &[(String, PathBuf)]) -> Allowed {
    let mut allowed = Allowed::new();
    for_each_finding(files, |located| {
        let Some(Ok(planned)) = &located.fix else {
            return;
        };
        let paths = allowed
            .entry((located.file.to_string(), located.document))
            .or_default();
        for change in &planned.changes {
            // An item taken out of a sequence or put in one shifts the items after
            // it: the whole sequence is the change.
            let sequence = |path: &JsonPath| {
                let segments = path.segments();
                JsonPath::from_segments(&segments[..segments.len().saturating_sub(1)])
            };
            let touched = match change {
                Change::Set(path, _) => vec![path.clone()],
                Change::Remove(path)
                    if matches!(path.segments().last(), Some(Segment::Index(_))) =>
                {
                    vec![sequence(path)]
                }
                Change::Remove(path) => vec![path.clone()],
                Change::Move { from, to } => vec![sequence(from), sequence(to)],
            };
            for path in touched {
                let segments = path.segments();
                let end = segments
                    .iter()
                    .position(|segment| *segment == Segment::Embedded)
                    .unwrap_or(segments.len());
                paths.push(JsonPath::from_segments(&segments[..end]));
            }
        }
    });
    allowed
}

/// `value` without the node at `path`, when it has one.
fn without(value: &mut Value, path: &JsonPath) {
    let Some((last, parents)) = path.segments().split_last() else {
        *value = Value::Null;
        return;
    };
    let mut node = value;
    for segment in parents {
        node = match (segment, node) {
            (Segment::Key(key), Value::Object(map)) => match map.get_mut(key) {
                Some(next) => next,
                None => return,
            },
            (Segment::Index(index), Value::Array(items)) => match items.get_mut(*index) {
                Some(next) => next,
                None => return,
            },
            _ => return,
        };
    }
    match (last, node) {
        (Segment::Key(key), Value::Object(map)) => {
            map.remove(key);
        }
        (Segment::Index(index), Value::Array(items)) if *index < items.len() => {
            items[*index] = Value::Null;
        }
        _ => {}
    }
}

/// Removes, from a decoded document, mappings left empty on the way to a removed node:
/// a fix that adds `annotations:` to hold its key leaves the rest as it was.
fn prune_empty(value: &mut Value) {
    if let Value::Object(map) = value {
        for child in map.values_mut() {
            prune_empty(child);
        }
        map.retain(|_, child| !matches!(child, Value::Object(m) if m.is_empty()));
    } else if let Value::Array(items) = value {
        items.iter_mut().for_each(prune_empty);
    }
}

/// Asserts that `after` loads and reads as `before` outside the `allowed` paths of
/// each document of the input `name`.
fn assert_same_outside(name: &str, before: &str, after: &str, allowed: &Allowed) {
    let Ok(mut old) = decode_stream(before) else {
        assert_eq!(after, before, "{name} does not load, yet it was changed");
        return;
    };
    let mut new = decode_stream(after)
        .unwrap_or_else(|error| panic!("{name} does not load after --fix: {error}\n{after}"));
    assert_eq!(
        old.len(),
        new.len(),
        "{name}: the number of documents changed"
    );
    for ((index, old), (new_index, new)) in old.iter_mut().zip(&mut new) {
        assert_eq!(index, new_index, "{name}: the documents moved");
        let index = *index;
        for path in allowed
            .get(&(name.to_owned(), index))
            .map_or(&[][..], Vec::as_slice)
        {
            without(old, path);
            without(new, path);
        }
        prune_empty(old);
        prune_empty(new);
        assert_eq!(
            old, new,
            "{name}: document {index} changed outside its fixes\n--- before:\n{before}\n--- after:\n{after}"
        );
    }
}

/// Runs `lint --fix --unsafe-fixes` on `paths` without a config file; returns its
/// diagnostics.
fn fix_all(paths: &[PathBuf]) -> String {
    let output = common::cli()
        .args(["lint", "--no-config", "--fix", "--unsafe-fixes"])
        .args(paths)
        .output()
        .unwrap();
    let status = output.status.code().unwrap();
    assert!(
        status < 2 || !output.stderr.is_empty(),
        "status {status} without a diagnostic"
    );
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!stderr.contains("internal error"), "{stderr}");
    stderr
}

/// kubectl reads `path` (offline), when kubectl is there.
fn assert_kubectl_reads(path: &Path) {
    let Some(kubectl) = common::kubectl_binary() else {
        return;
    };
    let output = std::process::Command::new(kubectl)
        .env("KUBECONFIG", "/nonexistent")
        .args(["label", "--local", "-o", "json", "-f"])
        .arg(path)
        .arg("fixed=yes")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "kubectl cannot read {} after --fix: {}\n{}",
        path.display(),
        String::from_utf8_lossy(&output.stderr),
        std::fs::read_to_string(path).unwrap()
    );
}

/// Every YAML file under `dir`, sorted, relative to it.
fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(at) = dirs.pop() {
        for entry in std::fs::read_dir(at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                found.push(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    found.sort();
    found
}

/// Fixes copies of `files` (relative names and texts) in one run and checks every
/// property: every file with a fix to make is changed, or a note says why it was not
/// (a fix dropped, or a file rendered by Helm that gets the diff only); nothing is
/// new or worse after it. Returns how many files the fixes changed, and the findings
/// that remain, by file.
fn check_fixed(files: &[(String, String)]) -> (usize, HashMap<String, Vec<Graded>>) {
    let dir = tempfile::tempdir().unwrap();
    let mut inputs = Vec::new();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        inputs.push((path.display().to_string(), path));
    }
    let allowed = allowed_changes(&inputs);
    let before = graded(&inputs);
    let paths: Vec<PathBuf> = inputs.iter().map(|(_, path)| path.clone()).collect();
    let notes = fix_all(&paths);
    let after = graded(&inputs);
    for (name, _) in &inputs {
        let empty = Vec::new();
        if let Err(worse) = no_worse(
            before.get(name).unwrap_or(&empty),
            after.get(name).unwrap_or(&empty),
            &[],
        ) {
            panic!("{name}: after --fix, {worse}");
        }
    }
    let mut changed = Vec::new();
    for ((name, path), (_, before)) in inputs.iter().zip(files) {
        let after = std::fs::read_to_string(path).unwrap();
        assert_same_outside(name, before, &after, &allowed);
        if after != *before {
            assert_kubectl_reads(path);
            changed.push((path.clone(), after));
        }
    }
    fix_all(&paths);
    for (path, after) in &changed {
        assert_eq!(
            &std::fs::read_to_string(path).unwrap(),
            after,
            "a second --fix changed {}",
            path.display()
        );
    }
    for (name, path) in &inputs {
        let fixable = allowed.keys().any(|(file, _)| file == name);
        let unchanged = !changed.iter().any(|(done, _)| done == path);
        let explained = notes
            .lines()
            .filter(|line| line.starts_with(&format!("note: {name}:")))
            .any(|line| line.contains("was not made") || line.contains("not written back"));
        assert!(
            !(fixable && unchanged && !explained),
            "{name} has a fix, yet --fix neither made it nor said why:\n{notes}"
        );
    }
    let remaining = after
        .into_iter()
        .map(|(name, graded)| {
            let relative = Path::new(&name)
                .strip_prefix(dir.path())
                .map_or(name.clone(), |path| path.display().to_string());
            (relative, graded)
        })
        .collect();
    (changed.len(), remaining)
}

#[test]
fn fixing_the_corpus_changes_only_what_the_fixes_intend() {
    let corpus = common::testdata("corpus");
    let files: Vec<(String, String)> = yaml_files(&corpus)
        .into_iter()
        .map(|relative| {
            let text = std::fs::read_to_string(corpus.join(&relative)).unwrap();
            (relative.display().to_string(), text)
        })
        .collect();
    let (changed, _) = check_fixed(&files);
    eprintln!("{changed} of {} corpus files fixed", files.len());
    assert!(changed > 0, "no corpus file had a fix made");
}

/// No fix offered on the rule fixtures or the corpus shares the pod's process
/// namespace: that would show a Job's work every process of its proxy, their
/// environment and the workload's certificates. The mesh's stop call is the remedy.
#[test]
fn no_fix_shares_the_process_namespace() {
    let mut files = Vec::new();
    for dir in ["rules", "corpus"] {
        let root = common::testdata(dir);
        files.extend(
            yaml_files(&root)
                .into_iter()
                .map(|relative| (format!("{dir}/{}", relative.display()), root.join(relative))),
        );
    }
    let mut offered = 0;
    let mut sharing = Vec::new();
    for_each_finding(&files, |located| {
        let Some(Ok(planned)) = &located.fix else {
            return;
        };
        offered += 1;
        let shares = planned.changes.iter().any(|change| {
            matches!(change, Change::Set(path, _) if path.ends_with_key("shareProcessNamespace"))
        });
        if shares {
            sharing.push(format!("{}: {}", located.file, located.finding.rule.id));
        }
    });
    assert!(offered > 100, "only {offered} fixes offered");
    assert_eq!(sharing, Vec::<String>::new());
}

/// Each fix offered on the rule fixtures, the corpus and the fix fixtures, made alone,
/// keeps every line of its document byte for byte and in order but the lines of the
/// nodes its changes replace or remove (with the comment lines just above a removed key
/// or item, which go with it), the `key:` line of a mapping or sequence it leaves empty
/// (`{}`, `[]`) and that of an empty one it fills: around what it changes it rewrites
/// nothing (no block mapping becomes a flow line, no block scalar a quoted string, no
/// comment is re-spaced). Lines it adds are the structure it must add; what they hold
/// is checked by the fix's verification.
#[test]
fn a_fix_rewrites_no_line_outside_what_it_changes() {
    let mut files = Vec::new();
    for dir in ["rules", "corpus", "fixes"] {
        let root = common::testdata(dir);
        files.extend(
            yaml_files(&root)
                .into_iter()
                .map(|relative| (format!("{dir}/{}", relative.display()), root.join(relative))),
        );
    }
    let mut made = 0;
    let mut outside = Vec::new();
    for_each_finding(&files, |located| {
        if let Some(rewritten) = rewritten_outside(located) {
            made += 1;
            outside.extend(rewritten);
        }
    });
    assert!(made > 100, "only {made} fixes made");
    assert!(outside.is_empty(), "{}", outside.join("\n\n"));
}

/// The lines the offered fix of `located`, made alone on its document, rewrites outside
/// what its changes may (see [`a_fix_rewrites_no_line_outside_what_it_changes`]), each
/// described; `None` when it offers no fix to make.
fn rewritten_outside(located: &pipeline::Located) -> Option<Vec<String>> {
    let Some(Ok(planned)) = &located.fix else {
        return None;
    };
    if planned.fix.edits.is_empty() {
        return None;
    }
    let text = &located.source.text;
    let first_line = located.source.first_line;
    let round = apply_fixes(text, std::slice::from_ref(&planned.fix), true);
    assert_eq!(round.outcomes, [Outcome::Applied], "{}", located.file);
    let fixed = round.text;
    let roots = parse_documents(text, first_line, &Limits::default()).ok()?;
    let fixed_roots = parse_documents(&fixed, first_line, &Limits::default()).ok()?;
    let ([root], [fixed_root]) = (roots.as_slice(), fixed_roots.as_slice()) else {
        return None;
    };
    let lines: Vec<&str> = text.lines().collect();
    let at = |line: u32| line.saturating_sub(first_line) as usize;
    let mut allowed = std::collections::BTreeSet::new();
    for change in &planned.changes {
        let (path, removed) = match change {
            Change::Set(path, _) => (path, false),
            Change::Remove(path) => (path, true),
            Change::Move { from, .. } => (from, true),
        };
        let mut paths = vec![(path, removed)];
        if let Change::Move { from, to } = change {
            // A move reorders the lines from the item's sequence through the one it
            // goes to: which of them a line diff keeps in place is its choice.
            paths.push((to, false));
            let sequence = |path: &JsonPath| {
                let segments = path.segments();
                let sequence = JsonPath::from_segments(&segments[..segments.len() - 1]);
                let walked = walk(root, &sequence);
                (walked.len() == walkable(&sequence)).then(|| {
                    let (node, key_line) = walked[walked.len() - 1];
                    (key_line.unwrap_or(node.span.start.line), node.span.end.line)
                })
            };
            let spans: Vec<(u32, u32)> = [sequence(from), sequence(to)]
                .into_iter()
                .flatten()
                .collect();
            if let (Some(start), Some(end)) = (
                spans.iter().map(|span| span.0).min(),
                spans.iter().map(|span| span.1).max(),
            ) {
                allowed.extend(at(start)..=at(end).min(lines.len().saturating_sub(1)));
            }
        }
        for (path, removed) in paths {
            let mut walked = walk(root, path);
            let whole = walked.len() == walkable(path);
            let (node, key_line) = walked.pop().expect("the root is walked");
            if !whole {
                // An insertion: into an empty `{}`, `[]` or `key:`, its line.
                if is_empty(node)
                    && let Some(line) = key_line
                {
                    allowed.insert(at(line));
                }
                continue;
            }
            let start = at(key_line.unwrap_or(node.span.start.line));
            let end = at(node.span.end.line).min(lines.len().saturating_sub(1));
            allowed.extend(start..=end);
            if removed {
                let mut above = start;
                while above > 0 && lines[above - 1].trim_start().starts_with('#') {
                    above -= 1;
                    allowed.insert(above);
                }
            }
            // The mapping or sequence it leaves empty becomes `{}` or `[]` on its line.
            let parent = JsonPath::from_segments(&path.segments()[..walked.len() - 1]);
            let left = walk(fixed_root, &parent);
            if let (Some((_, Some(line))), true) = (walked.last(), left.len() == walkable(&parent))
                && left.last().is_some_and(|(node, _)| is_empty(node))
            {
                allowed.insert(at(*line));
            }
        }
    }
    Some(
        rewritten_lines(text, &fixed)
            .into_iter()
            .filter(|line| !allowed.contains(line))
            .map(|line| {
                format!(
                    "{}:{}: {} rewrote `{}`:\n{fixed}",
                    located.file,
                    line as u32 + first_line,
                    located.finding.rule.id,
                    lines[line]
                )
            })
            .collect(),
    )
}

/// How many segments of `path` [`walk`] follows: those before a step into a string.
fn walkable(path: &JsonPath) -> usize {
    path.segments()
        .iter()
        .take_while(|segment| !matches!(segment, Segment::Embedded | Segment::Line(_)))
        .count()
        + 1
}

/// The nodes `path` leads through from `root` (the root first), each with the line of
/// the key it was reached by, as far as the tree has them and up to a step into a
/// string (the YAML of an annotation, a script's line).
fn walk<'n>(root: &'n Node, path: &JsonPath) -> Vec<(&'n Node, Option<u32>)> {
    let mut walked = vec![(root, None)];
    for segment in &path.segments()[..walkable(path) - 1] {
        let (node, _) = walked[walked.len() - 1];
        let next = match (segment, &node.value) {
            (Segment::Key(key), LoadValue::Map(entries)) => entries
                .iter()
                .find(|entry| &entry.key == key)
                .map(|entry| (&entry.value, Some(entry.key_span.start.line))),
            (Segment::Index(index), LoadValue::Seq(items)) => {
                items.get(*index).map(|item| (item, None))
            }
            _ => None,
        };
        match next {
            Some(next) => walked.push(next),
            None => break,
        }
    }
    walked
}

/// Whether `node` is an empty mapping, sequence or value.
fn is_empty(node: &Node) -> bool {
    match &node.value {
        LoadValue::Map(entries) => entries.is_empty(),
        LoadValue::Seq(items) => items.is_empty(),
        LoadValue::Null => true,
        _ => false,
    }
}

/// The lines (0-based, in the document's text) of `text` that are not in `fixed` as
/// they were and in the same order: the lines a line diff removes.
fn rewritten_lines(text: &str, fixed: &str) -> Vec<usize> {
    // A last line without a line break counts as the same line once one is added.
    let ended = |text: &str| {
        let mut text = text.to_owned();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text
    };
    let (text, fixed) = (ended(text), ended(fixed));
    similar::TextDiff::from_lines(&text, &fixed)
        .ops()
        .iter()
        .flat_map(|op| match op {
            similar::DiffOp::Delete {
                old_index, old_len, ..
            }
            | similar::DiffOp::Replace {
                old_index, old_len, ..
            } => *old_index..old_index + old_len,
            _ => 0..0,
        })
        .collect()
}

mod generated {
    //! Generated manifests: a few workloads per file, each in a layout of its own,
    //! injected by Istio or Linkerd, with or without the settings the fixes set.

    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    struct Workload {
        unit: usize,
        indented_sequences: bool,
        linkerd: bool,
        annotations: bool,
        flow_labels: bool,
        comments: bool,
        grace: Option<u32>,
        pre_stop: bool,
    }

    prop_compose! {
        fn workloads()(
            unit in prop_oneof![Just(2usize), Just(4)],
            indented_sequences in any::<bool>(),
            linkerd in any::<bool>(),
            annotations in any::<bool>(),
            flow_labels in any::<bool>(),
            comments in any::<bool>(),
            grace in proptest::option::of(0u32..120),
            pre_stop in any::<bool>(),
        ) -> Workload {
            Workload {
                unit,
                indented_sequences,
                linkerd,
                annotations,
                flow_labels,
                comments,
                grace,
                pre_stop,
            }
        }
    }

    /// A Deployment named `name` in the workload's layout, written by hand.
    fn manifest(name: &str, w: &Workload) -> String {
        let pad = |level: usize| " ".repeat(level * w.unit);
        let comment = if w.comments { "  # team: payments" } else { "" };
        let mut lines = vec![
            "apiVersion: apps/v1".to_owned(),
            "kind: Deployment".to_owned(),
            "metadata:".to_owned(),
            format!("{}name: {name}{comment}", pad(1)),
            "spec:".to_owned(),
            format!("{}selector:", pad(1)),
            format!("{}matchLabels: {{app: {name}}}", pad(2)),
            format!("{}template:", pad(1)),
            format!("{}metadata:", pad(2)),
        ];
        let inject = if w.linkerd {
            None
        } else {
            Some("sidecar.istio.io/inject: \"true\"")
        };
        if w.flow_labels {
            let extra = inject.map_or(String::new(), |i| format!(", {i}"));
            lines.push(format!("{}labels: {{app: {name}{extra}}}", pad(3)));
        } else {
            lines.push(format!("{}labels:", pad(3)));
            lines.push(format!("{}app: {name}{comment}", pad(4)));
            if let Some(inject) = inject {
                lines.push(format!("{}{inject}", pad(4)));
            }
        }
        if w.linkerd || w.annotations {
            lines.push(format!("{}annotations:", pad(3)));
            if w.linkerd {
                lines.push(format!("{}linkerd.io/inject: enabled", pad(4)));
                lines.push(format!(
                    "{}config.linkerd.io/proxy-await: disabled{comment}",
                    pad(4)
                ));
            } else {
                lines.push(format!("{}prometheus.io/scrape: \"true\"", pad(4)));
            }
        }
        lines.push(format!("{}spec:", pad(2)));
        if let Some(grace) = w.grace {
            lines.push(format!(
                "{}terminationGracePeriodSeconds: {grace}{comment}",
                pad(3)
            ));
        }
        lines.push(format!("{}containers:", pad(3)));
        let dash = if w.indented_sequences { pad(4) } else { pad(3) };
        lines.push(format!("{dash}- name: {name}"));
        lines.push(format!("{dash}  image: example/{name}:1.0"));
        if w.pre_stop {
            lines.push(format!("{dash}  lifecycle:"));
            lines.push(format!("{dash}  {}preStop:", pad(1)));
            lines.push(format!("{dash}  {}exec:", pad(2)));
            lines.push(format!("{dash}  {}command: [sleep, \"5\"]", pad(3)));
        }
        lines.join("\n") + "\n"
    }

    /// 400 workloads in one file, in every layout the generator has, each with a fix:
    /// one run makes every fix (none blocks another) and reaches a fixed point.
    #[test]
    fn four_hundred_workloads_are_fixed_in_one_run() {
        let text = (0..400)
            .map(|n| {
                let workload = Workload {
                    unit: if n % 2 == 0 { 2 } else { 4 },
                    indented_sequences: n % 3 == 0,
                    linkerd: n % 5 == 0,
                    annotations: n % 7 < 3,
                    flow_labels: n % 11 < 4,
                    comments: n % 13 < 6,
                    grace: (n % 4 == 0).then_some(n as u32 % 90),
                    pre_stop: n % 6 < 2,
                };
                manifest(&format!("app{n}"), &workload)
            })
            .collect::<Vec<_>>()
            .join("---\n");
        let files = [("many.yaml".to_owned(), text)];
        let (changed, remaining) = check_fixed(&files);
        assert_eq!(changed, 1);
        let left: Vec<&Graded> = remaining["many.yaml"]
            .iter()
            .filter(|finding| finding.key.2 == "ML101")
            .collect();
        assert!(left.is_empty(), "ML101 left after one run: {left:?}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn fixing_generated_manifests_changes_only_what_the_fixes_intend(
            files in proptest::collection::vec(proptest::collection::vec(workloads(), 1..4), 1..3),
        ) {
            let files: Vec<(String, String)> = files
                .iter()
                .enumerate()
                .map(|(f, workloads)| {
                    let text = workloads
                        .iter()
                        .enumerate()
                        .map(|(w, workload)| manifest(&format!("app{f}x{w}"), workload))
                        .collect::<Vec<_>>()
                        // An empty document takes an index of its own.
                        .join(if f % 2 == 0 { "---\n" } else { "---\n---\n" });
                    (format!("m{f}.yaml"), text)
                })
                .collect();
            // Every generated pod is injected without a hold: ML101 is fixed in each.
            prop_assert_eq!(check_fixed(&files).0, files.len());
        }
    }
}
