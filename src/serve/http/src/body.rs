// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! A request's body (serve_host.h's `max_request_bytes`: past it 413 before the guest runs),
//! read whole before the guest runs, so a slow client never holds a worker, and at a least rate
//! (`header_timeout_ms`: past it 408), so a slow client does not hold a connection either. For
//! a reused 0.3 instance it is streamed instead: the guest reads it as it arrives, under the same
//! limit and least rate (the guest's read fails past them).
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::header::CONTENT_LENGTH;
use hyper::{Request, StatusCode};

use super::answer::{HostAnswer, Tracked};
use super::shared::Settings;
use wasmtime_wasi_http::{Error as BodyError, WasiBody};

/// A body over the limit is read on and thrown away, up to this many more bytes, before the
/// 413: a client still sending then reads the answer instead of a reset connection.
const DRAIN: u64 = 8 << 20;

/// The slowest body taken, in bytes a second: a body gets the header timeout, plus a second for
/// each KiB that arrived (docs/serving.md), as Apache's mod_reqtimeout's MinRate.
pub(super) const MIN_BODY_BYTES_PER_SECOND: u64 = 1024;

/// The request with its body in memory, at most `max` bytes; else 413 (or 400 for a body that
/// could not be read). What was read is counted in `tracked.bytes_in` either way.
pub(super) async fn read_whole(
    req: Request<Incoming>,
    settings: &Settings,
    tracked: &mut Tracked,
) -> Result<Request<Full<Bytes>>, HostAnswer> {
    let max = settings.max_request_bytes;
    let start = Instant::now();
    let declared = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max.saturating_add(DRAIN)) {
        tracked.bytes_in = declared.unwrap_or(0);
        return Err(too_large(max));
    }
    let (parts, mut body) = req.into_parts();
    let mut kept = Vec::new();
    let mut seen: u64 = 0;
    loop {
        let next = match settings.header_timeout {
            Some(grace) => {
                let allowed =
                    grace + std::time::Duration::from_millis(seen.saturating_mul(1000) / MIN_BODY_BYTES_PER_SECOND);
                match tokio::time::timeout_at((start + allowed).into(), body.frame()).await {
                    Ok(next) => next,
                    Err(_) => {
                        tracked.bytes_in = seen;
                        return Err(too_slow(seen, start.elapsed()));
                    }
                }
            }
            None => body.frame().await,
        };
        let Some(frame) = next else { break };
        let frame = match frame {
            Ok(f) => f,
            Err(e) => {
                tracked.bytes_in = seen;
                return Err(HostAnswer::new(
                    StatusCode::BAD_REQUEST,
                    "the request body could not be read",
                    e.to_string(),
                ));
            }
        };
        if let Some(data) = frame.data_ref() {
            seen += data.len() as u64;
            if seen <= max {
                kept.extend_from_slice(data);
            } else if seen > max.saturating_add(DRAIN) {
                break;
            }
        }
    }
    if seen > max {
        tracked.bytes_in = seen;
        return Err(too_large(max));
    }
    let body = Bytes::from(kept);
    tracked.bytes_in = body.len() as u64;
    Ok(Request::from_parts(parts, Full::new(body)))
}

/// Whether a body declares more than `max_request_bytes` (answered 413 by `read_whole`).
pub(super) fn declared_too_large<B>(req: &Request<B>, settings: &Settings) -> bool {
    req.headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
        .is_some_and(|n| n > settings.max_request_bytes)
}

/// The request with its body handed on as it arrives, counted into `tracked`'s bytes in. Its
/// first frame is awaited here: that sends an `Expect: 100-continue` client (curl's large
/// uploads) its go-ahead at once, and a client that sends nothing holds no worker (408).
pub(super) async fn streamed(
    req: Request<Incoming>,
    settings: &Settings,
    tracked: &mut Tracked,
) -> Result<Request<WasiBody>, HostAnswer> {
    let start = Instant::now();
    let grace = settings.header_timeout;
    let (parts, mut inner) = req.into_parts();
    let first = match grace {
        Some(limit) => tokio::time::timeout(limit, inner.frame())
            .await
            .map_err(|_| too_slow(0, start.elapsed()))?,
        None => inner.frame().await,
    };
    let first = match first {
        Some(Ok(frame)) => Some(frame),
        Some(Err(e)) => {
            return Err(HostAnswer::new(
                StatusCode::BAD_REQUEST,
                "the request body could not be read",
                e.to_string(),
            ))
        }
        None => None,
    };
    let seen = Arc::new(AtomicU64::new(0));
    tracked.streamed_in = Some(seen.clone());
    let body = Streamed {
        ended: first.is_none(),
        first,
        inner,
        seen,
        max: settings.max_request_bytes,
        start,
        grace,
        // Reset to the allowance before each wait; idle until then.
        cut: Box::pin(tokio::time::sleep(grace.unwrap_or(Duration::from_secs(86400)))),
    };
    Ok(Request::from_parts(parts, body.boxed_unsync()))
}

