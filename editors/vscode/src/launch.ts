// How the extension starts the language server, kept apart from VS Code's API so that
// it is tested on its own (test/launch.test.ts).

import * as fs from "fs";
import * as path from "path";

/** The binary's name: on PATH, kubectl runs it as `kubectl mesh-lifecycle`. */
export const BINARY = "kubectl-mesh_lifecycle";

/** The extension's settings (`meshLifecycle.*`). */
export interface Settings {
  /** The executable; empty for the one on PATH. */
  path: string;
  /** More arguments of `lsp`. */
  args: string[];
}

/** A command to run: the executable and its arguments. */
export interface Launch {
  command: string;
  args: string[];
}

/** The documents the server is given: YAML and JSON files, saved or not. */
export const DOCUMENT_SELECTOR = [
  { scheme: "file", language: "yaml" },
  { scheme: "untitled", language: "yaml" },
  { scheme: "file", language: "json" },
];

/** The files whose changes the server hears of: manifests and config files. */
export const WATCHED = "**/{*.yaml,*.yml,*.json,.mesh-lifecycle.yaml}";

/**
 * The command that starts the server. A `path` that starts with `~` is under the home
 * directory; a relative one, under the first workspace folder; none, the binary found
 * on `PATH` (`searchPath`), else its bare name for the system to look up.
 */
export function launch(
  settings: Settings,
  env: { home: string; workspace?: string; searchPath: string; isWindows: boolean },
): Launch {
  const args = ["lsp", ...settings.args.filter((arg) => arg.length > 0)];
  let command = settings.path.trim();
  if (command === "") {
    command = onPath(env.searchPath, env.isWindows) ?? BINARY;
  } else if (command === "~" || command.startsWith("~/")) {
    command = path.join(env.home, command.slice(1));
  } else if (!path.isAbsolute(command) && command.includes("/") && env.workspace) {
    command = path.join(env.workspace, command);
  }
  return { command, args };
}

/** The binary's full path in the first directory of `searchPath` that holds it. */
export function onPath(searchPath: string, isWindows: boolean): string | undefined {
  const name = isWindows ? `${BINARY}.exe` : BINARY;
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === "") continue;
    const candidate = path.join(dir, name);
    try {
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // Not there: the next directory.
    }
  }
  return undefined;
}

/** Whether a change of configuration calls for a restart of the server. */
export function restartNeeded(affects: (section: string) => boolean): boolean {
  return affects("meshLifecycle.path") || affects("meshLifecycle.args");
}
