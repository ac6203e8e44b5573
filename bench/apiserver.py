#!/usr/bin/env python3
"""A stand-in Kubernetes API server for the cluster benchmark: N pods, made as they are
asked for, page by page, so that the server itself holds one page at a time.

    python3 bench/apiserver.py --pods 400000 --shape owned --port-file PORT

It answers what `kubectl mesh-lifecycle lint --cluster -A` asks through kubectl:
`/version`, aggregated discovery (the documents of `testdata/cluster/discovery/`), the
lists of every workload kind (with `limit` and `continue`, as the API server pages
them), the namespaces, and 404 for the ConfigMaps it looks for. The pods are spread
over 100 namespaces; with `--shape owned` each belongs to one of N/1000 Deployments
through its ReplicaSet (a real cluster's shape: one pod per revision is linted), with
`--shape standalone` none has an owner (every pod is linted).

Python 3.11 standard library only; the tests' stand-in (tests/it/common/apiserver.rs)
answers the same requests from recorded objects.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMESPACES = 100
PODS_PER_DEPLOYMENT = 1000


def discovery(name: str) -> bytes:
    with open(os.path.join(ROOT, "testdata", "cluster", "discovery", name), "rb") as f:
        return f.read()


class Cluster:
    def __init__(self, pods: int, shape: str) -> None:
        self.pods = pods
        self.shape = shape
        self.deployments = max(1, pods // PODS_PER_DEPLOYMENT) if shape == "owned" else 0

    def namespace(self, index: int) -> str:
        return f"team-{index % NAMESPACES:03d}"

    def deployment(self, index: int) -> dict:
        name = f"web-{index:05d}"
        return {
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": self.namespace(index), "uid": f"deploy-{index}",
                         "labels": {"app": name}},
            "spec": {"replicas": PODS_PER_DEPLOYMENT, "selector": {"matchLabels": {"app": name}},
                     "template": self.template(name)},
        }

    def replicaset(self, index: int) -> dict:
        name = f"web-{index:05d}"
        return {
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": f"{name}-6d5f8c7b9", "namespace": self.namespace(index), "uid": f"rs-{index}",
                         "labels": {"app": name, "pod-template-hash": "6d5f8c7b9"},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": name,
                                              "uid": f"deploy-{index}", "controller": True}]},
            "spec": {"replicas": PODS_PER_DEPLOYMENT, "template": self.template(name)},
        }

    @staticmethod
    def template(app: str) -> dict:
        return {
            "metadata": {"labels": {"app": app}},
            "spec": {"terminationGracePeriodSeconds": 30,
                     "containers": [{"name": "app", "image": "registry.example.com/web:1.4.2",
                                     "ports": [{"containerPort": 8080}],
                                     "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}}}]},
        }

    def pod(self, index: int) -> dict:
        metadata = {"name": f"pod-{index:07d}", "uid": f"pod-{index}"}
        if self.shape == "owned":
            owner = index % self.deployments
            app = f"web-{owner:05d}"
            metadata.update(
                name=f"{app}-6d5f8c7b9-{index:07d}", namespace=self.namespace(owner),
                labels={"app": app, "pod-template-hash": "6d5f8c7b9"},
                ownerReferences=[{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"{app}-6d5f8c7b9",
                                  "uid": f"rs-{owner}", "controller": True}])
        else:
            app = "standalone"
            metadata.update(namespace=self.namespace(index), labels={"app": app})
        spec = self.template(app)["spec"]
        spec["nodeName"] = f"node-{index % 50}"
        return {"metadata": metadata, "spec": spec, "status": {"phase": "Running"}}

    def items(self, plural: str) -> tuple[int, callable]:
        """How many objects a list holds, and how to make the i-th."""
        if plural == "pods":
            return self.pods, self.pod
        if plural == "deployments":
            return self.deployments, self.deployment
        if plural == "replicasets":
            return self.deployments, self.replicaset
        if plural == "namespaces":
            return NAMESPACES, lambda i: {"metadata": {"name": self.namespace(i), "uid": f"ns-{i}"}}
        return 0, None


KINDS = {"pods": ("v1", "PodList"), "namespaces": ("v1", "NamespaceList"), "nodes": ("v1", "NodeList"),
         "replicationcontrollers": ("v1", "ReplicationControllerList"),
         "deployments": ("apps/v1", "DeploymentList"), "replicasets": ("apps/v1", "ReplicaSetList"),
         "statefulsets": ("apps/v1", "StatefulSetList"), "daemonsets": ("apps/v1", "DaemonSetList"),
         "jobs": ("batch/v1", "JobList"), "cronjobs": ("batch/v1", "CronJobList"),
         "mutatingwebhookconfigurations": ("admissionregistration.k8s.io/v1",
                                           "MutatingWebhookConfigurationList")}


def handler(cluster: Cluster, version: bytes, api: bytes, apis: bytes):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def not_found(self) -> None:
            self.send(404, json.dumps({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                       "message": "not found", "reason": "NotFound", "code": 404}).encode())

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            if url.path == "/version":
                return self.send(200, version)
            if url.path in ("/api", "/apis"):
                body = api if url.path == "/api" else apis
                return self.send(200, body, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
            parts = url.path.strip("/").split("/")
            parts = parts[2:] if parts[0] == "api" else parts[3:]
            namespace = None
            if len(parts) >= 3 and parts[0] == "namespaces":
                namespace, parts = parts[1], parts[2:]
            if len(parts) != 1 or parts[0] not in KINDS:
                return self.not_found()
            plural = parts[0]
            count, make = cluster.items(plural)
            start = int(query.get("continue", ["0"])[0])
            limit = int(query.get("limit", ["0"])[0]) or count
            wanted = [i for i in range(start, min(count, start + limit))]
            items = [make(i) for i in wanted]
            if namespace is not None:
                items = [item for item in items if item["metadata"].get("namespace") == namespace]
            metadata = {"resourceVersion": "4242"}
            if start + limit < count:
                metadata["continue"] = str(start + limit)
            api_version, kind = KINDS[plural]
            self.send(200, json.dumps({"kind": kind, "apiVersion": api_version, "metadata": metadata,
                                       "items": items}).encode())

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pods", type=int, default=400_000)
    parser.add_argument("--shape", choices=["owned", "standalone"], default="owned")
    parser.add_argument("--port-file", required=True, help="where to write the port once listening")
    args = parser.parse_args()
    with open(os.path.join(ROOT, "testdata", "cluster", "mesh", "version.json"), "rb") as f:
        version = f.read()
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(Cluster(args.pods, args.shape), version,
                                                            discovery("api.json"), discovery("apis.json")))
    server.daemon_threads = True
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(args.port_file + ".tmp", args.port_file)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    threading.Event().wait()


if __name__ == "__main__":
    main()
