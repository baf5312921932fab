// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! The Engine and Component behind the C API's handles, for the Rust that runs components
//! itself (serving's crates) or asks what the C API does not say (component_kind.rs).
use wasmtime::component::Component;
use wasmtime::Engine;
use wasmtime_c_api::{wasm_engine_t, wasmtime_component_t};

// `wasm_engine_t` is `#[repr(C)]` with the Engine its only field, `wasmtime_component_t`
// `#[repr(transparent)]` over the Component (48.0.8, 49.0.5; fields private to the C API's crate).
const _: () = assert!(std::mem::size_of::<wasm_engine_t>() == std::mem::size_of::<Engine>());
const _: () = assert!(std::mem::size_of::<wasmtime_component_t>() == std::mem::size_of::<Component>());

/// The Engine and Component behind the C API's handles (the layouts checked above); the server
/// and the pipelines keep clones.
pub fn engine_of(p: *const wasm_engine_t) -> Engine {
    unsafe { (*(p as *const Engine)).clone() }
}

pub fn component_of(p: *const wasmtime_component_t) -> Component {
    unsafe { (*(p as *const Component)).clone() }
}

/// Why a guest failed, in one line: a trap with the function it happened in, else the error's
/// first line (and its cause, when that line is only context).
pub fn one_line(e: &wasmtime::Error) -> String {
    let Some(trap) = e.downcast_ref::<wasmtime::Trap>() else {
        let text = format!("{e}");
        let first = text.lines().next().unwrap_or("");
        // Wasmtime's context for a host call's error ("error while executing at wasm backtrace:")
        // ends with a colon: the cause says what failed ("resource table has no free keys").
        return match e.chain().last() {
            Some(cause) if first.ends_with(':') => {
                format!("{first} {}", cause.to_string().lines().next().unwrap_or(""))
            }
            _ => first.to_string(),
        };
    };
    let place = e.downcast_ref::<wasmtime::WasmBacktrace>().and_then(|bt| {
        bt.frames().first().map(|f| {
            f.func_name()
                .map_or_else(|| format!("function {}", f.func_index()), str::to_string)
        })
    });
    match place {
        Some(f) => format!("the guest trapped in {f}: {trap}"),
        None => format!("the guest trapped: {trap}"),
    }
}
