//! What a finding rests on: the facts read from the input and the profile, and the
//! premises it needed that the input does not prove (an assumed time, a version's
//! default, "the app calls out during shutdown"), each with how to settle it. By default a loss
//! that rests on a premise is reported lower ([`Evidence::lowered`]); `--assumed-losses
//! full` (config `assumedLosses: full`) counts it at the rule's severity.

use serde::Serialize;

use super::describe;
use super::meta::{Group, RuleMeta, Severity};
use crate::resolve::traffic::{CallsOut, Serves, Traffic, TrafficRole};
use crate::resolve::{Assumed, Assumption, PlannedContainer, PodPlan};
use crate::settings::Source;
use crate::settings::version::KubeVersion;
use crate::time::Millis;

/// What one finding rests on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Evidence {
    /// What the input and profile show, in words.
    pub facts: Vec<String>,
    /// What the finding needed that the input does not prove.
    pub premises: Vec<Premise>,
}

/// A premise: what is assumed, how much it lowers the finding, how to settle it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Premise {
    /// What is assumed.
    pub subject: Subject,
    /// How far a finding resting on it is lowered.
    pub weight: Weight,
    /// How to settle it: a flag, a config key, an annotation, or what in the manifest
    /// shows it.
    pub settle: String,
}

/// What a premise assumes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// A reading of the plan that the manifest does not state (a version's default, a
    /// hook's length).
    Plan(Box<Assumed>),
    /// The app's shutdown time (SIGTERM to exit) is the default.
    AppShutdown {
        /// The app.
        container: String,
        /// The time assumed.
        value: Millis,
    },
    /// Endpoint removal takes the default time to reach every client.
    EndpointPropagation(Millis),
    /// The app calls out while the proxy is gone (the input shows no outbound call).
    CallsOut {
        /// The app.
        container: String,
    },
    /// Requests arrive: something routes traffic to the pod (no Service of the input
    /// selects it).
    RequestsArrive,
    /// Requests reach the pod through a sidecar that proxies none of its own traffic,
    /// on that sidecar's ports (no Service of the input sends any there).
    ThroughSidecar {
        /// The sidecar.
        container: String,
        /// Its ports that take requests from outside the pod.
        ports: Vec<i32>,
    },
    /// The Kubernetes version is the default one (what a fix's form needs, such as the
    /// `sleep` action of 1.30).
    KubernetesVersion(KubeVersion),
    /// No mesh injects a proxy into the pod's namespace, whose labels the input does
    /// not show: a fix sound without a proxy may not be with one.
    NoInjection {
        /// The namespace, when the manifest names it.
        namespace: Option<String>,
    },
}

/// How far a premise lowers a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Weight {
    /// One level lower (error to warning, warning to info), or as the rule's doc says.
    Lower,
    /// To info whatever the rule's severity: the input points the other way.
    Info,
}

impl Evidence {
    /// Whether the finding rests on no premise: the input proves it.
    pub fn proven(&self) -> bool {
        self.premises.is_empty()
    }

    /// `severity` lowered for the premises: unchanged when proven, info when a premise
    /// or the rule's doc says so, else one level lower.
    pub fn lowered(&self, severity: Severity, rule: &RuleMeta) -> Severity {
        let Some(weight) = self.premises.iter().map(|p| p.weight).max() else {
            return severity;
        };
        if weight == Weight::Info || rule.assumed == Weight::Info {
            return Severity::Info;
        }
        match severity {
            Severity::Error => Severity::Warning,
            Severity::Warning | Severity::Info => Severity::Info,
        }
    }

    /// Adds `premise` unless it is there.
    pub fn premise(&mut self, premise: Premise) {
        if !self.premises.iter().any(|p| p.subject == premise.subject) {
            self.premises.push(premise);
        }
    }

    /// Adds `fact` unless it is there.
    pub fn fact(&mut self, fact: String) {
        if !self.facts.contains(&fact) {
            self.facts.push(fact);
        }
    }
}

