//! Which commands ask a sidecar to stop: HTTP calls to a localhost stop endpoint,
//! proxy CLIs (`linkerd-await --shutdown`, `pilot-agent request`), signals to a proxy
//! process and wrappers users declared.

use super::syntax::{SimpleCommand, basename};

/// HTTP methods that matter to stop endpoints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HttpMethod {
    /// curl's and wget's default.
    Get,
    /// `curl -X POST`, `curl -d`, `wget --post-data`.
    Post,
}

/// What a stop call addresses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopTarget {
    /// An HTTP endpoint on localhost.
    Http {
        /// The port.
        port: u16,
        /// The request path (`/quitquitquit`).
        path: String,
    },
    /// `linkerd-await --shutdown`.
    LinkerdAwait,
    /// `cloud-sql-proxy shutdown`.
    CloudSqlShutdown,

    /// A signal to a process.
    Signal {
        /// The process name `pkill`/`killall` match, or what `kill` targets.
        process: String,
    },
    /// `touch PATH`: a file a sidecar's own command may wait for.
    File {
        /// The path created.
        path: String,
    },
    /// A declared wrapper command.
    Wrapper {
        /// The wrapper's name.
        command: String,
    },
}

/// Recognises one command as a stop call.
pub(super) fn classify_call(
    command: &SimpleCommand,
    wrappers: &[String],
) -> Option<(StopTarget, Option<HttpMethod>)> {
    let name = command.name()?;
    let argv = command.argv();
    if wrappers.iter().any(|w| basename(w) == name) {
        return Some((
            StopTarget::Wrapper {
                command: name.to_owned(),
            },
            None,
        ));
    }
    match name {
        "curl" | "wget" | "http" => {
            let (port, path) = argv.iter().find_map(|w| localhost_url(&w.0))?;
            if !is_stop_path(&path) {
                return None;
            }
            Some((StopTarget::Http { port, path }, Some(http_method(command))))
        }
        "linkerd-await" if argv.iter().any(|w| w.0 == "--shutdown" || w.0 == "-S") => {
            Some((StopTarget::LinkerdAwait, None))
        }
        "cloud-sql-proxy" if argv.get(1).is_some_and(|w| w.0 == "shutdown") => {
            Some((StopTarget::CloudSqlShutdown, None))
        }
        "pilot-agent"
            if argv.iter().any(|w| w.0 == "request")
                && argv.iter().any(|w| w.0.contains("quitquitquit")) =>
        {
            // `pilot-agent request` talks to Envoy's admin port unless told otherwise.
            let port = argv
                .iter()
                .enumerate()
                .find_map(|(i, w)| {
                    w.0.strip_prefix("--debug-port=")
                        .map(str::to_owned)
                        .or_else(|| {
                            (w.0 == "--debug-port")
                                .then(|| argv.get(i + 1).map(|p| p.0.clone()))
                                .flatten()
                        })
                })
                .and_then(|p| p.parse().ok())
                .unwrap_or(15000);
            Some((
                StopTarget::Http {
                    port,
                    path: "/quitquitquit".into(),
                },
                Some(HttpMethod::Post),
            ))
        }
        "touch" => {
            let path = argv[1..].iter().find(|w| w.0.starts_with('/'))?;
            Some((
                StopTarget::File {
                    path: path.0.clone(),
                },
                None,
            ))
        }
        "kill" | "pkill" | "killall" => {
            let target = argv[1..]
                .iter()
                .filter(|w| !w.0.starts_with('-'))
                .map(|w| w.0.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            let lower = target.to_lowercase();
            const PROXIES: [&str; 6] = [
                "envoy",
                "pilot-agent",
                "linkerd",
                "cloud-sql-proxy",
                "cloud_sql_proxy",
                "proxy",
            ];
            PROXIES
                .iter()
                .any(|p| lower.contains(p))
                .then_some((StopTarget::Signal { process: target }, None))
        }
        _ => None,
    }
}

fn is_stop_path(path: &str) -> bool {
    let path = path.split('?').next().unwrap_or(path);
    path.ends_with("/quitquitquit")
        || path.ends_with("/shutdown")
        || path.ends_with("/agent/v1/quit")
}

/// `http://localhost:15020/quitquitquit`, `127.0.0.1:4191/shutdown` → port and path.
fn localhost_url(word: &str) -> Option<(u16, String)> {
    let rest = word
        .strip_prefix("http://")
        .or_else(|| word.strip_prefix("https://"))
        .unwrap_or(word);
    let (host_port, path) = rest.split_once('/')?;
    let (host, port) = host_port.rsplit_once(':')?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if !matches!(host, "localhost" | "127.0.0.1" | "::1" | "0.0.0.0" | "") {
        return None;
    }
    Some((port.parse().ok()?, format!("/{path}")))
}

fn http_method(command: &SimpleCommand) -> HttpMethod {
    let argv = command.argv();
    let mut words = argv.iter().map(|w| w.0.as_str()).peekable();
    let mut method = HttpMethod::Get;
    while let Some(word) = words.next() {
        let explicit = match word {
            "-X" | "--request" | "--method" => words.peek().copied(),
            _ => word
                .strip_prefix("-X")
                .filter(|m| !m.is_empty())
                .or_else(|| word.strip_prefix("--request="))
                .or_else(|| word.strip_prefix("--method=")),
        };
        if let Some(explicit) = explicit {
            return if explicit.eq_ignore_ascii_case("POST") {
                HttpMethod::Post
            } else {
                HttpMethod::Get
            };
        }
        if word == "-d"
            || word.starts_with("--data")
            || word.starts_with("--post-data")
            || word.starts_with("--post-file")
            || word.starts_with("-F")
            || word == "--form"
            || word == "--json"
            || word == "POST"
        {
            method = HttpMethod::Post;
        }
    }
    method
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::shell::parse;

    /// How the first command of `script` is classified.
    fn classify(script: &str) -> Option<(StopTarget, Option<HttpMethod>)> {
        classify_call(parse(script).simple_commands()[0], &[])
    }

    #[test]
    fn http_methods() {
        let method = |script: &str| classify(script).and_then(|(_, method)| method);
        assert_eq!(
            method("curl localhost:15020/quitquitquit"),
            Some(HttpMethod::Get)
        );
        assert_eq!(
            method("curl -fsI -X POST localhost:15020/quitquitquit"),
            Some(HttpMethod::Post)
        );
        assert_eq!(
            method("wget --post-data '' -O- http://localhost:15020/quitquitquit"),
            Some(HttpMethod::Post)
        );
        assert_eq!(
            method("curl -d '' http://localhost:4191/shutdown"),
            Some(HttpMethod::Post)
        );
    }

    #[test]
    fn stop_endpoints_are_on_localhost() {
        let target = |script: &str| classify(script).map(|(target, _)| target);
        assert_eq!(
            target("curl -X POST http://[::1]:15020/quitquitquit"),
            Some(StopTarget::Http {
                port: 15020,
                path: "/quitquitquit".into()
            })
        );
        assert_eq!(
            target("pilot-agent request --debug-port 15001 POST quitquitquit"),
            Some(StopTarget::Http {
                port: 15001,
                path: "/quitquitquit".into()
            })
        );
        assert_eq!(
            target("curl -X POST https://example.com/quitquitquit"),
            None
        );
        assert_eq!(target("curl -X POST localhost:8080/healthz"), None);
        assert_eq!(target("kill -TERM 1"), None);
    }
}
