//! The connection to the editor over standard input and output: an
//! [`lsp_server::Connection`] whose reader survives what the editor (or anything
//! posing as one) sends.
//!
//! lsp-server's own stdio transport reads a frame by allocating whatever its
//! `Content-Length` claims (`Content-Length: 4000000000` is 4 GB), and its reader
//! thread ends — and the server with it — at the first header it cannot read or body
//! that is not a message; its framing offers no hook to bound or resume either. So the
//! frames are read here ([`super::framing`]), each body at most the largest document
//! the linter parses, and handed on as lsp-server's own [`Message`]: the handshake,
//! the request bookkeeping and the loop are lsp-server's, unchanged. What cannot be
//! read is answered as JSON-RPC says, and the server goes on:
//!
//! * a frame refused (too large, a malformed header) or a body that is not JSON:
//!   `-32700` (parse error), with a `null` id;
//! * JSON that is not a JSON-RPC message: `-32600` (invalid request), with its id when
//!   it has one.

use std::io::{self, Write};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender, bounded};
use lsp_server::{Connection, Message};
use serde_json::{Value, json};

use super::framing::{Frame, Frames};

/// JSON-RPC's code for a message that could not be parsed.
const PARSE_ERROR: i32 = -32700;

/// JSON-RPC's code for JSON that is not a request, a response or a notification.
const INVALID_REQUEST: i32 = -32600;

/// The threads that read and write standard input and output.
pub struct IoThreads {
    reader: JoinHandle<io::Result<()>>,
    writer: JoinHandle<io::Result<()>>,
}

impl IoThreads {
    /// Waits for both: the reader stops at `exit` or the end of its input, the writer
    /// once every message sent is out.
    pub fn join(self) -> io::Result<()> {
        let read = self
            .reader
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the reader panicked")));
        let written = self
            .writer
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the writer panicked")));
        read.and(written)
    }
}

/// The connection over standard input and output, each frame at most `max_frame`
/// bytes.
pub fn stdio(max_frame: usize) -> (Connection, IoThreads) {
    let (to_editor, outgoing) = bounded::<Message>(0);
    let (incoming, from_editor) = bounded::<Message>(0);
    let writer = std::thread::Builder::new()
        .name("lsp-writer".into())
        .spawn(move || write_all(&outgoing))
        .expect("the writer thread starts");
    let reader = std::thread::Builder::new()
        .name("lsp-reader".into())
        .spawn(move || {
            let stdin = io::stdin();
            read_all(Frames::new(stdin.lock(), max_frame), &incoming)
        })
        .expect("the reader thread starts");
    (
        Connection {
            sender: to_editor,
            receiver: from_editor,
        },
        IoThreads { reader, writer },
    )
}

/// Writes each message sent until every sender is gone.
fn write_all(outgoing: &Receiver<Message>) -> io::Result<()> {
    for message in outgoing {
        message.write(&mut io::stdout().lock())?;
    }
    Ok(())
}

/// Hands each message of `frames` on, answering what is not one, until `exit` or the
/// end of the input.
fn read_all(mut frames: Frames<impl io::BufRead>, incoming: &Sender<Message>) -> io::Result<()> {
    while let Some(frame) = frames.next_frame()? {
        let body = match frame {
            Frame::Body(body) => body,
            Frame::Refused(why) => {
                reply_error(Value::Null, PARSE_ERROR, &why.to_string())?;
                continue;
            }
        };
        let message = match serde_json::from_slice::<Message>(&body) {
            Ok(message) => message,
            Err(error) => {
                match serde_json::from_slice::<Value>(&body) {
                    Err(error) => {
                        reply_error(Value::Null, PARSE_ERROR, &format!("not JSON: {error}"))?;
                    }
                    Ok(value) => {
                        let id = match value.get("id") {
                            Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
                            _ => Value::Null,
                        };
                        reply_error(
                            id,
                            INVALID_REQUEST,
                            &format!("not a JSON-RPC request, response or notification: {error}"),
                        )?;
                    }
                }
                continue;
            }
        };
        let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
        if incoming.send(message).is_err() || exit {
            break;
        }
    }
    Ok(())
}

/// Writes an error response for a message that was not read. The writer thread
/// writes its messages whole under the same lock, so frames never interleave.
fn reply_error(id: Value, code: i32, message: &str) -> io::Result<()> {
    let body = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    })
    .to_string();
    let mut stdout = io::stdout().lock();
    write!(stdout, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    stdout.flush()
}