impl Premise {
    /// The premise in words: "`web` calls out while its proxy is gone".
    pub fn text(&self) -> String {
        match &self.subject {
            Subject::Plan(reading) => describe::assumed(reading),
            Subject::AppShutdown { container, value } => {
                format!("`{container}` takes {value} to exit after SIGTERM (the default)")
            }
            Subject::EndpointPropagation(value) => {
                format!("endpoint removal takes {value} to reach every client (the default)")
            }
            Subject::CallsOut { container } => {
                format!("`{container}` calls out while its proxy is gone")
            }
            Subject::RequestsArrive => {
                "requests arrive: a Service outside the input selects the pod".to_owned()
            }
            Subject::ThroughSidecar { container, ports } => format!(
                "requests reach the pod through `{container}` (port {}), not only on the app's own port",
                ports
                    .iter()
                    .map(i32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Subject::KubernetesVersion(version) => {
                format!("the cluster runs Kubernetes {version} (the default)")
            }
            Subject::NoInjection { namespace } => format!(
                "no mesh injects a proxy into {} (its labels are not in the input)",
                namespace_words(namespace.as_deref())
            ),
        }
    }

    /// The premise as a short phrase after "it assumes", for a fix's title.
    pub fn phrase(&self) -> String {
        match &self.subject {
            Subject::Plan(reading) => describe::assumed_briefly(reading),
            Subject::AppShutdown { container, value } => {
                format!("`{container}` exits {value} after SIGTERM")
            }
            Subject::EndpointPropagation(value) => format!("endpoints are removed in {value}"),
            Subject::CallsOut { container } => format!("`{container}` calls out"),
            Subject::RequestsArrive => "requests arrive".to_owned(),
            Subject::ThroughSidecar { container, .. } => {
                format!("requests arrive through `{container}`")
            }
            Subject::KubernetesVersion(version) => format!("Kubernetes {version}"),
            Subject::NoInjection { namespace } => {
                format!("no mesh injects {}", namespace_words(namespace.as_deref()))
            }
        }
    }

    /// Whether a fix resting on the premise may be wrong: an assumed version may not
    /// run the fix's form, an assumed time may not be enough, a namespace that injects
    /// a proxy may need more. Whether the app calls out or requests arrive (through a
    /// sidecar or not) decides
    /// whether the loss happens, not whether the fix is right: without it, the fix is
    /// merely not needed.
    pub fn bears_on_fix(&self) -> bool {
        !matches!(
            self.subject,
            Subject::CallsOut { .. } | Subject::RequestsArrive | Subject::ThroughSidecar { .. }
        )
    }

    /// The cluster runs the default Kubernetes version `version`, which a fix's form
    /// needs.
    pub fn kubernetes_version(version: KubeVersion) -> Premise {
        Premise {
            subject: Subject::KubernetesVersion(version),
            weight: Weight::Lower,
            settle: "set --kubernetes-version or config `kubernetesVersion`".to_owned(),
        }
    }

    /// No mesh injects the pod's `namespace`, whose labels the input does not show.
    pub fn no_injection(namespace: Option<&str>) -> Premise {
        Premise {
            subject: Subject::NoInjection {
                namespace: namespace.map(str::to_owned),
            },
            weight: Weight::Lower,
            settle: "lint the Namespace with the workload, or set the namespace's labels in config `namespaces`".to_owned(),
        }
    }

    /// The app `container` calls out while its proxy is gone; `weight` is info when the
    /// input shows it only serving.
    pub fn calls_out(container: &str, weight: Weight) -> Premise {
        Premise {
            subject: Subject::CallsOut {
                container: container.to_owned(),
            },
            weight,
            settle: "an env URL or `host:port`, or a client in its command, shows it".to_owned(),
        }
    }

    /// The app's shutdown time is the default.
    pub fn app_shutdown(container: &str, value: Millis) -> Premise {
        Premise {
            subject: Subject::AppShutdown {
                container: container.to_owned(),
                value,
            },
            weight: Weight::Lower,
            settle: "set --app-shutdown, config `scenario.appShutdown` or annotation `mesh-lifecycle.io/app-shutdown`".to_owned(),
        }
    }

    /// Endpoint propagation takes its default time.
    pub fn endpoint_propagation(value: Millis) -> Premise {
        Premise {
            subject: Subject::EndpointPropagation(value),
            weight: Weight::Lower,
            settle: "set --endpoint-propagation, config `scenario.endpointPropagation` or annotation `mesh-lifecycle.io/endpoint-propagation`".to_owned(),
        }
    }

    /// Requests reach the pod through `container`, a sidecar that proxies none of the
    /// pod's own traffic, on its `ports`: to info, as the input points the other way
    /// (its clients reach the app's own port, which the sidecar never sees).
    pub fn through_sidecar(container: &str, ports: &[i32]) -> Premise {
        Premise {
            subject: Subject::ThroughSidecar {
                container: container.to_owned(),
                ports: ports.to_vec(),
            },
            weight: Weight::Info,
            settle: format!(
                "lint the Service that sends requests to `{container}` (targetPort {}) with it, or the workload that calls the app through it",
                ports
                    .iter()
                    .map(i32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// Requests arrive though no Service of the input selects the pod.
    pub fn requests_arrive() -> Premise {
        Premise {
            subject: Subject::RequestsArrive,
            weight: Weight::Lower,
            settle: "lint the Service that selects the pod with it".to_owned(),
        }
    }
}

/// "namespace `shop`", or "the pod's namespace" when the manifest names none.
fn namespace_words(namespace: Option<&str>) -> String {
    match namespace {
        Some(namespace) => format!("namespace `{namespace}`"),
        None => "the pod's namespace".to_owned(),
    }
}

/// What the input shows `container` doing on the network, in words, when it shows
/// anything.
pub fn traffic_fact(container: &PlannedContainer) -> Option<String> {
    let name = &container.name;
    let Traffic {
        calls_out,
        serves,
        idle,
        only_stops,
    } = &container.network;
    if *only_stops {
        return Some(format!("`{name}` only waits for and stops processes"));
    }
    if let Some(call) = calls_out {
        return Some(match call {
            CallsOut::Env { name: var, value } => {
                format!("`{name}` calls out: env {var}={value}")
            }
            CallsOut::Command(command) => format!("`{name}` calls out: `{command}`"),
            CallsOut::Image(image) => format!("`{name}` calls out: image {image}"),
        });
    }
    if *idle {
        return Some(format!("`{name}` only idles"));
    }
    serves.as_ref().map(|serves| match serves {
        Serves::Ports => format!("`{name}` serves: it declares ports"),
        Serves::Probe => format!("`{name}` serves: a probe asks it on a port"),
        Serves::Service(service) => format!("`{name}` serves: Service {service} selects the pod"),
    })
}

/// The premise an app's traffic role needs for a loss of its outbound calls: none when
/// it is seen to call out, info when it is seen only to serve, one level lower when
/// the input does not say; `None` for an app that only idles or only stops processes
/// (there is no loss).
pub fn calls_out_premise(app: &PlannedContainer) -> Option<Option<Premise>> {
    match app.network.role() {
        TrafficRole::CallsOut => Some(None),
        TrafficRole::Serves => Some(Some(Premise::calls_out(&app.name, Weight::Info))),
        TrafficRole::Unknown => Some(Some(Premise::calls_out(&app.name, Weight::Lower))),
        TrafficRole::Idle => None,
    }
}

/// Adds to `evidence` what the plan gives every finding of `rule` about `containers`:
/// its readings as premises where they are defaults the verdict depends on, as facts
/// where the profile or the input states them. Configuration findings rest on the
/// manifest alone.
pub fn add_plan(evidence: &mut Evidence, plan: &PodPlan, rule: &RuleMeta, containers: &[&str]) {
    if rule.group == Group::Configuration || rule.admission {
        return;
    }
    for assumption in &plan.assumptions {
        let Some((weight, settle)) = bearing(assumption, plan, containers) else {
            continue;
        };
        if assumption.source == Source::Default {
            evidence.premise(Premise {
                subject: Subject::Plan(Box::new(assumption.assumed.clone())),
                weight,
                settle,
            });
        }
    }
}

/// Whether a plan's reading bears on a finding about `containers`, and if so how far
/// it lowers it and how it is settled. Readings that are the documented behaviour
/// (kubectl's grace period of 0, a namespace's unknown labels) bear on none.
fn bearing(
    assumption: &Assumption,
    plan: &PodPlan,
    containers: &[&str],
) -> Option<(Weight, String)> {
    let about = |container: &str| containers.contains(&container);
    let version = "set --kubernetes-version or config `kubernetesVersion`".to_owned();
    match &assumption.assumed {
        Assumed::SleepActionDropped { container, .. }
        | Assumed::SleepActionBeta { container, .. }
        | Assumed::ContainerRestartPolicyDropped { container, .. } => {
            about(container).then_some((Weight::Lower, version))
        }
        Assumed::HookProgramMissing {
            container, program, ..
        } => about(container).then(|| {
            (
                Weight::Lower,
                format!("give the hook a program the image has, or an image with `{program}`"),
            )
        }),
        Assumed::HookLengthUnknown { container, .. } => about(container).then(|| {
            (
                Weight::Lower,
                "write the hook's length as a `sleep` the linter reads".to_owned(),
            )
        }),
        Assumed::SettingTooNew { .. } => Some((
            Weight::Lower,
            "give the mesh's version (--mesh-version MESH=VERSION)".to_owned(),
        )),
        // Where the nodes (the API server) are too old for the native default, the
        // release does not matter: the reading is the one every release makes.
        Assumed::MeshVersionUnknown {
            native_nodes,
            flag_name,
            ..
        } => native_nodes
            .is_none_or(|nodes| plan.kubernetes.value >= nodes)
            .then(|| {
                let settle = crate::settings::version::mesh::how_to_give(flag_name);
                (Weight::Lower, settle)
            }),
        Assumed::DeletionGraceZero
        | Assumed::NamespaceLabelsUnknown { .. }
        | Assumed::NamespaceAnnotationsUnknown { .. } => None,
    }
}
