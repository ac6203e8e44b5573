//! What admission does to the pod: API versions and fields this Kubernetes version
//! drops or rejects (a removed `apiVersion`, a `sleep` hook action, `restartPolicy` on
//! an init container), and hooks that fail at
//! once because the image lacks their program.

use super::{
    Assumed, Builder, DroppedHook, HookAction, HookDuration, HookEffect, Rejection, RejectionCause,
    Rejector, SleepActionProblem, api_removals,
};
use crate::settings::Source;
use crate::settings::version::KubeVersion;
use crate::time::Millis;

impl<'a> Builder<'a> {
    /// The kubelet's `sleep` action (docs/lifecycle.md §2.3): Kubernetes 1.28 and older
    /// have no such field, so the handler is left empty and the pod rejected; in 1.29 the
    /// `PodLifecycleSleepAction` gate is alpha and off, and the API server drops the
    /// action (`dropPodLifecycleSleepAction`): the pod is admitted without that hook; from
    /// 1.30 it runs, and invalid seconds are rejected by validation.
    pub(super) fn check_sleep_actions(&mut self, grace: i64) {
        let version = self.settings.kubernetes.value;
        let mut notes = Vec::new();
        let mut dropped = Vec::new();
        let mut rejections = Vec::new();
        for container in self.init.iter_mut().chain(self.regular.iter_mut()) {
            for slot in [&mut container.pre_stop, &mut container.post_start] {
                let Some(hook) = slot.as_ref() else { continue };
                let (HookAction::Sleep(seconds), Some(path)) =
                    (hook.action.clone(), hook.path.clone())
                else {
                    continue;
                };
                if version.drops_sleep_action() {
                    notes.push((
                        Assumed::SleepActionDropped {
                            container: container.name.clone(),
                            kubernetes: version,
                        },
                        path.clone(),
                    ));
                    dropped.push(DroppedHook {
                        container: container.name.clone(),
                        path,
                        seconds,
                    });
                    *slot = None;
                    continue;
                }
                if let Some(problem) = sleep_action_problem(version, grace, seconds) {
                    rejections.push(Rejection {
                        path: path.key("sleep"),
                        by: Rejector::ApiServer,
                        cause: RejectionCause::SleepAction(problem),
                    });
                } else if !version.sleep_action_is_ga() {
                    notes.push((
                        Assumed::SleepActionBeta {
                            container: container.name.clone(),
                            kubernetes: version,
                        },
                        path,
                    ));
                }
            }
        }
        for (assumed, path) in notes {
            self.assume(assumed, Source::Manifest(path));
        }
        self.dropped_hooks = dropped;
        self.rejections.append(&mut rejections);
    }

    /// A workload in an API version the Kubernetes version in force no longer serves
    /// is rejected at its `apiVersion`: there is no pod to start or stop.
    pub(super) fn check_api_version(&mut self) {
        let workload = self.workload;
        let version = self.settings.kubernetes.value;
        let Some(removal) =
            api_removals::removed_by(&workload.api_version, workload.kind.as_str(), version)
        else {
            return;
        };
        self.rejections.push(Rejection {
            path: workload.paths.object.key("apiVersion"),
            by: Rejector::ApiServer,
            cause: RejectionCause::RemovedApiVersion { removal, version },
        });
    }

    /// Fields the workload's controller refuses at admission (Knative Serving allows a
    /// container no `lifecycle`): each is a rejection at the field, and no pod is
    /// simulated (docs/lifecycle.md §5.6).
    pub(super) fn check_refused_fields(&mut self) {
        for refused in &self.workload.refused_fields {
            self.rejections.push(Rejection {
                path: refused.path.clone(),
                by: Rejector::Controller(refused.controller),
                cause: RejectionCause::FieldNotAllowed {
                    container: refused.container.clone(),
                    field: refused.field,
                },
            });
        }
    }

    /// From 1.28 (when `restartPolicy` joined the container type, for init containers)
    /// to 1.33, validation refuses it on a regular container (`validateContainers`:
    /// "may not be set for non-init containers"). From 1.34 the `ContainerRestartRules`
    /// gate decides: while it is off (alpha and off in 1.34) the API server drops the
    /// field before validation (`dropDisabledFields` → `dropContainerRestartRules`) and
    /// the pod is admitted with a plain container; on (from 1.35), it is honoured
    /// (docs/lifecycle.md §2.9).
    pub(super) fn check_container_restart_policies(&mut self) {
        let version = self.settings.kubernetes.value;
        let workload = self.workload;
        let spec = &workload.pod_spec;
        if version.has_container_restart_rules_gate() {
            if self.settings.container_restart_rules() {
                return;
            }
            for (container, path) in spec.containers.iter().zip(&workload.paths.containers) {
                if container.restart_policy.is_some() {
                    self.assume(
                        Assumed::ContainerRestartPolicyDropped {
                            container: container.name.clone(),
                            kubernetes: version,
                        },
                        Source::Manifest(path.key("restartPolicy")),
                    );
                }
            }
            return;
        }
        if !version.forbids_container_restart_policy() {
            return;
        }
        for (container, path) in spec.containers.iter().zip(&self.workload.paths.containers) {
            if let Some(value) = &container.restart_policy {
                self.rejections.push(Rejection {
                    path: path.key("restartPolicy"),
                    by: Rejector::ApiServer,
                    cause: RejectionCause::ContainerRestartPolicy {
                        container: container.name.clone(),
                        value: value.clone(),
                        version,
                    },
                });
            }
        }
    }

