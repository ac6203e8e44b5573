//! The stages keep to their part: `resolve` states facts about what will run and never
//! which rule judges them, so no file under `src/resolve` mentions a rule id or declares
//! a type named after a rule; and what one sidecar is (its annotations, ports, binaries,
//! its model) is named only by its model under `src/resolve/mesh` (docs/architecture.md).
//! And data flows one way: no file imports a later stage's, and no files import each
//! other, however far round (`imports_run_one_way`).

use crate::common;

use std::path::PathBuf;

use common::rust_files;

/// Rule ids (`ML205`) in `text`: `ML` and three digits, not inside a longer word.
fn rule_ids(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    (0..bytes.len().saturating_sub(4))
        .filter(|&i| {
            &bytes[i..i + 2] == b"ML"
                && bytes[i + 2..i + 5].iter().all(u8::is_ascii_digit)
                && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric())
                && bytes.get(i + 5).is_none_or(|b| !b.is_ascii_alphanumeric())
        })
        .map(|i| text[i..i + 5].to_owned())
        .collect()
}

/// The names of the types a Rust file declares.
fn declared_types(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let line = line.strip_prefix("pub(crate) ").unwrap_or(line);
            let line = line.strip_prefix("pub ").unwrap_or(line);
            ["struct ", "enum ", "type ", "trait "]
                .iter()
                .find_map(|keyword| line.strip_prefix(keyword))
        })
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

/// The rules' type names, from the catalog the binary prints (`invalid-proxy-config`
/// is `InvalidProxyConfig`).
fn rule_type_names() -> Vec<String> {
    let output = assert_cmd::Command::cargo_bin("kubectl-mesh_lifecycle")
        .unwrap()
        .args(["rules", "--format", "json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let catalog: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let rules = catalog.as_array().expect("the catalog is a list of rules");
    assert!(rules.len() > 20, "{catalog}");
    rules
        .iter()
        .map(|rule| {
            rule["name"]
                .as_str()
                .unwrap()
                .split('-')
                .map(|word| word[..1].to_uppercase() + &word[1..])
                .collect()
        })
        .collect()
}

#[test]
fn rule_ids_are_found() {
    // The checker itself: it finds ids, and only whole ones.
    assert_eq!(rule_ids("reported as ML205 (and ML4xx)"), ["ML205"]);
    assert!(rule_ids("XML2050 HTML205").is_empty());
    assert_eq!(
        declared_types("pub struct DrainSettingIgnored;\nenum Moot {"),
        ["DrainSettingIgnored", "Moot"]
    );
}

#[test]
fn resolve_names_no_rule() {
    let rules = rule_type_names();
    let resolve = common::root().join("src/resolve");
    let files = rust_files(&resolve);
    assert!(files.len() > 10, "{files:?}");
    let mut offences = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for id in rule_ids(&text) {
            offences.push(format!("{}: mentions {id}", file.display()));
        }
        for name in declared_types(&text) {
            if rules.iter().any(|rule| name.contains(rule.as_str())) {
                offences.push(format!(
                    "{}: type `{name}` is named after a rule",
                    file.display()
                ));
            }
        }
    }
    assert!(offences.is_empty(), "{}", offences.join("\n"));
}

/// The fields a Rust file declares with a text type (`String`, `&str`, or an `Option`,
/// `Vec` or `Box` of one), by name: declarations only, not struct literals or comments.
fn text_fields(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim_start)
        .filter(|line| !line.starts_with("//"))
        .filter_map(|line| {
            let line = ["pub(crate) ", "pub(super) ", "pub "]
                .iter()
                .find_map(|prefix| line.strip_prefix(prefix))
                .unwrap_or(line);
            let (name, ty) = line.split_once(':')?;
            let ty = ty.trim().strip_suffix(',').unwrap_or(ty.trim());
            let is_name =
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            let is_type = !ty.is_empty()
                && ty
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "<>&' _".contains(c));
            let is_text = ty
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|word| word == "String" || word == "str");
            (is_name && is_type && is_text).then(|| name.to_owned())
        })
        .collect()
}

