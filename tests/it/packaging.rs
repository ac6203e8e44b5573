//! What users install from: `krew-manifest.yaml` against krew's own rules,
//! `packaging/package.sh`, which builds an archive and fills in its platform's sha256,
//! and the pre-commit hooks. No network.
//!
//! The rules mirror kubernetes-sigs/krew: `internal/index/validation` (ValidatePlugin:
//! apiVersion, kind, a safe name that matches the file, a one-line short description,
//! a `v`-prefixed semantic version, and per platform a uri, a 64-hex sha256, a bin,
//! well-formed files and a selector on `os`/`arch` only) and
//! `cmd/validate-krew-manifest` (every platform selects a supported os/arch, no os/arch
//! is selected twice, line lengths of the descriptions, a license in the archive).

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use common::root;
use serde_json::{Value, json};

const API_VERSION: &str = "krew.googlecontainertools.github.com/v1alpha2";
/// krew's `allPlatforms()`.
const KREW_PLATFORMS: [(&str, &str); 11] = [
    ("windows", "386"),
    ("windows", "amd64"),
    ("windows", "arm64"),
    ("linux", "386"),
    ("linux", "amd64"),
    ("linux", "arm"),
    ("linux", "arm64"),
    ("linux", "ppc64le"),
    ("darwin", "386"),
    ("darwin", "amd64"),
    ("darwin", "arm64"),
];
/// The platforms we release for.
const RELEASED: [(&str, &str); 5] = [
    ("linux", "amd64"),
    ("linux", "arm64"),
    ("darwin", "amd64"),
    ("darwin", "arm64"),
    ("windows", "amd64"),
];
const WINDOWS_FORBIDDEN: [&str; 22] = [
    "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8",
    "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
];

/// Parses YAML with the linter's own loader, which reads YAML as Kubernetes (and krew,
/// through sigs.k8s.io/yaml) do.
fn load(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    let documents = mesh_lifecycle::load::parse::parse_documents(
        &text,
        1,
        &mesh_lifecycle::load::Limits::default(),
    )
    .unwrap_or_else(|error| panic!("{}: {error:?}", path.display()));
    assert_eq!(documents.len(), 1, "one document");
    documents[0].to_json()
}