/// A body passed on as it arrives: past `max` bytes, or slower than the least rate past the
/// header timeout, its next read is an error (the guest sees the body fail).
struct Streamed {
    first: Option<Frame<Bytes>>,
    ended: bool,
    inner: Incoming,
    seen: Arc<AtomicU64>,
    max: u64,
    start: Instant,
    grace: Option<Duration>,
    cut: Pin<Box<tokio::time::Sleep>>,
}

impl Body for Streamed {
    type Data = Bytes;
    type Error = BodyError;
    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, BodyError>>> {
        loop {
            let seen = self.seen.load(Relaxed);
            let polled = match self.first.take() {
                Some(frame) => Poll::Ready(Some(Ok(frame))),
                None if self.ended => Poll::Ready(None),
                None => Pin::new(&mut self.inner).poll_frame(cx),
            };
            let too_large = BodyError::HttpRequestBodySize(Some(self.max));
            match polled {
                Poll::Ready(Some(Ok(frame))) => {
                    let now = seen + frame.data_ref().map_or(0, |d| d.len() as u64);
                    self.seen.store(now, Relaxed);
                    if now <= self.max {
                        return Poll::Ready(Some(Ok(frame)));
                    }
                    // Past the limit: read on and throw away up to DRAIN more, as read_whole does (a
                    // client still sending then reads the 413, not a reset); then the read fails.
                    if now <= self.max.saturating_add(DRAIN) {
                        continue;
                    }
                    return Poll::Ready(Some(Err(too_large)));
                }
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Some(Err(BodyError::Hyper(e)))),
                Poll::Ready(None) if seen > self.max => return Poll::Ready(Some(Err(too_large))),
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => {
                    let Some(grace) = self.grace else {
                        return Poll::Pending;
                    };
                    let allowed = grace + Duration::from_millis(seen.saturating_mul(1000) / MIN_BODY_BYTES_PER_SECOND);
                    let deadline = tokio::time::Instant::from_std(self.start + allowed);
                    if self.cut.deadline() != deadline {
                        self.cut.as_mut().reset(deadline);
                    }
                    return match self.cut.as_mut().poll(cx) {
                        Poll::Ready(()) => Poll::Ready(Some(Err(BodyError::ConnectionReadTimeout))),
                        Poll::Pending => Poll::Pending,
                    };
                }
            }
        }
    }
    fn is_end_stream(&self) -> bool {
        self.ended || (self.first.is_none() && self.inner.is_end_stream())
    }
    /// The request's own length, its first frame (already read) counted: a guest that hands the
    /// body on to its answer answers with the same Content-Length, as on `wasmtime serve`.
    fn size_hint(&self) -> SizeHint {
        let rest = self.inner.size_hint();
        let Some(first) = &self.first else { return rest };
        let n = first.data_ref().map_or(0, |d| d.len() as u64);
        let mut hint = SizeHint::new();
        hint.set_lower(rest.lower().saturating_add(n));
        if let Some(upper) = rest.upper() {
            hint.set_upper(upper.saturating_add(n));
        }
        hint
    }
}

fn too_slow(seen: u64, took: std::time::Duration) -> HostAnswer {
    HostAnswer::new(
        StatusCode::REQUEST_TIMEOUT,
        format!("the request body arrived too slowly (under {MIN_BODY_BYTES_PER_SECOND} bytes a second past --header-timeout)"),
        format!("cut: {seen} bytes of the body in {} ms, slower than the least rate", took.as_millis()),
    )
    .closing()
    .cut("cut:timeout")
}

pub(super) fn too_large(max: u64) -> HostAnswer {
    HostAnswer::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("the request body is larger than this server takes ({max} bytes, --max-request-bytes)"),
        String::new(),
    )
}
