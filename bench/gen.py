#!/usr/bin/env python3
"""Generates the benchmark corpora: seeded, deterministic manifests that look like what
`istioctl kube-inject`, `linkerd inject`, `helm template` and `kubectl get -o yaml`
produce.

    python3 bench/gen.py OUT_DIR            # all corpora (what bench/run.py does)

Corpora, under OUT_DIR:

    single/deploy.yaml          one meshed Deployment (Istio-injected, about 10 KB)
    deployments/deploy-NNNN.yaml  1,000 meshed Deployments, one per file
    stream-50MB.yaml            a 50 MB multi-document stream of mixed kinds
    stream-5MB.yaml             the first 5 MB of the same stream (same documents)
    deployments-stream.yaml     the 1,000 Deployments as one multi-document stream
    deployments-list.yaml       the same 1,000 as one `List` (`kubectl get -o yaml`)
    deployments-list.json       the same 1,000 as one JSON `List` (`kubectl get -o json`)
    deployments-list-500.yaml   the first 500 of them as one `List`
    pod-10k.yaml, pod-20k.yaml  one Pod with 10,000 (20,000) containers
    manifest.json               what was generated: sizes, document counts, sha256

The same seed gives byte-identical files on every machine: only `random.Random`
methods whose output is stable across Python 3 versions are used, and nothing depends
on hash ordering.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import sys

SEED = 20261130
# The unit of the mixed stream: the small stream is one segment, the large one ten.
SEGMENT_BYTES = 5 * 1000 * 1000
GENERATOR_VERSION = 1

# ---------------------------------------------------------------------------------------
# A small YAML emitter with the styles real manifests mix: block and flow collections,
# indented and compact sequences, literal and folded block scalars, comments.


class Flow:
    """A collection emitted in flow style: `{a: 1}` or `[a, b]`."""

    def __init__(self, value):
        self.value = value


class Lit:
    """A string emitted as a literal block scalar (`|`, `|-`)."""

    def __init__(self, text: str, chomp: str = ""):
        self.text = text
        self.chomp = chomp


class Folded:
    """A string emitted as a folded block scalar (`>-`)."""

    def __init__(self, text: str):
        self.text = text


class Quoted:
    """A string that is always quoted, with `'` or `"`."""

    def __init__(self, text: str, quote: str = '"'):
        self.text = text
        self.quote = quote


class Comment:
    """A comment line among a mapping's entries (used as a key, its value is ignored)."""

    def __init__(self, text: str):
        self.text = text


class Trailing:
    """A scalar value followed by a comment on the same line."""

    def __init__(self, value, comment: str):
        self.value = value
        self.comment = comment


_YAML11_WORDS = {
    "y", "yes", "n", "no", "true", "false", "on", "off", "null", "~", "",
}


def _needs_quotes(text: str) -> bool:
    if text.lower() in _YAML11_WORDS:
        return True
    if text[0] in "!&*{}[],#|>@`\"'% " or text[-1] in ": ":
        return True
    if text[0] in "-?:" and (len(text) == 1 or text[1] == " "):
        return True
    if ": " in text or " #" in text or "\n" in text or "\t" in text:
        return True
    try:
        float(text.replace("_", ""))
        return True
    except ValueError:
        pass
    # YAML 1.1 hex, octal and base-60 numbers (`1:30` is 90 to go-yaml v2).
    return bool(re.fullmatch(r"[-+]?(0x[0-9a-fA-F_]+|0o?[0-7_]+|[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?)", text))


def scalar(value, flow: bool = False) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Quoted):
        if value.quote == "'":
            return "'" + value.text.replace("'", "''") + "'"
        return json.dumps(value.text)
    text = str(value)
    if _needs_quotes(text) or (flow and any(c in text for c in ",[]{}")):
        return json.dumps(text)
    return text


def _flow(value) -> str:
    if isinstance(value, Flow):
        value = value.value
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return scalar(value, flow=True)


def _block_scalar(header: str, text: str, indent: int, out: list) -> None:
    out[-1] += " " + header
    pad = " " * indent
    if text.endswith("\n"):
        text = text[:-1]
    for line in text.split("\n"):
        out.append(pad + line if line else "")


def _value(value, indent: int, out: list, seq_indent: int) -> None:
    """Appends `value` after a `key:` or `- ` already at the end of out[-1]."""
    if isinstance(value, Trailing):
        _value(value.value, indent, out, seq_indent)
        out[-1] += "  # " + value.comment
    elif isinstance(value, Flow):
        out[-1] += " " + _flow(value)
    elif isinstance(value, Lit):
        _block_scalar("|" + value.chomp, value.text, indent + 2, out)
    elif isinstance(value, Folded):
        _block_scalar(">-", value.text, indent + 2, out)
    elif isinstance(value, dict):
        if not value:
            out[-1] += " {}"
        else:
            _mapping(value, indent + 2, out, seq_indent)
    elif isinstance(value, list):
        if not value:
            out[-1] += " []"
        else:
            _sequence(value, indent + seq_indent, out, seq_indent)
    else:
        out[-1] += " " + scalar(value)


def _mapping(mapping: dict, indent: int, out: list, seq_indent: int) -> None:
    pad = " " * indent
    for key, value in mapping.items():
        if isinstance(key, Comment):
            out.append(f"{pad}# {key.text}")
            continue
        out.append(f"{pad}{key}:")
        _value(value, indent, out, seq_indent)


def _sequence(items: list, indent: int, out: list, seq_indent: int) -> None:
    pad = " " * indent
    for item in items:
        if isinstance(item, dict) and item and not isinstance(item, Flow):
            inner: list = []
            _mapping(item, indent + 2, inner, seq_indent)
            first = next(i for i, line in enumerate(inner) if not line.lstrip().startswith("#"))
            out.extend(inner[:first])
            out.append(pad + "- " + inner[first][indent + 2:])
            out.extend(inner[first + 1:])
        else:
            out.append(pad + "-")
            _value(item, indent, out, seq_indent)


def emit(document: dict, seq_indent: int = 0, header: list | None = None) -> str:
    """One document; `seq_indent` 0 is kubectl's style, 2 is Helm chart style."""
    out = list(header or [])
    _mapping(document, 0, out, seq_indent)
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------
# Vocabulary.

TEAMS = ["payments", "checkout", "catalog", "search", "identity", "ledger", "shipping",
         "billing", "growth", "platform", "ml", "risk", "notifications", "media", "ads"]
NOUNS = ["api", "web", "worker", "gateway", "frontend", "backend", "indexer", "scheduler",
         "consumer", "producer", "cache", "auth", "router", "exporter", "sync", "reporter",
         "ingest", "renderer", "resolver", "notifier", "pricing", "inventory", "cart", "orders"]
QUALIFIERS = ["", "", "", "v2", "internal", "public", "batch", "stream", "edge", "core", "admin"]
REGISTRIES = ["ghcr.io/acme", "registry.example.com/platform", "123456789012.dkr.ecr.eu-west-1.amazonaws.com",
              "europe-docker.pkg.dev/acme-prod/apps", "docker.io/acmecorp", "quay.io/acme"]
NAMESPACES = ["default", "prod", "staging", "payments", "checkout", "catalog", "search", "shop",
              "identity", "data", "ml-serving", "edge"]
LANGS = [
    ("java", ["java", "-XX:MaxRAMPercentage=75", "-jar", "/app/app.jar"], 8080),
    ("go", ["/app/server"], 8080),
    ("node", ["node", "dist/server.js"], 3000),
    ("python", ["gunicorn", "-b", "0.0.0.0:8000", "-w", "4", "app.wsgi:application"], 8000),
    ("dotnet", ["dotnet", "App.dll"], 5000),
    ("rust", ["/usr/local/bin/service"], 8080),
]
ISTIO_VERSIONS = ["1.20.8", "1.22.6", "1.23.4", "1.24.2", "1.25.1", "1.26.0"]
LINKERD_VERSIONS = ["stable-2.14.10", "edge-24.11.8", "enterprise-2.16.2", "edge-25.4.4"]


