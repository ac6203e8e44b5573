//! The bad-input catalogue: the inputs a CI gate meets in the wild — Helm output with
//! empty documents, custom resources, CRLF, tabs, huge generated files, hostile anchors,
//! files that cannot be read — and what the linter answers to each.
//!
//! Every case gets one clear diagnostic with its location (or none at all, when the input
//! is fine to skip), never a panic or a hang, and the exit status of the output contract
//! (docs/usage.md, Exit status): 0 nothing at or above `--fail-on`, 1 findings, 2 an input that could not
//! be read or parsed. Each case is run three ways:
//!
//! * alone, `lint --format json`: the exit status, the one entry of `errors` (message,
//!   line, column) and the case's own findings;
//! * beside a good file, `lint` (human): one `×` diagnostic on stderr headed
//!   `file:line:column: message`, notes only where the table has one, and the good
//!   file's finding still reported;
//! * alone, `explain` in each format: exit 2 exactly when there is an error, and valid
//!   JSON from `--format json`.
//!
//! Small cases are files in `testdata/bad/`; large, binary and special-file cases are
//! made in a temporary directory at test time. The performance of the hostile cases is
//! measured with a release build (docs/reliability.md), not timed here; the timeout below
//! only turns a hang into a failure.

use crate::common;
use crate::common::tools;

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use common::{cli, testdata};

/// Beside every case; its finding must survive whatever the case does.
const GOOD: &str = "rules/ml206-fire-sleep-45.yaml";
const GOOD_FINDING: &str = "ml206-fire-sleep-45.yaml:19:";

/// A pod whose preStop outlives its grace period: ML206 at 10:17 of its first line.
const POD: &str = "apiVersion: v1
kind: Pod
metadata:
  name: pod
spec:
  terminationGracePeriodSeconds: 5
  containers:
  - name: app
    image: example/app:1.0
    lifecycle: {preStop: {exec: {command: [sleep, '9']}}}
";

/// Where a case's input comes from.
enum Input {
    /// A file in `testdata/bad/`.
    File(&'static str),
    /// Made in a temporary directory when the test runs; `Err` skips the case on a
    /// machine that cannot make it (reported through `tools::unavailable`).
    Made(fn(&Path) -> Result<Prepared, String>),
    /// A path argument as typed.
    Arg(&'static str),
    /// Standard input with these bytes.
    Stdin(&'static [u8]),
}

/// A command line ready to run.
#[derive(Default)]
struct Prepared {
    args: Vec<OsString>,
    /// A command that runs the linter (privileges dropped, say).
    wrapper: Vec<OsString>,
    stdin: Option<StdinSource>,
}

enum StdinSource {
    Bytes(&'static [u8]),
    /// Standard input opened on a directory: reading it fails.
    Directory(PathBuf),
}

/// One row of the catalogue.
struct Case {
    name: &'static str,
    input: Input,
    /// The one input error: what its message says, and where (`None`: the whole input).
    error: Option<(&'static str, Option<(u32, u32)>)>,
    /// A note on stderr: something left out on purpose that is not an error.
    note: Option<&'static str>,
    /// The case's own findings, `(rule, line, column)`.
    findings: &'static [(&'static str, u32, u32)],
    /// Exit status of `lint` on the case alone.
    exit: i32,
}

const fn case(name: &'static str, input: Input) -> Case {
    Case {
        name,
        input,
        error: None,
        note: None,
        findings: &[],
        exit: 0,
    }
}

impl Case {
    /// An input error at `line:column`, exit 2.
    const fn error(mut self, message: &'static str, line: u32, column: u32) -> Case {
        self.error = Some((message, Some((line, column))));
        self.exit = 2;
        self
    }

    /// An error about the input as a whole (it cannot be opened or read), exit 2.
    const fn whole(mut self, message: &'static str) -> Case {
        self.error = Some((message, None));
        self.exit = 2;
        self
    }

    const fn note(mut self, message: &'static str) -> Case {
        self.note = Some(message);
        self
    }

    /// Findings; exit 1 unless an error already makes it 2.
    const fn findings(mut self, findings: &'static [(&'static str, u32, u32)]) -> Case {
        self.findings = findings;
        if self.exit == 0 {
            self.exit = 1;
        }
        self
    }

    /// Findings below `--fail-on error` only (warnings): exit stays 0.
    const fn warnings(mut self, findings: &'static [(&'static str, u32, u32)]) -> Case {
        self.findings = findings;
        self
    }
}

