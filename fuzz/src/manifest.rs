//! Builds a workload manifest from the fuzzer's bytes.
//!
//! Random bytes rarely survive the YAML parser as a pod spec, so the `manifest` target
//! spends its time in resolve, simulate and rules instead: every choice below is one
//! the linter reads (kinds, mesh annotations, native sidecars, hooks, probes, grace
//! periods, Job stop commands), with edge values — zero, negative, huge, malformed — mixed
//! in among ordinary ones.

use arbitrary::{Result, Unstructured};
use serde_json::{Map, Value, json};

const KINDS: &[(&str, &str)] = &[
    ("v1", "Pod"),
    ("apps/v1", "Deployment"),
    ("apps/v1", "StatefulSet"),
    ("apps/v1", "DaemonSet"),
    ("apps/v1", "ReplicaSet"),
    ("v1", "ReplicationController"),
    ("batch/v1", "Job"),
    ("batch/v1", "CronJob"),
    ("batch/v1beta1", "CronJob"),
];

const ANNOTATION_KEYS: &[&str] = &[
    "sidecar.istio.io/inject",
    "proxy.istio.io/config",
    "sidecar.istio.io/nativeSidecar",
    "status.sidecar.istio.io/port",
    "istio.io/rev",
    "linkerd.io/inject",
    "config.linkerd.io/proxy-await",
    "config.linkerd.io/proxy-enable-native-sidecar",
    "config.alpha.linkerd.io/proxy-wait-before-exit-seconds",
    "config.linkerd.io/shutdown-grace-period",
    "config.linkerd.io/proxy-admin-shutdown",
    "mesh-lifecycle.io/app-shutdown",
    "mesh-lifecycle.io/proxy-startup",
    "mesh-lifecycle.io/endpoint-propagation",
    "mesh-lifecycle.io/longest-request",
    "mesh-lifecycle.io/init-duration",
    "mesh-lifecycle.io/job-duration",
    "mesh-lifecycle.io/ignore-all",
    "ignore-check.mesh-lifecycle.io/ML201",
    "ignore-check.mesh-lifecycle.io/app-starts-before-proxy",
];

const ANNOTATION_VALUES: &[&str] = &[
    "true",
    "false",
    "enabled",
    "disabled",
    "",
    "0",
    "15020",
    "5s",
    "25s",
    "1m30s",
    "500ms",
    "-5s",
    "1.5s",
    "2562047h",
    "99999999999999999999h",
    "abc",
    "holdApplicationUntilProxyStarts: true",
    "holdApplicationUntilProxyStarts: true\nterminationDrainDuration: 25s\n",
    "{\"holdApplicationUntilProxyStarts\": true, \"terminationDrainDuration\": \"45s\"}",
    "terminationDrainDuration: -1s",
    "terminationDrainDuration: [",
    "drainDuration: 9999999h\nstatusPort: 70000\n",
    "proxyMetadata:\n  EXIT_ON_ZERO_ACTIVE_CONNECTIONS: \"true\"\n  MINIMUM_DRAIN_DURATION: 10s\n",
    "proxyMetadata:\n  TERMINATION_DRAIN_DURATION_SECONDS: \"9223372036854775807\"\n",
    "holdApplicationUntilProxyStarts: yes\nterminationDrainDuration: 1e400s\n",
];

const NAMES: &[&str] = &[
    "app",
    "worker",
    "istio-proxy",
    "istio-init",
    "istio-validation",
    "linkerd-proxy",
    "linkerd-init",
    "cloud-sql-proxy",
    "daprd",
    "consul-dataplane",
    "kuma-sidecar",
    "envoy",
    "sidecar",
    "migrate",
];

const IMAGES: &[&str] = &[
    "example/app:1.0",
    "docker.io/istio/proxyv2:1.24.0",
    "cr.l5d.io/linkerd/proxy:edge-24.6.2",
    "gcr.io/distroless/static:nonroot",
    "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.11.0",
    "busybox",
    "",
];

/// Shell snippets the resolver reads: start gates, Job stop calls, preStop waits.
const SCRIPTS: &[&str] = &[
    "sleep 10",
    "sleep 45",
    "sleep 9223372036854775807",
    "sleep -1",
    "sleep infinity",
    "pilot-agent wait",
    "until curl -fsI http://localhost:15021/healthz/ready; do sleep 1; done; exec /app",
    "until wget -q -O- http://127.0.0.1:15020/healthz/ready; do sleep 0.5; done && /app",
    "linkerd-await --shutdown -- /work",
    "/work; curl -fsX POST http://localhost:15020/quitquitquit",
    "/work && curl -X POST localhost:15000/quitquitquit",
    "/work; code=$?; curl -fsS -X POST http://127.0.0.1:4191/shutdown; exit $code",
    "trap 'curl -fsS -X POST http://localhost:15020/quitquitquit' EXIT\n/work\n",
    "/work || pkill -f envoy",
    "kill -TERM 1",
    "while [ $(netstat -plunt | grep tcp | grep -v envoy | wc -l | xargs) -ne 0 ]; do sleep 1; done",
    "nginx -s quit; while killall -0 nginx; do sleep 1; done",
    "wait-and-quit-envoy /work",
    "cloud-sql-proxy wait",
    "curl -X POST localhost:9091/quitquitquit",
    "cat <<EOF\nsleep 100\nEOF\nsleep 5",
    "cat <<-'EOF' >/tmp/note\n\tsleep 100\n",
    "'unterminated",
    "$(",
    "",
];

