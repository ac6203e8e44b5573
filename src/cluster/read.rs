//! The kubectl calls of one run, in four steps, each a fixed number of calls whatever
//! the cluster holds:
//!
//! 1. `kubectl version`: the server's version, and whether the cluster answers at all;
//! 2. the context (`config view --minify`) and the resources served (`api-resources`);
//! 3. side by side: the workloads and pods in scope, the namespaces, the nodes, istiod,
//!    Istio's revision tags and Linkerd's `linkerd-config`;
//! 4. the ConfigMaps of the Istio revisions found in step 3.

use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;

use serde_json::Value;

use super::kinds::{self, Resource, Served};
use super::kubectl::{Kubectl, Reply};
use super::objects::{self, ApiObject, Linted, Wanted};
use super::profile::{
    self, ISTIO_NAMESPACE, LINKERD_CONFIG, LINKERD_NAMESPACE, MeshObject, Profile,
};
use super::{
    ClusterObject, Identity, KubectlError, ObjectSource, Request, Snapshot, Targets, Type,
};
use crate::workload::Kind;

/// Reads the cluster. `progress` is told what is being read; `forward` passes the first
/// call's standard error on as it comes (on a terminal, where a credential plugin may
/// ask the user something).
pub fn read(request: &Request, progress: &mut dyn FnMut(&str), forward: bool) -> Snapshot {
    let kubectl = Kubectl::new(&request.connection);
    let mut reader = Reader {
        kubectl,
        request,
        snapshot: Snapshot::default(),
    };
    progress("connecting (kubectl version)");
    let Some(server) = reader.server_version(forward) else {
        return reader.snapshot;
    };
    progress("reading the context and the API's resources");
    let Some((served, namespace)) = reader.context_and_resources() else {
        return reader.snapshot;
    };
    reader.snapshot.namespace = Some(namespace.clone());
    let Some(targets) = reader.resolve(&served) else {
        return reader.snapshot;
    };
    let scope = if request.all_namespaces {
        "all namespaces".to_owned()
    } else {
        format!("namespace {namespace}")
    };
    progress(&format!(
        "reading workloads and pods in {scope}, and the environment"
    ));
    let (linted, mut profile, tags_unread) =
        reader.workloads_and_environment(&served, &targets, &namespace, &server);
    progress("reading Istio's ConfigMaps");
    reader.istio_configmaps(&mut profile, &linted, tags_unread);
    reader.snapshot.profile = profile;
    let identity = reader.snapshot.identity.clone();
    reader.snapshot.objects = linted
        .into_iter()
        .map(|linted| cluster_object(linted, &identity))
        .collect();
    reader.snapshot
}

struct Reader<'a> {
    kubectl: Kubectl,
    request: &'a Request,
    snapshot: Snapshot,
}