/// The catalogue. Each comment says why the expectation is the right answer.
fn catalogue() -> Vec<Case> {
    use Input::{Arg, File, Made, Stdin};
    vec![
        // --- Invalid YAML: the parser's message at the character to fix. ---
        // The list never closes; the error is put on the last character of content
        // rather than past the end of the file, where nothing could be shown.
        case("unclosed flow sequence", File("unclosed-flow.yaml"))
            .error("invalid YAML: while parsing a flow sequence", 9, 27),
        // The quote that never closes is where the user has to look.
        case("unclosed quote", File("unclosed-quote.yaml"))
            .error("invalid YAML: while scanning a quoted scalar", 9, 27),
        // `ports:` is indented one column less than its siblings.
        case("bad indentation", File("bad-indentation.yaml"))
            .error("did not find expected key", 11, 8),
        // `image: registry:5000/app: latest`: the second `: ` starts a mapping inside a
        // plain scalar; it needs quotes.
        case("colon in a plain scalar", File("colon-in-plain-scalar.yaml"))
            .error("mapping values are not allowed in this context", 8, 29),
        // `*common-env` names an anchor the document never defines.
        case("unknown alias", File("unknown-alias.yaml")).error("found unknown anchor", 9, 10),
        // A tab indents `image:`; the diagnostic points at the tab itself (line 8,
        // column 1), not at the scalar before it where the scanner noticed.
        case("tab indentation", File("tab-indentation.yaml"))
            .error("while scanning a plain scalar, found a tab", 8, 1),
        // YAML forbids duplicate keys and kustomize (kyaml, go-yaml v3) refuses them, while
        // kubectl apply -f keeps the later one silently (go-yaml v2's non-strict
        // Unmarshal): a deliberate difference (docs/architecture.md). The later key is the error, the
        // first is shown as related.
        case("duplicate key", File("duplicate-key.yaml")).error(
            "duplicate key `name`: a key must be unique in its mapping (kustomize refuses the file) while kubectl apply -f silently keeps the later value",
            9,
            5,
        ),
        // `? [app, tier]`: JSON, and so Kubernetes, has only string keys.
        case("collection as a key", File("collection-key.yaml"))
            .error("a mapping key must be a scalar", 6, 7),
        // `<<: web` merges a scalar, which YAML 1.1 does not allow and kubectl refuses
        // with go-yaml's reason (`decoder.merge`); the error is at the value merged.
        case("merge key with a scalar", File("merge-scalar.yaml")).error(
            "a merge key (`<<`) needs a mapping or a list of mappings: kubectl refuses the document (map merge requires map or sequence of maps as the value)",
            6,
            9,
        ),
        // `!!int thirty`: an explicit core tag on text that is not an integer.
        case("core tag on the wrong text", File("bad-core-tag.yaml"))
            .error("`thirty` is not a valid !!int", 6, 34),
        // --- What kubectl refuses, with its reason (sigs.k8s.io/yaml v1.4.0 `yaml.go`,
        // k8s.io/apimachinery v0.32–v0.35 `pkg/util/yaml/decoder.go`); tests/it/kubectl_reading.rs
        // checks each against the real kubectl. ---
        // Go's JSON encoder has no infinity: `json: unsupported value: +Inf`.
        case("infinity in a number field", File("infinity.yaml")).error(
            "`.inf` is not a number JSON can hold: kubectl refuses the document (error converting YAML to JSON: json: unsupported value: +Inf)",
            6,
            34,
        ),
        // `~` as a key: convertToJSONableObject has no string for it.
        case("null mapping key", File("null-key.yaml"))
            .error("kubectl refuses the document (unsupported map key of type: <nil>)", 5, 12),
        // kubectl's YAMLReader allows only a comment after `---`.
        case("document separator followed by content", File("separator-with-content.yaml"))
            .error("(invalid Yaml document separator: {apiVersion: v1", 9, 1),
        // The directive ends up in a piece of its own, which go-yaml refuses.
        case("YAML directive", File("directive.yaml"))
            .error("kubectl cannot read a YAML directive", 1, 1),
        // A piece of the stream that begins with `...` (kubectl cut at the `---` before
        // it): go-yaml finds no node. The pods before and after are linted.
        case("document end with no document", File("document-end-alone.yaml")).error(
            "kubectl refuses a `...` line with no document before it (yaml: did not find expected node content)",
            11,
            1,
        ),
        // libyaml scans `!!str}` as one tag, then wants white space.
        case("tag right before a bracket", File("tag-before-bracket.yaml"))
            .error("`}` right after a tag: kubectl's YAML reader takes it into the tag", 5, 17),
        // go-yaml reads the first document of each piece between `---` lines and ignores
        // the rest: the pod after `...` would never be created. The piece is refused
        // whole, at the document kubectl ignores.
        case("document after a document end", File("document-after-end.yaml"))
            .error("kubectl ignores this document", 12, 1),
        // --- JSON streams, read as kubectl reads them. ---
        // Two objects on one line are two objects (Go's json.Decoder); the second's
        // finding is at its column on the line.
        case("two JSON objects on one line", File("json-stream.json"))
            .findings(&[("ML206", 1, 186), ("ML206", 1, 425)]),
        // After two objects kubectl no longer tries YAML: the error ends the stream, the
        // two objects are linted.
        case("JSON stream broken after two objects", File("json-broken-after-two.json"))
            .error("invalid JSON: invalid character 'P' looking for beginning of value", 3, 30)
            .findings(&[("ML206", 1, 186), ("ML206", 2, 187)]),
        // Raw control characters: go-yaml refuses them anywhere in the text, before
        // parsing ("yaml: control characters are not allowed"), so kubectl refuses the
        // file; written raw to a terminal, they would act on it.
        case(
            "a raw escape character in a plain scalar",
            Stdin(b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\x1b]0;owned\x07\nspec:\n  containers: [{name: a, image: b}]\n"),
        )
        .error("control characters are not allowed: U+001B, which kubectl refuses in YAML", 4, 12),
        case(
            "a raw escape character in a comment",
            Stdin(b"apiVersion: v1\nkind: Pod\n# \x1b[2J\nmetadata: {name: web}\nspec:\n  containers: [{name: a, image: b}]\n"),
        )
        .error("control characters are not allowed: U+001B", 3, 3),
        case(
            "a raw C1 control in a quoted scalar",
            Stdin("apiVersion: v1\nkind: Pod\nmetadata: {name: \"web\u{9b}2J\"}\nspec:\n  containers: [{name: a, image: b}]\n".as_bytes()),
        )
        .error("control characters are not allowed: U+009B", 3, 22),
        // Written as an escape, the character is the object's, as kubectl reads it: no
        // error (reports show it escaped).
        case(
            "an escape character written as an escape",
            Stdin(b"apiVersion: v1\nkind: Pod\nmetadata: {name: \"web\\e[2J\"}\nspec:\n  containers: [{name: a, image: b}]\n"),
        ),
        // In a JSON string a raw control character is Go's JSON error.
        case(
            "a raw escape character in a JSON string",
            Stdin(b"{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"web\x1b\"}}\n"),
        )
        .error("invalid JSON: invalid character '\\x1b' in string literal", 1, 62),
        // Neither JSON nor YAML: kubectl reports the JSON error, and so does the linter.
        case("JSON that is no YAML either", File("json-not-yaml-either.json"))
            .error("invalid JSON: invalid character '\\n' in string literal", 1, 65),
        // A JSON object the file ends inside of (a download cut short): kubectl goes on
        // as YAML, which fails too, and prints Go's json.Decoder error, at the last
        // character. Not a silent pass with nothing read.
        case("JSON cut short", File("json-cut-short.json")).error(
            "invalid JSON: unexpected EOF (kubectl reads a stream that starts with `{` as JSON",
            7,
            63,
        ),
        // A line over 4 MiB in a JSON stream: the object before it is linted; where the
        // objects on the line end is not known without reading all of it, so the pod
        // after it is not read, and the diagnostic says so.
        case("JSON line longer than the limit", Made(json_over_long_line)).error(
            "line longer than 4 MiB in a JSON stream; not read from this line on",
            2,
            1,
        )
        .findings(&[("ML206", 1, 186)]),
        // --- Wrong types: the API server's strictness, at the offending node. ---
        // "30" is a string; the API server rejects it for an int64 field.
        case("string grace period", File("string-grace-period.yaml")).error(
            "invalid pod spec at `spec.terminationGracePeriodSeconds`: invalid type: string \"30\", expected i64",
            6,
            34,
        ),
        // `containers` holds a map where a list belongs: a type error, not a partial
        // object (those are absent or empty lists).
        case("map where a list belongs", File("containers-as-map.yaml")).error(
            "invalid pod spec at `spec.template.spec.containers`: invalid type: map, expected a sequence",
            9,
            9,
        ),
        // `metadata` holds a list where a map belongs.
        case("list where a map belongs", File("metadata-as-list.yaml"))
            .error("invalid Job metadata at `metadata`: invalid type: sequence", 4, 3),
        // `ports: 8080` where a list of ports belongs.
        case("scalar where a list belongs", File("ports-as-scalar.yaml")).error(
            "invalid pod spec at `spec.containers[0].ports`: invalid type: integer `8080`, expected a sequence",
            9,
            12,
        ),
        // 2^64 does not fit int64; go-yaml reads it as a float, which the API server
        // rejects for an integer field. The message names the integer as written.
        case("integer beyond 64 bits", File("integer-beyond-64-bits.yaml")).error(
            "integer `18446744073709551616` does not fit in 64 bits, expected i64",
            6,
            34,
        ),
        // A type error in the second item of a `kind: List` names the full path.
        case("type error inside a List", File("list-item-type-error.yaml")).error(
            "invalid pod spec at `items[1].spec.template.spec.containers[0].lifecycle.preStop.sleep.seconds`: invalid type: string \"5\"",
            21,
            26,
        ),
        // --- Not workloads: skipped without a word, as docs/reliability.md says. ---
        // An unknown kind is somebody else's object, whatever its spec holds.
        case("unknown kind", File("unknown-kind.yaml")),
        // A custom resource reusing a built-in name (`batch.volcano.sh` Job) has its own
        // schema: not linted, not an error.
        case("custom resource named like a workload", File("custom-resource.yaml")),
        // A CRD defines a kind; it runs no pods.
        case("custom resource definition", File("crd.yaml")),
        // A YAML file that is not an object at all (a list of hosts in a manifests
        // directory) is not a Kubernetes object: skipped.
        case("document that is not an object", File("not-an-object.yaml")),
        // Helm renders disabled templates as comments and empty documents.
        case("comment-only file", File("comment-only.yaml")),
        case("empty file", File("empty-file.yaml")),
        // Empty documents and a trailing `---` around one workload: the workload is
        // linted (no findings), the empty documents are nothing.
        case("empty documents", File("empty-documents.yaml")),
        // --- Partial and questionable objects: linted or noted, not errors. ---
        // An injection label with a value the injector does not read ("enabled" belongs
        // on the namespace) leaves the pod without a sidecar: a warning at the value, and
        // a warning alone keeps the exit status 0.
        case("injection label value the injector ignores", File("inject-label-value-typo.yaml"))
            .warnings(&[("ML404", 10, 34)]),
        // A kustomize patch carries only the fields it changes: not lintable, not wrong.
        // A note on stderr says why it was left out; it does not fail the run.
        case("workload with no containers", File("no-containers.yaml")).note(
            "Deployment no-containers has no containers at `spec.template.spec.containers`; not linted",
        ),
        // A negative grace period is read (the kubelet floors it at 1 s) and reported as
        // a configuration problem (ML401) at the value; the app's assumed 5 s shutdown is
        // then cut by the SIGKILL at 2 s, a verdict on that assumption (ML201).
        case("negative grace period", File("negative-grace-period.yaml"))
            .findings(&[("ML201", 8, 11), ("ML401", 6, 34)]),
        // A proxy.istio.io/config that is not YAML: the injector denies the pod, so only
        // that is reported (ML401 at the annotation's value), not the sidecar it would get.
        case("malformed proxy.istio.io/config", File("malformed-proxy-config.yaml"))
            .findings(&[("ML401", 11, 32)]),
        // int64-maximum grace and preStop sleep: time saturates instead of overflowing,
        // and the hook still lasts the whole grace period (ML206); the inject label
        // without a hold still warns (ML101), and the proxy, gone after its 5 s drain,
        // leaves the app without a network for the rest (ML202).
        case("absurd grace period", File("absurd-grace-period.yaml"))
            .findings(&[("ML101", 9, 9), ("ML202", 9, 9), ("ML206", 16, 11)]),
        // The longest drain Go can hold (2562047h47m16s) cannot end within 30 s (ML201
        // at the drain); a 292-year proxy start-up is accepted as given, a negative
        // app-shutdown is not a duration (ML401), and a startup probe's int32-maximum
        // period times its int32-maximum threshold saturates instead of overflowing.
        case("absurd durations", File("absurd-durations.yaml"))
            .findings(&[("ML201", 13, 37), ("ML401", 14, 41)]),
        // A drain longer than Go can hold is not a long drain but a value the injector
        // cannot parse: it denies the pod (ML401 at the value inside the annotation),
        // and nothing else is simulated.
        case("duration beyond Go's range", File("duration-beyond-go.yaml"))
            .findings(&[("ML401", 14, 37)]),
        // --- Encodings and line ends. ---
        // A UTF-8 byte order mark is dropped: columns on line 1 count from the first
        // character after it (this one-line manifest's finding is at column 166).
        case("UTF-8 byte order mark", File("byte-order-mark.yaml")).findings(&[("ML206", 1, 166)]),
        // CRLF line ends: positions are the same as with LF; the first document's
        // finding and the second document's duplicate key are both reported.
        case("CRLF line ends", File("crlf.yaml"))
            .error("duplicate key `name`", 16, 3)
            .findings(&[("ML206", 10, 17)]),
        // Latin-1 `é` (0xE9) is not UTF-8: located at the byte, counted in characters.
        case("not UTF-8", File("latin-1.yaml"))
            .error("not valid UTF-8; Kubernetes manifests must be UTF-8 text", 6, 16),
        // Windows PowerShell's `>` writes UTF-16 with a byte order mark: named as such,
        // with the command that converts it, instead of "binary".
        case("UTF-16 with a byte order mark", File("utf-16.yaml"))
            .whole("encoded in UTF-16LE, not UTF-8"),
        // NUL bytes: a binary file. Reading stops at the first NUL's line.
        case("binary file", Made(binary)).error("contains NUL bytes: a binary file", 3, 1),
        // --- Hostile and huge input: refused in bounded time and memory. ---
        // Billion laughs: 9 levels of 9 aliases. Expansion stops at 100 000 nodes, at
        // the alias that crosses the budget.
        case("alias bomb", File("alias-bomb.yaml"))
            .error("alias expansion exceeds 100000 nodes (an alias bomb?)", 12, 12),
        // 10 000 nested block sequences: refused at depth 101 without recursion.
        case("10 000-level block nesting", Made(deep_block))
            .error("nesting deeper than 100 levels", 1, 201),
        // 10 000 nested flow mappings: a stream that starts with `{` is JSON to kubectl,
        // and this is not JSON; as YAML, the parser's own recursion guard stops first.
        // Both reasons are given, at the JSON error's position, as kubectl reports it.
        case("10 000-level flow nesting", Made(deep_flow)).error(
            "invalid JSON: invalid character 'a' looking for beginning of object key string (kubectl reads a stream that starts with `{` as JSON; as YAML it fails too: invalid YAML: nested too deeply (recursion limit exceeded)",
            1,
            2,
        ),
        // A 100 MB document between two pods: skipped unparsed at its first line (the
        // API server takes 3 MiB per object); both pods are still linted.
        case("100 MB document", Made(huge_document))
            .error("document larger than 16 MiB; skipped without parsing", 11, 1)
            .findings(&[("ML206", 10, 17), ("ML206", HUGE_LAST_FINDING, 17)]),
        // A syntax error at column 70 120 of a one-line JSON file. The diagnostic quotes
        // no excerpt (a label past column 65 535 made the renderer panic).
        case("error past column 65 535", Made(long_line_error))
            .error("invalid YAML: while parsing a node", 1, 70_120),
        // A finding at column 70 214: reported, with its location in the headline.
        case("finding past column 65 535", Made(long_line_finding))
            .findings(&[("ML206", 1, 70_214)]),
        // A document with a syntax error between two good ones: only it is lost.
        case("bad document among good ones", File("bad-document-among-good.yaml"))
            .error("while parsing a flow mapping", 16, 19)
            .findings(&[("ML206", 10, 17), ("ML206", 27, 17)]),
        // An endless line of NUL bytes: the first NUL ends the read, at once.
        case("/dev/zero", Arg("/dev/zero")).error("contains NUL bytes: a binary file", 1, 1),
        // A line longer than 4 MiB: its document is skipped unparsed, naming the flag.
        case("line longer than the limit", Made(over_long_line))
            .error("line longer than 4 MiB; its document is skipped", 2, 1),
        // A chart template given as a manifest (the pre-commit hook used to match
        // `templates/`): one diagnostic at the first directive, not the parser's
        // "a mapping key must be a scalar".
        case("Helm chart template", File("helm-template.yaml"))
            .error("a Helm template, not a manifest", 4, 9),
        // An IstioOperator among the inputs with a value `--mesh-config` refuses: the
        // same error, at the value.
        case("invalid mesh config among the inputs", File("mesh-config-invalid.yaml"))
            .error("`soon` is not a duration", 8, 33),
        // --- Paths and files that cannot be read. ---
        // A symbolic link back to its own directory: reported once, not followed; the
        // directory's manifest is still linted.
        case("symbolic link loop in a directory", Made(symlink_loop_in_directory))
            .whole("symbolic link loop back to")
            .findings(&[("ML206", 10, 17)]),
        // Two links pointing at each other, named on the command line.
        case("symbolic link loop named directly", Made(symlink_loop_named))
            .whole("too many levels of symbolic links"),
        // A link whose target is gone says so, rather than "no such file" for a file the
        // user can see in `ls`.
        case("broken symbolic link", Made(broken_symlink))
            .whole("broken symbolic link to missing.yaml")
            .findings(&[("ML206", 10, 17)]),
        // A file the user may not read (mode 000; as root, the linter runs as nobody).
        case("unreadable file", Made(unreadable_file)).whole("permission denied"),
        // A file that opens but whose read fails (EIO from /proc/self/mem): works as
        // root too.
        case("read error", Made(read_error)).whole("cannot read: input/output error"),
        // A FIFO named like a manifest inside a directory is not a regular file: skipped,
        // so the walk cannot block on it; the directory's manifest is linted.
        case("FIFO in a directory", Made(fifo_in_directory)).findings(&[("ML206", 10, 17)]),
        // A directory with nothing to lint is a mistake in the CI job (wrong path), not
        // a clean result.
        case("directory with no manifests", Made(directory_without_manifests))
            .whole("directory contains no .yaml, .yml or .json files"),
        case("path that does not exist", Arg("does/not/exist.yaml"))
            .whole("no such file or directory"),
        // `helm template … | lint -` after helm failed: nothing came, so nothing was
        // checked; that must not pass the gate.
        case("empty standard input", Stdin(b"")).whole("standard input is empty; nothing to lint"),
        // Standard input redirected from a directory: read fails, reported for `-`.
        case("standard input is a directory", Made(stdin_directory)).whole("is a directory"),
    ]
}

