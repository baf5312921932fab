// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! One client connection (serve_host.h's `wasinn_serve_stop`: answers in progress go on;
//! `header_timeout_ms` and `max_connections`): its protocol, the time its request headers may
//! take, and its graceful end when the server stops.
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

// hyper-util's TokioIo, not wasmtime-wasi-http's copy: it passes vectored writes on, so hyper
// sends an answer's head and body chunks with one writev instead of copying every body byte into
// one growing buffer (mapped and faulted in per request above the mmap threshold).
use hyper_util::rt::TokioIo;
use tokio::sync::watch;

use super::busy_poll::Counted;
use super::shared::Shared;

/// Spawns hyper's HTTP/2 tasks (a connection's streams) on the runtime that serves it.
#[derive(Clone, Copy)]
struct TokioExecutor;

impl<F> hyper::rt::Executor<F> for TokioExecutor
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn execute(&self, future: F) {
        tokio::spawn(Counted::new(future));
    }
}

/// hyper's timers (its header read timeout) on tokio's clock: hyper-util's `TokioTimer`, which
/// this crate does not otherwise need.
#[derive(Clone, Copy)]
struct TokioTimer;

struct TokioSleep(Pin<Box<tokio::time::Sleep>>);

impl std::future::Future for TokioSleep {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.0.as_mut().poll(cx)
    }
}

impl hyper::rt::Sleep for TokioSleep {}

impl hyper::rt::Timer for TokioTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn hyper::rt::Sleep>> {
        Box::pin(TokioSleep(Box::pin(tokio::time::sleep(duration))))
    }
    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn hyper::rt::Sleep>> {
        Box::pin(TokioSleep(Box::pin(tokio::time::sleep_until(deadline.into()))))
    }
}

/// hyper's read buffer grows to this (its default is about 400 KiB): below the 128 KiB mmap
/// threshold `wasinn serve` fixes (serve_command.cpp), so a body's buffers come from the heap
/// instead of being mapped, faulted in and unmapped per request (a 10 MiB echo: about 250 page
/// faults a request before, now about 10 at 16 connections and 35-60 at one). It bounds the bytes
/// hyper queues to write as well.
const MAX_BUFFER: usize = 120 << 10;

/// A connection counted open (for `max_connections` and the metrics) until it is dropped.
pub(super) struct OpenConnection(Arc<Shared>);

impl OpenConnection {
    pub(super) fn new(shared: &Arc<Shared>) -> OpenConnection {
        shared.connections.fetch_add(1, Relaxed);
        OpenConnection(shared.clone())
    }
}

impl Drop for OpenConnection {
    fn drop(&mut self) {
        self.0.connections.fetch_sub(1, Relaxed);
    }
}

/// Serves one connection until it ends; on stop, finishes what is in progress on it, then closes.
macro_rules! until_stopped {
    ($conn:expr, $stop:expr) => {{
        let conn = $conn;
        tokio::pin!(conn);
        tokio::select! {
            _ = conn.as_mut() => {}
            _ = async { let _ = $stop.wait_for(|s| *s).await; } => {
                conn.as_mut().graceful_shutdown();
                let _ = conn.await;
            }
        }
    }};
}

/// HTTP/1.1, or HTTP/2 when the client opens with HTTP/2's preface (prior knowledge, as
/// `curl --http2-prior-knowledge` and gRPC clients do; no h2c upgrade) or, over TLS, asks for it
/// by ALPN. An HTTP/1.1 request's headers must arrive within the header timeout, counted from the
/// connection's start or, on a kept-alive connection, from the end of the previous answer (hyper's
/// header_read_timeout), so the same limit closes idle keep-alive connections; a TLS handshake
/// must end within it too.
pub(super) async fn serve_connection(
    shared: Arc<Shared>,
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    stop: watch::Receiver<bool>,
    _open: OpenConnection,
) {
    let _ = stream.set_nodelay(true);
    let header_timeout = shared.settings.header_timeout;
    if let Some(acceptor) = shared.tls.clone() {
        // A client that does not speak TLS (plain HTTP to this port) fails here and is closed.
        let handshake = acceptor.accept(stream);
        let tls = match header_timeout {
            Some(limit) => match tokio::time::timeout(limit, handshake).await {
                Ok(Ok(tls)) => tls,
                _ => return,
            },
            None => match handshake.await {
                Ok(tls) => tls,
                Err(_) => return,
            },
        };
        let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
        return serve_protocol(shared, TokioIo::new(tls), h2, peer, stop).await;
    }
    let mut first = [0u8; 3];
    // A client that connects and sends nothing is closed at the header timeout too.
    let peeked = match header_timeout {
        Some(limit) => match tokio::time::timeout(limit, stream.peek(&mut first)).await {
            Ok(p) => p,
            Err(_) => return,
        },
        None => stream.peek(&mut first).await,
    };
    let h2 = matches!(peeked, Ok(3) if &first == b"PRI");
    serve_protocol(shared, TokioIo::new(stream), h2, peer, stop).await
}

async fn serve_protocol<I>(shared: Arc<Shared>, io: I, h2: bool, peer: SocketAddr, mut stop: watch::Receiver<bool>)
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let header_timeout = shared.settings.header_timeout;
    let service = hyper::service::service_fn(move |req| shared.clone().handle(req, peer));
    if h2 {
        until_stopped!(
            hyper::server::conn::http2::Builder::new(TokioExecutor)
                .timer(TokioTimer)
                .serve_connection(io, service),
            stop
        );
    } else {
        until_stopped!(
            hyper::server::conn::http1::Builder::new()
                .max_buf_size(MAX_BUFFER)
                .keep_alive(true)
                .timer(TokioTimer)
                .header_read_timeout(header_timeout)
                .serve_connection(io, service),
            stop
        );
    }
}
