//! HTTPS: the routes (`/validate`, `/healthz`, `/readyz`, `/metrics`), the bounds on
//! each request (its size, the requests in flight, its time) and the accept loop with
//! its graceful stop.

use std::convert::Infallible;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONTENT_LENGTH, CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_rustls::TlsAcceptor;

use super::metrics::Metrics;
use super::options::Options;
use super::review::{self, Answer, Reviewer};
use super::tls::{Certificates, Reloaded};

/// The longest a TLS handshake or a request's headers may take.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// The most connections open at once; more wait in the listen backlog.
const MAX_CONNECTIONS: usize = 1024;

/// How long the stop waits for open connections to finish their requests.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

struct State {
    reviewer: Reviewer,
    options: Options,
    metrics: Metrics,
    /// Requests whose bodies are held.
    in_flight: Arc<Semaphore>,
    /// Reviews being linted: one a core.
    linting: Arc<Semaphore>,
    /// False from SIGTERM on.
    ready: AtomicBool,
}

type Reply = Response<Full<Bytes>>;

pub async fn run(
    options: Options,
    reviewer: Reviewer,
    certificates: Arc<Certificates>,
    lint_threads: usize,
) -> Result<(), String> {
    let listener = TcpListener::bind(options.listen)
        .await
        .map_err(|error| format!("cannot listen on {}: {error}", options.listen))?;
    let address = listener
        .local_addr()
        .map_err(|error| format!("cannot listen on {}: {error}", options.listen))?;
    let acceptor = TlsAcceptor::from(Arc::new(certificates.server_config()?));
    let state = Arc::new(State {
        in_flight: Arc::new(Semaphore::new(options.max_in_flight.max(1))),
        linting: Arc::new(Semaphore::new(lint_threads.max(1))),
        reviewer,
        options,
        metrics: Metrics::new(),
        ready: AtomicBool::new(true),
    });
    tokio::spawn(reload_certificates(certificates, state.clone()));
    let connections = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    log(&format!(
        "serving admission reviews on https://{address}/validate"
    ));
    let stop = stop_signal();
    tokio::pin!(stop);
    // From the signal on: not ready, still answering while the Service forgets the
    // pod, until this ends.
    let mut stop_at: Option<tokio::time::Instant> = None;
    let delay = state.options.shutdown_delay;
    loop {
        let accepted = tokio::select! {
            () = &mut stop, if stop_at.is_none() => {
                state.ready.store(false, Ordering::Relaxed);
                log(&format!("stopping: not ready, answering for {} ms more", delay.as_millis()));
                stop_at = Some(tokio::time::Instant::now() + delay);
                continue;
            }
            () = tokio::time::sleep_until(stop_at.unwrap_or_else(tokio::time::Instant::now)), if stop_at.is_some() => break,
            accepted = accept(&listener, &connections) => accepted,
        };
        let Ok((stream, permit)) = accepted else {
            // Out of file descriptors or a connection reset before it was accepted:
            // the next one may do.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        let acceptor = acceptor.clone();
        let state = state.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let Ok(Ok(tls)) =
                tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await
            else {
                return;
            };
            let service = hyper::service::service_fn(move |request| {
                let state = state.clone();
                async move { Ok::<_, Infallible>(route(&state, request).await) }
            });
            let mut builder = auto::Builder::new(TokioExecutor::new());
            builder
                .http1()
                .timer(TokioTimer::new())
                .header_read_timeout(HANDSHAKE_TIMEOUT);
            builder
                .http2()
                .timer(TokioTimer::new())
                .max_concurrent_streams(256);
            let _ = builder.serve_connection(TokioIo::new(tls), service).await;
        });
    }
    // No new connection; the open ones finish what they hold.
    drop(listener);
    let open = tokio::time::timeout(
        DRAIN_TIMEOUT,
        connections.acquire_many(MAX_CONNECTIONS as u32),
    )
    .await;
    if open.is_err() {
        log("stopped with connections still open");
    }
    Ok(())
}

/// A connection accepted, with its place among the open ones.
async fn accept(
    listener: &TcpListener,
    connections: &Arc<Semaphore>,
) -> std::io::Result<(tokio::net::TcpStream, tokio::sync::OwnedSemaphorePermit)> {
    let permit = connections
        .clone()
        .acquire_owned()
        .await
        .expect("the semaphore is never closed");
    let (stream, _) = listener.accept().await?;
    Ok((stream, permit))
}

/// Resolves on SIGTERM or SIGINT.
async fn stop_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        std::future::pending::<()>().await;
        return;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}

async fn reload_certificates(certificates: Arc<Certificates>, state: Arc<State>) {
    let mut every = tokio::time::interval(state.options.tls_reload.max(Duration::from_millis(50)));
    every.tick().await;
    loop {
        every.tick().await;
        let certificates = certificates.clone();
        let reloaded = tokio::task::spawn_blocking(move || certificates.reload()).await;
        match reloaded {
            Ok(Ok(Reloaded::Unchanged)) | Err(_) => {}
            Ok(Ok(Reloaded::Replaced)) => {
                state.metrics.reload(true);
                log("loaded the renewed certificate and key");
            }
            Ok(Err(error)) => {
                state.metrics.reload(false);
                log(&format!("kept the certificate in use: {error}"));
            }
        }
    }
}

