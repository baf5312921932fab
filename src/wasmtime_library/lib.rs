// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! libwasinn_wasmtime.so: the engine binding (with Wasmtime's whole C API) and serving's Rust,
//! linked as the one library the C++ side calls. A crate above them all, so that the engine
//! crate never depends on serving; re-exporting each crate keeps its `#[no_mangle]` functions.
pub use wasinn_engine::*;
pub use wasinn_serve_http::*;
pub use wasinn_serve_pipeline::*;

mod rust_heap;