/// The fields a Rust file declares that hold a rule's wording: a `message`, a `help` or
/// a `fix` text.
fn worded_fields(text: &str) -> Vec<String> {
    text_fields(text)
        .into_iter()
        .filter(|name| ["message", "help", "fix"].contains(&name.as_str()))
        .collect()
}

#[test]
fn worded_fields_are_found() {
    // The checker itself: declarations with a text type, not uses or other types.
    assert_eq!(
        worded_fields("    pub message: String,\n    fix: Option<String>,\n"),
        ["message", "fix"]
    );
    assert!(worded_fields("    message: format!(\"x\"),\n    path: JsonPath,\n").is_empty());
    assert!(worded_fields("    /// message: String\n    fix: Remedy,\n").is_empty());
}

/// The files under `src/resolve` but the models' remedies (`resolve/mesh/**/remedies.rs`):
/// a remedy is a fix with its description, which a rule shows as its help, so the
/// description and the fix come from one place and cannot disagree.
fn resolve_without_remedies() -> Vec<PathBuf> {
    let mesh = common::root().join("src/resolve/mesh");
    let files: Vec<_> = rust_files(&common::root().join("src/resolve"))
        .into_iter()
        .filter(|file| !(file.starts_with(&mesh) && file.ends_with("remedies.rs")))
        .collect();
    assert!(files.len() > 10, "{files:?}");
    files
}

#[test]
fn resolve_holds_no_wording() {
    // Messages, help and fix texts are the rules' (each rule's violation words its
    // facts); resolve hands on facts only.
    let mut offences = Vec::new();
    for file in resolve_without_remedies() {
        let text = std::fs::read_to_string(&file).unwrap();
        for field in worded_fields(&text) {
            offences.push(format!("{}: a `{field}` text", file.display()));
        }
    }
    assert!(offences.is_empty(), "{}", offences.join("\n"));
}

/// Names of fields that, holding text, would be a sentence for a reader: why something
/// is so, a description, a message. Resolve states such things as typed facts (a
/// `DecisionReason`, an `Assumption`, a `NotInjectedCause`) and `report` words them.
const PROSE_FIELDS: [&str; 8] = [
    "reason",
    "reasons",
    "text",
    "message",
    "help",
    "description",
    "why",
    "summary",
];

/// Text fields with one of those names that hold data, not prose, each with why it is
/// data. None today: what a manifest says as written is in fields named for it
/// (`written`, `called`, `value`), so a new entry here is a decision to review.
const DATA_FIELDS: [(&str, &str); 0] = [];

#[test]
fn prose_fields_are_found() {
    // The checker itself: text types in any wrapper, in structs and enum variants.
    assert_eq!(
        text_fields(
            "pub struct A {\n    pub reasons: Vec<String>,\n}\n    NotInjected {\n        reason: String,\n    },\n    by: &'static str,\n"
        ),
        ["reasons", "reason", "by"]
    );
    assert!(
        text_fields("    reason: Reason,\n    text: call.text,\n    why: format!(\"{x}\"),\n")
            .is_empty()
    );
}

#[test]
fn resolve_holds_no_prose() {
    // What resolve hands on to explain and the assumptions block is facts, worded in
    // `report`: a field named for a sentence holds a typed value, not text.
    let mut offences = Vec::new();
    for file in resolve_without_remedies() {
        let text = std::fs::read_to_string(&file).unwrap();
        for field in text_fields(&text) {
            let prose = PROSE_FIELDS.contains(&field.as_str());
            let data = DATA_FIELDS.iter().any(|(name, _)| *name == field);
            if prose && !data {
                offences.push(format!("{}: a `{field}` text", file.display()));
            }
        }
    }
    assert!(offences.is_empty(), "{}", offences.join("\n"));
}