/// The data lines of the 100 MB document, 96 bytes each.
const HUGE_LINES: u32 = 1_100_000;
/// Line of the finding in the pod after the 100 MB document (see [`huge_document`]).
const HUGE_LAST_FINDING: u32 = 10 + 1 + 6 + HUGE_LINES + 1 + 10;

fn write(path: &Path, bytes: impl AsRef<[u8]>) -> PathBuf {
    fs::write(path, bytes).unwrap();
    path.to_path_buf()
}

fn args(paths: &[&Path]) -> Prepared {
    Prepared {
        args: paths.iter().map(|p| p.as_os_str().to_owned()).collect(),
        ..Prepared::default()
    }
}

fn binary(dir: &Path) -> Result<Prepared, String> {
    // A PNG header: the first NUL is on the third line.
    let path = write(
        &dir.join("logo.yaml"),
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00",
    );
    Ok(args(&[&path]))
}

fn over_long_line(dir: &Path) -> Result<Prepared, String> {
    let text = format!("kind: ConfigMap\ndata: {{blob: {}}}\n", "x".repeat(5 << 20));
    Ok(args(&[&write(&dir.join("wide.yaml"), text)]))
}

fn json_over_long_line(dir: &Path) -> Result<Prepared, String> {
    let pod = fs::read_to_string(testdata("bad/json-stream.json")).unwrap();
    let first = &pod[..pod.find("}{").unwrap() + 1];
    let text = format!(
        "{first}\n{{\"kind\": \"ConfigMap\", \"data\": {{\"blob\": \"{}\"}}}}\n{first}\n",
        "x".repeat(5 << 20)
    );
    Ok(args(&[&write(&dir.join("wide.json"), text)]))
}