impl Reader<'_> {
    /// Step 1; `None` when the cluster cannot be reached, in kubectl's words.
    fn server_version(&mut self, forward: bool) -> Option<String> {
        let call = args(&["version", "-o", "json"]);
        match self.kubectl.run_first(&call, forward) {
            Err(message) => {
                self.fail("kubectl version -o json", message, false);
                None
            }
            Ok(reply) => match server_version(&reply) {
                Some(version) if reply.success => Some(version),
                _ => {
                    let shown = reply.shown && !reply.stderr.trim().is_empty();
                    let message = match reply.stderr.trim_end() {
                        "" => "kubectl printed no server version".to_owned(),
                        stderr => stderr.to_owned(),
                    };
                    self.fail(&reply.command, message, shown);
                    None
                }
            },
        }
    }

    /// Step 2: the resources served of those the linter reads (the built-in kinds and
    /// the declared ones), and the namespace to read (`-n`, else the context's, else
    /// `default`).
    fn context_and_resources(&mut self) -> Option<(Vec<Served>, String)> {
        let [context, resources] = self.batch([
            args(&["config", "view", "--minify", "-o", "json"]),
            args(&["api-resources", "--no-headers"]),
        ]);
        let (identity, context_namespace) = context.ok().map(identity).unwrap_or_default();
        self.snapshot.identity = identity;
        let served = match resources {
            Err(message) => {
                self.fail("kubectl api-resources --no-headers", message, false);
                return None;
            }
            // Discovery of one aggregated API can fail while the rest answers: kubectl
            // then prints what it found and exits 1.
            Ok(reply) if reply.stdout.is_empty() && !reply.success => {
                let message = reply.stderr.trim_end().to_owned();
                self.fail(&reply.command, message, false);
                return None;
            }
            Ok(reply) => kinds::served(
                &String::from_utf8_lossy(&reply.stdout),
                &self.request.declared,
            ),
        };
        let namespace = self
            .request
            .namespace
            .clone()
            .or(context_namespace)
            .unwrap_or_else(|| "default".to_owned());
        Some((served, namespace))
    }

    /// The command line's TYPEs as the server names them: a built-in kind by its
    /// qualified name (a kind the server does not serve is left for kubectl to say
    /// so), a declared kind's name among the resources served. `None` when a TYPE
    /// names none, said as an error.
    fn resolve(&mut self, served: &[Served]) -> Option<Resolved> {
        let mut unknown = Vec::new();
        let mut resolve = |wanted: &Type| -> Option<(Kind, String)> {
            let found = match wanted {
                Type::Kind(kind) => served
                    .iter()
                    .find(|served| served.kind == *kind)
                    .map(|served| (*kind, served.qualified()))
                    .or_else(|| Resource::of(*kind).map(|row| (*kind, row.qualified()))),
                Type::Served(text) => served
                    .iter()
                    .find(|served| served.kind.is_declared() && served.is_named(text))
                    .map(|served| (served.kind, served.qualified())),
            };
            if found.is_none()
                && let Type::Served(text) = wanted
            {
                unknown.push(text.clone());
            }
            found
        };
        let resolved = match &self.request.targets {
            Targets::All => Resolved::All,
            Targets::Kinds(types) => Resolved::Kinds(
                types
                    .iter()
                    .filter_map(|wanted| Some(resolve(wanted)?.0))
                    .collect(),
            ),
            Targets::Named(names) => Resolved::Named(
                names
                    .iter()
                    .filter_map(|(wanted, name)| Some((resolve(wanted)?.1, name.clone())))
                    .collect(),
            ),
        };
        if unknown.is_empty() {
            return Some(resolved);
        }
        let mut known: Vec<String> = kinds::RESOURCES.iter().map(Resource::type_name).collect();
        known.extend(
            served
                .iter()
                .filter(|served| served.kind.is_declared())
                .map(|served| served.plural.clone()),
        );
        for text in unknown {
            self.fail(
                "kubectl api-resources --no-headers",
                format!(
                    "`{text}` is not a workload type {} reads, nor a resource the server serves for a kind of `workloadKinds` ({})",
                    crate::PLUGIN_NAME,
                    known.join(", ")
                ),
                false,
            );
        }
        None
    }

    /// Step 3: what to lint, the profile so far, and why the revision tags could not be
    /// read, if they could not.
    fn workloads_and_environment(
        &mut self,
        served: &[Served],
        targets: &Resolved,
        namespace: &str,
        server: &str,
    ) -> (Vec<Linted>, Profile, Option<String>) {
        let request = self.request;
        let listed: Vec<String> = served.iter().map(Served::qualified).collect();
        let mut workload_calls = Vec::new();
        if let Resolved::Named(names) = targets {
            let mut call = args(&["get"]);
            call.extend(
                names
                    .iter()
                    .map(|(resource, name)| format!("{resource}/{name}")),
            );
            call.extend(args(&["-n", namespace, "-o", "json"]));
            workload_calls.push(call);
        }
        let mut listing = args(&["get", &listed.join(",")]);
        if request.all_namespaces {
            listing.push("--all-namespaces".to_owned());
        } else {
            listing.extend(args(&["-n", namespace]));
        }
        if let Some(selector) = &request.selector {
            listing.extend(args(&["-l", selector]));
        }
        listing.extend(args(&["-o", "json"]));
        workload_calls.push(listing);
        let namespaces = if request.all_namespaces {
            args(&["get", "namespaces", "-o", "json"])
        } else {
            args(&["get", "namespace", namespace, "-o", "json"])
        };
        let environment_calls = [
            namespaces,
            args(&[
                "get",
                "nodes",
                "-o",
                r#"jsonpath={range .items[*]}{.status.nodeInfo.kubeletVersion}{"\n"}{end}"#,
            ]),
            args(&[
                "get",
                "deployments.apps",
                "-n",
                ISTIO_NAMESPACE,
                "-l",
                "app=istiod",
                "-o",
                "json",
            ]),
            args(&[
                "get",
                "mutatingwebhookconfigurations.admissionregistration.k8s.io",
                "-l",
                "istio.io/tag",
                "-o",
                "json",
            ]),
            args(&[
                "get",
                "configmap",
                LINKERD_CONFIG,
                "-n",
                LINKERD_NAMESPACE,
                "--ignore-not-found",
                "-o",
                "json",
            ]),
        ];
        let calls: Vec<Vec<String>> = workload_calls
            .iter()
            .chain(&environment_calls)
            .cloned()
            .collect();
        let mut replies = self.kubectl.run_all(&calls).into_iter();
        let workloads: Vec<_> = replies.by_ref().take(workload_calls.len()).collect();
        let [namespaces, nodes, istiods, tags, linkerd]: [Result<Reply, String>; 5] = replies
            .collect::<Vec<_>>()
            .try_into()
            .unwrap_or_else(|_| unreachable!("one reply per call"));
        let linted = self.workloads(workloads, targets, served);
        let mut profile = Profile::default();
        let kubelets = match nodes {
            Ok(reply) if reply.success => Some(
                String::from_utf8_lossy(&reply.stdout)
                    .lines()
                    .map(str::trim)
                    .filter(|line| !line.is_empty())
                    .map(str::to_owned)
                    .collect::<Vec<_>>(),
            ),
            other => {
                self.note(format!(
                    "cannot read the nodes ({}): their kubelets are taken to run the server's Kubernetes {server}",
                    why(other)
                ));
                None
            }
        };
        profile.kubernetes = profile::kubernetes(server, kubelets.as_deref());
        profile.nodes = profile::nodes(kubelets.as_deref());
        match self.objects(namespaces) {
            Ok(found) => {
                for object in found {
                    let (name, info) = profile::namespace(&object);
                    profile.namespaces.insert(name, info);
                }
            }
            Err(reason) if !request.all_namespaces && reason.contains("(NotFound)") => {
                self.note(format!("namespace {namespace} does not exist"));
            }
            Err(reason) => {
                let (which, whose) = if request.all_namespaces {
                    ("the namespaces".to_owned(), "their")
                } else {
                    (format!("namespace {namespace}"), "its")
                };
                self.note(format!(
                    "cannot read {which} ({reason}): {whose} labels are unknown, so a pod that asks for injection is taken to get it"
                ));
            }
        }
        match self.objects(istiods) {
            Ok(found) => profile.revisions.extend(found.iter().map(profile::istiod)),
            Err(reason) => self.note(format!(
                "cannot read istiod (Deployments in {ISTIO_NAMESPACE}: {reason}): Istio's version is taken from its ConfigMaps, if they say it"
            )),
        }
        let tags_unread = match self.objects(tags) {
            Ok(found) => {
                profile.tags.extend(found.iter().filter_map(profile::tag));
                None
            }
            Err(reason) => Some(reason),
        };
        match self.objects(linkerd) {
            Ok(found) => {
                let identity = &self.snapshot.identity;
                profile.linkerd = found
                    .first()
                    .and_then(|object| MeshObject::new(object, identity));
            }
            Err(reason) => self.note(format!(
                "cannot read ConfigMap {LINKERD_NAMESPACE}/{LINKERD_CONFIG} ({reason}): Linkerd's upstream defaults are assumed"
            )),
        }
        (linted, profile, tags_unread)
    }

    /// The objects to lint, from the replies of the workload calls: for named objects,
    /// theirs and then the listing of their namespace, else the listing alone.
    fn workloads(
        &mut self,
        mut replies: Vec<Result<Reply, String>>,
        targets: &Resolved,
        served: &[Served],
    ) -> Vec<Linted> {
        let mut found = Vec::new();
        let named: HashSet<String>;
        let kinds;
        let wanted = match targets {
            Resolved::Named(_) => {
                // What kubectl cannot get of the named objects is an input error.
                let objects = self.listing(replies.remove(0), &[], false);
                named = objects.iter().filter_map(|o| o.uid.clone()).collect();
                found.extend(objects);
                // Without the listing, the named objects are still linted.
                found.extend(self.listing(replies.remove(0), served, true));
                Wanted::Named(&named)
            }
            targets => {
                kinds = match targets {
                    Resolved::Kinds(kinds) => kinds.clone(),
                    _ => Vec::new(),
                };
                found.extend(self.listing(replies.remove(0), served, false));
                Wanted::Listed(&kinds)
            }
        };
        let mut seen = HashSet::new();
        found.retain(|object| {
            object
                .uid
                .as_ref()
                .is_none_or(|uid| seen.insert(uid.clone()))
        });
        objects::select(found, &wanted, &self.request.declared)
    }

    /// The objects of a workload call, and what it printed before failing. A custom
    /// resource of `served` the user may not list (RBAC grants Kubernetes' kinds more
    /// often than a controller's) is left out with a note, as kubectl lists the rest;
    /// any other failure is an input error in kubectl's words, or a note where the
    /// listing only brings the pods of `named` objects.
    fn listing(
        &mut self,
        reply: Result<Reply, String>,
        served: &[Served],
        named: bool,
    ) -> Vec<ApiObject> {
        let reply = match reply {
            Ok(reply) => reply,
            Err(message) => {
                self.fail("kubectl", message, false);
                return Vec::new();
            }
        };
        if !reply.success {
            let mut other = Vec::new();
            for line in reply.stderr.lines() {
                match forbidden_custom(line, served) {
                    Some(resource) => self.note(format!(
                        "cannot list {}.{} ({}): no {} is linted, and what one owns is linted under its own name",
                        resource.plural,
                        resource.group,
                        line.trim(),
                        resource.kind
                    )),
                    None if line.trim().is_empty() => {}
                    None => other.push(line),
                }
            }
            if !other.is_empty() {
                let message = other.join("\n");
                if named {
                    self.note(format!(
                        "cannot read the pods of what was named ({}): only the workloads themselves are linted",
                        first_lines(&message)
                    ));
                } else {
                    self.fail(&reply.command, message, false);
                }
            }
        }
        objects::parse_list(&reply.stdout).unwrap_or_else(|message| {
            self.fail(&reply.command, message, false);
            Vec::new()
        })
    }

    /// Step 4: the ConfigMaps of every revision istiod runs, tags name, or namespaces
    /// and pods select.
    fn istio_configmaps(
        &mut self,
        profile: &mut Profile,
        linted: &[Linted],
        tags_unread: Option<String>,
    ) {
        let mut selected: BTreeSet<String> = profile
            .namespaces
            .values()
            .filter_map(|ns| ns.labels.get("istio.io/rev").cloned())
            .collect();
        selected.extend(linted.iter().filter_map(|linted| {
            let label = if linted.object.kind == "Pod" {
                "/metadata/labels/istio.io~1rev"
            } else {
                "/spec/template/metadata/labels/istio.io~1rev"
            };
            Some(linted.object.json.pointer(label)?.as_str()?.to_owned())
        }));
        if let Some(reason) = tags_unread {
            let unknown: Vec<&str> = selected
                .iter()
                .filter(|name| !profile.revisions.contains_key(*name))
                .map(String::as_str)
                .collect();
            if !unknown.is_empty() {
                self.note(format!(
                    "cannot read Istio's revision tags ({reason}): `istio.io/rev` {} taken as revision names",
                    unknown.join(", ")
                ));
            }
        }
        let mut revisions: BTreeSet<String> = profile.revisions.keys().cloned().collect();
        revisions.extend(
            selected
                .into_iter()
                .filter(|name| !profile.tags.contains_key(name)),
        );
        revisions.extend(profile.tags.values().cloned());
        revisions.insert(profile::DEFAULT_REVISION.to_owned());
        let mut call = args(&["get", "configmaps"]);
        call.extend(
            revisions
                .iter()
                .flat_map(|revision| profile::configmap_names(revision)),
        );
        call.extend(args(&[
            "-n",
            ISTIO_NAMESPACE,
            "--ignore-not-found",
            "-o",
            "json",
        ]));
        let [reply] = self.batch([call]);
        let found = match self.objects(reply) {
            Ok(found) => found,
            Err(reason) => {
                self.note(format!(
                    "cannot read Istio's ConfigMaps in {ISTIO_NAMESPACE} ({reason}): Istio's upstream mesh defaults are assumed"
                ));
                return;
            }
        };
        for object in &found {
            let (Some(revision), Some(configmap)) = (
                profile::configmap_revision(&object.name),
                MeshObject::new(object, &self.snapshot.identity),
            ) else {
                continue;
            };
            profile
                .revisions
                .entry(revision.to_owned())
                .or_default()
                .configmaps
                .push(configmap);
        }
        let missing: Vec<(String, String)> = profile
            .revisions
            .keys()
            .map(|revision| {
                (
                    revision.clone(),
                    profile::configmap_names(revision)[0].clone(),
                )
            })
            .filter(|(_, mesh)| !found.iter().any(|object| &object.name == mesh))
            .collect();
        for (revision, mesh) in missing {
            self.note(format!(
                "ConfigMap {ISTIO_NAMESPACE}/{mesh} not found: Istio's upstream mesh defaults are assumed for revision {revision}"
            ));
        }
        if profile.default_revision().is_none() && profile.revisions.len() > 1 {
            let names: Vec<&str> = profile.revisions.keys().map(String::as_str).collect();
            self.note(format!(
                "Istio revisions {} run and none is the default: a pod that names none is taken to get Istio's upstream defaults",
                names.join(", ")
            ));
        }
    }

    /// Runs a fixed number of independent calls side by side.
    fn batch<const N: usize>(&self, calls: [Vec<String>; N]) -> [Result<Reply, String>; N] {
        self.kubectl
            .run_all(&calls)
            .try_into()
            .unwrap_or_else(|_| unreachable!("one reply per call"))
    }

    /// The objects of a call that reads the environment, or why there are none.
    fn objects(&self, reply: Result<Reply, String>) -> Result<Vec<ApiObject>, String> {
        let reply = reply?;
        if !reply.success {
            return Err(first_lines(&reply.stderr));
        }
        objects::parse_list(&reply.stdout)
    }

    fn fail(&mut self, command: &str, message: String, shown: bool) {
        self.snapshot.errors.push(KubectlError {
            command: command.to_owned(),
            message,
            shown,
        });
    }

    fn note(&mut self, note: String) {
        self.snapshot.notes.push(note);
    }
}

