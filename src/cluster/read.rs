//! The kubectl calls of one run, in four steps:
//!
//! 1. `kubectl version`: the server's version, and whether the cluster answers at all;
//! 2. the context (`config view --minify`) and the resources served (`api-resources`);
//! 3. side by side: the namespaces, the nodes, istiod, Istio's revision tags and
//!    Linkerd's `linkerd-config`; and meanwhile the workloads in scope, kind by kind
//!    and page by page, then the pods;
//! 4. the ConfigMaps of the Istio revisions found in step 3.
//!
//! Lists are read a page at a time (`kubectl get --raw` with `limit` and `continue`,
//! as `kubectl get --chunk-size` pages them), because `kubectl get -o json` gathers
//! every page into one `List` before it prints anything: for a cluster of 400,000 pods
//! that is gigabytes held by kubectl, then by the linter. Page by page, each object is
//! kept or dropped as it arrives ([`Selection`]): what a Deployment owns is dropped at
//! once, and of its pods one per revision is kept. So memory is bounded by a page and
//! by what is linted, which is itself bounded by `--max-input-size`.

use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;

use serde_json::Value;

use super::kinds::{self, Resource, Served};
use super::kubectl::{End, Kubectl, Reply};
use super::objects::{self, ApiObject, Linted, Selection, Wanted};
use super::profile::{
    self, ISTIO_NAMESPACE, LINKERD_CONFIG, LINKERD_NAMESPACE, MeshObject, Profile,
};
use super::{
    ClusterObject, Hidden, Identity, KubectlError, ObjectSource, Request, Snapshot, Targets, Type,
};
use crate::external::Args;
use crate::workload::Kind;

