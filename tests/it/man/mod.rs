//! The man pages of `docs/man/`, rendered from the command line: a page for the program
//! and one per subcommand, each with its options under OPTIONS in the groups `--help`
//! shows, and the ENVIRONMENT and EXIT STATUS sections of [`mesh_lifecycle::cli`].

use clap::{Arg, ArgAction, Command};
use roff::{Inline, Roff, bold, italic, roman};

use mesh_lifecycle::cli::{BINARY_NAME, ENVIRONMENT, EXIT_STATUS, PLUGIN_NAME};

/// Every page as `(file name, contents)`, the program's first.
pub fn pages(command: Command) -> Vec<(String, String)> {
    let mut command = command.disable_help_subcommand(true);
    command.build();
    let subcommands: Vec<&Command> = command
        .get_subcommands()
        .filter(|sub| !sub.is_hide_set())
        .collect();
    let mut pages = vec![(
        format!("{BINARY_NAME}.1"),
        page(&command, BINARY_NAME, PLUGIN_NAME, &subcommands),
    )];
    for sub in &subcommands {
        let name = format!("{BINARY_NAME}-{}", sub.get_name());
        let usage_name = format!("{PLUGIN_NAME} {}", sub.get_name());
        pages.push((format!("{name}.1"), page(sub, &name, &usage_name, &[])));
    }
    pages
}

fn page(command: &Command, name: &str, usage_name: &str, subcommands: &[&Command]) -> String {
    let version = command.get_version().unwrap_or(env!("CARGO_PKG_VERSION"));
    let mut roff = Roff::new();
    roff.control(
        "TH",
        [
            name.to_uppercase().as_str(),
            "1",
            version,
            PLUGIN_NAME,
            "User Commands",
        ],
    );
    roff.control("SH", ["NAME"]);
    let about = command
        .get_about()
        .map(|a| a.to_string())
        .unwrap_or_default();
    roff.text([roman(format!("{name} - {about}"))]);

    roff.control("SH", ["SYNOPSIS"]);
    let usage = command
        .clone()
        .bin_name(usage_name)
        .render_usage()
        .to_string();
    let usage = usage.trim_start_matches("Usage:").trim();
    roff.text(synopsis(usage, usage_name));

    roff.control("SH", ["DESCRIPTION"]);
    let description = command
        .get_long_about()
        .or(command.get_about())
        .map(|a| a.to_string())
        .unwrap_or_default();
    paragraphs(&mut roff, &description);

    options(&mut roff, command);

    if !subcommands.is_empty() {
        roff.control("SH", ["COMMANDS"]);
        for sub in subcommands {
            roff.control("TP", []);
            roff.text([
                bold(format!("{BINARY_NAME}-{}", sub.get_name())),
                roman("(1)"),
            ]);
            roff.text([roman(
                sub.get_about().map(|a| a.to_string()).unwrap_or_default(),
            )]);
        }
    }

    roff.control("SH", ["ENVIRONMENT"]);
    for (variable, meaning) in ENVIRONMENT {
        roff.control("TP", []);
        roff.text([bold(*variable)]);
        roff.text([roman(*meaning)]);
    }

    roff.control("SH", ["EXIT STATUS"]);
    for (status, meaning) in EXIT_STATUS {
        roff.control("TP", []);
        roff.text([bold(*status)]);
        roff.text([roman(*meaning)]);
    }

    roff.control("SH", ["SEE ALSO"]);
    let mut see_also = vec![bold("kubectl"), roman("(1)")];
    if name != BINARY_NAME {
        see_also.extend([roman(", "), bold(BINARY_NAME), roman("(1)")]);
    }
    roff.text(see_also);
    roff.render()
}

