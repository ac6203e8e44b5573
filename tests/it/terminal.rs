//! Output on a real terminal: the program runs on a pseudo-terminal of a given size
//! (no `COLUMNS`), and every text report must fit its width, colour it unless told
//! not to, and never break a number from its unit; off a terminal, `COLUMNS` decides
//! the width and colour only comes with `--color always`.
#![cfg(unix)]

use crate::common;

use std::io::Read;
use std::os::fd::OwnedFd;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{cli, root};
use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
use rustix::termios::{Winsize, tcsetwinsize};

/// Runs the plugin with `args` on a pseudo-terminal `columns` wide (standard input,
/// output and error all on it); returns what it printed and its exit status.
fn on_terminal(columns: u16, args: &[&str], env: &[(&str, &str)]) -> (String, i32) {
    let controller = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).unwrap();
    grantpt(&controller).unwrap();
    unlockpt(&controller).unwrap();
    let name = ptsname(&controller, Vec::new()).unwrap();
    let terminal = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(name.to_str().unwrap())
        .unwrap();
    tcsetwinsize(
        &terminal,
        Winsize {
            ws_row: 200,
            ws_col: columns,
            ws_xpixel: 0,
            ws_ypixel: 0,
        },
    )
    .unwrap();
    let terminal = OwnedFd::from(terminal);
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("kubectl-mesh_lifecycle"));
    command
        .current_dir(root())
        .args(args)
        .env_remove("COLUMNS")
        .env_remove("NO_COLOR")
        // A terminal that draws colour, whatever the test runner's is (CI's may be dumb).
        .env("TERM", "xterm-256color")
        .envs(env.iter().copied())
        .stdin(Stdio::from(terminal.try_clone().unwrap()))
        .stdout(Stdio::from(terminal.try_clone().unwrap()))
        .stderr(Stdio::from(terminal));
    let mut child = command.spawn().unwrap();
    // The terminal's last copies here go with the command: the controller then reads
    // to its end once the child exits.
    drop(command);
    // Read until the child is gone and the terminal has nothing more to give.
    let mut reader = std::fs::File::from(controller);
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let mut buffer = [0u8; 8192];
        while let Ok(n) = reader.read(&mut buffer) {
            if n == 0 {
                break;
            }
            bytes.extend_from_slice(&buffer[..n]);
        }
        let _ = sender.send(bytes);
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "{args:?} did not finish");
        std::thread::sleep(Duration::from_millis(10));
    };
    // Once the child has exited, reading the controller ends (EIO) when it drains.
    let bytes = receiver.recv_timeout(Duration::from_secs(10)).unwrap();
    let text = String::from_utf8(bytes).unwrap().replace("\r\n", "\n");
    (text, status.code().unwrap_or(-1))
}

