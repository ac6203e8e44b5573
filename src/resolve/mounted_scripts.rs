//! Scripts a container runs from a ConfigMap of the input (docs/lifecycle.md §2.8).
//!
//! `command: [/scripts/wait-to-complete.sh]` with a ConfigMap mounted at `/scripts`
//! runs the text of one of its keys. The shell reader reads that text as it reads an
//! inline `sh -c` script, so that what the script does (stop a sidecar, wait for the
//! work, start the app) counts. The ConfigMaps come from the input's context, read
//! with the Namespaces and Services before the workloads
//! ([`crate::settings::layers::gather_context`]).
//!
//! A script that runs another file of such a ConfigMap (`. /scripts/wait.sh job.sh
//! proxy`, `bash /scripts/run.sh`) has that file's text read in place of the call, its
//! positional parameters bound to the call's arguments ([`shell::file_calls`]), to a
//! bounded depth, so that a file that runs itself is read once.

use k8s_openapi::api::core::v1::{Container, PodSpec, Volume};

use super::shell::{self, is_shell};
use crate::settings::Source;
use crate::workload::ConfigMap;

/// A script file a container runs, whose text a ConfigMap of the input holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MountedScript {
    /// The file as the container sees it (`/scripts/wait-to-complete.sh`).
    pub path: String,
    /// The ConfigMap it comes from.
    pub config_map: String,
    /// Its key there.
    pub key: String,
    /// The shell that runs it: the one the command names (`sh /scripts/x.sh`), else
    /// its `#!` line's.
    pub shell: String,
    /// Whether that shell starts with errexit on: from the command's options (`bash -e
    /// /scripts/x.sh`), else from the `#!` line's (`#!/bin/sh -e`).
    pub errexit: bool,
    /// What the file holds.
    pub contents: String,
    /// The file that holds the ConfigMap.
    pub source: Source,
}

/// A container's command as the shell reader reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadableCommand {
    /// `command` then `args`, with a mounted script's text in place of its file, as
    /// `SHELL -c TEXT`.
    pub argv: Vec<String>,
    /// The script read in place of its file, when there is one.
    pub mounted: Option<MountedScript>,
    /// The files the script runs (`. FILE`, `sh FILE`) whose text is read in place of
    /// their calls, in the order they are read.
    pub sourced: Vec<MountedScript>,
}

impl ReadableCommand {
    /// Whether the command reads as the manifest writes it, no file's text read into
    /// it: only then can a fix edit what the reader read.
    pub fn as_written(&self) -> bool {
        self.mounted.is_none() && self.sourced.is_empty()
    }
}

/// How many files deep the calls of files that run files are followed.
const MAX_FILE_DEPTH: usize = 8;

/// `container`'s command as the shell reader reads it: a script file from a ConfigMap
/// volume replaced by its text. The file is found when the command runs it directly
/// (`[/scripts/x.sh]`, which needs an executable mode: a ConfigMap's files are `0644`
/// unless `defaultMode` or the item's `mode` says otherwise, and the runtime refuses to
/// run one without an execute bit), through a shell (`[sh, /scripts/x.sh]`, any mode),
/// or as the one command of `sh -c`.
pub fn readable_command(
    container: &Container,
    spec: &PodSpec,
    namespace: Option<&str>,
    config_maps: &[(ConfigMap, Source)],
) -> ReadableCommand {
    let argv = super::argv_of(container);
    let mounted = script_file(&argv).and_then(|run| {
        let (text, config_map, key, mode, source) =
            file_text(container, spec, namespace, config_maps, &run.path)?;
        // Run directly, the file needs an execute bit, and its `#!` line names its
        // interpreter: without one the runtime cannot run it, and with another
        // program's it is not shell.
        let (shell, errexit) = match run.shell {
            Some(named) => (named.to_owned(), run.errexit),
            None if mode & 0o111 == 0 => return None,
            None => {
                let shebang = shell::shebang(&text).filter(|line| is_shell(line.program))?;
                (shebang.program.to_owned(), shebang.errexit)
            }
        };
        let script = MountedScript {
            path: run.path,
            config_map,
            key,
            shell,
            errexit,
            contents: text,
            source,
        };
        Some((script, run.arguments))
    });
    let mut argv = match &mounted {
        Some((script, arguments)) => {
            let text = bound(&script.contents, Some(arguments));
            [script.shell.as_str()]
                .into_iter()
                .chain(script.errexit.then_some("-e"))
                .chain(["-c", text.as_str()])
                .map(str::to_owned)
                .collect()
        }
        None => argv,
    };
    let mounted = mounted.map(|(script, _)| script);
    let mut sourced = Vec::new();
    if let Some(at) = shell::script_index(&argv) {
        let shell_name = match shell::basename(&argv[0]) {
            "busybox" => "sh",
            name => name,
        }
        .to_owned();
        let mut chain: Vec<String> = mounted.iter().map(|m| m.path.clone()).collect();
        let files = Files {
            container,
            spec,
            namespace,
            config_maps,
        };
        if let Some(text) = files.read_in(&argv[at], &shell_name, &mut chain, &mut sourced) {
            argv[at] = text;
        }
    }
    ReadableCommand {
        argv,
        mounted,
        sourced,
    }
}