fn args(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}

/// `serverVersion.gitVersion` of `kubectl version -o json`.
fn server_version(reply: &Reply) -> Option<String> {
    let value: Value = serde_json::from_slice(&reply.stdout).ok()?;
    value
        .pointer("/serverVersion/gitVersion")?
        .as_str()
        .map(str::to_owned)
}

/// The cluster and context of `kubectl config view --minify`, and the context's namespace.
fn identity(reply: Reply) -> (Identity, Option<String>) {
    let Ok(value) = serde_json::from_slice::<Value>(&reply.stdout) else {
        return Default::default();
    };
    let text = |pointer: &str| {
        value
            .pointer(pointer)
            .and_then(Value::as_str)
            .filter(|text| !text.is_empty())
            .map(str::to_owned)
    };
    (
        Identity {
            cluster: text("/contexts/0/context/cluster"),
            context: text("/current-context"),
        },
        text("/contexts/0/context/namespace"),
    )
}

/// The custom resource a line of kubectl's standard error says the user may not list
/// (`Error from server (Forbidden): rollouts.argoproj.io is forbidden: …`).
fn forbidden_custom<'a>(line: &str, served: &'a [Served]) -> Option<&'a Served> {
    let resource = line
        .trim()
        .strip_prefix("Error from server (Forbidden): ")?
        .split_once(" is forbidden: ")?
        .0;
    served.iter().find(|served| {
        served.kind.is_custom() && format!("{}.{}", served.plural, served.group) == resource
    })
}

