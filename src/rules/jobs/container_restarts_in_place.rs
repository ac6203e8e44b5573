use super::job_sidecar_never_exits::native_move;
use crate::fix::Remedy;
use crate::resolve::{PlannedContainer, PodPlan, RejectionCause};
use crate::rules::help::container_label_path;
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Violation, declare_rule};
use crate::settings::version::KubeVersion;
use crate::simulate::Phase;
use crate::workload::Kind;

declare_rule! {
    /// ## What it detects
    /// A container in `containers` (not `initContainers`) with its own `restartPolicy`.
    /// In a Job or CronJob pod on Kubernetes 1.35 or later, `restartPolicy: Always`
    /// there restarts the container in place after every exit; on Kubernetes 1.28 to
    /// 1.33 the API server refuses the field on a regular container, in any pod. On
    /// 1.34, where `ContainerRestartRules` is alpha and off, the API server drops the
    /// field and admits the pod (`dropContainerRestartRules`): nothing to report.
    ///
    /// ## Why it loses traffic
    /// `restartPolicy: Always` makes a native sidecar only in `initContainers`. In
    /// `containers`, from Kubernetes 1.35 (`ContainerRestartRules`, beta and on), it is
    /// the container's own restart policy: the kubelet starts it again whenever it
    /// exits, whatever the pod's `restartPolicy` (`ContainerShouldRestart`). It is not a
    /// sidecar: it starts with the work, nothing stops it when the work is done, and a
    /// stop call (`/quitquitquit`, `kill`) only restarts it. The pod stays `Running`, so
    /// the Job never completes (docs/lifecycle.md §2.6, §2.9). Before 1.34 validation
    /// refuses the field ("may not be set for non-init containers"): the Job's pods are
    /// never created. `--feature-gates ContainerRestartRules=true` simulates 1.34 with
    /// the gate on, `=false` 1.35 or later with it off.
    ///
    /// ## Example
    /// ```yaml
    /// kind: Job
    /// spec:
    ///   template:
    ///     spec:
    ///       restartPolicy: Never
    ///       containers:
    ///       - name: migrate
    ///         command: ["./migrate"]
    ///       - name: log-shipper
    ///         image: fluent/fluent-bit:3.0
    ///         restartPolicy: Always
    /// ```
    ///
    /// ## Fix
    /// Move the sidecar to `initContainers`, where `restartPolicy: Always` makes it a
    /// native sidecar that the kubelet starts before the work and stops once the work
    /// is done (Kubernetes 1.29+). If the container is the work itself, remove the field
    /// (or use `restartPolicy: OnFailure` to retry failures in place).
    ///
    /// `lint --fix --unsafe-fixes` (unsafe) moves a container with `restartPolicy:
    /// Always` to the end of `initContainers`, its comments, probes and hooks with it,
    /// where the pod has other containers to do the work and the Kubernetes version runs
    /// native sidecars (1.29+): a container with `Always` beside the work is a sidecar
    /// written in the wrong list. At the end, because init containers start one at a
    /// time in spec order: it starts after every init container has run, as before.
    /// Unsafe because the work now waits until it has started (its `postStart` and
    /// `startupProbe`). The only container of a pod, or one whose policy is not
    /// `Always`, gets no fix: it is the work, and what it should do is its author's.
    ///
    /// ## Evidence
    /// The manifest and the profile's versions alone: nothing it rests on is assumed, so
    /// it keeps its severity.
    ///
    /// ## References
    /// - docs/lifecycle.md §2.6 (pod phase and Jobs), §2.9 (per-container restart policy)
    /// - https://kep.k8s.io/5307
    /// - https://kubernetes.io/blog/2025/08/29/kubernetes-v1-34-per-container-restart-policy/
    pub struct ContainerRestartsInPlace {
        id: "ML305",
        name: "container-restarts-in-place",
        severity: Error,
        fix: Sometimes,
        group: Jobs,
        summary: "a regular container's own restartPolicy restarts it in place, so the Job never completes",
        since: "0.1.0",
        admission: true,
    }
}

