//! Properties of the shell reader (`resolve::shell`) on generated scripts.
//!
//! The reader is lenient and small; brush-parser (the parser of the brush shell, a
//! maintained POSIX/bash parser) is strict and complete. For every generated script that
//! brush parses, both must see the same structure the lifecycle questions depend on:
//! the simple commands' words (quotes removed) and assignments, and how they are joined
//! (`;`/newline, `&`, `&&`, `||`, `|`, `!`, groups). Here-document bodies are data for
//! both. Scripts brush rejects are still read by ours without failing (the never-fails
//! contract, checked on arbitrary text as well).
//!
//! Where the two differ by design:
//! - brush rejects malformed scripts (unbalanced quotes or parentheses, a `&&` with
//!   nothing after it); ours reads what it can. Such scripts are skipped by the
//!   cross-check and only checked for not failing.
//! - ours keeps `case … esac` opaque and drops redirections; the generator produces
//!   neither as something to compare (redirections are generated, and ignored by both).
//! - brush, as bash does, reads `((…))` as arithmetic; ours reads it as nested groups.
//!   The generator puts a space between nested parentheses.
//! - brush 0.4.0 splits a braced expansion on the rest of a line after a here-document
//!   operator in two words (`cat <<EOF; f ${X:-5}` gives `f X:-5 ${}`; bash and dash
//!   pass `${X:-5}` as one word). Braced expansions are pinned in examples without
//!   here-documents instead of being generated.
//! - brush 0.4.0 takes a number before a redirection for its file descriptor even when a
//!   blank separates them (`f 0 <<EOF`, `f 2 >&1`); POSIX and bash take it for an
//!   argument, as ours does (`2>&1` glued is a descriptor for all three). The generator
//!   makes no all-digit argument.

use brush_parser::ast;
use brush_parser::word::{self, WordPiece};
use brush_parser::{Parser, ParserOptions};
use mesh_lifecycle::resolve::shell::{self, Command, Connector, List};
use proptest::prelude::*;

/// The structure both readers must agree on.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Shape {
    /// A simple command: its assignments (`NAME=value`) and words, quotes removed.
    Simple(Vec<String>),
    /// `( … )` or `{ …; }`.
    Group(Vec<Item>),
    /// Anything else (brush only: the generator makes no such command).
    Other,
}

/// An and-or chain: each pipeline with the connector before it (`None` for the first)
/// and whether it is negated; and whether the chain runs in the background.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Item {
    chain: Vec<(Option<&'static str>, bool, Vec<Shape>)>,
    background: bool,
}

fn ours(list: &List) -> Vec<Item> {
    list.0
        .iter()
        .map(|item| {
            let connectors = std::iter::once(None).chain(item.rest.iter().map(|(c, _)| {
                Some(match c {
                    Connector::And => "&&",
                    Connector::Or => "||",
                })
            }));
            Item {
                chain: connectors
                    .zip(item.pipelines())
                    .map(|(connector, pipeline)| {
                        let commands = pipeline.commands.iter().map(our_shape).collect();
                        (connector, pipeline.negated, commands)
                    })
                    .collect(),
                background: item.background,
            }
        })
        .collect()
}

fn our_shape(command: &Command) -> Shape {
    match command {
        Command::Simple(simple) => Shape::Simple(
            simple
                .assignments
                .iter()
                .map(|(name, value)| format!("{name}={value}"))
                .chain(simple.words.iter().map(|w| w.0.clone()))
                .collect(),
        ),
        Command::Group(list) => Shape::Group(ours(list)),
        _ => Shape::Other,
    }
}

fn options() -> ParserOptions {
    ParserOptions {
        enable_extended_globbing: false,
        tilde_expansion_at_word_start: false,
        ..ParserOptions::default()
    }
}

/// brush's reading of `script`, or `None` where brush rejects it.
fn brush(script: &str) -> Option<Vec<Item>> {
    let program = Parser::new(script.as_bytes(), &options())
        .parse_program()
        .ok()?;
    let items: Vec<&ast::CompoundListItem> = program
        .complete_commands
        .iter()
        .flat_map(|list| &list.0)
        .collect();
    items.into_iter().map(brush_item).collect()
}

