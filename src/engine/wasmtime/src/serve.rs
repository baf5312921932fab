// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! `wasinn serve`: a `wasi:http/proxy` component behind an HTTP/1.1 server, a fresh instance per
//! request from one pre-instantiated component (as `wasmtime serve`). Requests are admitted to a
//! fixed number of guest workers through a bounded queue; the HTTP side (accepting, reading
//! bodies, answering 413/503/504, health) runs on runtime threads of its own, so a busy guest
//! never stops the server from answering. wasi:nn is the C++ side's (the `WitHost` table); so
//! is each request's guest state, made and freed through the config's callbacks. The C contract
//! is in `src/engine/serve_host.h`.
use std::convert::Infallible;
use std::ffi::c_void;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{combinators::UnsyncBoxBody, BodyExt, Full};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::header::{HeaderValue, CONTENT_LENGTH, CONTENT_TYPE, RETRY_AFTER};
use hyper::{Request, Response, StatusCode};
use tokio::sync::{oneshot, watch, Semaphore};
use wasmtime::component::{Component, Linker, ResourceTable};
use wasmtime::{format_err, AsContextMut, Engine, Result, StoreContext};
use wasmtime_c_api::{wasm_engine_t, wasmtime_component_t, wasmtime_error_t};
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};
use wasmtime_wasi_http::io::TokioIo;
use wasmtime_wasi_http::p2::bindings::http::types::Scheme;
use wasmtime_wasi_http::p2::bindings::ProxyPre;
use wasmtime_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};

use crate::host::*;
use crate::wit_nn::{self, NnStore};

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type ServeBody = UnsyncBoxBody<Bytes, BoxError>;

/// One finished request, for the access log and the request metrics (serve_host.h).
#[repr(C)]
pub struct ServeRecord {
    pub method: WitStr,
    pub path: WitStr,
    pub status: u16,
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub micros: u64,
    /// Why the host answered for the guest (a trap, a timeout, a full queue), else empty.
    pub note: WitStr,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct ServeStats {
    pub in_flight: u64,
    pub running: u64,
    pub queued: u64,
    pub rejected: u64,
}

#[repr(C)]
pub struct ServeConfig {
    pub engine: *const wasm_engine_t,
    pub component: *const wasmtime_component_t,
    pub nn: *const WitHost,
    pub addr: WitStr,
    pub workers: usize,
    pub max_queue: usize,
    pub request_timeout_ms: u64,
    pub max_request_bytes: u64,
    pub max_memory_bytes: u64,
    pub hostcall_fuel: usize,
    pub timeout_ticks: u64,
    /// NAME, VALUE pairs: 2 x env_count strings.
    pub env: *const WitStr,
    pub env_count: usize,
    /// HOST_DIR, GUEST_DIR pairs: 2 x dir_count strings.
    pub dirs: *const WitStr,
    pub dir_count: usize,
    pub inherit_stdio: bool,
    pub user: *mut c_void,
    pub guest_new: unsafe extern "C" fn(*mut c_void) -> Guest,
    pub guest_free: unsafe extern "C" fn(*mut c_void, Guest),
    pub on_request: Option<unsafe extern "C" fn(*mut c_void, *const ServeRecord)>,
}

// `wasm_engine_t` is `#[repr(C)]` with the Engine its only field, `wasmtime_component_t`
// `#[repr(transparent)]` over the Component (48.0.8; fields private to the C API's crate).
const _: () = assert!(std::mem::size_of::<wasm_engine_t>() == std::mem::size_of::<Engine>());
const _: () = assert!(std::mem::size_of::<wasmtime_component_t>() == std::mem::size_of::<Component>());

/// The Engine and Component behind the C API's handles (the layouts checked above); the server
/// and the pipelines (pipeline.rs) keep clones.
pub(crate) fn engine_of(p: *const wasm_engine_t) -> Engine {
    unsafe { (*(p as *const Engine)).clone() }
}

pub(crate) fn component_of(p: *const wasmtime_component_t) -> Component {
    unsafe { (*(p as *const Component)).clone() }
}

/// The callbacks and user pointer of the C++ side, which promises they may be called from any
/// thread (serve_host.h).
#[derive(Clone, Copy)]
struct Callbacks {
    user: *mut c_void,
    guest_new: unsafe extern "C" fn(*mut c_void) -> Guest,
    guest_free: unsafe extern "C" fn(*mut c_void, Guest),
    on_request: Option<unsafe extern "C" fn(*mut c_void, *const ServeRecord)>,
}
unsafe impl Send for Callbacks {}
unsafe impl Sync for Callbacks {}

/// A request's store data: WASI 0.2, wasi:http, and the C++ guest state wasi:nn calls use.
pub struct RequestState {
    wasi: WasiCtx,
    http: WasiHttpCtx,
    table: ResourceTable,
    limits: wasmtime::StoreLimits,
    guest: Guest,
    callbacks: Callbacks,
}
// The guest state is used by the store's thread only, one call at a time (wit_host.h).
unsafe impl Send for RequestState {}

impl Drop for RequestState {
    fn drop(&mut self) {
        unsafe { (self.callbacks.guest_free)(self.callbacks.user, self.guest) };
    }
}

impl WasiView for RequestState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
    }
}