# Names handed out so far in the corpus being generated: a cluster has one object of a
# kind per name and namespace, so a name that comes up again gets a numeric suffix.
_names: dict[str, int] = {}


def name_of(rng: random.Random) -> tuple[str, str]:
    team = rng.choice(TEAMS)
    parts = [team, rng.choice(NOUNS)]
    qualifier = rng.choice(QUALIFIERS)
    if qualifier:
        parts.append(qualifier)
    name = "-".join(parts)
    _names[name] = _names.get(name, 0) + 1
    if _names[name] > 1:
        name += f"-{_names[name]}"
    return name, team


def image_of(rng: random.Random, app: str) -> str:
    tag = rng.choice([
        f"{rng.randrange(1, 5)}.{rng.randrange(0, 30)}.{rng.randrange(0, 12)}",
        f"v{rng.randrange(1, 3)}.{rng.randrange(0, 40)}.{rng.randrange(0, 9)}",
        "sha-" + "".join(rng.choice("0123456789abcdef") for _ in range(12)),
        f"{rng.randrange(2023, 2027)}.{rng.randrange(1, 13):02d}.{rng.randrange(1, 29):02d}-"
        + "".join(rng.choice("0123456789abcdef") for _ in range(7)),
    ])
    return f"{rng.choice(REGISTRIES)}/{app}:{tag}"


