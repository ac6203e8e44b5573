//! `mcp`: a Model Context Protocol server on standard input and output, so that an
//! assistant can lint, explain, compare and fix manifests as the command line does.
//!
//! Each tool call runs this same program's command (`lint --format json`, `explain`,
//! `rules`, `diff`, `lint --fix-only`) as a child process, with the arguments the call
//! gives: the answers are the command line's own, byte for byte, a call that runs
//! too long is ended without taking the server with it, and the server's standard
//! input and output stay the protocol's alone. Only `fix` with `write: true` changes
//! files, and only when the server was started with `--allow-writes`, under its
//! working directory.

mod child;
mod options;
mod tools;

pub use options::Options;
pub use tools::Server;

/// Serves the protocol on standard input and output until the client closes it.
pub fn serve(options: Options) -> Result<(), String> {
    use rmcp::ServiceExt;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the server's runtime: {error}"))?;
    runtime.block_on(async move {
        let service = Server::new(options)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|error| format!("the client did not start a session: {error}"))?;
        service
            .waiting()
            .await
            .map(|_| ())
            .map_err(|error| format!("the session ended abnormally: {error}"))
    })
}
