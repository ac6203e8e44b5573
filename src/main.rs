//! `kubectl-mesh_lifecycle`: on PATH, kubectl runs it as `kubectl mesh-lifecycle`.

use std::process::ExitCode;

fn main() -> ExitCode {
    mesh_lifecycle::cli::run(std::env::args_os())
}