fn brush_list(list: &ast::CompoundList) -> Option<Vec<Item>> {
    list.0.iter().map(brush_item).collect()
}

fn brush_item(item: &ast::CompoundListItem) -> Option<Item> {
    let ast::CompoundListItem(and_or, separator) = item;
    let mut chain = vec![(None, and_or.first.bang, brush_pipeline(&and_or.first)?)];
    for next in &and_or.additional {
        let (connector, pipeline) = match next {
            ast::AndOr::And(pipeline) => ("&&", pipeline),
            ast::AndOr::Or(pipeline) => ("||", pipeline),
        };
        chain.push((Some(connector), pipeline.bang, brush_pipeline(pipeline)?));
    }
    Some(Item {
        chain,
        background: matches!(separator, ast::SeparatorOperator::Async),
    })
}

fn brush_pipeline(pipeline: &ast::Pipeline) -> Option<Vec<Shape>> {
    pipeline.seq.iter().map(brush_shape).collect()
}

fn brush_shape(command: &ast::Command) -> Option<Shape> {
    Some(match command {
        ast::Command::Simple(simple) => {
            let items = simple.prefix.iter().flat_map(|p| &p.0);
            let name = simple
                .word_or_name
                .iter()
                .map(|w| ast::CommandPrefixOrSuffixItem::Word(w.clone()));
            let mut words = Vec::new();
            for item in items
                .cloned()
                .chain(name)
                .chain(simple.suffix.iter().flat_map(|s| s.0.iter().cloned()))
            {
                match item {
                    ast::CommandPrefixOrSuffixItem::Word(w)
                    | ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                        words.push(unquote(&w.value)?);
                    }
                    ast::CommandPrefixOrSuffixItem::IoRedirect(_) => {}
                    ast::CommandPrefixOrSuffixItem::ProcessSubstitution(..) => return None,
                }
            }
            Shape::Simple(words)
        }
        ast::Command::Compound(ast::CompoundCommand::Subshell(group), _) => {
            Shape::Group(brush_list(&group.list)?)
        }
        ast::Command::Compound(ast::CompoundCommand::BraceGroup(group), _) => {
            Shape::Group(brush_list(&group.list)?)
        }
        _ => Shape::Other,
    })
}

/// A word with its quotes removed, through brush's own word parser.
fn unquote(raw: &str) -> Option<String> {
    fn flatten(raw: &str, pieces: &[word::WordPieceWithSource], out: &mut String) -> Option<()> {
        for piece in pieces {
            match &piece.piece {
                WordPiece::Text(text) | WordPiece::SingleQuotedText(text) => out.push_str(text),
                WordPiece::EscapeSequence(escape) => out.push_str(&escape[1..]),
                WordPiece::DoubleQuotedSequence(inner) => flatten(raw, inner, out)?,
                // Expansions stay as written, as ours keeps them.
                WordPiece::ParameterExpansion(_)
                | WordPiece::CommandSubstitution(_)
                | WordPiece::BackquotedCommandSubstitution(_)
                | WordPiece::ArithmeticExpression(_) => {
                    out.push_str(raw.get(piece.start_index..piece.end_index)?);
                }
                _ => return None,
            }
        }
        Some(())
    }
    let pieces = word::parse(raw, &options()).ok()?;
    let mut out = String::new();
    flatten(raw, &pieces, &mut out)?;
    Some(out)
}

// ---- The generator: scripts as users write them in hooks and Job commands.

/// A here-document attached to a command; its body is emitted after the line.
#[derive(Clone, Debug)]
struct HereDoc {
    delimiter: &'static str,
    /// How the delimiter is written after `<<`: `EOF`, `'EOF'`, `"EOF"`, `\EOF`.
    quoting: u8,
    strip_tabs: bool,
    body: Vec<String>,
}

#[derive(Clone, Debug)]
enum Gen {
    Simple {
        assignment: Option<String>,
        words: Vec<String>,
        redirect: Option<&'static str>,
        here_docs: Vec<HereDoc>,
    },
    Subshell(Vec<GenItem>),
    Brace(Vec<GenItem>),
}