async fn route(state: &Arc<State>, request: Request<Incoming>) -> Reply {
    let path = request.uri().path();
    match (request.method(), path) {
        (&Method::POST, "/validate") => validate(state, request).await,
        (&Method::GET | &Method::HEAD, "/healthz") => text(StatusCode::OK, "ok\n"),
        (&Method::GET | &Method::HEAD, "/readyz") => {
            if state.ready.load(Ordering::Relaxed) {
                text(StatusCode::OK, "ok\n")
            } else {
                text(StatusCode::SERVICE_UNAVAILABLE, "stopping\n")
            }
        }
        (&Method::GET | &Method::HEAD, "/metrics") => {
            let mut reply = text(StatusCode::OK, &state.metrics.render());
            reply.headers_mut().insert(
                CONTENT_TYPE,
                HeaderValue::from_static(
                    "application/openmetrics-text; version=1.0.0; charset=utf-8",
                ),
            );
            reply
        }
        (_, "/validate" | "/healthz" | "/readyz" | "/metrics") => {
            text(StatusCode::METHOD_NOT_ALLOWED, "method not allowed\n")
        }
        _ => text(
            StatusCode::NOT_FOUND,
            "not found: the webhook's path is /validate\n",
        ),
    }
}

/// `POST /validate`: the body read within its bounds, then the review answered within
/// its time.
async fn validate(state: &Arc<State>, request: Request<Incoming>) -> Reply {
    let started = Instant::now();
    let answer = answer(state, request, started).await;
    state
        .metrics
        .review(answer.kind.as_deref(), answer.verdict, started.elapsed());
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut reply = Response::new(Full::new(Bytes::from(answer.body)));
    *reply.status_mut() = status;
    reply
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    reply
}

async fn answer(state: &Arc<State>, request: Request<Incoming>, started: Instant) -> Answer {
    let budget = state.options.review_timeout;
    let deadline = tokio::time::Instant::from_std(started + budget);
    let max = state.options.max_review_bytes;
    let declared = request
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if declared.is_some_and(|length| length > max as u64) {
        return too_large(max);
    }
    let Ok(_held) = state.in_flight.clone().try_acquire_owned() else {
        return refused(
            StatusCode::SERVICE_UNAVAILABLE,
            "too many reviews in flight; try again",
        );
    };
    let body =
        match tokio::time::timeout_at(deadline, Limited::new(request.into_body(), max).collect())
            .await
        {
            Err(_) => {
                return refused(
                    StatusCode::REQUEST_TIMEOUT,
                    "the review's body did not arrive in time",
                );
            }
            Ok(Err(error)) if error.downcast_ref::<LengthLimitError>().is_some() => {
                return too_large(max);
            }
            Ok(Err(error)) => {
                return review::invalid(&format!("the review's body could not be read: {error}"));
            }
            Ok(Ok(collected)) => collected.to_bytes(),
        };
    let request = match review::read(&body) {
        Ok(request) => Arc::new(request),
        Err(answer) => return answer,
    };
    drop(body);
    let kind = Some(request.kind().to_owned());
    let timed_out = || review::timed_out(request.uid(), kind.clone(), budget);
    let Ok(Ok(permit)) =
        tokio::time::timeout_at(deadline, state.linting.clone().acquire_owned()).await
    else {
        return timed_out();
    };
    let linted = {
        let state = state.clone();
        let request = request.clone();
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            state.metrics.in_flight().inc();
            let answer = state.reviewer.judge(&request);
            state.metrics.in_flight().dec();
            answer
        })
    };
    match tokio::time::timeout_at(deadline, linted).await {
        Err(_) => timed_out(),
        Ok(Err(_)) => {
            review::invalid("internal error while linting the object; it is admitted unchecked")
        }
        Ok(Ok(answer)) => {
            for finding in answer_findings(&answer) {
                state.metrics.finding(finding.0, finding.1);
            }
            answer
        }
    }
}

/// The findings an answer reported, for the metrics.
fn answer_findings(answer: &Answer) -> Vec<(&'static str, crate::rules::Severity)> {
    answer
        .findings
        .iter()
        .map(|found| (found.id, found.severity))
        .collect()
}

fn too_large(max: usize) -> Answer {
    refused(
        StatusCode::PAYLOAD_TOO_LARGE,
        &format!("the review is larger than {max} bytes (--max-review-size)"),
    )
}

/// A request refused before it is read as a review.
fn refused(status: StatusCode, reason: &str) -> Answer {
    let mut answer = review::invalid(reason);
    answer.status = status.as_u16();
    answer
}

fn text(status: StatusCode, body: &str) -> Reply {
    let mut reply = Response::new(Full::new(Bytes::from(body.to_owned())));
    *reply.status_mut() = status;
    reply.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    reply
}

/// A line on standard error, the server's log.
fn log(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{}: {line}", crate::PLUGIN_NAME);
}
