// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! What every request of a server shares (serve_host.h): the config read once at start (its
//! strings copied, its callbacks and admission table kept), the pre-instantiated component, and
//! the counters `wasinn_serve_read_stats` reads.
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;
use std::time::Duration;

use wasmtime::Engine;
use wasmtime_wasi_http::p2::bindings::ProxyPre;
use wasmtime_wasi_http::p3::bindings::ServicePre;

use super::p3_reuse::{Instancer, Reuse};
use super::store::RequestState;
use super::{AdmissionTable, ServeConfig, ServeRecord};
use crate::host::*;

/// The callbacks and user pointer of the C++ side, which promises they may be called from any
/// thread (serve_host.h). Shared by everything that may call back (the server, each request's
/// store, each worker held); the last of them to go releases the user (serve_host.h's `release`),
/// so a guest cut at the drain's end that ends after `wasinn_serve_free` still calls into a user
/// that lives.
pub(super) struct Callbacks {
    pub(super) user: *mut c_void,
    pub(super) guest_new: unsafe extern "C" fn(*mut c_void, WitStr, WitStr) -> Guest,
    pub(super) guest_free: unsafe extern "C" fn(*mut c_void, Guest),
    pub(super) on_request: Option<unsafe extern "C" fn(*mut c_void, *const ServeRecord)>,
    pub(super) admission: AdmissionTable,
    pub(super) authorize: Option<unsafe extern "C" fn(*mut c_void, WitStr) -> bool>,
    pub(super) host_route: Option<super::HostRouteFn>,
    on_warning: Option<unsafe extern "C" fn(*mut c_void, WitStr)>,
    trace: Option<unsafe extern "C" fn(*mut c_void, WitStr)>,
    release: Option<unsafe extern "C" fn(*mut c_void)>,
}
unsafe impl Send for Callbacks {}
unsafe impl Sync for Callbacks {}

impl Callbacks {
    /// Taken first thing at start, so that every way out, an error too, releases the user once.
    pub(super) fn of(cfg: &ServeConfig) -> Arc<Callbacks> {
        Arc::new(Callbacks {
            user: cfg.user,
            guest_new: slot!(cfg, guest_new),
            guest_free: slot!(cfg, guest_free),
            on_request: cfg.on_request,
            admission: cfg.admission,
            authorize: cfg.authorize,
            host_route: cfg.host_route,
            on_warning: cfg.on_warning,
            trace: cfg.trace,
            release: cfg.release,
        })
    }

    /// One crossing of request `id`'s path, for the log at trace level (serve_host.h's `trace`);
    /// nothing is formatted when the log is not at trace.
    pub(super) fn trace(&self, id: &str, what: std::fmt::Arguments<'_>) {
        if let Some(f) = self.trace {
            let line = format!("serve [{id}] {what}");
            unsafe { f(self.user, WitStr::of(&line)) }
        }
    }

    /// A line for the server's log at warning level (serve_host.h's `on_warning`).
    pub(super) fn warn(&self, line: &str) {
        if let Some(f) = self.on_warning {
            unsafe { f(self.user, WitStr::of(line)) }
        }
    }
}

impl Drop for Callbacks {
    fn drop(&mut self) {
        if let Some(release) = self.release {
            unsafe { release(self.user) }
        }
    }
}

/// The config's limits and the guest's environment, with its zeros ("none") made values.
pub(super) struct Settings {
    pub(super) workers: usize,
    pub(super) request_timeout: Option<Duration>,
    pub(super) timeout_ticks: u64,
    pub(super) max_request_bytes: u64,
    pub(super) max_memory_bytes: u64,
    pub(super) hostcall_fuel: usize,
    pub(super) max_resources: usize,
    pub(super) env: Vec<(String, String)>,
    pub(super) dirs: Vec<(String, String)>,
    pub(super) inherit_stdio: bool,
    pub(super) header_timeout: Option<Duration>,
    pub(super) max_connections: u64,
    pub(super) reuse: Reuse,
    pub(super) busy_poll: Duration,
    /// The paths a GET or HEAD reaches without a key (`--public-path`).
    pub(super) public_paths: Vec<String>,
    /// The paths the C++ side answers (`host_route`; host_routes.rs).
    pub(super) host_paths: Vec<String>,
}

