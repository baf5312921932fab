// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! `wasinn serve`: a `wasi:http/proxy` component behind an HTTP/1.1 server, a fresh instance per
//! request from one pre-instantiated component (as `wasmtime serve`). Requests are admitted to a
//! fixed number of guest workers by the C++ side's admission policy (a bounded queue, the OIP
//! server's too); the HTTP side (accepting, reading
//! bodies, answering 413/503/504, health) runs on runtime threads of its own, so a busy guest
//! never stops the server from answering. wasi:nn is the C++ side's (the `WitHost` table); so
//! is each request's guest state, made and freed through the config's callbacks.
//!
//! This file is the C contract, `src/serve/http/serve_host.h`: its types and entry points. The rest:
//! `server` (listening, stopping, draining), `connection` (one client connection), `lanes` (the
//! threads a reused 0.3 instance's connections run on), `shared`
//! (what every request shares), `request` (one request's steps), `body` (its body, read under
//! the limit), `admission` (a worker, asked of the policy), `store` (its store), `answer` (what the
//! client gets, and the record of it), `tls` (HTTPS), `host_routes` (paths the C++ side answers).
use std::ffi::c_void;
use std::time::Duration;

use wasmtime::format_err;
use wasmtime_c_api::{wasm_engine_t, wasmtime_component_t, wasmtime_error_t};

// The engine crate's parts the server builds on, by the names it had inside that crate.
use wasinn_engine::handles::{component_of, engine_of};
use wasinn_engine::{host, long_call, spin_llm, wit_nn};

use crate::host::*;

mod admission;
mod answer;
mod body;
mod busy_poll;
mod call_times;
mod connection;
mod first_frames;
mod host_routes;
mod lanes;
mod p3_guest;
mod p3_reuse;
mod request;
mod server;
mod shared;
mod store;
mod tls;

pub use server::Server;

/// One finished request, for the access log and the request metrics: `wasinn_request_record_t`
/// (include/wasinn/request_record.h, the one definition, which says what each field holds). Its
/// layout is checked against `src/wasmtime_library/abi_layouts.def` in the build (its build.rs). The strings
/// are NUL-terminated, valid during the call.
#[repr(C)]
pub struct ServeRecord {
    pub struct_size: u32,
    pub status: i32,
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub micros: u64,
    pub method: *const std::ffi::c_char,
    pub path: *const std::ffi::c_char,
    pub note: *const std::ffi::c_char,
    pub client: *const std::ffi::c_char,
    pub request_id: *const std::ffi::c_char,
    pub user_agent: *const std::ffi::c_char,
    pub outcome: *const std::ffi::c_char,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct ServeStats {
    pub in_flight: u64,
    pub running: u64,
    pub connections: u64,
    pub connections_refused: u64,
}

/// `wasinn_admission_entry`.
pub const ADMISSION_ADMITTED: i32 = 0;
pub const ADMISSION_QUEUED: i32 = 1;

/// `wasinn_serve_admission`: the C++ side's admission policy (serve/admission.h).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct AdmissionTable {
    pub policy: *mut c_void,
    pub enter: unsafe extern "C" fn(*mut c_void, unsafe extern "C" fn(*mut c_void, bool), *mut c_void, *mut u64) -> i32,
    pub withdraw: unsafe extern "C" fn(*mut c_void, u64) -> bool,
    pub leave: unsafe extern "C" fn(*mut c_void),
    pub close: unsafe extern "C" fn(*mut c_void),
    pub resize: unsafe extern "C" fn(*mut c_void, usize),
}
// Its functions may be called from any thread (serve_host.h).
unsafe impl Send for AdmissionTable {}
unsafe impl Sync for AdmissionTable {}

