//! Dynamic completion in Cobra's `__complete` protocol, which is how kubectl completes
//! a plugin's arguments.
//!
//! kubectl (1.26+) completes `kubectl mesh-lifecycle …` by running an executable named
//! `kubectl_complete-mesh_lifecycle` from `PATH` with the words after the plugin name;
//! the last word is the one being completed (empty for a new word). That executable
//! (`src/bin/kubectl_complete-mesh_lifecycle.rs`) runs `kubectl-mesh_lifecycle
//! __complete WORDS…`, answered here: one candidate per line, a tab and a description
//! after it, then a last line `:<directive>` with Cobra's `ShellCompDirective` bits.
//! `__completeNoDesc` answers without descriptions.
//!
//! The answer is computed from the clap command itself, so new subcommands, flags and
//! values complete without changes here: the values are an argument's possible values
//! (value enums, and the rule ids and names, presets and kinds of [`super::values`]).
//! In a comma-separated list (`--select ML101,ML2`) the last item is completed and the
//! items already listed are not offered again. The shell scripts of
//! [`super::completions`] ask the same questions, so every shell completes alike.

use std::io::{self, Write};

use clap::{Arg, ArgAction, Command, CommandFactory, ValueHint};

use super::Cli;
use crate::rules;

/// The hidden first argument that asks for completions.
pub const COMPLETE: &str = "__complete";
/// The same, without descriptions.
pub const COMPLETE_NO_DESC: &str = "__completeNoDesc";

/// Cobra's `ShellCompDirective` bits.
pub mod directive {
    /// Let the shell complete file names.
    pub const DEFAULT: u32 = 0;
    /// No trailing space after the candidate.
    pub const NO_SPACE: u32 = 2;
    /// Do not fall back to file names.
    pub const NO_FILE_COMP: u32 = 4;
    /// The candidates are file extensions to complete file names with.
    pub const FILTER_FILE_EXT: u32 = 8;
    /// Keep the candidates in the given order.
    pub const KEEP_ORDER: u32 = 32;
}

/// What to offer for the word being completed.
#[derive(Debug, PartialEq, Eq)]
pub struct Completion {
    /// Candidates with their descriptions.
    pub candidates: Vec<(String, String)>,
    /// The protocol's directive bits (`ShellCompDirective`): 4 is no file completion.
    pub directive: u32,
}

/// Answers `__complete WORDS…` on standard output.
pub fn run(words: &[String], descriptions: bool) -> io::Result<u8> {
    let completion = complete(&Cli::command(), words);
    let mut out = io::stdout().lock();
    for (value, description) in &completion.candidates {
        let description = description.trim();
        if descriptions && !description.is_empty() {
            writeln!(out, "{value}\t{description}")?;
        } else {
            writeln!(out, "{value}")?;
        }
    }
    writeln!(out, ":{}", completion.directive)?;
    out.flush()?;
    Ok(0)
}

/// The completions for the last of `words`, the words after the program name.
pub fn complete(command: &Command, words: &[String]) -> Completion {
    let mut command = command.clone();
    command.build();
    let (partial, before) = match words.split_last() {
        Some((last, before)) => (last.as_str(), before),
        None => ("", &[][..]),
    };
    let mut current = &command;
    let mut pending: Option<&Arg> = None;
    let mut positionals = 0;
    let mut only_positionals = false;
    // With `--cluster` the arguments are kubectl's TYPE or TYPE/NAME, not paths.
    let mut reads_cluster = false;
    for word in before {
        if pending.take().is_some() {
            continue;
        }
        if !only_positionals && word == "--" {
            only_positionals = true;
        } else if !only_positionals && word.starts_with("--") {
            let (name, inline) = match word[2..].split_once('=') {
                Some((name, _)) => (name, true),
                None => (&word[2..], false),
            };
            reads_cluster |= name == "cluster";
            pending = long(current, name).filter(|arg| takes_value(arg) && !inline);
        } else if !only_positionals && word.starts_with('-') && word.len() > 1 {
            // A cluster of short flags; the first that takes a value takes the rest.
            for (at, short) in word.char_indices().skip(1) {
                let Some(arg) = current
                    .get_arguments()
                    .find(|a| a.get_short() == Some(short))
                else {
                    break;
                };
                if takes_value(arg) {
                    if at + short.len_utf8() == word.len() {
                        pending = Some(arg);
                    }
                    break;
                }
            }
        } else if let Some(sub) = (positionals == 0 && !only_positionals)
            .then(|| subcommand(current, word))
            .flatten()
        {
            current = sub;
        } else {
            positionals += 1;
        }
    }

    if let Some(arg) = pending {
        return values(arg, partial, "");
    }
    if !only_positionals
        && let Some(rest) = partial.strip_prefix("--")
        && let Some((name, value)) = rest.split_once('=')
    {
        return match long(current, name).filter(|arg| takes_value(arg)) {
            Some(arg) => values(arg, value, &format!("--{name}=")),
            None => nothing(),
        };
    }
    if !only_positionals && partial.starts_with('-') {
        return flags(current, partial);
    }
    if positionals == 0 && !only_positionals && current.has_subcommands() {
        let candidates = current
            .get_subcommands()
            .filter(|sub| !sub.is_hide_set())
            .map(|sub| (sub.get_name().to_owned(), about(sub)))
            .filter(|(name, _)| name.starts_with(partial))
            .collect();
        return Completion {
            candidates,
            directive: directive::NO_FILE_COMP,
        };
    }
    let positional = current
        .get_positionals()
        .filter(|arg| !arg.is_hide_set())
        .nth(positionals)
        .or_else(|| {
            // The last positional may take any number of values.
            current
                .get_positionals()
                .last()
                .filter(|arg| matches!(arg.get_action(), ArgAction::Append))
        });
    match positional {
        Some(_) if reads_cluster => workload_types(partial, positionals),
        Some(arg) => values(arg, partial, ""),
        None => nothing(),
    }
}

