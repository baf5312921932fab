// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Defines the wasi-nn host functions on a Wasmtime linker. Each function finds the calling
// store's GuestState (the store's data pointer) and decodes its arguments through the guest
// ABI layer; nothing a guest passes can make it trap or throw.
#pragma once

#include <optional>
#include <string_view>

#include <wasmtime.h>

#include "abi/guest_memory.h"
#include "core/error.h"

namespace wasinn {

struct GuestState;

// Module `wasi_ephemeral_nn`: the twelve witx functions (standard plus WasmEdge extensions).
Status define_ephemeral_nn(wasmtime_linker_t* linker);
// Module `wasi_nn`: WAMR's legacy six functions.
Status define_legacy_nn(wasmtime_linker_t* linker);

// Defines MODULE::NAME as an unchecked host function of `params` i32 parameters and `results`
// (0 or 1) i32 results: how every core-module host function reaches a linker.
Status define_i32_func(wasmtime_linker_t* linker, std::string_view module, std::string_view name, size_t params,
                       size_t results, wasmtime_func_unchecked_callback_t callback, void* env);

// The calling guest's linear memory (its shared memory, the cached export or its "memory"
// export), or nullopt when it exports none; the host functions' one way to it.
std::optional<GuestMemoryView> caller_memory(wasmtime_caller_t* caller, GuestState& state);

}  // namespace wasinn