/// `text` without ANSI colour sequences.
fn plain(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Lines wider than `columns`, in characters (the reports draw one column per
/// character). The manifest lines a diagnostic quotes, and the labels under them, are
/// the manifest's own width: quoted source is never reflowed. A path is never cut: a
/// line that is one path after its indentation may be wider.
fn too_wide(text: &str, columns: usize) -> Vec<String> {
    let one_path = |line: &str| {
        let words: Vec<&str> = line
            .split(|c: char| c.is_whitespace() || "│┆╭─[]•".contains(c))
            .filter(|w| !w.is_empty())
            .collect();
        words.len() == 1 && words[0].contains('/')
    };
    let quoted = |line: &str| {
        let line = line.trim_start();
        line.starts_with('·')
            || line.split_once(" │").is_some_and(|(gutter, _)| {
                gutter.chars().all(|c| c.is_ascii_digit()) && !gutter.is_empty()
            })
    };
    // Code blocks of a rule's documentation are quoted as they are, too.
    let mut code = false;
    plain(text)
        .lines()
        .filter(|line| {
            if line.starts_with("```") {
                code = !code;
            }
            !code && line.chars().count() > columns && !quoted(line) && !one_path(line)
        })
        .map(str::to_owned)
        .collect()
}

/// A line that ends with a number whose unit starts the next line (after miette's
/// gutter or a table's border).
fn split_units(text: &str) -> Vec<String> {
    let plain = plain(text);
    let lines: Vec<&str> = plain.lines().collect();
    let unit = |line: &str| {
        let start = line
            .trim_start_matches([' ', '│', '┆', '·'])
            .split_whitespace()
            .next()
            .unwrap_or("");
        ["s", "ms", "s,", "s)", "s:", "s;", "MiB"].contains(&start)
    };
    lines
        .windows(2)
        .filter(|pair| {
            let ends_with_number = pair[0]
                .trim_end_matches([' ', '│', '┆'])
                .rsplit(' ')
                .next()
                .is_some_and(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit()));
            ends_with_number && unit(pair[1])
        })
        .map(|pair| format!("{}⏎{}", pair[0], pair[1]))
        .collect()
}

const FIXTURES: [&str; 4] = [
    "testdata/rules/ml201-fire-prestop-plus-drain.yaml",
    "testdata/rules/ml203-fire-linkerd-injected.yaml",
    "testdata/rules/ml101-fire-job.yaml",
    "testdata/corpus/istio-inject/istio-1.24.0/job.yaml.injected",
];

#[test]
fn every_text_report_fits_the_terminal() {
    for columns in [60u16, 80, 120] {
        let width = usize::from(columns);
        let mut runs: Vec<Vec<&str>> = Vec::new();
        for format in ["human", "table"] {
            let mut args = vec!["lint", "--no-config", "--format", format];
            args.extend(FIXTURES);
            runs.push(args);
        }
        let mut explain = vec!["explain", "--no-config"];
        explain.extend(FIXTURES);
        runs.push(explain);
        runs.push(vec!["rules"]);
        runs.push(vec!["rules", "ML201"]);
        for args in &runs {
            let (text, status) = on_terminal(columns, args, &[]);
            assert!(status == 0 || status == 1, "{args:?}: {status}\n{text}");
            let mut wide = too_wide(&text, width);
            // A rule's examples are written for 80 columns (code cannot wrap): below
            // that, their lines (indented by four) may run past the edge.
            if args[0] == "rules" && width < 80 {
                wide.retain(|line| !line.starts_with("    "));
            }
            assert!(
                wide.is_empty(),
                "{args:?} at {columns} columns:\n{}",
                wide.join("\n")
            );
            let split = split_units(&text);
            assert!(split.is_empty(), "{args:?} at {columns}: {split:?}");
            // On a terminal, colour is on.
            assert!(text.contains("\x1b["), "{args:?}: no colour on a terminal");
        }
    }
}

#[test]
fn the_time_axis_takes_the_width_it_is_given() {
    let axis = |columns: u16| {
        let (text, _) = on_terminal(
            columns,
            &["explain", "--no-config", FIXTURES[0], "--color", "never"],
            &[],
        );
        // The longest bar of the termination panel: the proxy's lane.
        text.lines()
            .filter(|line| line.contains("istio-proxy") && line.contains('▼'))
            .map(|line| line.chars().filter(|c| "▒━┄─▼✕┤".contains(*c)).count())
            .max()
            .unwrap()
    };
    let (narrow, wide) = (axis(70), axis(140));
    assert!(
        wide >= 2 * narrow - 10,
        "bars of {narrow} and {wide} cells at 70 and 140 columns"
    );
}

#[test]
fn colour_follows_no_color_and_the_flag() {
    let args = ["lint", "--no-config", FIXTURES[0]];
    let (text, _) = on_terminal(80, &args, &[("NO_COLOR", "1")]);
    assert!(!text.contains('\x1b'), "NO_COLOR on a terminal: {text}");
    let mut never = args.to_vec();
    never.extend(["--color", "never"]);
    let (text, _) = on_terminal(80, &never, &[]);
    assert!(!text.contains('\x1b'), "--color never: {text}");
    let mut always = args.to_vec();
    always.extend(["--color", "always"]);
    let (text, _) = on_terminal(80, &always, &[("NO_COLOR", "1")]);
    assert!(text.contains("\x1b["), "--color always wins over NO_COLOR");
}

/// One run of each command that draws for the terminal.
const EVERY_COMMAND: [&[&str]; 5] = [
    &["lint", "--no-config", FIXTURES[0]],
    &["lint", "--no-config", "--format", "table", FIXTURES[0]],
    &["explain", "--no-config", FIXTURES[0]],
    &["rules"],
    &["rules", "ML201"],
];

/// A terminal that says it understands no escape sequences (`TERM=dumb`, Emacs' shell)
/// gets none under `--color auto`, from every command, on standard output and error;
/// `--color always` still colours.
#[test]
fn a_dumb_terminal_gets_no_escapes() {
    for args in EVERY_COMMAND {
        let (text, _) = on_terminal(80, args, &[("TERM", "dumb")]);
        assert!(!text.contains('\x1b'), "{args:?} with TERM=dumb: {text}");
        assert!(too_wide(&text, 80).is_empty(), "{args:?}");
    }
    let (error, status) = on_terminal(80, &["lint", "no-such-file.yaml"], &[("TERM", "dumb")]);
    assert_eq!(status, 2);
    assert!(
        !error.contains('\x1b') && error.contains("no-such-file.yaml"),
        "{error}"
    );
    let (text, _) = on_terminal(
        80,
        &["rules", "ML201", "--color", "always"],
        &[("TERM", "dumb")],
    );
    assert!(text.contains("\x1b["), "--color always wins over TERM=dumb");
    // What a dumb terminal of 80 columns shows of a rule.
    let (text, _) = on_terminal(80, &["rules", "ML201"], &[("TERM", "dumb")]);
    insta::assert_snapshot!(text);
}

/// Off a terminal: colour only when asked for, in every format that colours, and the
/// width from COLUMNS (100 without it).
#[test]
fn off_a_terminal_columns_and_the_flag_decide() {
    for args in EVERY_COMMAND {
        let piped = cli().current_dir(root()).args(args).output().unwrap();
        let text = String::from_utf8(piped.stdout).unwrap();
        assert!(!text.contains('\x1b'), "{args:?} piped: colour");
        let coloured = cli()
            .current_dir(root())
            .args(args)
            .args(["--color", "always"])
            .output()
            .unwrap();
        let text = String::from_utf8(coloured.stdout).unwrap();
        assert!(text.contains("\x1b["), "{args:?} --color always: no colour");
        for columns in ["64", "100"] {
            let output = cli()
                .current_dir(root())
                .args(args)
                .env("COLUMNS", columns)
                .output()
                .unwrap();
            let text = String::from_utf8(output.stdout).unwrap();
            let wide = too_wide(&text, columns.parse().unwrap());
            assert!(wide.is_empty(), "{args:?} COLUMNS={columns}: {wide:?}");
        }
    }
    let unset = cli()
        .current_dir(root())
        .args(["rules", "ML201"])
        .env_remove("COLUMNS")
        .output()
        .unwrap();
    let text = String::from_utf8(unset.stdout).unwrap();
    // Prose is indented by two under its heading; code blocks by four.
    let widest = plain(&text)
        .lines()
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .map(|l| l.chars().count())
        .max()
        .unwrap();
    assert!(
        (90..=100).contains(&widest),
        "prose wraps at 100 columns without COLUMNS: {widest}"
    );
}

/// Lines of `text` wider than `columns` but for a quoted excerpt (as [`too_wide`]
/// allows) and a diff line of `--show-fixes` whose code is one word past its gutter,
/// which cannot break without changing the YAML.
fn too_wide_fixes(text: &str, columns: usize) -> Vec<String> {
    too_wide(text, columns)
        .into_iter()
        .filter(|line| {
            let Some((gutter, code)) = line.split_once(" │ ") else {
                return true;
            };
            let gutter_only = gutter.chars().all(|c| c.is_ascii_digit() || c == ' ');
            let one_word = code
                .trim_start_matches(['+', '-', ' '])
                .split_whitespace()
                .count()
                == 1;
            !(gutter_only && one_word)
        })
        .collect()
}

/// Fixes whose description and code are wider than a terminal.
const WIDE_FIXES: [&str; 3] = [
    "testdata/rules/ml301-fire-consul-job.yaml",
    "testdata/rules/ml203-fire-consul-lifecycle-off.yaml",
    "testdata/rules/ml303-fire-no-shared-pid.yaml",
];

#[test]
fn show_fixes_fits_the_terminal_and_breaks_no_word() {
    for columns in [60u16, 80, 120] {
        let width = usize::from(columns);
        let mut args = vec!["lint", "--no-config", "--show-fixes", "--unsafe-fixes"];
        args.extend(WIDE_FIXES);
        let (text, status) = on_terminal(columns, &args, &[]);
        assert_eq!(status, 1, "{text}");
        let text = plain(&text);
        assert!(text.contains("Unsafe fix: "), "{text}");
        let wide = too_wide_fixes(&text, width);
        assert!(
            wide.is_empty(),
            "at {columns} columns:\n{}",
            wide.join("\n")
        );
        // Every word of a fix's description is whole on its line: its text, joined,
        // is the description as the JSON report gives it.
        let description: String = text
            .split("Unsafe fix: ")
            .nth(1)
            .unwrap()
            .lines()
            .take_while(|line| !line.contains(" │ "))
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ");
        let output = cli()
            .args(["lint", "--no-config", "--unsafe-fixes", "-o", "json"])
            .args(WIDE_FIXES)
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let descriptions: Vec<&str> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["fix"]["description"].as_str())
            .collect();
        assert!(
            descriptions.contains(&description.as_str()),
            "{description:?} not among {descriptions:#?}"
        );
    }
    // Off a terminal, COLUMNS decides, as for every report.
    let output = cli()
        .args(["lint", "--no-config", "--show-fixes", "--unsafe-fixes"])
        .args(WIDE_FIXES)
        .current_dir(root())
        .env("COLUMNS", "80")
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    let wide = too_wide_fixes(&text, 80);
    assert!(wide.is_empty(), "COLUMNS=80:\n{}", wide.join("\n"));
}

#[test]
fn notes_on_a_terminal_wrap_at_its_width() {
    // A workload that is not linted: a note on standard error, a long one.
    let args = [
        "lint",
        "--no-config",
        "testdata/not-linted/scaledjob-no-containers.yaml",
    ];
    for columns in [60u16, 80] {
        let (text, _) = on_terminal(columns, &args, &[]);
        let text = plain(&text);
        let notes: Vec<&str> = text.lines().filter(|l| l.starts_with("note: ")).collect();
        assert!(!notes.is_empty(), "{text}");
        // Continued under itself, past `note: `.
        assert!(
            text.lines()
                .any(|l| l.starts_with("      ") && !l.starts_with("       "))
        );
        let wide = too_wide(&text, usize::from(columns));
        assert!(
            wide.is_empty(),
            "at {columns} columns:\n{}",
            wide.join("\n")
        );
    }
    // Piped, a note stays one line, for logs and grep.
    let output = cli()
        .current_dir(root())
        .args(args)
        .env("COLUMNS", "60")
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    let note = stderr.lines().find(|l| l.starts_with("note: ")).unwrap();
    assert!(note.chars().count() > 60, "{stderr}");
}
