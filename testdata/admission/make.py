#!/usr/bin/env python3
"""Writes the AdmissionReviews in this directory from the corpus files they name.

Each review is what the API server sends a validating webhook: for a Pod, the pod
as it will run, after the mesh's injector (a mutating webhook) added its proxy; for a
workload, the object as applied. The pods are upstream's own injector test data, or its
injected templates (testdata/corpus/istio-inject, testdata/corpus/linkerd-inject).
Run it again after changing a source: python3 testdata/admission/make.py
"""

import json
import pathlib

import yaml

HERE = pathlib.Path(__file__).resolve().parent
CORPUS = HERE.parent / "corpus"


def first(path, kind):
    for document in yaml.safe_load_all((CORPUS / path).read_text()):
        if document and document.get("kind") == kind:
            return document
    raise SystemExit(f"{path}: no {kind}")


def pod_of(workload, namespace, name):
    template = workload["spec"]["template"]
    metadata = dict(template.get("metadata") or {})
    metadata.pop("creationTimestamp", None)
    metadata.update({"name": name, "namespace": namespace})
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": template["spec"]}


def review(uid, obj, resource, group="", version="v1", namespace=None, operation="CREATE", dry_run=False):
    namespace = namespace or obj["metadata"].get("namespace")
    obj = json.loads(json.dumps(obj))
    obj["metadata"].pop("creationTimestamp", None)
    if isinstance(obj.get("spec", {}).get("template"), dict):
        obj["spec"]["template"].get("metadata", {}).pop("creationTimestamp", None)
    kind = {"group": group, "version": version, "kind": obj["kind"]}
    gvr = {"group": group, "version": version, "resource": resource}
    return {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": uid,
            "kind": kind,
            "resource": gvr,
            "requestKind": kind,
            "requestResource": gvr,
            "name": obj["metadata"].get("name", ""),
            "namespace": namespace,
            "operation": operation,
            "userInfo": {"username": "kubernetes-admin", "groups": ["system:masters", "system:authenticated"]},
            "object": obj,
            "oldObject": None,
            "dryRun": dry_run,
            "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions", "fieldManager": "kubectl-client-side-apply"},
        },
    }


def write(name, data):
    (HERE / name).write_text(json.dumps(data, indent=2) + "\n")


istio = first("istio-inject/istio-86c9f01/native-sidecar-opt-out.yaml.injected", "Pod")
istio["metadata"]["namespace"] = "shop"
write("pod-istio.json", review("6d3c0f2e-istio-pod", istio, "pods"))

linkerd = first("linkerd-inject/linkerd2-version-2.19/inject_emojivoto_deployment.golden.yml", "Deployment")
write("pod-linkerd.json", review("9a1b2c3d-linkerd-pod", pod_of(linkerd, "emojivoto", "web-5f86686c4d-9w8lz"), "pods"))

job = first("istio-inject/istio-1.24.0/job.yaml.injected", "Job")
job["metadata"]["namespace"] = "batch"
write("job-istio.json", review("0f0e0d0c-istio-job", job, "jobs", group="batch"))

clean = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "plain"},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {
                "terminationGracePeriodSeconds": 30,
                "containers": [
                    {
                        "name": "web",
                        "image": "nginx:1.27",
                        "ports": [{"containerPort": 80}],
                        "lifecycle": {"preStop": {"sleep": {"seconds": 5}}},
                    }
                ],
            },
        },
    },
}
write("deployment-clean.json", review("1a2b3c4d-clean-deployment", clean, "deployments", group="apps"))

# The same Deployment applied in a namespace the profile labels for Istio injection:
# the template is linted as the injector will run it.
meshed = json.loads(json.dumps(clean))
meshed["metadata"]["namespace"] = "shop"
del meshed["spec"]["template"]["spec"]["containers"][0]["lifecycle"]
write("deployment-shop.json", review("5e6f7a8b-shop-deployment", meshed, "deployments", group="apps", dry_run=True))
