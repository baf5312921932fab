// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! Reused wasi:http@0.3.0 instances, as `wasmtime serve` 48+ reuses them (its
//! --max-instance-reuse-count, --max-instance-concurrent-reuse-count, --idle-instance-timeout):
//! wasmtime-wasi-http's `ProxyHandler` keeps instances, each in its own store and event loop,
//! gives a request to one with room, else makes one. A store that traps is dropped with its
//! instance (the requests it held get 500, the log a warning); the next request gets a fresh one.
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, OnceLock, Weak};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http_body_util::BodyExt;
use hyper::{Request, Response};
use wasinn_engine::handles::one_line;
use wasmtime::component::GuestTaskId;
use wasmtime::{format_err, Result, Store, StoreContextMut, UpdateDeadline};
use wasmtime_wasi_http::handler::{
    HandlerState, Instance, Proxy, ProxyHandler, ShouldAccept, TrapOrPanicError, WorkerExpiration, WorkerState,
    WorkerStatus,
};
use wasmtime_wasi_http::p3::bindings::ServicePre;
use wasmtime_wasi_http::WasiBody;

use super::admission::Worker;
use super::answer::{BoxError, ServeBody};
use super::p3_guest::HeldUntilEnd;
use super::shared::Shared;
use super::store::RequestState;

/// Wasmtime's defaults for a 0.3 component (src/commands/serve.rs).
const DEFAULT_REUSE: usize = 128;
const DEFAULT_AT_ONCE: usize = 16;
const DEFAULT_IDLE: Duration = Duration::from_secs(1);

/// How far an instance is reused: requests in all, at once, and how long it waits idle.
#[derive(Clone, Copy)]
pub(super) struct Reuse {
    pub(super) total: usize,
    pub(super) at_once: usize,
    pub(super) idle: Duration,
}

impl Reuse {
    /// From the config's numbers, 0 meaning Wasmtime's default.
    pub(super) fn of(total: usize, at_once: usize, idle_ms: u64) -> Reuse {
        Reuse {
            total: if total == 0 { DEFAULT_REUSE } else { total },
            at_once: if at_once == 0 { DEFAULT_AT_ONCE } else { at_once },
            idle: if idle_ms == 0 {
                DEFAULT_IDLE
            } else {
                Duration::from_millis(idle_ms)
            },
        }
    }
}

/// What makes the instances: the server (weakly: it owns the handler) and the component.
pub(super) struct Instances {
    pub(super) shared: Weak<Shared>,
    pub(super) pre: ServicePre<RequestState>,
    pub(super) reuse: Reuse,
}

pub(super) type Instancer = ProxyHandler<Instances>;

impl HandlerState for Instances {
    type StoreData = RequestState;
    type WorkerExpiration = Expiry;
    type WorkerState = Limits;

    async fn instantiate(&self) -> Result<Instance<RequestState, Expiry, Limits>> {
        let shared = self
            .shared
            .upgrade()
            .ok_or_else(|| format_err!("the server has stopped"))?;
        // The store's limits are a request's, as with an instance per request (store.rs); its guest
        // yields to the runtime at every epoch tick instead of trapping at the deadline: a busy
        // guest leaves its lane's other tasks their turn, and the request timeout is kept
        // by the handler's expiry (below) and the connection's 504. tokio's yield_now, unlike a
        // plain re-wake, runs the thread's other tasks and polls for I/O before the guest's next
        // turn, so health checks and new connections are not left behind busy guests.
        // An instance serves many requests, of any key: none is its own (serve_host.h's guest_new).
        let mut store = shared.new_store(&[], "")?;
        store.epoch_deadline_callback(|_| Ok(UpdateDeadline::YieldCustom(1, Box::pin(tokio::task::yield_now()))));
        store.set_epoch_deadline(1);
        store.data_mut().hand_off_long_calls();
        let service = self.pre.instantiate_async(&mut store).await?;
        let request_timeout = shared.settings.request_timeout;
        Ok(Instance {
            store,
            proxy: Proxy::P3(service),
            view: <RequestState as wasmtime_wasi_http::WasiHttpView>::http,
            expiration: Expiry {
                idle: self.reuse.idle,
                request: request_timeout.unwrap_or(Duration::MAX),
                sleep: Box::pin(tokio::time::sleep(Duration::MAX / 4)),
            },
            state: Limits {
                reuse: self.reuse,
                request_timeout,
                failure: Arc::default(),
                shared: self.shared.clone(),
            },
        })
    }
}

/// When an instance goes: idle past the idle timeout, or busy past the request timeout (the
/// handler polls this outside the store's loop, so a guest stuck in one call is caught too).
pub(super) struct Expiry {
    idle: Duration,
    request: Duration,
    sleep: Pin<Box<tokio::time::Sleep>>,
}

