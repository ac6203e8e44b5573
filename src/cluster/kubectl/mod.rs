//! Running the user's own kubectl, within bounds.
//!
//! The cluster is read through the `kubectl` the user runs (`$KUBECTL`, else the one on
//! `PATH`), with their `--context`, `--kubeconfig`, `--as` and `--as-group`, so every
//! way kubectl authenticates (exec credential plugins, OIDC, cloud providers) works
//! unchanged and no Kubernetes client is linked in. Independent reads run side by side.
//! This module builds each call's arguments and runs calls one by one or side by side;
//! what bounds a call is `bounds`, how one is run and stopped is `process`, and how it
//! ended, in words for the user, is `reply`. Every call is built as
//! [`crate::external::Args`]: the connection's flags carry their values glued
//! (`--context=NAME`), so no value can be read as another flag.

mod bounds;
mod process;
mod reply;

use std::ffi::OsString;
use std::path::PathBuf;

use crate::external::Args;
pub use crate::external::Timeout;
pub use bounds::{Bounds, DEFAULT_CLUSTER_TIMEOUT, DEFAULT_REQUEST_TIMEOUT};
use process::Terminal;
pub use reply::{End, Reply};

/// How to reach the cluster: kubectl's own flags, passed through as given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Connection {
    /// `--context`.
    pub context: Option<String>,
    /// `--kubeconfig`.
    pub kubeconfig: Option<PathBuf>,
    /// `--as`: the user to impersonate.
    pub user: Option<String>,
    /// `--as-group`, repeated.
    pub groups: Vec<String>,
}

/// The kubectl to run, the flags every call carries, and the bounds on each call.
#[derive(Clone, Debug)]
pub struct Kubectl {
    program: OsString,
    global: Args,
    bounds: Bounds,
}

/// The most kubectl calls run at once: each is a process of some 50 MB that spends
/// most of its life waiting on the API server.
const SIDE_BY_SIDE: usize = 6;

/// The environment variable naming the kubectl to run.
pub const KUBECTL_VARIABLE: &str = "KUBECTL";

/// The kubectl to run: `$KUBECTL`, else `kubectl` from `PATH`.
pub fn program() -> OsString {
    std::env::var_os(KUBECTL_VARIABLE)
        .filter(|program| !program.is_empty())
        .unwrap_or_else(|| OsString::from("kubectl"))
}

impl Kubectl {
    /// The kubectl of `$KUBECTL`, else `kubectl` from `PATH`, with `connection`'s flags
    /// and the request timeout of `bounds`.
    pub fn new(connection: &Connection, bounds: Bounds) -> Kubectl {
        let program = program();
        let mut global = Args::new();
        if let Some(context) = &connection.context {
            global = global.option("--context", context);
        }
        if let Some(kubeconfig) = &connection.kubeconfig {
            global = global.option("--kubeconfig", kubeconfig);
        }
        if let Some(user) = &connection.user {
            global = global.option("--as", user);
        }
        for group in &connection.groups {
            global = global.option("--as-group", group);
        }
        global = global.option("--request-timeout", &bounds.request_timeout.text);
        Kubectl {
            program,
            global,
            bounds,
        }
    }

    /// The bounds every call runs under.
    pub fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    /// `kubectl get … -o json`, as the user could type it (global flags left out).
    fn command_line(&self, args: &Args) -> String {
        format!("kubectl {}", args.shown())
    }

    /// Runs the first call of a run with the user's terminal: standard input is kubectl's,
    /// so an exec credential plugin can ask for a password, and with `forward` its
    /// standard error reaches the user as it comes (a plugin's "open this URL to log
    /// in"), as well as being kept.
    pub fn run_first(&self, args: &Args, forward: bool) -> Result<Reply, String> {
        self.run(args, Terminal::Shared { forward })
    }

    /// Runs one call with no standard input.
    pub fn run_one(&self, args: &Args) -> Result<Reply, String> {
        self.run(args, Terminal::Detached)
    }

    /// Runs independent calls side by side, at most [`SIDE_BY_SIDE`] at a time, with no
    /// standard input; the replies are in the order of `calls`.
    pub fn run_all(&self, calls: &[Args]) -> Vec<Result<Reply, String>> {
        let next = std::sync::atomic::AtomicUsize::new(0);
        let replies: Vec<std::sync::Mutex<Option<Result<Reply, String>>>> =
            calls.iter().map(|_| std::sync::Mutex::new(None)).collect();
        std::thread::scope(|scope| {
            for _ in 0..SIDE_BY_SIDE.min(calls.len()) {
                scope.spawn(|| {
                    loop {
                        let at = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(args) = calls.get(at) else { break };
                        let reply = self.run_one(args);
                        if let Ok(mut slot) = replies[at].lock() {
                            *slot = Some(reply);
                        }
                    }
                });
            }
        });
        replies
            .into_iter()
            .map(|slot| {
                slot.into_inner()
                    .ok()
                    .flatten()
                    .unwrap_or_else(|| Err("kubectl's call was not made".to_owned()))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds() -> Bounds {
        Bounds::defaults()
    }

    #[test]
    fn command_lines_quote_what_a_shell_would_split() {
        let kubectl = Kubectl::new(&Connection::default(), bounds());
        let args = Args::new()
            .words(&["get", "nodes", "-o"])
            .checked("jsonpath={.items[*].metadata.name}");
        assert_eq!(
            kubectl.command_line(&args),
            "kubectl get nodes -o 'jsonpath={.items[*].metadata.name}'"
        );
    }

    #[test]
    fn connection_flags_come_first_with_their_values_then_the_request_timeout() {
        let kubectl = Kubectl::new(
            &Connection {
                context: Some("prod".into()),
                kubeconfig: Some("/tmp/kc".into()),
                user: Some("--jane".into()),
                groups: vec!["dev".into(), "ops".into()],
            },
            bounds(),
        );
        let flags: Vec<&str> = kubectl.global.iter().map(|f| f.to_str().unwrap()).collect();
        assert_eq!(
            flags,
            [
                "--context=prod",
                "--kubeconfig=/tmp/kc",
                "--as=--jane",
                "--as-group=dev",
                "--as-group=ops",
                "--request-timeout=30s"
            ]
        );
    }
}