fn deep_block(dir: &Path) -> Result<Prepared, String> {
    let path = write(&dir.join("deep.yaml"), "- ".repeat(10_000) + "x\n");
    Ok(args(&[&path]))
}

fn deep_flow(dir: &Path) -> Result<Prepared, String> {
    let text = "{a: ".repeat(10_000) + "1" + &"}".repeat(10_000) + "\n";
    Ok(args(&[&write(&dir.join("deep.yaml"), text)]))
}

fn huge_document(dir: &Path) -> Result<Prepared, String> {
    use std::io::Write;
    let path = dir.join("huge.yaml");
    let mut out = std::io::BufWriter::new(fs::File::create(&path).unwrap());
    out.write_all(POD.as_bytes()).unwrap();
    out.write_all(
        b"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: huge\ndata:\n  blob: |\n",
    )
    .unwrap();
    let line = format!("    {}\n", "x".repeat(91));
    for _ in 0..HUGE_LINES {
        out.write_all(line.as_bytes()).unwrap();
    }
    out.write_all(b"---\n").unwrap();
    out.write_all(POD.as_bytes()).unwrap();
    out.flush().unwrap();
    assert!(fs::metadata(&path).unwrap().len() > 100 << 20);
    Ok(args(&[&path]))
}

/// A one-line JSON pod with a 70 000-character annotation before the interesting part.
fn wide_pod(spec: &str) -> String {
    format!(
        r#"{{"apiVersion": "v1", "kind": "Pod", "metadata": {{"name": "wide", "annotations": {{"blob": "{}"}}}}, "spec": {spec}}}"#,
        "x".repeat(70_000)
    ) + "\n"
}