    /// Before Kubernetes 1.29 the API server drops `restartPolicy` from init containers
    /// (`dropDisabledFields`: the `SidecarContainers` gate is off in 1.28, the field
    /// unknown before), and validation forbids probes and lifecycle hooks on the plain
    /// init container that is left (`validateInitContainers`): such a pod is rejected
    /// (docs/lifecycle.md §1.2). One without them is admitted and never gets past it.
    pub(super) fn check_dropped_restart_policies(&mut self) {
        if self.settings.kubernetes.value.runs_native_sidecars() {
            return;
        }
        let version = self.settings.kubernetes.value;
        let mut rejections = Vec::new();
        for planned in self.init.iter().filter(|c| c.restart_always()) {
            let manifest = self.manifest_container(planned);
            let forbidden = |field: &str| match (field, manifest) {
                ("startupProbe", Some(c)) => c.startup_probe.is_some(),
                ("readinessProbe", Some(c)) => c.readiness_probe.is_some(),
                ("livenessProbe", Some(c)) => c.liveness_probe.is_some(),
                ("lifecycle", Some(c)) => c.lifecycle.is_some(),
                ("startupProbe", None) => planned.startup_probe.is_some(),
                ("readinessProbe", None) => planned.readiness_probe.is_some(),
                ("lifecycle", None) => planned.pre_stop.is_some() || planned.post_start.is_some(),
                _ => false,
            };
            let Some(field) = [
                "startupProbe",
                "readinessProbe",
                "livenessProbe",
                "lifecycle",
            ]
            .into_iter()
            .find(|field| forbidden(field)) else {
                continue;
            };
            let path = match planned.manifest_path() {
                Some(path) => path.key(field),
                None => planned
                    .shaped_by()
                    .and_then(|s| s.native.clone())
                    .unwrap_or_else(|| planned.finding_path().clone()),
            };
            rejections.push(Rejection {
                path,
                by: Rejector::ApiServer,
                cause: RejectionCause::DroppedSidecarPolicy {
                    container: planned.name.clone(),
                    field,
                    version,
                },
            });
        }
        self.rejections.append(&mut rejections);
    }

    /// An exec hook whose program the image most likely lacks fails at once: it delays
    /// nothing and has no effect (the hook's program is missing).
    pub(super) fn fail_hooks_without_their_program(&mut self) {
        let mut notes = Vec::new();
        for container in self.init.iter_mut().chain(&mut self.regular) {
            let missing = container.missing_tools;
            let image = container.image.clone().unwrap_or_default();
            for hook in [&mut container.pre_stop, &mut container.post_start]
                .into_iter()
                .flatten()
            {
                let (Some(program), Some(path)) = (hook.missing_program(missing), &hook.path)
                else {
                    continue;
                };
                notes.push((
                    Assumed::HookProgramMissing {
                        container: container.name.clone(),
                        hook: hook.clone(),
                        image: image.clone(),
                        program: program.to_owned(),
                    },
                    path.clone(),
                ));
                hook.duration = HookDuration::Fixed(Millis::ZERO);
                hook.effect = HookEffect::None;
            }
        }
        for (assumed, path) in notes {
            self.assume(assumed, Source::Manifest(path));
        }
    }

    /// Hooks whose length could not be read are taken as instant; say so.
    pub(super) fn note_unknown_hook_lengths(&mut self) {
        let mut notes = Vec::new();
        for container in self.init.iter().chain(&self.regular) {
            for hook in [&container.pre_stop, &container.post_start]
                .into_iter()
                .flatten()
            {
                let Some(path) = &hook.path else { continue };
                if hook.duration == HookDuration::Unknown {
                    notes.push((
                        Assumed::HookLengthUnknown {
                            container: container.name.clone(),
                            hook: hook.clone(),
                        },
                        path.clone(),
                    ));
                }
            }
        }
        for (assumed, path) in notes {
            self.assume(assumed, Source::Manifest(path));
        }
    }
}

/// Why the API server rejects a `sleep` hook action with `seconds` on `version`
/// (docs/lifecycle.md §2.3), when it does. In 1.29 the action is dropped before
/// validation, so nothing is rejected.
pub fn sleep_action_problem(
    version: KubeVersion,
    grace: i64,
    seconds: i64,
) -> Option<SleepActionProblem> {
    if !version.knows_sleep_action() {
        Some(SleepActionProblem::Unknown { version })
    } else if version.drops_sleep_action() {
        None
    } else if seconds < 0 {
        Some(SleepActionProblem::Negative { seconds })
    } else if seconds == 0 && !version.allows_zero_sleep() {
        Some(SleepActionProblem::Zero { version })
    } else if seconds > grace {
        Some(SleepActionProblem::ExceedsGrace { seconds, grace })
    } else {
        None
    }
}