/// A small integer, or an edge value now and then.
fn seconds(u: &mut Unstructured) -> Result<i64> {
    Ok(match u.int_in_range(0..=9u8)? {
        0 => i64::MAX,
        1 => i64::MIN,
        2 => -1,
        3 => 0,
        4 => u.arbitrary()?,
        _ => u.int_in_range(0..=120)?,
    })
}

fn pick<'a>(u: &mut Unstructured, pool: &[&'a str]) -> Result<&'a str> {
    u.choose(pool).copied()
}

/// A string from `pool`, or now and then one the fuzzer makes up.
fn text(u: &mut Unstructured, pool: &[&str]) -> Result<String> {
    if u.ratio(1, 8)? {
        u.arbitrary()
    } else {
        Ok(pick(u, pool)?.to_owned())
    }
}

fn annotations(u: &mut Unstructured) -> Result<Map<String, Value>> {
    let mut map = Map::new();
    for _ in 0..u.int_in_range(0..=4)? {
        map.insert(
            text(u, ANNOTATION_KEYS)?,
            Value::String(text(u, ANNOTATION_VALUES)?),
        );
    }
    Ok(map)
}

fn command(u: &mut Unstructured) -> Result<Value> {
    let script = text(u, SCRIPTS)?;
    Ok(match u.int_in_range(0..=2u8)? {
        0 => json!(["/bin/sh", "-c", script]),
        1 => json!(script.split_whitespace().collect::<Vec<_>>()),
        _ => json!(["bash", "-c", script]),
    })
}

fn hook(u: &mut Unstructured) -> Result<Value> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 => json!({"exec": {"command": command(u)?}}),
        1 => json!({"sleep": {"seconds": seconds(u)?}}),
        2 => json!({"httpGet": {"path": "/drain", "port": u.int_in_range(0..=70000u32)?}}),
        _ => json!({}),
    })
}

fn probe(u: &mut Unstructured) -> Result<Value> {
    let mut probe = Map::new();
    probe.insert(
        "httpGet".into(),
        json!({"path": "/healthz/ready", "port": 15021}),
    );
    for field in [
        "initialDelaySeconds",
        "periodSeconds",
        "failureThreshold",
        "timeoutSeconds",
    ] {
        if u.arbitrary()? {
            // int32 fields: an i64 outside that range is a type error, itself a case.
            probe.insert(field.into(), json!(seconds(u)?));
        }
    }
    Ok(Value::Object(probe))
}

fn container(u: &mut Unstructured, init: bool) -> Result<Value> {
    let mut c = Map::new();
    c.insert("name".into(), json!(text(u, NAMES)?));
    c.insert("image".into(), json!(pick(u, IMAGES)?));
    if u.arbitrary()? {
        c.insert("command".into(), command(u)?);
    }
    if u.ratio(1, 4)? {
        c.insert("args".into(), json!([text(u, SCRIPTS)?]));
    }
    if init && u.arbitrary()? {
        c.insert(
            "restartPolicy".into(),
            json!(text(u, &["Always", "Never"])?),
        );
    }
    let mut lifecycle = Map::new();
    if u.arbitrary()? {
        lifecycle.insert("preStop".into(), hook(u)?);
    }
    if u.ratio(1, 3)? {
        lifecycle.insert("postStart".into(), hook(u)?);
    }
    if !lifecycle.is_empty() {
        c.insert("lifecycle".into(), Value::Object(lifecycle));
    }
    if u.ratio(1, 3)? {
        c.insert("startupProbe".into(), probe(u)?);
    }
    if u.ratio(1, 3)? {
        c.insert("readinessProbe".into(), probe(u)?);
    }
    if u.ratio(1, 3)? {
        c.insert(
            "ports".into(),
            json!([{"containerPort": u.int_in_range(1..=65535u32)?}]),
        );
    }
    if u.ratio(1, 4)? {
        let env: Vec<Value> = (0..u.int_in_range(1..=3)?)
            .map(|_| {
                Ok(json!({
                    "name": text(u, &["EXIT_ON_ZERO_ACTIVE_CONNECTIONS", "MINIMUM_DRAIN_DURATION",
                        "TERMINATION_DRAIN_DURATION_SECONDS", "PROXY_CONFIG"])?,
                    "value": text(u, ANNOTATION_VALUES)?,
                }))
            })
            .collect::<Result<_>>()?;
        c.insert("env".into(), Value::Array(env));
    }
    Ok(Value::Object(c))
}

