// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Instantiating a core module (WASI preview 1 and the witx wasi-nn imports; a module that
// imports a shared memory is a wasi-threads guest on the Host's threads engine).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/host_impl.h"
#include "wasinn/host.h"

namespace wasinn {

// wasm: the module's binary. nullptr with *error set when it cannot be compiled or instantiated.
std::unique_ptr<Instance> instantiate_module(Host::Impl& host, const Program& program, const std::vector<uint8_t>& wasm,
                                             std::string* error);

}  // namespace wasinn
