// The launch logic, tested without VS Code (its test runner downloads VS Code, which
// an offline build cannot): `npm test` runs it with node's own test runner.

import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { test } from "node:test";

import { BINARY, DOCUMENT_SELECTOR, launch, onPath, restartNeeded } from "../src/launch";

const env = (searchPath: string) => ({
  home: "/home/me",
  workspace: "/work/repo",
  searchPath,
  isWindows: false,
});

test("starts the binary found on PATH with `lsp` and the extra arguments", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mesh-lifecycle-"));
  const binary = path.join(dir, BINARY);
  fs.writeFileSync(binary, "#!/bin/sh\n", { mode: 0o755 });
  const searchPath = ["/nonexistent", dir].join(path.delimiter);
  assert.equal(onPath(searchPath, false), binary);
  assert.deepEqual(launch({ path: "", args: ["--istio-version", "1.24", ""] }, env(searchPath)), {
    command: binary,
    args: ["lsp", "--istio-version", "1.24"],
  });
});

test("without the binary on PATH, leaves its name for the system to look up", () => {
  assert.deepEqual(launch({ path: "", args: [] }, env("/nonexistent")), {
    command: BINARY,
    args: ["lsp"],
  });
});

test("a configured path wins, from the home directory or the workspace", () => {
  assert.equal(launch({ path: "/opt/bin/x", args: [] }, env("")).command, "/opt/bin/x");
  assert.equal(launch({ path: "~/bin/x", args: [] }, env("")).command, "/home/me/bin/x");
  assert.equal(
    launch({ path: "target/release/x", args: [] }, env("")).command,
    "/work/repo/target/release/x",
  );
  assert.equal(launch({ path: " x ", args: [] }, env("")).command, "x");
});

test("restarts only for settings that change the command", () => {
  assert.equal(restartNeeded((s) => s === "meshLifecycle.args"), true);
  assert.equal(restartNeeded((s) => s === "meshLifecycle.trace.server"), false);
});

test("hands the server saved and unsaved YAML, and JSON files", () => {
  const languages = DOCUMENT_SELECTOR.map((s) => `${s.scheme}:${s.language}`);
  assert.deepEqual(languages, ["file:yaml", "untitled:yaml", "file:json"]);
});
