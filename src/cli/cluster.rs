//! `--cluster`: the flags kubectl users know, what they ask for, and what a run reads.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Arg, Args, ValueHint};

use super::PLUGIN_NAME;
use crate::cluster::kinds::{RESOURCES, Resource};
use crate::cluster::kubectl::{self, Bounds, Connection, Timeout};
use crate::cluster::{self, KubectlError, Request, Snapshot, Targets, Type};
use crate::escape;
use crate::load::{Input, InputError};
use crate::workload::DeclaredKind;

/// Reading what is deployed instead of files, with kubectl's flags.
#[derive(Debug, Args)]
#[command(next_help_heading = "Live cluster")]
// Each flag that tunes the read names the one helper that makes it so.
#[allow(clippy::duplicated_attributes)]
#[command(mut_arg("request_timeout", tunes_the_read))]
#[command(mut_arg("cluster_timeout", tunes_the_read))]
#[command(mut_arg("chunk_size", tunes_the_read))]
pub struct ClusterArgs {
    /// Lint what is deployed: the workloads, their running pods and the environment
    /// (versions, namespaces, mesh config), read with kubectl from the current context.
    /// Arguments are then TYPE or TYPE/NAME (deploy/web), not paths.
    #[arg(long, conflicts_with_all = ["stdin_filename", "exclude", "no_ignore", "no_render"])]
    pub cluster: bool,

    /// The namespace to read (default: the context's, else `default`).
    #[arg(
        short = 'n',
        long,
        value_name = "NAMESPACE",
        conflicts_with = "all_namespaces"
    )]
    pub namespace: Option<String>,

    /// Read every namespace.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,

    /// Only objects whose labels match (`app=web,tier!=db`), as kubectl selects them.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,

    /// The kubeconfig context to use.
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,

    /// The kubeconfig file to use.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub kubeconfig: Option<PathBuf>,

    /// The user to impersonate (kubectl --as).
    #[arg(long = "as", value_name = "USER")]
    pub as_user: Option<String>,

    /// A group to impersonate (kubectl --as-group; repeatable).
    #[arg(long = "as-group", value_name = "GROUP")]
    pub as_group: Vec<String>,

    /// How long each request to the API server may take (kubectl's own flag, passed
    /// through): 30s, 2m, or 0 for no limit. A kubectl call still running at twice
    /// this is stopped.
    #[arg(long, value_name = "DURATION", default_value = kubectl::DEFAULT_REQUEST_TIMEOUT)]
    #[arg(value_parser = |text: &str| Timeout::parse("--request-timeout", text))]
    pub request_timeout: Timeout,

    /// How long the whole read of the cluster may take (0: no limit); then every
    /// kubectl call still running is stopped, and the run exits 2.
    #[arg(long, value_name = "DURATION", default_value = kubectl::DEFAULT_CLUSTER_TIMEOUT)]
    #[arg(value_parser = |text: &str| Timeout::parse("--cluster-timeout", text))]
    pub cluster_timeout: Timeout,

    /// Objects per page when listing (kubectl's own flag; 0 reads each list in one
    /// request): memory holds a page, not the cluster.
    #[arg(long, value_name = "N", default_value_t = 500)]
    pub chunk_size: u64,
}

/// A flag that tunes how the cluster is read (its time and page size): it means nothing
/// without --cluster, and the short help (-h) leaves it out.
fn tunes_the_read(arg: Arg) -> Arg {
    arg.requires("cluster").hide_short_help(true)
}

/// Reads the cluster `request` names. On a terminal, a line on standard error
/// (`width` columns wide) says what is being read, and is cleared when it is done.
pub fn read(request: &Request, width: usize) -> Snapshot {
    let terminal = std::io::stderr().is_terminal();
    let mut progress = Progress {
        terminal,
        width,
        shown: false,
    };
    let snapshot = cluster::read(request, &mut |what| progress.show(what), terminal);
    progress.clear();
    snapshot
}

