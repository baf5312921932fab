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
use wasmtime_c_api::wasmtime_error_t;

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

/// serve_host.h's types and request_record.h's `wasinn_request_record_t`, as C names them,
/// generated from the headers by build.rs (rust-bindgen, the engine's c_mirrors.rs): the headers
/// are the one definition, and say what each field holds. wit_host.h's types are the engine's,
/// Wasmtime's handles the C API crate's.
mod c {
    #![allow(non_camel_case_types, non_upper_case_globals, non_snake_case, dead_code)]
    use wasinn_engine::host::c::*;
    use wasmtime_c_api::{wasm_engine_t, wasmtime_component_t};
    include!(concat!(env!("OUT_DIR"), "/serve_host.rs"));
}

/// One finished request, for the access log and the request metrics: `wasinn_request_record_t`
/// (include/wasinn/request_record.h). The strings are NUL-terminated, valid during the call.
pub use c::wasinn_request_record_t as ServeRecord;
/// `wasinn_serve_admission`: the C++ side's admission policy (serve/admission.h).
pub use c::wasinn_serve_admission as AdmissionTable;
pub use c::wasinn_serve_config as ServeConfig;
pub use c::wasinn_serve_stats as ServeStats;

/// `wasinn_admission_entry`, as the admission's `enter` returns it (an int); any other value is
/// refused.
pub const ADMISSION_ADMITTED: i32 = c::wasinn_admission_entry::WASINN_ADMISSION_ADMITTED.0 as i32;
pub const ADMISSION_QUEUED: i32 = c::wasinn_admission_entry::WASINN_ADMISSION_QUEUED.0 as i32;

// Its functions may be called from any thread (serve_host.h).
unsafe impl Send for AdmissionTable {}
unsafe impl Sync for AdmissionTable {}

/// serve_host.h's `host_route`: answers a request for one of `host_paths` by calling `answer` once.
pub type HostRouteFn = unsafe extern "C" fn(
    *mut c_void,
    WitStr,
    WitStr,
    WitStr,
    Option<unsafe extern "C" fn(*mut c_void, u32, WitStr)>,
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