def hexstr(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def b64(rng: random.Random, n: int) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    text = "".join(rng.choice(alphabet) for _ in range(n))
    return text + "=" * (-len(text) % 4)


# ---------------------------------------------------------------------------------------
# Pieces of pod specs.


def app_env(rng: random.Random, app: str, team: str, namespace: str) -> list:
    env = [
        {"name": "APP_NAME", "value": app},
        {"name": "LOG_LEVEL", "value": rng.choice(["info", "debug", "warn", "INFO"])},
        {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        {"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
    ]
    candidates = [
        {"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": "http://otel-collector.observability:4317"},
        {"name": "OTEL_SERVICE_NAME", "value": app},
        {"name": "DATABASE_URL", "valueFrom": {"secretKeyRef": {"name": f"{app}-db", "key": "url"}}},
        {"name": "REDIS_ADDR", "value": f"redis-{team}.{namespace}.svc.cluster.local:6379"},
        {"name": "HTTP_TIMEOUT", "value": Quoted(f"{rng.choice([5, 10, 15, 30])}s")},
        {"name": "MAX_CONNECTIONS", "value": Quoted(str(rng.choice([50, 100, 200, 500])))},
        {"name": "FEATURE_FLAGS", "value": ",".join(rng.sample(["new-checkout", "fast-search", "beta-ui", "v2-pricing", "dark-mode"], 3))},
        {"name": "GOMAXPROCS", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": Quoted("1")}}},
        {"name": "JAVA_TOOL_OPTIONS", "value": "-XX:+UseG1GC -XX:MaxGCPauseMillis=200 -Dfile.encoding=UTF-8"},
        {"name": "KAFKA_BROKERS", "value": "kafka-0.kafka:9092,kafka-1.kafka:9092,kafka-2.kafka:9092"},
        {"name": "SHUTDOWN_TIMEOUT", "value": Quoted(f"{rng.choice([10, 20, 25, 30])}s", "'")},
        {"name": "API_KEY", "valueFrom": {"secretKeyRef": {"name": f"{team}-api-keys", "key": "primary", "optional": True}}},
        {"name": "NODE_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.hostIP"}}},
        {"name": "ENABLE_METRICS", "value": Quoted("true")},
    ]
    env.extend(rng.sample(candidates, rng.randrange(2, 10)))
    return env


def probe(rng: random.Random, port: int, path: str, kind: str) -> dict:
    handler = rng.random()
    if handler < 0.75:
        probe = {"httpGet": {"path": path, "port": rng.choice([port, "http"]), "scheme": "HTTP"}}
    elif handler < 0.9:
        probe = {"tcpSocket": {"port": port}}
    else:
        probe = {"exec": {"command": ["/bin/grpc_health_probe", f"-addr=:{port}"]}}
    if kind == "startup":
        probe.update(periodSeconds=rng.choice([1, 2, 5]), failureThreshold=rng.choice([30, 60, 120]))
    else:
        probe.update(
            initialDelaySeconds=rng.choice([0, 5, 10, 15, 30]),
            periodSeconds=rng.choice([5, 10, 15, 20]),
            timeoutSeconds=rng.choice([1, 2, 3, 5]),
            failureThreshold=rng.choice([3, 5, 6]),
        )
        if rng.random() < 0.5:
            probe["successThreshold"] = 1
    return probe


def app_prestop(rng: random.Random, flow: bool) -> dict | None:
    roll = rng.random()
    seconds = rng.choice([3, 5, 5, 10, 10, 15, 20, 25, 30, 45, 60])
    if roll < 0.15:
        return None
    if roll < 0.45:
        command = ["sleep", str(seconds)]
        return {"exec": {"command": Flow(command) if flow else command}}
    if roll < 0.65:
        return {"exec": {"command": ["/bin/sh", "-c", Lit(
            f"echo \"draining\" >> /proc/1/fd/1\n"
            f"curl -s -X POST http://127.0.0.1:8081/admin/drain || true\n"
            f"sleep {seconds}\n")]}}
    if roll < 0.8:
        return {"sleep": {"seconds": seconds}}
    if roll < 0.9:
        return {"httpGet": {"path": "/shutdown", "port": 8081}}
    return {"exec": {"command": ["sh", "-c", Folded(
        f"sleep {seconds} &&\nkill -SIGTERM 1 &&\nwhile kill -0 1; do sleep 1; done")]}}


def app_container(rng: random.Random, app: str, team: str, namespace: str, flow: bool) -> dict:
    lang, command, port = rng.choice(LANGS)
    container: dict = {"name": app if rng.random() < 0.7 else "app", "image": image_of(rng, app)}
    if rng.random() < 0.6:
        container["imagePullPolicy"] = rng.choice(["IfNotPresent", "Always"])
    if rng.random() < 0.5:
        container["command" if rng.random() < 0.5 else "args"] = Flow(command) if flow else command
    ports = [{"name": "http", "containerPort": port, "protocol": "TCP"}]
    if rng.random() < 0.6:
        ports.append({"name": "http-metrics", "containerPort": rng.choice([9090, 9100, 8081])})
    if rng.random() < 0.2:
        ports.append({"name": "grpc", "containerPort": rng.choice([9000, 50051])})
    container["ports"] = Flow(ports) if flow and len(ports) == 1 else ports
    container["env"] = app_env(rng, app, team, namespace)
    if rng.random() < 0.3:
        container["envFrom"] = [{"configMapRef": {"name": f"{app}-config"}}]
    cpu = rng.choice(["50m", "100m", "250m", "500m", "1", "2"])
    memory = rng.choice(["128Mi", "256Mi", "512Mi", "1Gi", "2Gi"])
    resources = {"requests": {"cpu": cpu, "memory": memory}}
    if rng.random() < 0.7:
        resources["limits"] = {"memory": memory} if rng.random() < 0.5 else {"cpu": rng.choice(["1", "2", "4"]), "memory": memory}
    container["resources"] = Flow(resources["requests"]) if flow and "limits" not in resources else resources
    if rng.random() < 0.6:
        container["startupProbe"] = probe(rng, port, "/healthz", "startup")
    container["readinessProbe"] = probe(rng, port, rng.choice(["/ready", "/readyz", "/health/readiness"]), "readiness")
    if rng.random() < 0.85:
        container["livenessProbe"] = probe(rng, port, rng.choice(["/live", "/livez", "/health/liveness"]), "liveness")
    prestop = app_prestop(rng, flow)
    if prestop is not None:
        container["lifecycle"] = {"preStop": prestop}
    container["securityContext"] = {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": rng.random() < 0.7,
        "runAsNonRoot": True,
        "capabilities": {"drop": Flow(["ALL"]) if flow else ["ALL"]},
    }
    mounts = [{"name": "tmp", "mountPath": "/tmp"}]
    if rng.random() < 0.5:
        mounts.append({"name": "config", "mountPath": "/etc/app", "readOnly": True})
    container["volumeMounts"] = mounts
    return container


def istio_proxy(rng: random.Random, app: str, namespace: str, version: str, app_port: int,
                native: bool, hold: bool, flow: bool) -> dict:
    env = [
        {"name": "PILOT_CERT_PROVIDER", "value": "istiod"},
        {"name": "CA_ADDR", "value": "istiod.istio-system.svc:15012"},
        {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        {"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
        {"name": "INSTANCE_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
        {"name": "SERVICE_ACCOUNT", "valueFrom": {"fieldRef": {"fieldPath": "spec.serviceAccountName"}}},
        {"name": "HOST_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.hostIP"}}},
        {"name": "ISTIO_CPU_LIMIT", "valueFrom": {"resourceFieldRef": {"divisor": Quoted("0"), "resource": "limits.cpu"}}},
        {"name": "PROXY_CONFIG", "value": Lit("{}")},
        {"name": "ISTIO_META_POD_PORTS", "value": Lit(
            "[\n    {\"name\":\"http\",\"containerPort\":%d,\"protocol\":\"TCP\"}\n]" % app_port, "-")},
        {"name": "ISTIO_META_APP_CONTAINERS", "value": app},
        {"name": "GOMEMLIMIT", "valueFrom": {"resourceFieldRef": {"divisor": Quoted("0"), "resource": "limits.memory"}}},
        {"name": "GOMAXPROCS", "valueFrom": {"resourceFieldRef": {"divisor": Quoted("0"), "resource": "limits.cpu"}}},
        {"name": "ISTIO_META_CLUSTER_ID", "value": "Kubernetes"},
        {"name": "ISTIO_META_NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
        {"name": "ISTIO_META_INTERCEPTION_MODE", "value": "REDIRECT"},
        {"name": "ISTIO_META_WORKLOAD_NAME", "value": app},
        {"name": "ISTIO_META_OWNER", "value": f"kubernetes://apis/apps/v1/namespaces/{namespace}/deployments/{app}"},
        {"name": "ISTIO_META_MESH_ID", "value": "cluster.local"},
        {"name": "TRUST_DOMAIN", "value": "cluster.local"},
    ]
    proxy: dict = {
        "name": "istio-proxy",
        "image": f"docker.io/istio/proxyv2:{version}",
        "args": ["proxy", "sidecar", "--domain", "$(POD_NAMESPACE).svc.cluster.local",
                 "--proxyLogLevel=warning", "--proxyComponentLogLevel=misc:error",
                 "--log_output_level=default:info"],
        "env": env,
        "ports": [{"containerPort": 15090, "name": "http-envoy-prom", "protocol": "TCP"}],
        "readinessProbe": {
            "failureThreshold": rng.choice([4, 30]),
            "httpGet": {"path": "/healthz/ready", "port": 15021},
            "periodSeconds": rng.choice([2, 15]),
            "timeoutSeconds": 3,
        },
        "resources": {
            "limits": {"cpu": Quoted(rng.choice(["2", "1"])), "memory": "1Gi"},
            "requests": {"cpu": rng.choice(["10m", "50m", "100m"]), "memory": rng.choice(["40Mi", "128Mi"])},
        },
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "capabilities": {"drop": ["ALL"]},
            "privileged": False,
            "readOnlyRootFilesystem": True,
            "runAsGroup": 1337,
            "runAsNonRoot": True,
            "runAsUser": 1337,
        },
        "startupProbe": {
            "failureThreshold": 600,
            "httpGet": {"path": "/healthz/ready", "port": 15021},
            "periodSeconds": 1,
            "timeoutSeconds": 3,
        },
        "volumeMounts": [
            {"mountPath": "/var/run/secrets/workload-spiffe-uds", "name": "workload-socket"},
            {"mountPath": "/var/run/secrets/credential-uds", "name": "credential-socket"},
            {"mountPath": "/var/run/secrets/workload-spiffe-credentials", "name": "workload-certs"},
            {"mountPath": "/var/run/secrets/istio", "name": "istiod-ca-cert"},
            {"mountPath": "/var/lib/istio/data", "name": "istio-data"},
            {"mountPath": "/etc/istio/proxy", "name": "istio-envoy"},
            {"mountPath": "/var/run/secrets/tokens", "name": "istio-token"},
            {"mountPath": "/etc/istio/pod", "name": "istio-podinfo"},
        ],
    }
    if rng.random() < 0.5:
        proxy["livenessProbe"] = {
            "failureThreshold": 30,
            "httpGet": {"path": "/healthz/ready", "port": 15021},
            "initialDelaySeconds": rng.choice([1, 10]),
            "periodSeconds": rng.choice([2, 10]),
        }
    lifecycle = {}
    # The injector adds this hook with holdApplicationUntilProxyStarts; a hand-edited
    # manifest sometimes lost it.
    if (hold and rng.random() < 0.9) or (not hold and rng.random() < 0.05):
        lifecycle["postStart"] = {"exec": {"command": ["pilot-agent", "wait"]}}
    roll = rng.random()
    if roll < 0.3:
        # The Istio FAQ's drain hook: wait until the app has closed its listeners.
        lifecycle["preStop"] = {"exec": {"command": ["/bin/sh", "-c", Lit(
            "while [ $(netstat -plunt | grep tcp | grep -v envoy | wc -l | xargs) -ne 0 ]; do\n"
            "  sleep 1\n"
            "done")]}}
    elif roll < 0.65:
        seconds = rng.choice([5, 10, 15, 20, 25, 30, 40])
        lifecycle["preStop"] = {"exec": {"command": Flow(["sleep", str(seconds)]) if flow else ["sleep", str(seconds)]}}
    if lifecycle:
        proxy["lifecycle"] = lifecycle
    if native:
        proxy["restartPolicy"] = "Always"
    return proxy


def istio_init(version: str) -> dict:
    return {
        "args": ["istio-iptables", "-p", Quoted("15001"), "-z", Quoted("15006"), "-u", Quoted("1337"),
                 "-m", "REDIRECT", "-i", Quoted("*", "'"), "-x", Quoted(""), "-b", Quoted("*", "'"),
                 "-d", "15090,15021,15020", "--log_output_level=default:info"],
        "image": f"docker.io/istio/proxyv2:{version}",
        "name": "istio-init",
        "resources": {"limits": {"cpu": Quoted("2"), "memory": "1Gi"},
                      "requests": {"cpu": "10m", "memory": "40Mi"}},
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "capabilities": {"add": ["NET_ADMIN", "NET_RAW"], "drop": ["ALL"]},
            "privileged": False,
            "readOnlyRootFilesystem": False,
            "runAsGroup": 0,
            "runAsNonRoot": False,
            "runAsUser": 0,
        },
    }


def istio_volumes() -> list:
    return [
        {"name": "workload-socket", "emptyDir": {}},
        {"name": "credential-socket", "emptyDir": {}},
        {"name": "workload-certs", "emptyDir": {}},
        {"emptyDir": {"medium": "Memory"}, "name": "istio-envoy"},
        {"emptyDir": {}, "name": "istio-data"},
        {"downwardAPI": {"items": [
            {"fieldRef": {"fieldPath": "metadata.labels"}, "path": "labels"},
            {"fieldRef": {"fieldPath": "metadata.annotations"}, "path": "annotations"},
        ]}, "name": "istio-podinfo"},
        {"name": "istio-token", "projected": {"sources": [{"serviceAccountToken": {
            "audience": "istio-ca", "expirationSeconds": 43200, "path": "istio-token"}}]}},
        {"configMap": {"name": "istio-ca-root-cert"}, "name": "istiod-ca-cert"},
    ]


def istio_pod_annotations(rng: random.Random, app: str, native: bool) -> tuple[dict, bool]:
    """The annotations of an injected pod template, and whether the proxy holds the app."""
    annotations: dict = {}
    hold = rng.random() < 0.4
    config_lines = []
    if hold:
        config_lines.append("holdApplicationUntilProxyStarts: true")
    if rng.random() < 0.5:
        config_lines.append(f"terminationDrainDuration: {rng.choice([5, 10, 15, 20, 25, 30, 45])}s")
    if rng.random() < 0.2:
        config_lines.append("proxyMetadata:\n  EXIT_ON_ZERO_ACTIVE_CONNECTIONS: \"true\"")
    if config_lines:
        annotations["proxy.istio.io/config"] = Lit("\n".join(config_lines) + "\n")
    annotations["istio.io/rev"] = "default"
    annotations["kubectl.kubernetes.io/default-container"] = app
    annotations["kubectl.kubernetes.io/default-logs-container"] = app
    annotations["prometheus.io/path"] = "/stats/prometheus"
    annotations["prometheus.io/port"] = Quoted("15020")
    annotations["prometheus.io/scrape"] = Quoted("true")
    init = [] if native else ['"istio-init"']
    containers = [] if native else ['"istio-proxy"']
    annotations["sidecar.istio.io/status"] = Quoted(
        '{"initContainers":[%s],"containers":[%s],"volumes":["workload-socket","credential-socket",'
        '"workload-certs","istio-envoy","istio-data","istio-podinfo","istio-token","istiod-ca-cert"],'
        '"imagePullSecrets":null,"revision":"default"}' % (
            ",".join(init + (['"istio-proxy"'] if native else [])), ",".join(containers)), "'")
    if rng.random() < 0.1:
        annotations["ignore-check.mesh-lifecycle.io/ML207"] = "the app stops accepting before SIGTERM"
    if rng.random() < 0.15:
        annotations["checksum/config"] = hexstr(rng, 64)
    return annotations, hold


def linkerd_proxy(rng: random.Random, version: str, native: bool) -> dict:
    env = [
        {"name": "_pod_name", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        {"name": "_pod_ns", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
        {"name": "_pod_nodeName", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
        {"name": "LINKERD2_PROXY_LOG", "value": "warn,linkerd=info,trust_dns=error"},
        {"name": "LINKERD2_PROXY_LOG_FORMAT", "value": "plain"},
        {"name": "LINKERD2_PROXY_DESTINATION_SVC_ADDR", "value": "linkerd-dst-headless.linkerd.svc.cluster.local.:8086"},
        {"name": "LINKERD2_PROXY_DESTINATION_PROFILE_NETWORKS", "value": "10.0.0.0/8,100.64.0.0/10,172.16.0.0/12,192.168.0.0/16"},
        {"name": "LINKERD2_PROXY_POLICY_SVC_ADDR", "value": "linkerd-policy.linkerd.svc.cluster.local.:8090"},
        {"name": "LINKERD2_PROXY_POLICY_WORKLOAD", "value": Lit('{"ns":"$(_pod_ns)", "pod":"$(_pod_name)"}\n')},
        {"name": "LINKERD2_PROXY_INBOUND_DEFAULT_POLICY", "value": "all-unauthenticated"},
        {"name": "LINKERD2_PROXY_CONTROL_LISTEN_ADDR", "value": "[::]:4190"},
        {"name": "LINKERD2_PROXY_ADMIN_LISTEN_ADDR", "value": "[::]:4191"},
        {"name": "LINKERD2_PROXY_OUTBOUND_LISTEN_ADDR", "value": "127.0.0.1:4140"},
        {"name": "LINKERD2_PROXY_INBOUND_LISTEN_ADDR", "value": "[::]:4143"},
        {"name": "LINKERD2_PROXY_SHUTDOWN_GRACE_PERIOD", "value": rng.choice(["120s", "30s", "10s"])},
        {"name": "LINKERD2_PROXY_IDENTITY_DIR", "value": "/var/run/linkerd/identity/end-entity"},
        {"name": "LINKERD2_PROXY_IDENTITY_TRUST_ANCHORS", "valueFrom": {"configMapKeyRef": {
            "key": "ca-bundle.crt", "name": "linkerd-identity-trust-roots"}}},
        {"name": "LINKERD2_PROXY_IDENTITY_TOKEN_FILE", "value": "/var/run/secrets/tokens/linkerd-identity-token"},
        {"name": "LINKERD2_PROXY_IDENTITY_SVC_ADDR", "value": "linkerd-identity-headless.linkerd.svc.cluster.local.:8080"},
    ]
    proxy: dict = {
        "env": env,
        "image": f"cr.l5d.io/linkerd/proxy:{version}",
        "imagePullPolicy": "IfNotPresent",
        "livenessProbe": {"httpGet": {"path": "/live", "port": 4191}, "initialDelaySeconds": 10, "timeoutSeconds": 1},
        "name": "linkerd-proxy",
        "ports": [{"containerPort": 4143, "name": "linkerd-proxy"}, {"containerPort": 4191, "name": "linkerd-admin"}],
        "readinessProbe": {"httpGet": {"path": "/ready", "port": 4191}, "initialDelaySeconds": 2, "timeoutSeconds": 1},
        "securityContext": {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                            "runAsNonRoot": True, "runAsUser": 2102,
                            "seccompProfile": {"type": "RuntimeDefault"}},
        "terminationMessagePolicy": "FallbackToLogsOnError",
        "volumeMounts": [
            {"mountPath": "/var/run/linkerd/identity/end-entity", "name": "linkerd-identity-end-entity"},
            {"mountPath": "/var/run/secrets/tokens", "name": "linkerd-identity-token"},
        ],
    }
    if rng.random() < 0.6:
        proxy["lifecycle"] = {"postStart": {"exec": {"command": [
            "/usr/lib/linkerd/linkerd-await", "--timeout=2m", "--port=4191"]}}}
    if native:
        proxy["restartPolicy"] = "Always"
        proxy["startupProbe"] = {"httpGet": {"path": "/ready", "port": 4191}, "failureThreshold": 120, "periodSeconds": 1}
    return proxy


def linkerd_init(version: str) -> dict:
    return {
        "args": ["--incoming-proxy-port", Quoted("4143"), "--outgoing-proxy-port", Quoted("4140"),
                 "--proxy-uid", Quoted("2102"), "--inbound-ports-to-ignore", "4190,4191,4567,4568",
                 "--outbound-ports-to-ignore", "4567,4568"],
        "image": "cr.l5d.io/linkerd/proxy-init:v2.4.1",
        "imagePullPolicy": "IfNotPresent",
        "name": "linkerd-init",
        "resources": {"limits": {"cpu": "100m", "memory": "20Mi"}, "requests": {"cpu": "100m", "memory": "20Mi"}},
        "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"add": ["NET_ADMIN", "NET_RAW"]},
                            "privileged": False, "readOnlyRootFilesystem": True, "runAsNonRoot": True,
                            "runAsUser": 65534, "seccompProfile": {"type": "RuntimeDefault"}},
        "terminationMessagePolicy": "FallbackToLogsOnError",
        "volumeMounts": [{"mountPath": "/run", "name": "linkerd-proxy-init-xtables-lock"}],
    }


def meta(rng: random.Random, name: str, team: str, namespace: str, extra_labels: dict | None = None,
         flow: bool = False) -> dict:
    labels = {
        "app.kubernetes.io/name": name,
        "app.kubernetes.io/part-of": team,
        "app.kubernetes.io/managed-by": rng.choice(["Helm", "kustomize", "argocd"]),
    }
    if rng.random() < 0.5:
        labels["app.kubernetes.io/version"] = Quoted(f"{rng.randrange(1, 4)}.{rng.randrange(0, 20)}.{rng.randrange(0, 9)}")
    if rng.random() < 0.4:
        labels["helm.sh/chart"] = f"{name}-{rng.randrange(0, 3)}.{rng.randrange(0, 20)}.{rng.randrange(0, 9)}"
    labels.update(extra_labels or {})
    metadata: dict = {"name": name}
    if rng.random() < 0.85:
        metadata["namespace"] = namespace
    metadata["labels"] = Flow(labels) if flow else labels
    if rng.random() < 0.3:
        metadata["annotations"] = {
            "deployment.kubernetes.io/revision": Quoted(str(rng.randrange(1, 40))),
            "meta.helm.sh/release-name": team,
            "meta.helm.sh/release-namespace": namespace,
        }
    return metadata


# ---------------------------------------------------------------------------------------
# Workloads.


def pod_template(rng: random.Random, app: str, team: str, namespace: str, mesh: str, native: bool,
                 flow: bool, restart_policy: str | None = None, job: bool = False) -> dict:
    labels = {"app": app, "team": team}
    if rng.random() < 0.5:
        labels["version"] = rng.choice(["v1", "v2", "canary", "stable"])
    annotations: dict = {}
    containers = []
    init_containers = []
    app_spec = app_container(rng, app, team, namespace, flow)
    if job:
        app_spec.pop("readinessProbe", None)
        app_spec.pop("livenessProbe", None)
        app_spec.pop("startupProbe", None)
        app_spec.pop("lifecycle", None)
        app_spec["command"] = ["/bin/sh", "-c", job_script(rng, app, mesh)]
        app_spec.pop("args", None)
    ports = app_spec["ports"]
    app_port = (ports.value if isinstance(ports, Flow) else ports)[0]["containerPort"]
    hold = False
    if mesh == "istio":
        version = rng.choice(ISTIO_VERSIONS)
        annotations, hold = istio_pod_annotations(rng, app_spec["name"], native)
        labels.update({
            "security.istio.io/tlsMode": "istio",
            "service.istio.io/canonical-name": app,
            "service.istio.io/canonical-revision": labels.get("version", "latest"),
        })
        proxy = istio_proxy(rng, app_spec["name"], namespace, version, app_port, native, hold, flow)
        if native:
            init_containers = [istio_init(version), proxy]
            containers = [app_spec]
        else:
            init_containers = [istio_init(version)]
            containers = [proxy, app_spec] if hold else [app_spec, proxy]
        volumes = istio_volumes()
    elif mesh == "linkerd":
        version = rng.choice(LINKERD_VERSIONS)
        annotations = {
            "linkerd.io/created-by": f"linkerd/cli {version}",
            "linkerd.io/proxy-version": version,
            "linkerd.io/trust-root-sha256": hexstr(rng, 64),
            "linkerd.io/inject": "enabled",
        }
        if rng.random() < 0.4:
            annotations["config.linkerd.io/proxy-await"] = rng.choice(["enabled", "disabled"])
        if rng.random() < 0.3:
            annotations["config.alpha.linkerd.io/proxy-wait-before-exit-seconds"] = Quoted(str(rng.choice([5, 15, 40])))
        labels.update({"linkerd.io/control-plane-ns": "linkerd", "linkerd.io/workload-ns": namespace})
        proxy = linkerd_proxy(rng, version, native)
        if native:
            init_containers = [linkerd_init(version), proxy]
            containers = [app_spec]
        else:
            init_containers = [linkerd_init(version)]
            containers = [proxy, app_spec]
        volumes = [
            {"emptyDir": {}, "name": "linkerd-proxy-init-xtables-lock"},
            {"emptyDir": {"medium": "Memory"}, "name": "linkerd-identity-end-entity"},
            {"name": "linkerd-identity-token", "projected": {"sources": [{"serviceAccountToken": {
                "audience": "identity.l5d.io", "expirationSeconds": 86400, "path": "linkerd-identity-token"}}]}},
        ]
    else:
        # Not yet injected: the namespace label or this annotation asks for it.
        if rng.random() < 0.5:
            annotations["sidecar.istio.io/inject"] = Quoted("true")
        containers = [app_spec]
        volumes = []
    volumes = [{"name": "tmp", "emptyDir": {}}, {"name": "config", "configMap": {"name": f"{app}-config"}}] + volumes
    spec: dict = {}
    if rng.random() < 0.8:
        spec["serviceAccountName"] = app
    grace = rng.choice([None, 10, 30, 30, 30, 45, 60, 60, 90, 120])
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = Trailing(grace, "keep above preStop + drain") if rng.random() < 0.1 else grace
    # The API server rejects a sleep action longer than the grace period, so no manifest
    # that reached a cluster has one: hold the drawn ones to the grace period.
    for container in containers:
        action = container.get("lifecycle", {}).get("preStop", {}).get("sleep")
        if action is not None:
            action["seconds"] = min(action["seconds"], 30 if grace is None else grace)
    if restart_policy:
        spec["restartPolicy"] = restart_policy
    if rng.random() < 0.3:
        spec["securityContext"] = {"fsGroup": 1337, "seccompProfile": {"type": "RuntimeDefault"}}
    if init_containers:
        spec["initContainers"] = init_containers
    spec["containers"] = containers
    if rng.random() < 0.3:
        spec["nodeSelector"] = Flow({"kubernetes.io/os": "linux"}) if flow else {"kubernetes.io/os": "linux"}
    if rng.random() < 0.25:
        spec["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": team, "effect": "NoSchedule"}]
    if rng.random() < 0.3:
        spec["affinity"] = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
            "weight": 100,
            "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                                "labelSelector": {"matchLabels": {"app": app}}}}]}}
    if rng.random() < 0.2:
        spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                              "whenUnsatisfiable": "ScheduleAnyway",
                                              "labelSelector": {"matchLabels": {"app": app}}}]
    spec["volumes"] = volumes
    metadata: dict = {}
    if annotations:
        metadata["annotations"] = annotations
    metadata["labels"] = labels
    return {"metadata": metadata, "spec": spec}


def job_script(rng: random.Random, app: str, mesh: str) -> Lit:
    lines = [
        "set -eu",
        f"echo \"starting {app} batch run\"",
        rng.choice([
            f"/app/bin/{app} --mode=batch --since=\"$(date -d '1 day ago' +%F)\"",
            "python -m jobs.reconcile --all-tenants --dry-run=false",
            "java -jar /app/job.jar --spring.profiles.active=batch",
        ]),
        "status=$?",
    ]
    roll = rng.random()
    if mesh == "istio" and roll < 0.5:
        lines.append("curl -fsS -X POST http://127.0.0.1:15020/quitquitquit || true")
    elif mesh == "linkerd" and roll < 0.5:
        lines.append("curl -fsS -X POST http://localhost:4191/shutdown || true")
    lines.append("exit $status")
    return Lit("\n".join(lines) + "\n")


def deployment(rng: random.Random, mesh: str = "istio", native: bool = False, flow: bool = False) -> dict:
    app, team = name_of(rng)
    namespace = rng.choice(NAMESPACES)
    template = pod_template(rng, app, team, namespace, mesh, native, flow)
    replicas = rng.choice([1, 2, 3, 3, 5, 10])
    spec: dict = {}
    if rng.random() < 0.9:
        spec["replicas"] = replicas
    if rng.random() < 0.3:
        spec["revisionHistoryLimit"] = rng.choice([3, 5, 10])
    selector = {"app": app}
    spec["selector"] = {"matchLabels": Flow(selector) if flow else selector}
    if rng.random() < 0.6:
        spec["strategy"] = {"type": "RollingUpdate", "rollingUpdate": {
            "maxSurge": rng.choice(["25%", 1, "50%"]), "maxUnavailable": rng.choice([0, "25%", 1])}}
    spec["template"] = template
    document = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": meta(rng, app, team, namespace, flow=flow and rng.random() < 0.5),
        "spec": spec,
    }
    if rng.random() < 0.15:
        document = {Comment(f"{app}: owned by team {team}, see the runbook before changing the grace period"): None,
                    **document}
    return document