fn pod_spec(u: &mut Unstructured) -> Result<Value> {
    let mut spec = Map::new();
    if u.arbitrary()? {
        spec.insert("terminationGracePeriodSeconds".into(), json!(seconds(u)?));
    }
    if u.arbitrary()? {
        spec.insert(
            "restartPolicy".into(),
            json!(text(u, &["Always", "Never", "OnFailure"])?),
        );
    }
    if u.ratio(1, 4)? {
        spec.insert(
            "shareProcessNamespace".into(),
            json!(u.arbitrary::<bool>()?),
        );
    }
    let init: Vec<Value> = (0..u.int_in_range(0..=3)?)
        .map(|_| container(u, true))
        .collect::<Result<_>>()?;
    if !init.is_empty() {
        spec.insert("initContainers".into(), Value::Array(init));
    }
    let containers: Vec<Value> = (0..u.int_in_range(0..=4)?)
        .map(|_| container(u, false))
        .collect::<Result<_>>()?;
    spec.insert("containers".into(), Value::Array(containers));
    Ok(Value::Object(spec))
}

/// One workload, sometimes after a `Namespace` whose labels decide injection, as YAML.
pub fn manifest(u: &mut Unstructured) -> Result<String> {
    let mut out = String::new();
    let namespace = pick(u, &["default", "mesh", "kube-system"])?;
    if u.ratio(1, 4)? {
        let mut labels = Map::new();
        for (key, values) in [
            ("istio-injection", &["enabled", "disabled"][..]),
            ("istio.io/rev", &["canary", "default"][..]),
        ] {
            if u.arbitrary()? {
                labels.insert(key.into(), json!(pick(u, values)?));
            }
        }
        let mut ns_annotations = Map::new();
        if u.arbitrary()? {
            ns_annotations.insert("linkerd.io/inject".into(), json!("enabled"));
        }
        let object = json!({
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": namespace, "labels": labels, "annotations": ns_annotations},
        });
        yaml(&object, 0, &mut out);
        out.push_str("---\n");
    }
    let (api_version, kind) = *u.choose(KINDS)?;
    let template = json!({
        "metadata": {
            "labels": Value::Object(annotations(u)?),
            "annotations": Value::Object(annotations(u)?),
        },
        "spec": pod_spec(u)?,
    });
    let metadata = json!({
        "name": "fuzzed",
        "namespace": namespace,
        "annotations": Value::Object(annotations(u)?),
    });
    let object = match kind {
        "Pod" => json!({
            "apiVersion": api_version, "kind": kind,
            "metadata": merge(metadata, &template["metadata"]),
            "spec": template["spec"],
        }),
        "Job" => json!({
            "apiVersion": api_version, "kind": kind, "metadata": metadata,
            "spec": {"template": template},
        }),
        "CronJob" => json!({
            "apiVersion": api_version, "kind": kind, "metadata": metadata,
            "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": template}}},
        }),
        _ => json!({
            "apiVersion": api_version, "kind": kind, "metadata": metadata,
            "spec": {"template": template},
        }),
    };
    yaml(&object, 0, &mut out);
    Ok(out)
}

fn merge(mut metadata: Value, template: &Value) -> Value {
    if let (Some(target), Some(source)) = (metadata.as_object_mut(), template.as_object()) {
        for (key, value) in source {
            target.insert(key.clone(), value.clone());
        }
    }
    metadata
}

/// Writes `value` as block YAML. Multi-line strings become literal blocks (as users
/// write `proxy.istio.io/config`); other strings are double-quoted with JSON escapes,
/// which YAML reads the same way.
fn yaml(value: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, value) in map {
                out.push_str(&pad);
                out.push_str(&serde_json::to_string(key).expect("a string prints"));
                out.push(':');
                nested(value, indent, out);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for item in items {
                out.push_str(&pad);
                out.push('-');
                nested(item, indent, out);
            }
        }
        scalar => {
            out.push_str(&pad);
            out.push_str(&inline(scalar));
            out.push('\n');
        }
    }
}

fn nested(value: &Value, indent: usize, out: &mut String) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push('\n');
            yaml(value, indent + 2, out);
        }
        Value::Array(items) if !items.is_empty() => {
            out.push('\n');
            yaml(value, indent + 2, out);
        }
        Value::String(text) if is_literal_block(text) => {
            out.push_str(" |\n");
            for line in text.lines() {
                if !line.is_empty() {
                    out.push_str(&" ".repeat(indent + 2));
                    out.push_str(line);
                }
                out.push('\n');
            }
        }
        scalar => {
            out.push(' ');
            out.push_str(&inline(scalar));
            out.push('\n');
        }
    }
}

/// Text that a literal block keeps exactly: several lines, each starting with a
/// non-space character, no control characters, and one final newline.
fn is_literal_block(text: &str) -> bool {
    text.ends_with('\n')
        && !text.ends_with("\n\n")
        && text.lines().count() > 1
        && text
            .lines()
            .all(|line| !line.starts_with([' ', '\t']) && !line.ends_with([' ', '\t']))
        && !text.chars().any(|c| c.is_control() && c != '\n')
}

fn inline(value: &Value) -> String {
    match value {
        Value::Object(_) => "{}".into(),
        Value::Array(_) => "[]".into(),
        other => serde_json::to_string(other).expect("a scalar prints"),
    }
}
