//! Argo Workflows: every container or script template of a workflow runs as a pod of
//! its own, which runs to completion (argoproj/argo-workflows v4.1.2,
//! `workflow/controller/workflowpod.go`, `createWorkflowPod`): the template's container
//! is the `main` container, its `sidecars` and `initContainers` join it, and the pod's
//! labels and annotations are the workflow's `podMetadata` with the template's
//! `metadata` over them. The controller adds its executor in the default layout (v3.x
//! and v4.x; v4.1's init-less layout is an opt-in beta): the `init` init container
//! first, which copies `argoexec` into the `/var/run/argo` volume and stages inputs,
//! and the `wait` container first among `containers`, which saves the outputs once
//! `main` has exited; every container but `wait` mounts that volume and runs under
//! `argoexec emissary`, which is its PID 1 and signals the user's process group.
//!
//! The controller stops the sidecars itself: once every main container has exited
//! (`podHasContainerNeedingTermination`, `workflow/controller/operator.go`) it queues
//! `terminateContainers`, which signals every running container with SIGTERM and, after
//! the pod's grace period, SIGKILL (`signalContainers`,
//! `workflow/controller/pod/queue.go`). The signal is sent by exec'ing `kill -15 1`
//! through `/bin/sh` in the container, or `argoexec kill` where Argo's volume is
//! mounted, or the command of the `workflows.argoproj.io/kill-cmd-<container>`
//! annotation (`killCommand`, `workflow/signal/signal.go`). A template's own sidecar
//! is also stopped by its emissary, which SIGKILLs its process group after the grace
//! period (`cmd/argoexec/commands/emissary.go`, v3.6.11, v3.7.1 and v4.0.0 on).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, EmptyDirVolumeSource, PodSpec, Volume, VolumeMount};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::{At, ControllerStop, Kind, Objects, Paths, Rejected, Workload, name_of, push};
use crate::load::{Document, JsonPath, Node, Value};

/// How Argo stops a step's sidecars, for messages.
pub const SIDECAR_STOP: &str = "Argo Workflows signals every container still running once `main` has exited (`argoexec kill 15 1` exec'd in it, `/bin/sh -c 'kill -15 1'` in an injected one; SIGKILL after the grace period reaches only the template's own sidecars)";

/// Who execs a kill command in a step's running containers once `main` has exited:
/// the workflow controller (`terminateContainers`, `workflow/controller/pod/queue.go`,
/// v3.4.0 on; before, the `wait` container's `KillSidecars` signalled the template's
/// own sidecars first, removed by argo-workflows#8475).
pub const CONTROLLER: &str = "Argo's controller";
/// Who stops a template's own sidecar once `main` has exited, whatever the controller's
/// exec does: the `argoexec emissary` that is its PID 1 (`cmd/argoexec/commands/emissary.go`,
/// v3.6.11, v3.7.1, v4.0.0 on).
pub const EMISSARY: &str = "Argo's emissary";

/// The name Argo gives a template's container (`common.MainContainerName`).
pub const MAIN: &str = "main";
/// Argo's init container (`common.InitContainerName`).
pub const INIT: &str = "init";
/// Argo's container that saves the outputs (`common.WaitContainerName`).
pub const WAIT: &str = "wait";
/// The executor's image, as the controller's `--executor-image` defaults to it.
const EXECUTOR_IMAGE: &str = "quay.io/argoproj/argoexec";
/// The volume `argoexec` is copied into, and where every container but `wait` mounts it
/// (`common.VarRunArgoPath`).
const VAR_RUN_ARGO: (&str, &str) = ("var-run-argo", "/var/run/argo");

/// The workloads of a workflow: one per container or script template of the workflow
/// spec at `spec` (relative to the object).
pub(super) fn workloads(
    document: &Document,
    node: &Node,
    kind: Kind,
    api_version: &str,
    object: JsonPath,
    spec: &str,
    found: &mut Objects,
) {
    let at = At {
        document,
        object: &object,
    };
    let spec = JsonPath::parse(spec);
    let metadata_path = JsonPath::parse("metadata");
    let metadata: ObjectMeta = match at.decode(node, &metadata_path, &format!("{kind} metadata")) {
        Ok(metadata) => metadata,
        Err(rejected) => return push(Err(rejected), found),
    };
    let pod_metadata_path = spec.key("podMetadata");
    let workflow_pod: ObjectMeta = match at.decode(node, &pod_metadata_path, "podMetadata") {
        Ok(meta) => meta,
        Err(rejected) => return push(Err(rejected), found),
    };
    let templates_path = spec.key("templates");
    let Some(Value::Seq(templates)) = node.at(&templates_path).map(|n| &n.value) else {
        return;
    };
    for (index, template) in templates.iter().enumerate() {
        let path = templates_path.index(index);
        let main = ["container", "script"]
            .into_iter()
            .find(|field| template.get(field).is_some_and(|n| n.value != Value::Null));
        let Some(main) = main else { continue };
        let step = Step {
            at: &at,
            node,
            spec: &spec,
            path: &path,
            template,
        };
        let workload = step.workload(main, &metadata, &workflow_pod, &pod_metadata_path);
        push(
            workload.map(
                |(pod_metadata, pod_metadata_path, pod_spec, paths)| Workload {
                    kind,
                    api_version: api_version.to_owned(),
                    name: format!(
                        "{}/{}",
                        name_of(&metadata),
                        template.get("name").and_then(Node::as_str).unwrap_or("?")
                    ),
                    namespace: metadata.namespace.clone(),
                    metadata: metadata.clone(),
                    pod_metadata,
                    pod_spec,
                    paths: Paths {
                        object: object.clone(),
                        metadata: object.join(&metadata_path),
                        pod_metadata: object.join(&pod_metadata_path),
                        pod_spec: object.join(&path),
                        ..paths
                    },
                    document: document.index,
                    origin: document.origin.clone(),
                    sidecar_stop: Some(ControllerStop {
                        description: SIDECAR_STOP,
                        path: object.join(&path),
                    }),
                    refused_fields: Vec::new(),
                },
            ),
            found,
        );
    }
}