/// The usage line: the command in bold, placeholders in italics.
fn synopsis(usage: &str, usage_name: &str) -> Vec<Inline> {
    let mut line = vec![bold(usage_name)];
    for word in usage[usage_name.len().min(usage.len())..].split_whitespace() {
        line.push(roman(" "));
        let bare = word.trim_matches(|c| matches!(c, '[' | ']' | '<' | '>' | '.'));
        if bare.chars().all(|c| c.is_ascii_uppercase() || c == '_') && !bare.is_empty() {
            let (before, after) = word.split_at(word.find(bare).unwrap_or(0));
            line.push(roman(before.replace('<', "")));
            line.push(italic(bare));
            line.push(roman(after[bare.len()..].replace('>', "")));
        } else {
            line.push(bold(word));
        }
    }
    line
}

/// Text with blank lines between paragraphs.
fn paragraphs(roff: &mut Roff, text: &str) {
    for (index, paragraph) in text.split("\n\n").enumerate() {
        if index > 0 {
            roff.control("PP", []);
        }
        roff.text([roman(paragraph.replace('\n', " "))]);
    }
}

/// OPTIONS: the arguments, then each group of flags under its heading, in the order
/// `--help` shows them.
fn options(roff: &mut Roff, command: &Command) {
    let arguments: Vec<&Arg> = command
        .get_arguments()
        .filter(|arg| !arg.is_hide_set())
        .collect();
    if arguments.is_empty() {
        return;
    }
    roff.control("SH", ["OPTIONS"]);
    let mut headings: Vec<&str> = Vec::new();
    if arguments.iter().any(|arg| arg.is_positional()) {
        headings.push("Arguments");
    }
    for arg in arguments.iter().filter(|arg| !arg.is_positional()) {
        let heading = arg.get_help_heading().unwrap_or("Options");
        if !headings.contains(&heading) {
            headings.push(heading);
        }
    }
    for heading in headings {
        roff.control("SS", [heading]);
        for arg in &arguments {
            let belongs = if arg.is_positional() {
                heading == "Arguments"
            } else {
                arg.get_help_heading().unwrap_or("Options") == heading
            };
            if belongs {
                option(roff, arg);
            }
        }
    }
}

fn option(roff: &mut Roff, arg: &Arg) {
    roff.control("TP", []);
    let value = arg
        .get_value_names()
        .and_then(|names| names.first())
        .map(|name| name.to_string())
        .unwrap_or_else(|| arg.get_id().as_str().to_uppercase());
    let takes_value = matches!(arg.get_action(), ArgAction::Set | ArgAction::Append);
    let mut head = Vec::new();
    if arg.is_positional() {
        head.push(italic(value.clone()));
        if matches!(arg.get_action(), ArgAction::Append) {
            head.push(roman("..."));
        }
    } else {
        if let Some(short) = arg.get_short() {
            head.push(bold(format!("-{short}")));
        }
        if let Some(long) = arg.get_long() {
            if !head.is_empty() {
                head.push(roman(", "));
            }
            head.push(bold(format!("--{long}")));
        }
        if takes_value {
            head.push(roman(" "));
            head.push(italic(value));
        }
    }
    roff.text(head);
    let help = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|h| h.to_string())
        .unwrap_or_default();
    let mut text = help.trim_end_matches('.').to_owned();
    if !text.is_empty() {
        text.push('.');
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|d| d.to_string_lossy().into_owned())
        .filter(|d| !d.is_empty())
        .collect();
    if takes_value && !defaults.is_empty() && !arg.is_hide_default_value_set() {
        text.push_str(&format!(" Default: {}.", defaults.join(", ")));
    }
    paragraphs(roff, &text);
    let values: Vec<_> = arg
        .get_possible_values()
        .into_iter()
        .filter(|v| !v.is_hide_set())
        .collect();
    if takes_value && !values.is_empty() && !arg.is_hide_possible_values_set() {
        roff.control("RS", []);
        for value in values {
            roff.control("TP", []);
            roff.text([bold(value.get_name())]);
            if let Some(help) = value.get_help() {
                roff.text([roman(help.to_string())]);
            }
        }
        roff.control("RE", []);
    }
}
