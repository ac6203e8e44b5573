//! A container of the manifest as the kubelet alone runs it: its role from its list,
//! its hooks, probes and start gate, what it calls out to, and who serves it.

use k8s_openapi::api::core::v1::{Container, Probe};

use super::hooks::{self, HookKind, Owner};
use super::traffic::Traffic;
use super::{
    Builder, ContainerList, ExitPolicy, NetworkUse, PlannedContainer, ProbeTiming, Provenance,
    Role, ServedBy, StartGate, images, kubexit, shell, stop_signal,
};
use crate::load::JsonPath;
use crate::time::Millis;

impl<'a> Builder<'a> {
    /// A manifest container with the role the kubelet alone gives it.
    pub fn from_manifest(
        &self,
        container: &Container,
        list: ContainerList,
        path: JsonPath,
    ) -> PlannedContainer {
        let restart_always =
            list == ContainerList::Init && container.restart_policy.as_deref() == Some("Always");
        let role = Role::of_manifest(
            list,
            restart_always,
            self.settings.kubernetes.value.runs_native_sidecars(),
        );
        let native_sidecar = matches!(role, Role::NativeSidecar(_));
        let owner = if native_sidecar {
            Owner::Sidecar
        } else {
            Owner::App
        };
        let command = self.readable_command(container);
        let network = self.network(container, &command.argv);
        // A command that only stops processes calls nothing out, its quit calls on
        // localhost included.
        let network_use = (list == ContainerList::Init && !restart_always && !network.only_stops)
            .then(|| shell::network_use(&command.argv))
            .flatten()
            .map(|(call, ports)| NetworkUse {
                path: command_path(container, &path),
                call,
                ports,
                bypass: None,
            });
        // An app whose own command waits for the proxy before starting its process.
        let start_gate = (list == ContainerList::Regular)
            .then(|| {
                shell::start_gate(&shell::parse_argv(&command.argv), self.lexicon)
                    .or_else(|| kubexit::birth_gate(container, &command.argv))
            })
            .flatten()
            .map(|waits| StartGate {
                path: command_path(container, &path),
                waits,
            });
        // A plain init container runs to its end; it is never stopped.
        let dropped_signal = (list == ContainerList::Regular || restart_always)
            .then(|| {
                stop_signal::dropped(
                    container,
                    &path,
                    &command,
                    self.workload.pod_spec.share_process_namespace == Some(true),
                )
            })
            .flatten();
        // Its own `restartPolicy: Always`, honoured while ContainerRestartRules is on (from 1.35) (docs/lifecycle.md §2.9).
        let restart_in_place = (list == ContainerList::Regular
            && container.restart_policy.as_deref() == Some("Always")
            && self.settings.container_restart_rules())
        .then(|| path.key("restartPolicy"));
        let runs_for = match list {
            ContainerList::Init if !restart_always => Some(self.scenario.init_duration.value),
            ContainerList::Regular if self.workload.runs_to_completion() => {
                Some(self.scenario.job_duration.value)
            }
            _ => None,
        };
        PlannedContainer {
            name: container.name.clone(),
            index: 0,
            post_start: hooks::read(container, &path, HookKind::PostStart, owner, self.lexicon),
            pre_stop: hooks::read(container, &path, HookKind::PreStop, owner, self.lexicon),
            provenance: Provenance::Manifest(path),
            role,
            image: container.image.clone(),
            startup_probe: container.startup_probe.as_ref().map(probe_timing),
            readiness_probe: container.readiness_probe.as_ref().map(probe_timing),
            readiness_check: container.readiness_probe.as_ref().and_then(probe_check),
            declares_serving: container.ports.as_ref().is_some_and(|p| !p.is_empty())
                || container.readiness_probe.is_some(),
            served_by: (list == ContainerList::Regular)
                .then(|| self.selecting_service(container))
                .flatten(),
            start_gate,
            startup: if native_sidecar {
                self.scenario.proxy_startup.value
            } else {
                Millis::ZERO
            },
            runs_for,
            exit: ExitPolicy::After(self.scenario.app_shutdown.clone()),
            traffic: None,
            own_inbound: None,
            sidecar_stops: Vec::new(),
            gate_request: None,
            probe_grace: container
                .startup_probe
                .as_ref()
                .and_then(|probe| probe.termination_grace_period_seconds),
            exit_code_on_signal: 0,
            self_stop: None,
            dropped_signal,
            only_stops: false,
            only_idles: !command.argv.is_empty()
                && shell::only_idles(&shell::parse_argv(&command.argv)),
            restart_in_place,
            native_switch: None,
            native_install: None,
            status_port_off: None,
            startup_probe_off: None,
            network_use,
            call_delay: shell::leading_sleep(&shell::parse_argv(&command.argv), &shell::Env::new()),
            network,
            run_as_user: self.run_as_user(container),
            missing_tools: container
                .image
                .as_deref()
                .map(|image| images::missing_tools(image, self.lexicon))
                .unwrap_or_default(),
        }
    }

    /// What `container` (running `argv`) is seen to do on the network; a Service of
    /// the input that selects the pod counts as serving.
    fn network(&self, container: &Container, argv: &[String]) -> Traffic {
        let service = self
            .selecting_services()
            .next()
            .map(|(service, _)| service.qualified_name());
        Traffic::of(container, argv, service.as_deref(), self.known_stops())
    }

