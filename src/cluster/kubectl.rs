//! Running the user's own kubectl.
//!
//! The cluster is read through the `kubectl` the user runs (`$KUBECTL`, else the one on
//! `PATH`), with their `--context`, `--kubeconfig`, `--as` and `--as-group`, so every
//! way kubectl authenticates (exec credential plugins, OIDC, cloud providers) works
//! unchanged and no Kubernetes client is linked in. Independent reads run side by side.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

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

/// The kubectl to run, and the flags every call carries.
#[derive(Clone, Debug)]
pub struct Kubectl {
    program: OsString,
    global: Vec<OsString>,
}

/// What one kubectl call printed, and how it ended.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The command as the user could type it, for messages.
    pub command: String,
    /// Whether kubectl exited with status 0.
    pub success: bool,
    /// Its standard output.
    pub stdout: Vec<u8>,
    /// Its standard error, as it printed it.
    pub stderr: String,
    /// Whether `stderr` was already passed on to the user as it came.
    pub shown: bool,
}

/// The environment variable naming the kubectl to run.
pub const KUBECTL_VARIABLE: &str = "KUBECTL";

impl Kubectl {
    /// The kubectl of `$KUBECTL`, else `kubectl` from `PATH`, with `connection`'s flags.
    pub fn new(connection: &Connection) -> Kubectl {
        let program = std::env::var_os(KUBECTL_VARIABLE)
            .filter(|program| !program.is_empty())
            .unwrap_or_else(|| OsString::from("kubectl"));
        let mut global: Vec<OsString> = Vec::new();
        if let Some(context) = &connection.context {
            global.extend(["--context".into(), context.into()]);
        }
        if let Some(kubeconfig) = &connection.kubeconfig {
            global.extend(["--kubeconfig".into(), kubeconfig.into()]);
        }
        if let Some(user) = &connection.user {
            global.extend(["--as".into(), user.into()]);
        }
        for group in &connection.groups {
            global.extend(["--as-group".into(), group.into()]);
        }
        Kubectl { program, global }
    }

    /// `kubectl get … -o json`, as the user could type it (global flags left out).
    fn command_line(&self, args: &[String]) -> String {
        let mut line = String::from("kubectl");
        for arg in args {
            line.push(' ');
            let plain = arg
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=,:@%+".contains(c));
            if plain {
                line.push_str(arg);
            } else {
                line.push('\'');
                line.push_str(&arg.replace('\'', r"'\''"));
                line.push('\'');
            }
        }
        line
    }

    fn command(&self, args: &[String]) -> Command {
        let mut command = Command::new(&self.program);
        command
            .args(&self.global)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// Why kubectl could not be started.
    fn start_error(&self, error: &std::io::Error) -> String {
        let program = self.program.to_string_lossy();
        if error.kind() == std::io::ErrorKind::NotFound {
            format!(
                "`{program}` not found: --cluster reads the cluster with kubectl, from PATH or ${KUBECTL_VARIABLE}"
            )
        } else {
            format!("cannot run `{program}`: {error}")
        }
    }

    /// Runs the first call of a run with the user's terminal: standard input is kubectl's,
    /// so an exec credential plugin can ask for a password, and with `forward` its
    /// standard error reaches the user as it comes (a plugin's "open this URL to log
    /// in"), as well as being kept.
    pub fn run_first(&self, args: &[String], forward: bool) -> Result<Reply, String> {
        let mut command = self.command(args);
        command.stdin(Stdio::inherit());
        let mut child = command.spawn().map_err(|error| self.start_error(&error))?;
        let stderr = child.stderr.take().expect("stderr is piped");
        let relay = std::thread::spawn(move || relay(stderr, forward));
        let mut stdout = Vec::new();
        if let Some(mut out) = child.stdout.take() {
            let _ = out.read_to_end(&mut stdout);
        }
        let status = child.wait().map_err(|error| self.start_error(&error))?;
        let stderr = relay.join().unwrap_or_default();
        Ok(Reply {
            command: self.command_line(args),
            success: status.success(),
            stdout,
            stderr,
            shown: forward,
        })
    }

    /// Runs independent calls side by side, with no standard input; the replies are in
    /// the order of `calls`.
    pub fn run_all(&self, calls: &[Vec<String>]) -> Vec<Result<Reply, String>> {
        let children: Vec<Result<Child, String>> = calls
            .iter()
            .map(|args| {
                self.command(args)
                    .stdin(Stdio::null())
                    .spawn()
                    .map_err(|error| self.start_error(&error))
            })
            .collect();
        // A child blocked on a full pipe waits until its turn comes; each one is read
        // to its end, so none can wait for another.
        children
            .into_iter()
            .zip(calls)
            .map(|(child, args)| {
                let output = child?
                    .wait_with_output()
                    .map_err(|error| self.start_error(&error))?;
                Ok(Reply {
                    command: self.command_line(args),
                    success: output.status.success(),
                    stdout: output.stdout,
                    stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
                    shown: false,
                })
            })
            .collect()
    }
}

/// Reads a child's standard error to its end, passing it on to ours when `forward` (a
/// terminal: the progress line there is cleared first).
fn relay(mut from: impl Read, forward: bool) -> String {
    let mut kept = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match from.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if forward {
                    let mut stderr = std::io::stderr().lock();
                    if kept.is_empty() {
                        let _ = stderr.write_all(b"\r\x1b[2K");
                    }
                    let _ = stderr.write_all(&buffer[..n]);
                    let _ = stderr.flush();
                }
                kept.extend_from_slice(&buffer[..n]);
            }
        }
    }
    String::from_utf8_lossy(&kept).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_quote_what_a_shell_would_split() {
        let kubectl = Kubectl::new(&Connection::default());
        let args: Vec<String> = ["get", "nodes", "-o", "jsonpath={.items[*].metadata.name}"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            kubectl.command_line(&args),
            "kubectl get nodes -o 'jsonpath={.items[*].metadata.name}'"
        );
    }

    #[test]
    fn connection_flags_come_first() {
        let kubectl = Kubectl::new(&Connection {
            context: Some("prod".into()),
            kubeconfig: Some("/tmp/kc".into()),
            user: Some("jane".into()),
            groups: vec!["dev".into(), "ops".into()],
        });
        let flags: Vec<&str> = kubectl.global.iter().map(|f| f.to_str().unwrap()).collect();
        assert_eq!(
            flags,
            [
                "--context",
                "prod",
                "--kubeconfig",
                "/tmp/kc",
                "--as",
                "jane",
                "--as-group",
                "dev",
                "--as-group",
                "ops"
            ]
        );
    }
}
