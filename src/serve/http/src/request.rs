// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! One request, from arrival to answer (serve_host.h's per-request behaviour: health, 413, 503,
//! 500 and 504): health answered at once; else the body is read, a worker admits it, a fresh
//! instance of the component handles it on that worker (a reused 0.3 instance reads the body as
//! it arrives instead, p3_reuse.rs), and its response, or the host's answer for a guest that
//! failed or took too long, goes back to the client.
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::{Relaxed, Release};
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::{Body as _, Incoming};
use hyper::header::{HeaderName, HeaderValue, AUTHORIZATION, HOST};

/// The key a request showed, for its guest's state (serve_host.h's guest_new): the host's prompt
/// cache keeps each key's prompts apart.
#[derive(Clone)]
pub(super) struct PresentedKey(pub(super) Vec<u8>);

/// Anthropic's header for the API key (its SDKs send no Authorization).
const X_API_KEY: HeaderName = HeaderName::from_static("x-api-key");
use hyper::{Request, Response, StatusCode, Version};
use tokio::sync::oneshot;
use wasmtime_wasi_http::p2::bindings::http::types::{ErrorCode, Scheme};
use wasmtime_wasi_http::p2::body::HyperOutgoingBody;
use wasmtime_wasi_http::p3::bindings::http::types::ErrorCode as ErrorCodeP3;
use wasmtime_wasi_http::{WasiBody, WasiHttpView};

use super::admission::Worker;
use super::answer::{guest_response, BoxError, CountedBody, HostAnswer, ServeBody, Tracked, X_REQUEST_ID};
use super::body::{declared_too_large, read_whole, streamed, too_large};
use super::first_frames::first_frames;
use super::p3_reuse::Instancer;
use super::shared::{GuestPre, Shared};
use super::{p3_guest, p3_reuse};
use crate::host::WitStr;
use wasinn_engine::handles::one_line;

/// The request's time in milliseconds from the guest's start until the server stops it.
const WASINN_DEADLINE_MS: HeaderName = HeaderName::from_static("wasinn-deadline-ms");

/// What a 0.2 guest sets its response-outparam to.
type GuestResponse = Result<Response<HyperOutgoingBody>, ErrorCode>;

/// Where a guest's response arrives: a 0.2 guest's outparam, or a 0.3 guest's result (its error
/// code, printed).
enum Answer {
    P2(oneshot::Receiver<GuestResponse>),
    P3(oneshot::Receiver<Result<Response<ServeBody>, String>>),
}

impl Answer {
    async fn get(self) -> Result<Result<Response<ServeBody>, String>, oneshot::error::RecvError> {
        match self {
            Answer::P2(rx) => Ok(rx.await?.map_err(|code| format!("{code:?}")).map(|resp| {
                let (parts, body) = resp.into_parts();
                Response::from_parts(parts, body.map_err(|e| -> BoxError { Box::new(e) }).boxed_unsync())
            })),
            Answer::P3(rx) => rx.await,
        }
    }
}

/// A guest handling a request on a worker: its task, and where its response arrives.
struct RunningGuest {
    task: tokio::task::JoinHandle<wasmtime::Result<()>>,
    response: Answer,
}

