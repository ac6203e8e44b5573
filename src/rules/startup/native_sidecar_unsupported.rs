use crate::resolve::{InitRun, PlannedContainer, Rejection, RejectionCause};
use crate::rules::help::container_label;
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Violation, declare_rule};
use crate::settings::version::KubeVersion;
use crate::simulate::Phase;

declare_rule! {
    /// ## What it detects
    /// An init container with `restartPolicy: Always` (a native sidecar) on a Kubernetes
    /// version that does not run native sidecars: before 1.29 the `SidecarContainers`
    /// feature gate is off (alpha in 1.28) or absent. Also a mesh configured to inject
    /// native sidecars into such a cluster.
    ///
    /// ## Why it loses traffic
    /// Without the gate the API server drops the field (`dropDisabledFields`). If the
    /// container has a startup, readiness or liveness probe or a lifecycle hook, which a
    /// plain init container may not have, the API server rejects the pod: it is never
    /// created. Otherwise it is an ordinary init container that never exits: the kubelet
    /// waits for it forever, so no container after it ever starts and the pod never
    /// leaves `Init` (docs/lifecycle.md §1.2).
    ///
    /// ## Example
    /// ```yaml
    /// # Kubernetes 1.28
    /// initContainers:
    /// - name: log-shipper
    ///   restartPolicy: Always
    /// ```
    ///
    /// ## Fix
    /// Upgrade the cluster to Kubernetes 1.29 or later, or run the sidecar as a regular
    /// container (and take care of its start and stop ordering).
    ///
    /// `lint --fix` makes no change: the remedy is a cluster upgrade or a new start and
    /// stop order for the pod, a design choice rather than an edit of this file.
    ///
    /// ## Evidence
    /// The manifest and the profile's versions alone: nothing it rests on is assumed, so
    /// it keeps its severity.
    ///
    /// ## References
    /// - docs/lifecycle.md §1.2 (`SidecarContainers`: alpha 1.28, beta and on 1.29, GA 1.33), §3.3 (Istio enables native sidecars only on nodes ≥ 1.33 by itself)
    /// - https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates/
    pub struct NativeSidecarUnsupported {
        id: "ML105",
        name: "native-sidecar-unsupported",
        severity: Error,
        fix: Never,
        group: Startup,
        summary: "a native sidecar on a Kubernetes version that blocks on it instead",
        since: "0.1.0",
        admission: true,
    }
}

/// An init container the API server rejects the pod for: its `restartPolicy: Always` is
/// dropped on this version, leaving what only sidecars may have.
struct RejectedInitContainer<'a> {
    /// The rejection.
    rejection: &'a Rejection,
    /// The init container.
    container: &'a str,
}

impl Violation for RejectedInitContainer<'_> {
    const RULE: &'static RuleMeta = &NativeSidecarUnsupported::META;

    fn message(&self) -> String {
        format!(
            "{} rejects the pod: {}",
            crate::rules::rejection::rejector(self.rejection.by),
            crate::rules::rejection::reason(&self.rejection.cause)
        )
    }

    fn help(&self) -> String {
        upgrade_or_regular(self.container)
    }
}

/// A native sidecar on a version that runs it as an init container that never exits.
struct NeverExits<'a> {
    /// The cluster's version.
    version: KubeVersion,
    /// The would-be native sidecar.
    container: &'a PlannedContainer,
    /// The containers it keeps from starting.
    blocked: Vec<&'a str>,
}

impl Violation for NeverExits<'_> {
    const RULE: &'static RuleMeta = &NativeSidecarUnsupported::META;

    fn message(&self) -> String {
        let version = self.version;
        let blocked = &self.blocked;
        format!(
            "Kubernetes {version} does not run native sidecars ({}): `{}` is an init container that never exits, so {} never start{}",
            if version.minor == 28 {
                "the SidecarContainers gate is alpha and off"
            } else {
                "they arrived in 1.28 and are on from 1.29"
            },
            self.container.name,
            if blocked.is_empty() {
                "the containers after it".to_owned()
            } else {
                blocked
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
            if blocked.len() == 1 { "s" } else { "" },
        )
    }

    fn help(&self) -> String {
        upgrade_or_regular(&self.container.name)
    }
}

/// Why the API server rejects a pod whose init container loses its `restartPolicy`.
pub(crate) fn dropped_policy(container: &str, field: &str, version: KubeVersion) -> String {
    format!(
        "Kubernetes {version} drops `restartPolicy: Always` from init container `{container}`, and a plain init container may not have a {field}"
    )
}

fn upgrade_or_regular(container: &str) -> String {
    format!(
        "run the cluster on Kubernetes 1.29 or later (check --kubernetes-version), or make `{container}` a regular container"
    )
}

impl Rule for NativeSidecarUnsupported {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        let version = plan.kubernetes.value;
        // Each init container the API server rejects the pod for gets its finding,
        // whatever else the pod is rejected for: fixing one must not reveal the next.
        for rejection in &plan.rejections {
            if let RejectionCause::DroppedSidecarPolicy { container, .. } = &rejection.cause {
                findings.push(
                    Finding::new(
                        &RejectedInitContainer {
                            rejection,
                            container,
                        },
                        Label::key(
                            rejection.path.clone(),
                            "not allowed on a plain init container",
                        ),
                    )
                    .container(container),
                );
            }
        }
        let rejected_for = |name: &str| {
            plan.rejections.iter().any(|r| {
                matches!(&r.cause, RejectionCause::DroppedSidecarPolicy { container, .. } if container == name)
            })
        };
        let timeline = &pod.timeline;
        for (index, container) in plan.containers.with_ids() {
            if container.role.init_run() != Some(InitRun::NeverExits)
                || rejected_for(&container.name)
            {
                continue;
            }
            let blocked: Vec<&str> = plan
                .containers
                .with_ids()
                .filter(|(id, _)| *id > index && timeline.start(*id).started.is_none())
                .map(|(_, c)| c.name.as_str())
                .collect();
            let at = timeline.start(index).started.unwrap_or_default();
            let primary = match container.manifest_path() {
                Some(path) => Label::value(
                    path.key("restartPolicy"),
                    format!("not a sidecar on Kubernetes {version}"),
                ),
                None => {
                    let text = format!(
                        "injected as a native sidecar, unsupported on Kubernetes {version}"
                    );
                    match container.shaped_by().and_then(|s| s.native.clone()) {
                        Some(path) => Label::value(path, text),
                        None => container_label(container, text),
                    }
                }
            };
            let violation = NeverExits {
                version,
                container,
                blocked,
            };
            let finding = Finding::new(&violation, primary).container(&container.name);
            // A pod rejected for another reason has no start-up to point into: the
            // block is what it meets once that reason is fixed.
            findings.push(if plan.admitted() {
                finding.window(Phase::Startup, at, at, Some(&container.name))
            } else {
                finding
            });
        }
    }
}
