// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! wasinn's Wasmtime: Wasmtime's C API, which the C++ engine binding drives (engines, modules,
//! components, stores, WASI), and the typed `wasi:nn` component imports it cannot express
//! efficiently (`wit_nn`). The rules behind those imports stay in C++: `host` is the C table
//! (`src/engine/wit_host.h`) the imports call.

// Every `#[no_mangle]` function of the C API, exported from this library as from Wasmtime's own.
pub use wasmtime_c_api::*;

mod component_kind;
mod host;
mod nn_async;
mod nn_ext;
mod p3;
mod pipeline;
#[cfg(test)]
mod pipeline_tests;
mod serve;
mod spin_llm;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
mod wit_nn;

// abi_layouts.def's sizes and field offsets, asserted of the C structs' Rust mirrors (build.rs).
include!(concat!(env!("OUT_DIR"), "/abi_layouts.rs"));

pub use component_kind::{wasinn_component_has_async_func, wasinn_error_is_trap};
pub use host::*;
pub use wit_nn::{wasinn_store_set_hostcall_fuel, wasinn_store_set_max_resources, wasinn_wit_define};
