use crate::fix::{Applicability, Change, Remedy};
use crate::load::JsonPath;
use crate::resolve::{RejectionCause, Rejector};
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Violation, declare_rule};

declare_rule! {
    /// ## What it detects
    /// A container field that the controller running the workload does not allow, so
    /// that its validating webhook denies the object: a `lifecycle` on a container of
    /// a Knative Serving Service, Configuration or Revision (a preStop delay, a
    /// postStart). Reported at the field, like every rejection.
    ///
    /// ## Why it loses traffic
    /// Knative's webhook masks each container down to the fields it allows
    /// (`Lifecycle` is not among them) and denies the object that sets another:
    /// `validation failed: must not set the field(s):
    /// spec.template.spec.containers[0].lifecycle`. The Service is never created, so
    /// the new revision never rolls out, and a CI gate that passed it would ship a
    /// manifest that cannot be applied. Nothing about the pod's start or stop is
    /// simulated: there is no such pod. Knative gives every container a preStop of its
    /// own, which holds SIGTERM until its proxy has drained: 30 s after the last
    /// request (docs/lifecycle.md §5.6).
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: serving.knative.dev/v1
    /// kind: Service
    /// spec:
    ///   template:
    ///     spec:
    ///       containers:
    ///       - image: example/web:1.0
    ///         lifecycle:
    ///           preStop:
    ///             exec: {command: [sleep, "10"]}
    /// ```
    ///
    /// ## Fix
    /// Remove `lifecycle`: the controller's own preStop already holds the container
    /// until requests have stopped. Shutdown work belongs in the app's SIGTERM handler,
    /// within the revision's `timeoutSeconds` (its grace period). The automatic fix
    /// removes the field and is unsafe: a postStart the app relied on goes with it.
    ///
    /// ## Evidence
    /// The manifest and the profile's versions alone: nothing it rests on is assumed, so
    /// it keeps its severity.
    ///
    /// ## References
    /// - docs/lifecycle.md §5.6 (Knative Serving)
    /// - knative/serving `pkg/apis/serving/fieldmask.go` (`ContainerMask`) and
    ///   `pkg/apis/serving/k8s_validation.go` (`validate`), knative-v1.23.0
    /// - https://knative.dev/docs/serving/services/
    pub struct FieldNotAllowed {
        id: "ML406",
        name: "field-not-allowed",
        severity: Error,
        fix: Always,
        group: Configuration,
        summary: "a container field the workload's controller does not allow (Knative's `lifecycle`)",
        since: "0.1.0",
        admission: true,
    }
}

/// A field the controller's webhook refuses.
struct Refused<'a> {
    controller: &'static str,
    container: &'a str,
    field: &'static str,
    path: String,
}

/// Why the controller refuses the pod, as `explain` and the rule say it.
pub(crate) fn refused(container: &str, field: &str) -> String {
    format!("`{field}` is not allowed on container `{container}`: \"must not set the field(s)\"")
}

impl Violation for Refused<'_> {
    const RULE: &'static RuleMeta = &FieldNotAllowed::META;

    fn message(&self) -> String {
        format!(
            "{}'s webhook denies the object: `{}` is not allowed on container `{}` (`validation failed: must not set the field(s): {}`), so nothing is created",
            self.controller, self.field, self.container, self.path
        )
    }

    fn help(&self) -> String {
        format!(
            "remove `{}` from `{}`: {} sets the container's hooks itself, a preStop that holds SIGTERM until requests have stopped; shut down in the app's SIGTERM handler instead",
            self.field, self.container, self.controller
        )
    }
}

impl Rule for FieldNotAllowed {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        for rejection in &pod.plan.rejections {
            let (
                Rejector::Controller(controller),
                RejectionCause::FieldNotAllowed { container, field },
            ) = (rejection.by, &rejection.cause)
            else {
                continue;
            };
            let violation = Refused {
                controller,
                container,
                field,
                path: within_object(&rejection.path, &pod.plan.paths.object),
            };
            let remedy = Remedy::new(
                Applicability::Unsafe,
                format!("remove `{field}` from `{container}` (its hooks go with it)"),
                vec![Change::Remove(rejection.path.clone())],
            );
            findings.push(
                Finding::new(
                    &violation,
                    Label::key(
                        rejection.path.clone(),
                        format!("not allowed by {controller}"),
                    ),
                )
                .container(container)
                .with_fix(Some(remedy)),
            );
        }
    }
}

/// `path` as the API server names it: from the object's root (a List's item is an
/// object of its own).
fn within_object(path: &JsonPath, object: &JsonPath) -> String {
    let tail = path
        .segments()
        .strip_prefix(object.segments())
        .unwrap_or(path.segments());
    JsonPath::from_segments(tail).to_string()
}
