//! The server's loop: one thread reads the editor's messages, keeps the open documents
//! and decides what to do; workers lint and answer requests. The loop never waits on
//! them, so a `$/cancelRequest` or a new change is seen at once.
//!
//! * **Linting**: a change after a quiet spell is linted at once; changes that come
//!   within [`DEBOUNCE`] of the one before (a paste, a macro, a multi-cursor edit) are
//!   linted together, [`DEBOUNCE`] after the last. A document is linted by one worker
//!   at a time, at its latest version. A result for a version the editor has since
//!   changed is dropped and the latest is linted instead, so diagnostics always belong
//!   to the text the editor holds, and a burst of changes costs one lint after the one
//!   under way, not one each.
//! * **Requests** about a document (hover, code actions) are answered from the snapshot
//!   of its current version, waiting for that lint when it is under way; they run on the
//!   workers, so answers may come in another order than the requests, each with its id.
//!   A cancelled request is answered with `RequestCancelled` at once, whatever it was
//!   waiting for, and its late answer is dropped.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, select};
use lsp_server::{ErrorCode, Message, Notification, ReqQueue, Request, RequestId, Response};
use lsp_types::notification::{
    Cancel, DidChangeTextDocument, DidChangeWatchedFiles, DidChangeWorkspaceFolders,
    DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument, LogMessage, Notification as _,
    PublishDiagnostics,
};
use lsp_types::request::{CodeActionRequest, HoverRequest, RegisterCapability, Request as _};
use lsp_types::{
    CodeActionParams, DidChangeTextDocumentParams, DidChangeWatchedFilesRegistrationOptions,
    DidChangeWorkspaceFoldersParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
    FileSystemWatcher, GlobPattern, HoverParams, LogMessageParams, MessageType, NumberOrString,
    PublishDiagnosticsParams, Registration, RegistrationParams, Uri,
};

use super::actions::{self, EditSupport};
use super::analysis::{self, Snapshot};
use super::context::Workspace;
use super::diagnostics;
use super::document::OpenDocument;
use super::hover;
use super::position::Encoding;

/// How the session ended: whether `shutdown` came before `exit`, which decides the
/// exit status the protocol asks for (0, else 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// `shutdown`, then `exit`.
    Clean,
    /// `exit` without `shutdown`, or the editor went away.
    Abrupt,
}

/// Changes that come closer together than this are linted once, this long after the
/// last of them.
pub const DEBOUNCE: Duration = Duration::from_millis(25);

/// An open document and its lints.
struct Tracked {
    document: OpenDocument,
    /// When it is due to be linted.
    due: Option<Instant>,
    /// The version a worker is linting.
    linting: Option<i32>,
    /// The last snapshot of it, published.
    snapshot: Option<Arc<Snapshot>>,
    /// When the editor last changed it.
    changed: Option<Instant>,
}

impl Tracked {
    /// The snapshot of the version the editor holds, when it is there and no lint of a
    /// newer text is due.
    fn current(&self) -> Option<&Arc<Snapshot>> {
        self.snapshot
            .as_ref()
            .filter(|snapshot| snapshot.version == self.document.version && self.due.is_none())
    }
}

/// What the editor said of itself at `initialize` that shapes the answers.
#[derive(Clone, Copy, Debug)]
pub(super) struct Client {
    /// How it takes workspace edits.
    pub edits: EditSupport,
    /// The columns a hover's timeline is laid out for.
    pub hover_width: usize,
}

/// A request about a document, answered from its snapshot.
enum Question {
    Hover(HoverParams),
    CodeActions(CodeActionParams),
}

impl Question {
    fn uri(&self) -> &Uri {
        match self {
            Question::Hover(params) => &params.text_document_position_params.text_document.uri,
            Question::CodeActions(params) => &params.text_document.uri,
        }
    }

    /// The answer from `snapshot` (`None`: the document is not open).
    fn answer(self, snapshot: Option<&Snapshot>, client: Client) -> serde_json::Value {
        let Some(snapshot) = snapshot else {
            return serde_json::Value::Null;
        };
        match self {
            Question::Hover(params) => serde_json::to_value(hover::hover(
                snapshot,
                params.text_document_position_params.position,
                client.hover_width,
            )),
            Question::CodeActions(params) => {
                serde_json::to_value(actions::code_actions(snapshot, &params, client.edits))
            }
        }
        .unwrap_or_default()
    }
}

/// What a worker hands back.
enum Outcome {
    /// A document linted.
    Linted(Snapshot),
    /// Linting a document failed on a defect, reported to the editor's log.
    LintFailed { uri: Uri, reason: String },
    /// A request answered.
    Answer(Response),
}