/// Reads the cluster. `progress` is told what is being read; `forward` passes the first
/// call's standard error on as it comes (on a terminal, where a credential plugin may
/// ask the user something).
pub fn read(request: &Request, progress: &mut dyn FnMut(&str), forward: bool) -> Snapshot {
    let kubectl = Kubectl::new(&request.connection, request.bounds.clone());
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
    let (linted, mut profile, tags_unread) =
        reader.workloads_and_environment(&served, &targets, &namespace, &server, progress);
    progress("reading Istio's ConfigMaps");
    reader.istio_configmaps(&mut profile, &linted, tags_unread);
    reader.snapshot.profile = profile;
    let identity = reader.snapshot.identity.clone();
    reader.snapshot.objects = linted
        .into_iter()
        .map(|linted| cluster_object(linted, &identity))
        .collect();
    if reader.snapshot.objects.is_empty() && reader.snapshot.errors.is_empty() {
        let scope = if request.all_namespaces {
            "in any namespace".to_owned()
        } else {
            format!("in namespace {namespace}")
        };
        reader.hide(None, format!("no workloads found {scope}"));
    }
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
            Ok(reply) => match (reply.failure(), server_version(&reply)) {
                (None, Some(version)) => Some(version),
                (failure, _) => {
                    let shown = reply.shown && !reply.stderr.trim().is_empty();
                    let message =
                        failure.unwrap_or_else(|| "kubectl printed no server version".to_owned());
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
            // then prints what it found and exits 1. Cut short any other way, what it
            // printed may lack any kind.
            Ok(reply)
                if !reply.success()
                    && (reply.stdout.is_empty() || !matches!(reply.end, End::Exited(_))) =>
            {
                let message = reply.failure().unwrap_or_default();
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
    /// read, if they could not. The environment is read side by side with the
    /// workloads, which are listed kind by kind, owners first, then the pods.
    fn workloads_and_environment(
        &mut self,
        served: &[Served],
        targets: &Resolved,
        namespace: &str,
        server: &str,
        progress: &mut dyn FnMut(&str),
    ) -> (Vec<Linted>, Profile, Option<String>) {
        let request = self.request;
        let namespaces = if request.all_namespaces {
            args(&["get", "namespaces", "-o", "json"])
        } else {
            Args::new()
                .words(&["get", "namespace"])
                .checked(namespace)
                .words(&["-o", "json"])
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
        // The first page of every listing goes side by side with the environment's
        // reads: most lists fit in one page, so a run waits for one round of calls.
        let scope = (!request.all_namespaces).then_some(namespace);
        let mut order: Vec<(usize, &Served)> = served.iter().enumerate().collect();
        order.sort_by_key(|(rank, served)| (owner_rank(served.kind), *rank));
        let named_call = match targets {
            Resolved::Named(names) => {
                let call = names
                    .iter()
                    .fold(Args::new().word("get"), |call, (resource, name)| {
                        call.checked(&format!("{resource}/{name}"))
                    });
                Some(call.word("-n").checked(namespace).words(&["-o", "json"]))
            }
            _ => None,
        };
        let first_pages = order
            .iter()
            .map(|(_, resource)| self.page_call(resource, scope, None));
        let calls: Vec<Args> = environment_calls
            .iter()
            .cloned()
            .chain(named_call)
            .chain(first_pages)
            .collect();
        progress(&format!(
            "reading workloads and pods in {}, and the environment",
            scope_text(scope)
        ));
        let mut replies = self.kubectl.run_all(&calls).into_iter();
        let environment: Vec<_> = replies.by_ref().take(environment_calls.len()).collect();
        let named = match targets {
            Resolved::Named(_) => Some(replies.next().expect("one reply per call")),
            _ => None,
        };
        let listings: Vec<(usize, &Served, Result<Reply, String>)> = order
            .into_iter()
            .zip(replies)
            .map(|((rank, resource), reply)| (rank, resource, reply))
            .collect();
        let linted = self.workloads(targets, scope, named, listings, progress);
        let [namespaces, nodes, istiods, tags, linkerd]: [Result<Reply, String>; 5] = environment
            .try_into()
            .unwrap_or_else(|_| unreachable!("one reply per call"));
        let mut profile = Profile::default();
        let kubelets = match nodes {
            Ok(reply) if reply.success() => Some(
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
        let missing_namespace = |reply: &Result<Reply, String>| {
            !request.all_namespaces
                && reply.as_ref().is_ok_and(|reply| {
                    !reply.success()
                        && matches!(reply.end, End::Exited(_))
                        && reply.stderr.contains("(NotFound)")
                })
        };
        if missing_namespace(&namespaces) {
            // kubectl lists an empty result for a namespace that does not exist; the
            // namespace's own read says why, in kubectl's words.
            let reply = namespaces.expect("checked above");
            let message = reply.failure().unwrap_or_default();
            self.fail(&reply.command, message, false);
        } else {
            match self.objects(namespaces) {
                Ok(found) => {
                    for object in found {
                        let (name, info) = profile::namespace(&object);
                        profile.namespaces.insert(name, info);
                    }
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

    /// The objects to lint: for named objects, theirs (`named`, the reply of
    /// `kubectl get TYPE/NAME…`) and then the listing of their namespace, for their
    /// pods; else the listing alone. `listings` are the first page of each kind's
    /// listing, each kind's owners before it and the pods last; the pages after the
    /// first are read as the kind is.
    fn workloads(
        &mut self,
        targets: &Resolved,
        scope: Option<&str>,
        named: Option<Result<Reply, String>>,
        listings: Vec<(usize, &Served, Result<Reply, String>)>,
        progress: &mut dyn FnMut(&str),
    ) -> Vec<Linted> {
        let request = self.request;
        let named_uids: HashSet<String>;
        let kinds;
        let first = named.map(|reply| self.named_objects(reply));
        let wanted = match (targets, &first) {
            (Resolved::Named(_), Some(objects)) => {
                named_uids = objects.iter().filter_map(|o| o.uid.clone()).collect();
                Wanted::Named(&named_uids)
            }
            (targets, _) => {
                kinds = match targets {
                    Resolved::Kinds(kinds) => kinds.clone(),
                    _ => Vec::new(),
                };
                Wanted::Listed(&kinds)
            }
        };
        let for_named = matches!(wanted, Wanted::Named(_));
        let mut selection = Selection::new(wanted, &request.declared);
        for object in first.into_iter().flatten() {
            selection.named(object);
        }
        let (pods, workloads): (Vec<_>, Vec<_>) = listings
            .into_iter()
            .partition(|(_, served, _)| served.kind == Kind::Pod);
        let mut within_bounds = true;
        for (rank, resource, reply) in workloads {
            if within_bounds {
                within_bounds = self.list(resource, scope, for_named, reply, &mut |object| {
                    selection.workload(object, rank);
                    selection.kept_bytes()
                });
            }
        }
        selection.close_workloads();
        for (_, resource, reply) in pods {
            if within_bounds {
                progress(&format!("reading the pods in {}", scope_text(scope)));
                within_bounds = self.list(resource, scope, for_named, reply, &mut |object| {
                    selection.pod(object);
                    selection.kept_bytes()
                });
            }
        }
        selection.finish()
    }

    /// The objects `kubectl get TYPE/NAME…` printed, and what it could not get.
    fn named_objects(&mut self, reply: Result<Reply, String>) -> Vec<ApiObject> {
        let reply = match reply {
            Ok(reply) => reply,
            Err(message) => {
                self.fail("kubectl", message, false);
                return Vec::new();
            }
        };
        if let Some(failure) = reply.failure() {
            self.fail(&reply.command, failure, false);
            if !matches!(reply.end, End::Exited(_)) {
                return Vec::new();
            }
        }
        objects::parse_list(&reply.stdout).unwrap_or_else(|message| {
            self.fail(&reply.command, message, false);
            Vec::new()
        })
    }

    /// The call that reads one page of `resource` in `namespace` (every namespace with
    /// `None`), from `token` on: the query kubectl's own paging sends, keys in order.
    fn page_call(&self, resource: &Served, namespace: Option<&str>, token: Option<&str>) -> Args {
        let mut query = Vec::new();
        if let Some(token) = token {
            query.push(format!("continue={}", kinds::percent_encode(token)));
        }
        if let Some(selector) = &self.request.selector {
            query.push(format!("labelSelector={}", kinds::percent_encode(selector)));
        }
        if let Some(size) = self.request.chunk_size.filter(|size| *size > 0) {
            query.push(format!("limit={size}"));
        }
        let path = resource.list_path(namespace);
        let target = if query.is_empty() {
            path
        } else {
            format!("{path}?{}", query.join("&"))
        };
        Args::new().words(&["get", "--raw"]).checked(&target)
    }

    /// Lists `resource` in `namespace` (every namespace with `None`) page by page from
    /// the reply to the first page, handing each object to `offer`, which says how
    /// many bytes the run now holds to lint. `false` when that passed the input limit:
    /// the listing stops there, with an error. A custom resource the user may not
    /// list (RBAC grants Kubernetes' kinds more often than a controller's) is left out
    /// with a note that workloads may hide there; any other failure is an input error
    /// in kubectl's words, or a note when the listing only brings the pods of named
    /// objects.
    fn list(
        &mut self,
        resource: &Served,
        namespace: Option<&str>,
        for_named: bool,
        first: Result<Reply, String>,
        offer: &mut dyn FnMut(ApiObject) -> u64,
    ) -> bool {
        let mut reply = first;
        let mut token: Option<String> = None;
        loop {
            let reply_now = match reply {
                Ok(reply) => reply,
                Err(message) => {
                    self.fail("kubectl", message, false);
                    return true;
                }
            };
            if let Some(failure) = reply_now.failure() {
                let forbidden = resource.kind.is_custom()
                    && matches!(reply_now.end, End::Exited(_))
                    && reply_now.stderr.contains("(Forbidden)");
                if forbidden {
                    self.hide(Some(&reply_now.command), format!(
                        "cannot list {}.{} ({}): no {} is linted, and what one owns is linted under its own name",
                        resource.plural,
                        resource.group,
                        first_lines(&reply_now.stderr),
                        resource.kind
                    ));
                } else if for_named {
                    self.note(format!(
                        "cannot read {} for the pods of what was named ({}): only the workloads themselves are linted",
                        resource.plural,
                        first_lines(&failure)
                    ));
                } else {
                    self.fail(&reply_now.command, failure, false);
                }
                return true;
            }
            let page = match objects::parse_page(&reply_now.stdout) {
                Ok(page) => page,
                Err(message) => {
                    self.fail(&reply_now.command, message, false);
                    return true;
                }
            };
            let limit = self.kubectl.bounds().max_output;
            for object in page.objects {
                if offer(object) > limit {
                    self.snapshot.errors.push(KubectlError {
                        command: reply_now.command.clone(),
                        message: format!(
                            "the objects to lint read from the cluster take more than {} (--max-input-size raises the limit; -n, -l or TYPE read less): the rest is not read",
                            crate::load::size(limit)
                        ),
                        shown: false,
                        limit: true,
                    });
                    return false;
                }
            }
            match page.next {
                Some(next) if token.as_ref() == Some(&next) => {
                    self.fail(
                        &reply_now.command,
                        "the API server gave the same continue token twice: the list would never end"
                            .to_owned(),
                        false,
                    );
                    return true;
                }
                Some(next) => {
                    reply = self
                        .kubectl
                        .run_one(&self.page_call(resource, namespace, Some(&next)));
                    token = Some(next);
                }
                None => return true,
            }
        }
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
        selected.extend(
            linted
                .iter()
                .filter_map(|linted| linted.istio_revision.clone()),
        );
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
        let call = revisions
            .iter()
            .flat_map(|revision| profile::configmap_names(revision))
            .fold(Args::new().words(&["get", "configmaps"]), |call, name| {
                call.checked(&name)
            })
            .words(&["-n", ISTIO_NAMESPACE, "--ignore-not-found", "-o", "json"]);
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
    fn batch<const N: usize>(&self, calls: [Args; N]) -> [Result<Reply, String>; N] {
        self.kubectl
            .run_all(&calls)
            .try_into()
            .unwrap_or_else(|_| unreachable!("one reply per call"))
    }

    /// The objects of a call that reads the environment, or why there are none.
    fn objects(&self, reply: Result<Reply, String>) -> Result<Vec<ApiObject>, String> {
        let reply = reply?;
        if let Some(failure) = reply.failure() {
            return Err(first_lines(&failure));
        }
        objects::parse_list(&reply.stdout)
    }

    fn fail(&mut self, command: &str, message: String, shown: bool) {
        self.snapshot.errors.push(KubectlError {
            command: command.to_owned(),
            message,
            shown,
            limit: false,
        });
    }

    fn note(&mut self, note: String) {
        self.snapshot.notes.push(note);
    }

    /// A note that workloads may have gone unlinted, about `subject` (a call), or
    /// the whole read.
    fn hide(&mut self, subject: Option<&str>, message: String) {
        self.snapshot.hidden.push(Hidden {
            subject: subject.map(str::to_owned),
            message,
        });
    }
}

/// A call made of the tool's own words alone.
fn args(words: &[&'static str]) -> Args {
    Args::new().words(words)
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
        Ok(reply) => first_lines(&reply.failure().unwrap_or_default()),
        Err(message) => message,
    }
}

/// `namespace shop`, or `all namespaces`.
fn scope_text(namespace: Option<&str>) -> String {
    match namespace {
        Some(namespace) => format!("namespace {namespace}"),
        None => "all namespaces".to_owned(),
    }
}

/// Where a kind is listed: after every kind whose objects may own its objects, so
/// that an owned object is known as such when it arrives (a Knative Service owns a
/// Configuration, which owns Revisions, which own Deployments, which own ReplicaSets;
/// a CronJob or a ScaledJob owns Jobs). Declared kinds come first: an operator's
/// resource owns Kubernetes' objects, not the other way round. Pods come last.
fn owner_rank(kind: Kind) -> u8 {
    match kind {
        Kind::Declared(_) => 0,
        Kind::KnativeService => 1,
        Kind::KnativeConfiguration => 2,
        Kind::KnativeRevision => 3,
        Kind::CronWorkflow => 4,
        Kind::Workflow | Kind::WorkflowTemplate | Kind::ClusterWorkflowTemplate => 5,
        Kind::Rollout | Kind::CronJob | Kind::ScaledJob => 6,
        Kind::Deployment
        | Kind::CloneSet
        | Kind::KruiseStatefulSet
        | Kind::KruiseDaemonSet
        | Kind::BroadcastJob => 7,
        Kind::StatefulSet | Kind::DaemonSet | Kind::ReplicationController => 8,
        Kind::ReplicaSet | Kind::Job => 9,
        Kind::Pod => 10,
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
        name: Arc::from(linted.name),
        text: linted.text,
        source: ObjectSource {
            cluster: identity.cluster.clone(),
            context: identity.context.clone(),
            namespace: linted.namespace,
            kind: linted.kind,
            name: linted.object_name,
        },
        owner: linted.owner,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(stdout: &str) -> Reply {
        Reply::printed(End::Exited(0), stdout.as_bytes().to_vec(), "")
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
