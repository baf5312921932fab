// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! wasinn's Wasmtime binding: Wasmtime's C API, which the C++ engine binding drives (engines, modules,
//! components, stores, WASI), and the typed component imports it cannot express efficiently:
//! `bindings` (generated from wit/ by `bindgen!`), implemented by `wit_nn` (wasi:nn), `nn_ext`,
//! `nn_async` and `spin_llm`. The rules behind those imports stay in C++: `host` is the C table
//! (`src/engine/wit_host.h`) the imports call. Serving's crates (src/serve/http, src/serve/pipeline)
//! build on `host`, `wit_nn`, `spin_llm` and `handles`; src/wasmtime_library links all into one library.

// Every `#[no_mangle]` function of the C API, exported from this library as from Wasmtime's own.
pub use wasmtime_c_api::*;

mod bindings;
mod bytes_in_place;
mod component_kind;
pub mod handles;
pub mod host;
pub mod long_call;
mod nn_async;
mod nn_ext;
mod p3;
pub mod spin_llm;
#[cfg(any(test, feature = "test-support"))]
pub mod test_support;
#[cfg(test)]
mod tests;
pub mod wit_nn;

pub use component_kind::{wasinn_component_has_async_func, wasinn_error_is_trap};
pub use host::*;
pub use wit_nn::{wasinn_store_set_hostcall_fuel, wasinn_store_set_max_resources, wasinn_wit_define};
