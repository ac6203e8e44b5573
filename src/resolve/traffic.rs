//! What a container does on the network, as the input shows it: it calls out (an env
//! value that is a URL or a service address, a network client in its command, an image
//! whose only job is to call out), it serves (ports, a probe on a port, a Service of
//! the input selecting the pod), it idles (a sleep loop, `tail -f /dev/null`, a shell
//! image with no command, or a command that only waits for and stops processes), or
//! the input does not say. Rules about traffic a proxy
//! carries read it, so that a loss is proven only where the traffic is seen.

use k8s_openapi::api::core::v1::Container;

use super::shell::{self, Known};

/// A container's part in the pod's traffic, read from the input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// What shows that it calls out, when something does.
    pub calls_out: Option<CallsOut>,
    /// What shows that it serves, when something does.
    pub serves: Option<Serves>,
    /// Its command only waits (or a shell image runs no command): it has no traffic.
    pub idle: bool,
    /// Its command only inspects, waits for and stops processes (`ps`, `sleep`,
    /// `killall cloud_sql_proxy`, a sidecar's quit call on localhost): it has no
    /// traffic, whatever its env holds.
    pub only_stops: bool,
}

/// What shows a container calls out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallsOut {
    /// An env value that is a URL or a `host:port` address.
    Env {
        /// The variable.
        name: String,
        /// Its value.
        value: String,
    },
    /// A network client in its command (`curl`, `psql`, `grpcurl`…), as written.
    Command(String),
    /// An image whose only job is to call out (a load generator, an ingress controller).
    Image(String),
}

/// What shows a container serves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Serves {
    /// It declares container ports.
    Ports,
    /// A probe asks it on a port.
    Probe,
    /// A Service of the input selects the pod.
    Service(String),
}

/// Where a sidecar that proxies none of the pod's own traffic (Dapr's daprd) takes
/// requests from outside the pod: only on its own ports, so a client of the app's own
/// port never goes through it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnInbound {
    /// Its ports that take requests from outside the pod.
    pub ports: &'static [i32],
    /// The input's Service that sends requests to one of them, when one does.
    pub service: Option<String>,
}

/// The role [`Traffic`] adds up to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrafficRole {
    /// It is seen to call out (and may serve too).
    CallsOut,
    /// It is seen to serve and not to call out.
    Serves,
    /// It has no traffic: it idles, or only stops processes.
    Idle,
    /// The input does not say.
    Unknown,
}

impl Traffic {
    /// What the evidence adds up to: a command that only stops processes wins (its
    /// localhost quit call is no call out, and its env is not used), then calling out,
    /// then idling, then serving.
    pub fn role(&self) -> TrafficRole {
        if self.only_stops {
            TrafficRole::Idle
        } else if self.calls_out.is_some() {
            TrafficRole::CallsOut
        } else if self.idle {
            TrafficRole::Idle
        } else if self.serves.is_some() {
            TrafficRole::Serves
        } else {
            TrafficRole::Unknown
        }
    }

    /// The traffic of a manifest container with command `argv` (command then args);
    /// `service` names the input's Service that selects the pod, when one does; `known`
    /// holds the sidecars' stop calls.
    pub fn of(
        container: &Container,
        argv: &[String],
        service: Option<&str>,
        known: Known,
    ) -> Traffic {
        let image = container.image.as_deref().unwrap_or_default();
        let calls_out = env_call(container)
            .or_else(|| shell::network_use(argv).map(|(call, _)| CallsOut::Command(call)))
            .or_else(|| calls_out_image(image).map(|image| CallsOut::Image(image.to_owned())));
        let probe_on_port = [&container.readiness_probe, &container.liveness_probe]
            .into_iter()
            .flatten()
            .any(|probe| {
                probe.http_get.is_some() || probe.tcp_socket.is_some() || probe.grpc.is_some()
            });
        let serves = if container.ports.as_ref().is_some_and(|p| !p.is_empty()) {
            Some(Serves::Ports)
        } else if probe_on_port {
            Some(Serves::Probe)
        } else {
            service.map(|name| Serves::Service(name.to_owned()))
        };
        let idle = if argv.is_empty() {
            shell_image(image)
        } else {
            shell::only_idles(&shell::parse_argv(argv))
        };
        let only_stops = shell::only_stops_processes(&shell::parse_argv(argv), known);
        Traffic {
            calls_out,
            serves,
            idle,
            only_stops,
        }
    }
}

/// The first env value that is a URL or a service address (`cartservice:7070`).
fn env_call(container: &Container) -> Option<CallsOut> {
    container.env.iter().flatten().find_map(|var| {
        let value = var.value.as_deref()?;
        is_address(value).then(|| CallsOut::Env {
            name: var.name.clone(),
            value: value.to_owned(),
        })
    })
}