fn long_line_error(dir: &Path) -> Result<Prepared, String> {
    let text = wide_pod(r#"{"containers": [}"#);
    Ok(args(&[&write(&dir.join("wide.json"), text)]))
}

fn long_line_finding(dir: &Path) -> Result<Prepared, String> {
    let text = wide_pod(
        r#"{"terminationGracePeriodSeconds": 5, "containers": [{"name": "app", "image": "example/app:1.0", "lifecycle": {"preStop": {"exec": {"command": ["sleep", "9"]}}}}]}"#,
    );
    Ok(args(&[&write(&dir.join("wide.json"), text)]))
}

fn symlink_loop_in_directory(dir: &Path) -> Result<Prepared, String> {
    let manifests = dir.join("manifests");
    fs::create_dir(&manifests).unwrap();
    write(&manifests.join("pod.yaml"), POD);
    std::os::unix::fs::symlink(".", manifests.join("again")).unwrap();
    Ok(args(&[&manifests]))
}

fn symlink_loop_named(dir: &Path) -> Result<Prepared, String> {
    std::os::unix::fs::symlink("b.yaml", dir.join("a.yaml")).unwrap();
    std::os::unix::fs::symlink("a.yaml", dir.join("b.yaml")).unwrap();
    Ok(args(&[&dir.join("a.yaml")]))
}

fn broken_symlink(dir: &Path) -> Result<Prepared, String> {
    let manifests = dir.join("manifests");
    fs::create_dir(&manifests).unwrap();
    write(&manifests.join("pod.yaml"), POD);
    std::os::unix::fs::symlink("missing.yaml", manifests.join("gone.yaml")).unwrap();
    Ok(args(&[&manifests]))
}

fn unreadable_file(dir: &Path) -> Result<Prepared, String> {
    use std::os::unix::fs::PermissionsExt;
    // The temporary directory is private to its owner; nobody must reach the file.
    fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).unwrap();
    let path = write(&dir.join("secret.yaml"), POD);
    fs::set_permissions(&path, fs::Permissions::from_mode(0o000)).unwrap();
    let mut prepared = args(&[&path]);
    if is_root() {
        // Root reads any file (CAP_DAC_OVERRIDE); run the linter as nobody instead.
        let setpriv = tools::find("setpriv").ok_or("root, and no setpriv to drop privileges")?;
        prepared.wrapper = [
            setpriv.as_os_str(),
            "--reuid=65534".as_ref(),
            "--regid=65534".as_ref(),
            "--clear-groups".as_ref(),
            "--".as_ref(),
        ]
        .into_iter()
        .map(OsString::from)
        .collect();
    }
    Ok(prepared)
}

