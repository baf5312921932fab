// Defines the WIT wasi-nn interfaces (`wasi:nn/{tensor,graph,inference,errors}@V` for every
// version wit_nn::kVersions lists) on a Wasmtime component linker: component values in and out,
// wit_nn::WitSession behind them. A store using them carries a GuestState whose `wit` is set.
#pragma once

#include <wasmtime.h>

#include "core/error.h"

namespace wasinn {

Status define_wit_nn(wasmtime_component_linker_t* linker);

}  // namespace wasinn