/// The objects of `snapshot` as the loader's inputs, each held in memory under the name
/// reports give it; their texts move into the inputs, which read them once.
pub fn take_inputs(snapshot: &mut Snapshot) -> Vec<Input> {
    snapshot
        .objects
        .iter_mut()
        .map(|object| Input::Memory {
            name: object.name.clone(),
            bytes: Arc::from(std::mem::take(&mut object.text).into_bytes()),
        })
        .collect()
}

/// The kubectl calls that failed, as input errors of the run.
pub fn input_errors(snapshot: &Snapshot) -> Vec<InputError> {
    snapshot
        .errors
        .iter()
        .map(|error| InputError::whole(error.command.as_str(), error.message.as_str()))
        .collect()
}

/// What standard error says of a kubectl call that failed: kubectl's own words (unless
/// the user saw them already, as kubectl printed them), then which call it was.
pub fn describe_failure(error: &KubectlError, snapshot: &Snapshot) -> String {
    let mut text = String::new();
    if !error.shown {
        text.push_str(&escape::controls(&error.message));
        text.push('\n');
    }
    let command = escape::controls(&error.command);
    text.push_str(&if error.limit {
        format!("error: the cluster read stopped at `{command}`; what was read before is linted\n")
    } else {
        format!(
            "error: `{command}` failed{}\n",
            if snapshot.objects.is_empty() {
                "; nothing was linted"
            } else {
                "; the objects it did print are linted"
            }
        )
    });
    text
}

/// What may have left workloads unlinted, as notes of the run: a kind that could not
/// be listed, named by its call, or a scope without workloads, named by the context.
pub fn hidden(snapshot: &Snapshot) -> Vec<InputError> {
    let context = snapshot
        .identity
        .context
        .as_deref()
        .unwrap_or("the current context");
    snapshot
        .hidden
        .iter()
        .map(|hidden| {
            InputError::whole(
                hidden.subject.as_deref().unwrap_or(context),
                hidden.message.as_str(),
            )
        })
        .collect()
}

impl ClusterArgs {
    /// What a run asks of the cluster, `arguments` being kubectl's `TYPE[,TYPE…]
    /// [NAME…]` or `TYPE/NAME…`; `None` without `--cluster`. `Err` is a usage error.
    /// `declared` are the kinds of `workloadKinds`, whose names the server knows.
    /// `max_output` is the most one call may print (`--max-input-size`).
    pub fn request(
        &self,
        command: &str,
        arguments: &[String],
        declared: &[&'static DeclaredKind],
        max_output: u64,
    ) -> Result<Option<Request>, String> {
        if !self.cluster {
            return match self.without_cluster() {
                Some(flag) => Err(format!(
                    "`{flag}` chooses what --cluster reads from a live cluster, and --cluster is not given: add it to lint what is deployed ({PLUGIN_NAME} {command} --cluster {flag}), or leave `{flag}` out to lint files, whose namespace is the one their manifests give"
                )),
                None => Ok(None),
            };
        }
        let targets = targets(arguments, !declared.is_empty())?;
        if let Targets::Named(_) = targets {
            if self.all_namespaces {
                // kubectl's own words for `kubectl get deploy/web -A`.
                return Err("a resource cannot be retrieved by name across all namespaces".into());
            }
            if self.selector.is_some() {
                return Err("name cannot be provided when a selector is specified".into());
            }
        }
        Ok(Some(Request {
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
            declared: declared.to_vec(),
            bounds: Bounds {
                request_timeout: self.request_timeout.clone(),
                total: self.cluster_timeout.clone(),
                started: std::time::Instant::now(),
                max_output,
            },
            chunk_size: Some(self.chunk_size),
        }))
    }
}

impl ClusterArgs {
    /// The first flag given that only `--cluster` reads, as the user wrote it (`-n
    /// shop`): clap's own message for a missing `--cluster` would not say why.
    fn without_cluster(&self) -> Option<String> {
        if let Some(namespace) = &self.namespace {
            return Some(format!("-n {namespace}"));
        }
        if self.all_namespaces {
            return Some("-A".to_owned());
        }
        if let Some(selector) = &self.selector {
            return Some(format!("-l {selector}"));
        }
        let named = [
            ("--context", self.context.is_some()),
            ("--kubeconfig", self.kubeconfig.is_some()),
            ("--as", self.as_user.is_some()),
            ("--as-group", !self.as_group.is_empty()),
        ];
        named
            .into_iter()
            .find(|(_, given)| *given)
            .map(|(flag, _)| flag.to_owned())
    }
}

/// Reads the arguments of `--cluster` as kubectl reads `kubectl get`'s; with
/// `declared` kinds, a TYPE that is no built-in kind's is left for the server's
/// discovery to name.
fn targets(arguments: &[String], declared: bool) -> Result<Targets, String> {
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
                Ok((resource(kind, argument, declared)?, name.to_owned()))
            })
            .collect::<Result<_, _>>()?;
        return Ok(Targets::Named(named));
    }
    let kinds = first
        .split(',')
        .map(|kind| resource(kind, first, declared))
        .collect::<Result<Vec<_>, _>>()?;
    if names.is_empty() {
        return Ok(Targets::Kinds(kinds));
    }
    Ok(Targets::Named(
        kinds
            .iter()
            .flat_map(|kind| names.iter().map(|name| (kind.clone(), name.clone())))
            .collect(),
    ))
}