def statefulset(rng: random.Random, mesh: str, flow: bool) -> dict:
    document = deployment(rng, mesh, False, flow)
    document["kind"] = "StatefulSet"
    spec = document["spec"]
    spec.pop("strategy", None)
    spec["serviceName"] = document["metadata"]["name"] + "-headless"
    spec["podManagementPolicy"] = "Parallel"
    spec["volumeClaimTemplates"] = [{"metadata": {"name": "data"}, "spec": {
        "accessModes": ["ReadWriteOnce"], "storageClassName": "gp3",
        "resources": {"requests": {"storage": rng.choice(["10Gi", "50Gi", "200Gi"])}}}}]
    return document


def job(rng: random.Random, mesh: str, native: bool, flow: bool) -> dict:
    app, team = name_of(rng)
    app += "-job"
    namespace = rng.choice(NAMESPACES)
    spec: dict = {
        "backoffLimit": rng.choice([0, 2, 4, 6]),
    }
    if rng.random() < 0.5:
        spec["activeDeadlineSeconds"] = rng.choice([600, 3600, 7200])
    if rng.random() < 0.6:
        spec["ttlSecondsAfterFinished"] = rng.choice([300, 3600, 86400])
    spec["template"] = pod_template(rng, app, team, namespace, mesh, native, flow,
                                    restart_policy=rng.choice(["Never", "OnFailure"]), job=True)
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": meta(rng, app, team, namespace, flow=flow), "spec": spec}