type Job = Box<dyn FnOnce() -> Outcome + Send>;

pub(super) struct Server {
    sender: Sender<Message>,
    workspace: Arc<Workspace>,
    encoding: Encoding,
    client: Client,
    documents: HashMap<Uri, Tracked>,
    requests: ReqQueue<(), ()>,
    /// Requests waiting for their document's current snapshot.
    waiting: Vec<(RequestId, Question)>,
    jobs: Sender<Job>,
    outcomes: Receiver<Outcome>,
    shutdown: bool,
}

impl Server {
    pub(super) fn new(
        sender: Sender<Message>,
        workspace: Workspace,
        encoding: Encoding,
        client: Client,
    ) -> Server {
        let (jobs, queue) = crossbeam_channel::unbounded::<Job>();
        let (done, outcomes) = crossbeam_channel::unbounded();
        let workers = std::thread::available_parallelism()
            .map_or(2, usize::from)
            .max(2);
        for index in 0..workers {
            let queue = queue.clone();
            let done = done.clone();
            let _ = std::thread::Builder::new()
                .name(format!("lsp-worker-{index}"))
                .spawn(move || {
                    for job in queue {
                        if done.send(job()).is_err() {
                            break;
                        }
                    }
                });
        }
        Server {
            sender,
            workspace: Arc::new(workspace),
            encoding,
            client,
            documents: HashMap::new(),
            requests: ReqQueue::default(),
            waiting: Vec::new(),
            jobs,
            outcomes,
            shutdown: false,
        }
    }

    /// Asks the editor to report changes to manifests and config files.
    pub(super) fn watch_files(&mut self) {
        let watchers = ["**/*.{yaml,yml,json}", "**/.mesh-lifecycle.yaml"]
            .into_iter()
            .map(|glob| FileSystemWatcher {
                glob_pattern: GlobPattern::String(glob.to_owned()),
                kind: None,
            })
            .collect();
        let options = DidChangeWatchedFilesRegistrationOptions { watchers };
        let params = RegistrationParams {
            registrations: vec![Registration {
                id: "mesh-lifecycle-watch".to_owned(),
                method: DidChangeWatchedFiles::METHOD.to_owned(),
                register_options: serde_json::to_value(options).ok(),
            }],
        };
        let request =
            self.requests
                .outgoing
                .register(RegisterCapability::METHOD.to_owned(), params, ());
        self.send(request.into());
    }

    pub(super) fn run(mut self, receiver: &Receiver<Message>) -> Ending {
        loop {
            let wait = self
                .documents
                .values()
                .filter(|tracked| tracked.linting.is_none())
                .filter_map(|tracked| tracked.due)
                .min()
                .map_or(Duration::from_secs(3600), |due| {
                    due.saturating_duration_since(Instant::now())
                });
            select! {
                recv(receiver) -> message => match message {
                    Ok(Message::Notification(notification)) if notification.method == "exit" => {
                        return if self.shutdown { Ending::Clean } else { Ending::Abrupt };
                    }
                    Ok(message) => self.message(message),
                    Err(_) => return Ending::Abrupt,
                },
                recv(self.outcomes) -> outcome => {
                    if let Ok(outcome) = outcome {
                        self.outcome(outcome);
                    }
                },
                default(wait) => {},
            }
            self.start_due_lints();
        }
    }

    fn send(&self, message: Message) {
        let _ = self.sender.send(message);
    }

    fn notify<N: lsp_types::notification::Notification>(&self, params: N::Params) {
        self.send(Notification::new(N::METHOD.to_owned(), params).into());
    }

    fn log(&self, typ: MessageType, message: String) {
        self.notify::<LogMessage>(LogMessageParams { typ, message });
    }

    fn message(&mut self, message: Message) {
        match message {
            Message::Request(request) => self.request(request),
            Message::Notification(notification) => self.notification(notification),
            Message::Response(response) => {
                // The editor's answer to a registration: nothing to do but forget it.
                self.requests.outgoing.complete(response.id);
            }
        }
    }

