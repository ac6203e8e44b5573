//! Which commands ask a sidecar to stop: HTTP calls to a localhost stop endpoint,
//! proxy CLIs (`linkerd-await --shutdown`, `pilot-agent request`), signals to a proxy
//! process and wrappers users declared.

use super::syntax::{SimpleCommand, basename};
use crate::resolve::vocabulary::Lexicon;

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
    /// A sidecar's own command that asks it to stop (`linkerd-await --shutdown`).
    Command {
        /// The program.
        program: &'static str,
        /// It runs the work as its child (`linkerd-await --shutdown -- ./work`) and
        /// returns its status.
        runs_work: bool,
    },
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

/// What the reader knows of stop calls: the wrappers users declared, and the sidecars'
/// own words.
#[derive(Clone, Copy)]
pub struct Known<'a> {
    /// Commands users declared as stopping the sidecar.
    pub wrappers: &'a [String],
    /// The sidecars' stop paths, commands and processes.
    pub lexicon: &'a Lexicon,
}

/// Recognises one command as a stop call.
pub(super) fn classify_call(
    command: &SimpleCommand,
    known: Known,
) -> Option<(StopTarget, Option<HttpMethod>)> {
    let name = command.name()?;
    let argv = command.argv();
    if known.wrappers.iter().any(|w| basename(w) == name) {
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
            if !is_stop_path(&path, known.lexicon) {
                return None;
            }
            Some((StopTarget::Http { port, path }, Some(http_method(command))))
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
            // A sidecar's process, or any proxy's.
            known
                .lexicon
                .processes()
                .chain(["proxy"])
                .any(|p| lower.contains(p))
                .then_some((StopTarget::Signal { process: target }, None))
        }
        _ => {
            let words: Vec<&str> = argv.iter().map(|w| w.0.as_str()).collect();
            known
                .lexicon
                .stop_commands()
                .filter(|stop| stop.program == name)
                .find_map(|stop| (stop.read)(&words))
        }
    }
}

/// Whether a request path is one of a sidecar's stop endpoints (query aside).
fn is_stop_path(path: &str, lexicon: &Lexicon) -> bool {
    let path = path.split('?').next().unwrap_or(path);
    lexicon.stop_paths().any(|stop| path.ends_with(stop))
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
        let lexicon = &crate::resolve::Registry::standard().lexicon;
        let known = Known {
            wrappers: &[],
            lexicon,
        };
        classify_call(parse(script).simple_commands()[0], known)
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