#[derive(Clone, Debug)]
struct GenItem {
    negated: bool,
    /// Pipelines joined by `&&`/`||`.
    chain: Vec<(&'static str, Vec<Gen>)>,
    /// `;`, `\n` or `&` after the item.
    separator: &'static str,
}

const NAMES: &[&str] = &[
    "sleep", "curl", "echo", "cat", "./work", "/bin/app", "wget", "pkill", "exit", "true",
];

const LOWER: &[char] = &['a', 'b', 'c', 'k', 'q', 'x', 'z'];
const WORD: &[char] = &['a', 'e', 'k', 'z', '0', '9', '_', '.', '/', ':', '-'];
const SINGLE_QUOTED: &[char] = &['a', 'z', ' ', ';', '&', '|', '(', ')', '<', '>'];
const DOUBLE_QUOTED: &[char] = &['a', 'z', ' ', ';', '&', '|', '(', ')', '<', '>', '\''];

/// Text of `length` characters drawn from `alphabet` (cheaper to generate than a regex).
fn text(
    alphabet: &'static [char],
    length: std::ops::Range<usize>,
) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(alphabet), length)
        .prop_map(|chars| chars.into_iter().collect())
}

fn plain_word() -> impl Strategy<Value = String> {
    prop_oneof![
        (text(LOWER, 1..2), text(WORD, 0..8)).prop_map(|(a, b)| a + &b),
        Just("localhost:15020/quitquitquit".to_owned()),
        Just("-X".to_owned()),
        Just("POST".to_owned()),
        Just("$rc".to_owned()),
    ]
    .prop_filter("not a reserved word", |w| !is_reserved(w))
    .prop_filter("not a number brush takes for a file descriptor", |w| {
        !w.chars().all(|c| c.is_ascii_digit())
    })
}

fn is_reserved(word: &str) -> bool {
    matches!(
        word,
        "if" | "then"
            | "else"
            | "elif"
            | "fi"
            | "do"
            | "done"
            | "case"
            | "esac"
            | "while"
            | "until"
            | "for"
            | "in"
            | "function"
            | "select"
            | "time"
            | "coproc"
    )
}

/// A word as written: plain, quoted, escaped, or a mix.
fn written_word() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => plain_word(),
        1 => text(SINGLE_QUOTED, 0..8).prop_map(|w| format!("'{w}'")),
        1 => text(DOUBLE_QUOTED, 0..8).prop_map(|w| format!("\"{w}\"")),
        1 => (text(LOWER, 1..4), text(&[' ', ';', '&', '|'], 1..2), text(LOWER, 1..4)).prop_map(|(a, c, b)| format!("{a}\\{c}{b}")),
        1 => (text(LOWER, 1..3), text(&['a', 'b', ' '], 0..3), text(LOWER, 0..3)).prop_map(|(a, b, c)| format!("{a}'{b}'\"{c}\"")),
    ]
}

fn here_doc() -> impl Strategy<Value = HereDoc> {
    let body_line = prop_oneof![
        Just("sleep 100".to_owned()),
        Just("curl -X POST localhost:15020/quitquitquit".to_owned()),
        Just("if then ( ' \" && ;; }".to_owned()),
        Just("EOF2".to_owned()),
        Just(" EOF".to_owned()),
        text(SINGLE_QUOTED, 0..12),
    ];
    (
        prop_oneof![Just("EOF"), Just("END"), Just("_x1")],
        0u8..4,
        any::<bool>(),
        prop::collection::vec(body_line, 0..4),
    )
        .prop_map(|(delimiter, quoting, strip_tabs, body)| HereDoc {
            delimiter,
            quoting,
            strip_tabs,
            body,
        })
}

fn simple() -> impl Strategy<Value = Gen> {
    (
        prop::option::weighted(
            0.2,
            (
                (text(&['A', 'B', 'X'], 1..2), text(&['A', 'Z', '_'], 0..3))
                    .prop_map(|(a, b)| a + &b),
                written_word(),
            ),
        ),
        prop::sample::select(NAMES),
        prop::collection::vec(written_word(), 0..4),
        prop::option::weighted(
            0.2,
            prop_oneof![Just("> /dev/null"), Just("2>&1"), Just(">>/tmp/log")],
        ),
        prop::collection::vec(here_doc(), 0..3),
    )
        .prop_map(|(assignment, name, args, redirect, mut here_docs)| {
            // Most commands take no here-document.
            here_docs.truncate(here_docs.len().saturating_sub(1));
            Gen::Simple {
                assignment: assignment.map(|(n, v)| format!("{n}={v}")),
                words: std::iter::once(name.to_owned()).chain(args).collect(),
                redirect,
                here_docs,
            }
        })
}

