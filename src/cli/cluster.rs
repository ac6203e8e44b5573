//! `--cluster`: the flags kubectl users know, what they ask for, and what a run reads.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, ValueHint};

use super::{InputArgs, PLUGIN_NAME};
use crate::cluster::kinds::{RESOURCES, Resource};
use crate::cluster::kubectl::Connection;
use crate::cluster::{self, Request, Snapshot, Targets};
use crate::load::{Input, InputError, discover};
use crate::pipeline::Inputs;

/// Reading what is deployed instead of files, with kubectl's flags.
#[derive(Debug, Args, Default)]
#[command(next_help_heading = "Cluster")]
pub struct ClusterArgs {
    /// Lint what is deployed: the workloads, their running pods and the environment
    /// (versions, namespaces, mesh config), read with kubectl from the current context.
    /// Arguments are then TYPE or TYPE/NAME (deploy/web), not paths.
    #[arg(long)]
    pub cluster: bool,

    /// The namespace to read (default: the context's, else `default`).
    #[arg(
        short = 'n',
        long,
        value_name = "NAMESPACE",
        requires = "cluster",
        conflicts_with = "all_namespaces"
    )]
    pub namespace: Option<String>,

    /// Read every namespace.
    #[arg(short = 'A', long, requires = "cluster")]
    pub all_namespaces: bool,

    /// Only objects whose labels match (`app=web,tier!=db`), as kubectl selects them.
    #[arg(short = 'l', long, value_name = "SELECTOR", requires = "cluster")]
    pub selector: Option<String>,

    /// The kubeconfig context to use.
    #[arg(long, value_name = "NAME", requires = "cluster")]
    pub context: Option<String>,

    /// The kubeconfig file to use.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, requires = "cluster")]
    pub kubeconfig: Option<PathBuf>,

    /// The user to impersonate (kubectl --as).
    #[arg(long = "as", value_name = "USER", requires = "cluster")]
    pub as_user: Option<String>,

    /// A group to impersonate (kubectl --as-group; repeatable).
    #[arg(long = "as-group", value_name = "GROUP", requires = "cluster")]
    pub as_group: Vec<String>,
}

/// What a run reads: files and standard input, or a cluster's objects.
pub struct RunInputs {
    /// The inputs for the pipeline.
    pub inputs: Inputs,
    /// Paths that could not be used, or the kubectl calls that failed.
    pub errors: Vec<InputError>,
    /// What was read from the cluster, with `--cluster`.
    pub cluster: Option<Snapshot>,
}

impl RunInputs {
    /// Discovers the files of `input`, or reads the cluster `cluster` names; a usage
    /// error is the message to print.
    pub fn read(input: &InputArgs, cluster: &ClusterArgs) -> Result<RunInputs, String> {
        if !cluster.cluster {
            let (inputs, errors) = discover(&input.paths);
            return Ok(RunInputs {
                inputs: Inputs::new(inputs),
                errors,
                cluster: None,
            });
        }
        let request = cluster.request(&input.paths)?;
        let terminal = std::io::stderr().is_terminal();
        let mut progress = Progress::new(terminal);
        let snapshot = cluster::read(&request, &mut |what| progress.show(what), terminal);
        progress.clear();
        let inputs = snapshot
            .objects
            .iter()
            .map(|object| Input::Memory {
                name: object.name.clone(),
                bytes: Arc::from(object.text.as_bytes()),
            })
            .collect();
        let errors = snapshot
            .errors
            .iter()
            .map(|error| InputError::whole(error.command.as_str(), error.message.as_str()))
            .collect();
        Ok(RunInputs {
            inputs: Inputs::new(inputs),
            errors,
            cluster: Some(snapshot),
        })
    }

    /// The profile the cluster states, with `--cluster`.
    pub fn cluster_profile(&self) -> Option<&cluster::profile::Profile> {
        self.cluster.as_ref().map(|snapshot| &snapshot.profile)
    }

    /// Prints the input errors on standard error: a path's as a diagnostic, kubectl's
    /// verbatim (unless the user saw it already, as kubectl printed it).
    pub fn print_errors(&self, style: crate::report::human::Style) {
        let Some(snapshot) = &self.cluster else {
            for error in &self.errors {
                eprint!("{}", crate::report::human::render_input_error(error, style));
            }
            return;
        };
        for error in &snapshot.errors {
            if !error.shown {
                eprintln!("{}", error.message);
            }
            eprintln!(
                "error: `{}` failed{}",
                error.command,
                if snapshot.objects.is_empty() {
                    "; nothing was linted"
                } else {
                    "; the objects it did print are linted"
                }
            );
        }
    }

    /// The notes of the cluster read: what could not be read, and what is assumed.
    pub fn notes(&self) -> Vec<String> {
        let Some(snapshot) = &self.cluster else {
            return Vec::new();
        };
        let mut notes = snapshot.notes.clone();
        if snapshot.objects.is_empty() && snapshot.errors.is_empty() {
            notes.push("no workloads found".to_owned());
        }
        notes
    }
}

