//! Whether a command reaches the network, and on which ports: an init container that
//! does so before the proxy is up fails.

use super::invocation::parse_argv;
use super::syntax::Word;

/// Commands that talk to the network: HTTP clients, database and queue clients,
/// migration tools, DNS and socket probes.
const NETWORK_CLIENTS: [&str; 38] = [
    "curl",
    "wget",
    "nc",
    "ncat",
    "netcat",
    "telnet",
    "socat",
    "http",
    "grpcurl",
    "psql",
    "pg_isready",
    "pg_dump",
    "pg_restore",
    "mysql",
    "mysqladmin",
    "mysqldump",
    "mongo",
    "mongosh",
    "mongodump",
    "redis-cli",
    "cqlsh",
    "nslookup",
    "dig",
    "host",
    "ping",
    "git",
    "migrate",
    "flyway",
    "liquibase",
    "alembic",
    "gsutil",
    "aws",
    "gcloud",
    "az",
    "vault",
    "etcdctl",
    "kafka-topics.sh",
    "wait-for-it",
];

/// URL schemes and service ports that show a command reaches the network.
const NETWORK_MARKERS: [&str; 11] = [
    "http://",
    "https://",
    "jdbc:",
    "postgres://",
    "postgresql://",
    "mysql://",
    "mongodb://",
    "redis://",
    "amqp://",
    "nats://",
    "grpc://",
];

/// The first command in `argv` that uses the network, as written, with the ports it
/// shows.
pub fn network_use(argv: &[String]) -> Option<(String, Vec<u16>)> {
    let list = parse_argv(argv);
    list.simple_commands().into_iter().find_map(|command| {
        let name = command.name()?;
        let words = command.argv();
        let is_client = (NETWORK_CLIENTS.contains(&name) && name != "git")
            || (name == "git"
                && words
                    .get(1)
                    .is_some_and(|w| matches!(w.0.as_str(), "clone" | "fetch" | "pull")))
            || (matches!(name, "python" | "python3") && words.iter().any(|w| w.0 == "migrate"))
            || (matches!(name, "rake" | "rails" | "bundle")
                && words.iter().any(|w| w.0.starts_with("db:")));
        let has_marker = words
            .iter()
            .any(|w| NETWORK_MARKERS.iter().any(|marker| w.0.contains(marker)));
        (is_client || has_marker).then(|| (command.text(), ports_of(name, words)))
    })
}

/// The destination ports a network command shows: URL and `host:port` ports, the
/// scheme's default port, a client's port flag or default, `nc host port`.
fn ports_of(name: &str, words: &[Word]) -> Vec<u16> {
    let mut ports: Vec<u16> = words.iter().filter_map(|w| url_port(&w.0)).collect();
    let flag = match name {
        "psql" | "pg_isready" | "pg_dump" | "redis-cli" => Some("-p"),
        "mysql" | "mysqladmin" => Some("-P"),
        _ => None,
    };
    if let Some(flag) = flag {
        let given = words.windows(2).find_map(|pair| {
            (pair[0].0 == flag)
                .then(|| pair[1].0.parse().ok())
                .flatten()
        });
        let default = match name {
            "redis-cli" => 6379,
            "mysql" | "mysqladmin" => 3306,
            _ => 5432,
        };
        ports.push(given.unwrap_or(default));
    }
    if matches!(name, "nc" | "ncat" | "netcat" | "telnet") {
        // `nc [options] host port`: option values (`-w 5`) are not ports.
        ports.extend(words.last().and_then(|w| w.0.parse::<u16>().ok()));
    }
    ports.sort_unstable();
    ports.dedup();
    ports
}

/// The port of a URL (`https://host/…` is 443) or of `host:port`.
fn url_port(word: &str) -> Option<u16> {
    let (scheme, rest) = match word.split_once("://") {
        // `-database=postgres://…`, `jdbc:postgresql://…`: the scheme is the last word.
        Some((before, rest)) => (
            before.rsplit(|c: char| !c.is_ascii_alphanumeric()).next(),
            rest,
        ),
        None => (None, word),
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    let explicit = host_port
        .rsplit_once(':')
        .filter(|(host, _)| !host.is_empty() && !host.ends_with('['))
        .and_then(|(_, port)| port.parse().ok());
    explicit.or(match scheme? {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        "postgres" | "postgresql" => Some(5432),
        "mysql" => Some(3306),
        "mongodb" => Some(27017),
        "redis" => Some(6379),
        "amqp" => Some(5672),
        "nats" => Some(4222),
        _ => None,
    })
}

#[cfg(test)]
mod network_tests {
    use super::*;

    fn uses(script: &str) -> Option<String> {
        network_use(&["sh".into(), "-c".into(), script.into()]).map(|(call, _)| call)
    }

    fn ports(script: &str) -> Vec<u16> {
        network_use(&["sh".into(), "-c".into(), script.into()])
            .map(|(_, ports)| ports)
            .unwrap_or_default()
    }

    #[test]
    fn finds_the_ports_a_call_uses() {
        assert_eq!(ports("until nc -z db 5432; do sleep 1; done"), [5432]);
        assert_eq!(ports("psql -h db -c 'select 1'"), [5432]);
        assert_eq!(ports("mysql -h db -P 3307 -e 'select 1'"), [3307]);
        assert_eq!(
            ports("curl -fsS https://config.example.com/app.json"),
            [443]
        );
        assert_eq!(ports("curl http://user@svc.ns:8080/x"), [8080]);
        assert_eq!(
            ports("migrate -database postgres://u:p@db:6432/app up"),
            [6432]
        );
        assert_eq!(ports("./migrate --jdbc jdbc:postgresql://db/app"), [5432]);
        assert_eq!(ports("migrate -database=postgres://db/app up"), [5432]);
        assert!(ports("aws s3 cp s3://bucket/x /data/x").is_empty());
    }

    #[test]
    fn recognises_network_clients_and_urls() {
        assert!(uses("until nc -z db 5432; do sleep 1; done").is_some());
        assert!(uses("psql -h db -c 'select 1'").is_some());
        assert!(uses("./bin/fetch --from https://config.example.com/app.json").is_some());
        assert!(uses("bundle exec rake db:migrate").is_some());
        assert!(uses("cp /config/a /etc/b; chmod 600 /etc/b").is_none());
        assert!(uses("true").is_none());
        assert!(uses("git config --global x y").is_none());
    }
}
