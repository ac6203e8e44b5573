//! An object chosen to lint, as the loader gets it: the name reports give it, its text
//! in kubectl's layout, and the workload its findings belong to when that is another
//! (a pod linted on its controller's behalf).

use serde_json::Value;

use super::{ApiObject, display_name, json_text};
use crate::workload::{Kind, Layout, WorkloadRef};

/// An object to lint, and the workload its findings belong to when that is another.
#[derive(Debug)]
pub struct Linted {
    /// `Kind/namespace/name`, the name reports give it.
    pub name: String,
    /// Its kind, namespace and name.
    pub kind: String,
    /// `metadata.namespace`.
    pub namespace: Option<String>,
    /// `metadata.name`.
    pub object_name: String,
    /// Its JSON as `kubectl get -o json` prints it ([`json_text`]).
    pub text: String,
    /// The workload that owns it, for a pod that is not linted as itself.
    pub owner: Option<WorkloadRef>,
    /// The Istio revision its pod asks for (`istio.io/rev` on the pod or its template).
    pub istio_revision: Option<String>,
}

impl Linted {
    pub(super) fn new(object: &ApiObject, owner: Option<WorkloadRef>) -> Linted {
        let label = if object.kind == "Pod" {
            "/metadata/labels/istio.io~1rev"
        } else {
            "/spec/template/metadata/labels/istio.io~1rev"
        };
        Linted {
            name: display_name(object),
            kind: object.kind.clone(),
            namespace: object.namespace.clone(),
            object_name: object.name.clone(),
            text: json_text(object),
            owner,
            istio_revision: object
                .json
                .pointer(label)
                .and_then(Value::as_str)
                .map(str::to_owned),
        }
    }
}

/// The workload a pod belongs to: `kind`/`name`, or for a kind whose every template is
/// a workload of its own (Argo Workflows), the template the pod runs, named as the
/// linter names it (`nightly/build`).
pub(super) fn owner_of(pod: &ApiObject, kind: Kind, name: &str) -> WorkloadRef {
    let name = match (kind.layout(), pod.argo_template()) {
        (Layout::ArgoTemplates(_), Some(template)) => format!("{name}/{template}"),
        _ => name.to_owned(),
    };
    WorkloadRef {
        kind,
        name,
        namespace: pod.namespace.clone(),
    }
}
