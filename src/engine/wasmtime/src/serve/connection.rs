// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! One client connection (serve_host.h's `wasinn_serve_stop`: answers in progress go on): its
//! protocol, and its graceful end when the server stops.
use std::sync::Arc;

use tokio::sync::watch;
use wasmtime_wasi_http::io::TokioIo;

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
        tokio::spawn(future);
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
/// `curl --http2-prior-knowledge` and gRPC clients do; no h2c upgrade, no TLS).
pub(super) async fn serve_connection(
    shared: Arc<Shared>,
    stream: tokio::net::TcpStream,
    mut stop: watch::Receiver<bool>,
) {
    let _ = stream.set_nodelay(true);
    let mut first = [0u8; 3];
    let h2 = matches!(stream.peek(&mut first).await, Ok(3) if &first == b"PRI");
    let service = hyper::service::service_fn(move |req| shared.clone().handle(req));
    if h2 {
        until_stopped!(
            hyper::server::conn::http2::Builder::new(TokioExecutor).serve_connection(TokioIo::new(stream), service),
            stop
        );
    } else {
        until_stopped!(
            hyper::server::conn::http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service),
            stop
        );
    }
}