def cronjob(rng: random.Random, mesh: str, native: bool, flow: bool) -> dict:
    inner = job(rng, mesh, native, flow)
    name = inner["metadata"]["name"].replace("-job", "-cron")
    inner["metadata"]["name"] = name
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": inner["metadata"],
        "spec": {
            "schedule": Quoted(rng.choice(["*/15 * * * *", "0 3 * * *", "30 */6 * * *", "0 0 * * 0"])),
            "concurrencyPolicy": rng.choice(["Forbid", "Replace", "Allow"]),
            "successfulJobsHistoryLimit": 3,
            "failedJobsHistoryLimit": 1,
            "jobTemplate": {"spec": inner["spec"]},
        },
    }


# ---------------------------------------------------------------------------------------
# Kinds the linter reads past.


def service(rng: random.Random, flow: bool) -> dict:
    app, team = name_of(rng)
    namespace = rng.choice(NAMESPACES)
    ports = [{"name": "http", "port": 80, "targetPort": "http", "protocol": "TCP"}]
    if rng.random() < 0.4:
        ports.append({"name": "grpc", "port": 9000, "targetPort": 9000})
    return {"apiVersion": "v1", "kind": "Service", "metadata": meta(rng, app, team, namespace, flow=flow),
            "spec": {"type": rng.choice(["ClusterIP", "ClusterIP", "NodePort", "LoadBalancer"]),
                     "selector": Flow({"app": app}) if flow else {"app": app},
                     "ports": ports}}