fn read_error(_: &Path) -> Result<Prepared, String> {
    // Reading /proc/self/mem at offset 0 fails with EIO: nothing is mapped there.
    let path = Path::new("/proc/self/mem");
    if !path.exists() {
        return Err("no /proc/self/mem on this system".into());
    }
    Ok(args(&[path]))
}

fn fifo_in_directory(dir: &Path) -> Result<Prepared, String> {
    let manifests = dir.join("manifests");
    fs::create_dir(&manifests).unwrap();
    write(&manifests.join("pod.yaml"), POD);
    let mkfifo = tools::find("mkfifo").ok_or("no mkfifo")?;
    let status = std::process::Command::new(mkfifo)
        .arg(manifests.join("pipe.yaml"))
        .status()
        .map_err(|error| format!("mkfifo: {error}"))?;
    if !status.success() {
        return Err("mkfifo failed".into());
    }
    Ok(args(&[&manifests]))
}

fn directory_without_manifests(dir: &Path) -> Result<Prepared, String> {
    let empty = dir.join("charts");
    fs::create_dir(&empty).unwrap();
    write(&empty.join("NOTES.txt"), "Thank you for installing.\n");
    Ok(args(&[&empty]))
}

fn stdin_directory(dir: &Path) -> Result<Prepared, String> {
    Ok(Prepared {
        args: vec!["-".into()],
        stdin: Some(StdinSource::Directory(dir.to_path_buf())),
        ..Prepared::default()
    })
}

fn is_root() -> bool {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("Uid:"))?;
            line.split_whitespace().nth(2).map(|euid| euid == "0")
        })
        .unwrap_or(false)
}