fn list(command: impl Strategy<Value = Gen> + Clone) -> impl Strategy<Value = Vec<GenItem>> {
    let pipeline = prop::collection::vec(command, 1..3);
    let chain = (
        pipeline.clone(),
        prop::collection::vec((prop_oneof![Just("&&"), Just("||")], pipeline), 0..2),
    )
        .prop_map(|(first, rest)| std::iter::once(("", first)).chain(rest).collect::<Vec<_>>());
    let item = (
        prop::bool::weighted(0.1),
        chain,
        prop_oneof![4 => Just(";"), 4 => Just("\n"), 1 => Just("&")],
    )
        .prop_map(|(negated, chain, separator)| GenItem {
            negated,
            chain,
            separator,
        });
    prop::collection::vec(item, 1..3)
}

fn script() -> impl Strategy<Value = String> {
    let command = simple().prop_recursive(2, 8, 2, |inner| {
        prop_oneof![
            list(inner.clone()).prop_map(Gen::Subshell),
            list(inner).prop_map(Gen::Brace),
        ]
    });
    list(command).prop_map(|items| {
        let mut out = Render::default();
        out.items(&items);
        out.newline();
        out.text
    })
}

/// Renders generated scripts; here-document bodies follow the next newline.
#[derive(Default)]
struct Render {
    text: String,
    pending: Vec<HereDoc>,
}

impl Render {
    fn newline(&mut self) {
        self.text.push('\n');
        for doc in std::mem::take(&mut self.pending) {
            let indent = if doc.strip_tabs { "\t" } else { "" };
            for line in &doc.body {
                self.text.push_str(indent);
                self.text.push_str(line);
                self.text.push('\n');
            }
            self.text.push_str(indent);
            self.text.push_str(doc.delimiter);
            self.text.push('\n');
        }
    }

    fn items(&mut self, items: &[GenItem]) {
        for item in items {
            if item.negated {
                self.text.push_str("! ");
            }
            for (connector, pipeline) in &item.chain {
                if !connector.is_empty() {
                    self.text.push_str(&format!(" {connector} "));
                }
                for (index, command) in pipeline.iter().enumerate() {
                    if index > 0 {
                        self.text.push_str(" | ");
                    }
                    self.command(command);
                }
            }
            match item.separator {
                "\n" => self.newline(),
                separator => {
                    self.text.push_str(separator);
                    self.text.push(' ');
                }
            }
        }
    }