impl WasiHttpView for RequestState {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        WasiHttpCtxView { ctx: &mut self.http, table: &mut self.table, hooks: wasmtime_wasi_http::default_hooks() }
    }
}

impl NnStore for RequestState {
    fn nn_guest(cx: StoreContext<'_, Self>) -> Guest {
        cx.data().guest
    }
}

struct Settings {
    workers: usize,
    max_queue: u64,
    request_timeout: Option<Duration>,
    timeout_ticks: u64,
    max_request_bytes: u64,
    max_memory_bytes: u64,
    hostcall_fuel: usize,
    env: Vec<(String, String)>,
    dirs: Vec<(String, String)>,
    inherit_stdio: bool,
}

/// What every request shares: the pre-instantiated component and the counters.
struct Shared {
    engine: Engine,
    pre: ProxyPre<RequestState>,
    settings: Settings,
    callbacks: Callbacks,
    guests: Arc<Semaphore>,
    guest_rt: tokio::runtime::Handle,
    draining: AtomicBool,
    /// The drain's grace is over: what is still in flight is cut by the server, not its client.
    cutting: AtomicBool,
    in_flight: AtomicU64,
    running: AtomicU64,
    queued: AtomicU64,
    rejected: AtomicU64,
    idle: tokio::sync::Notify,
}

pub struct Server {
    shared: Arc<Shared>,
    address: String,
    stop: watch::Sender<bool>,
    accept: Option<tokio::task::JoinHandle<()>>,
    io_rt: Option<tokio::runtime::Runtime>,
    guest_rt: Option<tokio::runtime::Runtime>,
}

/// Counts a request from its arrival until its answer's body is sent (or dropped), then logs it.
struct Tracked {
    shared: Arc<Shared>,
    method: String,
    path: String,
    start: Instant,
    bytes_in: u64,
    bytes_out: u64,
    status: u16,
    note: String,
}

