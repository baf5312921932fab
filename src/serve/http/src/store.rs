// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! A request's store (serve_host.h's `guest_new` and `guest_free`, its limits and WASI): WASI
//! 0.2, wasi:http, and the C++ guest state wasi:nn calls use, made fresh for every request and
//! freed with it.
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use wasmtime::component::ResourceTable;
use wasmtime::{format_err, AsContextMut, Result, StoreContext};
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};
use wasmtime_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};

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
    /// Set for a reused 0.3 instance (on a lane): the average time, in microseconds, of each of
    /// its wasi:nn functions that may block (load, compute, a generation step), by name: a fast
    /// load-by-name says nothing of the compute after it.
    recent_call_micros: Option<RefCell<HashMap<&'static str, u64>>>,
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

/// Calls at least this long on average leave the lane for the blocking pool (long_call_inline).
const HAND_OFF_MICROS: u64 = 1000;

impl NnStore for RequestState {
    fn nn_guest(cx: StoreContext<'_, Self>) -> Guest {
        cx.data().guest
    }

    /// A long call (a load, a compute) of a reused 0.3 instance leaves its lane (lanes.rs) for
    /// tokio's blocking pool (the engine's long_call.rs), so the lane's other connections go on.
    /// That hand-off costs two thread wake-ups, as long as a small model's whole compute: so a
    /// function whose recent calls on this instance took under 1 ms on average runs in place (its
    /// first call, not yet timed, hands off). An instance per request runs on a guest thread of
    /// its own, where blocking is the design.
    fn long_call_inline(&self, function: &'static str) -> bool {
        self.recent_call_micros
            .as_ref()
            .is_some_and(|r| r.borrow().get(function).is_some_and(|&micros| micros < HAND_OFF_MICROS))
    }

    fn long_call_took(&self, function: &'static str, took: Duration) {
        if let Some(recent) = &self.recent_call_micros {
            // Bounded so that the average's arithmetic cannot overflow.
            let took = took.as_micros().min(u128::from(u64::MAX / 4)) as u64;
            // The first call of a function, not yet timed, counts as at the bound.
            let mut recent = recent.borrow_mut();
            let average = recent.entry(function).or_insert(HAND_OFF_MICROS);
            *average = (*average * 3 + took) / 4;
        }
    }
}

impl RequestState {
    /// For a reused instance's store: its long wasi:nn calls may leave the lane to others.
    pub(super) fn hand_off_long_calls(&mut self) {
        // It starts at the bound: the first call, not yet timed, hands off.
        self.recent_call_micros = Some(RefCell::new(HashMap::new()));
    }
}

impl Shared {
    /// A fresh store for one request, under the config's limits: memory, epoch deadline, hostcall fuel.
    pub(super) fn new_store(&self) -> Result<wasmtime::Store<RequestState>> {
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
            callbacks: self.callbacks.clone(),
            recent_call_micros: None,
        };
        let mut store = wasmtime::Store::new(&self.engine, state);
        store.limiter(|s| &mut s.limits);
        store.set_epoch_deadline(s.timeout_ticks);
        store.epoch_deadline_trap();
        store.as_context_mut().set_hostcall_fuel(s.hostcall_fuel);
        Ok(store)
    }
}
