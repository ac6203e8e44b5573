// The VS Code extension: starts `kubectl-mesh_lifecycle lsp` and hands it the YAML and
// JSON documents; diagnostics, quick fixes and hovers come from the server.

import * as os from "os";
import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
} from "vscode-languageclient/node";

import { DOCUMENT_SELECTOR, WATCHED, launch, restartNeeded } from "./launch";

let client: LanguageClient | undefined;

function settings() {
  const config = vscode.workspace.getConfiguration("meshLifecycle");
  return {
    path: config.get<string>("path", ""),
    args: config.get<string[]>("args", []),
  };
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  const command = launch(settings(), {
    home: os.homedir(),
    workspace: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    searchPath: process.env.PATH ?? "",
    isWindows: process.platform === "win32",
  });
  const serverOptions: ServerOptions = { command: command.command, args: command.args };
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    synchronize: {
      fileEvents: vscode.workspace.createFileSystemWatcher(WATCHED),
    },
  };
  client = new LanguageClient(
    "meshLifecycle",
    "kubectl mesh-lifecycle",
    serverOptions,
    clientOptions,
  );
  context.subscriptions.push(client);
  await client.start();
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!restartNeeded((section) => event.affectsConfiguration(section))) return;
      await client?.stop();
      await start(context);
    }),
  );
  await start(context);
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
