// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! WASI 0.3 components for `wasinn run` (wit_host.h): WASI 0.3's interfaces on the C API's
//! component linker, and the async instantiation and calls a 0.3 component needs (its exports
//! are async-lifted, its imports concurrent, so Wasmtime refuses the C API's blocking calls).
//! Each runs to completion on the caller's thread inside wasinn's tokio runtime, whose timers
//! and blocking pool WASI 0.3 and `wasinn:nn-async` use.
use std::sync::OnceLock;

use wasmtime::component::{Func, Instance, Linker, Val};
use wasmtime::{format_err, Result};
use wasmtime_c_api::{
    wasmtime_component_linker_t, wasmtime_component_t, wasmtime_component_val_t, wasmtime_error_t,
    WasmtimeStoreContextMut, WasmtimeStoreData,
};

/// The runtime every 0.3 call of the process runs in: one worker (the caller's thread drives the
/// guest), its blocking pool for the frameworks' work.
pub(crate) fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("wasinn-p3")
            .enable_all()
            .build()
            .expect("wasinn: cannot start the tokio runtime for WASI 0.3")
    })
}

fn error(e: wasmtime::Error) -> Option<Box<wasmtime_error_t>> {
    Some(Box::new(wasmtime_error_t::from(e)))
}

fn null_argument(what: &str) -> Option<Box<wasmtime_error_t>> {
    error(format_err!("{what}: null argument"))
}

/// Adds WASI 0.3 (cli, clocks, filesystem, random, sockets) to a component linker made by the C
/// API, beside its WASI 0.2; both read the store's one WASI context.
///
/// # Safety
/// `linker` is a live `wasmtime_component_linker_t`.
#[no_mangle]
pub unsafe extern "C" fn wasinn_component_linker_add_wasip3(
    linker: *mut wasmtime_component_linker_t,
) -> Option<Box<wasmtime_error_t>> {
    if linker.is_null() {
        return null_argument("wasinn_component_linker_add_wasip3");
    }
    let linker = &mut *(linker as *mut Linker<WasmtimeStoreData>);
    wasmtime_wasi::p3::add_to_linker(linker).err().and_then(error)
}

/// Instantiates `component` asynchronously (wasmtime_component_linker_instantiate's twin).
///
/// # Safety
/// As wasmtime_component_linker_instantiate.
#[no_mangle]
pub unsafe extern "C" fn wasinn_component_linker_instantiate_p3(
    linker: *const wasmtime_component_linker_t,
    mut cx: WasmtimeStoreContextMut<'_>,
    component: *const wasmtime_component_t,
    out: *mut Instance,
) -> Option<Box<wasmtime_error_t>> {
    if linker.is_null() || component.is_null() || out.is_null() {
        return null_argument("wasinn_component_linker_instantiate_p3");
    }
    let linker = &*(linker as *const Linker<WasmtimeStoreData>);
    let component = crate::handles::component_of(component);
    match runtime().block_on(linker.instantiate_async(&mut cx, &component)) {
        Ok(instance) => {
            *out = instance;
            None
        }
        Err(e) => error(e),
    }
}

/// Calls `func` asynchronously to completion (wasmtime_component_func_call's twin): an
/// async-lifted export, and anything the guest's tasks still do until it returns.
///
/// # Safety
/// As wasmtime_component_func_call.
#[no_mangle]
pub unsafe extern "C" fn wasinn_component_func_call_p3(
    func: *const Func,
    mut cx: WasmtimeStoreContextMut<'_>,
    args: *const wasmtime_component_val_t,
    args_len: usize,
    results: *mut wasmtime_component_val_t,
    results_len: usize,
) -> Option<Box<wasmtime_error_t>> {
    if func.is_null() || (args_len > 0 && args.is_null()) || (results_len > 0 && results.is_null()) {
        return null_argument("wasinn_component_func_call_p3");
    }
    let func = *func;
    let params: Vec<Val> = (0..args_len).map(|k| Val::from(&*args.add(k))).collect();
    let mut vals = vec![Val::Bool(false); results_len];
    let called: Result<()> = runtime().block_on(func.call_async(&mut cx, &params, &mut vals));
    match called {
        Ok(()) => {
            for (k, v) in vals.iter().enumerate() {
                *results.add(k) = wasmtime_component_val_t::from(v);
            }
            None
        }
        Err(e) => error(e),
    }
}