APP_CONFIG = """server:
  port: {port}
  shutdown: graceful
  tomcat:
    threads:
      max: {threads}
spring:
  lifecycle:
    timeout-per-shutdown-phase: {timeout}s
  datasource:
    url: jdbc:postgresql://{team}-db.{namespace}.svc:5432/{team}
    hikari:
      maximum-pool-size: {pool}
management:
  endpoints:
    web:
      exposure:
        include: health,info,prometheus
logging:
  level:
    root: INFO
    com.acme.{team}: DEBUG
"""

NGINX_CONF = """worker_processes auto;
events {{
  worker_connections {conns};
}}
http {{
  upstream backend {{
    server 127.0.0.1:{port};
    keepalive 32;
  }}
  server {{
    listen 8080;
    location /healthz {{ return 200 "ok"; }}
    location / {{
      proxy_pass http://backend;
      proxy_set_header Host $host;
      proxy_read_timeout {timeout}s;
    }}
  }}
}}
"""


def configmap(rng: random.Random, flow: bool) -> dict:
    app, team = name_of(rng)
    namespace = rng.choice(NAMESPACES)
    values = dict(port=rng.choice([8080, 8000, 3000]), threads=rng.choice([50, 200]),
                  timeout=rng.choice([10, 20, 30]), team=team, namespace=namespace,
                  pool=rng.choice([10, 20, 50]), conns=rng.choice([1024, 4096]))
    data: dict = {
        "LOG_LEVEL": rng.choice(["info", "debug"]),
        "FEATURE_X_ENABLED": Quoted(rng.choice(["true", "false"])),
    }
    roll = rng.random()
    if roll < 0.4:
        data["application.yaml"] = Lit(APP_CONFIG.format(**values))
    elif roll < 0.7:
        data["nginx.conf"] = Lit(NGINX_CONF.format(**values))
    else:
        # A JSON blob of feature settings, as dashboards and rule files are shipped.
        rows = [f'    {{"tenant": "t{rng.randrange(1000, 9999)}", "limit": {rng.randrange(10, 5000)}, '
                f'"burst": {rng.randrange(1, 100)}, "region": "{rng.choice(["eu", "us", "ap"])}"}}'
                for _ in range(rng.randrange(5, 120))]
        data["limits.json"] = Lit('{\n  "tenants": [\n' + ",\n".join(rows) + "\n  ]\n}\n")
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": meta(rng, app + "-config", team, namespace, flow=flow), "data": data}


def secret(rng: random.Random, flow: bool) -> dict:
    app, team = name_of(rng)
    namespace = rng.choice(NAMESPACES)
    data = {"username": b64(rng, 12), "password": b64(rng, 32)}
    if rng.random() < 0.4:
        data["tls.crt"] = b64(rng, rng.choice([1200, 1600, 2400]))
        data["tls.key"] = b64(rng, rng.choice([1600, 2300]))
    return {"apiVersion": "v1", "kind": "Secret",
            "metadata": meta(rng, app + "-secret", team, namespace, flow=flow),
            "type": "kubernetes.io/tls" if "tls.crt" in data else "Opaque", "data": data}


