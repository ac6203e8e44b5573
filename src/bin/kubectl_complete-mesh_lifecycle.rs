//! `kubectl_complete-mesh_lifecycle`: kubectl (1.26+) runs it to complete the arguments
//! of `kubectl mesh-lifecycle`, passing the words typed after the plugin name.
//!
//! It hands them to `kubectl-mesh_lifecycle __complete`, which answers in Cobra's
//! completion protocol. The plugin binary is looked for beside this executable first
//! (after resolving symbolic links, so a link in krew's `bin` directory works), then
//! on `PATH`. It does not link the linter, so it stays a few hundred kilobytes.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

/// `mesh_lifecycle::BINARY_NAME`.
const BINARY_NAME: &str = "kubectl-mesh_lifecycle";
/// `mesh_lifecycle::cli::complete::COMPLETE`.
const COMPLETE: &str = "__complete";

fn plugin() -> PathBuf {
    let name = format!("{BINARY_NAME}{}", std::env::consts::EXE_SUFFIX);
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.canonicalize().ok())
        .and_then(|exe| Some(exe.parent()?.join(&name)))
        .filter(|beside| beside.is_file())
        .unwrap_or_else(|| PathBuf::from(name))
}

fn main() -> ExitCode {
    let words: Vec<OsString> = std::env::args_os().skip(1).collect();
    let mut command = Command::new(plugin());
    command.arg(COMPLETE).args(&words);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let error = command.exec();
        eprintln!("kubectl_complete-mesh_lifecycle: cannot run {BINARY_NAME}: {error}");
        ExitCode::FAILURE
    }
    #[cfg(not(unix))]
    match command.status() {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("kubectl_complete-mesh_lifecycle: cannot run {BINARY_NAME}: {error}");
            ExitCode::FAILURE
        }
    }
}
