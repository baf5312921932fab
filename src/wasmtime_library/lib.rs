// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! libwasinn_wasmtime.so: the engine binding (with Wasmtime's whole C API) and serving's Rust,
//! linked as the one library the C++ side calls. A crate above them all, so that the engine
//! crate never depends on serving; re-exporting each crate keeps its `#[no_mangle]` functions.
pub use wasinn_engine::*;
pub use wasinn_serve_http::*;
pub use wasinn_serve_pipeline::*;

mod rust_heap;

// The rooms abi_layouts.def names the mirrors by, for build.rs's asserts (`host` is the engine's).
mod serve {
    pub use wasinn_serve_http::*;
}
mod pipeline {
    pub use wasinn_serve_pipeline::*;
}

// abi_layouts.def's sizes and field offsets, asserted of the C structs' Rust mirrors (build.rs).
include!(concat!(env!("OUT_DIR"), "/abi_layouts.rs"));
