// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Defines the WIT wasi-nn interfaces (`wasi:nn/{tensor,graph,inference,errors}@V` for every
// version wit_nn::kVersions lists) on a Wasmtime component linker: typed host functions from the
// engine's Rust binding (wit_host_table.h) over wit_nn::WitSession. A store using them carries a
// GuestState whose `wit` is set.
#pragma once

#include <wasmtime.h>

#include "core/error.h"
#include "engine/wit_host_table.h"

namespace wasinn {

Status define_wit_nn(wasmtime_component_linker_t* linker);

// The table itself, for tests and fuzzing that call it as the Rust side does.
const wasinn_wit_host& wit_host_table();

}  // namespace wasinn