/// The TYPEs `--cluster` reads, as the first argument; the names of objects are the
/// cluster's, which completing does not ask it for.
fn workload_types(partial: &str, positionals: usize) -> Completion {
    if positionals > 0 || partial.contains('/') {
        return nothing();
    }
    let candidates = crate::cluster::kinds::RESOURCES
        .iter()
        .map(|resource| (resource.type_name(), resource))
        .filter(|(name, _)| name.starts_with(partial))
        .map(|(name, resource)| (name, resource.kind.as_str().to_owned()))
        .collect();
    Completion {
        candidates,
        directive: directive::NO_FILE_COMP,
    }
}

fn nothing() -> Completion {
    Completion {
        candidates: Vec::new(),
        directive: directive::NO_FILE_COMP,
    }
}

fn long<'a>(command: &'a Command, name: &str) -> Option<&'a Arg> {
    command.get_arguments().find(|arg| {
        arg.get_long() == Some(name)
            || arg
                .get_all_aliases()
                .is_some_and(|aliases| aliases.contains(&name))
    })
}

fn subcommand<'a>(command: &'a Command, name: &str) -> Option<&'a Command> {
    command
        .get_subcommands()
        .find(|sub| sub.get_name() == name || sub.get_all_aliases().any(|alias| alias == name))
}

fn takes_value(arg: &Arg) -> bool {
    arg.get_num_args().is_some_and(|n| n.takes_values())
        && matches!(arg.get_action(), ArgAction::Set | ArgAction::Append)
}

fn about(command: &Command) -> String {
    command
        .get_about()
        .map(|about| first_line(&about.to_string()))
        .unwrap_or_default()
}

fn help(arg: &Arg) -> String {
    arg.get_help()
        .map(|help| first_line(&help.to_string()))
        .unwrap_or_default()
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().trim().to_owned()
}

/// The flags of `command` that start with `partial`: long ones, and short ones too
/// when only `-` is typed.
fn flags(command: &Command, partial: &str) -> Completion {
    let mut candidates = Vec::new();
    for arg in command.get_arguments().filter(|arg| !arg.is_hide_set()) {
        if let Some(name) = arg.get_long() {
            candidates.push((format!("--{name}"), help(arg)));
        }
        if partial == "-"
            && let Some(short) = arg.get_short()
        {
            candidates.push((format!("-{short}"), help(arg)));
        }
    }
    candidates.retain(|(flag, _)| flag.starts_with(partial));
    Completion {
        candidates,
        directive: directive::NO_FILE_COMP,
    }
}