/// Why the API server refuses the pod, as [`crate::rules::rejection`] words it.
pub fn refused(container: &str, version: KubeVersion) -> String {
    format!(
        "Kubernetes {version} refuses `restartPolicy` on the regular container `{container}` (\"may not be set for non-init containers\"; a regular container's own restart policy is honoured from 1.35)"
    )
}

/// A regular container's own `restartPolicy`, refused or restarting it in place.
enum RestartInPlace<'a> {
    /// The API server refuses the field.
    Refused {
        container: &'a str,
        version: KubeVersion,
    },
    /// The kubelet restarts it in place: the Job never completes.
    Restarted {
        container: &'a PlannedContainer,
        workload: Kind,
        version: KubeVersion,
    },
}

impl Violation for RestartInPlace<'_> {
    const RULE: &'static RuleMeta = &ContainerRestartsInPlace::META;

    fn message(&self) -> String {
        match self {
            RestartInPlace::Refused { container, version } => {
                format!(
                    "{}: the API server rejects the pod",
                    refused(container, *version)
                )
            }
            RestartInPlace::Restarted {
                container,
                workload,
                version,
            } => format!(
                "`{}` has its own `restartPolicy: Always` in `containers`: Kubernetes {version} restarts it in place after every exit and it is no sidecar, so the pod stays Running and the {workload} never completes",
                container.name
            ),
        }
    }

    fn help(&self) -> String {
        "if it is a sidecar, move it to `initContainers` (where `restartPolicy: Always` makes a native sidecar the kubelet stops once the work is done); if it is the work, remove `restartPolicy` from it".into()
    }
}

impl Rule for ContainerRestartsInPlace {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        for rejection in &plan.rejections {
            let RejectionCause::ContainerRestartPolicy {
                container,
                value,
                version,
            } = &rejection.cause
            else {
                continue;
            };
            let planned = plan.find(container).map(|id| &plan.containers[id]);
            let violation = RestartInPlace::Refused {
                container,
                version: *version,
            };
            findings.push(
                Finding::new(
                    &violation,
                    Label::value(rejection.path.clone(), "refused on a regular container"),
                )
                .container(container)
                .with_fix(planned.and_then(|c| make_native(c, plan, value == "Always"))),
            );
        }
        let Some(completion) = &pod.timeline.completion else {
            return;
        };
        for (_, container) in plan.regular() {
            let Some(path) = &container.restart_in_place else {
                continue;
            };
            let violation = RestartInPlace::Restarted {
                container,
                // A pod that runs to completion was created by a Job.
                workload: if plan.kind == Kind::Pod {
                    Kind::Job
                } else {
                    plan.kind
                },
                version: plan.kubernetes.value,
            };
            findings.push(
                Finding::new(
                    &violation,
                    Label::value(path.clone(), "restarts it in place: not a sidecar"),
                )
                .container(&container.name)
                .related(Label::value(
                    container_label_path(container),
                    "never stays stopped",
                ))
                .window(
                    Phase::Completion,
                    completion.work_done,
                    completion.work_done,
                    Some(&container.name),
                )
                .with_fix(make_native(container, plan, true)),
            );
        }
    }
}

/// The container moved to `initContainers` as a native sidecar, where that is what its
/// `restartPolicy` (`always`: it is `Always`) meant: the pod has other containers,
/// without one of their own, to do the work.
fn make_native(container: &PlannedContainer, plan: &PodPlan, always: bool) -> Option<Remedy> {
    let refused = |other: &PlannedContainer| {
        plan.rejections.iter().any(|r| {
            matches!(&r.cause, RejectionCause::ContainerRestartPolicy { container, .. } if *container == other.name)
        })
    };
    let work = plan
        .regular()
        .filter(|(_, other)| other.name != container.name)
        .any(|(_, other)| other.restart_in_place.is_none() && !refused(other));
    if !always || !work {
        return None;
    }
    native_move(container, plan)
}