/// The TYPEs of the command line, resolved against what the server serves.
enum Resolved {
    /// Every workload.
    All,
    /// The workloads of these kinds.
    Kinds(Vec<Kind>),
    /// These objects: the TYPE to give kubectl, and the name.
    Named(Vec<(String, String)>),
}

/// Why an environment read failed, in kubectl's words.
fn why(reply: Result<Reply, String>) -> String {
    match reply {
        Ok(reply) => first_lines(&reply.stderr),
        Err(message) => message,
    }
}

/// kubectl's error lines, joined into one.
fn first_lines(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect();
    if lines.is_empty() {
        "kubectl failed without saying why".to_owned()
    } else {
        lines.join("; ")
    }
}

/// A linted object as the loader's input.
fn cluster_object(linted: Linted, identity: &Identity) -> ClusterObject {
    ClusterObject {
        name: Arc::from(objects::display_name(&linted.object)),
        text: objects::json_text(&linted.object),
        source: ObjectSource::of(&linted.object, identity),
        owner: linted.owner,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(stdout: &str) -> Reply {
        Reply {
            command: "kubectl".into(),
            success: true,
            stdout: stdout.as_bytes().to_vec(),
            stderr: String::new(),
            shown: false,
        }
    }

    #[test]
    fn the_context_names_cluster_and_namespace() {
        let (found, namespace) = identity(reply(
            r#"{"contexts": [{"name": "prod", "context": {"cluster": "eu-1", "namespace": "shop"}}], "current-context": "prod"}"#,
        ));
        assert_eq!(found.cluster.as_deref(), Some("eu-1"));
        assert_eq!(found.context.as_deref(), Some("prod"));
        assert_eq!(namespace.as_deref(), Some("shop"));
        assert_eq!(identity(reply("not json")).1, None);
    }

    #[test]
    fn kubectls_errors_are_joined_into_one_line() {
        assert_eq!(
            first_lines("Error from server (Forbidden): a\n\nError from server (Forbidden): b\n"),
            "Error from server (Forbidden): a; Error from server (Forbidden): b"
        );
        assert_eq!(first_lines(""), "kubectl failed without saying why");
    }
}
