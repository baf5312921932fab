// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// src/wasmtime_library/rust_heap.rs: the heap libwasinn_wasmtime.so's Rust allocates from,
// "mimalloc", or "system" under a sanitizer or WASINN_RUST_ALLOCATOR=system. Static storage.
#pragma once

extern "C" const char* wasinn_rust_heap_name(void);