/// The kind of a TYPE, or why `argument` names nothing to lint.
fn resource(kind: &str, argument: &str, declared: bool) -> Result<Type, String> {
    if let Some(resource) = Resource::parse(kind) {
        return Ok(Type::Kind(resource.kind));
    }
    if declared {
        return Ok(Type::Served(kind.to_owned()));
    }
    Err({
        let known: Vec<String> = RESOURCES.iter().map(Resource::type_name).collect();
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
    width: usize,
    shown: bool,
}

impl Progress {
    fn show(&mut self, what: &str) {
        if !self.terminal {
            return;
        }
        // One column short of the width, so that the cursor never wraps.
        let line: String = format!("{PLUGIN_NAME}: {what}…")
            .chars()
            .take(self.width.max(20) - 1)
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

    fn read_with(arguments: &[&str], declared: bool) -> Result<Targets, String> {
        targets(
            &arguments
                .iter()
                .map(|a| (*a).to_owned())
                .collect::<Vec<_>>(),
            declared,
        )
    }

    fn read(arguments: &[&str]) -> Result<Targets, String> {
        read_with(arguments, false)
    }

    #[test]
    fn kubectls_forms_of_arguments() {
        assert_eq!(read(&[]), Ok(Targets::All));
        assert_eq!(
            read(&["deploy,jobs"]),
            Ok(Targets::Kinds(vec![
                Type::Kind(Kind::Deployment),
                Type::Kind(Kind::Job)
            ]))
        );
        assert_eq!(
            read(&["deploy", "web", "api"]),
            Ok(Targets::Named(vec![
                (Type::Kind(Kind::Deployment), "web".into()),
                (Type::Kind(Kind::Deployment), "api".into())
            ]))
        );
        assert_eq!(
            read(&["deployment.apps/web", "job/export"]),
            Ok(Targets::Named(vec![
                (Type::Kind(Kind::Deployment), "web".into()),
                (Type::Kind(Kind::Job), "export".into())
            ]))
        );
    }

    #[test]
    fn custom_kinds_by_their_crds_names_and_declared_ones_by_the_servers() {
        assert_eq!(
            read(&["ro/web", "ksvc/hello"]),
            Ok(Targets::Named(vec![
                (Type::Kind(Kind::Rollout), "web".into()),
                (Type::Kind(Kind::KnativeService), "hello".into())
            ]))
        );
        // Only discovery knows a declared kind's plural and short names.
        assert_eq!(
            read_with(&["wa/portal"], true),
            Ok(Targets::Named(vec![(
                Type::Served("wa".into()),
                "portal".into()
            )]))
        );
        assert!(read(&["wa/portal"]).is_err());
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
