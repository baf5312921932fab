// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Owning smart pointers for Wasmtime C API objects, so every one is freed exactly once.
#pragma once

#include <memory>
#include <string>

#include <wasi.h>
#include <wasmtime.h>

namespace wasinn {

template <class T, void (*Delete)(T*)>
struct WasmtimeDeleter {
  void operator()(T* p) const {
    if (p) Delete(p);
  }
};

using EnginePtr = std::unique_ptr<wasm_engine_t, WasmtimeDeleter<wasm_engine_t, wasm_engine_delete>>;
using ModulePtr = std::unique_ptr<wasmtime_module_t, WasmtimeDeleter<wasmtime_module_t, wasmtime_module_delete>>;
using LinkerPtr = std::unique_ptr<wasmtime_linker_t, WasmtimeDeleter<wasmtime_linker_t, wasmtime_linker_delete>>;
using StorePtr = std::unique_ptr<wasmtime_store_t, WasmtimeDeleter<wasmtime_store_t, wasmtime_store_delete>>;
using ErrorPtr = std::unique_ptr<wasmtime_error_t, WasmtimeDeleter<wasmtime_error_t, wasmtime_error_delete>>;
using TrapPtr = std::unique_ptr<wasm_trap_t, WasmtimeDeleter<wasm_trap_t, wasm_trap_delete>>;
using ComponentPtr =
    std::unique_ptr<wasmtime_component_t, WasmtimeDeleter<wasmtime_component_t, wasmtime_component_delete>>;
using ComponentLinkerPtr =
    std::unique_ptr<wasmtime_component_linker_t,
                    WasmtimeDeleter<wasmtime_component_linker_t, wasmtime_component_linker_delete>>;
using WasiConfigPtr = std::unique_ptr<wasi_config_t, WasmtimeDeleter<wasi_config_t, wasi_config_delete>>;

// The message of an error or trap (Wasmtime includes the wasm backtrace in it).
std::string message_of(const wasmtime_error_t* error);
std::string message_of(const wasm_trap_t* trap);

}  // namespace wasinn