/// What names one sidecar in code: its annotations' and labels' domains, its
/// containers and binaries, its ports, its model's module, and its mesh's id compared
/// as a string.
const MESH_WORDS: [&str; 39] = [
    "istio.io",
    "istio-injection",
    "linkerd.io",
    "kuma.io",
    "consul.hashicorp.com",
    "dapr.io",
    "pilot-agent",
    "envoy",
    "istio-proxy",
    "linkerd-proxy",
    "linkerd2-proxy",
    "linkerd-await",
    "kuma-dp",
    "kuma-sidecar",
    "daprd",
    "consul-dataplane",
    "cloud-sql-proxy",
    "queue-proxy",
    "15000",
    "15020",
    "15021",
    "4191",
    "3500",
    "19000",
    "8012",
    "8022",
    "istio::",
    "linkerd::",
    "kuma::",
    "consul::",
    "dapr::",
    "cloud_sql::",
    "knative::",
    "\"istio\"",
    "\"linkerd\"",
    "\"kuma\"",
    "\"consul\"",
    "\"dapr\"",
    "\"knative\"",
];

/// The folders and files outside `src/resolve/mesh` that name a sidecar by its nature,
/// each with why. Anything else that names one is a model's knowledge in the wrong home.
const MESH_AWARE: [(&str, &str); 4] = [
    (
        "src/settings",
        "the profile's mesh sections: the config file's `istio:` and `linkerd:` and the mesh config are each mesh's own settings",
    ),
    (
        "src/cluster",
        "reads each mesh's control-plane objects (ConfigMaps, install values) from a cluster",
    ),
    (
        "src/workload/knative.rs",
        "a Knative Service's pod, with the queue-proxy Knative's controller adds, is a workload kind",
    ),
    (
        "src/workload/decoding.rs",
        "decoding a workload hands a Knative Service's pod to its own module",
    ),
];

/// The lines of `text` that name a sidecar in code: comments and `#[cfg(test)]`
/// modules (unit tests feed the readers real commands) are left out.
fn mesh_mentions(text: &str) -> Vec<(usize, String)> {
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    code.lines()
        .enumerate()
        .filter_map(|(index, line)| {
            let code = match line.trim_start() {
                comment if comment.starts_with("//") => "",
                _ => line.split(" //").next().unwrap_or_default(),
            };
            // A mesh's id compared as a string is lower case; its title in prose is not.
            let lower = code.to_ascii_lowercase();
            let word = MESH_WORDS.iter().find(|word| {
                let haystack = if word.starts_with('"') { code } else { &lower };
                haystack.match_indices(**word).any(|(at, _)| {
                    let before = haystack[..at].chars().next_back();
                    let after = haystack[at + word.len()..].chars().next();
                    let digits = word.chars().all(|c| c.is_ascii_digit());
                    let bounded = |c: Option<char>| {
                        c.is_none_or(|c| !c.is_ascii_alphanumeric() && (!digits || c != '.'))
                    };
                    bounded(before) && (word.ends_with("::") || bounded(after))
                })
            })?;
            Some((index + 1, format!("`{word}` in {}", code.trim())))
        })
        .collect()
}

#[test]
fn mesh_mentions_are_found() {
    // The checker itself: code, not comments or unit tests; whole words and ports.
    let text = "const PORT: u16 = 15020;\n// pilot-agent waits\nlet kind = istio::KIND; // envoy\nlet x = 150201;\n#[cfg(test)]\nmod tests { \"kuma-dp\" }\n";
    let found: Vec<_> = mesh_mentions(text)
        .into_iter()
        .map(|(line, _)| line)
        .collect();
    assert_eq!(found, [1, 3]);
    assert!(mesh_mentions("let envoyproxy = 1; let s = \"1.15020\";").is_empty());
}