impl Tracked {
    fn new(shared: &Arc<Shared>, req: &Request<Incoming>) -> Tracked {
        shared.in_flight.fetch_add(1, Relaxed);
        Tracked {
            shared: shared.clone(),
            method: req.method().to_string(),
            path: req.uri().path_and_query().map_or_else(|| req.uri().path().to_string(), |p| p.to_string()),
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
struct CountedBody {
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

fn full(bytes: impl Into<Bytes>) -> ServeBody {
    Full::new(bytes.into()).map_err(|never: Infallible| match never {}).boxed_unsync()
}

/// An answer the host gives itself (health, 413, 503, 504, 500).
fn host_answer(mut tracked: Tracked, status: StatusCode, text: &str, note: String) -> Response<CountedBody> {
    tracked.status = status.as_u16();
    tracked.note = note;
    let mut resp = Response::new(CountedBody { inner: full(format!("{text}\n")), tracked: Some(tracked) });
    *resp.status_mut() = status;
    resp.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    if status == StatusCode::SERVICE_UNAVAILABLE {
        resp.headers_mut().insert(RETRY_AFTER, HeaderValue::from_static("1"));
    }
    resp
}

/// Why a guest failed, in one line: a trap with the function it happened in, else the error's
/// first line.
pub(crate) fn one_line(e: &wasmtime::Error) -> String {
    let Some(trap) = e.downcast_ref::<wasmtime::Trap>() else {
        return format!("{e}").lines().next().unwrap_or("").to_string();
    };
    let place = e
        .downcast_ref::<wasmtime::WasmBacktrace>()
        .and_then(|bt| bt.frames().first().map(|f| f.func_name().map_or_else(|| format!("function {}", f.func_index()), str::to_string)));
    match place {
        Some(f) => format!("the guest trapped in {f}: {trap}"),
        None => format!("the guest trapped: {trap}"),
    }
}

impl Shared {
    fn new_store(&self) -> Result<wasmtime::Store<RequestState>> {
        let s = &self.settings;
        let mut wasi = WasiCtxBuilder::new();
        if s.inherit_stdio {
            wasi.inherit_stdout().inherit_stderr();
        }
        for (k, v) in &s.env {
            wasi.env(k, v);
        }
        for (host, guest) in &s.dirs {
            wasi.preopened_dir(host, guest, wasmtime_wasi::FsPerms::ReadWrite)?;
        }
        let guest = unsafe { (self.callbacks.guest_new)(self.callbacks.user) };
        if guest.is_null() {
            return Err(format_err!("the host could not make this request's wasi-nn state"));
        }
        let mut limits = wasmtime::StoreLimitsBuilder::new();
        if s.max_memory_bytes > 0 {
            limits = limits.memory_size(s.max_memory_bytes as usize);
        }
        let state = RequestState {
            wasi: wasi.build(),
            http: WasiHttpCtx::new(),
            table: ResourceTable::new(),
            limits: limits.build(),
            guest,
            callbacks: self.callbacks,
        };
        let mut store = wasmtime::Store::new(&self.engine, state);
        store.limiter(|s| &mut s.limits);
        store.set_epoch_deadline(s.timeout_ticks);
        store.epoch_deadline_trap();
        store.as_context_mut().set_hostcall_fuel(s.hostcall_fuel);
        Ok(store)
    }

    async fn handle(self: Arc<Shared>, req: Request<Incoming>) -> std::result::Result<Response<CountedBody>, Infallible> {
        let mut tracked = Tracked::new(&self, &req);
        let path = req.uri().path();
        if path == "/healthz" {
            return Ok(host_answer(tracked, StatusCode::OK, "ok", String::new()));
        }
        if path == "/readyz" {
            return Ok(if self.draining.load(Relaxed) {
                host_answer(tracked, StatusCode::SERVICE_UNAVAILABLE, "draining", String::new())
            } else {
                host_answer(tracked, StatusCode::OK, "ready", String::new())
            });
        }
        let max = self.settings.max_request_bytes;
        let declared = req.headers().get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
        let too_large = |tracked| {
            host_answer(
                tracked,
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!("the request body is larger than this server takes ({max} bytes, --max-request-bytes)"),
                String::new(),
            )
        };
        // A body over the limit is read on and thrown away, up to kDrain more bytes, before the
        // 413: a client still sending then reads the answer instead of a reset connection.
        const DRAIN: u64 = 8 << 20;
        if declared.is_some_and(|n| n > max.saturating_add(DRAIN)) {
            tracked.bytes_in = declared.unwrap_or(0);
            return Ok(too_large(tracked));
        }
        // The body is read whole before the guest runs, so a slow client never holds a worker.
        let (parts, mut body) = req.into_parts();
        let mut kept = Vec::new();
        let mut seen: u64 = 0;
        while let Some(frame) = body.frame().await {
            let frame = match frame {
                Ok(f) => f,
                Err(e) => {
                    tracked.bytes_in = seen;
                    return Ok(host_answer(tracked, StatusCode::BAD_REQUEST, "the request body could not be read", e.to_string()));
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
            return Ok(too_large(tracked));
        }
        let body = Bytes::from(kept);
        tracked.bytes_in = body.len() as u64;

        let permit = match self.guests.clone().try_acquire_owned() {
            Ok(p) => p,
            Err(_) => {
                if self.queued.fetch_add(1, Relaxed) >= self.settings.max_queue {
                    self.queued.fetch_sub(1, Relaxed);
                    self.rejected.fetch_add(1, Relaxed);
                    return Ok(host_answer(
                        tracked,
                        StatusCode::SERVICE_UNAVAILABLE,
                        "every worker is busy and the queue is full; retry later",
                        "queue full".into(),
                    ));
                }
                // Counted out however the wait ends: a client that leaves drops this future.
                struct Waiting<'a>(&'a AtomicU64);
                impl Drop for Waiting<'_> {
                    fn drop(&mut self) {
                        self.0.fetch_sub(1, Relaxed);
                    }
                }
                let waiting = Waiting(&self.queued);
                let p = self.guests.clone().acquire_owned().await;
                drop(waiting);
                match p {
                    Ok(p) => p,
                    Err(_) => return Ok(host_answer(tracked, StatusCode::SERVICE_UNAVAILABLE, "shutting down", String::new())),
                }
            }
        };

        let (tx, rx) = oneshot::channel();
        let started = (|| -> Result<_> {
            let mut store = self.new_store()?;
            let req = store.data_mut().http().new_incoming_request(Scheme::Http, Request::from_parts(parts, Full::new(body)))?;
            let out = store.data_mut().http().new_response_outparam(tx)?;
            Ok((store, req, out))
        })();
        let (mut store, req, out) = match started {
            Ok(s) => s,
            Err(e) => {
                return Ok(host_answer(tracked, StatusCode::INTERNAL_SERVER_ERROR, "the request could not start", one_line(&e)))
            }
        };
        let pre = self.pre.clone();
        let shared = self.clone();
        shared.running.fetch_add(1, Relaxed);
        let task = self.guest_rt.spawn(async move {
            let result = async {
                let proxy = pre.instantiate_async(&mut store).await?;
                proxy.wasi_http_incoming_handler().call_handle(&mut store, req, out).await
            }
            .await;
            drop(store); // the guest's state goes before its worker is given back
            shared.running.fetch_sub(1, Relaxed);
            drop(permit);
            result
        });

        let answered = match self.settings.request_timeout {
            Some(limit) => tokio::time::timeout(limit, rx).await.map_err(|_| limit),
            None => Ok(rx.await),
        };
        match answered {
            Ok(Ok(Ok(resp))) => {
                tracked.status = resp.status().as_u16();
                let (parts, body) = resp.into_parts();
                let body = body.map_err(|e| -> BoxError { Box::new(e) }).boxed_unsync();
                Ok(Response::from_parts(parts, CountedBody { inner: body, tracked: Some(tracked) }))
            }
            Ok(Ok(Err(code))) => Ok(host_answer(
                tracked,
                StatusCode::INTERNAL_SERVER_ERROR,
                "the guest failed this request",
                format!("the guest answered the error {code:?}"),
            )),
            Ok(Err(_)) => {
                // The guest ended without answering: a trap, or it returned without setting.
                let why = match task.await {
                    Ok(Err(e)) => one_line(&e),
                    Ok(Ok(())) => "the guest returned without setting a response".to_string(),
                    Err(e) => format!("the guest's task failed: {e}"),
                };
                Ok(host_answer(tracked, StatusCode::INTERNAL_SERVER_ERROR, "the guest failed this request", why))
            }
            Err(limit) => Ok(host_answer(
                tracked,
                StatusCode::GATEWAY_TIMEOUT,
                "the guest did not answer in time",
                format!("no answer within the request timeout ({} ms); the guest is stopped", limit.as_millis()),
            )),
        }
    }
}

fn strings(ptr: *const WitStr, pairs: usize) -> Vec<(String, String)> {
    if ptr.is_null() || pairs == 0 {
        return Vec::new();
    }
    let all = unsafe { std::slice::from_raw_parts(ptr, pairs * 2) };
    all.chunks(2).map(|p| unsafe { (p[0].to_string_lossy(), p[1].to_string_lossy()) }).collect()
}

fn resolve(addr: &str) -> Result<SocketAddr> {
    addr.to_socket_addrs()
        .map_err(|e| format_err!("listening address {addr}: {e} (expected HOST:PORT, e.g. 0.0.0.0:8080)"))?
        .next()
        .ok_or_else(|| format_err!("listening address {addr}: the name resolves to no address"))
}

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
async fn serve_connection(shared: Arc<Shared>, stream: tokio::net::TcpStream, mut stop: watch::Receiver<bool>) {
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
            hyper::server::conn::http1::Builder::new().keep_alive(true).serve_connection(TokioIo::new(stream), service),
            stop
        );
    }
}

impl Server {
    fn start(cfg: &ServeConfig) -> Result<Server> {
        if cfg.engine.is_null() || cfg.component.is_null() || cfg.nn.is_null() {
            return Err(format_err!("wasinn_serve_start: null engine, component or wasi:nn table"));
        }
        let engine = engine_of(cfg.engine);
        let component = component_of(cfg.component);
        let mut linker: Linker<RequestState> = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_async(&mut linker)?;
        wasmtime_wasi_http::p2::add_only_http_to_linker_async(&mut linker)?;
        wit_nn::define(&mut linker, unsafe { *cfg.nn })?;
        let pre = ProxyPre::new(linker.instantiate_pre(&component)?)?;
        let workers = cfg.workers.max(1);
        let settings = Settings {
            workers,
            max_queue: cfg.max_queue as u64,
            request_timeout: (cfg.request_timeout_ms > 0).then(|| Duration::from_millis(cfg.request_timeout_ms)),
            timeout_ticks: if cfg.timeout_ticks > 0 { cfg.timeout_ticks } else { u64::MAX / 4 },
            max_request_bytes: if cfg.max_request_bytes == 0 { u64::MAX / 2 } else { cfg.max_request_bytes },
            max_memory_bytes: cfg.max_memory_bytes,
            hostcall_fuel: cfg.hostcall_fuel,
            env: strings(cfg.env, cfg.env_count),
            dirs: strings(cfg.dirs, cfg.dir_count),
            inherit_stdio: cfg.inherit_stdio,
        };
        for (host, _) in &settings.dirs {
            if !std::path::Path::new(host).is_dir() {
                return Err(format_err!("preopened directory {host}: no such directory"));
            }
        }
        let addr_text = unsafe { cfg.addr.to_string_lossy() };
        let addr = resolve(&addr_text)?;
        let listener = std::net::TcpListener::bind(addr)
            .map_err(|e| format_err!("listening address {addr_text}: cannot listen there: {e}"))?;
        listener.set_nonblocking(true)?;
        let address = listener.local_addr()?.to_string();

        let guest_rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(settings.workers)
            .thread_name("wasinn-guest")
            .enable_all()
            .build()?;
        let io_rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("wasinn-http")
            .enable_all()
            .build()?;
        let shared = Arc::new(Shared {
            engine,
            pre,
            callbacks: Callbacks {
                user: cfg.user,
                guest_new: cfg.guest_new,
                guest_free: cfg.guest_free,
                on_request: cfg.on_request,
            },
            guests: Arc::new(Semaphore::new(settings.workers)),
            settings,
            guest_rt: guest_rt.handle().clone(),
            draining: AtomicBool::new(false),
            cutting: AtomicBool::new(false),
            in_flight: AtomicU64::new(0),
            running: AtomicU64::new(0),
            queued: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
            idle: tokio::sync::Notify::new(),
        });
        let (stop, stop_rx) = watch::channel(false);
        let accept = {
            let shared = shared.clone();
            let _guard = io_rt.enter();
            let listener = tokio::net::TcpListener::from_std(listener)?;
            io_rt.spawn(async move {
                let mut stop_accepting = stop_rx.clone();
                loop {
                    tokio::select! {
                        accepted = listener.accept() => match accepted {
                            Ok((stream, _)) => {
                                tokio::spawn(serve_connection(shared.clone(), stream, stop_rx.clone()));
                            }
                            // Out of descriptors, say: wait a little instead of spinning.
                            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                        },
                        _ = async { let _ = stop_accepting.wait_for(|s| *s).await; } => break,
                    }
                }
            })
        };
        Ok(Server {
            shared,
            address,
            stop,
            accept: Some(accept),
            io_rt: Some(io_rt),
            guest_rt: Some(guest_rt),
        })
    }

    /// Stops accepting; requests in flight go on (wait decides how long).
    fn stop(&self) {
        self.shared.draining.store(true, Relaxed);
        let _ = self.stop.send(true);
    }

    /// After stop: waits for the requests in flight, at most `grace`. Returns how many were cut.
    fn wait(&mut self, grace: Duration) -> u64 {
        let shared = self.shared.clone();
        let accept = self.accept.take();
        let Some(io_rt) = self.io_rt.as_ref() else { return 0 };
        io_rt.block_on(async {
            if let Some(a) = accept {
                let _ = a.await;
            }
            let drained = async {
                loop {
                    let idle = shared.idle.notified();
                    if shared.in_flight.load(Relaxed) == 0 {
                        break;
                    }
                    idle.await;
                }
            };
            let _ = tokio::time::timeout(grace, drained).await;
        });
        let cut = self.shared.in_flight.load(Relaxed);
        self.shared.cutting.store(true, Relaxed);
        self.shared.guests.close();
        if let Some(rt) = self.io_rt.take() {
            rt.shutdown_timeout(Duration::from_millis(100));
        }
        if let Some(rt) = self.guest_rt.take() {
            if cut == 0 {
                // Drained: no guest runs, so its threads end at once and free what they hold.
                rt.shutdown_timeout(Duration::from_secs(5));
            } else {
                // Guests still running were cut: nothing waits for them (the CLI then exits).
                rt.shutdown_background();
            }
        }
        cut
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.io_rt.is_some() {
            self.stop();
            self.wait(Duration::ZERO);
        }
    }
}

/// Starts serving: binds the address and returns once it listens (serve_host.h).
///
/// # Safety
/// `cfg` is valid for the call; its engine, component, table and callbacks outlive the server.
#[no_mangle]
pub unsafe extern "C" fn wasinn_serve_start(cfg: *const ServeConfig, out: *mut *mut Server) -> Option<Box<wasmtime_error_t>> {
    if cfg.is_null() || out.is_null() {
        return Some(Box::new(wasmtime_error_t::from(format_err!("wasinn_serve_start: null argument"))));
    }
    match Server::start(&*cfg) {
        Ok(s) => {
            *out = Box::into_raw(Box::new(s));
            None
        }
        Err(e) => Some(Box::new(wasmtime_error_t::from(e))),
    }
}

/// The address it listens on, HOST:PORT (the port chosen when 0 was asked); valid while `server` lives.
#[no_mangle]
pub unsafe extern "C" fn wasinn_serve_address(server: *const Server) -> WitStr {
    WitStr::of(&(*server).address)
}

#[no_mangle]
pub unsafe extern "C" fn wasinn_serve_stop(server: *const Server) {
    (*server).stop();
}

#[no_mangle]
pub unsafe extern "C" fn wasinn_serve_wait(server: *mut Server, grace_ms: u64) -> u64 {
    (*server).wait(Duration::from_millis(grace_ms))
}

#[no_mangle]
pub unsafe extern "C" fn wasinn_serve_read_stats(server: *const Server, out: *mut ServeStats) {
    let s = &(*server).shared;
    *out = ServeStats {
        in_flight: s.in_flight.load(Relaxed),
        running: s.running.load(Relaxed),
        queued: s.queued.load(Relaxed),
        rejected: s.rejected.load(Relaxed),
    };
}

#[no_mangle]
pub unsafe extern "C" fn wasinn_serve_free(server: *mut Server) {
    if !server.is_null() {
        drop(Box::from_raw(server));
    }
}
