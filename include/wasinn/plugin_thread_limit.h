// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The most framework threads a config (the operator's backend config or a guest's load config)
// may ask a plugin for. Without a bound, one guest call with {"intra_op_threads": 20000} made
// ONNX Runtime start 20000 threads (docs/reliability.md); more than a few threads per hardware
// thread only adds contention, so configs past 4 per hardware thread are refused.
// Header-only C++ for plugins; thread-safe.
#pragma once

#include <algorithm>
#include <thread>

namespace wasinn {

inline int max_config_threads() { return 4 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

}  // namespace wasinn