impl Shared {
    /// hyper's service: every request is answered, by the guest or by the host for it.
    pub(super) async fn handle(
        self: Arc<Shared>,
        mut req: Request<Incoming>,
        peer: SocketAddr,
    ) -> Result<Response<CountedBody>, Infallible> {
        let mut tracked = Tracked::new(&self, &req, peer);
        self.callbacks.trace(
            &tracked.request_id,
            format_args!(
                "{} {} arrived from {peer} ({:?})",
                req.method(),
                req.uri().path(),
                req.version()
            ),
        );
        if let Some(health) = self.health(req.uri().path()) {
            return Ok(health.respond(tracked));
        }
        if let Some(refused) = self.malformed(&mut req).or_else(|| self.authorize(&mut req)) {
            // Its body is never read: the connection ends with the answer, so a client that
            // trickles one holds nothing.
            let refused = if req.body().is_end_stream() {
                refused
            } else {
                refused.closing()
            };
            return Ok(refused.respond(tracked));
        }
        if self.is_host_path(req.uri().path()) {
            self.callbacks
                .trace(&tracked.request_id, format_args!("answered by the host (a host path)"));
            let answer = self.answer_by_host(req, &mut tracked).await;
            return Ok(answer.respond(tracked));
        }
        // The guest sees the id the answer and the log carry.
        if let Ok(id) = HeaderValue::from_str(&tracked.request_id) {
            req.headers_mut().insert(X_REQUEST_ID, id);
        }
        // And its time (--request-timeout) from its start, so a stream can end in time, saying why
        // (docs/serving.md); a client's own value is never passed on.
        req.headers_mut().remove(WASINN_DEADLINE_MS);
        if let Some(limit) = self.settings.request_timeout {
            req.headers_mut()
                .insert(WASINN_DEADLINE_MS, HeaderValue::from(limit.as_millis() as u64));
        }
        Ok(match self.answer_by_guest(req, &mut tracked).await {
            // A lane's guest runs on this thread: its short answer ends a few turns later
            // (first_frames.rs).
            Ok(resp) if self.lane_instances().is_some() => guest_response(first_frames(resp).await, tracked),
            Ok(resp) => guest_response(resp, tracked),
            Err(host) => host.respond(tracked),
        })
    }