/// What a run printed.
struct Run {
    status: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(prepared: &Prepared, command: &[&str], extra: &[OsString]) -> Run {
    let binary = assert_cmd::cargo::cargo_bin("kubectl-mesh_lifecycle");
    let mut std_command = match prepared.wrapper.split_first() {
        Some((program, wrapper_args)) => {
            let mut c = std::process::Command::new(program);
            c.args(wrapper_args).arg(&binary);
            c
        }
        None => std::process::Command::new(&binary),
    };
    std_command
        .args(command)
        .args(&prepared.args)
        .args(extra)
        .env_remove("NO_COLOR")
        .env("COLUMNS", "100");
    let output = match &prepared.stdin {
        // assert_cmd cannot redirect from a directory; no hang risk: the read fails.
        Some(StdinSource::Directory(dir)) => std_command
            .stdin(Stdio::from(fs::File::open(dir).unwrap()))
            .output()
            .unwrap(),
        stdin => {
            std_command.stdin(Stdio::null());
            let mut command = assert_cmd::Command::from_std(std_command);
            // Only a guard against hangs: a debug build reads the 100 MB case in seconds.
            command.timeout(Duration::from_secs(300));
            if let Some(StdinSource::Bytes(bytes)) = stdin {
                command.write_stdin(*bytes);
            }
            command.output().unwrap()
        }
    };
    Run {
        status: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn prepare(case: &Case, dir: &Path) -> Result<Prepared, String> {
    match &case.input {
        Input::File(name) => {
            let path = testdata("bad").join(name);
            assert!(path.is_file(), "{} is missing", path.display());
            Ok(args(&[&path]))
        }
        Input::Made(make) => make(dir),
        Input::Arg(arg) => Ok(Prepared {
            args: vec![(*arg).into()],
            ..Prepared::default()
        }),
        Input::Stdin(bytes) => Ok(Prepared {
            args: vec!["-".into()],
            stdin: Some(StdinSource::Bytes(bytes)),
            ..Prepared::default()
        }),
    }
}

/// Checks one case; returns what is wrong with it.
fn check(case: &Case, prepared: &Prepared) -> Vec<String> {
    let mut problems = Vec::new();
    let mut expect = |ok: bool, what: String| {
        if !ok {
            problems.push(what);
        }
    };

    // 1. Alone, as JSON.
    let alone = run(prepared, &["lint", "--format", "json"], &[]);
    expect(
        !alone.stderr.contains("panicked"),
        format!("panicked: {}", alone.stderr),
    );
    expect(
        alone.status == Some(case.exit),
        format!("exit {:?}, expected {}", alone.status, case.exit),
    );
    let report: serde_json::Value = match serde_json::from_str(&alone.stdout) {
        Ok(report) => report,
        Err(error) => {
            problems.push(format!("stdout is not JSON ({error}): {}", alone.stdout));
            return problems;
        }
    };
    let errors = report["errors"].as_array().cloned().unwrap_or_default();
    let error_file = errors
        .first()
        .and_then(|e| e["file"].as_str())
        .unwrap_or("")
        .to_owned();
    match case.error {
        None => expect(errors.is_empty(), format!("unexpected errors: {errors:#?}")),
        Some((message, at)) => {
            expect(
                errors.len() == 1,
                format!("expected one error: {errors:#?}"),
            );
            if let Some(error) = errors.first() {
                let text = error["message"].as_str().unwrap_or("");
                expect(
                    text.contains(message),
                    format!("error message {text:?} lacks {message:?}"),
                );
                let found = (error["line"].as_u64(), error["column"].as_u64());
                let wanted = at.map_or((None, None), |(line, column)| {
                    (Some(u64::from(line)), Some(u64::from(column)))
                });
                expect(
                    found == wanted,
                    format!("error at {found:?}, expected {wanted:?}"),
                );
            }
        }
    }
    let mut findings: Vec<(String, u64, u64)> = report["findings"]
        .as_array()
        .map(|all| {
            all.iter()
                .map(|f| {
                    (
                        f["ruleId"].as_str().unwrap_or("").to_owned(),
                        f["line"].as_u64().unwrap_or(0),
                        f["column"].as_u64().unwrap_or(0),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    findings.sort();
    let mut wanted: Vec<(String, u64, u64)> = case
        .findings
        .iter()
        .map(|(rule, line, column)| ((*rule).to_owned(), u64::from(*line), u64::from(*column)))
        .collect();
    wanted.sort();
    expect(
        findings == wanted,
        format!("findings {findings:?}, expected {wanted:?}"),
    );

    // 2. Beside a good file, as a human reads it.
    let good: OsString = testdata(GOOD).into();
    let beside = run(prepared, &["lint"], &[good]);
    expect(
        !beside.stderr.contains("panicked"),
        format!("panicked beside a good file: {}", beside.stderr),
    );
    let wanted_exit = if case.error.is_some() { 2 } else { 1 };
    expect(
        beside.status == Some(wanted_exit),
        format!(
            "exit {:?} beside a good file, expected {wanted_exit}",
            beside.status
        ),
    );
    expect(
        beside.stdout.contains(GOOD_FINDING),
        format!("the good file was not linted: {}", beside.stdout),
    );
    let headlines: Vec<&str> = beside
        .stderr
        .lines()
        .filter(|line| line.starts_with("  × "))
        .collect();
    match case.error {
        Some((_, at)) => {
            let head = match at {
                Some((line, column)) => format!("  × {error_file}:{line}:{column}:"),
                None => format!("  × {error_file}:"),
            };
            expect(
                headlines.len() == 1 && headlines[0].starts_with(&head),
                format!(
                    "stderr should have one diagnostic headed {head:?}:\n{}",
                    beside.stderr
                ),
            );
        }
        None => expect(
            headlines.is_empty(),
            format!("unexpected diagnostics:\n{}", beside.stderr),
        ),
    }
    match case.note {
        Some(note) => expect(
            beside.stderr.contains("note: ") && beside.stderr.contains(note),
            format!("stderr lacks the note {note:?}:\n{}", beside.stderr),
        ),
        None => expect(
            !beside.stderr.contains("note: "),
            format!("unexpected note:\n{}", beside.stderr),
        ),
    }
    if case.error.is_none() && case.note.is_none() {
        expect(
            beside.stderr.is_empty(),
            format!("stderr should be empty:\n{}", beside.stderr),
        );
    }

    // 3. explain copes too, in every format: exit 2 exactly when an input failed, and
    //    valid JSON. (Absurd durations once made the text and SVG axes loop forever.)
    let explain_exit = if case.error.is_some() { 2 } else { 0 };
    for format in ["json", "text", "svg"] {
        let explain = run(prepared, &["explain", "--format", format], &[]);
        expect(
            !explain.stderr.contains("panicked"),
            format!("explain --format {format} panicked: {}", explain.stderr),
        );
        expect(
            explain.status == Some(explain_exit),
            format!(
                "explain --format {format} exit {:?}, expected {explain_exit}",
                explain.status
            ),
        );
        if format == "json" {
            expect(
                serde_json::from_str::<serde_json::Value>(&explain.stdout).is_ok(),
                format!("explain output is not JSON: {}", explain.stdout),
            );
        }
    }
    problems
}

#[test]
fn every_bad_input_gets_its_diagnostic() {
    let cases = catalogue();
    assert!(cases.len() >= 30, "the catalogue has {} cases", cases.len());
    let mut failures = Vec::new();
    let mut skipped = Vec::new();
    for case in &cases {
        let dir = tempfile::tempdir().unwrap();
        match prepare(case, dir.path()) {
            Ok(prepared) => {
                for problem in check(case, &prepared) {
                    failures.push(format!("{}: {problem}", case.name));
                }
            }
            Err(reason) => skipped.push(format!("{}: {reason}", case.name)),
        }
    }
    if !skipped.is_empty() {
        tools::unavailable(
            "sandbox",
            &format!(
                "cases this machine cannot make:\n  {}",
                skipped.join("\n  ")
            ),
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_committed_case_is_in_the_catalogue() {
    let listed: Vec<&str> = catalogue()
        .iter()
        .filter_map(|case| match case.input {
            Input::File(name) => Some(name),
            _ => None,
        })
        .collect();
    for entry in fs::read_dir(testdata("bad")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.starts_with('.') {
            continue;
        }
        assert!(
            listed.contains(&name.as_str()),
            "testdata/bad/{name} has no row in the catalogue"
        );
    }
}

#[test]
fn a_duplicate_key_shows_where_the_first_one_is() {
    let output = cli()
        .arg("lint")
        .arg(testdata("bad/duplicate-key.yaml"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("first defined here"), "{stderr}");
    assert!(stderr.contains(" 7 │   - name: app"), "{stderr}");
}

#[test]
fn a_line_too_long_to_quote_is_named_not_quoted() {
    let dir = tempfile::tempdir().unwrap();
    let prepared = long_line_finding(dir.path()).unwrap();
    let output = run(&prepared, &["lint"], &[]);
    assert_eq!(output.status, Some(1));
    let path = dir.path().join("wide.json");
    assert!(
        output
            .stdout
            .contains(&format!("× {}:1:70214: ", path.display())),
        "{}",
        output.stdout
    );
    assert!(output.stdout.len() < 2000, "no excerpt: {}", output.stdout);
}

/// A named pipe no process writes to: opening it for reading would wait for a writer
/// forever, so it is opened without waiting, given a bounded time for a writer, then
/// refused: an input error (exit 2), and the good file beside it still reported.
#[cfg(unix)]
#[test]
fn a_named_pipe_without_a_writer_is_an_input_error_in_bounded_time() {
    let dir = tempfile::tempdir().unwrap();
    let pipe = dir.path().join("pipe.yaml");
    let Some(mkfifo) = tools::program("mkfifo") else {
        return;
    };
    let made = std::process::Command::new(mkfifo).arg(&pipe).status();
    assert!(
        made.is_ok_and(|status| status.success()),
        "mkfifo makes a FIFO"
    );
    let started = std::time::Instant::now();
    let output = cli()
        .args(["lint", "--no-config", "--format", "json"])
        .arg(&pipe)
        .arg(testdata(GOOD))
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let elapsed = started.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "after {elapsed:?}: {stderr}");
    assert!(elapsed < Duration::from_secs(40), "{elapsed:?}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let errors = report["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("a named pipe that no process opened for writing within 10 s"),
        "{errors:#?}"
    );
    assert!(
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["ruleId"] == "ML206"),
        "{report:#}"
    );
}

/// 4 MB of `---` lines: a million empty documents, each handed to the stages. Handed to
/// the threads one by one, they kept a two-core run busy for minutes; in batches they
/// take about as long as on one thread. Only a hang guard: the time is measured with a
/// release build (BENCHMARKS.md), not here.
#[test]
fn a_file_of_separators_ends_on_the_default_threads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("separators.yaml");
    fs::write(&path, "---\n".repeat(1 << 20)).unwrap();
    let started = std::time::Instant::now();
    let output = cli()
        .args(["lint", "--no-config", "--format", "json"])
        .arg(&path)
        .timeout(Duration::from_secs(90))
        .output()
        .unwrap();
    let elapsed = started.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "after {elapsed:?}: {stderr}");
    assert!(elapsed < Duration::from_secs(60), "{elapsed:?}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        report["errors"].as_array().map(Vec::len),
        Some(0),
        "{report}"
    );
}