impl WorkerExpiration for Expiry {
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>, status: WorkerStatus, start: Instant) -> Poll<()> {
        let limit = match status {
            WorkerStatus::Idle => self.idle,
            WorkerStatus::Requests | WorkerStatus::PostReturn => self.request,
        };
        let Some(deadline) = start.checked_add(limit) else {
            return Poll::Pending;
        };
        let deadline = tokio::time::Instant::from_std(deadline);
        if self.sleep.deadline() != deadline {
            self.sleep.as_mut().reset(deadline);
        }
        self.sleep.as_mut().poll(cx)
    }
}

/// One instance's bounds, and what each request it takes starts with.
pub(super) struct Limits {
    reuse: Reuse,
    request_timeout: Option<Duration>,
    /// Why the instance ended, if it failed: its requests get only wasmtime-wasi-http's
    /// TrapOrPanicError, so each holds this to name the trap in its 500's log line.
    failure: Failure,
    /// Where a failure is logged: one with no request in flight is in no request's log line.
    shared: Weak<Shared>,
}

type Failure = Arc<OnceLock<String>>;

impl WorkerState for Limits {
    type StoreData = RequestState;
    /// The request's hold on its place, kept by the instance until the guest answered (or the
    /// request expired), even when the client left first.
    type RequestData = Arc<Busy>;

    fn should_accept_request(&self, at_once: usize, total: usize) -> ShouldAccept {
        if total >= self.reuse.total {
            ShouldAccept::Never
        } else if at_once >= self.reuse.at_once {
            ShouldAccept::No
        } else {
            ShouldAccept::Yes
        }
    }

    fn on_request_start(
        &self,
        _: StoreContextMut<'_, RequestState>,
        held: Arc<Busy>,
        _: GuestTaskId,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + Sync>> {
        // Each request gets the whole request timeout, from its own start. The handler drops
        // this future once the guest answered or the request expired.
        let limit = self.request_timeout;
        let _ = held.instance_failure.set(self.failure.clone());
        Box::pin(async move {
            let _held = held;
            match limit {
                Some(limit) => tokio::time::sleep(limit).await,
                None => std::future::pending().await,
            }
        })
    }

    fn drop(&self, store: Store<RequestState>, result: Result<()>) {
        // A trap's requests are answered 500; the store (the guest's wasi-nn state) goes. On a lane
        // this runs before those requests' tasks see their TrapOrPanicError (same thread).
        if let Err(e) = result {
            let cause = one_line(&e);
            // Not while the server stops: its lanes then drop their instances mid-loop (which
            // wasmtime-wasi-http reports as "worker panicked") with nothing gone wrong.
            if let Some(shared) = self.shared.upgrade().filter(|s| !s.draining.load(Relaxed)) {
                shared.callbacks.warn(&format!(
                    "a reused instance of the component failed and was dropped: {cause} (any request it held \
                     was answered 500; the next gets a new instance)"
                ));
            }
            let _ = self.failure.set(cause);
        }
        drop(store);
    }
}

/// A request's hold on the server while its guest works on it: its worker (admission) and its
/// place in the running count, kept until the response's body is done or dropped.
pub(super) struct Busy {
    shared: Arc<Shared>,
    _worker: Worker,
    /// The failure slot of the instance that took the request (Limits::failure).
    instance_failure: OnceLock<Failure>,
}

impl Busy {
    pub(super) fn new(shared: Arc<Shared>, worker: Worker) -> Busy {
        shared.running.fetch_add(1, Relaxed);
        Busy {
            shared,
            _worker: worker,
            instance_failure: OnceLock::new(),
        }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.shared.running.fetch_sub(1, Relaxed);
    }
}

/// One request to a reused instance, awaited where it arrived (no task of its own): its response
/// with a body that holds `busy` to its end, or the error the guest answered (ErrorCode) or the
/// instance's (a trap, a failed instantiation). The instances' tasks run on the lane where the
/// request arrived (lanes.rs): handing each request to a thread of another runtime and its answer
/// back cost two thread wake-ups per request (on a loaded machine, half of the throughput at one
/// connection: docs/benchmarks.md). Guests yield at every epoch tick and long wasi:nn calls leave
/// the lane (store.rs), so health, 503s and deadlines are still answered while guests compute.
pub(super) async fn handle(instances: &Instancer, req: Request<WasiBody>, busy: Busy) -> Result<Response<ServeBody>> {
    let busy = Arc::new(busy);
    let resp = instances.handle(busy.clone(), req).await.map_err(|e| {
        match busy.instance_failure.get().and_then(|f| f.get()) {
            Some(cause) if e.downcast_ref::<TrapOrPanicError>().is_some() => format_err!("{cause}"),
            _ => e,
        }
    })?;
    Ok(resp.map(|b| {
        HeldUntilEnd {
            inner: b.map_err(|e| -> BoxError { format!("{e:?}").into() }).boxed_unsync(),
            held: Some(busy),
        }
        .boxed_unsync()
    }))
}
