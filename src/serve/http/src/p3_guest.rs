// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! One request to a wasi:http@0.3.0 service (`wasi:http/handler`): a fresh instance, its handler
//! called inside the store's event loop, and the loop kept running while the client reads the
//! response's body (a 0.3 guest writes it from its own tasks). The store, and with it every
//! compute the guest has in flight (`wasinn:nn-async` cancels it), goes when the body is read,
//! dropped, or the client leaves before the response.
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering::Release};
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Frame, SizeHint};
use hyper::{Request, Response};
use tokio::sync::oneshot;
use wasmtime::Store;
use wasmtime_wasi_http::p3::bindings::ServicePre;
use wasmtime_wasi_http::WasiHttpView;

use super::answer::{BoxError, ServeBody};
use super::store::RequestState;

/// A response body that holds `T` until it ends or fails, then drops it: the guest's loop learns
/// the client is done (a oneshot sender), a reused instance's request leaves its worker (`Busy`).
pub(super) struct HeldUntilEnd<T> {
    pub(super) inner: ServeBody,
    pub(super) held: Option<T>,
}

impl<T: Unpin> Body for HeldUntilEnd<T> {
    type Data = Bytes;
    type Error = BoxError;
    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(None) | Poll::Ready(Some(Err(_))) = polled {
            self.held.take();
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

/// Runs the guest for one request; its response (or the error code it answered) goes to `tx`.
pub(super) async fn run(
    pre: ServicePre<RequestState>,
    mut store: Store<RequestState>,
    req: Request<Full<Bytes>>,
    mut tx: oneshot::Sender<Result<Response<ServeBody>, String>>,
    failed: Arc<AtomicBool>,
) -> wasmtime::Result<()> {
    let result = async {
        let service = pre.instantiate_async(&mut store).await?;
        let req = req.map(|b| b.map_err(|e: Infallible| -> wasmtime_wasi_http::Error { match e {} }));
        let (req, req_io) = wasmtime_wasi_http::p3::Request::from_http(store.data_mut().http().hooks, req);
        store
            .run_concurrent(async move |accessor| -> wasmtime::Result<()> {
                // A client that leaves before the response drops the guest's work with the store.
                let answered = tokio::select! {
                    answered = service.handle(accessor, req) => answered?,
                    () = tx.closed() => return Ok(()),
                };
                let resp = match answered {
                    Ok(resp) => resp,
                    Err(code) => {
                        let _ = tx.send(Err(format!("{code:?}")));
                        return Ok(());
                    }
                };
                let resp = accessor.with(|mut store| resp.into_http(&mut store, req_io))?;
                let (done, body_done) = oneshot::channel::<()>();
                let resp = resp.map(|b| {
                    HeldUntilEnd {
                        inner: b.map_err(|e| -> BoxError { format!("{e:?}").into() }).boxed_unsync(),
                        held: Some(done),
                    }
                    .boxed_unsync()
                });
                if tx.send(Ok(resp)).is_ok() {
                    // The guest's tasks run on while the client reads the body.
                    let _ = body_done.await;
                }
                Ok(())
            })
            .await?
    }
    .await;
    // Before the store (and the answer's body) goes, for the access log's outcome.
    if result.is_err() {
        failed.store(true, Release);
    }
    drop(store);
    result
}
