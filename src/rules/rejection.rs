//! Why a pod is not admitted, in words: for `explain` and for the rules that report the
//! rejection. Each cause is worded by the rule that judges it.

use super::configuration::{
    api_version_removed, field_not_allowed, injection_conflict, invalid_proxy_config,
};
use super::jobs::container_restarts_in_place;
use super::startup::native_sidecar_unsupported;
use super::termination::sleep_action_unsupported;
use crate::resolve::{RejectionCause, Rejector};

/// Who rejects the pod: `the API server`, `Istio's sidecar injector`.
pub fn rejector(by: Rejector) -> String {
    match by {
        Rejector::ApiServer => "the API server".to_owned(),
        Rejector::Injector(mesh) => format!("{mesh}'s {}", mesh.injector()),
        Rejector::Controller(controller) => format!("{controller}'s webhook"),
    }
}

/// What makes the pod inadmissible.
pub fn reason(cause: &RejectionCause) -> String {
    match cause {
        RejectionCause::SleepAction(problem) => sleep_action_unsupported::problem(*problem),
        RejectionCause::DroppedSidecarPolicy {
            container,
            field,
            version,
        } => native_sidecar_unsupported::dropped_policy(container, field, *version),
        RejectionCause::UnreadableSetting(unreadable) => invalid_proxy_config::what(unreadable),
        RejectionCause::RemovedApiVersion { removal, version } => {
            api_version_removed::not_served(removal, *version)
        }
        RejectionCause::ContainerRestartPolicy {
            container, version, ..
        } => container_restarts_in_place::refused(container, *version),
        RejectionCause::FieldNotAllowed { container, field } => {
            field_not_allowed::refused(container, field)
        }
        RejectionCause::NativeWith {
            mesh,
            native,
            setting,
            until,
            error,
        } => injection_conflict::native_refused(*mesh, native, setting, until, error),
    }
}