    fn request(&mut self, request: Request) {
        let id = request.id.clone();
        if self.shutdown {
            let message = "the server is shutting down".to_owned();
            self.send(Response::new_err(id, ErrorCode::InvalidRequest as i32, message).into());
            return;
        }
        let question = match request.method.as_str() {
            "shutdown" => {
                self.shutdown = true;
                self.send(Response::new_ok(id, ()).into());
                return;
            }
            HoverRequest::METHOD => serde_json::from_value(request.params).map(Question::Hover),
            CodeActionRequest::METHOD => {
                serde_json::from_value(request.params).map(Question::CodeActions)
            }
            other => {
                let message = format!("{other} is not a request this server answers");
                self.send(Response::new_err(id, ErrorCode::MethodNotFound as i32, message).into());
                return;
            }
        };
        match question {
            Ok(question) => {
                self.requests.incoming.register(id.clone(), ());
                self.ask(id, question);
            }
            Err(error) => {
                let message = format!("{}: {error}", request.method);
                self.send(Response::new_err(id, ErrorCode::InvalidParams as i32, message).into());
            }
        }
    }

    /// Answers `question` on a worker once its document's current snapshot is there.
    fn ask(&mut self, id: RequestId, question: Question) {
        let snapshot = match self.documents.get(question.uri()) {
            None => None,
            Some(tracked) => match tracked.current() {
                Some(snapshot) => Some(snapshot.clone()),
                None => {
                    self.waiting.push((id, question));
                    return;
                }
            },
        };
        self.answer(id, question, snapshot);
    }

    /// Answers `question` on a worker from `snapshot` (`None`: nothing to say).
    fn answer(&self, id: RequestId, question: Question, snapshot: Option<Arc<Snapshot>>) {
        let client = self.client;
        self.spawn(move || {
            let answer = catch_unwind(AssertUnwindSafe(|| {
                question.answer(snapshot.as_deref(), client)
            }));
            Outcome::Answer(match answer {
                Ok(result) => Response::new_ok(id, result),
                Err(_) => Response::new_err(
                    id,
                    ErrorCode::InternalError as i32,
                    "internal error while answering; please report it with the document".to_owned(),
                ),
            })
        });
    }

    /// The requests waiting for `uri`'s snapshot, no longer waiting.
    fn waiting_for(&mut self, uri: &Uri) -> Vec<(RequestId, Question)> {
        let (theirs, others) = std::mem::take(&mut self.waiting)
            .into_iter()
            .partition(|(_, question)| question.uri() == uri);
        self.waiting = others;
        theirs
    }

    fn spawn(&self, job: impl FnOnce() -> Outcome + Send + 'static) {
        let _ = self.jobs.send(Box::new(job));
    }

    fn notification(&mut self, notification: Notification) {
        let method = notification.method.clone();
        let params = notification.params;
        let result = match method.as_str() {
            DidOpenTextDocument::METHOD => serde_json::from_value(params).map(|p| self.opened(p)),
            DidChangeTextDocument::METHOD => {
                serde_json::from_value(params).map(|p| self.changed(p))
            }
            DidCloseTextDocument::METHOD => serde_json::from_value(params).map(|p| self.closed(p)),
            // The buffer is what is linted; a save counts for the other documents, whose
            // context (a config file, a Namespace) may be the file saved.
            DidSaveTextDocument::METHOD | DidChangeWatchedFiles::METHOD => {
                self.context_changed();
                Ok(())
            }
            DidChangeWorkspaceFolders::METHOD => {
                serde_json::from_value(params).map(|p| self.folders_changed(p))
            }
            Cancel::METHOD => serde_json::from_value(params).map(|p| self.cancel(p)),
            _ => Ok(()),
        };
        if let Err(error) = result {
            self.log(MessageType::ERROR, format!("{method}: {error}"));
        }
    }

    fn opened(&mut self, params: DidOpenTextDocumentParams) {
        let item = params.text_document;
        let document = OpenDocument::new(item.uri.clone(), item.version, item.text);
        self.documents.insert(
            item.uri,
            Tracked {
                document,
                due: Some(Instant::now()),
                linting: None,
                snapshot: None,
                changed: None,
            },
        );
    }

    fn changed(&mut self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        let Some(tracked) = self.documents.get_mut(&uri) else {
            return;
        };
        let version = params.text_document.version;
        if version <= tracked.document.version {
            let message = format!(
                "{}: change to version {version} ignored: the document is at version {}",
                uri.as_str(),
                tracked.document.version
            );
            self.log(MessageType::WARNING, message);
            return;
        }
        tracked
            .document
            .apply(version, params.content_changes, self.encoding);
        let now = Instant::now();
        let burst = tracked
            .changed
            .is_some_and(|then| now.duration_since(then) < DEBOUNCE);
        tracked.changed = Some(now);
        tracked.due = Some(if burst { now + DEBOUNCE } else { now });
    }