#[repr(C)]
pub struct ServeConfig {
    pub engine: *const wasm_engine_t,
    pub component: *const wasmtime_component_t,
    pub nn: *const WitHost,
    pub addr: WitStr,
    pub workers: usize,
    pub admission: AdmissionTable,
    pub request_timeout_ms: u64,
    pub max_request_bytes: u64,
    pub max_memory_bytes: u64,
    pub hostcall_fuel: usize,
    /// The most entries a store's WASI table holds at once (Wasmtime's `-S max-resources`); 0: no bound.
    pub max_resources: usize,
    pub timeout_ticks: u64,
    /// NAME, VALUE pairs: 2 x env_count strings.
    pub env: *const WitStr,
    pub env_count: usize,
    /// HOST_DIR, GUEST_DIR pairs: 2 x dir_count strings.
    pub dirs: *const WitStr,
    pub dir_count: usize,
    pub inherit_stdio: bool,
    pub user: *mut c_void,
    pub guest_new: unsafe extern "C" fn(*mut c_void, WitStr, WitStr) -> Guest,
    pub guest_free: unsafe extern "C" fn(*mut c_void, Guest),
    pub on_request: Option<unsafe extern "C" fn(*mut c_void, *const ServeRecord)>,
    pub release: Option<unsafe extern "C" fn(*mut c_void)>,
    /// Whether an Authorization header's value ("" when absent) holds a key; None: no key needed.
    pub authorize: Option<unsafe extern "C" fn(*mut c_void, WitStr) -> bool>,
    /// A connection's request headers must have arrived within this; 0: no limit.
    pub header_timeout_ms: u64,
    /// Connections open at once; past it a new one is closed at once. 0: no limit.
    pub max_connections: u64,
    /// PEM files: the certificate chain and its private key (both empty: plain HTTP), and the
    /// CAs whose client certificates are required (empty: none asked).
    pub tls_cert: WitStr,
    pub tls_key: WitStr,
    pub tls_client_ca: WitStr,
    /// A 0.3 component's instance reuse: requests per instance in all (0: 128; 1: one each) and
    /// at once (0: 16), and how long an idle instance is kept (0: 1000 ms).
    pub max_instance_reuse_count: usize,
    pub max_instance_concurrent_reuse_count: usize,
    pub idle_instance_timeout_ms: u64,
    /// How long a lane (a reused 0.3 instance's thread) polls its sockets after its last work
    /// before it sleeps, the most (busy_poll.rs); 0: it sleeps at once.
    pub busy_poll_us: u64,
    /// A line for the server's log at warning level (a failure no request's record carries).
    pub on_warning: Option<unsafe extern "C" fn(*mut c_void, WitStr)>,
    /// Paths a GET or HEAD request reaches without a key (exact matches of the path, its query
    /// aside): public_path_count strings.
    pub public_paths: *const WitStr,
    pub public_path_count: usize,
    /// Paths the host answers itself, after the key check, through `host_route` (host_routes.rs):
    /// host_path_count strings; NULL, 0: none.
    pub host_paths: *const WitStr,
    pub host_path_count: usize,
    pub host_route: Option<HostRouteFn>,
    /// None: no trace. Else a line per crossing of a request's path, for the log at trace level.
    pub trace: Option<unsafe extern "C" fn(*mut c_void, WitStr)>,
}

/// serve_host.h's `host_route`: answers a request for one of `host_paths` by calling `answer` once.
pub type HostRouteFn = unsafe extern "C" fn(
    *mut c_void,
    WitStr,
    WitStr,
    WitStr,
    unsafe extern "C" fn(*mut c_void, u32, WitStr),
    *mut c_void,
);

/// Starts serving: binds the address and returns once it listens (serve_host.h).
///
/// # Safety
/// `cfg` is valid for the call; its engine, component and table outlive the server; its user and
/// admission policy are the server's from now on, released through `release` (serve_host.h).
#[no_mangle]
pub unsafe extern "C" fn wasinn_serve_start(
    cfg: *const ServeConfig,
    out: *mut *mut Server,
) -> Option<Box<wasmtime_error_t>> {
    if cfg.is_null() || out.is_null() {
        return Some(Box::new(wasmtime_error_t::from(format_err!(
            "wasinn_serve_start: null argument"
        ))));
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
    WitStr::of((*server).address())
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
    *out = (*server).stats();
}

#[no_mangle]
pub unsafe extern "C" fn wasinn_serve_free(server: *mut Server) {
    if !server.is_null() {
        drop(Box::from_raw(server));
    }
}
