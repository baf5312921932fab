// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* The table through which the engine's typed component binding (src/engine/wasmtime/, Rust)
 * serves a component's wasi:nn imports with wasinn's rules (abi/wit_nn.h's WitSession, reached
 * through engine/wit_nn_imports.cpp). Wasmtime lifts each import's arguments with its typed API
 * (a list<u8> is read where it lies in guest memory) and calls one function of the table.
 *
 * Ownership: whatever the Rust side passes in (bytes, dims, names, input lists) is borrowed for
 * the call only; bytes may point into guest memory. What a function hands back in its
 * wasinn_wit_out (dims, a case name, a string, output names, a trap message) is owned by the C++
 * side and valid until the same thread's next call into the table, so the caller copies what it
 * keeps; `tensor_data`'s bytes stay valid until the guest's next `tensor_data` or its store ends
 * (they are lowered into guest memory after the call returns, with no copy in between).
 * Threads: `guest` is the store's data (a GuestState); a store is used by one thread at a time,
 * so calls for one guest never overlap; different guests call concurrently.
 * Errors: every function returns a status. OK: done (`out->rep` is the resource it made, if any).
 * ERR: the wasi-nn call failed, `out->rep` is a new error resource for the guest's result::err.
 * (wasinn:nn-ext's prompt functions, whose WIT errors are strings, hand back `out->message`.)
 * TRAP: a misuse the canonical ABI cannot answer with an error value (an unknown handle, too
 * many tensors); `out->message` says why and the guest traps. No C++ exception crosses. */
#ifndef WASINN_ENGINE_WIT_HOST_H
#define WASINN_ENGINE_WIT_HOST_H

#include <stddef.h>
#include <stdint.h>

#include <wasmtime.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum wasinn_wit_status { WASINN_WIT_OK = 0, WASINN_WIT_ERR = 1, WASINN_WIT_TRAP = 2 } wasinn_wit_status;
typedef enum wasinn_wit_resource {
  WASINN_WIT_TENSOR = 0,
  WASINN_WIT_GRAPH = 1,
  WASINN_WIT_CONTEXT = 2,
  WASINN_WIT_ERROR = 3
} wasinn_wit_resource;

typedef struct wasinn_wit_str {
  const char* data;
  size_t len;
} wasinn_wit_str;

typedef struct wasinn_wit_bytes {
  const uint8_t* data;
  size_t len;
} wasinn_wit_bytes;

/* A named tensor: an input of compute (an own handle, consumed) or an output (a new tensor). */
typedef struct wasinn_wit_named {
  wasinn_wit_str name;
  uint32_t tensor;
} wasinn_wit_named;

typedef struct wasinn_wit_out {
  uint32_t rep;           /* OK: the resource made; ERR: the error resource */
  const void* data;       /* by function: uint32_t dims, bytes, chars, or wasinn_wit_named */
  size_t len;             /* elements of `data` */
  wasinn_wit_str message; /* TRAP: why */
} wasinn_wit_out;

/* The table itself: engine/wit_host_table.h (its slots are generated from the WIT files). */
typedef struct wasinn_wit_host wasinn_wit_host;

/* Defined by the Rust side. Adds wasi:nn@0.2.0-rc-2024-06-25, -08-19 and -10-28 to a component
 * linker made by the C API; `host` must outlive the linker. */
wasmtime_error_t* wasinn_wit_define(wasmtime_component_linker_t* linker, const wasinn_wit_host* host);

/* How many bytes one host call may lift out of the guest (Wasmtime's hostcall fuel, 128 MiB by
 * default), so that wasinn's own limits are the only ones a component meets. */
void wasinn_store_set_hostcall_fuel(wasmtime_context_t* context, size_t bytes);
/* The most entries the store's resource tables may hold at once (WASI's, and a 0.3 component's
 * tasks, streams and futures), as Wasmtime's -S max-resources: past it the call creating one
 * fails ("resource table has no free keys"). Only after wasmtime_context_set_wasi. */
void wasinn_store_set_max_resources(wasmtime_context_t* context, size_t max);
/* WASI 0.3 components (src/engine/wasmtime/src/p3.rs). add_wasip3 adds WASI 0.3's interfaces
 * beside the C API's WASI 0.2 (both read the store's WASI context). A component that imports a
 * concurrent function or exports an async one is instantiated and called with the _p3 twins of
 * wasmtime_component_linker_instantiate and wasmtime_component_func_call, which run it to
 * completion on the calling thread. */
wasmtime_error_t* wasinn_component_linker_add_wasip3(wasmtime_component_linker_t* linker);
wasmtime_error_t* wasinn_component_linker_instantiate_p3(const wasmtime_component_linker_t* linker,
                                                         wasmtime_context_t* context,
                                                         const wasmtime_component_t* component,
                                                         wasmtime_component_instance_t* instance_out);
wasmtime_error_t* wasinn_component_func_call_p3(const wasmtime_component_func_t* func, wasmtime_context_t* context,
                                                const wasmtime_component_val_t* args, size_t args_len,
                                                wasmtime_component_val_t* results, size_t results_len);
/* src/engine/wasmtime/src/component_kind.rs: whether a component imports or exports a function
 * typed `async` (it then needs the _p3 twins above, whatever interfaces it names), and whether a
 * call's error is a Wasmtime Trap (Wasmtime's CLI exits 134 on those, 1 on any other error). */
bool wasinn_component_has_async_func(const wasm_engine_t* engine, const wasmtime_component_t* component);
bool wasinn_error_is_trap(const wasmtime_error_t* error);

#ifdef __cplusplus
}
#endif

#endif