/// `text` with its positional parameters bound to `arguments`, when the call gives
/// any and the script does not change them; else as written.
fn bound(text: &str, arguments: Option<&Vec<String>>) -> String {
    arguments
        .filter(|arguments| !arguments.is_empty())
        .and_then(|arguments| shell::bind_positional(text, arguments))
        .unwrap_or_else(|| text.to_owned())
}

/// Where a container's files are looked up: its mounts, its pod's volumes and the
/// input's ConfigMaps.
struct Files<'a> {
    container: &'a Container,
    spec: &'a PodSpec,
    namespace: Option<&'a str>,
    config_maps: &'a [(ConfigMap, Source)],
}

impl Files<'_> {
    /// `script` (run by `shell`) with each call of a file the input holds replaced by
    /// the file's text: `{ … }` for `.` and `source`, which run it in the shell
    /// itself, `( … )` for a child shell, with that shell's errexit. `None` where no
    /// call is replaced. `chain` holds the files being read, which are not read again
    /// inside themselves; each file read is added to `read`.
    fn read_in(
        &self,
        script: &str,
        shell: &str,
        chain: &mut Vec<String>,
        read: &mut Vec<MountedScript>,
    ) -> Option<String> {
        if chain.len() >= MAX_FILE_DEPTH {
            return None;
        }
        let mut text = script.to_owned();
        let mut replaced = false;
        // From the last, so that the places of the earlier calls hold.
        for call in shell::file_calls(script, shell).into_iter().rev() {
            if !call.file.starts_with('/') || chain.contains(&call.file) {
                continue;
            }
            let Some((contents, config_map, key, _, source)) = file_text(
                self.container,
                self.spec,
                self.namespace,
                self.config_maps,
                &call.file,
            ) else {
                continue;
            };
            let inner_shell = call
                .child
                .as_ref()
                .map_or(shell, |child| child.shell.as_str())
                .to_owned();
            let errexit = call.child.as_ref().is_some_and(|child| child.errexit);
            let body = bound(&contents, call.arguments.as_ref());
            chain.push(call.file.clone());
            let mut inner = Vec::new();
            let body = self
                .read_in(&body, &inner_shell, chain, &mut inner)
                .unwrap_or(body);
            chain.pop();
            let block = match call.child {
                Some(_) => format!("(\nset {}e\n{body}\n)", if errexit { '-' } else { '+' }),
                None => format!("{{\n{body}\n}}"),
            };
            text.replace_range(call.span.clone(), &block);
            replaced = true;
            let script = MountedScript {
                path: call.file,
                config_map,
                key,
                shell: inner_shell,
                errexit,
                contents,
                source,
            };
            // In reading order: this file, then the files it runs.
            inner.insert(0, script);
            read.splice(0..0, inner);
        }
        replaced.then_some(text)
    }
}

/// How a command runs a script file.
#[derive(Debug, PartialEq, Eq)]
struct ScriptFile<'a> {
    /// The file.
    path: String,
    /// The shell the command names for it (`sh /scripts/x.sh`); none where the runtime
    /// executes the file itself.
    shell: Option<&'a str>,
    /// Whether that shell starts with errexit on (`bash -e /scripts/x.sh`).
    errexit: bool,
    /// The arguments after the file: its positional parameters.
    arguments: Vec<String>,
}

/// The script file `argv` runs: directly (`[/scripts/x.sh]`, or the one command of
/// `sh -c`), or as a shell's operand, after its options (`[bash, -eo, pipefail,
/// /scripts/x.sh]`).
fn script_file(argv: &[String]) -> Option<ScriptFile<'_>> {
    let direct = |path: &String, arguments: Vec<String>| ScriptFile {
        path: path.clone(),
        shell: None,
        errexit: false,
        arguments,
    };
    let first = argv.first()?;
    if first.starts_with('/') && !is_shell(first) {
        return Some(direct(first, argv[1..].to_vec()));
    }
    if let Some(script) = shell::shell_script(argv) {
        let list = shell::parse(script);
        let [command] = list.simple_commands()[..] else {
            return None;
        };
        let (file, arguments) = command.argv().split_first()?;
        let arguments = arguments.iter().map(|word| word.0.clone()).collect();
        return (list.0.len() == 1 && file.0.starts_with('/') && !is_shell(&file.0))
            .then(|| direct(&file.0, arguments));
    }
    let run = shell::script_file_run(argv)?;
    let file = &argv[run.file];
    file.starts_with('/').then(|| ScriptFile {
        path: file.clone(),
        shell: Some(run.shell),
        errexit: run.errexit,
        arguments: argv[run.file + 1..].to_vec(),
    })
}

