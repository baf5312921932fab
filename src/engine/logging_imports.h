// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasi:logging for core modules: `log` of module "wasi:logging/logging", as WasmEdge serves it
// and LlamaEdge's llama-api-server imports it (level, context, message; no result). A call is one
// line of wasinn's log at the guest's level, shown as --log-level says. The context is only a
// label: WasmEdge writes to a file a context names, wasinn never opens one. Nothing a guest passes
// traps or throws: a bad pointer or level is logged as such.
#pragma once

#include <wasmtime.h>

#include "core/error.h"

namespace wasinn {

Status define_wasi_logging(wasmtime_linker_t* linker);

}  // namespace wasinn
