//! A small Language Server Protocol client, as an editor drives the server: the
//! binary's `lsp` over its standard input and output, JSON-RPC messages framed with
//! `Content-Length` headers.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long any one answer may take before the test fails, rather than hang.
const PATIENCE: Duration = Duration::from_secs(60);

/// The server, running.
pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
    /// Messages read but not asked for yet.
    backlog: Vec<Value>,
    next_id: i64,
}

/// The `file:` URI of an absolute path.
pub fn uri(path: &Path) -> String {
    let mut encoded = String::from("file://");
    for byte in path.to_str().expect("test paths are UTF-8").bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                encoded.push(byte as char)
            }
            other => encoded.push_str(&format!("%{other:02X}")),
        }
    }
    encoded
}

impl Server {
    /// Starts `kubectl-mesh_lifecycle lsp ARGS` in `dir`.
    pub fn start(dir: &Path, args: &[&str]) -> Server {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("kubectl-mesh_lifecycle"))
            .arg("lsp")
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the server starts");
        let stdout = child.stdout.take().unwrap();
        let (sender, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        Server {
            stdin: child.stdin.take(),
            child,
            messages,
            backlog: Vec::new(),
            next_id: 0,
        }
    }

    /// `initialize` and `initialized` with `root` as the workspace folder and the
    /// capabilities an editor would have; returns the server's capabilities.
    pub fn initialize(&mut self, root: &Path, capabilities: Value) -> Value {
        let id = self.request(
            "initialize",
            json!({
                "processId": std::process::id(),
                "rootUri": uri(root),
                "workspaceFolders": [{"uri": uri(root), "name": "test"}],
                "capabilities": capabilities,
            }),
        );
        let result = self.result(id);
        self.notify("initialized", json!({}));
        result
    }

    /// Sends a raw message.
    pub fn send(&mut self, mut message: Value) {
        message["jsonrpc"] = json!("2.0");
        let body = serde_json::to_vec(&message).unwrap();
        let stdin = self.stdin.as_mut().expect("standard input is open");
        stdin
            .write_all(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes())
            .and_then(|()| stdin.write_all(&body))
            .and_then(|()| stdin.flush())
            .expect("the server reads its input");
    }

    /// Sends bytes as they are: frames the server must survive.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("standard input is open");
        stdin
            .write_all(bytes)
            .and_then(|()| stdin.flush())
            .expect("the server reads its input");
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends a request; returns its id.
    pub fn request(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"id": id, "method": method, "params": params}));
        id
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"method": method, "params": params}));
    }

    /// The first message, read or already waiting, that `wanted` picks; the others stay
    /// waiting.
    pub fn wait_for(&mut self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(at) = self.backlog.iter().position(&wanted) {
            return self.backlog.remove(at);
        }
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(message) if wanted(&message) => return message,
                Ok(message) => self.backlog.push(message),
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no {what} within {PATIENCE:?}; got {:#?}", self.backlog)
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!(
                        "the server closed its output before {what}; got {:#?}",
                        self.backlog
                    )
                }
            }
        }
    }

    /// The response to request `id`, result or error.
    pub fn response(&mut self, id: i64) -> Value {
        self.wait_for(&format!("response to request {id}"), |message| {
            message.get("id") == Some(&json!(id)) && message.get("method").is_none()
        })
    }

    /// The result of request `id`; fails on an error response.
    pub fn result(&mut self, id: i64) -> Value {
        let response = self.response(id);
        assert!(response.get("error").is_none(), "{response:#}");
        response["result"].clone()
    }

    /// The diagnostics published for `uri` at `version`.
    pub fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let message = self.wait_for(
            &format!("diagnostics of {uri} version {version}"),
            |message| {
                message["method"] == "textDocument/publishDiagnostics"
                    && message["params"]["uri"] == uri
                    && message["params"]["version"] == version
            },
        );
        message["params"]["diagnostics"]
            .as_array()
            .expect("diagnostics is an array")
            .clone()
    }

    /// Opens the file at `path` with `text` as version 1; returns its URI.
    pub fn open(&mut self, path: &Path, text: &str) -> String {
        let uri = uri(path);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}),
        );
        uri
    }

    /// Replaces the document's whole text, at `version`.
    pub fn replace(&mut self, uri: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": text}],
            }),
        );
    }

    /// Closes standard input and waits for the server to exit, at most a minute.
    pub fn wait(mut self) -> ExitStatus {
        drop(self.stdin.take());
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `shutdown`, then `exit`; returns the exit status.
    pub fn shutdown(mut self) -> ExitStatus {
        let id = self.request("shutdown", Value::Null);
        assert_eq!(self.result(id), Value::Null);
        self.notify("exit", Value::Null);
        self.wait()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One message of the stream, `None` at its end.
fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length:") {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    Some(serde_json::from_slice(&body).expect("each message is JSON"))
}

/// The byte offset of a protocol position (UTF-16 columns) in `text`.
pub fn offset(text: &str, position: &Value) -> usize {
    let line = position["line"].as_u64().unwrap() as usize;
    let character = position["character"].as_u64().unwrap() as usize;
    let mut start = 0;
    for _ in 0..line {
        match text[start..].find('\n') {
            Some(at) => start += at + 1,
            None => return text.len(),
        }
    }
    let end = text[start..].find('\n').map_or(text.len(), |at| start + at);
    let mut units = 0;
    for (at, c) in text[start..end].char_indices() {
        if units >= character {
            return start + at;
        }
        units += c.len_utf16();
    }
    end
}

/// `text` with a list of protocol text edits made, as an editor makes them: all
/// against the text as it was.
pub fn apply(text: &str, edits: &[Value]) -> String {
    let mut ranges: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|edit| {
            (
                offset(text, &edit["range"]["start"]),
                offset(text, &edit["range"]["end"]),
                edit["newText"].as_str().unwrap(),
            )
        })
        .collect();
    ranges.sort_by_key(|&(start, end, _)| (start, end));
    let mut result = text.to_owned();
    for &(start, end, new) in ranges.iter().rev() {
        result.replace_range(start..end, new);
    }
    result
}

/// The edits of a code action's workspace edit for `uri`, and the version they are
/// for (`documentChanges`), or `None` (`changes`).
pub fn action_edits(action: &Value, uri: &str) -> (Vec<Value>, Option<i64>) {
    let edit = &action["edit"];
    if let Some(changes) = edit["documentChanges"].as_array() {
        let change = changes
            .iter()
            .find(|change| change["textDocument"]["uri"] == uri)
            .expect("an edit of the document");
        return (
            change["edits"].as_array().unwrap().clone(),
            change["textDocument"]["version"].as_i64(),
        );
    }
    (edit["changes"][uri].as_array().unwrap().clone(), None)
}