    fn command(&mut self, command: &Gen) {
        match command {
            Gen::Simple {
                assignment,
                words,
                redirect,
                here_docs,
            } => {
                if let Some(assignment) = assignment {
                    self.text.push_str(assignment);
                    self.text.push(' ');
                }
                self.text.push_str(&words.join(" "));
                if let Some(redirect) = redirect {
                    self.text.push(' ');
                    self.text.push_str(redirect);
                }
                for doc in here_docs {
                    let dash = if doc.strip_tabs { "-" } else { "" };
                    let delimiter = match doc.quoting {
                        0 => doc.delimiter.to_owned(),
                        1 => format!("'{}'", doc.delimiter),
                        2 => format!("\"{}\"", doc.delimiter),
                        _ => format!("\\{}", doc.delimiter),
                    };
                    self.text.push_str(&format!(" <<{dash}{delimiter}"));
                    self.pending.push(doc.clone());
                }
            }
            Gen::Subshell(items) => {
                self.text.push_str("( ");
                self.items(items);
                self.text.push_str(" )");
            }
            Gen::Brace(items) => {
                self.text.push_str("{ ");
                self.items(items);
                // `}` is a reserved word: it needs a separator before it.
                if !self.text.trim_end_matches(' ').ends_with(['\n', ';', '&']) {
                    self.text.push(';');
                }
                self.text.push_str(" }");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Where brush parses a generated script, both readers see the same commands,
    /// words and connectors.
    #[test]
    fn agrees_with_brush_on_generated_scripts(script in script()) {
        let expected = brush(&script);
        prop_assume!(expected.is_some(), "brush rejects {:?}", script);
        prop_assert_eq!(Some(ours(&shell::parse(&script))), expected, "{}", script);
    }

    /// Any text is read without failing, and so are all the questions asked of it.
    #[test]
    fn any_text_is_read(text in "[a-z0-9 \t\n;&|()<>'\"\\\\$`{}#=!*-]{0,200}") {
        read_everything(&text);
    }

    /// Scripts cut or spliced anywhere (unterminated quotes, groups, here-documents)
    /// are read without failing.
    #[test]
    fn cut_scripts_are_read(script in script(), cut in any::<prop::sample::Index>()) {
        let chars: Vec<char> = script.chars().collect();
        let cut: String = chars[..cut.index(chars.len() + 1)].iter().collect();
        read_everything(&cut);
    }
}

fn read_everything(text: &str) {
    let list = shell::parse(text);
    let _ = shell::length(&list, &shell::Env::new());
    let lexicon = &mesh_lifecycle::resolve::Registry::standard().lexicon;
    let _ = shell::start_gate(&list, lexicon);
    let argv = ["sh".to_owned(), "-ec".to_owned(), text.to_owned()];
    let wrappers = ["wait-and-quit".to_owned()];
    let known = shell::Known {
        wrappers: &wrappers,
        lexicon,
    };
    let _ = shell::stop_calls(&argv, known);
    let _ = shell::network_use(&argv);
}

/// The generator itself is checked against brush: most of what it makes is valid shell,
/// so the cross-check compares rather than skips.
#[test]
fn brush_parses_most_generated_scripts() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = script();
    let total = 200;
    let parsed = (0..total)
        .filter(|_| {
            let script = strategy.new_tree(&mut runner).unwrap().current();
            brush(&script).is_some()
        })
        .count();
    assert!(
        parsed * 10 >= total * 9,
        "brush parsed only {parsed} of {total}"
    );
}

/// Examples the generator may miss, pinned: both readers agree on them.
#[test]
fn agrees_with_brush_on_here_documents() {
    for script in [
        "cat <<EOF\nsleep 100\nEOF\nsleep 5\n",
        "cat <<-EOF > /tmp/x\n\tsleep 100\n\tEOF\nsleep 5\n",
        "cat <<'EOF'; sleep 1\n$(sleep 100)\nEOF\nsleep 2\n",
        "cat <<\"A\" <<B && echo ok\nsleep 1\nA\nsleep 2\nB\nsleep 3\n",
        "{ cat <<EOF; }\nsleep 100\nEOF\nsleep 4\n",
        "sleep ${DELAY:-5} && echo \"$(pidof envoy)\" ${x}; exit $rc\n",
    ] {
        let expected = brush(script).unwrap_or_else(|| panic!("brush parses {script:?}"));
        assert_eq!(ours(&shell::parse(script)), expected, "{script:?}");
    }
}

/// What the shell itself reports in `$-` after running `script` as `argv` says.
fn options_in_effect(argv: &[&str], script: &str) -> String {
    let (program, flags) = argv.split_first().expect("a shell");
    let output = std::process::Command::new(program)
        .args(flags)
        .arg(script)
        .output()
        .unwrap_or_else(|error| panic!("{program} runs: {error}"));
    assert!(output.status.success(), "{argv:?} {script:?}: {output:?}");
    String::from_utf8(output.stdout).expect("utf-8")
}

/// The flags a shell is started with, as bash, dash and zsh read them: the script found
/// after them, and errexit on exactly where the shell reports `e` in `$-`.
#[test]
fn reads_a_shells_flags_as_bash_and_dash_do() {
    let has_zsh = crate::common::tools::find("zsh").is_some();
    if !has_zsh {
        crate::common::tools::unavailable("zsh", "`zsh` is not installed: its cases are skipped");
    }
    for argv in [
        &["zsh", "-oerrexit", "-c"][..],
        &["zsh", "--errexit", "-c"],
        &["zsh", "-o", "ERR_EXIT", "-c"],
        &["zsh", "-e", "--no-errexit", "-c"],
        &["zsh", "-eonoerrexit", "-c"],
        &["zsh", "+oerrexit", "-ec"],
        &["zsh", "-eo", "pipefail", "-c"],
        &["dash", "-c"][..],
        &["dash", "-ec"],
        &["dash", "-e", "+e", "-c"],
        &["dash", "-ec", "--"],
        &["bash", "-e", "-c"],
        &["bash", "-euo", "pipefail", "-c"],
        &["bash", "-o", "errexit", "-c"],
        &["bash", "-o", "pipefail", "-c"],
        &["bash", "+o", "errexit", "-ec"],
        &["bash", "--norc", "-ec"],
        &["bash", "-O", "extglob", "-c"],
        &["bash", "--init-file", "/dev/null", "-ec"],
        &["bash", "-oo", "errexit", "nounset", "-c"],
        &["dash", "+c"],
        &["dash", "-ec", "-"],
    ] {
        if argv[0] == "zsh" && !has_zsh {
            continue;
        }
        let script = r#"echo "$-""#;
        let full: Vec<String> = argv
            .iter()
            .chain([&script])
            .map(|w| w.to_string())
            .collect();
        assert_eq!(shell::shell_script(&full), Some(script), "{argv:?}");
        let reported = options_in_effect(argv, script);
        assert_eq!(
            shell::errexit(&full),
            reported.contains('e'),
            "{argv:?}: the shell reports {reported:?}"
        );
    }
}

/// `set` turning errexit on or off, as bash and dash read it.
#[test]
fn reads_set_as_bash_and_dash_do() {
    for (shell_name, set) in [
        ("dash", "set -e"),
        ("dash", "set -eu"),
        ("dash", "set -o errexit"),
        ("dash", "set -e; set +e"),
        ("dash", "set -x"),
        ("bash", "set -euo pipefail"),
        ("bash", "set -o nounset -o errexit"),
        ("bash", "set -e +o errexit"),
        ("bash", "set -o pipefail"),
        ("bash", "set -- -e"),
    ] {
        let script = format!(r#"{set}; echo "$-""#);
        let reported = options_in_effect(&[shell_name, "-c"], &script);
        let ours = shell::parse(set)
            .simple_commands()
            .into_iter()
            .rev()
            .find_map(shell::set_errexit)
            .unwrap_or(false);
        assert_eq!(
            ours,
            reported.contains('e'),
            "{shell_name} -c {set:?}: the shell reports {reported:?}"
        );
    }
}

/// A script's `#!` line, as the kernel and the shell read it: errexit on exactly where
/// the shell that runs the file reports `e` in `$-`. The kernel passes the rest of the
/// line as one argument: `#!/bin/sh -e -x` is an option word the shell refuses.
#[test]
fn reads_a_shebang_as_the_kernel_and_the_shell_do() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    for (case, (line, starts)) in [
        ("#!/bin/sh", true),
        ("#!/bin/sh -e", true),
        ("#!/bin/bash -eu", true),
        ("#!/bin/bash -x", true),
        ("#!/bin/sh +e", true),
        ("#!/usr/bin/env sh", true),
        ("#!/usr/bin/env -S bash -e", true),
        ("#!/usr/bin/env -S bash -e +e", true),
        ("#!/bin/sh -e -x", false),
    ]
    .into_iter()
    .enumerate()
    {
        let script = format!("{line}\necho \"$-\"\n");
        // A file per case, so that no process another test starts still holds one
        // being written (which makes running it fail with "text file busy").
        let path = dir.path().join(format!("run-{case}.sh"));
        std::fs::write(&path, &script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        let output = (0..50)
            .find_map(|_| match std::process::Command::new(&path).output() {
                Err(error) if error.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    None
                }
                other => Some(other),
            })
            .unwrap_or_else(|| panic!("{line}: the file stays busy"))
            .unwrap_or_else(|error| panic!("{line}: {error}"));
        assert_eq!(output.status.success(), starts, "{line}: {output:?}");
        let reported = String::from_utf8(output.stdout).unwrap();
        assert_eq!(
            shell::shebang(&script).is_some_and(|line| line.errexit),
            reported.contains('e'),
            "{line}: the shell reports {reported:?}"
        );
    }
}