    fn closed(&mut self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        if self.documents.remove(&uri).is_none() {
            return;
        }
        self.notify::<PublishDiagnostics>(PublishDiagnosticsParams {
            uri: uri.clone(),
            diagnostics: Vec::new(),
            version: None,
        });
        for (id, question) in self.waiting_for(&uri) {
            self.answer(id, question, None);
        }
        self.context_changed();
    }

    /// Something the documents' context may come from changed: every open document is
    /// linted again.
    fn context_changed(&mut self) {
        self.workspace.invalidate();
        let due = Instant::now() + DEBOUNCE;
        for tracked in self.documents.values_mut() {
            tracked.due = Some(tracked.due.map_or(due, |then| then.min(due)));
        }
    }

    fn folders_changed(&mut self, params: DidChangeWorkspaceFoldersParams) {
        let mut folders = self.workspace.folders();
        let paths = |list: &[lsp_types::WorkspaceFolder]| -> Vec<PathBuf> {
            list.iter()
                .filter_map(|folder| super::uri::to_path(&folder.uri))
                .collect()
        };
        let removed = paths(&params.event.removed);
        folders.retain(|folder| !removed.contains(folder));
        folders.extend(paths(&params.event.added));
        self.workspace.set_folders(folders);
        self.context_changed();
    }

    fn cancel(&mut self, params: lsp_types::CancelParams) {
        let id: RequestId = match params.id {
            NumberOrString::Number(number) => number.into(),
            NumberOrString::String(text) => text.into(),
        };
        self.waiting.retain(|(waiting, _)| *waiting != id);
        if let Some(response) = self.requests.incoming.cancel(id) {
            self.send(response.into());
        }
    }

    fn start_due_lints(&mut self) {
        let now = Instant::now();
        let open: Vec<(PathBuf, Arc<str>)> = self
            .documents
            .values()
            .filter_map(|tracked| {
                let path = tracked.document.path.clone()?;
                Some((path, tracked.document.text.clone()))
            })
            .collect();
        let mut started = Vec::new();
        for tracked in self.documents.values_mut() {
            if tracked.linting.is_some() || tracked.due.is_none_or(|due| due > now) {
                continue;
            }
            tracked.due = None;
            tracked.linting = Some(tracked.document.version);
            started.push((tracked.document.clone(), tracked.snapshot.clone()));
        }
        for (document, previous) in started {
            let workspace = Arc::clone(&self.workspace);
            let encoding = self.encoding;
            let open = open.clone();
            self.spawn(move || {
                let uri = document.uri.clone();
                let linted = catch_unwind(AssertUnwindSafe(|| {
                    analysis::analyse(&workspace, &document, &open, previous.as_deref(), encoding)
                }));
                match linted {
                    Ok(snapshot) => Outcome::Linted(snapshot),
                    Err(payload) => Outcome::LintFailed {
                        uri,
                        reason: payload
                            .downcast_ref::<&str>()
                            .map(|text| (*text).to_owned())
                            .or_else(|| payload.downcast_ref::<String>().cloned())
                            .unwrap_or_else(|| "unknown cause".to_owned()),
                    },
                }
            });
        }
    }

    fn outcome(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Answer(response) => {
                // A cancelled request was answered already.
                if self.requests.incoming.complete(&response.id).is_some() {
                    self.send(response.into());
                }
            }
            Outcome::LintFailed { uri, reason } => {
                if let Some(tracked) = self.documents.get_mut(&uri) {
                    tracked.linting = None;
                }
                // What waits for this lint gets nothing rather than wait for ever.
                for (id, question) in self.waiting_for(&uri) {
                    self.answer(id, question, None);
                }
                self.log(
                    MessageType::ERROR,
                    format!("{}: internal error while linting ({reason}); please report it with the document", uri.as_str()),
                );
            }
            Outcome::Linted(snapshot) => self.linted(snapshot),
        }
    }

    fn linted(&mut self, snapshot: Snapshot) {
        let Some(tracked) = self.documents.get_mut(&snapshot.uri) else {
            return;
        };
        tracked.linting = None;
        if snapshot.version != tracked.document.version {
            // Stale: the editor has changed the text since; its lint is due already.
            return;
        }
        let uri = snapshot.uri.clone();
        let params = PublishDiagnosticsParams {
            uri: uri.clone(),
            diagnostics: diagnostics::of(&snapshot),
            version: Some(snapshot.version),
        };
        tracked.snapshot = Some(Arc::new(snapshot));
        self.notify::<PublishDiagnostics>(params);
        for (id, question) in self.waiting_for(&uri) {
            self.ask(id, question);
        }
    }
}
