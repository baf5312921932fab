// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The WASI context of one guest (arguments, environment, preopened directories, standard
// streams) from its Program: the same for core modules (WASI preview 1) and components (WASI
// 0.2, which Wasmtime builds from the same configuration).
#pragma once

#include "core/error.h"
#include "engine/wasmtime_ptr.h"
#include "wasinn/host.h"

namespace wasinn {

Result<WasiConfigPtr> make_wasi(const Program& program);

}  // namespace wasinn