/// A URL with a host (`http://api`, `postgres://127.0.0.1/x`, a local proxy's too) or
/// `host:port` with a host name that is not local (`cartservice:7070`,
/// `redis.cache.svc:6379`).
pub fn is_address(value: &str) -> bool {
    let value = value.trim();
    if value.contains(char::is_whitespace) {
        return false;
    }
    let rest = match value.split_once("://") {
        Some((scheme, rest)) if !scheme.is_empty() && scheme != "file" => rest,
        Some(_) => return false,
        None => value,
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    let host = match host_port.rsplit_once(':') {
        Some((host, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ if value.contains("://") => host_port,
        _ => return false,
    };
    if value.contains("://") {
        return !host.is_empty();
    }
    !host.is_empty()
        && host.bytes().any(|b| b.is_ascii_alphabetic())
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
        && !matches!(host, "localhost" | "0.0.0.0")
}

/// Images whose only job is to call out: load generators, ingress controllers.
const CALLING_IMAGES: [&str; 12] = [
    "loadgenerator",
    "locust",
    "grafana/k6",
    "loadimpact/k6",
    "fortio/fortio",
    "vegeta",
    "rakyll/hey",
    "williamyeh/wrk",
    "jordi/ab",
    "ingress-nginx/controller",
    "traefik",
    "kong",
];

fn calls_out_image(image: &str) -> Option<&str> {
    let name = image_name(image);
    CALLING_IMAGES
        .iter()
        .find(|known| name == **known || name.ends_with(&format!("/{known}")))
        .map(|_| image)
}

/// Images of a shell whose default command has nothing to do.
const SHELL_IMAGES: [&str; 7] = [
    "busybox", "alpine", "ubuntu", "debian", "centos", "fedora", "bash",
];

fn shell_image(image: &str) -> bool {
    let name = image_name(image);
    let last = name.rsplit('/').next().unwrap_or(name);
    SHELL_IMAGES.contains(&last)
}

/// `registry/path/name` of an image, without its tag or digest.
fn image_name(image: &str) -> &str {
    let image = image.split('@').next().unwrap_or(image);
    match image.rsplit_once(':') {
        Some((name, tag)) if !tag.contains('/') => name,
        _ => image,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn container(json: serde_json::Value) -> Container {
        serde_json::from_value(json).unwrap()
    }

    fn known() -> Known<'static> {
        Known {
            wrappers: &[],
            lexicon: &crate::resolve::Registry::standard().lexicon,
        }
    }

    #[test]
    fn addresses() {
        assert!(is_address("http://productcatalogservice:3550"));
        assert!(is_address("cartservice:7070"));
        assert!(is_address("postgres://user@db/app"));
        assert!(!is_address("localhost:3500"));
        assert!(is_address("postgres://ledger@127.0.0.1:5432/ledger"));
        assert!(!is_address("8080"));
        assert!(!is_address("12:30"));
        assert!(!is_address("hello world"));
        assert!(!is_address("file:///tmp/x"));
    }

    #[test]
    fn roles() {
        let web = container(serde_json::json!({
            "name": "web", "image": "frontend", "ports": [{"containerPort": 8080}],
            "env": [{"name": "CART", "value": "cartservice:7070"}],
        }));
        assert_eq!(
            Traffic::of(&web, &[], None, known()).role(),
            TrafficRole::CallsOut
        );
        let nginx = container(serde_json::json!({
            "name": "web", "image": "nginx", "ports": [{"containerPort": 80}],
        }));
        assert_eq!(
            Traffic::of(&nginx, &[], None, known()).role(),
            TrafficRole::Serves
        );
        let busybox = container(serde_json::json!({"name": "b", "image": "busybox"}));
        assert_eq!(
            Traffic::of(&busybox, &[], None, known()).role(),
            TrafficRole::Idle
        );
        let sleeper = container(serde_json::json!({"name": "s", "image": "curlimages/curl"}));
        let argv = ["sleep".to_owned(), "3600".to_owned()];
        assert_eq!(
            Traffic::of(&sleeper, &argv, None, known()).role(),
            TrafficRole::Idle
        );
        let load =
            container(serde_json::json!({"name": "l", "image": "gcr.io/x/loadgenerator:v1"}));
        assert_eq!(
            Traffic::of(&load, &[], None, known()).role(),
            TrafficRole::CallsOut
        );
        let worker = container(serde_json::json!({"name": "w", "image": "example/worker"}));
        assert_eq!(
            Traffic::of(&worker, &[], None, known()).role(),
            TrafficRole::Unknown
        );
        let served = Traffic::of(&worker, &[], Some("api"), known());
        assert_eq!(served.serves, Some(Serves::Service("api".to_owned())));
        // A stopper idles, even with a database URL in its env and a quit call to make.
        let stopper = container(serde_json::json!({
            "name": "stopper", "image": "curlimages/curl",
            "env": [{"name": "DATABASE_URL", "value": "postgres://app@127.0.0.1:5432/app"}],
        }));
        let argv = [
            "sh",
            "-c",
            "sleep 30; ps; curl -X POST localhost:9091/quitquitquit",
        ]
        .map(str::to_owned);
        assert_eq!(
            Traffic::of(&stopper, &argv, None, known()).role(),
            TrafficRole::Idle
        );
        let argv = [
            "sh",
            "-c",
            "sleep 30; psql -c 'select 1'; killall cloud_sql_proxy",
        ]
        .map(str::to_owned);
        assert_eq!(
            Traffic::of(&stopper, &argv, None, known()).role(),
            TrafficRole::CallsOut
        );
    }
}
