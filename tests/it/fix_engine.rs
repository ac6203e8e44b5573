//! The edit engine of `lint --fix`: each builder on each layout a manifest is written
//! in, the exact text it produces, and that the loader (and kubectl) read the result
//! as the original with exactly the intended change.

use crate::common;

use mesh_lifecycle::fix::{
    Applicability, Change, Edit, EditError, Editor, Fix, Outcome, Remedy, apply_fixes,
    unified_diff, verify,
};
use mesh_lifecycle::load::{self, Document, JsonPath, Limits, split};
use serde_json::{Value, json};

/// The documents of `text`, as the pipeline loads them, or `None` when one does not
/// load.
fn try_documents(text: &str) -> Option<Vec<Document>> {
    let file: std::sync::Arc<str> = std::sync::Arc::from("test.yaml");
    let mut documents = Vec::new();
    for (index, chunk) in split::split_all(text.as_bytes(), 1 << 24)
        .into_iter()
        .enumerate()
    {
        documents.extend(load::parse_chunk(&file, chunk.ok()?, index, &Limits::default()).ok()?);
    }
    Some(documents)
}

fn documents(text: &str) -> Vec<Document> {
    try_documents(text).expect("the test manifest loads")
}

/// Builds edits on document `document` of `text`, applies them as one fix, checks the
/// result decodes to `changes` exactly, and returns the new text.
fn fixed(
    text: &str,
    document: usize,
    build: impl FnOnce(&Editor<'_>) -> Result<Vec<Edit>, EditError>,
    changes: &[Change],
) -> String {
    let docs = documents(text);
    let editor = Editor::new(text, &docs[document].root);
    let edits = build(&editor).unwrap_or_else(|error| panic!("no edit: {error}"));
    let fix = Fix::new(Applicability::Safe, "test", edits);
    let round = apply_fixes(text, &[fix], false);
    assert_eq!(round.outcomes, [Outcome::Applied]);
    if let Err(rejection) = verify(text, &round.text, document, changes) {
        panic!("{rejection}\n--- fixed:\n{}", round.text);
    }
    round.text
}

fn path(dotted: &str) -> JsonPath {
    JsonPath::parse(dotted)
}

/// The annotation that asks Istio to inject its sidecar: a key with dots, which
/// `JsonPath::parse` would split.
fn inject_annotation() -> JsonPath {
    path("metadata.annotations").key("sidecar.istio.io/inject")
}

/// A `Set` change and the builder that makes it with [`Editor::set`].
fn set(text: &str, at: &JsonPath, value: Value) -> String {
    let change = Change::Set(at.clone(), value.clone());
    fixed(text, 0, |editor| editor.set(at, &value), &[change])
}

fn remove(text: &str, at: &JsonPath) -> String {
    fixed(
        text,
        0,
        |editor| editor.remove(at),
        &[Change::Remove(at.clone())],
    )
}

#[test]
fn a_replaced_scalar_keeps_its_quoting_its_anchor_and_its_comment() {
    let text = "spec:\n  a: \"old\" # why\n  b: 'old'\n  c: old\n  d: &grace 30\n  e: \"30\"\n";
    assert_eq!(
        set(text, &path("spec.a"), json!("new \"x\"")),
        "spec:\n  a: \"new \\\"x\\\"\" # why\n  b: 'old'\n  c: old\n  d: &grace 30\n  e: \"30\"\n"
    );
    assert_eq!(
        set(text, &path("spec.b"), json!("it's")),
        "spec:\n  a: \"old\" # why\n  b: 'it''s'\n  c: old\n  d: &grace 30\n  e: \"30\"\n"
    );
    // A plain scalar stays plain unless the new text would read as another type.
    assert_eq!(
        set(text, &path("spec.c"), json!("true")),
        "spec:\n  a: \"old\" # why\n  b: 'old'\n  c: \"true\"\n  d: &grace 30\n  e: \"30\"\n"
    );
    assert_eq!(
        set(text, &path("spec.d"), json!(45)),
        "spec:\n  a: \"old\" # why\n  b: 'old'\n  c: old\n  d: &grace 45\n  e: \"30\"\n"
    );
    // A number cannot be quoted: the quotes would make it a string.
    assert_eq!(
        set(text, &path("spec.e"), json!(45)),
        "spec:\n  a: \"old\" # why\n  b: 'old'\n  c: old\n  d: &grace 30\n  e: 45\n"
    );
}

#[test]
fn a_literal_block_stays_a_literal_block_with_its_header_comment() {
    let text = "command:\n- sh\n- -c\n- | # the stop script\n    echo bye\n    sleep 5\nnext: 1\n";
    let at = JsonPath::parse("command").index(2);
    assert_eq!(
        set(text, &at, json!("echo bye\nsleep 10\n")),
        "command:\n- sh\n- -c\n- | # the stop script\n    echo bye\n    sleep 10\nnext: 1\n"
    );
    assert_eq!(
        set(text, &at, json!("sleep 10")),
        "command:\n- sh\n- -c\n- |- # the stop script\n    sleep 10\nnext: 1\n"
    );
}

#[test]
fn an_inserted_key_follows_two_and_four_space_indentation() {
    let two = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web # the web tier\n  labels:\n    app: web\nspec: {}\n";
    let key = inject_annotation();
    assert_eq!(
        set(two, &key, json!("true")),
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web # the web tier\n  labels:\n    app: web\n  annotations:\n    sidecar.istio.io/inject: \"true\"\nspec: {}\n"
    );
    let four = "metadata:\n    name: web\nspec:\n    terminationGracePeriodSeconds: 30\n";
    assert_eq!(
        set(four, &key, json!("true")),
        "metadata:\n    name: web\n    annotations:\n        sidecar.istio.io/inject: \"true\"\nspec:\n    terminationGracePeriodSeconds: 30\n"
    );
}

#[test]
fn a_nested_block_follows_the_file_s_sequence_style() {
    let lifecycle = json!({"preStop": {"exec": {"command": ["sleep", "5"]}}});
    let not_indented = "spec:\n  containers:\n  - name: app\n    image: app:1\n  - name: proxy\n    image: proxy:1\n";
    let at = JsonPath::parse("spec.containers").index(0).key("lifecycle");
    assert_eq!(
        set(not_indented, &at, lifecycle.clone()),
        "spec:\n  containers:\n  - name: app\n    image: app:1\n    lifecycle:\n      preStop:\n        exec:\n          command:\n          - sleep\n          - \"5\"\n  - name: proxy\n    image: proxy:1\n"
    );
    let indented = "spec:\n  containers:\n    - name: app\n      image: app:1\n";
    assert_eq!(
        set(indented, &at, lifecycle),
        "spec:\n  containers:\n    - name: app\n      image: app:1\n      lifecycle:\n        preStop:\n          exec:\n            command:\n              - sleep\n              - \"5\"\n"
    );
}

#[test]
fn flow_mappings_get_flow_entries_and_json_gets_json() {
    let flow = "metadata: {name: web, labels: {app: web}}\nspec: {}\n";
    let key = inject_annotation();
    assert_eq!(
        set(flow, &key, json!("true")),
        "metadata: {name: web, labels: {app: web}, annotations: {sidecar.istio.io/inject: \"true\"}}\nspec: {}\n"
    );
    assert_eq!(
        set(flow, &path("spec.terminationGracePeriodSeconds"), json!(45)),
        "metadata: {name: web, labels: {app: web}}\nspec: {terminationGracePeriodSeconds: 45}\n"
    );
    let json_file = "{\n  \"kind\": \"Pod\",\n  \"metadata\": {\"name\": \"web\"}\n}\n";
    let fixed = set(json_file, &key, json!("true"));
    assert_eq!(
        fixed,
        "{\n  \"kind\": \"Pod\",\n  \"metadata\": {\"name\": \"web\", \"annotations\": {\"sidecar.istio.io/inject\": \"true\"}}\n}\n"
    );
    serde_json::from_str::<Value>(&fixed).expect("still JSON");
}

#[test]
fn an_empty_value_becomes_the_mapping() {
    let text = "metadata:\n  name: web\n  annotations: # none yet\nspec: {}\n";
    let key = JsonPath::parse("metadata.annotations").key("a");
    assert_eq!(
        set(text, &key, json!("b")),
        "metadata:\n  name: web\n  annotations: # none yet\n    a: b\nspec: {}\n"
    );
    let tilde = "metadata:\n  annotations: ~\n";
    assert_eq!(
        set(tilde, &key, json!("b")),
        "metadata:\n  annotations:\n    a: b\n"
    );
}

#[test]
fn line_ends_other_documents_and_a_missing_last_line_break_are_kept() {
    let crlf = "metadata:\r\n  name: web\r\nspec:\r\n  containers:\r\n  - name: app\r\n";
    assert_eq!(
        set(crlf, &path("spec.terminationGracePeriodSeconds"), json!(45)),
        "metadata:\r\n  name: web\r\nspec:\r\n  containers:\r\n  - name: app\r\n  terminationGracePeriodSeconds: 45\r\n"
    );
    let stream = "# first\nkind: A\nx: 1\n---\nkind: B # second\nx: &n 1\n---\nkind: C\n";
    // `y` is quoted: kubectl's YAML 1.1 reads a plain `y` as `true`, key or not.
    let at = path("y");
    let change = Change::Set(at.clone(), json!(2));
    assert_eq!(
        fixed(stream, 1, |editor| editor.set(&at, &json!(2)), &[change]),
        "# first\nkind: A\nx: 1\n---\nkind: B # second\nx: &n 1\n\"y\": 2\n---\nkind: C\n"
    );
    let no_break = "metadata:\n  name: web";
    assert_eq!(
        set(no_break, &path("metadata.namespace"), json!("prod")),
        "metadata:\n  name: web\n  namespace: prod"
    );
}

#[test]
fn a_removed_key_takes_its_lines_and_nothing_else() {
    let text = "spec:\n  # the grace period\n  terminationGracePeriodSeconds: 30\n  containers:\n  - name: app\n    image: app:1\n    lifecycle:\n      preStop:\n        exec:\n          command: [sleep, \"5\"]\n";
    assert_eq!(
        remove(text, &path("spec.terminationGracePeriodSeconds")),
        "spec:\n  # the grace period\n  containers:\n  - name: app\n    image: app:1\n    lifecycle:\n      preStop:\n        exec:\n          command: [sleep, \"5\"]\n"
    );
    let container = JsonPath::parse("spec.containers").index(0);
    // The last key of a mapping, with its nested block.
    assert_eq!(
        remove(text, &container.key("lifecycle")),
        "spec:\n  # the grace period\n  terminationGracePeriodSeconds: 30\n  containers:\n  - name: app\n    image: app:1\n"
    );
    // The first key of a sequence item: the next key moves up after the dash.
    assert_eq!(
        remove(text, &container.key("name")),
        "spec:\n  # the grace period\n  terminationGracePeriodSeconds: 30\n  containers:\n  - image: app:1\n    lifecycle:\n      preStop:\n        exec:\n          command: [sleep, \"5\"]\n"
    );
    // The only key of a mapping leaves an empty mapping, not null.
    assert_eq!(
        remove(
            text,
            &container
                .key("lifecycle")
                .key("preStop")
                .key("exec")
                .key("command")
        ),
        "spec:\n  # the grace period\n  terminationGracePeriodSeconds: 30\n  containers:\n  - name: app\n    image: app:1\n    lifecycle:\n      preStop:\n        exec: {}\n"
    );
    let flow = "metadata: {name: web, labels: {app: web}, namespace: prod}\n";
    assert_eq!(
        remove(flow, &path("metadata.labels")),
        "metadata: {name: web, namespace: prod}\n"
    );
    assert_eq!(
        remove(flow, &path("metadata.name")),
        "metadata: {labels: {app: web}, namespace: prod}\n"
    );
    assert_eq!(
        remove(flow, &path("metadata.labels.app")),
        "metadata: {name: web, labels: {}, namespace: prod}\n"
    );
}

#[test]
fn an_embedded_yaml_block_is_edited_in_its_own_layout() {
    let text = "metadata:\n  annotations:\n    proxy.istio.io/config: |\n      # hold the app\n      holdApplicationUntilProxyStarts: false\n    other: x\n";
    let config = JsonPath::parse("metadata.annotations").key("proxy.istio.io/config");
    assert_eq!(
        set(
            text,
            &config.embedded().key("holdApplicationUntilProxyStarts"),
            json!(true)
        ),
        "metadata:\n  annotations:\n    proxy.istio.io/config: |\n      # hold the app\n      holdApplicationUntilProxyStarts: true\n    other: x\n"
    );
    assert_eq!(
        set(
            text,
            &config.embedded().key("terminationDrainDuration"),
            json!("20s")
        ),
        "metadata:\n  annotations:\n    proxy.istio.io/config: |\n      # hold the app\n      holdApplicationUntilProxyStarts: false\n      terminationDrainDuration: 20s\n    other: x\n"
    );
}

#[test]
fn an_embedded_json_string_stays_json_in_its_quotes() {
    let single = "metadata:\n  annotations:\n    proxy.istio.io/config: '{\"holdApplicationUntilProxyStarts\": false}'\n";
    let config = JsonPath::parse("metadata.annotations").key("proxy.istio.io/config");
    assert_eq!(
        set(
            single,
            &config.embedded().key("terminationDrainDuration"),
            json!("20s")
        ),
        "metadata:\n  annotations:\n    proxy.istio.io/config: '{\"holdApplicationUntilProxyStarts\": false, \"terminationDrainDuration\": \"20s\"}'\n"
    );
    let double = "metadata:\n  annotations:\n    proxy.istio.io/config: \"{\\\"holdApplicationUntilProxyStarts\\\": false}\"\n";
    assert_eq!(
        set(
            double,
            &config.embedded().key("holdApplicationUntilProxyStarts"),
            json!(true)
        ),
        "metadata:\n  annotations:\n    proxy.istio.io/config: \"{\\\"holdApplicationUntilProxyStarts\\\": true}\"\n"
    );
}

#[test]
fn a_value_from_an_anchor_is_refused_not_edited_everywhere() {
    let text = "base: &base\n  grace: 30\nspec:\n  <<: *base\n  other: &o 1\n  copy: *o\n";
    let docs = documents(text);
    let editor = Editor::new(text, &docs[0].root);
    for at in ["spec.grace", "spec.copy"] {
        let error = editor.set(&path(at), &json!(45)).unwrap_err();
        assert!(
            error.reason.contains("comes from an anchor"),
            "{at}: {error}"
        );
    }
    // The anchor's own definition can be edited.
    assert!(editor.set(&path("spec.other"), &json!(2)).is_ok());
    // A collection from an alias is neither replaced, nor moved, nor removed.
    let text = "base: &c
  - name: shipper
spec:
  containers: *c
  initContainers:
  - name: setup
";
    let docs = documents(text);
    let editor = Editor::new(text, &docs[0].root);
    let item = JsonPath::parse("spec.containers").index(0);
    for result in [
        editor.set(&path("spec.containers"), &json!([{"name": "x"}])),
        editor.move_item(&item, &JsonPath::parse("spec.initContainers").index(0)),
        editor.remove(&item),
    ] {
        let error = result.unwrap_err();
        assert!(error.reason.contains("comes from an anchor"), "{error}");
    }
}

#[test]
fn builders_refuse_what_they_cannot_do_with_the_reason() {
    let text = "spec:\n  containers:\n  - name: app\n  grace: 30\n";
    let docs = documents(text);
    let editor = Editor::new(text, &docs[0].root);
    let reason = |result: Result<Vec<Edit>, EditError>| result.unwrap_err().reason;
    assert!(reason(editor.insert(&path("spec.grace"), &json!(1))).contains("already set"));
    assert!(reason(editor.remove(&path("spec.missing"))).contains("not set"));
    assert!(reason(editor.insert(&path("spec.grace.x"), &json!(1))).contains("not a mapping"));
    assert!(
        reason(editor.replace_scalar(&path("spec.containers"), &json!(1))).contains("sequence")
    );
    assert!(
        reason(editor.insert(
            &JsonPath::parse("spec.containers").index(3).key("x"),
            &json!(1)
        ))
        .contains("only mappings can be created")
    );
}

#[test]
fn verification_rejects_a_fix_that_does_more_or_less_than_intended() {
    let text = "a: 1\nb: {c: 2}\n---\nd: 3\n";
    let intended = [Change::Set(path("b.e"), json!(4))];
    assert_eq!(
        verify(text, "a: 1\nb: {c: 2, e: 4}\n---\nd: 3\n", 0, &intended),
        Ok(())
    );
    let wrong_place = verify(text, "a: 1\ne: 4\nb: {c: 2}\n---\nd: 3\n", 0, &intended).unwrap_err();
    assert!(
        wrong_place.reason.contains("at `b.e`") || wrong_place.reason.contains("at `e`"),
        "{wrong_place}"
    );
    let other_document =
        verify(text, "a: 1\nb: {c: 2, e: 4}\n---\nd: 4\n", 0, &intended).unwrap_err();
    assert!(
        other_document.reason.contains("document 2"),
        "{other_document}"
    );
    let broken = verify(text, "a: 1\nb: {c: 2, e: 4\n---\nd: 3\n", 0, &intended).unwrap_err();
    assert!(broken.reason.contains("does not load"), "{broken}");
    let emptied = verify("m:\n  k: v\n", "m:\n", 0, &[Change::Remove(path("m.k"))]).unwrap_err();
    assert!(emptied.reason.contains("at `m`"), "{emptied}");
}

#[test]
fn the_diff_of_a_fix_is_a_unified_diff_with_a_and_b_paths() {
    let text = "metadata:\n  name: web\n";
    let fixed = set(text, &path("metadata.namespace"), json!("prod"));
    assert_eq!(
        unified_diff("deploy.yaml", text, &fixed),
        "--- a/deploy.yaml\n+++ b/deploy.yaml\n@@ -1,2 +1,3 @@\n metadata:\n   name: web\n+  namespace: prod\n"
    );
}

#[test]
fn a_key_after_a_block_scalar_goes_after_the_block() {
    let text = "spec:\n  script: |\n    echo bye\n  \nnext: 1\n";
    assert_eq!(
        set(text, &path("spec.grace"), json!(5)),
        // The blank line belongs to the block scalar (its trailing lines, clipped).
        "spec:\n  script: |\n    echo bye\n  \n  grace: 5\nnext: 1\n"
    );
}

mod generated {
    //! Manifests written in every layout the builders know, and every builder applied
    //! to them: the result must always load and decode to exactly the intended change.

    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    struct Layout {
        unit: usize,
        indented_sequences: bool,
        crlf: bool,
        final_line_break: bool,
        flow_metadata: bool,
        quote: &'static str,
        annotations: bool,
        embedded_json: bool,
        grace: Option<i64>,
        containers: usize,
        lifecycle: bool,
        comments: bool,
    }

    fn layouts() -> impl Strategy<Value = Layout> {
        (
            prop_oneof![Just(2usize), Just(4)],
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            prop_oneof![Just(""), Just("'"), Just("\"")],
            any::<bool>(),
            any::<bool>(),
            proptest::option::of(0i64..600),
            1usize..3,
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(
                |(
                    unit,
                    indented_sequences,
                    crlf,
                    final_line_break,
                    flow_metadata,
                    quote,
                    annotations,
                    embedded_json,
                    grace,
                    containers,
                    lifecycle,
                    comments,
                )| Layout {
                    unit,
                    indented_sequences,
                    crlf,
                    final_line_break,
                    flow_metadata,
                    quote,
                    annotations,
                    embedded_json,
                    grace,
                    containers,
                    lifecycle,
                    comments,
                },
            )
    }

    /// A Deployment written by hand in `layout`, independently of the renderer.
    fn manifest(layout: &Layout) -> String {
        let pad = |level: usize| " ".repeat(level * layout.unit);
        let q = layout.quote;
        let comment = if layout.comments { " # note" } else { "" };
        let mut lines = vec![
            "apiVersion: apps/v1".to_owned(),
            "kind: Deployment".to_owned(),
        ];
        if layout.flow_metadata {
            lines.push(format!(
                "metadata: {{name: {q}web{q}, labels: {{app: web}}}}{comment}"
            ));
        } else {
            lines.push("metadata:".into());
            lines.push(format!("{}name: {q}web{q}{comment}", pad(1)));
        }
        lines.push("spec:".into());
        lines.push(format!("{}template:", pad(1)));
        lines.push(format!("{}metadata:", pad(2)));
        if layout.annotations {
            lines.push(format!("{}annotations:", pad(3)));
            if layout.embedded_json {
                lines.push(format!(
                    "{}proxy.istio.io/config: '{{\"holdApplicationUntilProxyStarts\": false}}'",
                    pad(4)
                ));
            } else {
                lines.push(format!("{}proxy.istio.io/config: |", pad(4)));
                lines.push(format!("{}holdApplicationUntilProxyStarts: false", pad(5)));
            }
        } else {
            lines.push(format!("{}labels: {{app: web}}", pad(3)));
        }
        lines.push(format!("{}spec:", pad(2)));
        if let Some(grace) = layout.grace {
            lines.push(format!(
                "{}terminationGracePeriodSeconds: {grace}{comment}",
                pad(3)
            ));
        }
        lines.push(format!("{}containers:", pad(3)));
        let dash = if layout.indented_sequences {
            pad(4)
        } else {
            pad(3)
        };
        for index in 0..layout.containers {
            lines.push(format!("{dash}- name: {q}c{index}{q}"));
            lines.push(format!("{dash}  image: c{index}:1"));
            if layout.lifecycle {
                lines.push(format!("{dash}  lifecycle:"));
                lines.push(format!("{dash}  {}preStop:", pad(1)));
                lines.push(format!("{dash}  {}exec:", pad(2)));
                lines.push(format!("{dash}  {}command: [sleep, {q}5{q}]", pad(3)));
            }
        }
        let newline = if layout.crlf { "\r\n" } else { "\n" };
        let mut text = lines.join(newline);
        if layout.final_line_break {
            text.push_str(newline);
        }
        text
    }

    /// One intended change to a generated manifest.
    fn change(layout: &Layout, choice: usize, number: i64) -> Change {
        let pod = JsonPath::parse("spec.template.spec");
        let pod_meta = JsonPath::parse("spec.template.metadata");
        let container = pod
            .key("containers")
            .index(number as usize % layout.containers);
        let config = pod_meta
            .key("annotations")
            .key("proxy.istio.io/config")
            .embedded();
        match choice % 8 {
            0 => Change::Set(pod.key("terminationGracePeriodSeconds"), json!(number)),
            1 => Change::Set(
                pod_meta.key("annotations").key("sidecar.istio.io/inject"),
                json!("true"),
            ),
            2 => Change::Set(
                container
                    .key("lifecycle")
                    .key("preStop")
                    .key("sleep")
                    .key("seconds"),
                json!(number),
            ),
            3 => Change::Set(
                JsonPath::parse("metadata.namespace"),
                json!(format!("ns-{number}")),
            ),
            4 => Change::Remove(container.key("image")),
            5 => Change::Remove(JsonPath::parse("metadata.name")),
            6 if layout.annotations => {
                Change::Set(config.key("holdApplicationUntilProxyStarts"), json!(true))
            }
            7 if layout.annotations => Change::Set(
                config.key("terminationDrainDuration"),
                json!(format!("{number}s")),
            ),
            _ => Change::Set(container.key("name"), json!(format!("renamed: {number}"))),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn builder_edits_decode_to_exactly_the_intended_change(
            layout in layouts(),
            choices in proptest::collection::vec((0usize..8, 0i64..1000), 1..4),
        ) {
            let text = manifest(&layout);
            let docs = documents(&text);
            let editor = Editor::new(&text, &docs[0].root);
            let mut fixes = Vec::new();
            let mut changes = Vec::new();
            for (choice, number) in choices {
                let change = change(&layout, choice, number);
                let edits = editor.change(&change);
                let edits = edits.unwrap_or_else(|error| panic!("{change:?}: {error}\n{text}"));
                // Each fix on its own is exactly its change.
                let alone = apply_fixes(&text, &[Fix::new(Applicability::Safe, "", edits.clone())], false);
                if let Err(rejection) = verify(&text, &alone.text, 0, std::slice::from_ref(&change)) {
                    panic!("{change:?}: {rejection}\n--- before:\n{text}\n--- after:\n{}", alone.text);
                }
                fixes.push(Fix::new(Applicability::Safe, "", edits));
                changes.push(change);
            }
            // Applied together, the fixes of one round make exactly their changes.
            let round = apply_fixes(&text, &fixes, false);
            // Findings with the same remedy make one change.
            let mut made: Vec<Change> = Vec::new();
            for (change, outcome) in changes.into_iter().zip(&round.outcomes) {
                if *outcome == Outcome::Applied && !made.contains(&change) {
                    made.push(change);
                }
            }
            if let Err(rejection) = verify(&text, &round.text, 0, &made) {
                panic!("{made:?}: {rejection}\n--- before:\n{text}\n--- after:\n{}", round.text);
            }
        }
    }
}

/// kubectl's reading of `text` as a manifest file, offline.
fn kubectl_reads(kubectl: &std::path::Path, text: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("manifest.yaml");
    std::fs::write(&file, text).unwrap();
    let output = std::process::Command::new(kubectl)
        .args(["label", "--local", "-o", "json", "-f"])
        .arg(&file)
        .arg("checked=yes")
        .env("KUBECONFIG", dir.path().join("none"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "kubectl refused:\n{text}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The value at `at` in `value`, created as an object when missing, or removed.
fn change_json(value: &mut Value, at: &[&str], new: Option<Value>) {
    let (last, parents) = at.split_last().unwrap();
    let mut node = value;
    for key in parents {
        node = if let Ok(index) = key.parse::<usize>() {
            &mut node[index]
        } else {
            node.as_object_mut()
                .unwrap()
                .entry(*key)
                .or_insert(json!({}))
        };
    }
    match new {
        Some(new) => match last.parse::<usize>() {
            Ok(index) => node[index] = new,
            Err(_) => node[*last] = new,
        },
        None => {
            node.as_object_mut().unwrap().remove(*last);
        }
    }
}

/// The real kubectl reads every layout the builders write as the original object with
/// exactly the intended change (`.ci/run` requires kubectl).
#[test]
fn kubectl_reads_the_edited_files_with_the_intended_change() {
    let Some(kubectl) = common::kubectl_binary() else {
        return;
    };
    let pod = |body: &str| format!("apiVersion: v1\nkind: Pod\n{body}");
    let four = pod(
        "metadata:\n    name: web # the web tier\nspec:\n    containers:\n    - name: app\n      image: app:1\n",
    );
    let indented = pod(
        "metadata:\n  name: web\nspec:\n  containers:\n    - name: app\n      image: app:1\n      command: ['sh', \"-c\", sleep 1]\n",
    );
    let flow = pod(
        "metadata: {name: web, annotations: {a: b}}\nspec: {containers: [{name: app, image: app:1}]}\n",
    );
    let crlf = pod("metadata:\n  name: web\nspec:\n  terminationGracePeriodSeconds: 30\n  containers:\n  - name: app\n    image: app:1\n").replace('\n', "\r\n");
    let no_break =
        pod("metadata:\n  name: web\nspec:\n  containers:\n  - {name: app, image: app:1}");
    let embedded = pod(
        "metadata:\n  name: web\n  annotations:\n    proxy.istio.io/config: |\n      holdApplicationUntilProxyStarts: false\nspec:\n  containers:\n  - name: app\n    image: app:1\n",
    );
    let lifecycle = json!({"preStop": {"sleep": {"seconds": 5}}});
    let container = JsonPath::parse("spec.containers").index(0);
    let annotation = inject_annotation();
    let cases: Vec<(&String, JsonPath, &[&str], Option<Value>)> = vec![
        (
            &four,
            annotation.clone(),
            &["metadata", "annotations", "sidecar.istio.io/inject"],
            Some(json!("true")),
        ),
        (
            &four,
            container.key("lifecycle"),
            &["spec", "containers", "0", "lifecycle"],
            Some(lifecycle.clone()),
        ),
        (
            &indented,
            container.key("lifecycle"),
            &["spec", "containers", "0", "lifecycle"],
            Some(lifecycle.clone()),
        ),
        (
            &indented,
            container.key("command").index(1),
            &["spec", "containers", "0", "command", "1"],
            Some(json!("-ec")),
        ),
        (
            &flow,
            annotation.clone(),
            &["metadata", "annotations", "sidecar.istio.io/inject"],
            Some(json!("true")),
        ),
        (
            &flow,
            JsonPath::parse("metadata.annotations.a"),
            &["metadata", "annotations", "a"],
            None,
        ),
        (
            &crlf,
            JsonPath::parse("spec.terminationGracePeriodSeconds"),
            &["spec", "terminationGracePeriodSeconds"],
            Some(json!(45)),
        ),
        (
            &crlf,
            container.key("image"),
            &["spec", "containers", "0", "image"],
            Some(json!("app:2")),
        ),
        (
            &no_break,
            container.key("lifecycle"),
            &["spec", "containers", "0", "lifecycle"],
            Some(lifecycle),
        ),
    ];
    for (text, at, json_path, value) in cases {
        let docs = documents(text);
        let editor = Editor::new(text, &docs[0].root);
        let edits = match &value {
            Some(value) => editor.set(&at, value),
            None => editor.remove(&at),
        }
        .unwrap();
        let fixed = apply_fixes(text, &[Fix::new(Applicability::Safe, "", edits)], false).text;
        let mut expected = kubectl_reads(&kubectl, text);
        change_json(&mut expected, json_path, value);
        assert_eq!(kubectl_reads(&kubectl, &fixed), expected, "{at}:\n{fixed}");
    }
    // Inside the annotation, kubectl's string holds the intended YAML.
    let config = JsonPath::parse("metadata.annotations").key("proxy.istio.io/config");
    let docs = documents(&embedded);
    let edits = Editor::new(&embedded, &docs[0].root)
        .set(
            &config.embedded().key("terminationDrainDuration"),
            &json!("20s"),
        )
        .unwrap();
    let fixed = apply_fixes(
        &embedded,
        &[Fix::new(Applicability::Safe, "", edits)],
        false,
    )
    .text;
    let read = kubectl_reads(&kubectl, &fixed);
    assert_eq!(
        read["metadata"]["annotations"]["proxy.istio.io/config"],
        "holdApplicationUntilProxyStarts: false\nterminationDrainDuration: 20s\n"
    );
}

/// On every workload of the corpus of real manifests, the edits a lifecycle fix makes
/// (the grace period set, a hold annotation and a preStop hook added, the first
/// container's image removed) each load and decode to exactly their change.
#[test]
fn corpus_manifests_take_every_builder_exactly() {
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    let mut dirs = vec![common::testdata("corpus")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                files.push(path);
            }
        }
    }
    let mut checked = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let Some(docs) = try_documents(&text) else {
            continue;
        };
        for (index, doc) in docs.iter().enumerate() {
            let pod = [
                "spec.template.spec",
                "spec.jobTemplate.spec.template.spec",
                "spec",
            ]
            .into_iter()
            .map(JsonPath::parse)
            .find(|pod| doc.root.at(&pod.key("containers")).is_some());
            let Some(pod) = pod else { continue };
            let meta = JsonPath::from_segments(&pod.segments()[..pod.segments().len() - 1])
                .key("metadata");
            let container = pod.key("containers").index(0);
            let changes = [
                Change::Set(pod.key("terminationGracePeriodSeconds"), json!(75)),
                Change::Set(
                    meta.key("annotations").key("proxy.istio.io/config"),
                    json!("holdApplicationUntilProxyStarts: true\n"),
                ),
                Change::Set(
                    container
                        .key("lifecycle")
                        .key("preStop")
                        .key("sleep")
                        .key("seconds"),
                    json!(5),
                ),
                Change::Remove(container.key("image")),
            ];
            let editor = Editor::new(&text, &doc.root);
            for change in changes {
                let edits = editor.change(&change);
                let edits = match edits {
                    Ok(edits) => edits,
                    // A shape the fix cannot take (a hook already set another way) is
                    // refused with a reason, never written.
                    Err(error) => {
                        assert!(!error.reason.is_empty());
                        continue;
                    }
                };
                let fixed =
                    apply_fixes(&text, &[Fix::new(Applicability::Safe, "", edits)], false).text;
                if let Err(rejection) = verify(&text, &fixed, index, std::slice::from_ref(&change))
                {
                    panic!(
                        "{}: document {index}: {change:?}: {rejection}",
                        file.display()
                    );
                }
                checked += 1;
            }
        }
    }
    eprintln!("{checked} corpus edits checked");
    assert!(checked > 100, "only {checked} edits checked");
}

/// Builds `changes` as a [`Remedy`] on document `document` of `text` (each change on
/// the text the ones before made, where they need it), applies it, checks it decodes
/// to exactly those changes, and returns the new text.
fn remedied(text: &str, document: usize, changes: Vec<Change>) -> String {
    let docs = documents(text);
    let editor = Editor::new(text, &docs[document].root);
    let planned = editor
        .plan(&Remedy::new(Applicability::Safe, "test", changes.clone()))
        .unwrap_or_else(|error| panic!("no edit: {error}"));
    let round = apply_fixes(text, &[planned.fix], false);
    assert_eq!(round.outcomes, [Outcome::Applied]);
    if let Err(rejection) = verify(text, &round.text, document, &changes) {
        panic!("{rejection}\n--- fixed:\n{}", round.text);
    }
    round.text
}

fn moved(text: &str, from: JsonPath, to: JsonPath) -> String {
    remedied(text, 0, vec![Change::Move { from, to }])
}

#[test]
fn a_replaced_mapping_keeps_its_place_indentation_and_the_comments_around_it() {
    let exec = json!({"exec": {"command": ["sleep", "5"]}});
    let at = JsonPath::parse("spec.containers")
        .index(0)
        .key("lifecycle")
        .key("preStop");
    let two = "spec:\n  containers:\n  - name: app\n    lifecycle:\n      preStop: # the delay\n        sleep:\n          seconds: 5 # endpoints\n    image: app:1\n";
    assert_eq!(
        set(two, &at, exec.clone()),
        "spec:\n  containers:\n  - name: app\n    lifecycle:\n      preStop: # the delay\n        exec:\n          command:\n          - sleep\n          - \"5\" # endpoints\n    image: app:1\n"
    );
    let four = "spec:\n    containers:\n        - name: app\n          lifecycle:\n              preStop:\n                  sleep: {seconds: 5}\n";
    assert_eq!(
        set(four, &at, exec.clone()),
        "spec:\n    containers:\n        - name: app\n          lifecycle:\n              preStop:\n                  exec:\n                      command:\n                          - sleep\n                          - \"5\"\n"
    );
    let flow =
        "spec:\n  containers:\n  - {name: app, lifecycle: {preStop: {sleep: {seconds: 5}}}}\n";
    assert_eq!(
        set(flow, &at, exec.clone()),
        "spec:\n  containers:\n  - {name: app, lifecycle: {preStop: {exec: {command: [sleep, \"5\"]}}}}\n"
    );
    // A sequence replaced whole, as the file writes sequence items; the comment after
    // an item inside it is kept, on a line of its own.
    let args = "args:\n    - a # first\n    - b\nnext: 1\n";
    assert_eq!(
        set(args, &path("args"), json!(["x", {"k": "v"}])),
        "args:\n    # first\n    - x\n    - k: v\nnext: 1\n"
    );
    // Comment lines inside a replaced mapping stay, above the new content, in order;
    // a `#` inside a quoted value is text, not a comment.
    let inside = "spec:\n  containers:\n  - name: app\n    lifecycle:\n      preStop:\n        # drain first\n        sleep:\n          # the lease is 8 s\n          # and 2 s for the LB\n          seconds: 5\n        note: \"a # b\"\n    image: app:1\n";
    assert_eq!(
        set(inside, &at, exec.clone()),
        "spec:\n  containers:\n  - name: app\n    lifecycle:\n      preStop:\n        # drain first\n        # the lease is 8 s\n        # and 2 s for the LB\n        exec:\n          command:\n          - sleep\n          - \"5\"\n    image: app:1\n"
    );
    // In flow style there is no line to keep them on: refused.
    let flow_comment = "spec:\n  containers:\n  - {name: app, lifecycle: {preStop: {sleep: # why\n      {seconds: 5}}}}\n";
    let docs = documents(flow_comment);
    let error = Editor::new(flow_comment, &docs[0].root)
        .set(&at, &exec)
        .unwrap_err();
    assert!(error.reason.contains("holds comments"), "{error}");
    // A different kind is refused rather than guessed.
    let docs = documents(args);
    let error = Editor::new(args, &docs[0].root)
        .set(&path("args"), &json!({"a": 1}))
        .unwrap_err();
    assert!(error.reason.contains("block sequence"), "{error}");
}

#[test]
fn a_removed_item_takes_its_lines_and_its_comments() {
    let text = "containers:\n# the work\n- name: work\n  image: w # pinned\n# ships logs\n- name: shipper\n  image: s\nnext: 1\n";
    assert_eq!(
        remove(text, &JsonPath::parse("containers").index(1)),
        "containers:\n# the work\n- name: work\n  image: w # pinned\nnext: 1\n"
    );
    assert_eq!(
        remove(text, &JsonPath::parse("containers").index(0)),
        "containers:\n# ships logs\n- name: shipper\n  image: s\nnext: 1\n"
    );
    let only = "spec:\n  args:\n    - a\n  next: 1\n";
    assert_eq!(
        remove(only, &JsonPath::parse("spec.args").index(0)),
        "spec:\n  args: []\n  next: 1\n"
    );
    let flow = "args: [a, b, c]\n";
    assert_eq!(
        remove(flow, &JsonPath::parse("args").index(1)),
        "args: [a, c]\n"
    );
    assert_eq!(
        remove(flow, &JsonPath::parse("args").index(0)),
        "args: [b, c]\n"
    );
}

#[test]
fn a_moved_item_keeps_its_comments_and_takes_the_target_s_indentation() {
    let from = JsonPath::parse("spec.containers").index(1);
    let to = JsonPath::parse("spec.initContainers").index(0);
    // Two spaces, sequences not indented: the new key goes before the one the item
    // leaves, its `-` where the file puts them.
    let two = "spec:\n  restartPolicy: Never\n  containers:\n  - name: work\n    image: w\n  # ships the logs\n  - name: shipper # the sidecar\n    image: s\n    args:\n    - |\n      ship \\\n        --all\n  volumes: []\n";
    assert_eq!(
        moved(two, from.clone(), to.clone()),
        "spec:\n  restartPolicy: Never\n  initContainers:\n  # ships the logs\n  - name: shipper # the sidecar\n    image: s\n    args:\n    - |\n      ship \\\n        --all\n  containers:\n  - name: work\n    image: w\n  volumes: []\n"
    );
    // Four spaces, indented sequences.
    let four = "spec:\n    containers:\n        - name: work\n          image: w\n        - name: shipper\n          image: s\n";
    assert_eq!(
        moved(four, from.clone(), to.clone()),
        "spec:\n    initContainers:\n        - name: shipper\n          image: s\n    containers:\n        - name: work\n          image: w\n"
    );
    // Into an existing sequence written at another column, first or last.
    let existing = "spec:\n  initContainers:\n    - name: setup\n      image: i\n  containers:\n  - name: work\n    image: w\n  - name: shipper\n    image: s\n";
    assert_eq!(
        moved(existing, from.clone(), to.clone()),
        "spec:\n  initContainers:\n    - name: shipper\n      image: s\n    - name: setup\n      image: i\n  containers:\n  - name: work\n    image: w\n"
    );
    assert_eq!(
        moved(
            existing,
            from.clone(),
            JsonPath::parse("spec.initContainers").index(1)
        ),
        "spec:\n  initContainers:\n    - name: setup\n      image: i\n    - name: shipper\n      image: s\n  containers:\n  - name: work\n    image: w\n"
    );
    // After the last item of a file without a last line break.
    let unended = "spec:\n  containers:\n  - name: work\n  - name: shipper\n  initContainers:\n  - name: setup";
    assert_eq!(
        moved(
            unended,
            from.clone(),
            JsonPath::parse("spec.initContainers").index(1)
        ),
        "spec:\n  containers:\n  - name: work\n  initContainers:\n  - name: setup\n  - name: shipper"
    );
    // A flow target gets the item in flow style.
    let flow = "spec:\n  initContainers: [{name: setup}]\n  containers:\n  - name: work\n  - name: shipper\n    args: [a]\n";
    assert_eq!(
        moved(flow, from, to),
        "spec:\n  initContainers: [{args: [a], name: shipper}, {name: setup}]\n  containers:\n  - name: work\n"
    );
}

#[test]
fn changes_compose_in_one_mapping_and_after_a_move() {
    let from = JsonPath::parse("spec.containers").index(1);
    let to = JsonPath::parse("spec.initContainers").index(0);
    let stream = "kind: A\n---\nspec:\n  containers:\n  - name: work\n  - name: shipper\n    image: s # pinned\n---\nkind: C\n";
    // The key set after the move lands in the moved item: the path means the
    // sequence as the move left it.
    assert_eq!(
        remedied(
            stream,
            1,
            vec![
                Change::Move {
                    from,
                    to: to.clone()
                },
                Change::Set(to.key("restartPolicy"), json!("Always")),
            ]
        ),
        "kind: A\n---\nspec:\n  initContainers:\n  - name: shipper\n    image: s # pinned\n    restartPolicy: Always\n  containers:\n  - name: work\n---\nkind: C\n"
    );
    // A key removed from a mapping another change inserts into: the block mapping
    // stays a block.
    let text = "hook:\n  sleep:\n    seconds: 5\n";
    assert_eq!(
        remedied(
            text,
            0,
            vec![
                Change::Remove(path("hook.sleep")),
                Change::Set(path("hook.exec.command"), json!(["sleep", "5"])),
            ]
        ),
        "hook:\n  exec:\n    command:\n    - sleep\n    - \"5\"\n"
    );
}

/// A remedy that removes the last keys of a mapping the user wrote non-empty removes
/// the mapping too, up the path, rather than leave `lifecycle: {}`, an empty
/// `proxy.istio.io/config` or `annotations: {}`; a mapping that keeps a key, or gets
/// one from the same remedy, stays.
#[test]
fn a_remedy_leaves_no_empty_mapping_behind() {
    let hold = path("metadata.annotations")
        .key("proxy.istio.io/config")
        .embedded()
        .key("holdApplicationUntilProxyStarts");
    let only = "metadata:\n  name: web\n  annotations:\n    proxy.istio.io/config: |\n      holdApplicationUntilProxyStarts: true\nspec: {}\n";
    assert_eq!(
        remedied_as(
            only,
            vec![Change::Remove(hold.clone())],
            &[Change::Remove(path("metadata.annotations"))]
        ),
        "metadata:\n  name: web\nspec: {}\n"
    );
    let beside = "metadata:\n  name: web\n  annotations:\n    proxy.istio.io/config: |\n      holdApplicationUntilProxyStarts: true\n    team: payments\nspec: {}\n";
    assert_eq!(
        remedied_as(
            beside,
            vec![Change::Remove(hold.clone())],
            &[Change::Remove(
                path("metadata.annotations").key("proxy.istio.io/config")
            )]
        ),
        "metadata:\n  name: web\n  annotations:\n    team: payments\nspec: {}\n"
    );
    let kept = "metadata:\n  annotations:\n    proxy.istio.io/config: |\n      holdApplicationUntilProxyStarts: true\n      terminationDrainDuration: 20s\n";
    assert_eq!(
        remedied_as(
            kept,
            vec![Change::Remove(hold.clone())],
            &[Change::Remove(hold)]
        ),
        "metadata:\n  annotations:\n    proxy.istio.io/config: |\n      terminationDrainDuration: 20s\n"
    );
    let hook = "spec:\n  containers:\n  - name: app\n    lifecycle:\n      preStop:\n        exec: {command: [sleep, '5']}\n    image: app\n";
    let pre_stop = JsonPath::parse("spec.containers")
        .index(0)
        .key("lifecycle")
        .key("preStop");
    assert_eq!(
        remedied_as(
            hook,
            vec![Change::Remove(pre_stop)],
            &[Change::Remove(
                JsonPath::parse("spec.containers").index(0).key("lifecycle")
            )]
        ),
        "spec:\n  containers:\n  - name: app\n    image: app\n"
    );
}

/// [`remedied`], also checking the changes the plan makes (`planned`).
fn remedied_as(text: &str, changes: Vec<Change>, planned: &[Change]) -> String {
    let docs = documents(text);
    let editor = Editor::new(text, &docs[0].root);
    let plan = editor
        .plan(&Remedy::new(Applicability::Safe, "test", changes))
        .unwrap_or_else(|error| panic!("no edit: {error}"));
    assert_eq!(plan.changes, planned);
    let round = apply_fixes(text, &[plan.fix], false);
    assert_eq!(round.outcomes, [Outcome::Applied]);
    if let Err(rejection) = verify(text, &round.text, 0, planned) {
        panic!("{rejection}\n--- fixed:\n{}", round.text);
    }
    round.text
}

/// A key a remedy moves to another mapping (ML404's annotation to a label) takes its
/// comments with it: the lines above it and the one after its value.
#[test]
fn a_moved_key_keeps_its_comments() {
    let annotation = path("metadata.annotations").key("sidecar.istio.io/inject");
    let label = path("metadata.labels").key("sidecar.istio.io/inject");
    let moved = |text: &str| {
        remedied(
            text,
            0,
            vec![
                Change::Remove(annotation.clone()),
                Change::Set(label.clone(), json!("true")),
            ],
        )
    };
    let beside = "metadata:\n  labels:\n    app: web\n  annotations:\n    # the mesh, per pod\n    sidecar.istio.io/inject: \"true\"  # ticket 42\n    team: payments\n";
    assert_eq!(
        moved(beside),
        "metadata:\n  labels:\n    app: web\n    # the mesh, per pod\n    sidecar.istio.io/inject: \"true\"  # ticket 42\n  annotations:\n    team: payments\n"
    );
    // The only annotation: `annotations:` goes, the comments move.
    let alone = "metadata:\n  labels:\n    app: web\n  annotations:\n    # the mesh, per pod\n    sidecar.istio.io/inject: \"true\"  # ticket 42\n";
    assert_eq!(
        remedied_as(
            alone,
            vec![
                Change::Remove(annotation.clone()),
                Change::Set(label.clone(), json!("true")),
            ],
            &[
                Change::Remove(path("metadata.annotations")),
                Change::Set(label.clone(), json!("true")),
            ]
        ),
        "metadata:\n  labels:\n    app: web\n    # the mesh, per pod\n    sidecar.istio.io/inject: \"true\"  # ticket 42\n"
    );
}

/// ML404 moving a pod template's only annotation: the block `metadata:` that held
/// nothing else stays a block, the emptied `annotations:` goes (as kubectl leaves no
/// empty `annotations:` behind), and the comment after the value keeps its spacing.
#[test]
fn a_key_moved_out_of_the_only_mapping_keeps_the_block_style() {
    let annotation = inject_annotation();
    let label = path("metadata.labels").key("sidecar.istio.io/inject");
    let only = "metadata:\n  annotations:\n    sidecar.istio.io/inject: \"true\"    # mesh opt-in\nspec: {}\n";
    assert_eq!(
        remedied_as(
            only,
            vec![
                Change::Remove(annotation.clone()),
                Change::Set(label.clone(), json!("true")),
            ],
            &[
                Change::Remove(path("metadata.annotations")),
                Change::Set(label.clone(), json!("true")),
            ]
        ),
        "metadata:\n  labels:\n    sidecar.istio.io/inject: \"true\"    # mesh opt-in\nspec: {}\n"
    );
    // A flow mapping stays flow.
    let flow = "metadata: {annotations: {sidecar.istio.io/inject: \"true\"}}\nspec: {}\n";
    assert_eq!(
        remedied_as(
            flow,
            vec![
                Change::Remove(annotation),
                Change::Set(label.clone(), json!("true")),
            ],
            &[
                Change::Remove(path("metadata.annotations")),
                Change::Set(label, json!("true")),
            ]
        ),
        "metadata: {labels: {sidecar.istio.io/inject: \"true\"}}\nspec: {}\n"
    );
}

/// `{}` under a block key, as `kubectl get -o yaml` writes an empty mapping, gets
/// block entries; inside a flow collection it stays flow.
#[test]
fn an_empty_mapping_under_a_block_key_gets_block_entries() {
    let text = "metadata:\n  name: web\n  labels: {}  # none yet\nspec: {}\n";
    assert_eq!(
        set(text, &path("metadata.labels.app"), json!("web")),
        "metadata:\n  name: web\n  labels:  # none yet\n    app: web\nspec: {}\n"
    );
    let flow = "metadata: {name: web, labels: {}}\n";
    assert_eq!(
        set(flow, &path("metadata.labels.app"), json!("web")),
        "metadata: {name: web, labels: {app: web}}\n"
    );
}

/// An edit inside a block scalar keeps its header as written: indicator (`|`, `>`),
/// chomping (`-`, `+`) and indentation indicator; a folded block gets the empty lines
/// that keep its new lines apart.
#[test]
fn a_block_scalar_keeps_its_indicator_chomping_and_indentation() {
    let config = path("metadata.annotations").key("proxy.istio.io/config");
    let hold = json!(true);
    let embedded = config
        .clone()
        .embedded()
        .key("holdApplicationUntilProxyStarts");
    for header in ["|", "|-", "|+", "|4", ">", ">-", "|2-"] {
        let indent = if header.starts_with("|2") { 6 } else { 8 };
        let pad = " ".repeat(indent);
        let text = format!(
            "metadata:\n  annotations:\n    proxy.istio.io/config: {header}  # proxy\n{pad}proxyStatsMatcher:\n{pad}  inclusionPrefixes: [a]\nspec: {{}}\n"
        );
        let fixed = fixed(
            &text,
            0,
            |editor| editor.set(&embedded, &hold),
            &[Change::Set(embedded.clone(), hold.clone())],
        );
        assert!(
            fixed.contains(&format!("proxy.istio.io/config: {header}  # proxy\n")),
            "{header}:\n{fixed}"
        );
        assert!(
            fixed.contains(&format!("{pad}holdApplicationUntilProxyStarts: true\n")),
            "{header}:\n{fixed}"
        );
    }
    let folded = "metadata:\n  annotations:\n    proxy.istio.io/config: >\n      terminationDrainDuration: 5s\nspec: {}\n";
    assert_eq!(
        fixed(
            folded,
            0,
            |editor| editor.set(&embedded, &hold),
            &[Change::Set(embedded.clone(), hold.clone())],
        ),
        "metadata:\n  annotations:\n    proxy.istio.io/config: >\n      terminationDrainDuration: 5s\n\n      holdApplicationUntilProxyStarts: true\nspec: {}\n"
    );
}