impl ClusterArgs {
    /// The request for `arguments`: kubectl's `TYPE[,TYPE…] [NAME…]` or `TYPE/NAME…`.
    fn request(&self, arguments: &[String]) -> Result<Request, String> {
        let targets = targets(arguments)?;
        if let Targets::Named(_) = targets {
            if self.all_namespaces {
                // kubectl's own words for `kubectl get deploy/web -A`.
                return Err("a resource cannot be retrieved by name across all namespaces".into());
            }
            if self.selector.is_some() {
                return Err("name cannot be provided when a selector is specified".into());
            }
        }
        Ok(Request {
            connection: Connection {
                context: self.context.clone(),
                kubeconfig: self.kubeconfig.clone(),
                user: self.as_user.clone(),
                groups: self.as_group.clone(),
            },
            namespace: self.namespace.clone(),
            all_namespaces: self.all_namespaces,
            selector: self.selector.clone(),
            targets,
        })
    }
}

/// Reads the arguments of `--cluster` as kubectl reads `kubectl get`'s.
fn targets(arguments: &[String]) -> Result<Targets, String> {
    let Some((first, names)) = arguments.split_first() else {
        return Ok(Targets::All);
    };
    if arguments.iter().any(|argument| argument.contains('/')) {
        let named = arguments
            .iter()
            .map(|argument| {
                let (kind, name) = argument
                    .split_once('/')
                    .ok_or_else(|| not_an_object(argument, "use TYPE/NAME for every argument"))?;
                if name.is_empty() || name.contains('/') {
                    return Err(not_an_object(argument, "it is not TYPE/NAME"));
                }
                Ok((resource(kind, argument)?.kind, name.to_owned()))
            })
            .collect::<Result<_, _>>()?;
        return Ok(Targets::Named(named));
    }
    let kinds = first
        .split(',')
        .map(|kind| resource(kind, first).map(|resource| resource.kind))
        .collect::<Result<Vec<_>, _>>()?;
    if names.is_empty() {
        return Ok(Targets::Kinds(kinds));
    }
    Ok(Targets::Named(
        kinds
            .iter()
            .flat_map(|kind| names.iter().map(|name| (*kind, name.clone())))
            .collect(),
    ))
}

/// The row of a TYPE, or why `argument` names nothing to lint.
fn resource(kind: &str, argument: &str) -> Result<&'static Resource, String> {
    Resource::parse(kind).ok_or_else(|| {
        let known: Vec<&str> = RESOURCES.iter().map(|r| r.plural).collect();
        not_an_object(
            argument,
            &format!(
                "`{kind}` is not a workload type {PLUGIN_NAME} reads ({})",
                known.join(", ")
            ),
        )
    })
}

fn not_an_object(argument: &str, why: &str) -> String {
    let path = argument == "-" || std::path::Path::new(argument).exists();
    if path {
        format!(
            "`{argument}` is a path, and paths and --cluster do not mix: --cluster reads the objects named TYPE/NAME (deploy/web); drop --cluster to lint files"
        )
    } else {
        format!("`{argument}`: {why}; with --cluster, arguments are TYPE or TYPE/NAME (deploy/web)")
    }
}

/// The line on standard error that says what is being read, on a terminal only.
struct Progress {
    terminal: bool,
    shown: bool,
}

impl Progress {
    fn new(terminal: bool) -> Self {
        Progress {
            terminal,
            shown: false,
        }
    }

    fn show(&mut self, what: &str) {
        if !self.terminal {
            return;
        }
        let width = super::output::terminal_width().unwrap_or(80).max(20) - 1;
        let line: String = format!("{PLUGIN_NAME}: {what}…")
            .chars()
            .take(width)
            .collect();
        let mut stderr = std::io::stderr().lock();
        let _ = write!(stderr, "\r\x1b[2K{line}");
        let _ = stderr.flush();
        self.shown = true;
    }

    fn clear(&mut self) {
        if self.shown {
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "\r\x1b[2K");
            let _ = stderr.flush();
            self.shown = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Kind;

    fn read(arguments: &[&str]) -> Result<Targets, String> {
        targets(
            &arguments
                .iter()
                .map(|a| (*a).to_owned())
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn kubectls_forms_of_arguments() {
        assert_eq!(read(&[]), Ok(Targets::All));
        assert_eq!(
            read(&["deploy,jobs"]),
            Ok(Targets::Kinds(vec![Kind::Deployment, Kind::Job]))
        );
        assert_eq!(
            read(&["deploy", "web", "api"]),
            Ok(Targets::Named(vec![
                (Kind::Deployment, "web".into()),
                (Kind::Deployment, "api".into())
            ]))
        );
        assert_eq!(
            read(&["deployment.apps/web", "job/export"]),
            Ok(Targets::Named(vec![
                (Kind::Deployment, "web".into()),
                (Kind::Job, "export".into())
            ]))
        );
    }

    #[test]
    fn what_is_not_an_object_is_a_usage_error() {
        let error = read(&["svc/web"]).unwrap_err();
        assert!(error.contains("`svc` is not a workload type"), "{error}");
        let error = read(&["deploy/web", "job"]).unwrap_err();
        assert!(error.contains("TYPE/NAME"), "{error}");
        let error = read(&["deploy/a/b"]).unwrap_err();
        assert!(error.contains("not TYPE/NAME"), "{error}");
        let error = read(&["-"]).unwrap_err();
        assert!(error.contains("paths and --cluster do not mix"), "{error}");
        let error = read(&["Cargo.toml"]).unwrap_err();
        assert!(error.contains("paths and --cluster do not mix"), "{error}");
    }
}
