//! A real editor: headless Neovim attaches `lsp` to a manifest, reads back its
//! diagnostics, applies the quick fix that sets Istio's hold and sees the finding go.
//! `lint` and `lint --fix` are the oracles.
//!
//! Neovim is Debian's `neovim` package (0.7 on bookworm, which has
//! `vim.lsp.start_client` and `vim.lsp.buf_attach_client` but not yet `vim.lsp.start`);
//! `.ci/run` installs it. Without it the test is skipped with a note
//! (`common::tools`), unless `.ci/run` requires it.

use crate::common;
use crate::common::tools;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{cli, testdata};
use serde_json::Value;

/// The client's side, in Neovim's Lua: attach, collect, fix, collect again, and write
/// what it saw as JSON to `$MESH_OUT`.
const SCRIPT: &str = r#"
local bin, root, file, out = os.getenv("MESH_BIN"), os.getenv("MESH_ROOT"), os.getenv("MESH_FILE"), os.getenv("MESH_OUT")
local result = {}

local function code(d)
  return d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
end

local function collect()
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do
    table.insert(list, { code = code(d), lnum = d.lnum, col = d.col, severity = d.severity })
  end
  return list
end

local function has(wanted)
  for _, d in ipairs(vim.diagnostic.get(0)) do
    if code(d) == wanted then return d end
  end
end

local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local client_id = vim.lsp.start_client({ name = "mesh-lifecycle", cmd = { bin, "lsp" }, root_dir = root })
  assert(client_id, "the client did not start")
  vim.lsp.buf_attach_client(0, client_id)
  assert(vim.wait(60000, function() return has("ML101") ~= nil end, 20), "no ML101 diagnostic")
  result.diagnostics = collect()

  local target = has("ML101")
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(0) },
    range = {
      start = { line = target.lnum, character = target.col },
      ["end"] = { line = target.end_lnum, character = target.end_col },
    },
    context = { diagnostics = {} },
  }
  local responses = vim.lsp.buf_request_sync(0, "textDocument/codeAction", params, 60000)
  local fix
  result.titles = {}
  for _, response in pairs(responses or {}) do
    for _, action in ipairs(response.result or {}) do
      table.insert(result.titles, action.title)
      if action.title:find("^Fix ML101") then fix = action end
    end
  end
  assert(fix, "no fix for ML101")
  local client = vim.lsp.get_client_by_id(client_id)
  vim.lsp.util.apply_workspace_edit(fix.edit, client.offset_encoding)
  vim.cmd("write")
  -- The server lints the changed buffer: ML101 goes, ML207 stays.
  assert(
    vim.wait(60000, function() return has("ML101") == nil and has("ML207") ~= nil end, 20),
    "ML101 did not clear"
  )
  result.after = collect()
  vim.lsp.stop_client(client_id)
  vim.wait(10000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 20)
end)

result.error = (not ok) and tostring(err) or nil
local handle = io.open(out, "w")
handle:write(vim.fn.json_encode(result))
handle:close()
vim.cmd(ok and "qa!" or "cq!")
"#;

/// Neovim, or `None` when the test is skipped ([`tools::program`]).
fn neovim() -> Option<PathBuf> {
    tools::program("nvim")
}

/// `(code, line, column)` of each item, 1-based, sorted.
fn codes(
    items: &Value,
    code: &str,
    line: &str,
    column: &str,
    base: u64,
) -> Vec<(String, u64, u64)> {
    let mut found: Vec<(String, u64, u64)> = items
        .as_array()
        .unwrap_or_else(|| panic!("a list: {items}"))
        .iter()
        .map(|item| {
            (
                item[code].as_str().unwrap().to_owned(),
                item[line].as_u64().unwrap() + base,
                item[column].as_u64().unwrap() + base,
            )
        })
        .collect();
    found.sort();
    found
}

fn run_neovim(nvim: &Path, dir: &Path, file: &Path) -> Value {
    let script = dir.join("client.lua");
    std::fs::write(&script, SCRIPT).unwrap();
    let out = dir.join("seen.json");
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut child = Command::new(nvim)
        .args(["--headless", "--clean", "-n", "-i", "NONE", "-c"])
        .arg(format!("luafile {}", script.display()))
        .current_dir(dir)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env(
            "MESH_BIN",
            assert_cmd::cargo::cargo_bin("kubectl-mesh_lifecycle"),
        )
        .env("MESH_ROOT", dir)
        .env("MESH_FILE", file)
        .env("MESH_OUT", &out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nvim starts");
    let deadline = Instant::now() + Duration::from_secs(180);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("nvim did not finish within 180 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    let seen: Value = std::fs::read_to_string(&out)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_else(|| panic!("nvim wrote nothing ({status}): {stderr}"));
    assert!(
        status.success() && seen.get("error").is_none(),
        "{status}: {seen:#}\n{stderr}"
    );
    seen
}

#[test]
fn neovim_shows_the_findings_and_applies_the_istio_hold() {
    let Some(nvim) = neovim() else { return };
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(testdata("rules/ml101-fire-inject-label.yaml")).unwrap();
    let file = dir.path().join("web.yaml");
    std::fs::write(&file, &text).unwrap();
    // The oracles, on copies: what `lint` finds and what `lint --fix` writes.
    let oracle_dir = tempfile::tempdir().unwrap();
    let oracle = oracle_dir.path();
    std::fs::write(oracle.join("web.yaml"), &text).unwrap();
    let report = common::lint_json(&oracle.join("web.yaml"), &["--no-config"]).0;
    let expected = codes(&report["findings"], "ruleId", "line", "column", 0);
    cli()
        .current_dir(oracle)
        .args(["lint", "--fix", "--no-config", "web.yaml"])
        .output()
        .unwrap();
    let fixed = std::fs::read_to_string(oracle.join("web.yaml")).unwrap();
    assert!(
        fixed.contains("holdApplicationUntilProxyStarts: true"),
        "{fixed}"
    );
    assert_ne!(fixed, text);

    let seen = run_neovim(&nvim, dir.path(), &file);
    assert_eq!(
        codes(&seen["diagnostics"], "code", "lnum", "col", 1),
        expected
    );
    let titles: Vec<&str> = seen["titles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(
        titles.iter().any(|t| t.starts_with("Suppress ML101")),
        "{titles:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        fixed,
        "Neovim wrote the fix"
    );
    let after = codes(&seen["after"], "code", "lnum", "col", 1);
    let after_rules: Vec<&str> = after.iter().map(|(code, ..)| code.as_str()).collect();
    assert_eq!(after_rules, ["ML207"]);
}
