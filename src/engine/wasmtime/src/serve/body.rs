// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! A request's body (serve_host.h's `max_request_bytes`: past it 413 before the guest runs),
//! read whole before the guest runs, so a slow client never holds a worker, and at a least rate
//! (`header_timeout_ms`: past it 408), so a slow client does not hold a connection either.
use std::time::Instant;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::CONTENT_LENGTH;
use hyper::{Request, StatusCode};

use super::answer::{HostAnswer, Tracked};
use super::shared::Settings;

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

fn too_slow(seen: u64, took: std::time::Duration) -> HostAnswer {
    HostAnswer::new(
        StatusCode::REQUEST_TIMEOUT,
        format!("the request body arrived too slowly (under {MIN_BODY_BYTES_PER_SECOND} bytes a second past --header-timeout)"),
        format!("cut: {seen} bytes of the body in {} ms, slower than the least rate", took.as_millis()),
    )
    .closing()
    .cut("cut:timeout")
}

fn too_large(max: u64) -> HostAnswer {
    HostAnswer::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("the request body is larger than this server takes ({max} bytes, --max-request-bytes)"),
        String::new(),
    )
}