def small_objects(rng: random.Random, flow: bool) -> dict:
    app, team = name_of(rng)
    namespace = rng.choice(NAMESPACES)
    kind = rng.choice(["ServiceAccount", "HorizontalPodAutoscaler", "PodDisruptionBudget",
                       "VirtualService", "DestinationRule", "PeerAuthentication", "NetworkPolicy",
                       "RoleBinding", "Ingress"])
    metadata = meta(rng, app, team, namespace, flow=flow)
    if kind == "ServiceAccount":
        return {"apiVersion": "v1", "kind": kind, "metadata": metadata}
    if kind == "HorizontalPodAutoscaler":
        return {"apiVersion": "autoscaling/v2", "kind": kind, "metadata": metadata, "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": app},
            "minReplicas": rng.choice([2, 3]), "maxReplicas": rng.choice([10, 20, 50]),
            "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                "type": "Utilization", "averageUtilization": rng.choice([60, 70, 80])}}}]}}
    if kind == "PodDisruptionBudget":
        return {"apiVersion": "policy/v1", "kind": kind, "metadata": metadata, "spec": {
            "maxUnavailable": 1, "selector": {"matchLabels": {"app": app}}}}
    if kind == "VirtualService":
        return {"apiVersion": "networking.istio.io/v1", "kind": kind, "metadata": metadata, "spec": {
            "hosts": [f"{app}.{namespace}.svc.cluster.local"],
            "http": [{"match": [{"uri": {"prefix": "/v2/"}}], "route": [
                {"destination": {"host": app, "subset": "v2"}, "weight": 10},
                {"destination": {"host": app, "subset": "v1"}, "weight": 90}],
                "timeout": "15s", "retries": {"attempts": 3, "perTryTimeout": "5s", "retryOn": "5xx,reset,connect-failure"}}]}}
    if kind == "DestinationRule":
        return {"apiVersion": "networking.istio.io/v1", "kind": kind, "metadata": metadata, "spec": {
            "host": app, "trafficPolicy": {"connectionPool": {"http": {"http2MaxRequests": 1000}},
                                           "outlierDetection": {"consecutive5xxErrors": 5, "interval": "10s"}},
            "subsets": [{"name": "v1", "labels": {"version": "v1"}}, {"name": "v2", "labels": {"version": "v2"}}]}}
    if kind == "PeerAuthentication":
        return {"apiVersion": "security.istio.io/v1", "kind": kind, "metadata": metadata,
                "spec": {"mtls": {"mode": "STRICT"}}}
    if kind == "NetworkPolicy":
        return {"apiVersion": "networking.k8s.io/v1", "kind": kind, "metadata": metadata, "spec": {
            "podSelector": {"matchLabels": {"app": app}}, "policyTypes": ["Ingress"],
            "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}}}],
                         "ports": [{"protocol": "TCP", "port": 8080}]}]}}
    if kind == "RoleBinding":
        return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": metadata,
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": app},
                "subjects": [{"kind": "ServiceAccount", "name": app, "namespace": namespace}]}
    return {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": metadata, "spec": {
        "ingressClassName": "nginx",
        "rules": [{"host": f"{app}.example.com", "http": {"paths": [{"path": "/", "pathType": "Prefix",
                   "backend": {"service": {"name": app, "port": {"number": 80}}}}]}}]}}


def namespace_object(rng: random.Random) -> dict:
    name = rng.choice(NAMESPACES)
    labels = {"kubernetes.io/metadata.name": name}
    if rng.random() < 0.7:
        labels["istio-injection"] = "enabled"
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def schema_properties(rng: random.Random, depth: int, width: int) -> dict:
    properties = {}
    for i in range(width):
        field = rng.choice(NOUNS) + rng.choice(["Name", "Count", "Policy", "Spec", "Ref", "Timeout", "Mode"]) + str(i)
        roll = rng.random()
        description = (f"{field} configures the {rng.choice(NOUNS)} of the {rng.choice(TEAMS)} "
                       f"controller. When unset, the controller uses its default; see the operator "
                       f"documentation for the accepted values and how they interact with other settings.")
        if depth > 0 and roll < 0.35:
            properties[field] = {"description": description, "type": "object",
                                 "properties": schema_properties(rng, depth - 1, max(2, width // 2))}
        elif depth > 0 and roll < 0.5:
            properties[field] = {"description": description, "type": "array", "items": {
                "type": "object", "properties": schema_properties(rng, depth - 1, max(2, width // 3))}}
        elif roll < 0.7:
            properties[field] = {"description": description, "type": "string"}
        elif roll < 0.85:
            properties[field] = {"description": description, "type": "integer", "format": "int32"}
        else:
            properties[field] = {"description": description, "type": "boolean"}
    return properties


def crd(rng: random.Random, large: bool = False) -> dict:
    """Most CRDs are tens of KB; a few (prometheus-operator's, Istio's) approach a megabyte."""
    plural = rng.choice(NOUNS) + "policies"
    group = f"{rng.choice(TEAMS)}.acme.io"
    depth, width = (5, rng.choice([20, 24, 28])) if large else (4, rng.choice([6, 8, 10, 12, 14]))
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}",
                     "annotations": {"controller-gen.kubebuilder.io/version": "v0.16.5"}},
        "spec": {
            "group": group,
            "names": {"kind": plural.capitalize()[:-3] + "y", "listKind": plural.capitalize() + "List",
                      "plural": plural, "singular": plural[:-3] + "y"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {
                        "apiVersion": {"type": "string"},
                        "kind": {"type": "string"},
                        "metadata": {"type": "object"},
                        "spec": {"type": "object", "properties": schema_properties(rng, depth, width)},
                        "status": {"type": "object", "properties": schema_properties(rng, 2, 6)},
                    },
                }},
                "subresources": {"status": {}},
            }],
        },
    }


# ---------------------------------------------------------------------------------------
# Corpora.


def single_deployment() -> str:
    _names.clear()
    rng = random.Random(SEED)
    while True:
        document = deployment(rng, "istio")
        containers = document["spec"]["template"]["spec"]["containers"]
        # A representative one: probes, hooks and a drain setting on both containers.
        app = next(c for c in containers if c["name"] != "istio-proxy")
        proxy = next(c for c in containers if c["name"] == "istio-proxy")
        annotations = document["spec"]["template"]["metadata"].get("annotations", {})
        if ("lifecycle" in app and "preStop" in proxy.get("lifecycle", {}) and "livenessProbe" in app
                and "startupProbe" in app and "proxy.istio.io/config" in annotations):
            return emit(document)


def deployments(count: int) -> list[str]:
    return [text for text, _ in deployment_objects(count)]


def deployment_objects(count: int) -> list[tuple[str, dict]]:
    """The Deployments of the `deployments` corpus, each as its text and its object."""
    _names.clear()
    rng = random.Random(SEED + 1)
    out = []
    for _ in range(count):
        document = deployment(rng, "istio")
        out.append((emit(document, seq_indent=rng.choice([0, 0, 2])), document))
    return out


def plain(value):
    """An object of the emitter's classes as the plain value YAML reads it as: what
    `kubectl get -o json` would print for it."""
    if isinstance(value, (Flow, Trailing)):
        return plain(value.value)
    if isinstance(value, Quoted):
        return value.text
    if isinstance(value, Lit):
        text = value.text.rstrip("\n")
        return text if value.chomp == "-" or not text else text + "\n"
    if isinstance(value, Folded):
        return value.text.rstrip("\n").replace("\n", " ")
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items() if not isinstance(k, Comment)}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def yaml_list(texts: list[str]) -> str:
    """Documents as the items of one `List`, the way `kubectl get -o yaml` prints it:
    each document indented under `items:`, its first line after the `- `."""
    out = ["apiVersion: v1", "items:"]
    for text in texts:
        lines = text.rstrip("\n").split("\n")
        first = next(i for i, line in enumerate(lines) if not line.startswith("#"))
        out += ["  " + line for line in lines[:first]]
        out.append("- " + lines[first])
        out += ["  " + line if line else "" for line in lines[first + 1:]]
    out += ["kind: List", "metadata:", "  resourceVersion: \"\""]
    return "\n".join(out) + "\n"


def json_list(objects: list[dict]) -> str:
    """Objects as one JSON `List`, the way `kubectl get -o json` prints it."""
    listing = {"apiVersion": "v1", "items": [plain(o) for o in objects], "kind": "List",
               "metadata": {"resourceVersion": ""}}
    return json.dumps(listing, indent=4) + "\n"