impl Settings {
    pub(super) fn of(cfg: &ServeConfig) -> Settings {
        Settings {
            workers: cfg.workers.max(1),
            request_timeout: (cfg.request_timeout_ms > 0).then(|| Duration::from_millis(cfg.request_timeout_ms)),
            timeout_ticks: if cfg.timeout_ticks > 0 {
                cfg.timeout_ticks
            } else {
                u64::MAX / 4
            },
            max_request_bytes: if cfg.max_request_bytes == 0 {
                u64::MAX / 2
            } else {
                cfg.max_request_bytes
            },
            max_memory_bytes: cfg.max_memory_bytes,
            hostcall_fuel: cfg.hostcall_fuel,
            max_resources: cfg.max_resources,
            env: string_pairs(cfg.env, cfg.env_count),
            dirs: string_pairs(cfg.dirs, cfg.dir_count),
            inherit_stdio: cfg.inherit_stdio,
            header_timeout: (cfg.header_timeout_ms > 0).then(|| Duration::from_millis(cfg.header_timeout_ms)),
            max_connections: if cfg.max_connections == 0 {
                u64::MAX
            } else {
                cfg.max_connections
            },
            reuse: Reuse::of(
                cfg.max_instance_reuse_count,
                cfg.max_instance_concurrent_reuse_count,
                cfg.idle_instance_timeout_ms,
            ),
            busy_poll: Duration::from_micros(cfg.busy_poll_us),
            public_paths: strings(cfg.public_paths, cfg.public_path_count),
            host_paths: strings(cfg.host_paths, cfg.host_path_count),
        }
    }

    /// Whether a request of `method` for `path` (without its query) is let through without a key:
    /// a GET or HEAD of exactly a `--public-path`.
    pub(super) fn is_public(&self, method: &hyper::Method, path: &str) -> bool {
        (method == hyper::Method::GET || method == hyper::Method::HEAD) && self.public_paths.iter().any(|p| p == path)
    }
}

fn strings(ptr: *const WitStr, count: usize) -> Vec<String> {
    if ptr.is_null() || count == 0 {
        return Vec::new();
    }
    let all = unsafe { std::slice::from_raw_parts(ptr, count) };
    all.iter().map(|s| unsafe { s.to_string_lossy() }).collect()
}

fn string_pairs(ptr: *const WitStr, pairs: usize) -> Vec<(String, String)> {
    if ptr.is_null() || pairs == 0 {
        return Vec::new();
    }
    let all = unsafe { std::slice::from_raw_parts(ptr, pairs * 2) };
    all.chunks(2)
        .map(|p| unsafe { (p[0].to_string_lossy(), p[1].to_string_lossy()) })
        .collect()
}

/// The component, pre-instantiated: a wasi:http@0.2 proxy or a wasi:http@0.3 service.
#[derive(Clone)]
pub(super) enum GuestPre {
    P2(ProxyPre<RequestState>),
    P3(ServicePre<RequestState>),
}

impl Shared {
    /// The reused instances of the lane this thread is, if any: a request's instance runs on
    /// its connection's thread.
    pub(super) fn lane_instances(&self) -> Option<&Instancer> {
        self.p3_instances.get(super::lanes::current()?)
    }
}

/// What every request shares: the pre-instantiated component and the counters.
pub(super) struct Shared {
    pub(super) engine: Engine,
    pub(super) pre: GuestPre,
    /// A 0.3 component's reused instances, a set per lane (lanes.rs; empty: 0.2, or one instance
    /// per request asked).
    pub(super) p3_instances: Vec<Instancer>,
    pub(super) settings: Settings,
    pub(super) callbacks: Arc<Callbacks>,
    pub(super) guest_rt: tokio::runtime::Handle,
    pub(super) draining: AtomicBool,
    /// The drain's grace is over: what is still in flight is cut by the server, not its client.
    pub(super) cutting: AtomicBool,
    pub(super) in_flight: AtomicU64,
    pub(super) running: AtomicU64,
    pub(super) idle: tokio::sync::Notify,
    /// Connections open, and those closed at once past `max_connections`.
    pub(super) connections: AtomicU64,
    pub(super) connections_refused: AtomicU64,
    /// The server's request ids: a per-process random prefix and a count.
    pub(super) id_prefix: u64,
    pub(super) requests: AtomicU64,
    /// HTTPS: the handshake every connection makes first (None: plain HTTP).
    pub(super) tls: Option<tokio_rustls::TlsAcceptor>,
    /// The Host an HTTP/1.0 request without one is given (the address listened on): the
    /// guest's wasi:http request needs an authority.
    pub(super) host_for_http10: Option<hyper::header::HeaderValue>,
}
