//! The `initialize` handshake: what the editor can do (position encoding, document
//! changes in edits, file watching) decides how the session runs; the answer states the
//! server's own capabilities.

use std::path::PathBuf;

use lsp_server::{Connection, ErrorCode, Response};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, HoverProviderCapability,
    InitializeParams, OneOf, SaveOptions, ServerCapabilities, ServerInfo,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions, WorkspaceFoldersServerCapabilities, WorkspaceServerCapabilities,
};

use super::actions::{self, EditSupport};
use super::context::{Overrides, Workspace};
use super::position::Encoding;
use super::server::{Client, Ending, Server};

/// Runs the server on `connection` until the editor exits or goes away.
pub fn serve(connection: &Connection, overrides: Overrides) -> Result<Ending, String> {
    let (id, params) = connection
        .initialize_start()
        .map_err(|error| error.to_string())?;
    let params: InitializeParams = match serde_json::from_value(params) {
        Ok(params) => params,
        Err(error) => {
            let message = format!("initialize: {error}");
            let _ = connection.sender.send(
                Response::new_err(id, ErrorCode::InvalidParams as i32, message.clone()).into(),
            );
            return Err(message);
        }
    };
    let capabilities = &params.capabilities;
    let encoding = Encoding::negotiate(
        capabilities
            .general
            .as_ref()
            .and_then(|general| general.position_encodings.as_deref()),
    );
    let workspace = capabilities.workspace.as_ref();
    let support = EditSupport {
        document_changes: workspace
            .and_then(|w| w.workspace_edit.as_ref())
            .and_then(|edit| edit.document_changes)
            .unwrap_or(false),
    };
    let watches = workspace
        .and_then(|w| w.did_change_watched_files.as_ref())
        .and_then(|watched| watched.dynamic_registration)
        .unwrap_or(false);
    let result = serde_json::json!({
        "capabilities": server_capabilities(encoding),
        "serverInfo": ServerInfo {
            name: crate::BINARY_NAME.to_owned(),
            version: Some(env!("CARGO_PKG_VERSION").to_owned()),
        },
    });
    connection
        .initialize_finish(id, result)
        .map_err(|error| error.to_string())?;
    let client = Client {
        edits: support,
        hover_width: hover_width(params.initialization_options.as_ref()),
    };
    let mut server = Server::new(
        connection.sender.clone(),
        Workspace::new(folders(&params), overrides),
        encoding,
        client,
    );
    if watches {
        server.watch_files();
    }
    Ok(server.run(&connection.receiver))
}

/// The width of a hover's timeline when the editor does not say (`hoverWidth`): what an
/// 80-column window shows without wrapping.
pub const DEFAULT_HOVER_WIDTH: usize = 80;

/// The columns hovers are laid out for: `initializationOptions.hoverWidth` where the
/// editor gives it (its window's width; the protocol has no field of its own for it),
/// within the widths every report is drawn for; else [`DEFAULT_HOVER_WIDTH`].
fn hover_width(options: Option<&serde_json::Value>) -> usize {
    options
        .and_then(|options| options.get("hoverWidth"))
        .and_then(serde_json::Value::as_u64)
        .and_then(|width| usize::try_from(width).ok())
        .map_or(DEFAULT_HOVER_WIDTH, |width| {
            width.clamp(crate::report::style::MIN_WIDTH, 400)
        })
}

fn server_capabilities(encoding: Encoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(encoding.kind()),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
                ..TextDocumentSyncOptions::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, actions::fix_all_kind()]),
            resolve_provider: Some(false),
            ..CodeActionOptions::default()
        })),
        workspace: Some(WorkspaceServerCapabilities {
            workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                supported: Some(true),
                change_notifications: Some(OneOf::Left(true)),
            }),
            file_operations: None,
        }),
        ..ServerCapabilities::default()
    }
}

/// The workspace folders the editor opened, or its root.
#[allow(deprecated)] // `rootUri` and `rootPath`: what clients without folders send.
fn folders(params: &InitializeParams) -> Vec<PathBuf> {
    if let Some(folders) = &params.workspace_folders {
        return folders
            .iter()
            .filter_map(|folder| super::uri::to_path(&folder.uri))
            .collect();
    }
    if let Some(root) = params.root_uri.as_ref().and_then(super::uri::to_path) {
        return vec![root];
    }
    params
        .root_path
        .as_ref()
        .map(PathBuf::from)
        .into_iter()
        .collect()
}