fn keys(value: &Value) -> Vec<&str> {
    value
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

/// Fields krew's types know; anything else is a typo krew would silently drop.
fn unknown_fields(value: &Value, allowed: &[&str], at: &str, errors: &mut Vec<String>) {
    for key in keys(value) {
        if !allowed.contains(&key) {
            errors.push(format!("{at}.{key}: not a field of krew's manifest"));
        }
    }
}

/// A semantic version as k8s.io/apimachinery's `ParseSemantic` takes it, after krew's
/// check for the leading `v`.
fn is_krew_semver(version: &str) -> bool {
    let Some(rest) = version.strip_prefix('v') else {
        return false;
    };
    let (core, _build) = rest.split_once('+').unwrap_or((rest, ""));
    let (core, pre) = match core.split_once('-') {
        Some((core, pre)) => (core, Some(pre)),
        None => (core, None),
    };
    let numbers: Vec<&str> = core.split('.').collect();
    let numeric = |n: &&str| {
        !n.is_empty()
            && n.bytes().all(|b| b.is_ascii_digit())
            && (n.len() == 1 || !n.starts_with('0'))
    };
    numbers.len() == 3
        && numbers.iter().all(numeric)
        && pre.is_none_or(|pre| {
            pre.split('.').all(|part| {
                !part.is_empty() && part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            })
        })
}

/// Lines longer than `max` that are more than one word (krew's `validateLineLength`).
fn long_lines(text: &str, max: usize) -> Vec<String> {
    text.split('\n')
        .filter(|line| line.len() > max && line.trim().contains(' '))
        .map(str::to_owned)
        .collect()
}

/// Whether a label selector selects `os`/`arch` (metav1.LabelSelectorAsSelector).
fn selects(selector: &Value, os: &str, arch: &str) -> bool {
    let labels = BTreeMap::from([("os", os), ("arch", arch)]);
    let by_labels = selector["matchLabels"]
        .as_object()
        .into_iter()
        .flatten()
        .all(|(key, value)| labels.get(key.as_str()).copied() == value.as_str());
    let by_expressions = selector["matchExpressions"]
        .as_array()
        .into_iter()
        .flatten()
        .all(|expression| {
            let value = labels
                .get(expression["key"].as_str().unwrap_or(""))
                .copied();
            let values: Vec<&str> = expression["values"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            match expression["operator"].as_str() {
                Some("In") => value.is_some_and(|v| values.contains(&v)),
                Some("NotIn") => value.is_none_or(|v| !values.contains(&v)),
                Some("Exists") => value.is_some(),
                Some("DoesNotExist") => value.is_none(),
                _ => false,
            }
        });
    by_labels && by_expressions
}

/// Every rule krew checks, for a manifest that will be published as `name.yaml`.
fn krew_errors(manifest: &Value, name: &str) -> Vec<String> {
    let mut errors = Vec::new();
    unknown_fields(
        manifest,
        &["apiVersion", "kind", "metadata", "spec"],
        "",
        &mut errors,
    );
    if manifest["apiVersion"] != API_VERSION {
        errors.push(format!("apiVersion is {}", manifest["apiVersion"]));
    }
    if manifest["kind"] != "Plugin" {
        errors.push(format!("kind is {}", manifest["kind"]));
    }
    let safe = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && !WINDOWS_FORBIDDEN
            .iter()
            .any(|f| f.eq_ignore_ascii_case(name));
    if !safe {
        errors.push(format!("the plugin name {name:?} is not allowed"));
    }
    if manifest["metadata"]["name"] != name {
        errors.push(format!("plugin should be named {name:?}"));
    }
    let spec = &manifest["spec"];
    unknown_fields(
        spec,
        &[
            "version",
            "homepage",
            "shortDescription",
            "description",
            "caveats",
            "platforms",
        ],
        ".spec",
        &mut errors,
    );
    let short = spec["shortDescription"].as_str().unwrap_or("");
    if short.is_empty() {
        errors.push("should have a short description".into());
    }
    if short.contains(['\r', '\n']) {
        errors.push("should not have line breaks in short description".into());
    }
    for (field, max) in [
        ("shortDescription", 70),
        ("description", 80),
        ("caveats", 80),
    ] {
        for line in long_lines(spec[field].as_str().unwrap_or(""), max) {
            errors.push(format!(
                "line in `{field}` exceeds {max} characters: {line:?}"
            ));
        }
    }
    if !spec["homepage"]
        .as_str()
        .is_some_and(|h| h.starts_with("https://"))
    {
        errors.push("homepage should be an https URL".into());
    }
    let version = spec["version"].as_str().unwrap_or("");
    if !is_krew_semver(version) {
        errors.push(format!(
            "version {version:?} is not a semantic version with a leading v"
        ));
    }
    let platforms = spec["platforms"].as_array().cloned().unwrap_or_default();
    if platforms.is_empty() {
        errors.push("should have a platform specified".into());
    }
    for (index, platform) in platforms.iter().enumerate() {
        let at = format!(".spec.platforms[{index}]");
        unknown_fields(
            platform,
            &["selector", "uri", "sha256", "files", "bin"],
            &at,
            &mut errors,
        );
        let uri = platform["uri"].as_str().unwrap_or("");
        if uri.is_empty() {
            errors.push(format!("{at}: `uri` has to be set"));
        } else if !uri.starts_with("https://")
            || !(uri.ends_with(".tar.gz") || uri.ends_with(".zip"))
        {
            errors.push(format!("{at}: uri {uri} is not an https .tar.gz or .zip"));
        }
        let sha = platform["sha256"].as_str().unwrap_or("");
        if sha.len() != 64
            || !sha
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            errors.push(format!(
                "{at}: `sha256` {sha:?} must match ^[a-f0-9]{{64}}$"
            ));
        }
        let bin = platform["bin"].as_str().unwrap_or("");
        if bin.is_empty() {
            errors.push(format!("{at}: `bin` has to be set"));
        }
        match &platform["files"] {
            Value::Null => {}
            Value::Array(files) if files.is_empty() => {
                errors.push(format!("{at}: `files` has to be unspecified or non-empty"))
            }
            Value::Array(files) => {
                for file in files {
                    unknown_fields(file, &["from", "to"], &format!("{at}.files[]"), &mut errors);
                    for field in ["from", "to"] {
                        if file[field].as_str().unwrap_or("").is_empty() {
                            errors.push(format!("{at}: `{field}` field has to be set"));
                        }
                    }
                }
                let from: Vec<&str> = files.iter().filter_map(|f| f["from"].as_str()).collect();
                if !from.iter().any(|f| f.eq_ignore_ascii_case("LICENSE")) {
                    errors.push(format!("{at}: the LICENSE is not extracted"));
                }
                if !from.contains(&bin) {
                    errors.push(format!("{at}: `bin` {bin} is not among the files"));
                }
            }
            other => errors.push(format!("{at}: `files` is {other}")),
        }
        let selector = &platform["selector"];
        unknown_fields(
            selector,
            &["matchLabels", "matchExpressions"],
            &format!("{at}.selector"),
            &mut errors,
        );
        let label_keys = keys(&selector["matchLabels"]);
        let expression_keys: Vec<&str> = selector["matchExpressions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| e["key"].as_str())
            .collect();
        if selector.is_null() {
            errors.push(format!("{at}: nil selector is not supported"));
        } else if label_keys.is_empty() && expression_keys.is_empty() {
            errors.push(format!("{at}: empty selector is not supported"));
        }
        for key in label_keys.iter().chain(&expression_keys) {
            if *key != "os" && *key != "arch" {
                errors.push(format!("{at}: selector key {key:?} not supported"));
            }
        }
        let selected: Vec<_> = KREW_PLATFORMS
            .iter()
            .filter(|(os, arch)| selects(selector, os, arch))
            .collect();
        if selected.is_empty() {
            errors.push(format!("{at}: the selector matches no supported platform"));
        }
        let windows = selected.iter().all(|(os, _)| *os == "windows");
        if windows != bin.ends_with(".exe") {
            errors.push(format!("{at}: bin {bin} on {selected:?}"));
        }
        if let [(os, arch)] = selected[..] {
            let expected = format!("kubectl-mesh_lifecycle-{version}-{os}-{arch}.tar.gz");
            if !uri.ends_with(&format!("/{version}/{expected}")) {
                errors.push(format!(
                    "{at}: uri {uri} is not the {version} release's {expected}"
                ));
            }
        }
    }
    for (os, arch) in KREW_PLATFORMS {
        let matching: Vec<usize> = platforms
            .iter()
            .enumerate()
            .filter(|(_, p)| selects(&p["selector"], os, arch))
            .map(|(i, _)| i)
            .collect();
        if matching.len() > 1 {
            errors.push(format!("platforms {matching:?} overlap on {os}/{arch}"));
        }
        if RELEASED.contains(&(os, arch)) && matching.is_empty() {
            errors.push(format!("no platform for {os}/{arch}"));
        }
    }
    errors
}

fn manifest() -> Value {
    load(&root().join("krew-manifest.yaml"))
}

#[test]
fn the_manifest_passes_krews_validation() {
    let manifest = manifest();
    let errors = krew_errors(&manifest, "mesh-lifecycle");
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(
        manifest["spec"]["version"],
        format!("v{}", env!("CARGO_PKG_VERSION")),
        "spec.version follows Cargo.toml"
    );
    assert_eq!(manifest["spec"]["homepage"], env!("CARGO_PKG_REPOSITORY"));
}

/// The checks catch what krew would reject.
#[test]
fn the_checks_reject_what_krew_rejects() {
    type Change = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(&str, Change)> = vec![
        (
            "apiVersion",
            Box::new(|m| m["apiVersion"] = json!("krew.googlecontainertools.github.com/v1alpha1")),
        ),
        (
            "plugin should be named",
            Box::new(|m| m["metadata"]["name"] = json!("mesh_lifecycle")),
        ),
        (
            "line breaks",
            Box::new(|m| m["spec"]["shortDescription"] = json!("two\nlines")),
        ),
        (
            "semantic version",
            Box::new(|m| m["spec"]["version"] = json!("0.1.0")),
        ),
        (
            "semantic version",
            Box::new(|m| m["spec"]["version"] = json!("v0.1")),
        ),
        (
            "sha256",
            Box::new(|m| m["spec"]["platforms"][0]["sha256"] = json!("ABC")),
        ),
        (
            "`bin` has to be set",
            Box::new(|m| m["spec"]["platforms"][0]["bin"] = json!("")),
        ),
        (
            "`to` field",
            Box::new(|m| m["spec"]["platforms"][0]["files"][0]["to"] = json!("")),
        ),
        (
            "LICENSE",
            Box::new(|m| {
                m["spec"]["platforms"][0]["files"]
                    .as_array_mut()
                    .unwrap()
                    .pop();
            }),
        ),
        (
            "not supported",
            Box::new(|m| {
                m["spec"]["platforms"][0]["selector"]["matchLabels"]["distro"] = json!("debian")
            }),
        ),
        (
            "overlap",
            Box::new(|m| {
                m["spec"]["platforms"][1]["selector"] = json!({"matchLabels": {"os": "linux"}});
            }),
        ),
        (
            "no platform for darwin/arm64",
            Box::new(|m| {
                m["spec"]["platforms"].as_array_mut().unwrap().retain(|p| {
                    p["selector"]["matchLabels"] != json!({"os": "darwin", "arch": "arm64"})
                });
            }),
        ),
        (
            "bin",
            Box::new(|m| {
                let windows = m["spec"]["platforms"]
                    .as_array_mut()
                    .unwrap()
                    .iter_mut()
                    .find(|p| p["selector"]["matchLabels"]["os"] == "windows")
                    .unwrap();
                windows["bin"] = json!("kubectl-mesh_lifecycle");
            }),
        ),
        (
            "not a field",
            Box::new(|m| m["spec"]["platforms"][0]["sha"] = json!("x")),
        ),
    ];
    for (expected, change) in cases {
        let mut broken = manifest();
        change(&mut broken);
        let errors = krew_errors(&broken, "mesh-lifecycle");
        assert!(
            errors.iter().any(|e| e.contains(expected)),
            "expected an error about {expected:?}, got {errors:#?}"
        );
    }
    assert!(!krew_errors(&manifest(), "NUL").is_empty());
}

fn tool(name: &str) -> bool {
    Command::new(name).arg("--version").output().is_ok()
}

/// package.sh over stand-in binaries: the archive holds them, LICENSE and the rest at
/// its root; the manifest it writes has this platform's sha256 and still passes.
#[test]
fn package_sh_builds_the_archive_and_fills_in_its_sha256() {
    // Every Unix has them; package.sh cannot run without them.
    for name in ["bash", "tar", "gzip"] {
        assert!(tool(name), "{name} is not on PATH");
    }
    let binaries = tempfile::tempdir().unwrap();
    for (name, exe) in [
        ("kubectl-mesh_lifecycle", ""),
        ("kubectl_complete-mesh_lifecycle", ""),
        ("kubectl-mesh_lifecycle", ".exe"),
        ("kubectl_complete-mesh_lifecycle", ".exe"),
    ] {
        std::fs::write(
            binaries.path().join(format!("{name}{exe}")),
            format!("stand-in for {name}\n"),
        )
        .unwrap();
    }
    let out = tempfile::tempdir().unwrap();
    let version = format!("v{}", env!("CARGO_PKG_VERSION"));
    let package = |target: &str| {
        let output = Command::new("bash")
            .arg(root().join("packaging/package.sh"))
            .args(["--target", target, "--binaries"])
            .arg(binaries.path())
            .arg("--out-dir")
            .arg(out.path())
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    package("x86_64-unknown-linux-gnu");
    package("x86_64-pc-windows-msvc");

    let archive = out.path().join(format!(
        "kubectl-mesh_lifecycle-{version}-linux-amd64.tar.gz"
    ));
    let listing = Command::new("tar")
        .arg("-tvzf")
        .arg(&archive)
        .output()
        .unwrap();
    let listing = String::from_utf8(listing.stdout).unwrap();
    let entry = |name: &str| {
        listing
            .lines()
            .find(|line| line.split_whitespace().last() == Some(name))
            .unwrap_or_else(|| panic!("{name} not in the archive:\n{listing}"))
            .to_owned()
    };
    assert!(entry("kubectl-mesh_lifecycle").starts_with("-rwxr-xr-x"));
    assert!(entry("kubectl_complete-mesh_lifecycle").starts_with("-rwxr-xr-x"));
    entry("LICENSE");
    entry("README.md");
    entry("completions/kubectl-mesh_lifecycle.bash");
    entry("man/kubectl-mesh_lifecycle.1");
    let windows = out.path().join(format!(
        "kubectl-mesh_lifecycle-{version}-windows-amd64.tar.gz"
    ));
    let listing = Command::new("tar")
        .arg("-tzf")
        .arg(&windows)
        .output()
        .unwrap();
    assert!(
        String::from_utf8(listing.stdout)
            .unwrap()
            .lines()
            .any(|l| l == "kubectl-mesh_lifecycle.exe")
    );

    let sha_file = |archive: &Path| {
        let text = std::fs::read_to_string(format!("{}.sha256", archive.display())).unwrap();
        let (sha, name) = text.trim().split_once("  ").unwrap();
        assert_eq!(name, archive.file_name().unwrap().to_str().unwrap());
        sha.to_owned()
    };
    if tool("sha256sum") {
        let check = Command::new("sha256sum")
            .current_dir(out.path())
            .arg("-c")
            .arg(format!(
                "{}.sha256",
                archive.file_name().unwrap().to_str().unwrap()
            ))
            .output()
            .unwrap();
        assert!(check.status.success(), "{check:?}");
    }

    let written = load(&out.path().join("mesh-lifecycle.yaml"));
    assert!(
        krew_errors(&written, "mesh-lifecycle").is_empty(),
        "{:#?}",
        krew_errors(&written, "mesh-lifecycle")
    );
    let committed = manifest();
    for (index, platform) in written["spec"]["platforms"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let labels = &platform["selector"]["matchLabels"];
        let expected = match (
            labels["os"].as_str().unwrap(),
            labels["arch"].as_str().unwrap(),
        ) {
            ("linux", "amd64") => sha_file(&archive),
            ("windows", "amd64") => sha_file(&windows),
            _ => committed["spec"]["platforms"][index]["sha256"]
                .as_str()
                .unwrap()
                .to_owned(),
        };
        assert_eq!(platform["sha256"], expected.as_str(), "{labels}");
        let mut without_sha = platform.clone();
        without_sha["sha256"] = Value::Null;
        let mut committed_without = committed["spec"]["platforms"][index].clone();
        committed_without["sha256"] = Value::Null;
        assert_eq!(without_sha, committed_without, "only the sha256 changes");
    }

    // A target krew has no platform for is refused.
    let refused = Command::new("bash")
        .arg(root().join("packaging/package.sh"))
        .args(["--target", "riscv64gc-unknown-linux-gnu", "--binaries"])
        .arg(binaries.path())
        .arg("--out-dir")
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
}

/// The hooks run the linter's binary on the files pre-commit passes.
#[test]
fn pre_commit_hooks_run_lint_on_manifests() {
    let hooks = load(&root().join(".pre-commit-hooks.yaml"));
    let hooks = hooks.as_array().expect("a list of hooks");
    let ids: Vec<&str> = hooks.iter().filter_map(|h| h["id"].as_str()).collect();
    assert_eq!(ids, ["mesh-lifecycle", "mesh-lifecycle-system"]);
    let cargo = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    for hook in hooks {
        for field in ["id", "name", "description", "entry", "language"] {
            assert!(
                hook[field].as_str().is_some_and(|v| !v.is_empty()),
                "{field}: {hook}"
            );
        }
        assert!(["rust", "system"].contains(&hook["language"].as_str().unwrap()));
        let entry: Vec<&str> = hook["entry"].as_str().unwrap().split_whitespace().collect();
        assert_eq!(entry, ["kubectl-mesh_lifecycle", "lint"]);
        assert!(
            cargo.contains(&format!("name = \"{}\"", entry[0])),
            "a [[bin]] of the crate"
        );
        assert_eq!(hook["files"], r"\.(ya?ml|json)$");
        assert!(hook.get("pass_filenames").is_none_or(|p| p == true));
    }
    // What pre-commit runs: the entry with the staged files, here a mix.
    let output = common::cli()
        .current_dir(root())
        .args([
            "lint",
            "testdata/mixed/deploy.yaml",
            "testdata/mixed/renovate.json",
            "testdata/mixed/chart/values.yaml",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stderr.is_empty());
}

/// What the manifest says is true: each file of the repository it names exists, and
/// its description, which says the plugin lints without a cluster, also says what
/// `--cluster` does, since that flag does contact one.
#[test]
fn the_manifest_says_what_is_so() {
    let text = std::fs::read_to_string(root().join("krew-manifest.yaml")).unwrap();
    let cited: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == '`')
        .filter(|word| word.ends_with(".rs") || word.ends_with(".sh"))
        .collect();
    assert!(!cited.is_empty());
    for path in cited {
        assert!(
            root().join(path).is_file(),
            "krew-manifest.yaml cites {path}"
        );
    }
    let description = manifest()["spec"]["description"]
        .as_str()
        .unwrap()
        .replace('\n', " ");
    assert!(
        !description.contains("never contacts a cluster"),
        "{description}"
    );
    assert!(description.contains("--cluster"), "{description}");
}