/// The text of `file` in `container`: through the deepest of its mounts that holds the
/// file, a ConfigMap volume (or a projected volume's ConfigMap source) whose ConfigMap
/// is in the input. With the ConfigMap's name, the key, the file's mode and the source.
fn file_text(
    container: &Container,
    spec: &PodSpec,
    namespace: Option<&str>,
    config_maps: &[(ConfigMap, Source)],
    file: &str,
) -> Option<(String, String, String, i32, Source)> {
    let at = super::jobs::volume_path(container, file)?;
    let in_volume = at.path;
    let volume = spec
        .volumes
        .iter()
        .flatten()
        .find(|volume| volume.name == at.volume)?;
    sources(volume).find_map(|(name, items, mode)| {
        let (config_map, source) = config_maps
            .iter()
            .find(|(config_map, _)| config_map.is(name, namespace))?;
        let (key, mode) = match items {
            Some(items) => items.iter().find_map(|item| {
                (item.path.trim_matches('/') == in_volume)
                    .then(|| (item.key.clone(), item.mode.unwrap_or(mode)))
            })?,
            None => (in_volume.clone(), mode),
        };
        let text = config_map.data.get(&key)?.clone();
        Some((text, name.to_owned(), key, mode, source.clone()))
    })
}

/// A ConfigMap volume's ConfigMaps: its own, or a projected volume's sources, each
/// with its items and its files' mode (`0644` unless set).
fn sources(
    volume: &Volume,
) -> impl Iterator<
    Item = (
        &str,
        Option<&Vec<k8s_openapi::api::core::v1::KeyToPath>>,
        i32,
    ),
> {
    const DEFAULT_MODE: i32 = 0o644;
    let own = volume.config_map.as_ref().map(|source| {
        (
            source.name.as_str(),
            source.items.as_ref(),
            source.default_mode.unwrap_or(DEFAULT_MODE),
        )
    });
    let projected = volume.projected.iter().flat_map(|projected| {
        let mode = projected.default_mode.unwrap_or(DEFAULT_MODE);
        projected
            .sources
            .iter()
            .flatten()
            .filter_map(move |source| {
                let config_map = source.config_map.as_ref()?;
                Some((config_map.name.as_str(), config_map.items.as_ref(), mode))
            })
    });
    own.into_iter().chain(projected)
}

impl super::Builder<'_> {
    /// `container`'s command as the shell reader reads it, with the ConfigMaps of the
    /// input ([`readable_command`]).
    pub fn readable_command(&self, container: &Container) -> ReadableCommand {
        readable_command(
            container,
            &self.workload.pod_spec,
            self.workload.namespace.as_deref(),
            &self.settings.config_maps,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(argv: &[&str]) -> Vec<String> {
        argv.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn finds_the_script_file_a_command_runs() {
        let run = |shell: Option<&'static str>, errexit: bool| ScriptFile {
            path: "/scripts/run.sh".to_owned(),
            shell,
            errexit,
            arguments: Vec::new(),
        };
        let cases: [(&[&str], Option<ScriptFile>); 8] = [
            (
                &["/scripts/run.sh", "x"],
                Some(ScriptFile {
                    arguments: words(&["x"]),
                    ..run(None, false)
                }),
            ),
            (&["sh", "-c", "/scripts/run.sh"], Some(run(None, false))),
            (&["sh", "/scripts/run.sh"], Some(run(Some("sh"), false))),
            (
                &["bash", "-e", "/scripts/run.sh"],
                Some(run(Some("bash"), true)),
            ),
            (
                &["bash", "-o", "pipefail", "/scripts/run.sh"],
                Some(run(Some("bash"), false)),
            ),
            (
                &["busybox", "sh", "-eu", "/scripts/run.sh"],
                Some(run(Some("sh"), true)),
            ),
            (&["sh", "-c", "cd /x; ./run"], None),
            (&["./serve"], None),
        ];
        for (argv, expected) in cases {
            assert_eq!(script_file(&words(argv)), expected, "{argv:?}");
        }
    }

    #[test]
    fn reads_the_interpreter_of_a_shebang() {
        // The shell of the `#!` line, as `readable_command` takes it.
        fn interpreter(text: &str) -> Option<&str> {
            shell::shebang(text)
                .map(|line| line.program)
                .filter(|program| is_shell(program))
        }
        assert_eq!(interpreter("#!/bin/bash\nset -e"), Some("bash"));
        assert_eq!(interpreter("#!/usr/bin/env sh\n"), Some("sh"));
        assert_eq!(interpreter("#!/usr/bin/env -S bash -e\n"), Some("bash"));
        assert_eq!(interpreter("#!/bin/busybox sh\n"), Some("sh"));
        assert_eq!(interpreter("#!/usr/bin/python3\n"), None);
        assert_eq!(interpreter("echo hi"), None);
    }
}