    /// /healthz: the server runs; /readyz: it takes requests (503 while it drains).
    fn health(&self, path: &str) -> Option<HostAnswer> {
        match path {
            "/healthz" => Some(HostAnswer::new(StatusCode::OK, "ok", String::new())),
            "/readyz" if self.draining.load(Relaxed) => Some(HostAnswer::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "draining",
                String::new(),
            )),
            "/readyz" => Some(HostAnswer::new(StatusCode::OK, "ready", String::new())),
            _ => None,
        }
    }

    /// The host's 400 for a request whose headers it will not guess at: HTTP/1.1 without Host
    /// (RFC 9112, 3.2), or two Authorization headers (which key counts?). (hyper itself refuses
    /// two lengths and a malformed header, and reads Content-Length with Transfer-Encoding by its
    /// chunks and then closes the connection, as RFC 9112, 6.1 says.) An HTTP/1.0 request
    /// without Host is given the address the server listens on, and served.
    fn malformed(&self, req: &mut Request<Incoming>) -> Option<HostAnswer> {
        let keys =
            req.headers().get_all(AUTHORIZATION).iter().count() + req.headers().get_all(X_API_KEY).iter().count();
        if keys > 1 {
            return Some(
                HostAnswer::new(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: more than one Authorization or x-api-key header",
                    "refused: more than one Authorization or x-api-key header",
                )
                .closing(),
            );
        }
        if req.headers().contains_key(HOST) || req.uri().authority().is_some() {
            return None;
        }
        if req.version() == Version::HTTP_11 {
            return Some(HostAnswer::new(
                StatusCode::BAD_REQUEST,
                "Bad Request: an HTTP/1.1 request needs a Host header",
                "refused: no Host header",
            ));
        }
        if req.version() < Version::HTTP_11 {
            if let Some(host) = &self.host_for_http10 {
                req.headers_mut().insert(HOST, host.clone());
            }
        }
        None
    }

    /// With keys (--api-key): None when the request shows one, or is a GET or HEAD of a public
    /// path (--public-path), else the 401. The key comes as `Authorization: Bearer KEY` or, as
    /// Anthropic's clients send it, `x-api-key: KEY` (malformed() refused both at once). Both
    /// headers are taken off either way: the key is the server's business, not the guest's.
    fn authorize(&self, req: &mut Request<Incoming>) -> Option<HostAnswer> {
        let check = self.callbacks.authorize?;
        let bearer = req.headers_mut().remove(AUTHORIZATION);
        let x_api_key = req.headers_mut().remove(X_API_KEY);
        if self.settings.is_public(req.method(), req.uri().path()) {
            return None;
        }
        let given = bearer
            .map(|v| v.as_bytes().to_vec())
            .or_else(|| x_api_key.map(|v| [&b"Bearer "[..], v.as_bytes()].concat()));
        let value = given.as_deref().unwrap_or(&b""[..]);
        let text = WitStr {
            data: value.as_ptr().cast(),
            len: value.len(),
        };
        if unsafe { check(self.callbacks.user, text) } {
            if let Some(key) = given {
                req.extensions_mut().insert(PresentedKey(key));
            }
            return None;
        }
        Some(HostAnswer::unauthorized(given.is_some()))
    }

    /// The guest's answer to a request that is not health: each step (the body, a worker, the
    /// guest's start, its response) may end in the host's answer instead.
    async fn answer_by_guest(
        self: &Arc<Shared>,
        req: Request<Incoming>,
        tracked: &mut Tracked,
    ) -> Result<Response<ServeBody>, HostAnswer> {
        if let Some(instances) = self.lane_instances() {
            if !declared_too_large(&req, &self.settings) {
                // A reused 0.3 instance reads the body as it arrives (body.rs: the same limits).
                let req = streamed(req, &self.settings, tracked).await?;
                let seen = tracked.streamed_in.clone().unwrap_or_default();
                let worker = self.admit().await?;
                let answer = self.reused_answer(instances, req, worker).await?;
                // A body past the limit before the guest answered: the host's 413, as for a whole one.
                if seen.load(Relaxed) > self.settings.max_request_bytes {
                    return Err(too_large(self.settings.max_request_bytes));
                }
                return Ok(answer);
            }
        }
        let req = read_whole(req, &self.settings, tracked).await?;
        let id = &tracked.request_id;
        self.callbacks
            .trace(id, format_args!("body read: {} bytes", tracked.bytes_in));
        let asked = std::time::Instant::now();
        let worker = self.admit().await?;
        self.callbacks
            .trace(id, format_args!("admitted after {:.3} ms", ms(asked.elapsed())));
        let started = std::time::Instant::now();
        let guest = self.start_guest(req, worker, tracked.guest_failed.clone(), id)?;
        let answer = self.guest_answer(guest).await;
        match &answer {
            Ok(resp) => self.callbacks.trace(
                id,
                format_args!(
                    "the guest answered {} after {:.3} ms",
                    resp.status().as_u16(),
                    ms(started.elapsed())
                ),
            ),
            Err(host) => self.callbacks.trace(
                id,
                format_args!(
                    "the host answers {} for the guest after {:.3} ms",
                    host.status(),
                    ms(started.elapsed())
                ),
            ),
        }
        answer
    }

    /// A reused 0.3 instance's answer, else the host's 500 (the guest answered an error code, or
    /// its instance failed) or 504; the request holds `worker` until the guest answered and the
    /// response's body is done.
    async fn reused_answer(
        self: &Arc<Shared>,
        instances: &Instancer,
        req: Request<WasiBody>,
        worker: Worker,
    ) -> Result<Response<ServeBody>, HostAnswer> {
        let busy = p3_reuse::Busy::new(self.clone(), worker);
        let handled = p3_reuse::handle(instances, req, busy);
        let answered = match self.settings.request_timeout {
            Some(limit) => tokio::time::timeout(limit, handled).await.map_err(|_| limit),
            None => Ok(handled.await),
        };
        match answered {
            Ok(Ok(resp)) => Ok(resp),
            Ok(Err(e)) => Err(HostAnswer::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the guest failed this request",
                match e.downcast_ref::<ErrorCodeP3>() {
                    Some(code) => format!("the guest answered the error {code:?}"),
                    None => one_line(&e),
                },
            )),
            Err(limit) => Err(timed_out(limit)),
        }
    }

    /// Makes the request's store and runs the guest on `worker`: a fresh instance of the
    /// component, its handler called with the request. The worker is given back once the
    /// guest's state is freed.
    fn start_guest(
        self: &Arc<Shared>,
        req: Request<Full<Bytes>>,
        worker: Worker,
        failed: Arc<AtomicBool>,
        request_id: &str,
    ) -> Result<RunningGuest, HostAnswer> {
        let could_not_start = |e: wasmtime::Error| {
            HostAnswer::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the request could not start",
                one_line(&e),
            )
        };
        let key = req
            .extensions()
            .get::<PresentedKey>()
            .map(|k| k.0.clone())
            .unwrap_or_default();
        let mut store = self.new_store(&key, request_id).map_err(could_not_start)?;
        self.callbacks.trace(
            request_id,
            format_args!("guest state made: a fresh instance handles it"),
        );
        let shared = self.clone();
        shared.running.fetch_add(1, Relaxed);
        let (task, response) = match self.pre.clone() {
            GuestPre::P2(pre) => {
                let (tx, response) = oneshot::channel();
                let started = (|| -> wasmtime::Result<_> {
                    let scheme = if self.tls.is_some() {
                        Scheme::Https
                    } else {
                        Scheme::Http
                    };
                    let req = store.data_mut().http().new_incoming_request(scheme, req)?;
                    let out = store.data_mut().http().new_response_outparam(tx)?;
                    Ok((req, out))
                })();
                let (req, out) = started.map_err(|e| {
                    shared.running.fetch_sub(1, Relaxed);
                    could_not_start(e)
                })?;
                let task = self.guest_rt.spawn(async move {
                    let result = async {
                        let proxy = pre.instantiate_async(&mut store).await?;
                        proxy
                            .wasi_http_incoming_handler()
                            .call_handle(&mut store, req, out)
                            .await
                    }
                    .await;
                    // Before the store (and with it the answer's body) goes: the access log reads it.
                    if result.is_err() {
                        failed.store(true, Release);
                    }
                    drop(store);
                    result
                });
                (task, Answer::P2(response))
            }
            GuestPre::P3(pre) => {
                let (tx, response) = oneshot::channel();
                let task = self.guest_rt.spawn(p3_guest::run(pre, store, req, tx, failed));
                (task, Answer::P3(response))
            }
        };
        // Each task drops its store (the guest's state) before it ends, so before the worker goes.
        let task = self.guest_rt.spawn(async move {
            let result = task
                .await
                .unwrap_or_else(|e| Err(wasmtime::format_err!("the guest's task failed: {e}")));
            shared.running.fetch_sub(1, Relaxed);
            drop(worker);
            result
        });
        Ok(RunningGuest { task, response })
    }

    /// The guest's response, else the host's 500 (it failed) or 504 (past the request timeout).
    async fn guest_answer(&self, guest: RunningGuest) -> Result<Response<ServeBody>, HostAnswer> {
        let answered = match self.settings.request_timeout {
            Some(limit) => tokio::time::timeout(limit, guest.response.get())
                .await
                .map_err(|_| limit),
            None => Ok(guest.response.get().await),
        };
        match answered {
            Ok(Ok(Ok(resp))) => Ok(resp),
            Ok(Ok(Err(code))) => Err(HostAnswer::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the guest failed this request",
                format!("the guest answered the error {code}"),
            )),
            Ok(Err(_)) => {
                // The guest ended without answering: a trap, or it returned without setting.
                let why = match guest.task.await {
                    Ok(Err(e)) => one_line(&e),
                    Ok(Ok(())) => "the guest returned without setting a response".to_string(),
                    Err(e) => format!("the guest's task failed: {e}"),
                };
                Err(HostAnswer::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "the guest failed this request",
                    why,
                ))
            }
            Err(limit) => Err(timed_out(limit)),
        }
    }
}

/// The host's 504 for a guest past the request timeout.
fn timed_out(limit: std::time::Duration) -> HostAnswer {
    HostAnswer::new(
        StatusCode::GATEWAY_TIMEOUT,
        "the guest did not answer in time",
        format!(
            "no answer within the request timeout ({} ms); the guest is stopped",
            limit.as_millis()
        ),
    )
    .cut("cut:timeout")
}

/// A duration in milliseconds, for trace lines.
fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