/// One template of a workflow.
struct Step<'a> {
    at: &'a At<'a>,
    node: &'a Node,
    /// The workflow spec.
    spec: &'a JsonPath,
    path: &'a JsonPath,
    template: &'a Node,
}

type Pod = (ObjectMeta, JsonPath, PodSpec, Paths);

impl Step<'_> {
    fn workload(
        &self,
        main: &str,
        metadata: &ObjectMeta,
        workflow_pod: &ObjectMeta,
        workflow_pod_path: &JsonPath,
    ) -> Result<Pod, Rejected> {
        let template_meta_path = self.path.key("metadata");
        let template_meta: ObjectMeta =
            self.at
                .decode(self.node, &template_meta_path, "template metadata")?;
        let pod_metadata_path = if self.template.get("metadata").is_some() {
            template_meta_path
        } else {
            workflow_pod_path.clone()
        };
        let pod_metadata = ObjectMeta {
            labels: merged(&workflow_pod.labels, &template_meta.labels),
            annotations: merged(&workflow_pod.annotations, &template_meta.annotations),
            namespace: metadata.namespace.clone(),
            ..ObjectMeta::default()
        };
        let main_path = self.path.key(main);
        let mut main_container: Container = self.at.decode(self.node, &main_path, main)?;
        main_container.name = MAIN.to_owned();
        let sidecars = self.list("sidecars")?;
        let init = self.list("initContainers")?;
        // Argo's own containers are written nowhere: findings about them point at the
        // template.
        let template = self.at.object.join(self.path);
        let mut containers = vec![executor(WAIT), main_container];
        let mut container_paths = vec![template.clone(), self.at.object.join(&main_path)];
        for (path, container) in sidecars {
            container_paths.push(path);
            containers.push(container);
        }
        let (mut init_paths, mut init_containers): (Vec<_>, Vec<_>) = init.into_iter().unzip();
        init_paths.insert(0, template);
        init_containers.insert(0, executor(INIT));
        for container in containers.iter_mut().chain(&mut init_containers) {
            container
                .volume_mounts
                .get_or_insert_default()
                .push(VolumeMount {
                    name: VAR_RUN_ARGO.0.to_owned(),
                    mount_path: VAR_RUN_ARGO.1.to_owned(),
                    ..VolumeMount::default()
                });
        }
        let mut volumes = self.volumes()?;
        volumes.push(Volume {
            name: VAR_RUN_ARGO.0.to_owned(),
            empty_dir: Some(EmptyDirVolumeSource::default()),
            ..Volume::default()
        });
        let pod_spec = PodSpec {
            containers,
            init_containers: Some(init_containers),
            volumes: Some(volumes),
            restart_policy: Some("Never".to_owned()),
            ..PodSpec::default()
        };
        let paths = Paths {
            object: JsonPath::root(),
            metadata: JsonPath::root(),
            pod_metadata: JsonPath::root(),
            pod_spec: JsonPath::root(),
            init_containers: init_paths,
            containers: container_paths,
        };
        Ok((pod_metadata, pod_metadata_path, pod_spec, paths))
    }

    /// The workflow's `volumes` and the template's, which `createWorkflowPod` gives
    /// the pod.
    fn volumes(&self) -> Result<Vec<Volume>, Rejected> {
        let mut volumes = Vec::new();
        for path in [self.spec.key("volumes"), self.path.key("volumes")] {
            if self.node.at(&path).is_some() {
                let listed: Vec<Volume> = self.at.decode(self.node, &path, "volumes")?;
                volumes.extend(listed);
            }
        }
        Ok(volumes)
    }

    /// The containers of a list of the template, each with its path.
    fn list(&self, field: &str) -> Result<Vec<(JsonPath, Container)>, Rejected> {
        let Some(Value::Seq(items)) = self.template.get(field).map(|n| &n.value) else {
            return Ok(Vec::new());
        };
        (0..items.len())
            .map(|index| {
                let path = self.path.key(field).index(index);
                let container: Container = self.at.decode(self.node, &path, "container")?;
                Ok((self.at.object.join(&path), container))
            })
            .collect()
    }
}

/// One of Argo's own containers (`newInitContainer`, `newWaitContainer`): `argoexec
/// init` or `argoexec wait` in the executor's image.
fn executor(name: &str) -> Container {
    Container {
        name: name.to_owned(),
        image: Some(EXECUTOR_IMAGE.to_owned()),
        command: Some(vec!["argoexec".to_owned(), name.to_owned()]),
        ..Container::default()
    }
}

/// `base` with `over` over it: the template's labels win over the workflow's.
fn merged(
    base: &Option<BTreeMap<String, String>>,
    over: &Option<BTreeMap<String, String>>,
) -> Option<BTreeMap<String, String>> {
    let mut all = base.clone().unwrap_or_default();
    all.extend(over.clone().unwrap_or_default());
    (!all.is_empty()).then_some(all)
}