def stream_documents(rng: random.Random):
    """Documents of the mixed stream, forever: what `helm template` of an umbrella chart
    and `kubectl get -A -o yaml` dumps look like. A large CRD comes in the middle of every
    5 MB, so that every 5 MB prefix has the same mix."""
    size, next_large = 0, SEGMENT_BYTES // 2
    while True:
        if size >= next_large:
            next_large += SEGMENT_BYTES
            # The same schema each time, so that every segment costs the same.
            document = crd(random.Random(SEED + 5), large=True)
            document["metadata"]["name"] += f"-{next_large // SEGMENT_BYTES}"
            document = emit(document, 0, ["---"])
            size += len(document.encode())
            yield document
            continue
        flow = rng.random() < 0.2
        seq_indent = rng.choice([0, 0, 2])
        mesh = rng.choice(["istio", "istio", "istio", "istio", "linkerd", "none"])
        native = rng.random() < 0.15
        roll = rng.random()
        if roll < 0.40:
            document = deployment(rng, mesh, native, flow)
        elif roll < 0.43:
            document = statefulset(rng, mesh, flow)
        elif roll < 0.50:
            document = job(rng, mesh, native, flow)
        elif roll < 0.54:
            document = cronjob(rng, mesh, native, flow)
        elif roll < 0.66:
            document = service(rng, flow)
        elif roll < 0.76:
            document = configmap(rng, flow)
        elif roll < 0.81:
            document = secret(rng, flow)
        elif roll < 0.995:
            document = small_objects(rng, flow)
        elif roll < 0.997:
            document = namespace_object(rng)
        else:
            document = crd(rng)
        header = ["---"]
        if rng.random() < 0.3:
            header.append(f"# Source: {rng.choice(TEAMS)}/templates/{document['kind'].lower()}.yaml")
        document = emit(document, seq_indent, header)
        size += len(document.encode())
        yield document


def stream(target_bytes: int) -> list[str]:
    """Documents of the mixed stream until `target_bytes`: the same seed gives the same
    documents, so a smaller stream is a prefix of a larger one."""
    _names.clear()
    rng = random.Random(SEED + 2)
    out, size = [], 0
    for document in stream_documents(rng):
        if size >= target_bytes:
            return out
        out.append(document)
        size += len(document.encode())


def write(path: str, text: str) -> dict:
    data = text.encode()
    with open(path, "wb") as f:
        f.write(data)
    return {"bytes": len(data), "documents": 1, "sha256": hashlib.sha256(data).hexdigest()}


def findings_list(workloads: int, containers: int = 20) -> str:
    """One `List` document whose every Deployment asks for Istio injection and serves
    from `containers` app containers without a preStop delay: one ML207 per container
    and one ML101 per Deployment, so that the report, not the analysis, is the work."""
    out = ["apiVersion: v1", "kind: List", "items:"]
    for i in range(workloads):
        out += [
            "- apiVersion: apps/v1",
            "  kind: Deployment",
            f"  metadata: {{name: web-{i}, namespace: shop}}",
            "  spec:",
            f"    selector: {{matchLabels: {{app: web-{i}}}}}",
            "    template:",
            "      metadata:",
            f"        labels: {{app: web-{i}, sidecar.istio.io/inject: \"true\"}}",
            "      spec:",
            "        containers:",
        ]
        for c in range(containers):
            out += [f"        - name: c{c}", "          image: example/web:1.0",
                    f"          ports: [{{containerPort: {8000 + c}}}]"]
    return "\n".join(out) + "\n"


def wide_pod(containers: int) -> str:
    """One Pod with `containers` serving containers, every tenth with a preStop hook and
    every seventh with a startup probe, that Istio will inject: per-pod analysis must
    cost in proportion to the containers (a pod may hold thousands)."""
    out = ["apiVersion: v1", "kind: Pod", "metadata:", "  name: wide", "  namespace: shop",
           "  labels: {app: wide, sidecar.istio.io/inject: \"true\"}", "spec:",
           "  terminationGracePeriodSeconds: 45", "  containers:"]
    for c in range(containers):
        out += [f"  - name: c{c}", f"    image: example/app:{c % 7}.0",
                f"    ports: [{{containerPort: {8000 + c % 1000}}}]"]
        if c % 10 == 0:
            out += ["    lifecycle:", "      preStop:", f"        exec: {{command: [sleep, '{c % 20}']}}"]
        if c % 7 == 0:
            out += ["    startupProbe:", f"      httpGet: {{path: /ready, port: {8000 + c % 1000}}}",
                    "      periodSeconds: 2"]
    return "\n".join(out) + "\n"


def generate(out_dir: str) -> dict:
    os.makedirs(os.path.join(out_dir, "single"), exist_ok=True)
    os.makedirs(os.path.join(out_dir, "deployments"), exist_ok=True)
    manifest: dict = {"generator": GENERATOR_VERSION, "seed": SEED, "corpora": {}}
    manifest["corpora"]["single"] = write(os.path.join(out_dir, "single", "deploy.yaml"), single_deployment())
    total, digest, largest = 0, hashlib.sha256(), 0
    objects = deployment_objects(1000)
    for i, (text, _) in enumerate(objects):
        info = write(os.path.join(out_dir, "deployments", f"deploy-{i:04d}.yaml"), text)
        total += info["bytes"]
        largest = max(largest, info["bytes"])
        digest.update(info["sha256"].encode())
    manifest["corpora"]["deployments"] = {"files": 1000, "documents": 1000, "bytes": total,
                                          "largest_document_bytes": largest, "sha256": digest.hexdigest()}
    # The same Deployments in the shapes one command prints them: a stream, a List.
    texts = [text for text, _ in objects]
    for name, text, count in [
        ("deployments-stream.yaml", "".join("---\n" + t for t in texts), 1000),
        ("deployments-list.yaml", yaml_list(texts), 1),
        ("deployments-list.json", json_list([o for _, o in objects]), 1),
        ("deployments-list-500.yaml", yaml_list(texts[:500]), 1),
    ]:
        info = write(os.path.join(out_dir, name), text)
        info["documents"] = count
        info["workloads"] = 500 if "500" in name else 1000
        manifest["corpora"][name.rsplit(".", 1)[0] + ("-json" if name.endswith(".json") else "")] = info
    documents = stream(10 * SEGMENT_BYTES)
    small = stream(SEGMENT_BYTES)
    assert documents[:len(small)] == small
    for name, docs in [("stream-50MB.yaml", documents), ("stream-5MB.yaml", small)]:
        info = write(os.path.join(out_dir, name), "".join(docs))
        info["documents"] = len(docs)
        info["largest_document_bytes"] = max(len(d.encode()) for d in docs)
        kinds: dict = {}
        for d in docs:
            kind = d.split("\nkind: ", 1)[1].split("\n", 1)[0]
            kinds[kind] = kinds.get(kind, 0) + 1
        info["kinds"] = dict(sorted(kinds.items()))
        manifest["corpora"][name.removesuffix(".yaml")] = info
    for name, workloads in [("findings-21k", 1000), ("findings-10k", 500)]:
        info = write(os.path.join(out_dir, name + ".yaml"), findings_list(workloads))
        info["documents"] = 1
        info["findings"] = workloads * 21
        manifest["corpora"][name] = info
    for name, containers in [("pod-10k", 10_000), ("pod-20k", 20_000)]:
        info = write(os.path.join(out_dir, name + ".yaml"), wide_pod(containers))
        info["containers"] = containers
        manifest["corpora"][name] = info
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    return manifest


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(json.dumps(generate(sys.argv[1]), indent=2))