/// The values `arg` takes that start with `partial`, each written after `prefix`.
fn values(arg: &Arg, partial: &str, prefix: &str) -> Completion {
    // In a comma-separated list, complete the last item.
    let (done, partial) = match arg.get_value_delimiter() {
        Some(delimiter) => match partial.rfind(delimiter) {
            Some(at) => partial.split_at(at + delimiter.len_utf8()),
            None => ("", partial),
        },
        None => ("", partial),
    };
    let prefix = format!("{prefix}{done}");
    // The items already in the list are not offered again; for rules, neither by id
    // nor by name.
    let listed: Vec<&str> = done.split(',').filter(|item| !item.is_empty()).collect();
    let repeated = |value: &str| {
        listed.iter().any(|item| {
            *item == value
                || rules::find(item).is_some_and(|rule| {
                    rules::find(value).is_some_and(|other| rule.meta().id == other.meta().id)
                })
        })
    };
    let known: Vec<(String, String)> = arg
        .get_possible_values()
        .iter()
        .filter(|value| !value.is_hide_set() && !repeated(value.get_name()))
        .map(|value| {
            (
                value.get_name().to_owned(),
                value
                    .get_help()
                    .map(|h| first_line(&h.to_string()))
                    .unwrap_or_default(),
            )
        })
        .collect();
    if !known.is_empty() {
        let candidates = known
            .into_iter()
            .filter(|(value, _)| value.starts_with(partial))
            .map(|(value, description)| (format!("{prefix}{value}"), description))
            .collect();
        return Completion {
            candidates,
            directive: directive::NO_FILE_COMP | directive::KEEP_ORDER,
        };
    }
    match arg.get_value_hint() {
        // Manifests: let the shell complete YAML and JSON files (and directories).
        ValueHint::AnyPath if arg.is_positional() => Completion {
            candidates: ["yaml", "yml", "json"]
                .map(|ext| (ext.to_owned(), String::new()))
                .into(),
            directive: directive::FILTER_FILE_EXT,
        },
        ValueHint::AnyPath | ValueHint::FilePath | ValueHint::DirPath if prefix.is_empty() => {
            Completion {
                candidates: Vec::new(),
                directive: directive::DEFAULT,
            }
        }
        _ => nothing(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn complete_line(line: &str) -> Completion {
        let mut words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        if line.ends_with(' ') || line.is_empty() {
            words.push(String::new());
        }
        complete(&Cli::command(), &words)
    }

    fn values_of(completion: &Completion) -> Vec<&str> {
        completion
            .candidates
            .iter()
            .map(|(value, _)| value.as_str())
            .collect()
    }

    #[test]
    fn subcommands_with_their_descriptions() {
        let completion = complete_line("");
        let names = values_of(&completion);
        for name in ["lint", "explain", "rules", "lsp", "completions"] {
            assert!(names.contains(&name), "{names:?}");
        }
        assert_eq!(completion.directive, directive::NO_FILE_COMP);
        let (_, about) = &completion.candidates[0];
        assert!(about.starts_with("Lint manifests"), "{about}");
        assert_eq!(values_of(&complete_line("li")), ["lint"]);
        assert_eq!(values_of(&complete_line("r")), ["rules"]);
    }

    #[test]
    fn flags_and_their_values() {
        let flags = complete_line("lint --f");
        assert_eq!(
            values_of(&flags),
            [
                "--filename",
                "--feature-gates",
                "--fail-on",
                "--fix",
                "--fix-only"
            ]
        );
        // The format under each of its names: kubectl's, ruff's and the old one.
        for flag in ["--output", "--output-format", "--format"] {
            let formats = complete_line(&format!("lint {flag} "));
            assert_eq!(
                values_of(&formats),
                ["human", "table", "json", "sarif", "junit", "github", "html"]
            );
        }
        assert_eq!(values_of(&complete_line("lint -o s")), ["sarif"]);
        assert_eq!(
            values_of(&complete_line("lint --format=j")),
            ["--format=json", "--format=junit"]
        );
        assert_eq!(
            values_of(&complete_line("lint --fail-on ")),
            ["error", "warning", "info", "never"]
        );
        let dash = complete_line("lint -");
        let shorts = values_of(&dash);
        assert!(
            shorts.contains(&"-f") && shorts.contains(&"--quiet"),
            "{shorts:?}"
        );
    }

    #[test]
    fn rules_by_id_and_name() {
        let rules = complete_line("rules ");
        let values = values_of(&rules);
        for rule in rules::RULES {
            assert!(values.contains(&rule.meta().id));
            assert!(values.contains(&rule.meta().name));
        }
        let ml2: Vec<&str> = rules::RULES
            .iter()
            .map(|r| r.meta().id)
            .filter(|id| id.starts_with("ML2"))
            .collect();
        assert_eq!(values_of(&complete_line("rules ML2")), ml2);
        let after_comma: Vec<String> = ml2.iter().map(|id| format!("ML101,{id}")).collect();
        assert_eq!(
            values_of(&complete_line("lint --select ML101,ML2")),
            after_comma
        );
        assert_eq!(
            values_of(&complete_line("lint --ignore grace")),
            ["grace-period-exceeded"]
        );
    }

    #[test]
    fn a_list_does_not_offer_what_it_holds() {
        let values = values_of(&complete_line("lint --select ML101,ML201,"))
            .into_iter()
            .map(str::to_owned)
            .collect::<Vec<_>>();
        assert!(
            values.iter().all(|v| v.starts_with("ML101,ML201,")),
            "{values:?}"
        );
        let items: Vec<&str> = values.iter().map(|v| &v["ML101,ML201,".len()..]).collect();
        assert!(items.contains(&"ML102") && items.contains(&"proxy-gate-ineffective"));
        for held in [
            "ML101",
            "ML201",
            "app-starts-before-proxy",
            "grace-period-exceeded",
        ] {
            assert!(!items.contains(&held), "{held} offered again: {items:?}");
        }
        // A name counts for its id too.
        let after_name = complete_line("lint --ignore=grace-period-exceeded,ML20");
        let items: Vec<&str> = values_of(&after_name)
            .into_iter()
            .map(|v| v.trim_start_matches("--ignore=grace-period-exceeded,"))
            .collect();
        assert!(
            items.contains(&"ML202") && !items.contains(&"ML201"),
            "{items:?}"
        );
    }

    #[test]
    fn presets_kinds_and_colours() {
        assert_eq!(values_of(&complete_line("lint --preset ")), ["alibaba-asm"]);
        let kinds = complete_line("explain --kind ");
        assert_eq!(values_of(&kinds)[..3], ["Pod", "Deployment", "StatefulSet"]);
        assert_eq!(
            kinds.directive,
            directive::NO_FILE_COMP | directive::KEEP_ORDER
        );
        assert_eq!(values_of(&complete_line("explain --kind J")), ["Job"]);
        assert_eq!(
            values_of(&complete_line("rules --color ")),
            ["auto", "always", "never"]
        );
        assert_eq!(
            values_of(&complete_line("explain --format ")),
            ["text", "json", "svg", "html"]
        );
    }

    #[test]
    fn paths_complete_as_manifest_files() {
        let paths = complete_line("lint --format json ");
        assert_eq!(paths.directive, directive::FILTER_FILE_EXT);
        assert_eq!(values_of(&paths), ["yaml", "yml", "json"]);
        assert_eq!(
            complete_line("lint deploy/ ").directive,
            directive::FILTER_FILE_EXT
        );
        let output = complete_line("lint --output-file ");
        assert_eq!(
            output,
            Completion {
                candidates: vec![],
                directive: directive::DEFAULT
            }
        );
        assert_eq!(
            complete_line("explain -- --weird").directive,
            directive::FILTER_FILE_EXT
        );
    }

    #[test]
    fn cluster_arguments_complete_as_workload_types() {
        let types = complete_line("lint --cluster -n shop ");
        assert_eq!(types.directive, directive::NO_FILE_COMP);
        let values = values_of(&types);
        assert_eq!(values.len(), crate::cluster::kinds::RESOURCES.len());
        assert!(values.contains(&"deployments") && values.contains(&"cronjobs"));
        assert_eq!(
            values_of(&complete_line("explain --cluster st")),
            ["statefulsets", "statefulsets.apps.kruise.io"]
        );
        assert_eq!(
            values_of(&complete_line("lint --cluster se")),
            ["services.serving.knative.dev"]
        );
        // Object names are the cluster's: no file names instead.
        assert_eq!(complete_line("lint --cluster deploy/").candidates, vec![]);
        assert_eq!(
            complete_line("lint --cluster deploy ").directive,
            directive::NO_FILE_COMP
        );
        // The flags take what kubectl's take; the kubeconfig is a file.
        assert_eq!(
            complete_line("lint --cluster --kubeconfig ").directive,
            directive::DEFAULT
        );
    }

    #[test]
    fn shells_for_completions() {
        let shells = values_of(&complete_line("completions "))
            .into_iter()
            .map(str::to_owned)
            .collect::<Vec<_>>();
        for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
            assert!(shells.iter().any(|s| s == shell), "{shells:?}");
        }
        assert_eq!(complete_line("completions bash ").candidates, vec![]);
    }
}