#[test]
fn only_the_models_name_a_sidecar() {
    // A mesh's annotation, label, port or binary, and a match on one model, belong to
    // its model under src/resolve/mesh: the driver, the plan, the simulator, the rules
    // and the reports work with what the models state (docs/architecture.md, "Adding a
    // sidecar").
    let root = common::root();
    let mut offences = Vec::new();
    for file in rust_files(&root.join("src")) {
        let relative = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if relative.starts_with("src/resolve/mesh/")
            || MESH_AWARE.iter().any(|(allowed, _)| {
                relative == *allowed || relative.starts_with(&format!("{allowed}/"))
            })
        {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for (line, mention) in mesh_mentions(&text) {
            offences.push(format!("{relative}:{line}: {mention}"));
        }
    }
    assert!(offences.is_empty(), "{}", offences.join("\n"));
    // Every exception still holds something to excuse.
    for (allowed, why) in MESH_AWARE {
        let files = match root.join(allowed) {
            dir if dir.is_dir() => rust_files(&dir),
            file => vec![file],
        };
        let named = files
            .iter()
            .any(|file| !mesh_mentions(&std::fs::read_to_string(file).unwrap()).is_empty());
        assert!(
            named,
            "{allowed} names no sidecar any more ({why}): drop it from MESH_AWARE"
        );
    }
}

/// The layers of `src/`, lowest first, each with why it sits there: a file may import
/// its own layer's files and lower ones', never a higher one's (docs/architecture.md,
/// the pipeline). A module is in the layer of the longest prefix that names it; the
/// crate root (`src/lib.rs`) is the floor.
const LAYERS: &[(&[&str], &str)] = &[
    (
        &["", "time", "escape", "documented", "fan_out"],
        "the floor: names, units, safe text and helpers every stage shares",
    ),
    (&["load"], "bytes to positioned documents: the first stage"),
    (&["workload"], "a document's typed pod spec"),
    (
        &["settings"],
        "one profile from config, mesh config, presets and flags; reads workloads (Namespaces)",
    ),
    (
        &["cluster", "render"],
        "inputs and a settings layer from a live cluster or a renderer, before the stages",
    ),
    (
        &["fix"],
        "text edits on the positioned tree and the remedy vocabulary models and rules state",
    ),
    (
        &["resolve"],
        "facts about what will run, from a workload and the settings",
    ),
    (&["simulate"], "the timeline of a plan"),
    (
        &["rules"],
        "verdicts on plan and timeline, with their wording and remedies",
    ),
    (
        &["pipeline"],
        "drives the stages over inputs, locates findings and runs the fix loop over them",
    ),
    (
        &["report", "diff", "baseline"],
        "after the last stage: render, compare and baseline located results",
    ),
    (&["lsp"], "a front end: the language server"),
    (
        &["admission", "mcp"],
        "front ends where manifests land: the admission webhook and the assistants' server",
    ),
    (
        &["cli"],
        "the front end that runs every other, the language server among them",
    ),
];

/// Folders whose files still import each other in a circle, each with why: a circle
/// is tolerated only when all its files lie in one of them, and a folder listed here
/// that holds none fails the test, so the list only shrinks. Most are a `mod.rs` that
/// declares types its children use and calls those children; each is broken by
/// moving the shared types to a module of their own, as `pipeline/options.rs` and
/// `cli/commands.rs` were.
const STILL_CIRCULAR: &[(&str, &str)] = &[
    (
        "src/cluster/",
        "cluster/mod.rs and objects/mod.rs declare the types their readers fill",
    ),
    (
        "src/load/",
        "load/mod.rs declares Document, SourceText and InputError and reads text through its children",
    ),
    (
        "src/resolve/",
        "resolve/mod.rs, mesh/mod.rs and plan/mod.rs declare what their children use; vocabulary and shell/stop_targets share StopTarget and Lexicon",
    ),
    (
        "src/rules/",
        "configuration/mod.rs and termination/mod.rs declare helpers their rules use; rules share wording with rejection.rs and stay.rs, which name them",
    ),
    (
        "src/settings/config/",
        "config/mod.rs declares the rule settings (RuleLevel, RuleSetting, Fixable) its schema decodes",
    ),
    (
        "src/workload/",
        "workload/mod.rs declares Context and Objects for the kinds it reads",
    ),
];

/// The layer of the module `module` (its index in [`LAYERS`]), by the longest prefix.
fn layer_of(module: &[String]) -> Option<usize> {
    LAYERS
        .iter()
        .enumerate()
        .flat_map(|(index, (prefixes, _))| prefixes.iter().map(move |p| (index, *p)))
        .filter(|(_, prefix)| {
            let prefix: Vec<&str> = prefix.split("::").filter(|s| !s.is_empty()).collect();
            prefix.len() <= module.len() && prefix.iter().zip(module).all(|(p, m)| p == m)
        })
        .max_by_key(|(_, prefix)| prefix.len())
        .map(|(index, _)| index)
}

/// The offences of `graph` against [`LAYERS`] and against one-way flow: each import of
/// a higher layer, each circle of files with the imports that make it, each path the
/// reader could not resolve, each glob re-export, each file in no layer.
fn import_offences(graph: &common::imports::Graph) -> (Vec<String>, Vec<String>, Vec<String>) {
    let mut upward = Vec::new();
    let mut other = Vec::new();
    for (file, module) in &graph.files {
        if layer_of(module).is_none() {
            other.push(format!("{file}: in no layer of LAYERS"));
        }
    }
    let layer = |file: &str| graph.files.get(file).and_then(|m| layer_of(m));
    for import in &graph.imports {
        if let (Some(from), Some(to)) = (layer(&import.file), layer(&import.target))
            && to > from
        {
            upward.push(format!(
                "{}:{} `{}` → {}: {} imports {}",
                import.file,
                import.line,
                import.written,
                import.target,
                LAYERS[from].0.join("/"),
                LAYERS[to].0.join("/"),
            ));
        }
    }
    let mut circles = Vec::new();
    let found = common::imports::circles(graph);
    for (folder, _) in STILL_CIRCULAR {
        if !found
            .iter()
            .any(|c| c.iter().all(|f| f.starts_with(folder)))
        {
            other.push(format!(
                "{folder}: no circle is left there; drop it from STILL_CIRCULAR"
            ));
        }
    }
    for circle in found {
        if STILL_CIRCULAR
            .iter()
            .any(|(folder, _)| circle.iter().all(|f| f.starts_with(folder)))
        {
            continue;
        }
        let mut text = format!("a circle of {} files:", circle.len());
        for import in graph
            .imports
            .iter()
            .filter(|i| circle.contains(&i.file) && circle.contains(&i.target))
        {
            text += &format!(
                "\n    {}:{} `{}` → {}",
                import.file, import.line, import.written, import.target
            );
        }
        circles.push(text);
    }
    other.extend(
        graph
            .unresolved
            .iter()
            .map(|u| format!("{u}: resolves to nothing")),
    );
    other.extend(
        graph
            .glob_reexports
            .iter()
            .map(|g| format!("{g}: a glob re-export hides where its names are defined")),
    );
    (upward, circles, other)
}

#[test]
fn imports_are_read() {
    // The reader itself: it resolves through re-exports to the defining file, follows
    // `super` and module aliases in code, and skips comments and strings.
    let graph = common::imports::graph(&common::root());
    assert!(graph.files.len() > 200, "{}", graph.files.len());
    let reaches = |file: &str, target: &str| {
        graph
            .imports
            .iter()
            .any(|i| i.file == file && i.target == target)
    };
    let targets = |written: &str| -> Vec<&str> {
        graph
            .imports
            .iter()
            .filter(|i| i.written == written)
            .map(|i| i.target.as_str())
            .collect()
    };
    // In code, through a re-export: `load` re-exports `STDIN_NAME`, defined in
    // source.rs, which is what the path reaches (the re-export is no import of `load`).
    assert!(reaches("src/baseline.rs", "src/load/source.rs"));
    assert!(
        targets("crate::load::STDIN_NAME")
            .iter()
            .all(|t| *t == "src/load/source.rs")
    );
    // Named in code with a module alias: `use crate::fan_out;` … `fan_out::in_shares`.
    assert!(reaches("src/pipeline/analyse.rs", "src/fan_out.rs"));
    assert_eq!(
        layer_of(&["fix".into(), "edit".into()]),
        layer_of(&["fix".into()])
    );
    assert_eq!(layer_of(&[]), Some(0));
    assert!(layer_of(&["cli".into()]) > layer_of(&["lsp".into()]));
}

#[test]
fn imports_run_one_way() {
    let graph = common::imports::graph(&common::root());
    let (upward, circles, other) = import_offences(&graph);
    let mut report = String::new();
    if !upward.is_empty() {
        report += &format!(
            "{} imports run back up:\n{}\n",
            upward.len(),
            upward.join("\n")
        );
    }
    if !circles.is_empty() {
        report += &format!("{} circles:\n{}\n", circles.len(), circles.join("\n"));
    }
    if !other.is_empty() {
        report += &format!("{}\n", other.join("\n"));
    }
    assert!(report.is_empty(), "{report}");
}
