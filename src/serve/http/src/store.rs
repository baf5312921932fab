// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! A request's store (serve_host.h's `guest_new` and `guest_free`, its limits and WASI): WASI
//! 0.2, wasi:http, and the C++ guest state wasi:nn calls use, made fresh for every request and
//! freed with it.
use std::cell::RefCell;
use std::sync::Arc;
use std::time::Duration;

use wasmtime::component::ResourceTable;
use wasmtime::{format_err, AsContextMut, Result, StoreContext};
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};
use wasmtime_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};

use super::call_times::CallTimes;
use super::shared::{Callbacks, Shared};
use crate::host::*;
use crate::wit_nn::NnStore;

/// A request's store data: WASI 0.2, wasi:http, and the C++ guest state wasi:nn calls use.
pub struct RequestState {
    wasi: WasiCtx,
    http: WasiHttpCtx,
    table: ResourceTable,
    limits: wasmtime::StoreLimits,
    guest: Guest,
    callbacks: Arc<Callbacks>,
    /// Set for a reused 0.3 instance (on a lane): how long its wasi:nn calls that may block (load,
    /// compute, a generation step) took, by function.
    call_times: Option<RefCell<CallTimes>>,
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
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl WasiHttpView for RequestState {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        WasiHttpCtxView {
            ctx: &mut self.http,
            table: &mut self.table,
            hooks: wasmtime_wasi_http::default_hooks(),
        }
    }
}

impl NnStore for RequestState {
    fn nn_guest(cx: StoreContext<'_, Self>) -> Guest {
        cx.data().guest
    }

    /// A long call (a load, a compute) of a reused 0.3 instance leaves its lane (lanes.rs) for
    /// tokio's blocking pool (the engine's long_call.rs), so the lane's other connections go on.
    /// A function whose recent calls on this instance were short runs in place (call_times.rs).
    /// An instance per request runs on a guest thread of its own, where blocking is the design.
    fn long_call_inline(&self, function: &'static str) -> bool {
        self.call_times.as_ref().is_some_and(|t| t.borrow().in_place(function))
    }

    fn long_call_took(&self, function: &'static str, took: Duration, in_place: bool) {
        if let Some(times) = &self.call_times {
            times.borrow_mut().took(function, took, in_place);
        }
    }
}

impl RequestState {
    /// For a reused instance's store: its long wasi:nn calls may leave the lane to others.
    pub(super) fn hand_off_long_calls(&mut self) {
        self.call_times = Some(RefCell::new(CallTimes::default()));
    }
}

impl Shared {
    /// A fresh store for one request, under the config's limits: memory, epoch deadline, hostcall fuel.
    /// `presented_key`: the API key the request showed ("Bearer KEY"), empty for none or for a
    /// reused instance's store, which serves requests of any key.
    pub(super) fn new_store(&self, presented_key: &[u8], request_id: &str) -> Result<wasmtime::Store<RequestState>> {
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
        let key = WitStr {
            data: presented_key.as_ptr().cast(),
            len: presented_key.len(),
        };
        let guest = unsafe { (self.callbacks.guest_new)(self.callbacks.user, key, WitStr::of(request_id)) };
        if guest.is_null() {
            return Err(format_err!("the host could not make this request's wasi-nn state"));
        }
        let mut limits = wasmtime::StoreLimitsBuilder::new();
        if s.max_memory_bytes > 0 {
            limits = limits.memory_size(s.max_memory_bytes as usize);
        }
        // As `wasmtime serve -S max-resources`: the store's WASI table (0.3's task table unbounded).
        let mut table = ResourceTable::new();
        if s.max_resources > 0 {
            table.set_max_capacity(s.max_resources);
        }
        let state = RequestState {
            wasi: wasi.build(),
            http: WasiHttpCtx::new(),
            table,
            limits: limits.build(),
            guest,
            callbacks: self.callbacks.clone(),
            call_times: None,
        };
        let mut store = wasmtime::Store::new(&self.engine, state);
        store.limiter(|s| &mut s.limits);
        store.set_epoch_deadline(s.timeout_ticks);
        store.epoch_deadline_trap();
        store.as_context_mut().set_hostcall_fuel(s.hostcall_fuel);
        Ok(store)
    }
}
