// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! What the client gets, and the record of it (serve_host.h's `on_request` and the in-flight
//! count): a request is tracked from its arrival until its answer's body is sent whole or
//! dropped, then reported once, whoever answered it: the guest, or the host for it.
use std::convert::Infallible;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use http_body_util::{combinators::UnsyncBoxBody, BodyExt, Full};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::header::{HeaderValue, CONTENT_TYPE, RETRY_AFTER};
use hyper::{Request, Response, StatusCode};

use super::shared::Shared;
use super::ServeRecord;
use crate::host::*;

pub(super) type BoxError = Box<dyn std::error::Error + Send + Sync>;
pub(super) type ServeBody = UnsyncBoxBody<Bytes, BoxError>;

/// Counts a request from its arrival until its answer's body is sent (or dropped), then logs it.
pub(super) struct Tracked {
    shared: Arc<Shared>,
    method: String,
    path: String,
    start: Instant,
    pub(super) bytes_in: u64,
    bytes_out: u64,
    status: u16,
    note: String,
}

impl Tracked {
    pub(super) fn new(shared: &Arc<Shared>, req: &Request<Incoming>) -> Tracked {
        shared.in_flight.fetch_add(1, Relaxed);
        Tracked {
            shared: shared.clone(),
            method: req.method().to_string(),
            path: req
                .uri()
                .path_and_query()
                .map_or_else(|| req.uri().path().to_string(), |p| p.to_string()),
            start: Instant::now(),
            bytes_in: 0,
            bytes_out: 0,
            status: 0,
            note: String::new(),
        }
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        if self.status == 0 && self.shared.cutting.load(Relaxed) {
            // Dropped at the end of the drain: the server cut it, and the client got no answer.
            self.status = 503;
            self.note = "cut by the server: still in progress at the end of --shutdown-timeout".into();
        } else if self.status == 0 {
            // Dropped before an answer was made: the client closed the connection (nginx's 499).
            self.status = 499;
            self.note = "the client left before the answer".into();
        }
        let record = ServeRecord {
            method: WitStr::of(&self.method),
            path: WitStr::of(&self.path),
            status: self.status,
            bytes_in: self.bytes_in,
            bytes_out: self.bytes_out,
            micros: self.start.elapsed().as_micros() as u64,
            note: WitStr::of(&self.note),
        };
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
        let polled = std::pin::Pin::new(&mut self.inner).poll_frame(cx);
        match &polled {
            std::task::Poll::Ready(Some(Ok(frame))) => {
                if let (Some(t), Some(data)) = (self.tracked.as_mut(), frame.data_ref()) {
                    t.bytes_out += data.len() as u64;
                }
            }
            std::task::Poll::Ready(Some(Err(e))) => {
                if let Some(t) = self.tracked.as_mut() {
                    t.note = format!("the answer's body failed: {e}");
                }
                self.tracked = None;
            }
            std::task::Poll::Ready(None) => self.tracked = None,
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

/// The guest's own answer, as it sent it.
pub(super) fn guest_response(resp: Response<ServeBody>, mut tracked: Tracked) -> Response<CountedBody> {
    tracked.status = resp.status().as_u16();
    let (parts, body) = resp.into_parts();
    Response::from_parts(
        parts,
        CountedBody {
            inner: body,
            tracked: Some(tracked),
        },
    )
}

/// An answer the host gives itself (health, 400, 413, 503, 504, 500): a line of text for the
/// client, and the note for the record (why the host answered for the guest), often empty.
pub(super) struct HostAnswer {
    status: StatusCode,
    text: String,
    note: String,
}

impl HostAnswer {
    pub(super) fn new(status: StatusCode, text: impl Into<String>, note: impl Into<String>) -> HostAnswer {
        HostAnswer {
            status,
            text: text.into(),
            note: note.into(),
        }
    }

    pub(super) fn respond(self, mut tracked: Tracked) -> Response<CountedBody> {
        tracked.status = self.status.as_u16();
        tracked.note = self.note;
        let text = self.text;
        let mut resp = Response::new(CountedBody {
            inner: full(format!("{text}\n")),
            tracked: Some(tracked),
        });
        *resp.status_mut() = self.status;
        resp.headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            resp.headers_mut().insert(RETRY_AFTER, HeaderValue::from_static("1"));
        }
        resp
    }
}

fn full(bytes: impl Into<Bytes>) -> ServeBody {
    Full::new(bytes.into())
        .map_err(|never: Infallible| match never {})
        .boxed_unsync()
}