    /// What the shell reader knows of stop calls in this pod: the wrappers the config
    /// declares and the sidecars' own words.
    pub(crate) fn known_stops(&self) -> shell::Known<'a> {
        shell::Known {
            wrappers: &self.settings.stop_wrappers,
            lexicon: self.lexicon,
        }
    }

    /// The input's Services whose selector picks the pod (none for a pod without
    /// labels: an empty selector selects nothing).
    fn selecting_services(
        &self,
    ) -> impl Iterator<Item = &(crate::workload::Service, crate::settings::Source)> {
        let labels = self.workload.pod_metadata.labels.as_ref();
        let namespace = self.workload.namespace.as_deref();
        self.settings.services.iter().filter(move |(service, _)| {
            labels.is_some_and(|labels| service.selects(namespace, labels))
        })
    }

    /// The Service of the input that sends requests to `container`, which declares no
    /// port and whose command does not only sleep: one that selects the pod on a
    /// numeric `targetPort` no container of the pod declares. A named `targetPort` reaches only a container that declares that name
    /// (the EndpointSlice controller skips a pod without it), which serves already.
    fn selecting_service(&self, container: &Container) -> Option<ServedBy> {
        // A command that only sleeps listens on nothing: a client pod a Service names
        // for its identity (Istio's `sleep` and `curl` samples).
        let argv = self.readable_command(container).argv;
        let list = shell::parse_argv(&argv);
        if container.ports.as_ref().is_some_and(|p| !p.is_empty())
            || (!argv.is_empty() && shell::only_idles(&list))
            || shell::only_stops_processes(&list, self.known_stops())
        {
            return None;
        }
        let declared: Vec<i32> = self
            .workload
            .pod_spec
            .containers
            .iter()
            .flat_map(|c| c.ports.iter().flatten())
            .map(|port| port.container_port)
            .collect();
        self.selecting_services().find_map(|(service, source)| {
            let port = service.target_ports.iter().find_map(|port| match port {
                crate::workload::TargetPort::Number(n) if !declared.contains(n) => Some(*n),
                _ => None,
            })?;
            Some(ServedBy {
                service: service.qualified_name(),
                target_port: port,
                source: source.clone(),
            })
        })
    }

    /// The input's Service that selects the pod and sends requests to one of `ports`
    /// (a numeric `targetPort`, or one named for a port the pod declares with that
    /// number), by its qualified name.
    pub(crate) fn service_to_ports(&self, ports: &[i32]) -> Option<String> {
        let named = |name: &str| {
            self.workload
                .pod_spec
                .containers
                .iter()
                .flat_map(|c| c.ports.iter().flatten())
                .any(|port| {
                    port.name.as_deref() == Some(name) && ports.contains(&port.container_port)
                })
        };
        self.selecting_services().find_map(|(service, _)| {
            service
                .target_ports
                .iter()
                .any(|port| match port {
                    crate::workload::TargetPort::Number(n) => ports.contains(n),
                    crate::workload::TargetPort::Name(name) => named(name),
                })
                .then(|| service.qualified_name())
        })
    }

    /// The UID `container` runs as: its own security context's, else the pod's.
    pub(crate) fn run_as_user(&self, container: &Container) -> Option<i64> {
        container
            .security_context
            .as_ref()
            .and_then(|c| c.run_as_user)
            .or_else(|| {
                let pod = self.workload.pod_spec.security_context.as_ref();
                pod.and_then(|c| c.run_as_user)
            })
    }
}

/// A probe's timing with the API defaults filled in (docs/lifecycle.md §1.3).
pub fn probe_timing(probe: &Probe) -> ProbeTiming {
    ProbeTiming {
        initial_delay: Millis::secs(i64::from(probe.initial_delay_seconds.unwrap_or(0).max(0))),
        period: Millis::secs(i64::from(probe.period_seconds.unwrap_or(10).max(1))),
        failure_threshold: i64::from(probe.failure_threshold.unwrap_or(3).max(1)),
    }
}

/// The check a probe makes, without its timing: the one handler it sets.
fn probe_check(probe: &Probe) -> Option<serde_json::Value> {
    let written = serde_json::to_value(probe).ok()?;
    let check: serde_json::Map<String, serde_json::Value> =
        ["httpGet", "tcpSocket", "exec", "grpc"]
            .into_iter()
            .filter_map(|handler| Some((handler.to_owned(), written.get(handler)?.clone())))
            .collect();
    (!check.is_empty()).then_some(serde_json::Value::Object(check))
}

/// The argv a container runs: `command` then `args` (args alone when the image's
/// entrypoint runs them).
pub fn argv_of(container: &Container) -> Vec<String> {
    container
        .command
        .iter()
        .flatten()
        .chain(container.args.iter().flatten())
        .cloned()
        .collect()
}

/// The `command` or `args` item of `container` that is item `at` of its argv.
pub fn script_item(container: &Container, path: &JsonPath, at: usize) -> JsonPath {
    let commands = container.command.as_ref().map_or(0, Vec::len);
    if at < commands {
        path.key("command").index(at)
    } else {
        path.key("args").index(at - commands)
    }
}

/// The path of a container's command, or of its args when it has no command.
pub fn command_path(container: &Container, path: &JsonPath) -> JsonPath {
    if container.command.is_some() {
        path.key("command")
    } else if container.args.is_some() {
        path.key("args")
    } else {
        path.clone()
    }
}
