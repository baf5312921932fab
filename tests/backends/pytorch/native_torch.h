// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The reference every backend result is compared with: the same TorchScript file run by
// libtorch directly in this process. Declared without torch types so only native_torch.cpp pays
// for libtorch's headers.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "host_tensor.h"

namespace wasinn_test {

// Loads `path` with torch::jit::load, runs forward once on `inputs` (in argument order) under
// NoGradGuard, and flattens the result: a tensor is one output, a tuple one per element (nested
// tuples depth-first), a list one per element, a dict one per entry in sorted key order
// (HostTensor::name holds the key). A scalar result is a rank-0 tensor: int i64, float f64,
// bool u8.
std::vector<HostTensor> native_forward(const std::string& path, const std::vector<HostTensor>& inputs);

// One argument of forward: a tensor, a TorchScript int, float or bool, or None (monostate).
// Arguments left out at the end take their defaults.
using NativeArg = std::variant<HostTensor, int64_t, double, bool, std::monostate>;
std::vector<HostTensor> native_forward_args(const std::string& path, const std::vector<NativeArg>& args);

// libtorch's intra-op thread count for this process, which the dlopened plugin shares.
void native_set_threads(int n);

// A TorchScript archive (torch.jit.save's bytes) of a module whose methods are `source`,
// compiled here by libtorch.
std::vector<uint8_t> native_script_archive(const std::string& source);

// Raises a c10 warning (TORCH_WARN) on a new thread, which has c10's default warning handler.
void native_warn_on_new_thread(const std::string& message);

}  // namespace wasinn_test
