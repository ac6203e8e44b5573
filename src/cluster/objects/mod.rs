//! The objects kubectl printed: each one's identity and controller ([`ApiObject`]),
//! read from kubectl's output page by page (`page`), which of them are linted on whose
//! behalf (`selection`), and what is kept of each to lint (`linted`). Each is named in
//! reports as kubectl users know it ([`display_name`]) and shown in the layout `kubectl
//! get -o json` prints ([`json_text`]), so that findings point into what the user sees.

mod linted;
mod page;
mod selection;

use serde_json::Value;

use crate::workload::{DeclaredKind, Kind};

pub use linted::Linted;
pub use page::{Page, parse_list, parse_page};
pub use selection::{Selection, Wanted, select};

/// One object as kubectl printed it.
#[derive(Clone, Debug)]
pub struct ApiObject {
    /// The object, as `kubectl get -o json` prints it.
    pub json: Value,
    /// `apiVersion`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    /// `metadata.namespace`.
    pub namespace: Option<String>,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.uid`.
    pub uid: Option<String>,
    /// The owner reference with `controller: true`.
    pub controller: Option<OwnerRef>,
}

/// An owner reference: the controller of an object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerRef {
    /// Its `apiVersion`: which group's kind `kind` is (a ReplicaSet's owner may be a
    /// Deployment or an Argo Rollout, a Deployment's a Knative Revision).
    pub api_version: String,
    /// Its kind.
    pub kind: String,
    /// Its name (in the object's namespace: owners are never in another one).
    pub name: String,
    /// Its uid.
    pub uid: String,
}

impl ApiObject {
    /// Reads the identity of an object; `None` for something that is not one.
    pub fn new(json: Value) -> Option<ApiObject> {
        let text = |value: &Value| value.as_str().map(str::to_owned);
        let kind = text(json.get("kind")?)?;
        let metadata = json.get("metadata")?;
        let name = text(metadata.get("name")?)?;
        let controller = metadata
            .get("ownerReferences")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|owner| owner.get("controller") == Some(&Value::Bool(true)))
            .and_then(|owner| {
                Some(OwnerRef {
                    api_version: owner.get("apiVersion").and_then(text).unwrap_or_default(),
                    kind: text(owner.get("kind")?)?,
                    name: text(owner.get("name")?)?,
                    uid: text(owner.get("uid")?)?,
                })
            });
        Some(ApiObject {
            api_version: json.get("apiVersion").and_then(text).unwrap_or_default(),
            kind,
            namespace: metadata.get("namespace").and_then(text),
            name,
            uid: metadata.get("uid").and_then(text),
            controller,
            json,
        })
    }

    /// A label of the object.
    pub fn label(&self, key: &str) -> Option<&str> {
        self.json.pointer("/metadata/labels")?.get(key)?.as_str()
    }

    /// The workload kind, when the object is one (of a group the linter reads).
    fn workload_kind(&self, declared: &[&'static DeclaredKind]) -> Option<Kind> {
        Kind::of(&self.api_version, &self.kind, declared)
    }

    /// The Argo Workflows template a workflow's pod runs: the `name` of the template
    /// the controller gives its containers in `ARGO_TEMPLATE` (argo-workflows v4.1.2,
    /// `workflow/controller/workflowpod.go`, `createWorkflowPod`); `None` for another
    /// pod, or one whose template was offloaded to a ConfigMap.
    fn argo_template(&self) -> Option<String> {
        let spec = self.json.get("spec")?;
        ["initContainers", "containers"]
            .into_iter()
            .filter_map(|list| spec.get(list)?.as_array())
            .flatten()
            .filter_map(|container| container.get("env")?.as_array())
            .flatten()
            .filter(|var| var.get("name").and_then(Value::as_str) == Some("ARGO_TEMPLATE"))
            .find_map(|var| {
                let template: Value = serde_json::from_str(var.get("value")?.as_str()?).ok()?;
                Some(template.get("name")?.as_str()?.to_owned())
            })
    }
}

/// The name reports give an object in place of a file: `Deployment/shop/web`.
pub fn display_name(object: &ApiObject) -> String {
    match &object.namespace {
        Some(namespace) => format!("{}/{namespace}/{}", object.kind, object.name),
        None => format!("{}/{}", object.kind, object.name),
    }
}

/// The object as `kubectl get KIND NAME -o json` prints it (sorted keys, four spaces),
/// so that a finding's line and column point into what the user sees there.
pub fn json_text(object: &ApiObject) -> String {
    use serde::Serialize;
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    object
        .json
        .serialize(&mut serializer)
        .expect("a JSON value serializes");
    out.push(b'\n');
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_text_is_kubectls_layout() {
        let pod =
            ApiObject::new(json!({"metadata": {"name": "a"}, "kind": "Pod", "apiVersion": "v1"}))
                .unwrap();
        assert_eq!(
            json_text(&pod),
            "{\n    \"apiVersion\": \"v1\",\n    \"kind\": \"Pod\",\n    \"metadata\": {\n        \"name\": \"a\"\n    }\n}\n"
        );
    }
}
