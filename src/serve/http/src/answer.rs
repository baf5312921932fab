// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! What the client gets, and the record of it (serve_host.h's `on_request` and the in-flight
//! count): a request is tracked from its arrival until its answer's body is sent whole or
//! dropped, then reported once, whoever answered it: the guest, or the host for it.
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::{Acquire, Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{combinators::UnsyncBoxBody, BodyExt, Full};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::header::{
    HeaderName, HeaderValue, CONNECTION, CONTENT_TYPE, RETRY_AFTER, TRAILER, USER_AGENT, WWW_AUTHENTICATE,
};
use hyper::{Request, Response, StatusCode};

use super::shared::Shared;
use super::ServeRecord;

pub(super) type BoxError = Box<dyn std::error::Error + Send + Sync>;
pub(super) type ServeBody = UnsyncBoxBody<Bytes, BoxError>;

pub(super) const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");
/// A trailer by which the guest says it ended its own answer early (`timeout`: at the request's
/// deadline, `wasinn-deadline-ms`; `error`: its work failed midway, after the status went out);
/// the host logs the cut and never sends the field on.
const WASINN_CUT: HeaderName = HeaderName::from_static("wasinn-cut");
/// How long a body whose guest declared `wasinn-cut` is still read after its client left, for the
/// guest's end: its next frame ends the wait (data: it was not ending; the end or the trailer: it
/// was, whole or cut).
const GUEST_END_GRACE: Duration = Duration::from_millis(500);

/// Counts a request from its arrival until its answer's body is sent (or dropped), then logs it.
pub(super) struct Tracked {
    shared: Arc<Shared>,
    method: String,
    path: String,
    client: String,
    pub(super) request_id: String,
    user_agent: String,
    start: Instant,
    pub(super) bytes_in: u64,
    /// A body streamed to the guest: its bytes so far (bytes_in is taken from it at the end).
    pub(super) streamed_in: Option<Arc<std::sync::atomic::AtomicU64>>,
    bytes_out: u64,
    status: u16,
    note: String,
    /// How the answer was cut, when the host knows (a timeout); else decided at the end.
    pub(super) cut: Option<&'static str>,
    /// The answer's body was sent whole.
    body_done: bool,
    /// The answer's Content-Length: hyper stops polling a body once that much is sent.
    declared: Option<u64>,
    /// The guest declared the `wasinn-cut` trailer (`Trailer: wasinn-cut`): it says how its
    /// answer ends, so its end is worth a moment's wait after the client left.
    may_cut: bool,
    /// Set by the guest's task when the guest failed (a trap; the --request-timeout deadline
    /// is one), before its store goes: a streamed body then ends as if whole, but was cut.
    pub(super) guest_failed: Arc<AtomicBool>,
}

/// A client's X-Request-Id is kept if it is a plain token (it goes into the log and the answer).
fn usable_request_id(v: &HeaderValue) -> Option<String> {
    let b = v.as_bytes();
    let plain = |c: &u8| c.is_ascii_alphanumeric() || b"-_.:/+=@".contains(c);
    (!b.is_empty() && b.len() <= 128 && b.iter().all(plain)).then(|| String::from_utf8_lossy(b).into_owned())
}

impl Tracked {
    pub(super) fn new(shared: &Arc<Shared>, req: &Request<Incoming>, peer: SocketAddr) -> Tracked {
        shared.in_flight.fetch_add(1, Relaxed);
        let request_id = req
            .headers()
            .get(X_REQUEST_ID)
            .and_then(usable_request_id)
            .unwrap_or_else(|| format!("{:016x}-{}", shared.id_prefix, shared.requests.fetch_add(1, Relaxed)));
        // At most 256 bytes of it, as text: the log's line stays a line.
        let user_agent = req.headers().get(USER_AGENT).map_or_else(String::new, |v| {
            let b = v.as_bytes();
            String::from_utf8_lossy(&b[..b.len().min(256)]).into_owned()
        });
        Tracked {
            shared: shared.clone(),
            method: req.method().to_string(),
            path: req
                .uri()
                .path_and_query()
                .map_or_else(|| req.uri().path().to_string(), |p| p.to_string()),
            client: peer.to_string(),
            request_id,
            user_agent,
            start: Instant::now(),
            bytes_in: 0,
            streamed_in: None,
            bytes_out: 0,
            status: 0,
            note: String::new(),
            cut: None,
            // A HEAD's answer has no body to send.
            body_done: req.method() == hyper::Method::HEAD,
            declared: None,
            may_cut: false,
            guest_failed: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The guest's `wasinn-cut` trailer: its answer looked whole but was cut, and why.
    fn cut_by_guest(&mut self, said: &HeaderValue) {
        match said.as_bytes() {
            b"timeout" => {
                self.cut = Some("cut:timeout");
                self.note = "the guest ended its answer at the request's deadline (wasinn-deadline-ms)".into();
            }
            b"error" => {
                self.cut = Some("cut:error");
                self.note = "the guest's work failed midway; it ended its answer with the error".into();
            }
            other => {
                self.note = format!(
                    "the guest's wasinn-cut trailer {:?} is not one wasinn knows (timeout, error)",
                    String::from_utf8_lossy(other)
                )
            }
        }
    }

    fn request_id_header(&self) -> Option<HeaderValue> {
        HeaderValue::from_str(&self.request_id).ok()
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        if let Some(seen) = &self.streamed_in {
            self.bytes_in = seen.load(Relaxed);
        }
        let cutting = self.shared.cutting.load(Relaxed);
        // No answer at all (a HEAD's too) is a cut however little its body was.
        if self.status == 0 {
            self.body_done = false;
        }
        if self.status == 0 && cutting {
            // Dropped at the end of the drain: the server cut it, and the client got no answer.
            self.status = 503;
            self.note = "cut by the server: still in progress at the end of --shutdown-timeout".into();
        } else if self.status == 0 {
            // Dropped before an answer was made: the client closed the connection (nginx's 499).
            self.status = 499;
            self.note = "the client left before the answer".into();
        }
        // An answer whose body was not sent whole was cut, whatever status went first.
        if self.declared.is_some_and(|n| self.bytes_out >= n) {
            self.body_done = true;
        }
        // A body sent whole by a guest that then failed (its store dropped mid-stream ends the
        // body cleanly) was cut: by the deadline, the drain, or the guest's own error.
        let failed = self.guest_failed.load(Acquire) && !self.declared.is_some_and(|n| self.bytes_out >= n);
        let timed_out = || {
            self.shared
                .settings
                .request_timeout
                .is_some_and(|l| self.start.elapsed() >= l)
        };
        let outcome = match self.cut {
            Some(how) => how,
            None if self.body_done && failed && timed_out() => "cut:timeout",
            None if self.body_done && failed && cutting => "cut:shutdown",
            None if self.body_done && failed => "cut:error",
            None if self.body_done => "completed",
            None if cutting => "cut:shutdown",
            None => "cut:client-left",
        };
        // The record's strings as C strings in one buffer (a NUL inside one ends it there), each
        // field given its own by name.
        let mut buf = Vec::with_capacity(256);
        let mut put = |text: &str| {
            let at = buf.len();
            buf.extend_from_slice(text.as_bytes());
            buf.push(0);
            at
        };
        let (method, path, note) = (put(self.method.as_str()), put(&self.path), put(&self.note));
        let (client, request_id, user_agent) = (put(&self.client), put(&self.request_id), put(&self.user_agent));
        let outcome_at = put(outcome);
        let c = |at: usize| buf[at..].as_ptr() as *const std::ffi::c_char;
        let record = ServeRecord {
            struct_size: std::mem::size_of::<ServeRecord>() as u32,
            status: i32::from(self.status),
            bytes_in: self.bytes_in,
            bytes_out: self.bytes_out,
            micros: self.start.elapsed().as_micros() as u64,
            method: c(method),
            path: c(path),
            note: c(note),
            client: c(client),
            request_id: c(request_id),
            user_agent: c(user_agent),
            outcome: c(outcome_at),
        };
        self.shared.callbacks.trace(
            &self.request_id,
            format_args!(
                "answer ended: {} {outcome}, {} bytes out, {} us in all",
                self.status, self.bytes_out, record.micros
            ),
        );
        if let Some(f) = self.shared.callbacks.on_request {
            unsafe { f(self.shared.callbacks.user, &record) };
        }
        if self.shared.in_flight.fetch_sub(1, Relaxed) == 1 {
            self.shared.idle.notify_waiters();
        }
    }
}

/// An answer's body that reports the request when it is sent whole or dropped.
pub(super) struct CountedBody {
    inner: ServeBody,
    tracked: Option<Tracked>,
}

impl Body for CountedBody {
    type Data = Bytes;
    type Error = BoxError;
    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<std::result::Result<Frame<Bytes>, BoxError>>> {
        let mut polled = std::pin::Pin::new(&mut self.inner).poll_frame(cx);
        if let std::task::Poll::Ready(Some(Ok(frame))) = &mut polled {
            if let Some(trailers) = frame.trailers_mut() {
                let said = trailers.remove(WASINN_CUT);
                if let (Some(t), Some(said)) = (self.tracked.as_mut(), said) {
                    t.cut_by_guest(&said);
                }
                // Nothing left for the client: the body ends as if the guest sent no trailers.
                if trailers.is_empty() {
                    polled = std::pin::Pin::new(&mut self.inner).poll_frame(cx);
                }
            }
        }
        match &polled {
            std::task::Poll::Ready(Some(Ok(frame))) => {
                if let (Some(t), Some(data)) = (self.tracked.as_mut(), frame.data_ref()) {
                    t.bytes_out += data.len() as u64;
                }
            }
            std::task::Poll::Ready(Some(Err(e))) => {
                if let Some(t) = self.tracked.as_mut() {
                    t.note = format!("the answer's body failed: {e}");
                    // The guest stopped at --request-timeout (its epoch deadline), or failed.
                    let timed_out = t
                        .shared
                        .settings
                        .request_timeout
                        .is_some_and(|l| t.start.elapsed() >= l);
                    t.cut = Some(if timed_out { "cut:timeout" } else { "cut:error" });
                }
                self.tracked = None;
            }
            std::task::Poll::Ready(None) => {
                if let Some(t) = self.tracked.as_mut() {
                    t.body_done = true;
                }
                self.tracked = None;
            }
            std::task::Poll::Pending => {}
        }
        polled
    }
    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }
    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for CountedBody {
    fn drop(&mut self) {
        let Some(t) = self.tracked.as_mut() else {
            return;
        };
        // hyper may drop an empty body (a HEAD's, a 204's) without polling it to its end.
        if self.inner.is_end_stream() {
            t.body_done = true;
            return;
        }
        // Dropped because the client left. One that stops reading at a stream's last event (PyPI
        // openai at [DONE] or an error event) often leaves before hyper has taken the guest's end,
        // though the guest was ending: a guest that says how it ends gets a moment to, its next
        // frames read (never sent).
        if !t.may_cut {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (Some(mut tracked), mut inner) = (self.tracked.take(), std::mem::replace(&mut self.inner, full(""))) else {
            return;
        };
        runtime.spawn(async move {
            match guest_end(&mut inner, GUEST_END_GRACE).await {
                GuestEnd::Whole => tracked.body_done = true,
                GuestEnd::Cut(said) => tracked.cut_by_guest(&said),
                GuestEnd::NotEnding => {}
            }
            // Logged here, as it ended; the body goes after it, which tells a guest still
            // writing that its client left.
            drop(tracked);
        });
    }
}

/// How a guest's body goes on after its client left, from its next frames (read, never sent).
#[derive(Debug, PartialEq)]
enum GuestEnd {
    /// It ended as it does when whole: everything it wrote had gone out, so its answer did too.
    Whole,
    /// It ended with a `wasinn-cut` trailer.
    Cut(HeaderValue),
    /// More data (it was still answering), a failure, or nothing within the grace.
    NotEnding,
}

async fn guest_end(body: &mut ServeBody, grace: Duration) -> GuestEnd {
    let until = tokio::time::Instant::now() + grace;
    while let Ok(next) = tokio::time::timeout_at(until, body.frame()).await {
        return match next.map(|f| f.map(Frame::into_trailers)) {
            None => GuestEnd::Whole,
            Some(Ok(Ok(mut trailers))) => trailers.remove(WASINN_CUT).map_or(GuestEnd::Whole, GuestEnd::Cut),
            // An empty write says nothing yet.
            Some(Ok(Err(frame))) if frame.data_ref().is_some_and(Bytes::is_empty) => continue,
            Some(Ok(Err(_)) | Err(_)) => GuestEnd::NotEnding,
        };
    }
    GuestEnd::NotEnding
}

/// The guest's own answer, as it sent it.
pub(super) fn guest_response(resp: Response<ServeBody>, mut tracked: Tracked) -> Response<CountedBody> {
    tracked.status = resp.status().as_u16();
    let (mut parts, body) = resp.into_parts();
    tracked.declared = parts
        .headers
        .get(hyper::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse().ok());
    tracked.may_cut = take_declared_cut(&mut parts.headers);
    // A guest's 503 says when to come back as the host's own do (the OpenAI component's model
    // that `serve --models-max` or the memory check keeps out for now).
    if parts.status == StatusCode::SERVICE_UNAVAILABLE && !parts.headers.contains_key(RETRY_AFTER) {
        parts.headers.insert(RETRY_AFTER, HeaderValue::from_static("1"));
    }
    if let Some(id) = tracked.request_id_header() {
        parts.headers.insert(X_REQUEST_ID, id);
    }
    Response::from_parts(
        parts,
        CountedBody {
            inner: body,
            tracked: Some(tracked),
        },
    )
}

/// Takes `wasinn-cut` out of the guest's `Trailer` header (the field is the server's, never sent
/// on); whether it was there.
fn take_declared_cut(headers: &mut hyper::HeaderMap) -> bool {
    let declared: Vec<String> = headers
        .get_all(TRAILER)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|name| name.trim().to_ascii_lowercase())
        .filter(|name| !name.is_empty())
        .collect();
    if !declared.iter().any(|name| name == WASINN_CUT.as_str()) {
        return false;
    }
    headers.remove(TRAILER);
    let others: Vec<String> = declared
        .into_iter()
        .filter(|name| name != WASINN_CUT.as_str())
        .collect();
    if let (false, Ok(v)) = (others.is_empty(), HeaderValue::from_str(&others.join(", "))) {
        headers.insert(TRAILER, v);
    }
    true
}

/// An answer the host gives itself (health, 400, 401, 408, 413, 503, 504, 500): a line of text
/// (or a JSON error) for the client, and the note for the record (why the host answered for the
/// guest), often empty.
pub(super) struct HostAnswer {
    status: StatusCode,
    text: String,
    note: String,
    json: bool,
    headers: Vec<(HeaderName, HeaderValue)>,
    cut: Option<&'static str>,
}

impl HostAnswer {
    pub(super) fn new(status: StatusCode, text: impl Into<String>, note: impl Into<String>) -> HostAnswer {
        HostAnswer {
            status,
            text: text.into(),
            note: note.into(),
            json: false,
            headers: Vec::new(),
            cut: None,
        }
    }

    pub(super) fn status(&self) -> u16 {
        self.status.as_u16()
    }

    /// A JSON answer the C++ side wrote (host_routes.rs), as it wrote it.
    pub(super) fn json(status: StatusCode, body: String) -> HostAnswer {
        let mut answer = HostAnswer::new(status, body, String::new());
        answer.json = true;
        answer
    }

    /// 401 for a request without a key, or with a wrong one (--api-key): RFC 6750's challenge,
    /// and the error in OpenAI's shape, which its clients read (`AuthenticationError`).
    pub(super) fn unauthorized(presented: bool) -> HostAnswer {
        let (message, code, challenge) = if presented {
            (
                "the API key is not one this server takes",
                "invalid_api_key",
                "Bearer realm=\"wasinn\", error=\"invalid_token\"",
            )
        } else {
            (
                "this server needs an API key: send it as 'Authorization: Bearer KEY' or 'x-api-key: KEY'",
                "missing_api_key",
                "Bearer realm=\"wasinn\"",
            )
        };
        let body = format!(
            "{{\"error\":{{\"message\":\"{message}\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"{code}\"}}}}"
        );
        let mut answer = HostAnswer::new(StatusCode::UNAUTHORIZED, body, String::new());
        answer.json = true;
        answer
            .headers
            .push((WWW_AUTHENTICATE, HeaderValue::from_static(challenge)));
        answer
    }

    /// The answer ends the connection (its request's body was not read whole).
    pub(super) fn closing(mut self) -> HostAnswer {
        self.headers.push((CONNECTION, HeaderValue::from_static("close")));
        self
    }

    /// The request was cut, and how (for the access log's outcome).
    pub(super) fn cut(mut self, how: &'static str) -> HostAnswer {
        self.cut = Some(how);
        self
    }

    pub(super) fn respond(self, mut tracked: Tracked) -> Response<CountedBody> {
        tracked.status = self.status.as_u16();
        tracked.note = self.note;
        if self.cut.is_some() {
            tracked.cut = self.cut;
        }
        let request_id = tracked.request_id_header();
        // Under /v1/ (and on OpenAI's routes without it, which llama-server and Ollama take too) the
        // clients are OpenAI's: they read only its error shape.
        let json = self.json || openai_path(&tracked.path);
        let text = if self.json {
            self.text
        } else if json {
            openai_error(self.status, &self.text)
        } else {
            format!("{}\n", self.text)
        };
        let mut resp = Response::new(CountedBody {
            inner: full(text),
            tracked: Some(tracked),
        });
        *resp.status_mut() = self.status;
        let content_type = if json {
            "application/json"
        } else {
            "text/plain; charset=utf-8"
        };
        resp.headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
        if self.status == StatusCode::SERVICE_UNAVAILABLE || self.status == StatusCode::TOO_MANY_REQUESTS {
            resp.headers_mut().insert(RETRY_AFTER, HeaderValue::from_static("1"));
        }
        for (name, value) in self.headers {
            resp.headers_mut().insert(name, value);
        }
        if let Some(id) = request_id {
            resp.headers_mut().insert(X_REQUEST_ID, id);
        }
        resp
    }
}

/// A path OpenAI's clients call: under /v1/, or one of its routes without the prefix.
fn openai_path(path: &str) -> bool {
    const BARE: [&str; 5] = ["/chat/completions", "/completions", "/embeddings", "/models", "/rerank"];
    path.starts_with("/v1/") || BARE.contains(&path)
}

/// The host's own answer as OpenAI's error object, with the type and code its clients expect for
/// the status (the client raises its typed error by status and shows `message`).
fn openai_error(status: StatusCode, message: &str) -> String {
    let (kind, code) = match status.as_u16() {
        408 => ("invalid_request_error", "request_timeout"),
        413 => ("invalid_request_error", "request_too_large"),
        429 => ("requests", "rate_limit_exceeded"),
        503 => ("server_error", "server_overloaded"),
        504 => ("server_error", "timeout"),
        s if s >= 500 => ("server_error", "server_error"),
        _ => ("invalid_request_error", "invalid_request"),
    };
    format!(
        "{{\"error\":{{\"message\":\"{}\",\"type\":\"{kind}\",\"param\":null,\"code\":\"{code}\"}}}}",
        json_escaped(message)
    )
}

/// `text` as the inside of a JSON string (RFC 8259: quote, backslash and control characters).
fn json_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

fn full(bytes: impl Into<Bytes>) -> ServeBody {
    Full::new(bytes.into())
        .map_err(|never: Infallible| match never {})
        .boxed_unsync()
}

#[cfg(test)]
mod unit {
    use super::*;

    fn trailer_after(values: &[&str]) -> (bool, Vec<String>) {
        let mut headers = hyper::HeaderMap::new();
        for v in values {
            headers.append(TRAILER, HeaderValue::from_str(v).unwrap());
        }
        let declared = take_declared_cut(&mut headers);
        let left = headers
            .get_all(TRAILER)
            .iter()
            .map(|v| v.to_str().unwrap().to_string())
            .collect();
        (declared, left)
    }

    /// A guest's body as frames in order; past them, none yet (Pending) or its end.
    struct Frames(std::collections::VecDeque<Result<Frame<Bytes>, BoxError>>, bool);

    impl Body for Frames {
        type Data = Bytes;
        type Error = BoxError;
        fn poll_frame(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Option<Result<Frame<Bytes>, BoxError>>> {
            match self.0.pop_front() {
                Some(frame) => std::task::Poll::Ready(Some(frame)),
                None if self.1 => std::task::Poll::Ready(None),
                None => std::task::Poll::Pending,
            }
        }
    }

    fn data(text: &'static str) -> Result<Frame<Bytes>, BoxError> {
        Ok(Frame::data(Bytes::from_static(text.as_bytes())))
    }

    fn trailers(fields: &[(&'static str, &'static str)]) -> Result<Frame<Bytes>, BoxError> {
        let mut map = hyper::HeaderMap::new();
        for (name, value) in fields {
            map.insert(HeaderName::from_static(name), HeaderValue::from_static(value));
        }
        Ok(Frame::trailers(map))
    }

    async fn end_of(frames: Vec<Result<Frame<Bytes>, BoxError>>, ends: bool) -> GuestEnd {
        let mut body = Frames(frames.into(), ends).boxed_unsync();
        guest_end(&mut body, Duration::from_millis(50)).await
    }

    #[tokio::test]
    async fn a_guest_that_ends_after_its_client_left_is_whole_or_cut_as_it_says() {
        assert_eq!(end_of(vec![], true).await, GuestEnd::Whole);
        assert_eq!(end_of(vec![data("")], true).await, GuestEnd::Whole);
        assert_eq!(
            end_of(vec![trailers(&[("server-timing", "x")])], true).await,
            GuestEnd::Whole
        );
        assert_eq!(
            end_of(vec![trailers(&[("wasinn-cut", "error")])], true).await,
            GuestEnd::Cut(HeaderValue::from_static("error"))
        );
        // Still answering, failed, or silent past the grace: the client left before the end.
        assert_eq!(end_of(vec![data("data: {}\n\n")], true).await, GuestEnd::NotEnding);
        assert_eq!(end_of(vec![Err("broken".into())], true).await, GuestEnd::NotEnding);
        assert_eq!(end_of(vec![data("")], false).await, GuestEnd::NotEnding);
    }

    #[test]
    fn the_cut_trailer_is_taken_out_of_the_trailer_header_and_the_others_kept() {
        assert_eq!(trailer_after(&["wasinn-cut"]), (true, vec![]));
        assert_eq!(
            trailer_after(&["Server-Timing, Wasinn-Cut"]),
            (true, vec!["server-timing".to_string()])
        );
        assert_eq!(trailer_after(&["a", "wasinn-cut, b"]), (true, vec!["a, b".to_string()]));
        assert_eq!(
            trailer_after(&["server-timing"]),
            (false, vec!["server-timing".to_string()])
        );
        assert_eq!(trailer_after(&[]), (false, vec![]));
    }

    #[test]
    fn openai_routes_get_openai_errors_with_or_without_v1() {
        for path in [
            "/v1/chat/completions",
            "/v1/x",
            "/chat/completions",
            "/completions",
            "/embeddings",
            "/models",
            "/rerank",
        ] {
            assert!(openai_path(path), "{path}");
        }
        for path in ["/", "/hello", "/models/x", "/v1", "/chat", "/v2/models/m/infer"] {
            assert!(!openai_path(path), "{path}");
        }
    }
}
